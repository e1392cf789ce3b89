"""A live encounter: a log, its projection, and the one way to change it (`execute`).

`Session` is handed a log (any `EventLog`); it never opens files itself. Each command is
one step: decided against the current projection, sealed, appended atomically, folded.
A refused command raises Refused and appends nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from combatlog.engine.decide import decide, legal_commands, rules_of
from combatlog.engine.dice import Dice, DiceError, EnteredDice, Expr, MixedDice, NeedDice, SeededDice
from combatlog.engine.errors import Refused
from combatlog.engine.rules.base import RuleSystem
from combatlog.engine.signing import from_environment
from combatlog.engine.turns import STALL_ROUNDS, stall_outcome
from combatlog.events import (
    CombatantDefeated,
    Command,
    CommandIssued,
    DamageApplied,
    DiceRolled,
    Envelope,
    Event,
    EventLog,
    StepSigned,
    line_decoder,
    seal,
)
from combatlog.projections import Encounter, Projection, checkpoint, replay
from combatlog.projections.replay import apply_from


class _NoDice(Dice):
    """The dice of an encounter without a seed: every roll must be entered."""

    def faces(self, expr: Expr, purpose: str) -> tuple[int, ...]:
        raise NeedDice(expr.text, purpose, expr.count, expr.sides, expr.low)


class _Highest(Dice):
    """Every die at its highest: the rolls a command asks for, without telling a seeded one."""

    def faces(self, expr: Expr, purpose: str) -> tuple[int, ...]:
        return (expr.high,) * expr.count


def load(log: EventLog) -> Projection:
    """Fold a whole log into a projection, with the marks an undo at any depth folds again
    from; raises CorruptLog naming the seq that can't be read."""
    return replay(log, None, Projection())


def dice_for(state: Encounter, command: Command, step: int) -> Dice:
    """The dice a command uses: its entered faces, else the encounter's seeded generator for the
    step (an amendment's step: for the step whose draws it takes, `Command.draws`)."""
    if command.draws is not None:
        step = command.draws
    if command.entered is not None:
        if state.seed is not None:  # typed rolls where they match; the engine rolls the rest
            return MixedDice(command.entered, command.entered_for, SeededDice(state.seed, step))
        return EnteredDice(command.entered)
    if state.seed is None:
        return _NoDice()
    return SeededDice(state.seed, step)


class Playing:
    """What a session does with its rule system's automatic policy: take the next step, play to
    the end. Shared by `Session` (every step logged) and `LeanSession` (nothing logged: the
    simulator's), which differ only in what `execute` returns."""

    @property
    def state(self) -> Encounter:  # pragma: no cover - each session has its own
        raise NotImplementedError

    @property
    def rules(self) -> RuleSystem:
        """The rule system of the encounter."""
        return rules_of(self.state)

    def execute(self, command: Command) -> list[Any]:  # pragma: no cover - each session has its own
        raise NotImplementedError

    @staticmethod
    def event_of(item: Any) -> Event:
        """The event of one item `execute` returned (an envelope's)."""
        return item.event  # type: ignore[no-any-return]

    def hurt(self, done: list[Any]) -> bool:
        """True when a step's items (as `execute` returned them) hurt or defeated anyone."""
        for e in map(self.event_of, done):
            if (isinstance(e, DamageApplied) and e.amount > 0) or isinstance(e, CombatantDefeated):
                return True
        return False

    def auto(
        self,
        entered: tuple[tuple[int, ...], ...] | None = None,
        entered_for: tuple[str, ...] | None = None,
        by: str | None = None,
    ) -> list[Any]:
        """Let the rule system's policy take the next acting combatant's step, with dice typed
        at the table if given (`entered`, as in Command); raises Refused if no one acts.

        `by`: who typed the dice in (the command is recorded as theirs: the policy chose it,
        and the audit lists the dice under their name); without dice, the step is the policy's."""
        state = self.state
        if not state.acting:
            ruling = self.rules.ruling_policy(state) if state.rules is not None and state.phase != "end" else None
            if ruling is None:
                raise Refused("auto", f"no one is taking a turn (phase {state.phase})")
            command = ruling
        else:
            command = self.rules.policy(state, state.combatants[state.acting[0]])
        if entered is not None:
            command = msgspec.structs.replace(
                command, entered=entered, entered_for=entered_for, by=command.by if by is None else by
            )
        return self.execute(command)

    def play_out(self, max_steps: int = 10_000) -> int:
        """Let the policy play every turn until the encounter ends; returns the steps taken.

        When STALL_ROUNDS whole rounds go by with no one hurt (no one can reach or harm
        anyone), the policy ends the encounter as a draw, as a game master would (the one
        stall rule, `combatlog.engine.turns`). Raises
        RuntimeError if it doesn't end within `max_steps`.
        """
        steps = 0
        quiet = 0
        acted = False
        round_ = self.state.round
        while self.state.phase != "end":
            if steps >= max_steps:
                raise RuntimeError(f"the encounter didn't end within {max_steps} steps")
            done = self.auto()
            steps += 1
            if not acted:
                acted = self.hurt(done)
            if self.state.round != round_:
                quiet = 0 if acted else quiet + 1
                acted = False
                round_ = self.state.round
                if quiet >= STALL_ROUNDS and self.state.phase != "end":
                    self.execute(Command(kind="end", by="policy", params={"outcome": stall_outcome("no one was hurt")}))
                    steps += 1
        return steps


class EnvironmentKey:
    """The default signer: the key COMBATLOG_SIGNING_KEY names, if any."""


FROM_ENVIRONMENT = EnvironmentKey()


class Session(Playing):
    """One encounter being played: execute commands, read the state, undo and redo.

    A session opens its log from the log's checkpoint when the store keeps one and it is good
    (`combatlog.projections.checkpoint`), else by folding the whole log; every
    `checkpoint_every` events it appends (and after a full load of a log that long) it keeps a
    new checkpoint beside the log. `checkpoint_every=0`: none read, none written."""

    # Marks (`Projection.marks`) kept below the newest checkpoint, in steps: deeper undos fold
    # again from the checkpoints' far marks, so a long-running writer's memory stays flat.
    MARKS_KEPT = 512

    def __init__(
        self,
        log: EventLog,
        clock: Callable[[], str] | None = None,
        signer: Callable[[str], tuple[str, str]] | None | EnvironmentKey = FROM_ENVIRONMENT,
        checkpoint_every: int = checkpoint.EVERY,
    ) -> None:
        """`signer(digest) -> (public key hex, signature hex)`: every step ends with a `StepSigned`
        of the digest before it. By default, the key COMBATLOG_SIGNING_KEY names, when it names
        one (so every path that appends signs alike); None: no signature. Raises LogError for a
        key file that can't be read, CorruptLog naming the seq of a line that can't be folded."""
        self.log = log
        self.clock = clock
        self.signer = from_environment() if isinstance(signer, EnvironmentKey) else signer
        self.checkpoint_every = checkpoint_every
        self.checkpointed = 0  # the seq of the checkpoint last read or written (0: none)
        self._open()

    def _open(self) -> None:
        """Fold the log into the projection, from its checkpoint if a good one is kept; after a
        full load of a log longer than `checkpoint_every`, keep one."""
        if not self.checkpoint_every:
            self.projection = load(self.log)
            return
        self.projection, self.checkpointed = checkpoint.open_projection(self.log, load)
        projection = self.projection
        if not self.checkpointed and projection.seq >= self.checkpoint_every and hasattr(self.log, "write_checkpoint"):
            projection.far_marks = checkpoint.far_marks_of(projection, self.checkpoint_every)
            head = self.log.head()
            if head[0] == projection.seq and head[1] is not None and getattr(self.log, "torn", None) is None:
                self._keep_checkpoint(head[1])

    def _keep_checkpoint(self, line: bytes) -> None:
        """Keep the projection (standing just after `line`) as the log's checkpoint; the marks of
        steps well below it are dropped (its far marks serve an undo that deep)."""
        projection = self.projection
        if checkpoint.write(self.log, projection, line):
            self.checkpointed = projection.seq
            projection.forget_marks_below(projection.step + 1 - self.MARKS_KEPT)

    @property
    def state(self) -> Encounter:
        """The encounter as it stands."""
        return self.projection.state

    def preview(self, command: Command, dice: Dice | None = None) -> list[Event]:
        """The events `command` would append now, without appending; raises Refused."""
        view = self.projection
        state = view.state
        if state.rules is not None:
            recorded, playing = state.rules_version or "1", rules_of(state).version
            if recorded != playing:  # its steps were decided by other rules: an audit reads them, play doesn't go on
                raise Refused(
                    command.kind,
                    f"this log was recorded under {state.rules} {recorded}, and this combatlog plays "
                    f"{state.rules} {playing}",
                    "show, audit or export it; start a new log to play",
                )
        step = view.step + 1
        if dice is None:
            dice = dice_for(state, command, step)
        events = decide(view, command, dice)
        if isinstance(dice, EnteredDice) and dice.used < len(dice.rolls):
            asked = [e.expression for e in events if isinstance(e, DiceRolled)]
            raise Refused(
                command.kind,
                f"{len(dice.rolls) - dice.used} entered roll(s) more than the command needs",
                f"it rolled {', '.join(asked) or 'nothing'}; give each roll's dice, as '1d8: 5', to match it",
            )
        return events

    def rolls_asked(self, command: Command) -> list[DiceRolled]:
        """The rolls `command` would ask for now, in order, each die at its highest (so a hit's
        damage shows too, and nothing of the engine's own dice is told); nothing is appended.
        Raises Refused as `execute` would."""
        events = self.preview(command, _Highest())
        return [e for e in events if isinstance(e, DiceRolled)]

    def execute(self, command: Command, dice: Dice | None = None) -> list[Envelope[Event]]:
        """Carry out `command` as one step; returns the appended envelopes.

        Raises Refused (nothing appended), or the log's ConcurrencyError if another writer
        appended first (nothing appended).
        """
        try:
            events = self.preview(command, dice)
        except DiceError as exc:
            raise Refused(command.kind, str(exc)) from None
        view = self.projection
        step = view.step + 1
        at = self.clock() if self.clock is not None else None
        signed = 1 if self.signer is not None else 0
        all_events = [CommandIssued(command=command, events=len(events) + 1 + signed), *events]
        previous = view.digest
        lines: list[bytes] = []
        envelopes: list[Envelope[Event]] = []
        seq = view.seq
        # The projection folds the events as they will be read back, decoded from their sealed
        # lines: nothing the caller passed in (a nested dict in a command's params) or gets
        # back (the envelopes returned) is shared with the state, and the live state is the
        # replayed one by construction. An event that wouldn't read back is refused.
        decode = line_decoder()
        folded: list[Envelope[Event]] = []
        for event in all_events:
            seq += 1
            line, envelope = seal(previous, seq, step, event, at)
            previous = envelope.digest
            lines.append(line)
            envelopes.append(envelope)
            try:
                folded.append(decode(line))
            except Exception as exc:  # msgspec's errors: a field given a value of the wrong type
                raise Refused(command.kind, f"{type(event).__name__} can't be stored as given ({exc})") from None
        if self.signer is not None:  # the step's last line signs the digest of the line before it
            key, signature = self.signer(previous)
            seq += 1
            line, envelope = seal(previous, seq, step, StepSigned(key=key, signature=signature), at)
            lines.append(line)
            envelopes.append(envelope)
            folded.append(decode(line))
        # Fold first, so an event the projection would refuse is never written; if the
        # fold or the append fails, the projection is rebuilt from the log as it stands.
        try:
            for envelope in folded:
                apply_from(self.log, view, envelope)
            self.log.append(lines, expected_seq=envelopes[0].seq)
        except BaseException:
            self._open()
            raise
        if self.checkpoint_every and view.seq - self.checkpointed >= self.checkpoint_every:
            self._keep_checkpoint(lines[-1])
        return envelopes

    def do(
        self,
        kind: str,
        /,
        actor: str | None = None,
        action: str | None = None,
        targets: tuple[str, ...] = (),
        entered: tuple[tuple[int, ...], ...] | None = None,
        by: str = "gm",
        entered_for: tuple[str, ...] | None = None,
        **params: Any,
    ) -> list[Envelope[Event]]:
        """Shorthand: build a Command from the arguments and execute it."""
        return self.execute(
            Command(
                kind=kind,
                actor=actor,
                action=action,
                targets=tuple(targets),
                params=params,
                entered=entered,
                entered_for=entered_for,
                by=by,
            )
        )

    def undo(self) -> list[Envelope[Event]]:
        """Undo the last live step."""
        return self.execute(Command(kind="undo"))

    def redo(self) -> list[Envelope[Event]]:
        """Redo the last undone step, with the same events and dice."""
        return self.execute(Command(kind="redo"))

    def legal(self) -> list[str]:
        """The command kinds that make sense now."""
        return legal_commands(self.projection)
