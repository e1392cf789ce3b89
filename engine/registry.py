"""The registry of rule systems: every one is an entry point of the `combatlog.rules` group (a
name pointing at a RuleSystem instance), ours as a third party's, loaded the first time its
name is asked for (or a log names it) and checked as it registers.

Ours are listed in combatlog's own metadata, written when it is installed (`pip install -e .`
in a checkout): without it no system is found by name, and the refusal says to install.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points
from importlib.util import find_spec
from typing import Any

from combatlog.engine.plugin_api import API, hook_problem
from combatlog.engine.protocol import RuleSystem
from combatlog.engine.typed import lenient
from combatlog.events import Event, register_event
from combatlog.events import catalogue as _catalogue
from combatlog.projections.fold import Models, register_rules_state, set_rules_loader, set_rules_models

_systems: dict[str, RuleSystem] = {}

BUNDLED = "combatlog.engine.rules"  # the package our own systems live in


def ours(module: str) -> bool:
    """True for a module of combatlog itself (a bundled system's), not a third party's."""
    return module.startswith("combatlog.")


class MissingRuleSystem(KeyError):
    """A rule system that isn't installed: its name, and (from a log) its version and package."""

    def __init__(self, name: str, version: str | None = None, package: str | None = None) -> None:
        self.name, self.version, self.package = name, version, package
        installed = ", ".join(names()) or "none"
        if version is None and package is None:
            super().__init__(f"no rule system {name!r}; installed: {installed}{_unlisted(name)}")
            return
        where = f" version {version}" if version else ""
        source = f" (from the package {package})" if package else ""
        hint = f"; install it: pip install {package}" if package else ""
        super().__init__(f"rule system {name!r}{where}{source} isn't installed (installed: {installed}){hint}")


def _unlisted(name: str) -> str:
    """A hint when `name` is one of ours that the installed metadata doesn't list (installed
    before the system was added, or not installed at all), else ''."""
    module = name.replace("-", "_")
    if not module.isidentifier() or find_spec(f"{BUNDLED}.{module}") is None:
        return ""
    return "; it is one of combatlog's own, missing from its installed entry points: reinstall combatlog"


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
    bundled = ours(cls.__module__)
    from combatlog.projections.fold import HANDLERS
    from combatlog.projections.phases import TABLE

    allowed = {tag for (_, tag) in TABLE}
    for event in system.events:
        tag = str(event.__struct_config__.tag)  # type: ignore[attr-defined]
        if not bundled and not tag.startswith(f"{name}."):
            raise PluginError(f"{name}: event {tag}: tag it with the system's name, tag='{name}.{event.__name__}'")
        if event not in HANDLERS:
            raise PluginError(f"{name}: event {tag} has no fold; decorate one with @register_fold({event.__name__})")
        if tag not in allowed:
            raise PluginError(f"{name}: event {tag} is allowed in no phase; call allow('{tag}', ...)")
    for event in _own_events(system, bundled):
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
    system = _systems.get(name)
    if system is not None and ours(type(system).__module__):
        return None  # asked at every creation: ours are known without reading the metadata
    ep = _entry_points().get(name)
    if ep is None or ours(getattr(ep, "value", "")):
        return None
    dist = getattr(ep, "dist", None)
    return getattr(dist, "name", None) if dist is not None else None


def names() -> list[str]:
    """Every rule system available (ours and installed plugins), sorted, without importing them."""
    return sorted(set(_systems) | set(_entry_points()))


def _load_system_of(tag: str) -> None:
    """A log holds an event type no one registered: load the one rule system that can hold it,
    the one its tag names (`minid20.CriticalHit` -> minid20), only when a log's creation named
    that system (`catalogue.is_named`) and it is installed; an unprefixed tag is one of ours
    (older events of the bundled systems), loaded only for a bundled system a log named.
    Nothing else is imported: a stray tag in a log of another system loads no plugin."""
    prefix, dot, _ = tag.partition(".")
    points = _entry_points()
    candidates = [prefix] if dot else sorted(n for n, ep in points.items() if ours(getattr(ep, "value", "")))
    for name in candidates:
        if not _catalogue.is_named(name) or name not in points:
            continue
        try:
            get(name)
        except Exception:  # a broken plugin must not stop a log of another system from loading
            continue


def _load_system(name: str) -> None:
    """A log names rule system `name`: load it (it registers its events and state type)."""
    _catalogue.named(name)
    get(name)


_LENIENT: dict[type, Callable[[Any], Any]] = {}  # a model -> its lenient conversion, made once


def _lenient(model: type | None) -> Callable[[Any], Any] | None:
    if model is None:
        return None
    convert = _LENIENT.get(model)
    if convert is None:
        convert = _LENIENT[model] = lenient(model)
    return convert


def _models(name: str) -> Models:
    """The typed models the fold makes of what a log under rule system `name` records: those of
    the system `get(name)` gives now (asked when an encounter or a combatant is folded)."""
    system = get(name)
    return (_lenient(system.stats_type), _lenient(system.options_type))


_catalogue.add_resolver(_load_system_of)
set_rules_loader(_load_system)
set_rules_models(_models)

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
