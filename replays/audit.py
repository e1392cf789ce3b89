"""Audit: was every outcome what the rules and the recorded dice say, and is the log untouched?

Two passes in one read:

1. The digest chain: each line's digest must be SHA-256 of the previous digest and the
   line's canonical bytes, and seqs must run 1, 2, 3... A line that fails is *tampered*
   (or corrupted): its bytes are not the bytes that were sealed.
2. Re-deciding: every step starts with the command that produced it. The engine decides
   that command again against the state before the step, with the step's own recorded
   dice, and each resulting event must equal the recorded one. An event that doesn't is
   an outcome that does not follow. A game-master override is a command like any other:
   it re-decides to the same events and is listed as an override, not as a finding.
"""

from __future__ import annotations

from typing import Callable, Iterator

import msgspec

from combatlog.engine import RecordedDice, Refused, decide, get_rules
from combatlog.engine.dice import DiceError
from combatlog.events import (
    CommandIssued,
    DiceRolled,
    Envelope,
    EventLog,
    GmOverride,
    GENESIS,
    canonical_bytes,
    digest_of,
    line_decoder,
)
from combatlog.projections import FoldError, Projection
from combatlog.projections.fold import paused_gc
from combatlog.projections.replay import apply_from


class Finding(msgspec.Struct, frozen=True):
    """One thing wrong with a log, at `seq`. `kind`: tampered, sequence, undecodable, unfollowed, illegal, torn."""

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


class Report(msgspec.Struct):
    """The result of an audit."""

    events: int = 0
    steps: int = 0
    findings: list[Finding] = []
    overrides: list[Override] = []
    notes: list[str] = []

    @property
    def clean(self) -> bool:
        return not self.findings


def _steps(log: EventLog, report: Report, progress: Callable[[int], None] | None) -> Iterator[list[tuple[Envelope, bytes]]]:
    """Yield the log's steps as lists of (envelope, line), checking the chain on the way."""
    decode = line_decoder()
    previous = GENESIS
    seq = 0
    step: list[tuple[Envelope, bytes]] = []
    for line in log.lines():
        seq += 1
        if progress is not None and seq % 4096 == 0:
            progress(seq)
        try:
            canonical, claimed = canonical_bytes(line)
        except ValueError as exc:
            report.findings.append(Finding(seq, "tampered", str(exc)))
            return
        if digest_of(previous, canonical) != claimed:
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
    if progress is not None:
        progress(seq)


def audit(log: EventLog, progress: Callable[[int], None] | None = None) -> Report:
    """Audit `log`: the digest chain, then every step re-decided with its recorded dice."""
    report = Report()
    torn = getattr(log, "torn", None)
    if torn is not None:
        report.findings.append(Finding(torn.seq, "torn", str(torn)))
    projection = Projection()
    with paused_gc():
        _audit_steps(log, report, progress, projection)
    return report


def _audit_steps(log: EventLog, report: Report, progress: Callable[[int], None] | None,
                 projection: Projection) -> None:
    for step in _steps(log, report, progress):
        report.steps += 1
        first, _ = step[0]
        head = first.event
        if type(head) is not CommandIssued:
            report.findings.append(Finding(first.seq, "unfollowed", f"step {first.step} has no command to re-decide"))
        else:
            if head.events != len(step):
                report.findings.append(Finding(
                    first.seq, "unfollowed",
                    f"step {first.step} announced {head.events} events but holds {len(step)}"))
            if projection.state.rules is not None and first.seq > 1:
                _check_version(projection, report, first.seq)
            _redecide(projection, head, step, report)
        for env, _ in step:
            if type(env.event) is GmOverride:
                report.overrides.append(Override(env.seq, env.event.reason, env.event.subject))
        try:
            for env, _ in step:
                apply_from(log, projection, env)
        except FoldError as exc:
            report.findings.append(Finding(exc.seq, "illegal", str(exc).split(": ", 1)[1]))
            break


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
        report.notes.append(
            f"recorded under {state.rules} {state.rules_version}, audited with {rules.version}")


def _redecide(projection: Projection, head: CommandIssued, step: list[tuple[Envelope, bytes]], report: Report) -> None:
    rolled = [env.event for env, _ in step if type(env.event) is DiceRolled]
    try:
        expected = decide(projection, head.command, RecordedDice(rolled))
    except (Refused, DiceError, KeyError) as exc:
        msg = exc.args[0] if isinstance(exc, KeyError) else str(exc)
        report.findings.append(Finding(step[0][0].seq, "unfollowed", f"the command is refused when re-decided: {msg}"))
        return
    recorded = step[1:]
    for i, (env, _) in enumerate(recorded):
        if i >= len(expected):
            report.findings.append(Finding(env.seq, "unfollowed", f"{_tag(env.event)} doesn't follow: the step ends before it"))
            return
        if env.event != expected[i]:
            report.findings.append(Finding(
                env.seq, "unfollowed",
                f"recorded {_show(env.event)}, but the rules and the dice give {_show(expected[i])}"))
            return
    if len(expected) > len(recorded):
        seq = step[-1][0].seq
        report.findings.append(Finding(seq, "unfollowed", f"the step is missing {_show(expected[len(recorded)])}"))


def _tag(event) -> str:
    return type(event).__struct_config__.tag


def _show(event) -> str:
    text = msgspec.json.encode(event).decode()
    return text if len(text) <= 160 else text[:157] + "..."
