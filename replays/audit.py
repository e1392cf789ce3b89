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
first (see `audit`); the report is the one a single process gives.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import threading
from typing import Any, Callable, Iterator

import msgspec

from combatlog.engine import RecordedDice, Refused, decide, get_rules
from combatlog.engine.dice import DiceError
from combatlog.events import (
    CommandIssued,
    DiceRolled,
    Envelope,
    EventLog,
    GmOverride,
    check_link,
    line_decoder,
)
from combatlog.projections import FoldError, Projection
from combatlog.projections.fold import paused_gc
from combatlog.projections.replay import apply_from, replay
from combatlog.projections.snapshot import dump_snapshot
from combatlog.events.envelope import step_of
from combatlog.replays.stores import JsonlLog, MemoryLog


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


# Audits of long logs are split across processes (a forked copy of this one): part j
# replays the log up to its first seq, then audits its own range. Replaying costs about
# this fraction of auditing, per event, so the parts are cut to take the same time.
PARALLEL_FROM = 50_000  # events: below this, starting processes costs more than it saves
_REPLAY_VS_AUDIT = 0.15
_MAX_WORKERS = 8


def _steps(log: EventLog, report: Report, progress: Callable[[int], None] | None, start: int,
           stop: int | None, previous: bytes, ended: list[bool]) -> Iterator[list[tuple[Envelope, bytes]]]:
    """Yield the lines `start` to `stop` as steps, lists of (envelope, line), checking the chain on the way.

    `previous` is the digest of the line before `start` (as hex ASCII); `ended[0]` is set
    once the range was read to its end with nothing that stops an audit.
    """
    decode = line_decoder()
    seq = start - 1
    step: list[tuple[Envelope, bytes]] = []
    for line in log.lines(start, stop):
        seq += 1
        if progress is not None and seq % 4096 == 0:
            progress(seq)
        try:
            claimed, sealed = check_link(previous, line)
        except ValueError as exc:
            report.findings.append(Finding(seq, "tampered", str(exc)))
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


def audit(log: EventLog, progress: Callable[[int], None] | None = None, workers: int | None = None) -> Report:
    """Audit `log` as it stands when the audit begins: the digest chain, then every step re-decided with its recorded dice.

    `progress(n)` is called now and then with the number of events audited so far (never
    less than the time before). `workers`: how many processes share the work. None: one
    per core, up to 8, for a log of PARALLEL_FROM events or more, from a process that runs
    no other thread and is not itself a daemonic worker, where the platform can fork and
    the store can be opened again in another process; 1: this process alone. The report is
    the one a single process gives: if a part fails, or doesn't start from the state the
    part before it ended in, the whole audit is done again in this process.
    """
    report = Report()
    torn = getattr(log, "torn", None)
    if torn is not None:
        report.findings.append(Finding(torn.seq, "torn", str(torn)))
    if progress is not None:
        progress = _rising(progress)
    last = log.head()[0]
    with paused_gc():
        parts = _parts(log, workers, last)
        if len(parts) > 1:
            try:
                _audit_parallel(log, report, progress, parts)
                return report
            except _PartFailed:
                del report.findings[1 if torn is not None else 0:]
                report.overrides.clear()
                report.notes.clear()
                report.events = report.steps = 0
        _audit_range(log, report, progress, Projection(), 1, last)
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
    return len(_parts(log, workers, log.head()[0]))


class _PartFailed(Exception):
    """A part of a split audit failed, or didn't start where the part before it ended."""


def _audit_range(log: EventLog, report: Report, progress: Callable[[int], None] | None,
                 projection: Projection, start: int, stop: int | None) -> bool:
    """Audit lines `start` to `stop` onto `projection` (standing just before `start`); True if nothing stopped it."""
    ended = [False]
    for step in _steps(log, report, progress, start, stop, projection.digest.encode("ascii"), ended):
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
            return False
    return ended[0]


# --- one audit, several processes -------------------------------------------------------


def _parts(log: EventLog, workers: int | None, last: int) -> list[tuple[int, int]]:
    """The ranges (first seq, last seq) an audit of lines 1 to `last` is split into; one range means not split."""
    whole = [(1, last)]
    if workers is None:
        if last < PARALLEL_FROM or threading.active_count() > 1:
            return whole  # short, or another thread could hold a lock a forked process would wait on forever
        try:
            workers = len(os.sched_getaffinity(0))
        except AttributeError:  # not on Linux
            workers = os.cpu_count() or 1
        workers = min(workers, _MAX_WORKERS)
    if workers < 2 or not _can_fork() or _reader_for(log) is None:
        return whole
    # Part j ends where the first j parts take the same time each: the first audits its
    # range, every other replays up to its range first (the cut then moves to a step's start).
    keep = 1 - _REPLAY_VS_AUDIT
    cuts: list[int] = []
    for j in range(1, workers):
        seq = _step_start(log, round(last * (1 - keep ** j) / (1 - keep ** workers)) + 1, last)
        if seq is not None and seq > (cuts[-1] if cuts else 1):
            cuts.append(seq)
    if not cuts:
        return whole
    starts = [1, *cuts]
    return [(a, b - 1) for a, b in zip(starts, [*cuts, last + 1])]


def _step_start(log: EventLog, seq: int, last: int) -> int | None:
    """The first seq at or after `seq` whose line starts a step (its step differs from the line before's)."""
    if seq < 2 or seq > last:
        return None
    before = None
    for at, line in enumerate(log.lines(seq - 1, min(last, seq + 4096)), seq - 1):
        try:
            step = step_of(line)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return None  # a line the audit itself will report: no cut near it
        if before is not None and step != before:
            return at
        before = step
    return None


def _can_fork() -> bool:
    """Linux, with fork, from a process allowed children (a daemonic pool worker isn't)."""
    return (sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()
            and not multiprocessing.current_process().daemon)


def _reader_for(log: EventLog) -> Callable[[], EventLog] | None:
    """How a forked process reads `log`: a memory or JSON-lines log (exactly those classes) holds no
    connection and reads as it is; another store is opened again if it has `reopened` (SQLite,
    PostgreSQL); None for a store of unknown kind, audited in this process."""
    if type(log) in (MemoryLog, JsonlLog):
        return lambda: log
    reopened = getattr(log, "reopened", None)
    return reopened if callable(reopened) else None


def _part(conn: Any, inherited: list[Any], log: EventLog, start: int, stop: int, report_progress: bool) -> None:
    """In a forked process: replay up to `start`, audit `start` to `stop`, send the outcome to `conn`.

    Ctrl-C is the parent's to handle (it ends this process); the pipes to earlier parts,
    inherited by the fork, are closed first, so each part's pipe ends with its process.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for other in inherited:
        other.close()
    reader = None
    try:
        reader = _reader_for(log)()  # type: ignore[misc]
        with paused_gc():
            projection = replay(reader, stop=start - 1)
            first = dump_snapshot(projection)
            report = Report()
            progress = (lambda seq: conn.send(("progress", seq - start + 1))) if report_progress else None
            ended = _audit_range(reader, report, progress, projection, start, stop)
        message: tuple = ("done", first, dump_snapshot(projection), report, ended)
    except BaseException as exc:  # handed to the parent, which then audits in one process
        message = ("error", f"{type(exc).__name__}: {exc}")
    try:
        conn.send(message)
    except OSError:
        pass  # the parent is gone or stopped listening
    finally:
        conn.close()
        if reader is not None and reader is not log:
            reader.close()


def _audit_parallel(log: EventLog, report: Report, progress: Callable[[int], None] | None,
                    parts: list[tuple[int, int]]) -> None:
    """Audit part 1 here and each other part in a forked process; merge their reports in order.

    Raises _PartFailed if a process can't be started, fails, or doesn't start from the
    state the part before it ended in.
    """
    context = multiprocessing.get_context("fork")
    sys.stdout.flush()  # a forked process must not write out this one's buffered output again
    sys.stderr.flush()
    children: list[tuple[Any, Any]] = []
    try:
        try:
            for start, stop in parts[1:]:
                ours, theirs = context.Pipe(duplex=False)
                earlier = [conn for _, conn in children]
                child = context.Process(target=_part, args=(theirs, earlier, log, start, stop, progress is not None),
                                        daemon=True)
                try:
                    child.start()
                finally:
                    theirs.close()
                children.append((child, ours))
        except Exception as exc:
            raise _PartFailed(f"can't start a process: {exc}") from None
        done = {ours: 0 for _, ours in children}
        outcome: dict[Any, tuple] = {}

        def drain(block: bool) -> None:
            waiting = [c for c in done if c not in outcome]
            for conn in multiprocessing.connection.wait(waiting, timeout=None if block else 0):
                try:
                    message = conn.recv()
                except Exception as exc:  # EOFError: the process died without a word
                    message = ("error", f"no report from the process ({type(exc).__name__})")
                if message[0] == "progress":
                    done[conn] = message[1]
                else:
                    outcome[conn] = message

        def ours_progress(seq: int) -> None:
            drain(block=False)
            progress(seq + sum(done.values()))  # type: ignore[misc]

        projection = Projection()
        first_stop = parts[0][1]
        if not _audit_range(log, report, None if progress is None else ours_progress, projection, 1, first_stop):
            return  # stopped as one process would: the later parts are of no use (and are ended below)
        standing = dump_snapshot(projection)
        for (child, ours), (start, stop) in zip(children, parts[1:]):
            while ours not in outcome:
                drain(block=True)
                if progress is not None:
                    progress(first_stop + sum(done.values()))
            message = outcome[ours]
            if message[0] != "done" or message[1] != standing:
                # this part started from another state than the part before ended in, or it
                # failed: the audit is done again in one process
                raise _PartFailed(f"seq {start}: {message[1] if message[0] == 'error' else 'another state'}")
            _, _, standing, part, ended = message
            report.findings.extend(part.findings)
            report.overrides.extend(part.overrides)
            report.steps += part.steps
            report.events = part.events
            if not report.notes:
                report.notes = part.notes
            if not ended:
                report.events = 0  # as one process leaves it when the audit stops early
                return
    finally:
        for child, ours in children:
            ours.close()
            if child.is_alive():
                child.terminate()
            child.join()


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
