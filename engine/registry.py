"""The registry of rule systems: ours, and any a third party installs through the
`combatlog.rules` entry-point group (a name pointing at a RuleSystem instance).
"""

from __future__ import annotations

from importlib import import_module
from importlib.metadata import entry_points

from combatlog.engine.plugin_api import API, hook_problem
from combatlog.engine.protocol import RuleSystem
from combatlog.events import Event, register_event
from combatlog.events import catalogue as _catalogue
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


class MissingRuleSystem(KeyError):
    """A rule system that isn't installed: its name, and (from a log) its version and package."""

    def __init__(self, name: str, version: str | None = None, package: str | None = None) -> None:
        self.name, self.version, self.package = name, version, package
        installed = ", ".join(names()) or "none"
        if version is None and package is None:
            super().__init__(f"no rule system {name!r}; installed: {installed}")
            return
        where = f" version {version}" if version else ""
        source = f" (from the package {package})" if package else ""
        hint = f"; install it: pip install {package}" if package else ""
        super().__init__(f"rule system {name!r}{where}{source} isn't installed (installed: {installed}){hint}")


class PluginError(ValueError):
    """A rule system that breaks the protocol, said in one line (what is wrong, and the fix)."""


def check(system: object) -> RuleSystem:
    """`system` if it keeps the protocol; raises PluginError naming the first thing that doesn't.

    An instance of a RuleSystem subclass, with a name, its own actions (and initiative, unless
    its order rolls none); every event type of its own folded, allowed in some phase, and (for
    a system outside combatlog) tagged with its name as a prefix: `minid20.AttackRolled`.
    """
    if isinstance(system, type):
        name = system.__name__
        raise PluginError(f"{name}: the entry point names the class; name its instance (X = {name}())")
    if not isinstance(system, RuleSystem):
        raise PluginError(f"{system!r}: not a RuleSystem (subclass combatlog.plugin.RuleSystem)")
    cls = type(system)
    name = system.name
    if not name or name == RuleSystem.name:
        raise PluginError(f"{cls.__name__}: give the system a name (name = 'minid20')")
    problem = hook_problem(system, RuleSystem)
    if problem is not None:
        raise PluginError(f"{name}: {problem}")
    if cls.actions is RuleSystem.actions:
        raise PluginError(f"{name}: no actions; override actions(state, actor) to return its ActionSpecs")
    if cls.initiative is RuleSystem.initiative and cls.order is RuleSystem.order:
        raise PluginError(f"{name}: no initiative; override initiative(draft, combatant, ids), or order(options)")
    ours = cls.__module__.startswith("combatlog.")
    from combatlog.projections.fold import HANDLERS
    from combatlog.projections.phases import TABLE

    allowed = {tag for (_, tag) in TABLE}
    for event in system.events:
        tag = str(event.__struct_config__.tag)  # type: ignore[attr-defined]
        if not ours and not tag.startswith(f"{name}."):
            raise PluginError(f"{name}: event {tag}: tag it with the system's name, tag='{name}.{event.__name__}'")
        if event not in HANDLERS:
            raise PluginError(f"{name}: event {tag} has no fold; decorate one with @register_fold({event.__name__})")
        if tag not in allowed:
            raise PluginError(f"{name}: event {tag} is allowed in no phase; call allow('{tag}', ...)")
    for event in _own_events(system, ours):
        if event not in system.events:
            tag = str(event.__struct_config__.tag)
            listed = ", ".join(e.__name__ for e in system.events)
            raise PluginError(
                f"{name}: event {tag} ({event.__module__}) isn't in {cls.__name__}.events, so no log could "
                f"read it back; list it: events = ({listed + ', ' if listed else ''}{event.__name__},)"
            )
    return system


def _own_events(system: RuleSystem, ours: bool) -> list[type[Event]]:
    """The event types that are `system`'s own: tagged with its name as a prefix, or (one of
    ours) defined in its package; every one must be in its `events`."""
    name = system.name
    package = ".".join(type(system).__module__.split(".")[:4]) + "." if ours else None
    found, todo = [], list(Event.__subclasses__())
    while todo:
        event = todo.pop()
        todo.extend(event.__subclasses__())
        tag = str(event.__struct_config__.tag)
        if tag.startswith(f"{name}.") or (package is not None and f"{event.__module__}.".startswith(package)):
            found.append(event)
    return sorted(found, key=lambda e: str(e.__struct_config__.tag))


def register(system: RuleSystem) -> RuleSystem:
    """Make `system` available by its name (after `check`); registers its event types; returns it."""
    check(system)
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
                register(check(system))
    try:
        return _systems[name]
    except KeyError:
        raise MissingRuleSystem(name) from None


def package_of(name: str) -> str | None:
    """The distribution that provides the installed plugin `name` (None: ours, or not known)."""
    if name in BUILTIN:
        return None
    ep = _entry_points().get(name)
    dist = getattr(ep, "dist", None)
    return getattr(dist, "name", None) if dist is not None else None


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


def _load_system_of(tag: str) -> None:
    """A log holds an event type no one registered: load the one rule system that can hold it,
    the one its tag names (`minid20.CriticalHit` -> minid20), only when a log's creation named
    that system (`catalogue.is_named`) and it is installed; an unprefixed tag is one of ours
    (older events of the bundled systems), loaded only for a bundled system a log named.
    Nothing else is imported: a stray tag in a log of another system loads no plugin."""
    prefix, dot, _ = tag.partition(".")
    candidates = [prefix] if dot else list(BUILTIN)
    for name in candidates:
        if not _catalogue.is_named(name):
            continue
        if name in BUILTIN or name in _entry_points():
            try:
                get(name)
            except Exception:  # a broken plugin must not stop a log of another system from loading
                continue


def _load_system(name: str) -> None:
    """A log names rule system `name`: load it (it registers its events and state type)."""
    _catalogue.named(name)
    get(name)


_catalogue.add_resolver(_load_system_of)
set_rules_loader(_load_system)

__all__ = [
    "API",
    "MissingRuleSystem",
    "PluginError",
    "check",
    "get",
    "names",
    "package_of",
    "register",
]
