"""Shared fixtures: sessions of the skirmish test system on an in-memory log."""

from __future__ import annotations

import pytest
from hypothesis import settings

# Nothing random without a seed: Hypothesis draws from a fixed seed, so every run
# (here and in CI) tries the same examples. Set HYPOTHESIS_PROFILE=explore to vary them.
settings.register_profile("repeatable", derandomize=True, database=None)
settings.register_profile("explore", max_examples=500)
settings.load_profile(__import__("os").environ.get("HYPOTHESIS_PROFILE", "repeatable"))

from combatlog.engine import Session  # noqa: E402  (after the profile: Hypothesis reads it at import)
from combatlog.replays import MemoryLog  # noqa: E402

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
    with pytest.raises(ConcurrencyError, match="expected to write seq"):
        second.do("note", text="the second writer, who had not seen it")
    final = list(open_log().lines())
    notes = [line for line in final if b'"type":"Note"' in line]
    assert sum(b"the first writer" in line for line in notes) == 1
    assert not any(b"the second writer" in line for line in final)
    assert second.state == first.state  # the loser reloaded and can go on
    second.do("note", text="the second writer, again")
    assert Session(open_log()).state == second.state


def run_forced(session: Session, kind: str, faces=(), **kw) -> list:
    """Execute a command with exactly these dice faces (all of them must be used); returns its events."""
    from combatlog.engine import ScriptedDice
    from combatlog.events import Command

    dice = ScriptedDice(list(faces))
    params = kw.pop("params", {})
    envelopes = session.execute(Command(kind=kind, params=params, **kw), dice=dice)
    assert dice.queue == [], f"unused faces {dice.queue}"
    return [e.event for e in envelopes]


def lines(session: Session) -> list[bytes]:
    """Every line of the session's log."""
    return list(session.log.lines())


@pytest.fixture
def session() -> Session:
    return new_session(begin=True)
