"""Amending a past step: a die typed as 7 that was a 17, the wrong target, a forgotten ruling.

`amend(log, step, dice=..., command=...)` appends, as ordinary steps: an undo of every live
step after `step` (newest first) and of `step` itself; the corrected command, decided in its
place; then every later step's recorded command, decided again in order with its recorded
typed dice. Each decided step names the step it stands in for (`Command.amends`, and a
`StepAmended` event) and takes that step's seeded draws (`Command.draws`): the engine rolls
what it rolled the first time wherever the rolls before it in the step are the same. A
later command the rules now refuse (its target is down already) stops the re-deciding
there, and the report says which step and why; nothing is guessed.

Nothing is erased: the superseded steps stay in the log, undone. Everything is decided
before anything is written, then written in one append (one transaction in SQLite and
PostgreSQL): a refused correction, or another writer first, appends nothing.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import msgspec

from combatlog.engine import Refused, Session, rules_of
from combatlog.engine.commands import TypedCommand, recorded
from combatlog.engine.grammar import UsageError, parse_line, typed_rolls
from combatlog.engine.session import FROM_ENVIRONMENT, EnvironmentKey
from combatlog.engine.words import counted
from combatlog.events import Command, CommandIssued, ConcurrencyError, Envelope, EventLog
from combatlog.events.envelope import step_of
from combatlog.events.privacy import GM
from combatlog.projections import Encounter, Projection, envelopes, replay
from combatlog.projections.replay import apply_from
from combatlog.replays.transcript import tell
from combatlog.replays.views import changed, seen

__all__ = ["AmendReport", "Redecided", "amend", "said", "steps"]

_NEVER = 1 << 62  # checkpoint_every of the amendment's session: it reads the log's checkpoint, writes none


class Redecided(msgspec.Struct, frozen=True, kw_only=True):
    """One step decided again: the step it was, the step it is now, and its transcript lines
    (the game master's) as it was and as it is."""

    step: int  # the step as it was (undone now, still in the log)
    now: int | None  # the step decided in its place; None: it wasn't (the re-deciding stopped at it)
    round: int  # the round it was decided in
    command: str  # its command, as `do` and `play` write it
    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        """True when its outcome reads otherwise now."""
        return self.now is not None and self.before != self.after


class AmendReport(msgspec.Struct, kw_only=True):
    """What an amendment did: the steps undone, the correction, the later steps decided again,
    where it stopped (if it did), and what changed in the fight, in words."""

    step: int  # the step amended
    by_step: int  # the step decided in its place
    undone: tuple[int, ...]  # the steps undone, newest first (the amended one last)
    corrected: Redecided
    redecided: tuple[Redecided, ...] = ()  # the later steps, in order
    stopped: Redecided | None = None  # the later step the rules refused now (`why`)
    why: str = ""
    left: tuple[int, ...] = ()  # later steps not decided again (the stopped one and those after it)
    changes: tuple[str, ...] = ()  # `views.changed` of the fight before and after, the game master's view
    first_seq: int = 0  # the seqs appended
    last_seq: int = 0

    def lines(self) -> list[str]:
        """The report for a person, a line each: the correction, each outcome that reads otherwise,
        where it stopped, what changed."""
        c = self.corrected
        out = [f"step {c.step} amended by step {c.now}: {c.command}"]
        out += [f"  was: {line}" for line in c.before]
        out += [f"  now: {line}" for line in c.after]
        if self.redecided:
            moved = [r for r in self.redecided if r.changed]
            first, last = self.redecided[0], self.redecided[-1]
            span = f"step {first.step}" if first is last else f"steps {first.step}-{last.step}"
            out.append(
                f"{span} decided again as {'step' if first is last else 'steps'} "
                f"{first.now}{'' if first is last else f'-{last.now}'}: "
                + (f"{counted(len(moved), 'outcome')} read otherwise" if moved else "every outcome reads as before")
            )
            for r in moved:
                out.append(f"  round {r.round}, step {r.step} (now {r.now}), {r.command}:")
                out += [f"    was: {line}" for line in r.before or ("(nothing told)",)]
                out += [f"    now: {line}" for line in r.after or ("(nothing told)",)]
        if self.stopped is not None:
            s = self.stopped
            out.append(f"stopped at step {s.step} (round {s.round}, {s.command}): the rules refuse it now: {self.why}")
            out.append(
                "  not decided again: "
                + ", ".join(map(str, self.left))
                + " (undone; the fight stands after step "
                + f"{self.redecided[-1].now if self.redecided else self.by_step}: go on from there)"
            )
        out.append("what changed: " + ("; ".join(self.changes) if self.changes else "nothing"))
        return out


def said(command: Command) -> str:
    """`command` as the `do` and `play` grammar writes it, with its typed dice: `act bo strike g2
    (dice 1d20: 17)`."""
    words = [command.kind]
    if command.actor is not None:
        words.append(command.actor)
    if command.action is not None:
        words.append(command.action)
    words += command.targets
    words += [f"{k}={v if isinstance(v, str) else json.dumps(v)}" for k, v in command.params.items()]
    text = " ".join(words)
    if command.entered is not None:
        named = command.entered_for or ("",) * len(command.entered)
        rolls = [
            (f"{x}: " if x else "") + " ".join(map(str, faces))
            for x, faces in zip(named, command.entered, strict=False)
        ]
        text += f" (dice {'; '.join(rolls)})"
    return text


class _Pending:
    """A log and the lines an amendment has decided but not written yet, read as one log.

    The amendment's session appends here; `flush` writes every line to the log in one append,
    the first at the seq the log had when the amendment began (ConcurrencyError if someone
    wrote since). The log's checkpoint is read, never written."""

    def __init__(self, log: EventLog) -> None:
        self.log = log
        self.base, self.base_line = log.head()
        self.new: list[bytes] = []
        self.torn = getattr(log, "torn", None)
        if hasattr(log, "read_checkpoint"):
            self.read_checkpoint: Callable[[], tuple[int, bytes] | None] = log.read_checkpoint

    def append(self, lines: Sequence[bytes], expected_seq: int) -> None:
        if expected_seq != self.base + len(self.new) + 1:  # pragma: no cover - the session appends in order
            raise ConcurrencyError(f"expected seq {self.base + len(self.new) + 1}, given {expected_seq}")
        self.new.extend(lines)

    def lines(self, start: int = 1, stop: int | None = None) -> Iterator[bytes]:
        end = self.base + len(self.new) if stop is None else min(stop, self.base + len(self.new))
        if start <= min(end, self.base):
            yield from self.log.lines(start, min(end, self.base))
        low = max(start, self.base + 1)
        if low <= end:
            yield from self.new[low - self.base - 1 : end - self.base]

    def head(self) -> tuple[int, bytes | None]:
        if self.new:
            return self.base + len(self.new), self.new[-1]
        return self.base, self.base_line

    def close(self) -> None:
        pass

    def flush(self) -> None:
        if self.new:
            self.log.append(self.new, expected_seq=self.base + 1)


def _first_seq(log: EventLog, step: int, last: int) -> int:
    """The seq of step `step`'s first line (steps never go down along a log): a binary search."""
    low, high = 1, last
    while low < high:
        mid = (low + high) // 2
        line = next(iter(log.lines(mid, mid)))
        if step_of(line) < step:
            low = mid + 1
        else:
            high = mid
    return low


def _commands(log: EventLog, first: int) -> tuple[dict[int, Command], dict[int, tuple[int, int]]]:
    """From seq `first` on: each step's command, and its first and last seqs."""
    commands: dict[int, Command] = {}
    seqs: dict[int, tuple[int, int]] = {}
    for env in envelopes(log, first):
        if type(env.event) is CommandIssued:
            commands[env.step] = env.event.command
        low = seqs.get(env.step, (env.seq, env.seq))[0]
        seqs[env.step] = (low, env.seq)
    return commands, seqs


def _corrected(
    original: Command,
    dice: str | None,
    command: str | Command | TypedCommand | None,
    by: str,
    state: Encounter,
    what: str,
) -> Command:
    """The command decided in the amended step's place, as the log records it; raises Refused for
    dice or a command that can't be read (`what`: the amendment, which a refusal names)."""
    entered, entered_for = original.entered, original.entered_for
    if dice is not None:
        try:
            entered, entered_for = typed_rolls(dice)
        except ValueError as exc:
            raise Refused("amend --dice", str(exc), "give each roll as '1d20: 17', several with ';'") from None
        if entered is None:
            raise Refused("amend --dice", "no dice given", "give each roll as '1d20: 17', several with ';'")
        if entered_for is not None and not any(entered_for):
            entered_for = None
    if command is None:
        return msgspec.structs.replace(original, entered=entered, entered_for=entered_for)
    if isinstance(command, TypedCommand):
        command = recorded(command)
    if isinstance(command, Command):
        return command if dice is None else msgspec.structs.replace(command, entered=entered, entered_for=entered_for)
    try:
        return recorded(parse_line(command, entered, by, rules_of(state), entered_for))
    except UsageError as exc:
        raise Refused("amend --command", str(exc)) from None
    except Refused as exc:  # a value that can't be: as the rules refuse the corrected command
        raise Refused(f"{what}: the corrected command", str(exc)) from None


def amend(
    log: EventLog,
    step: int,
    dice: str | None = None,
    command: str | Command | TypedCommand | None = None,
    by: str = "gm",
    signer: Callable[[str], tuple[str, str]] | None | EnvironmentKey = FROM_ENVIRONMENT,
    clock: Callable[[], str] | None = None,
) -> AmendReport:
    """Amend step `step` of `log` with new typed `dice` (`'1d20: 17'`, several with `;`: they
    replace the step's typed dice) and/or a new `command` (a line of the `do`/`play` grammar,
    a typed command or a Command; it keeps the step's typed dice unless `dice` is given). With neither, the step
    is decided again as recorded. Returns the AmendReport.

    Raises Refused, one line, appending nothing: a step that isn't in the log or can't be
    amended (the creation, an undo or a redo, a step undone), dice or a command that can't be
    read, a corrected command the rules refuse. ConcurrencyError if another writer appended
    since it began (nothing appended); LogError if the log can't be written. `signer` and
    `clock` as a Session takes them."""
    pending = _Pending(log)
    session = Session(pending, clock=clock, signer=signer, checkpoint_every=_NEVER)
    view = session.projection
    what = f"amend step {step}"
    if isinstance(step, bool) or not isinstance(step, int) or not 1 <= step <= view.step:
        raise Refused(what, "there is no such step", f"the log's steps are 1 to {view.step}")
    if step == 1:
        raise Refused(what, "the encounter's creation can't be amended", "start a new log instead")
    first = _first_seq(pending, step, view.seq)
    commands, seqs = _commands(pending, first)
    original = commands.get(step)
    if step not in view.undo:
        kind = original.kind if original is not None else ""
        if kind in ("undo", "redo"):
            raise Refused(what, f"it is {'an' if kind == 'undo' else 'a'} {kind}", "amend a step of the fight")
        raise Refused(what, "it was undone: it doesn't count now", "redo it first, or amend a step that counts")
    if original is None:  # pragma: no cover - a live step's first line is its CommandIssued
        raise Refused(what, "the step has no command")
    later = view.undo[view.undo.index(step) + 1 :]
    before_state, before_seq = view.state, view.seq
    corrected = _corrected(original, dice, command, by, view.state, what)

    rounds = {n: _round_of(view, n) for n in (step, *later)}
    undone: list[int] = []
    for number in reversed([step, *later]):
        session.undo()
        undone.append(number)
    try:
        done = session.execute(_in_place_of(corrected, step, original))
    except Refused as exc:
        raise Refused(f"{what}: the corrected command", str(exc)) from None
    new_steps = {step: done}
    stopped: int | None = None
    why = ""
    for number in later:
        try:
            new_steps[number] = session.execute(_in_place_of(commands[number], number, commands[number]))
        except Refused as exc:
            stopped, why = number, str(exc)
            break
    after_state, after_seq = view.state, view.seq
    told = _told(pending, first, new_steps, seqs)

    def entry(number: int, cmd: Command) -> Redecided:
        now = new_steps.get(number)
        new = now[0].step if now else None
        return Redecided(
            step=number,
            now=new,
            round=rounds.get(number, 0),
            command=said(cmd),
            before=told.get(("was", number), ()),
            after=told.get(("now", number), ()),
        )

    redecided = tuple(entry(n, commands[n]) for n in later if n in new_steps)
    left = tuple(later[later.index(stopped) :]) if stopped is not None else ()
    report = AmendReport(
        step=step,
        by_step=done[0].step,
        undone=tuple(undone),
        corrected=entry(step, corrected),
        redecided=redecided,
        stopped=entry(stopped, commands[stopped]) if stopped is not None else None,
        why=why,
        left=left,
        changes=tuple(changed(seen(before_state, GM, before_seq), seen(after_state, GM, after_seq))),
        first_seq=pending.base + 1,
        last_seq=pending.base + len(pending.new),
    )
    pending.flush()
    return report


def _round_of(view: Projection, step: int) -> int:
    """The round step `step` was decided in (0 when the history kept no state of it)."""
    kept = view.history.get(step)
    return kept[0].round if kept is not None else 0


def _in_place_of(command: Command, number: int, was: Command) -> Command:
    """`command` as decided in place of step `number` (whose command was `was`), with its draws."""
    draws = was.draws if was.draws is not None else number
    return msgspec.structs.replace(command, amends=number, draws=draws)


def _told(
    log: EventLog, first: int, new_steps: dict[int, list[Envelope[Any]]], seqs: dict[int, tuple[int, int]]
) -> dict[tuple[str, int], tuple[str, ...]]:
    """The game master's transcript lines of each amended step as it was ("was", step) and as it
    is now ("now", the step it was), told from seq `first` on."""
    where: dict[int, tuple[str, int]] = {}
    for number, (low, high) in seqs.items():
        for seq in range(low, high + 1):
            where[seq] = ("was", number)
    for number, done in new_steps.items():
        for env in done:
            where[env.seq] = ("now", number)
    start = replay(log, first - 1, Projection(marks=False))
    out: dict[tuple[str, int], list[str]] = {}
    for seq, line in tell(envelopes(log, first), log=log, start=start):
        key = where.get(seq)
        if key is None or line.startswith("Amended: "):  # the record of the amendment, not its outcome
            continue
        told = out.setdefault(key, [])
        if not told or line[:1].isspace():  # its outcome line and the details under it, not a heading
            told.append(line.strip())
    return {k: tuple(v) for k, v in out.items()}


def steps(log: EventLog) -> Iterator[tuple[int, int, int, str]]:
    """The steps an amendment can take, oldest first: (step, its first seq, its round, its command
    as `said` writes it). Raises CorruptLog like a replay."""
    projection = Projection(marks=False)
    opened: dict[int, tuple[int, int, str]] = {}
    for env in envelopes(log):
        if type(env.event) is CommandIssued and env.event.command.kind not in ("undo", "redo", "create"):
            opened[env.step] = (env.seq, projection.state.round, said(env.event.command))
        apply_from(log, projection, env)
    for number in projection.undo:
        if number in opened:
            seq, round_, text = opened[number]
            yield number, seq, round_, text
