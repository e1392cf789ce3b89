"""Audit: was every outcome what the rules and the recorded dice say, and is the log untouched?

Two checks in one read of each line:

1. The digest chain: each line's digest must be SHA-256 of the previous digest and the
   line's canonical bytes, and seqs must run 1, 2, 3... A line that fails is *tampered*
   (or corrupted): its bytes are not the bytes that were sealed.
2. Re-deciding: every step starts with the command that produced it. The engine decides
   that command again against the state before the step, with the step's own recorded
   dice, and each resulting event must equal the recorded one. An event that doesn't is
   an outcome that does not follow. A game-master override is a command like any other:
   it re-decides to the same events and is listed as an override, not as a finding.

A long log is split across forked processes, each replaying the log up to its part
first (see `audit`, and `combatlog.replays.parallel` for the split); the report is the one
a single process gives.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any

import msgspec

from combatlog.engine import RecordedDice, Refused, decide, get_rules
from combatlog.engine.dice import DiceError, DiceMismatch, RollMismatch, SeededDice
from combatlog.engine.fair import Secret, commitment
from combatlog.engine.session import seed_of
from combatlog.events import (
    CommandIssued,
    CorruptLog,
    DiceRolled,
    EncounterCreated,
    Envelope,
    EventLog,
    GmOverride,
    StepSigned,
    check_link,
    line_decoder,
)
from combatlog.projections import FoldError, Projection
from combatlog.projections.fold import paused_gc
from combatlog.projections.replay import apply_from
from combatlog.replays import parallel


class Finding(msgspec.Struct, frozen=True):
    """One thing wrong with a log, at `seq`. `kind`: tampered, sequence, undecodable, unfollowed, illegal, torn,
    dice (a die its expression can't show, or an engine roll the encounter's seed doesn't give)."""

    seq: int
    kind: str
    message: str

    def __str__(self) -> str:
        return f"seq {self.seq}: {self.kind}: {self.message}"


class Override(msgspec.Struct, frozen=True):
    """A recorded game-master override (not a finding: the log says who decided it)."""

    seq: int
    reason: str
    subject: str
    step: int = 0
    by: str = ""  # who gave the command (its `by`)


class Entered(msgspec.Struct, frozen=True):
    """A roll typed in at the table (not the engine's): the audit takes it as recorded."""

    seq: int
    step: int
    expression: str
    faces: tuple[int, ...]
    purpose: str = ""
    by: str | None = None  # whose roll it is (the roller)
    typed_by: str = ""  # who gave the command the dice came with (its `by`)


class Amended(msgspec.Struct, frozen=True):
    """A step an amendment decided in place of an earlier one (`combatlog amend`): the audit
    re-decides it with the seeded draws it names, and lists it for a reviewer."""

    seq: int
    step: int
    amends: int  # the step it was decided in place of (still in the log, undone)
    draws: int  # the step whose seeded draws its engine dice are
    by: str = ""  # who gave the command (its `by`)


class Report(msgspec.Struct):
    """The result of an audit."""

    events: int = 0
    steps: int = 0
    findings: list[Finding] = []
    overrides: list[Override] = []
    entered: list[Entered] = []  # every die the engine did not roll, for a reviewer (`audit --strict`)
    amended: list[Amended] = []  # every step decided in place of another, for a reviewer (`audit --strict`)
    notes: list[str] = []

    @property
    def clean(self) -> bool:
        return not self.findings


# Audits of long logs are split across processes (a forked copy of this one): part j
# replays the log up to its first seq, then audits its own range. Replaying costs about
# this fraction of auditing, per event, so the parts are cut to take the same time.


def _steps(
    log: EventLog,
    report: Report,
    progress: Callable[[int], None] | None,
    start: int,
    stop: int | None,
    previous: bytes,
    ended: list[bool],
) -> Iterator[list[tuple[Envelope[Any], bytes]]]:
    """Yield the lines `start` to `stop` as steps, lists of (envelope, line), checking the chain on the way.

    `previous` is the digest of the line before `start` (as hex ASCII); `ended[0]` is set
    once the range was read to its end with nothing that stops an audit.
    """
    decode = line_decoder()
    seq = start - 1
    step: list[tuple[Envelope[Any], bytes]] = []
    for line in log.lines(start, stop):
        seq += 1
        if progress is not None and seq % 4096 == 0:
            progress(seq)
        try:
            claimed, sealed = check_link(previous, line)
        except ValueError as exc:
            report.findings.append(Finding(seq, "tampered", str(exc)))
            return
        except TypeError:  # a store's row holding a number, not a line
            report.findings.append(Finding(seq, "tampered", f"the stored line is {type(line).__name__}, not a line"))
            return
        if not sealed:
            report.findings.append(Finding(seq, "tampered", "the digest doesn't match the line's bytes"))
        previous = claimed
        try:
            envelope = decode(line)
        except Exception as exc:
            report.findings.append(Finding(seq, "undecodable", str(exc)))
            return
        if envelope.seq != seq:
            report.findings.append(Finding(seq, "sequence", f"the line says seq {envelope.seq}"))
            return
        if step and envelope.step != step[0][0].step:
            yield step
            step = []
        step.append((envelope, line))
    if step:
        yield step
    report.events = seq
    ended[0] = True
    if progress is not None:
        progress(seq)


def signatures(log: EventLog, public: str) -> list[Finding]:
    """Every step's signature checked against the public key `public` (hex): a step that isn't
    signed, is signed by another key, or whose signature doesn't verify is a `signature` finding."""
    from combatlog.replays.cursor import envelopes
    from combatlog.replays.signing import verifier

    check = verifier(public)
    out: list[Finding] = []

    def judge(step: list[Envelope[Any]]) -> None:
        last = step[-1]
        number = last.step
        if type(last.event) is not StepSigned or len(step) < 2:
            out.append(Finding(step[0].seq, "signature", f"step {number} is not signed"))
        elif last.event.key != public:
            out.append(
                Finding(last.seq, "signature", f"step {number} is signed by another key ({last.event.key[:16]}...)")
            )
        elif not check(step[-2].digest, last.event.signature):
            out.append(Finding(last.seq, "signature", f"the signature of step {number} doesn't verify"))

    current: list[Envelope[Any]] = []
    for env in envelopes(log):
        if current and env.step != current[0].step:
            judge(current)
            current = []
        current.append(env)
    if current:
        judge(current)
    return out


def missing_rules(log: EventLog) -> tuple[int, str] | None:
    """(seq, why) when the rule system `log` was recorded under isn't installed, else None."""
    from combatlog.engine.registry import MissingRuleSystem, get

    for seq, line in enumerate(log.lines(1, 4), start=1):
        if b'"EncounterCreated"' not in line:
            continue
        try:
            event = msgspec.json.decode(line)["event"]
            name = str(event["rules"])
        except (msgspec.DecodeError, KeyError, TypeError):
            return None  # an unreadable line: the audit reports it where it stands
        try:
            get(name)
        except MissingRuleSystem:
            return seq, str(MissingRuleSystem(name, event.get("rules_version"), event.get("package")).args[0])
        return None
    return None


def committed(log: EventLog) -> tuple[str, Secret | None] | None:
    """(the commitment, the seed and nonce revealed for it, or None) of a fair encounter's log;
    None for an ordinary one. The first reveal that matches the commitment counts."""
    found: str | None = None
    for line in log.lines(1, 4):
        if b'"EncounterCreated"' in line:
            try:
                found = msgspec.json.decode(line)["event"].get("commitment")
            except (msgspec.DecodeError, KeyError, TypeError, AttributeError):
                return None  # an unreadable line: the audit reports it where it stands
            break
    if not isinstance(found, str):
        return None
    for line in log.lines(1, None):
        if b'"type":"SeedRevealed"' not in line:
            continue
        try:
            event = msgspec.json.decode(line)["event"]
            seed, nonce = event["seed"], event["nonce"]
        except (msgspec.DecodeError, KeyError, TypeError):
            continue
        if isinstance(seed, int) and isinstance(nonce, str) and commitment(seed, nonce) == found:
            return found, Secret(seed=seed, nonce=nonce)
    return found, None


UNREVEALED = (
    "fair dice, not revealed yet: the engine's dice are taken as recorded (nothing in the log can "
    "check them until the game master's `combatlog reveal`; then `audit --fair` checks every one)"
)


def audit(log: EventLog, progress: Callable[[int], None] | None = None, workers: int | None = None) -> Report:
    """Audit `log` as it stands when the audit begins: the digest chain, then every step
    re-decided with its recorded dice.

    `progress(n)` is called now and then with the number of events audited so far (never
    less than the time before). `workers`: how many processes share the work. None: one
    per core, up to 8, for a log of PARALLEL_FROM events or more, from a process that runs
    no other thread and is not itself a daemonic worker, where the platform can fork and
    the store can be opened again in another process; 1: this process alone. The report is
    the one a single process gives: if a part fails, or doesn't start from the state the
    part before it ended in, the whole audit is done again in this process.
    """
    report = Report()
    missing = missing_rules(log)
    if missing is not None:  # one finding, not a violation per step
        report.findings.append(Finding(missing[0], "rules", missing[1]))
        return report
    torn = getattr(log, "torn", None)
    if torn is not None:
        report.findings.append(Finding(torn.seq, "torn", str(torn)))
    if progress is not None:
        progress = _rising(progress)
    try:
        last = log.head()[0]
    except CorruptLog as exc:  # the last line can't be read: audited up to it, where it is found
        last = exc.seq
    fair = committed(log)
    # a fair log's engine dice are checked against its effective seed from the start, once revealed
    audit_range = _audit_range if fair is None else functools.partial(_audit_range, secret=fair[1])
    with paused_gc():
        parts = parallel.parts(log, workers, last)
        if len(parts) > 1:
            try:
                parallel.run(log, report, progress, parts, audit_range)
                return _noted(report, fair)
            except parallel.PartFailed:
                del report.findings[1 if torn is not None else 0 :]
                report.overrides.clear()
                report.entered.clear()
                report.amended.clear()
                report.notes.clear()
                report.events = report.steps = 0
        audit_range(log, report, progress, Projection(), 1, last)
    return _noted(report, fair)


def _noted(report: Report, fair: tuple[str, Secret | None] | None) -> Report:
    if fair is not None and fair[1] is None:
        report.notes.append(UNREVEALED)
    return report


def _rising(progress: Callable[[int], None]) -> Callable[[int], None]:
    """`progress`, called only with counts above the last (parts report as they go; a failed split starts again)."""
    highest = [0]

    def rising(n: int) -> None:
        if n > highest[0]:
            highest[0] = n
            progress(n)

    return rising


def processes(log: EventLog, workers: int | None = None) -> int:
    """How many processes an audit of `log` with `workers` would run in."""
    return len(parallel.parts(log, workers, log.head()[0]))


def _audit_range(
    log: EventLog,
    report: Report,
    progress: Callable[[int], None] | None,
    projection: Projection,
    start: int,
    stop: int | None,
    secret: Secret | None = None,
) -> bool:
    """Audit lines `start` to `stop` onto `projection` (standing just before `start`); True if nothing stopped it.
    `secret`: a fair encounter's revealed seed and nonce (its engine dice are checked against them)."""
    ended = [False]
    for step in _steps(log, report, progress, start, stop, projection.digest.encode("ascii"), ended):
        report.steps += 1
        first, _ = step[0]
        head = first.event
        if type(head) is not CommandIssued:
            report.findings.append(Finding(first.seq, "unfollowed", f"step {first.step} has no command to re-decide"))
        else:
            if head.events != len(step):
                report.findings.append(
                    Finding(
                        first.seq,
                        "unfollowed",
                        f"step {first.step} announced {head.events} events but holds {len(step)}",
                    )
                )
            if projection.state.rules is not None and first.seq > 1:
                _check_version(projection, report, first.seq)
            _redecide(projection, head, step, report, secret)
        given_by = head.command.by if type(head) is CommandIssued else ""
        amends = head.command.amends if type(head) is CommandIssued else None
        if amends is not None:
            draws = head.command.draws
            report.amended.append(
                Amended(first.seq, first.step, amends, first.step if draws is None else draws, given_by)
            )
        for env, _ in step:
            kind = type(env.event)
            if kind is GmOverride:
                report.overrides.append(Override(env.seq, env.event.reason, env.event.subject, env.step, given_by))
            elif kind is DiceRolled and env.event.source == "entered":
                e = env.event
                report.entered.append(Entered(env.seq, env.step, e.expression, e.faces, e.purpose, e.by, given_by))
        try:
            for env, _ in step:
                apply_from(log, projection, env)
        except FoldError as exc:
            report.findings.append(Finding(exc.seq, "illegal", str(exc).split(": ", 1)[1]))
            return False
    return ended[0]


def _check_version(projection: Projection, report: Report, seq: int) -> None:
    if report.notes:
        return
    state = projection.state
    try:
        rules = get_rules(state.rules or "")
    except KeyError as exc:
        report.notes.append(str(exc.args[0]))
        return
    if rules.version != state.rules_version:
        report.notes.append(f"recorded under {state.rules} {state.rules_version}, audited with {rules.version}")


def _supported(current: str | None, was: str | None) -> bool:
    """True when a log recorded under version `was` of its rules is audited by version `current` (never a later one)."""
    try:
        return int(was or "1") <= int(current or "1")
    except ValueError:
        return was == current


def _redecide(
    projection: Projection,
    head: CommandIssued,
    step: list[tuple[Envelope[Any], bytes]],
    report: Report,
    secret: Secret | None = None,
) -> None:
    rolled = [env.event for env, _ in step if type(env.event) is DiceRolled]
    state = projection.state
    seed = state.seed if state.fair is None else seed_of(state, secret)
    # an amendment's step takes the seeded draws of the step it names (`Command.draws`)
    step_number = head.command.draws if head.command.draws is not None else projection.step + 1
    seeded = (lambda: SeededDice(seed, step_number)) if seed is not None else None
    try:
        expected = decide(projection, head.command, RecordedDice(rolled, seeded))
    except DiceMismatch as exc:  # named at the forged or wrong roll's own seq
        rolls = [env.seq for env, _ in step if type(env.event) is DiceRolled]
        at = rolls[exc.index] if exc.index is not None and 0 <= exc.index < len(rolls) else step[0][0].seq
        if isinstance(exc, RollMismatch):  # not the roll the step asks for: the step doesn't follow
            report.findings.append(Finding(at, "unfollowed", f"the command is refused when re-decided: {exc}"))
        else:
            report.findings.append(Finding(at, "dice", str(exc)))
        return
    except (Refused, DiceError, KeyError) as exc:
        msg = exc.args[0] if isinstance(exc, KeyError) else str(exc)
        report.findings.append(Finding(step[0][0].seq, "unfollowed", f"the command is refused when re-decided: {msg}"))
        return
    recorded = [pair for pair in step[1:] if type(pair[0].event) is not StepSigned]  # a signature isn't decided
    if (
        expected
        and recorded
        and type(expected[0]) is EncounterCreated
        and type(recorded[0][0].event) is EncounterCreated
    ):
        # an encounter created under an earlier version of its rules is audited under that
        # version (the rules gate what changed on it): the creation records the version it had
        was = recorded[0][0].event.rules_version
        if _supported(expected[0].rules_version, was):
            expected[0] = msgspec.structs.replace(expected[0], rules_version=was)
    for i, (env, _) in enumerate(recorded):
        if i >= len(expected):
            report.findings.append(
                Finding(env.seq, "unfollowed", f"{_tag(env.event)} doesn't follow: the step ends before it")
            )
            return
        if env.event != expected[i]:
            report.findings.append(
                Finding(
                    env.seq,
                    "unfollowed",
                    f"recorded {_show(env.event)}, but the rules and the dice give {_show(expected[i])}",
                )
            )
            return
    if len(expected) > len(recorded):
        seq = step[-1][0].seq
        report.findings.append(Finding(seq, "unfollowed", f"the step is missing {_show(expected[len(recorded)])}"))


def _tag(event: Any) -> str:
    return str(type(event).__struct_config__.tag)


def _show(event: Any) -> str:
    text = msgspec.json.encode(event).decode()
    return text if len(text) <= 160 else text[:157] + "..."
