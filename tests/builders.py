"""Builders for the engine's own tests: a skirmish session, logs cut and resealed, stores raced,
and for the older system tests an encounter with dice forced in the order rolled.

    s = encounter("starflight", fighter("ayla", "party", kind="pc", hp=12), fighter("t1", "thrynn"))
    events = forced(s, "act", (14, 7), actor="ayla", action="shoot", targets=("t1",))

A rule system's tests are written with `combatlog.testing` (`fight`, dice by purpose); `fighter`
is the kit's. `encounter` has no seed unless one is given, so every die is forced by the test.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest

from combatlog.engine import ScriptedDice, Session
from combatlog.events import GENESIS, Command, Note, decode_line, seal
from combatlog.replays import MemoryLog
from combatlog.testing import fighter as fighter  # the kit's: one combatant's `add` parameters


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


# --- the skirmish test system: a party against goblins, every order and timing ----------

PARTY = [
    {
        "id": "ayla",
        "name": "Ayla",
        "side": "party",
        "kind": "pc",
        "stats": {"hp": 14, "init": 3, "attack": 4, "defense": 12, "damage": "1d8", "ap": 7},
    },
    {
        "id": "bo",
        "name": "Bo",
        "side": "party",
        "kind": "pc",
        "stats": {"hp": 11, "init": 1, "attack": 2, "defense": 11, "damage": "1d6", "ap": 6},
    },
    {
        "id": "g1",
        "name": "Goblin 1",
        "side": "goblins",
        "group": "goblins",
        "stats": {"hp": 7, "init": 2, "attack": 1, "defense": 10, "damage": "1d6", "ap": 5},
    },
    {
        "id": "g2",
        "name": "Goblin 2",
        "side": "goblins",
        "group": "goblins",
        "stats": {"hp": 7, "init": 2, "attack": 1, "defense": 10, "damage": "1d6", "ap": 5},
    },
]

ORDERS = ("ranked", "reverse", "action-points")
TIMINGS = ("turn", "simultaneous", "mixed")


def new_session(seed: int | None = 7, combatants=PARTY, begin: bool = False, log=None, **options) -> Session:
    """A skirmish encounter with `combatants` on `log` (a memory log if None), begun if asked."""
    session = Session(MemoryLog() if log is None else log)
    params = {"rules": "skirmish", "options": options}
    if seed is not None:
        params["seed"] = seed
    session.do("create", **params)
    for c in combatants:
        session.do("add", **c)
    if begin:
        session.do("begin")
    return session


def fight(log) -> Session:
    """A begun skirmish fight (seed 3) on `log`: the stores' tests play it on each store."""
    return new_session(seed=3, begin=True, log=log)


def one_more_step(path) -> tuple[bytes, int, bytes]:
    """A begun fight (seed 3) in the JSON-lines file `path`, then one more step: (the file's
    bytes before that step, its event count then, the step's own bytes)."""
    from combatlog.replays import open_log

    s = fight(open_log(path))
    whole = path.read_bytes()
    count = s.log.head()[0]
    s.auto()
    return whole, count, path.read_bytes()[len(whole) :]


def two_writers(open_log) -> None:
    """Two sessions on one store (`open_log()` opens it afresh each time, as another process
    would): the one that hadn't seen the other's step gets ConcurrencyError, nothing is lost
    or doubled, and the loser, reloaded, goes on."""
    from combatlog.events import ConcurrencyError

    first = fight(open_log())
    second = Session(open_log())
    first.do("note", text="the first writer")
    with pytest.raises(ConcurrencyError, match="someone else added steps .* nothing was applied"):
        second.do("note", text="the second writer, who had not seen it")
    final = list(open_log().lines())
    notes = [line for line in final if b'"type":"Note"' in line]
    assert sum(b"the first writer" in line for line in notes) == 1
    assert not any(b"the second writer" in line for line in final)
    assert second.state == first.state  # the loser reloaded and can go on
    second.do("note", text="the second writer, again")
    assert Session(open_log()).state == second.state


def lines(session: Session) -> list[bytes]:
    """Every line of the session's log."""
    return list(session.log.lines())


def of(events: Iterable[Any], cls: type) -> list[Any]:
    """The events of type `cls`, in order."""
    return [e for e in events if isinstance(e, cls)]


# a battle map's parts, as an encounter file's [map] table gives them (engine/battlemap.py)
def section(sid: str, **kw: object) -> dict:
    return {"id": sid, **kw}


def border(a: str, b: str, **kw: object) -> dict:
    return {"a": a, "b": b, **kw}


def board(*sections: dict, borders: list[dict]) -> dict:
    return {"sections": list(sections), "borders": borders}


def notes(n: int, step_size: int) -> MemoryLog:
    """A log of `n` notes, `step_size` a step (the cuts only read where steps start)."""
    out, previous = [], GENESIS
    for seq in range(1, n + 1):
        line, env = seal(previous, seq, (seq - 1) // step_size + 1, Note(text=str(seq)))
        previous = env.digest
        out.append(line)
    log = MemoryLog()
    log._lines = out
    return log


def resealed(raw: list[bytes], i: int, change: Any, start: bytes | None = None) -> list[bytes]:
    """`raw` with envelope i changed by `change` and every line from i sealed again (after
    `start`, the digest before line i: the line before's, unless given)."""
    out = raw[:i]
    previous = start if start is not None else (decode_line(raw[i - 1]).digest if i else GENESIS)
    for n, line in enumerate(raw[i:]):
        env = decode_line(line)
        if n == 0:
            env = change(env)
        new, sealed = seal(previous, env.seq, env.step, env.event)
        previous = sealed.digest
        out.append(new)
    return out
