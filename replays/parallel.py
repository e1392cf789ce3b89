"""A long audit split across forked processes: where to cut, the parts, and merging their reports.

Each part after the first runs in a forked process: it replays the log up to its first seq
(a replay costs about a seventh of an audit), then audits its range with the audit's own
range function, and hands back its report and its projection as canonical bytes. The cuts
fall where steps start, placed so the parts take about the same time. A part that fails,
can't be started, or didn't start from the projection the part before it ended in raises
PartFailed, and the caller audits the whole log again in one process.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

import msgspec

from combatlog.events import EventLog
from combatlog.events.envelope import step_of
from combatlog.projections import Projection
from combatlog.projections.fold import paused_gc
from combatlog.projections.replay import replay
from combatlog.projections.snapshot import dump_snapshot
from combatlog.replays.stores import JsonlLog, MemoryLog

PARALLEL_FROM = 50_000  # events: below this, starting processes costs more than it saves
_REPLAY_VS_AUDIT = 0.15
_MAX_WORKERS = 8

# audit_range(log, report, progress, projection, start, stop) -> True if nothing stopped it
AuditRange = Callable[[EventLog, Any, "Callable[[int], None] | None", Projection, int, "int | None"], bool]


class PartFailed(Exception):
    """A part of a split audit failed, or didn't start where the part before it ended."""


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def parts(log: EventLog, workers: int | None, last: int) -> list[tuple[int, int]]:
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
    if workers < 2 or not can_fork() or _reader_for(log) is None:
        return whole
    # Part j ends where the first j parts take the same time each: the first audits its
    # range, every other replays up to its range first (the cut then moves to a step's start).
    keep = 1 - _REPLAY_VS_AUDIT
    cuts: list[int] = []
    for j in range(1, workers):
        seq = _step_start(log, round(last * (1 - keep**j) / (1 - keep**workers)) + 1, last)
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


def can_fork() -> bool:
    """Linux, with fork, from a process allowed children (a daemonic pool worker isn't)."""
    return (
        sys.platform.startswith("linux")
        and "fork" in multiprocessing.get_all_start_methods()
        and not multiprocessing.current_process().daemon
    )


def _reader_for(log: EventLog) -> Callable[[], EventLog] | None:
    """How a forked process reads `log`: a memory or JSON-lines log (exactly those classes) holds no
    connection and reads as it is; another store is opened again if it has `reopened` (SQLite,
    PostgreSQL); None for a store of unknown kind, audited in this process."""
    if type(log) in (MemoryLog, JsonlLog):
        return lambda: log
    reopened = getattr(log, "reopened", None)
    return reopened if callable(reopened) else None


def _part(
    conn: Any,
    inherited: list[Any],
    log: EventLog,
    start: int,
    stop: int,
    report_progress: bool,
    audit_range: AuditRange,
    report_type: type,
) -> None:
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
            report = report_type()
            progress = (lambda seq: conn.send(("progress", seq - start + 1))) if report_progress else None
            ended = audit_range(reader, report, progress, projection, start, stop)
        message: tuple[Any, ...] = ("done", first, dump_snapshot(projection), report, ended)
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


def run(
    log: EventLog,
    report: Any,
    progress: Callable[[int], None] | None,
    parts: list[tuple[int, int]],
    audit_range: AuditRange,
) -> None:
    """Audit part 1 here and each other part in a forked process; merge their reports in order.

    Raises PartFailed if a process can't be started, fails, or doesn't start from the
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
                child = context.Process(
                    target=_part,
                    args=(theirs, earlier, log, start, stop, progress is not None, audit_range, type(report)),
                    daemon=True,
                )
                try:
                    child.start()
                finally:
                    theirs.close()
                children.append((child, ours))
        except Exception as exc:
            raise PartFailed(f"can't start a process: {exc}") from None
        done = {ours: 0 for _, ours in children}
        outcome: dict[Any, tuple[Any, ...]] = {}

        def drain(block: bool) -> None:
            waiting = [c for c in done if c not in outcome]
            for ready in multiprocessing.connection.wait(waiting, timeout=None if block else 0):
                conn: Any = ready  # one of our pipes' ends
                try:
                    message: tuple[Any, ...] = conn.recv()
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
        if not audit_range(log, report, None if progress is None else ours_progress, projection, 1, first_stop):
            return  # stopped as one process would: the later parts are of no use (and are ended below)
        standing = dump_snapshot(projection)
        for (_child, ours), (start, _stop) in zip(children, parts[1:]):
            while ours not in outcome:
                drain(block=True)
                if progress is not None:
                    progress(first_stop + sum(done.values()))
            message = outcome[ours]
            if message[0] != "done" or message[1] != standing:
                # this part started from another state than the part before ended in, or it
                # failed: the audit is done again in one process
                raise PartFailed(f"seq {start}: {message[1] if message[0] == 'error' else 'another state'}")
            _, _, standing, part, ended = message
            report.findings.extend(part.findings)
            report.overrides.extend(part.overrides)
            report.entered.extend(part.entered)
            report.amended.extend(part.amended)
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
