"""The registry of rule systems: ours, and any a third party installs through the
`combatlog.rules` entry-point group (a name pointing at a RuleSystem instance).
"""

from __future__ import annotations

from importlib import import_module
from importlib.metadata import entry_points

from combatlog.engine.rules.base import ActionSpec, OptionSpec, RuleSystem

_systems: dict[str, RuleSystem] = {}
_loaded = False

# Ours, importable even when the package's entry points aren't installed (a source checkout).
BUILTIN: dict[str, str] = {
    "skirmish": "combatlog.engine.rules.skirmish",
    "starflight": "combatlog.engine.rules.starflight",
}


def register(system: RuleSystem) -> RuleSystem:
    """Make `system` available by its name; registers its event types; returns it."""
    from combatlog.events import register_event

    for cls in system.events:
        register_event(cls)
    _systems[system.name] = system
    return system


def _load_entry_points() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for ep in sorted(entry_points(group="combatlog.rules"), key=lambda e: e.name):
        if ep.name not in _systems:
            system = ep.load()
            if ep.name not in _systems:
                register(system)


def get(name: str) -> RuleSystem:
    """The rule system `name`; raises KeyError naming the installed ones."""
    if name not in _systems and name in BUILTIN:
        import_module(BUILTIN[name])
    _load_entry_points()
    try:
        return _systems[name]
    except KeyError:
        raise KeyError(f"no rule system {name!r}; installed: {', '.join(sorted(_systems)) or 'none'}") from None


def names() -> list[str]:
    """The installed rule systems, sorted."""
    for module in BUILTIN.values():
        try:
            import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
    _load_entry_points()
    return sorted(_systems)


__all__ = ["ActionSpec", "OptionSpec", "RuleSystem", "get", "names", "register"]
