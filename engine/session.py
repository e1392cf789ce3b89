"""A live encounter: a log, its projection, and the one way to change it (`execute`).

`Session` is handed a log (any `EventLog`); it never opens files itself. Each command is
one step: decided against the current projection, sealed, appended atomically, folded.
A refused command raises Refused and appends nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from combatlog.engine.commands import TypedCommand, kind_of, read, recorded
from combatlog.engine.decide import decide, legal_commands, rules_of
from combatlog.engine.dice import Dice, DiceError, EnteredDice, Expr, MixedDice, NeedDice, SeededDice
from combatlog.engine.errors import Refused
from combatlog.engine.fair import Secret, effective_seed, read_secret, secret_path
from combatlog.engine.protocol import RuleSystem
from combatlog.engine.rollnames import NamedDice, split_named
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
    LogError,
    StepSigned,
    event_types,
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


class _Sealed(Dice):
    """The engine's dice of a fair encounter whose secret this session doesn't hold: a roll is
    refused, saying why (typed-in rolls still go where they match)."""

    def __init__(self, why: str) -> None:
        self.why = why

    def faces(self, expr: Expr, purpose: str) -> tuple[int, ...]:
        raise DiceError(
            f"{expr.text} ({purpose}) is the engine's to roll, and this fair encounter's dice need the "
            f"game master's secret: {self.why}; or type the roll in"
        )


def seed_of(state: Encounter, secret: Secret | None = None) -> int | None:
    """The seed the engine's dice are drawn from: an ordinary encounter's own seed; a fair
    encounter's effective seed (`combatlog.engine.fair`) from its revealed seed, else from
    `secret`, and its contributions; None when there is none to draw from."""
    fair = state.fair
    if fair is None:
        return state.seed
    values = [c.value for c in fair.contributions]
    if fair.seed is not None and fair.nonce is not None:
        return effective_seed(fair.seed, fair.nonce, values)
    if secret is not None:
        return effective_seed(secret.seed, secret.nonce, values)
    return None


def dice_for(state: Encounter, command: Command | TypedCommand, step: int, secret: Secret | str | None = None) -> Dice:
    """The dice a command uses: its entered faces, else the encounter's seeded generator for the
    step. A fair encounter's generator is seeded from its effective seed, with the game master's
    `secret` until the reveal; a text in place of the secret says why there is none (its engine
    dice are then refused, saying so). An amendment's step draws as the step it names does
    (`Command.draws`)."""
    if command.draws is not None:
        step = command.draws
    if command.entered is not None and command.entered_for:
        named, entered, entered_for = split_named(command.entered, command.entered_for)
        if named:  # rolls given for a named roll take it; the others go as typed rolls do
            rest = msgspec.structs.replace(command, entered=entered, entered_for=entered_for)
            return NamedDice(named, dice_for(state, rest, step, secret))
    if state.fair is None:
        seed = state.seed
    else:
        seed = seed_of(state, secret if isinstance(secret, Secret) else None)
        if seed is None:
            sealed = _Sealed(secret if isinstance(secret, str) else "no secret was given")
            if command.entered is not None:
                return MixedDice(command.entered, command.entered_for, sealed)
            return sealed
    if command.entered is not None:
        if seed is not None:  # typed rolls where they match; the engine rolls the rest
            return MixedDice(command.entered, command.entered_for, SeededDice(seed, step))
        return EnteredDice(command.entered)
    if seed is None:
        return _NoDice()
    return SeededDice(seed, step)


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

    def execute(self, command: Command | TypedCommand) -> list[Any]:  # pragma: no cover - each session has its own
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


class SecretFile:
    """The default secret of a fair encounter: read when its dice need it, from the file
    `combatlog.engine.fair.secret_path` names (`<log file>.secret`, or COMBATLOG_FAIR_SECRET)."""


FROM_FILE = SecretFile()


def _fair_record(log: EventLog) -> tuple[int | None, set[int]]:
    """(the seq of the log's first engine die, undone or not, or None; the steps holding a
    contribution), read from the stored lines (a fair encounter's set-up, before it begins)."""
    first: int | None = None
    steps: set[int] = set()
    for seq, line in enumerate(log.lines(1, None), start=1):
        if first is None and b'"type":"DiceRolled"' in line and b'"source":"entered"' not in line:
            first = seq
        elif b'"type":"Contributed"' in line:
            steps.add(msgspec.json.decode(line)["step"])
    return first, steps


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
        secret: Secret | None | SecretFile = FROM_FILE,
    ) -> None:
        """`signer(digest) -> (public key hex, signature hex)`: every step ends with a `StepSigned`
        of the digest before it. By default, the key COMBATLOG_SIGNING_KEY names, when it names
        one (so every path that appends signs alike); None: no signature. Raises LogError for a
        key file that can't be read, CorruptLog naming the seq of a line that can't be folded.

        `secret`: a fair encounter's seed and nonce (`combatlog.engine.fair`), which its engine
        dice are drawn from until the reveal. By default, read when first needed from the file
        beside the log (`fair.secret_path`); None: none (the engine's rolls are refused, typed
        ones taken). A `create` with `fair=true` commits to this secret, or to a new one."""
        self.log = log
        self.clock = clock
        self.signer = from_environment() if isinstance(signer, EnvironmentKey) else signer
        self.checkpoint_every = checkpoint_every
        self.checkpointed = 0  # the seq of the checkpoint last read or written (0: none)
        self._secret_given = secret
        self._secret_read: Secret | None = None  # the secret read from its file (a failure is read again next time)
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

    @property
    def secret(self) -> Secret | None:
        """The seed and nonce of this fair encounter before their reveal, when this session holds
        them (None: an ordinary encounter, a revealed one, or no secret to be had)."""
        found = self.fair_secret()
        return found if isinstance(found, Secret) else None

    def fair_secret(self) -> Secret | str | None:
        """This fair encounter's secret before the reveal, or a sentence saying why this session
        has none (None: none is needed, an ordinary encounter or a revealed one)."""
        fair = self.state.fair
        if fair is None or fair.seed is not None:
            return None
        given = self._secret_given
        if isinstance(given, Secret):
            return given if given.commitment == fair.commitment else "the secret given doesn't match the commitment"
        if given is None:
            return "this session was given none"
        read = self._secret_read
        if read is not None and read.commitment == fair.commitment:
            return read
        path = secret_path(self.log)
        if path is None:
            return "the log isn't a file: name the secret's file with COMBATLOG_FAIR_SECRET"
        try:
            self._secret_read = read_secret(path, fair.commitment)
        except LogError as exc:
            return str(exc)
        return self._secret_read

    def _checked(self, command: Command | TypedCommand) -> tuple[TypedCommand, Command]:
        """(`command` read into its type, its fields checked once; the Command the log records for
        it): a recorded one as it is, a typed one as `commands.recorded` writes it, each as the
        session prepares it (`_prepared`). Raises Refused."""
        written = self._prepared(command if isinstance(command, Command) else recorded(command))
        return read(written), written

    def _prepared(self, command: Command) -> Command:
        """`command` as it is decided and recorded: a fair creation commits to this session's
        secret (a new one if it holds none); a reveal without a seed takes this session's."""
        kind, p = command.kind, command.params
        if kind == "create" and "fair" in p:
            params = {k: v for k, v in p.items() if k != "fair"}
            fair = p["fair"]
            if not isinstance(fair, bool) and fair != "end":
                raise Refused(
                    f"create: fair={str(fair)[:20]!r}", "not a way to commit the dice", "fair=true, or fair=end"
                )
            if fair is False:
                return msgspec.structs.replace(command, params=params)
            if params.get("seed") is not None:
                raise Refused(
                    "create",
                    "a fair encounter's seed is the game master's secret, never a parameter in the log",
                    "give no seed: the session draws one (or give the Session a secret)",
                )
            params.pop("seed", None)
            given = self._secret_given
            secret = given if isinstance(given, Secret) else Secret.new()  # drawn once: committed in the log
            self._secret_given = secret
            params["commitment"] = secret.commitment
            if fair == "end":
                params["reveal_at_end"] = True
            return msgspec.structs.replace(command, params=params)
        if kind == "reveal" and "seed" not in p and "nonce" not in p:
            held = self.secret
            if held is not None:
                return msgspec.structs.replace(command, params={**p, "seed": held.seed, "nonce": held.nonce})
        return command

    def _fair_window(self, command: TypedCommand) -> None:
        """Refuse a contribution, or an undo or redo of one, once the log holds an engine die
        (undone or not): a contribution made knowing the dice could be chosen to steer them."""
        view = self.projection
        kind = kind_of(command)
        if kind == "contribute":
            target = None
        elif kind == "undo" and view.undo:
            target = view.undo[-1]
        elif kind == "redo" and view.redo:
            target = view.redo[-1]
        else:
            return
        first, contributed = _fair_record(self.log)
        if first is None:
            return
        if target is None:
            raise Refused(
                "contribute",
                f"the engine's dice have rolled already (seq {first}), even if undone since",
                "contributions come before the first die; start a new log to take new ones",
            )
        if target in contributed:
            raise Refused(
                kind,
                f"step {target} is a contribution, and the engine's dice have rolled since (seq {first})",
                "a contribution stands once the dice have rolled",
            )

    def preview(self, command: Command | TypedCommand, dice: Dice | None = None) -> list[Event]:
        """The events `command` would append now, without appending; raises Refused."""
        return self._preview(self._checked(command)[0], dice)

    def _preview(self, command: TypedCommand, dice: Dice | None) -> list[Event]:
        view = self.projection
        state = view.state
        if state.rules is not None:
            recorded, playing = state.rules_version or "1", rules_of(state).version
            if recorded != playing:  # its steps were decided by other rules: an audit reads them, play doesn't go on
                raise Refused(
                    kind_of(command),
                    f"this log was recorded under {state.rules} {recorded}, and this combatlog plays "
                    f"{state.rules} {playing}",
                    "show, audit or export it; start a new log to play",
                )
        step = view.step + 1
        fair = state.fair
        if fair is not None and fair.seed is None and state.phase in ("setup", "surprise"):
            self._fair_window(command)
        if dice is None:
            dice = dice_for(state, command, step, self.fair_secret() if fair is not None else None)
        events = decide(view, command, dice)
        if isinstance(dice, NamedDice):
            left = dice.unused()
            if left:
                raise Refused(
                    kind_of(command),
                    f"{', '.join(left)} went to no roll",
                    f"it rolled {dice.rolled()}; name a roll by words of what it is for and who rolls it, "
                    f"as {dice.example()}",
                )
        elif isinstance(dice, EnteredDice) and dice.used < len(dice.rolls):
            asked = [e.expression for e in events if isinstance(e, DiceRolled)]
            raise Refused(
                kind_of(command),
                f"{len(dice.rolls) - dice.used} entered roll(s) more than the command needs",
                f"it rolled {', '.join(asked) or 'nothing'}; give each roll's dice, as '1d8: 5', to match it",
            )
        return events

    def rolls_asked(self, command: Command | TypedCommand) -> list[DiceRolled]:
        """The rolls `command` would ask for now, in order, each die at its highest (so a hit's
        damage shows too, and nothing of the engine's own dice is told); nothing is appended.
        Raises Refused as `execute` would."""
        events = self.preview(command, _Highest())
        return [e for e in events if isinstance(e, DiceRolled)]

    def execute(self, command: Command | TypedCommand, dice: Dice | None = None) -> list[Envelope[Event]]:
        """Carry out `command` as one step; returns the appended envelopes.

        `command` is typed (`combatlog.engine.commands`: `Act(actor="bo", action="strike",
        targets=("g1",))`), or a Command as the log records it; either is read into its type and
        checked once, and the log records the Command (`commands.recorded` writes a typed one's).
        Raises Refused (nothing appended), or the log's ConcurrencyError if another writer
        appended first (nothing appended). A fair encounter set to reveal at its end is revealed
        in a step of its own right after the step that ends it (its envelopes follow).
        """
        typed, command = self._checked(command)
        ended = self.state.phase == "end"
        try:
            events = self._preview(typed, dice)
        except DiceError as exc:
            refused = Refused(command.kind, str(exc))
            refused.need = exc if isinstance(exc, NeedDice) else None
            raise refused from None
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
                if type(event) not in event_types():
                    rules = self.state.rules or "its rule system"
                    raise Refused(
                        command.kind,
                        f"event {event.__struct_config__.tag} is not among {rules}'s events, so no log could read "
                        "it back",
                        f"list {type(event).__name__} in the RuleSystem's events",
                    ) from None
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
        fair = view.state.fair
        if fair is not None and fair.reveal_at_end and fair.seed is None and not ended and view.state.phase == "end":
            secret = self.secret
            if secret is not None:
                envelopes += self.execute(Command(kind="reveal", params={"seed": secret.seed, "nonce": secret.nonce}))
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

    def contribute(self, value: str, by: str) -> list[Envelope[Event]]:
        """Record player `by`'s contribution `value` (any text) to this fair encounter's dice,
        before the fight begins; raises Refused."""
        return self.execute(Command(kind="contribute", params={"value": value}, by=by))

    def reveal(self, early: bool = False) -> list[Envelope[Event]]:
        """Reveal this fair encounter's seed and nonce (a `SeedRevealed` step), once the fight is
        over, or before with `early`; raises Refused (no secret held, nothing to reveal)."""
        return self.execute(Command(kind="reveal", params={"early": True} if early else {}))

    def undo(self) -> list[Envelope[Event]]:
        """Undo the last live step."""
        return self.execute(Command(kind="undo"))

    def redo(self) -> list[Envelope[Event]]:
        """Redo the last undone step, with the same events and dice."""
        return self.execute(Command(kind="redo"))

    def legal(self) -> list[str]:
        """The command kinds that make sense now."""
        return legal_commands(self.projection)
