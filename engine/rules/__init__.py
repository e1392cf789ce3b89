"""The registry of rule systems: ours, and any a third party installs through the
`combatlog.rules` entry-point group (a name pointing at a RuleSystem instance).
"""

from __future__ import annotations

from importlib import import_module
from importlib.metadata import entry_points

from combatlog.engine.rules.base import ActionSpec, OptionSpec, RuleSystem
from combatlog.events import catalogue as _catalogue
from combatlog.events import register_event
from combatlog.projections.fold import register_rules_state, set_rules_loader

_systems: dict[str, RuleSystem] = {}

# Ours, importable even when the package's entry points aren't installed (a source checkout).
BUILTIN: dict[str, str] = {
    "skirmish": "combatlog.engine.rules.skirmish",
    "starflight": "combatlog.engine.rules.starflight",
    "infinite-realms": "combatlog.engine.rules.infinite_realms",
    "swords-of-infinity": "combatlog.engine.rules.swords_of_infinity",
    "straalara": "combatlog.engine.rules.straalara",
    "triptycho": "combatlog.engine.rules.triptycho",
}


def register(system: RuleSystem) -> RuleSystem:
    """Make `system` available by its name; registers its event types; returns it."""
    for cls in system.events:
        register_event(cls)
    if system.state_type is not None:
        register_rules_state(system.name, system.state_type)
    _systems[system.name] = system
    return system


def _entry_points() -> dict[str, object]:
    return {ep.name: ep for ep in entry_points(group="combatlog.rules")}


def get(name: str) -> RuleSystem:
    """The rule system `name` (ours, or an installed plugin's); raises KeyError naming the known ones."""
    if name in _systems:
        return _systems[name]
    if name in BUILTIN:
        import_module(BUILTIN[name])
    else:
        ep = _entry_points().get(name)
        if ep is not None:
            system = ep.load()  # type: ignore[attr-defined]
            if name not in _systems:
                register(system)
    try:
        return _systems[name]
    except KeyError:
        raise KeyError(f"no rule system {name!r}; installed: {', '.join(names()) or 'none'}") from None


def names() -> list[str]:
    """Every rule system available (ours and installed plugins), sorted, without importing them."""
    known = set(_systems) | set(_entry_points())
    for name, module in BUILTIN.items():
        try:
            import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
            continue
        known.add(name)
    return sorted(n for n in known if n in _systems or n not in BUILTIN)


def _load_every_system(tag: str) -> None:
    """A log names an event type no one registered: load every rule system (theirs register it)."""
    for name in names():
        try:
            get(name)
        except Exception:  # a broken plugin must not stop a log of another system from loading
            continue


def _load_system(name: str) -> None:
    """A log names rule system `name`: load it (it registers its events and state type)."""
    get(name)


_catalogue.add_resolver(_load_every_system)
set_rules_loader(_load_system)

__all__ = ["ActionSpec", "OptionSpec", "RuleSystem", "get", "names", "register"]
