"""One simulated fight: an encounter played to its end by the automatic policy, summed up."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import msgspec
from msgspec.structs import replace

from combatlog.engine import Refused, RuleSystem, Session, get_rules, rules_of
from combatlog.engine.dice import Dice, SeededDice
from combatlog.engine.lean import LeanSession
from combatlog.engine.protocol import level_of
from combatlog.events import Command, DamageApplied, DiceRolled, Event, EventLog, StepRedone, StepUndone
from combatlog.projections import Combatant, Encounter, envelopes, replay
from combatlog.replays import MemoryLog
from combatlog.replays.forks import step_end

MAX_STEPS = 20_000


class FightSummary(msgspec.Struct, frozen=True, array_like=True):
    """What a report needs of one fight (a few numbers, never its log)."""

    run: int
    outcome: str
    winner: str | None
    rounds: int
    defeated: tuple[str, ...]  # out of the fight in any way: defeated (down, dead, fled ...) or removed
    taken: tuple[int, ...]  # damage taken, per combatant in the order they were added
    dealt: tuple[int, ...]  # damage dealt, same order
    left: tuple[int | None, ...]  # what is left of each one's main track (the rules' `health`), None: no track
    most: tuple[int | None, ...]  # that track's maximum, same order
    ends: tuple[str, ...]  # how each one ends (`ending`), same order


def run_seed(seed: int, run: int) -> int:
    """The seed of run `run` of a study seeded `seed`: a stable hash of both."""
    return int.from_bytes(hashlib.sha256(f"{seed}/{run}".encode()).digest()[:8], "big")


def with_seed(commands: Sequence[Command], seed: int, options: dict[str, Any]) -> list[Command]:
    """The encounter's commands with the creation's seed replaced (and `options` laid over its own)."""
    out = []
    for command in commands:
        if command.kind == "create":
            params = dict(command.params)
            params.pop("fair", None)  # a study's fights are its own, on its own seeds: no one to be fair to
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
    """The summary of a fight finished on a log."""
    dealt = dict.fromkeys(session.state.combatants, 0)
    for line in session.log.lines():
        if b'"DamageApplied"' in line:
            _deal(dealt, msgspec.json.decode(line, type=_DamageLine).event)
    return summary(session.state, dealt, run)


def _deal(dealt: dict[str, int], event: DamageApplied) -> None:
    """Count `event` in `dealt` (damage dealt by each combatant), as a fight's summary counts it."""
    if not event.held and event.source in dealt and event.amount > 0:
        dealt[event.source] += event.amount


def ending(rules: RuleSystem, state: Encounter, c: Combatant) -> tuple[int | None, int | None, str]:
    """(what is left, the maximum, a level) of `c` at the end of a fight, from the rule system's
    `health` hook (the track `show` and the web tracker draw as a bar; None, None when the system
    has none as one number, Swords of Infinity's damage targets, say). The level: the system's own
    word for a defeat ("unconscious", "dead (the torso destroyed)"), "removed", else the web
    tracker's level of what is left (healthy, injured, bloodied, critical; critical too at
    nothing left while the system keeps it in the fight, as Starflight's near death), else, with no track,
    "healthy" or "hurt in N places" (the damage targets or locations hit)."""
    track = rules.health(state, c)
    if c.removed:
        end = "removed"
    elif c.defeated is not None:
        end = c.defeated
    elif track is not None:
        end = level_of(*track)
        if end == "down":  # nothing left, yet still in the fight (Starflight's near death): no defeat
            end = "critical"
    elif c.damage <= 0:
        end = "healthy"
    else:
        places = sum(1 for d in c.wounds.values() if d > 0)
        end = f"hurt in {places} place{'s' if places != 1 else ''}" if places else "hurt"
    return (None, None, end) if track is None else (track[0], track[1], end)


def summary(state: Encounter, dealt: dict[str, int], run: int) -> FightSummary:
    """The summary of a fight that ended in `state`, with `dealt` damage dealt by each combatant."""
    ids = list(state.combatants)
    rules = rules_of(state)
    ends = [ending(rules, state, c) for c in state.combatants.values()]
    return FightSummary(
        run=run,
        outcome=state.outcome or "unfinished",
        winner=state.winner,
        rounds=state.round,
        defeated=tuple(c.id for c in state.combatants.values() if c.defeated is not None or c.removed),
        taken=tuple(max(state.combatants[c].damage, 0) for c in ids),
        dealt=tuple(dealt[c] for c in ids),
        left=tuple(e[0] for e in ends),
        most=tuple(e[1] for e in ends),
        ends=tuple(e[2] for e in ends),
    )


class _DamageLine(msgspec.Struct):
    event: DamageApplied


class SetUp(msgspec.Struct, frozen=True):
    """An encounter's set-up (its commands before the fight begins) played once, with nothing
    rolled, so each fight starts from `state` with its own seed: `state` and `step` are what
    every run's log would hold after the same commands."""

    state: Encounter
    step: int


def set_up(commands: Sequence[Command], options: dict[str, Any]) -> SetUp | None:
    """The set-up of `commands` played once (a lean session, seed 0), or None when a set-up
    command rolls dice (then each fight plays its own set-up)."""
    rolled = []
    session = LeanSession(on_events=lambda events: rolled.extend(e for e in events if isinstance(e, DiceRolled)))
    for command in with_seed(commands, 0, options):
        session.execute(command)
    return None if rolled else SetUp(session.state, session.step)


def fight(
    commands: Sequence[Command], seed: int, run: int, options: dict[str, Any], prepared: SetUp | None = None
) -> FightSummary:
    """Run `run` of a study seeded `seed`, summed up: played on a lean session (nothing
    logged), from `prepared` when given. The same fight as `play` on a log, event for event."""
    dealt: dict[str, int] = {}

    def count(events: list[Event]) -> None:
        for event in events:
            if type(event) is DamageApplied:
                _deal(dealt, event)

    if prepared is None:
        session = LeanSession(on_events=count)
        for command in with_seed(commands, run_seed(seed, run), options):
            session.execute(command)
    else:
        session = LeanSession(replace(prepared.state, seed=run_seed(seed, run)), prepared.step, count)
    dealt.update(dict.fromkeys(session.state.combatants, 0))
    if session.state.phase in ("setup", "surprise"):
        session.execute(Command(kind="begin"))
    session.play_out(max_steps=MAX_STEPS)
    return summary(session.state, dealt, run)


def fights(commands: Sequence[Command], seed: int, runs: range, options: dict[str, Any]) -> list[FightSummary]:
    """Runs `runs` of a study (one executor task: a chunk of runs, so few tasks cross processes)."""
    prepared = set_up(commands, options)
    return [fight(commands, seed, i, options, prepared) for i in runs]


# --- fights continued from a log's moment ----------------------------------------------


class Moment(msgspec.Struct, frozen=True):
    """A log's state where one of its steps ends, for fights to continue from: the state and
    the steps taken as the log's projection holds them just after seq `at`, and the damage each
    combatant has dealt so far (in the steps that count: an undone step's damage doesn't)."""

    at: int
    step: int
    state: Encounter
    dealt: dict[str, int]


def moment(log: EventLog, at: int | None = None) -> Moment:
    """The moment just after seq `at` of `log` (None: its last seq), read only.

    Raises LogError (`step_end`'s: an empty log, a seq outside it or inside a step; a line
    that can't be read) or Refused, one line, when the log has no combatants there or was
    recorded under another version of its rules than the one installed.
    """
    at = step_end(log, at)
    projection = replay(log, at)
    state = projection.state
    if state.rules is None:
        raise Refused("simulate", f"there is no encounter at seq {at}")
    installed = get_rules(state.rules).version
    if (state.rules_version or "1") != installed:
        raise Refused(
            "simulate",
            f"the log was recorded under {state.rules} {state.rules_version}, and this combatlog plays "
            f"{state.rules} {installed}",
            "simulate its encounter file instead",
        )
    if not state.combatants:
        raise Refused("simulate", f"the encounter has no combatants at seq {at}")
    return Moment(at=at, step=projection.step, state=state, dealt=_dealt_so_far(log, at, list(state.combatants)))


def _dealt_so_far(log: EventLog, at: int, ids: list[str]) -> dict[str, int]:
    """Damage dealt by each of `ids` up to seq `at`, counting only steps not undone there."""
    by_step: dict[int, list[DamageApplied]] = {}
    undone: set[int] = set()
    for envelope in envelopes(log, 1, at):
        event = envelope.event
        t = type(event)
        if t is DamageApplied:
            by_step.setdefault(envelope.step, []).append(event)
        elif t is StepUndone:
            undone.add(event.step)
        elif t is StepRedone:
            undone.discard(event.step)
    dealt = dict.fromkeys(ids, 0)
    for step, events in by_step.items():
        if step not in undone:
            for event in events:
                _deal(dealt, event)
    return dealt


class Continuation(LeanSession):
    """A fight continued from a `Moment` (nothing logged): its state is the moment's, seed and
    all, and the engine's dice of step k are seeded from `seed` and k, as an encounter's own
    dice are from its seed, whatever the log's seed (None in a log of dice typed at the table)."""

    def __init__(self, start: Moment, seed: int, on_events: Any = None) -> None:
        super().__init__(start.state, start.step, on_events)
        self.seed = seed

    def execute(self, command: Command, dice: Dice | None = None) -> list[Event]:
        if dice is None and command.entered is None:
            dice = SeededDice(self.seed, self.view.step + 1)
        return super().execute(command, dice)


def continued(start: Moment, seed: int, run: int) -> FightSummary:
    """Run `run` of a study seeded `seed` from `start`, summed up: the fight continued with the
    dice seed `run_seed(seed, run)` to its end by the automatic policy, its damage dealt counted
    from the whole fight (the moment's so far, then the continuation's)."""
    dealt = dict(start.dealt)

    def count(events: list[Event]) -> None:
        for event in events:
            if type(event) is DamageApplied:
                _deal(dealt, event)

    session = Continuation(start, run_seed(seed, run), count)
    if session.state.phase in ("setup", "surprise"):
        session.execute(Command(kind="begin"))
    session.play_out(max_steps=MAX_STEPS)
    return summary(session.state, dealt, run)


def continuations(start: Moment, seed: int, runs: range) -> list[FightSummary]:
    """Runs `runs` of a study from `start` (one executor task)."""
    return [continued(start, seed, i) for i in runs]


__all__ = [
    "Continuation",
    "FightSummary",
    "Moment",
    "continued",
    "continuations",
    "moment",
    "Refused",
    "ending",
    "SetUp",
    "fight",
    "fights",
    "play",
    "run_seed",
    "set_up",
    "summarise",
    "summary",
    "with_seed",
]
