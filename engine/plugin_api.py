"""The plugin API's version, what changed in each, and the checks that tell a system written
against an older one what to change, in one line, when it is loaded rather than mid-fight.

A system may declare the version it was written for (`api = 5`); one that doesn't is held to
the current protocol by its hooks alone. Either way every hook it overrides must take what
combatlog passes it (the engine calls hooks positionally), and a hook the engine no longer
calls is named. `docs/writing-a-rule-system.md` keeps the changelog.
"""

from __future__ import annotations

import inspect
from typing import Any

API = 5  # the plugin API this combatlog speaks

# Hooks whose arguments changed: the version that changed them, and how
CHANGED: dict[str, tuple[int, str]] = {
    "check_combatant": (2, "it is also given who, the combatant's id, to name in its refusals"),
    "order": (5, "it is given the encounter's options as the system's options_type (state.options), not a dict"),
    "timing": (5, "it is given the encounter's options as the system's options_type (state.options), not a dict"),
    "variant": (5, "it is given the encounter's options as the system's options_type (state.options), not a dict"),
}

# Hooks the engine no longer calls: the version that dropped them, and what says it now
REMOVED: dict[str, tuple[int, str]] = {
    "refill_each_turn": (
        2,
        "the order strategy says it (make_order('action-points') refills once a round; 'ranked' each turn); remove it",
    ),
}


def _signature(fn: Any) -> inspect.Signature | None:
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):  # a callable without one (a builtin): nothing to hold it to
        return None


def _shown(hook: str, sig: inspect.Signature) -> str:
    return f"{hook}({', '.join(sig.parameters)})"


def _mismatch(hook: str, written: inspect.Signature, passed: list[inspect.Parameter], since: str) -> str:
    """What is wrong with an override of `hook` written as `written`, and the fix."""
    calls = f"{hook}({', '.join(p.name for p in passed)})"
    change = CHANGED.get(hook)
    why = f": since plugin API {change[0]}{since} {change[1]}" if change else ""
    wanted = [p.name if p.default is p.empty else f"{p.name}={p.default!r}" for p in passed]
    declare = f"def {hook}({', '.join(['self', *wanted])})"
    return f"{_shown(hook, written)} can't take what combatlog passes, {calls}{why}; declare {declare}"


def hook_problem(system: Any, base: type) -> str | None:
    """What keeps `system` (an instance of a subclass of `base`, the RuleSystem) from the current
    protocol, in one line without its name, or None: a declared `api` this combatlog doesn't
    speak, a hook the engine no longer calls, or an overridden hook that can't take the
    arguments the engine passes."""
    cls = type(system)
    api = system.api
    if api is not None:
        if isinstance(api, bool) or not isinstance(api, int) or api < 1:
            return f"api = {api!r}: give the plugin API version it was written for, a whole number (this is {API})"
        if api > API:
            return f"written for plugin API {api}, and this combatlog speaks API {API}; upgrade combatlog"
    since = f" (it declares API {api})" if api is not None and api < API else ""
    for hook, (version, now) in REMOVED.items():
        if callable(getattr(cls, hook, None)):
            return f"{hook} is no longer called since plugin API {version}{since}: {now}"
    for hook, ours in vars(base).items():
        if hook.startswith("_") or not callable(getattr(base, hook)):
            continue
        mine = inspect.getattr_static(cls, hook)
        if mine is ours:
            continue
        wanted = _signature(getattr(base, hook) if isinstance(ours, staticmethod) else ours)
        got = _signature(getattr(system, hook))
        if wanted is None or got is None:
            continue
        passed = [p for p in wanted.parameters.values() if p.name != "self"]
        try:
            got.bind(*passed)
        except TypeError:
            own = inspect.unwrap(mine.__func__ if isinstance(mine, (staticmethod, classmethod)) else mine)
            return _mismatch(hook, _signature(own) or got, passed, since)
    return None
