"""One simulated fight: an encounter played to its end by the automatic policy, summed up."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import msgspec

from combatlog.engine import Refused, Session
from combatlog.events import Command, DamageApplied, EventLog
from combatlog.replays import MemoryLog

MAX_STEPS = 20_000


class FightSummary(msgspec.Struct, frozen=True, array_like=True):
    """What a report needs of one fight (a few numbers, never its log)."""

    run: int
    outcome: str
    winner: str | None
    rounds: int
    defeated: tuple[str, ...]
    taken: tuple[int, ...]  # damage taken, per combatant in the order they were added
    dealt: tuple[int, ...]  # damage dealt, same order


def run_seed(seed: int, run: int) -> int:
    """The seed of run `run` of a study seeded `seed`: a stable hash of both."""
    return int.from_bytes(hashlib.sha256(f"{seed}/{run}".encode()).digest()[:8], "big")


def with_seed(commands: Sequence[Command], seed: int, options: dict[str, Any]) -> list[Command]:
    """The encounter's commands with the creation's seed replaced (and `options` laid over its own)."""
    out = []
    for command in commands:
        if command.kind == "create":
            params = dict(command.params)
            params["seed"] = seed
            params["options"] = {**dict(params.get("options", {})), **options}
            command = Command(kind="create", params=params, by=command.by)
        out.append(command)
    return out


def play(commands: Sequence[Command], seed: int, options: dict[str, Any], log: EventLog | None = None) -> Session:
    """Play the encounter seeded `seed` to its end with the automatic policy on `log` (memory by default).

    Raises Refused if the encounter can't be set up (a bad option, say), RuntimeError if it doesn't
    end within MAX_STEPS steps.
    """
    session = Session(MemoryLog() if log is None else log)
    for command in with_seed(commands, seed, options):
        session.execute(command)
    if session.state.phase in ("setup", "surprise"):
        session.do("begin")
    session.play_out(max_steps=MAX_STEPS)
    return session


def summarise(session: Session, run: int) -> FightSummary:
    """The summary of a finished fight."""
    state = session.state
    ids = list(state.combatants)
    dealt = dict.fromkeys(ids, 0)
    for line in session.log.lines():
        if b'"DamageApplied"' not in line:
            continue
        event = msgspec.json.decode(line, type=_DamageLine).event
        if not event.held and event.source in dealt and event.amount > 0:
            dealt[event.source] += event.amount
    return FightSummary(
        run=run,
        outcome=state.outcome or "unfinished",
        winner=state.winner,
        rounds=state.round,
        defeated=tuple(c.id for c in state.combatants.values() if c.defeated is not None),
        taken=tuple(max(state.combatants[c].damage, 0) for c in ids),
        dealt=tuple(dealt[c] for c in ids),
    )


class _DamageLine(msgspec.Struct):
    event: DamageApplied


def fight(commands: Sequence[Command], seed: int, run: int, options: dict[str, Any]) -> FightSummary:
    """Run `run` of a study seeded `seed`, summed up."""
    return summarise(play(commands, run_seed(seed, run), options), run)


def fights(commands: Sequence[Command], seed: int, runs: range, options: dict[str, Any]) -> list[FightSummary]:
    """Runs `runs` of a study (one executor task: a chunk of runs, so few tasks cross processes)."""
    return [fight(commands, seed, i, options) for i in runs]


__all__ = ["FightSummary", "Refused", "fight", "fights", "play", "run_seed", "summarise", "with_seed"]
