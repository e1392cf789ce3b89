"""Builders for the tests: an encounter of any rule system, its fighters, and steps with forced dice.

    s = encounter("starflight", fighter("ayla", "party", kind="pc", hp=12), fighter("t1", "thrynn"))
    events = forced(s, "act", (14, 7), actor="ayla", action="shoot", targets=("t1",))

`encounter` has no seed unless one is given, so every die is forced by the test (or typed).
Each system's test module keeps its own defaults as a dict and passes them to `fighter`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from combatlog.engine import ScriptedDice, Session
from combatlog.events import Command
from combatlog.replays import MemoryLog


def fighter(
    cid: str,
    side: str,
    *,
    kind: str = "npc",
    name: str | None = None,
    group: str | None = None,
    defaults: dict[str, Any] | None = None,
    **stats: Any,
) -> dict[str, Any]:
    """The `add` command's parameters for one combatant: `defaults` overlaid by `stats`."""
    merged = dict(defaults or {})
    merged.update(stats)
    out: dict[str, Any] = {"id": cid, "name": name or cid.upper(), "side": side, "kind": kind, "stats": merged}
    if group is not None:
        out["group"] = group
    return out


def encounter(
    rules: str, *fighters: dict[str, Any], seed: int | None = None, log: Any = None, begin: bool = False, **options: Any
) -> Session:
    """A new encounter of `rules` with `fighters` added (on a memory log unless `log`), begun if asked."""
    session = Session(MemoryLog() if log is None else log)
    params: dict[str, Any] = {"rules": rules, "options": options}
    if seed is not None:
        params["seed"] = seed
    session.do("create", **params)
    for f in fighters:
        session.do("add", **f)
    if begin:
        session.do("begin")
    return session


def forced(session: Session, kind: str, faces: Iterable[int] = (), **kw: Any) -> list[Any]:
    """Execute a command with exactly these dice faces (every one must be used); returns its events."""
    dice = ScriptedDice(list(faces))
    params = kw.pop("params", {})
    envelopes = session.execute(Command(kind=kind, params=params, **kw), dice=dice)
    assert dice.queue == [], f"unused faces {dice.queue}"
    return [e.event for e in envelopes]


def act(
    session: Session, actor: str, action: str, *targets: str, faces: Iterable[int] = (), **params: Any
) -> list[Any]:
    """`actor` takes `action` at `targets` with forced `faces`; returns the step's events."""
    return forced(session, "act", faces, actor=actor, action=action, targets=tuple(targets), params=params)


def of(events: Iterable[Any], cls: type) -> list[Any]:
    """The events of type `cls`, in order."""
    return [e for e in events if isinstance(e, cls)]
