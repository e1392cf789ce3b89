"""A split audit's parts: how many processes, how their reports merge, how progress counts them
all, and how a part that fails, dies or starts elsewhere is caught.

`parallel.run` is driven here with stand-in range audits (the split calls whatever range
function it is given), so each part's progress, report and timing are the test's to choose.
Each test here fails against a mutant of `replays/parallel.py` that the rest of the suite let
through (docs/mutation.md).
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
import time

import pytest

from combatlog.projections import replay
from combatlog.replays import JsonlLog, MemoryLog, SqliteLog, parallel
from combatlog.replays.audit import Finding, Report, audit
from combatlog.replays.stores import copy_log
from tests.builders import lines, new_session, notes

needs_fork = pytest.mark.skipif(not parallel.can_fork(), reason="a split audit forks, which this platform can't")


def only_this_thread(monkeypatch):
    """As if the process ran no thread but the main one besides those it runs now (an earlier web
    test leaves its logging thread running for the whole session)."""
    real = threading.active_count
    before = real()
    monkeypatch.setattr(parallel.threading, "active_count", lambda: real() - before + 1)


def played() -> MemoryLog:
    s = new_session(seed=7, begin=True)
    for _ in range(3):
        s.auto()
    log = MemoryLog()
    log._lines = lines(s)
    return log


def wait_for(path, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} never came"
        time.sleep(0.005)


def folding(log, projection, stop) -> None:
    """What every stand-in range does to the projection: fold its lines, as an audit would."""
    replay(log, stop, projection)


# --- the platform and the number of processes --------------------------------------------


def test_a_linux_main_process_can_fork_its_parts():
    if not sys.platform.startswith("linux"):
        pytest.skip("fork is Linux's here")
    assert multiprocessing.current_process().daemon is False
    assert parallel.can_fork()


@needs_fork
def test_the_cores_are_those_this_process_may_run_on(monkeypatch):
    only_this_thread(monkeypatch)
    mine = os.sched_getaffinity(0)
    if len(mine) < 2:
        pytest.skip("one core: nothing to restrict")
    assert parallel.cores() == len(mine)
    log = notes(50_000, step_size=5)
    assert len(parallel.parts(log, None, 50_000)) == min(len(mine), 8)
    try:
        os.sched_setaffinity(0, {min(mine)})  # as `taskset -c 0` would start it
        assert parallel.cores() == 1
        assert parallel.parts(log, None, 50_000) == [(1, 50_000)]
    finally:
        os.sched_setaffinity(0, mine)


def test_without_affinity_the_cores_are_the_cpu_count_and_at_least_one(monkeypatch):
    monkeypatch.delattr(parallel.os, "sched_getaffinity", raising=False)  # not on Linux
    monkeypatch.setattr(parallel.os, "cpu_count", lambda: 4)
    assert parallel.cores() == 4
    monkeypatch.setattr(parallel.os, "cpu_count", lambda: None)  # unknown
    assert parallel.cores() == 1
    assert parallel.parts(notes(50_000, step_size=5), None, 50_000) == [(1, 50_000)]


@needs_fork
def test_without_affinity_a_long_log_is_split_one_part_a_cpu(monkeypatch):
    only_this_thread(monkeypatch)
    monkeypatch.delattr(parallel.os, "sched_getaffinity", raising=False)
    monkeypatch.setattr(parallel.os, "cpu_count", lambda: 3)
    assert len(parallel.parts(notes(50_000, step_size=5), None, 50_000)) == 3


@needs_fork
def test_a_long_log_is_not_split_while_another_thread_runs(monkeypatch):
    only_this_thread(monkeypatch)
    monkeypatch.setattr(parallel.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    log = notes(50_000, step_size=5)
    assert len(parallel.parts(log, None, 50_000)) == 4
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert parallel.parts(log, None, 50_000) == [(1, 50_000)]  # it could hold a lock a fork would keep
    finally:
        stop.set()
        other.join()


@needs_fork
def test_part_j_ends_where_the_first_j_parts_take_the_same_time():
    # every seq starts a step here, so each cut is exactly where the balance puts it
    last, workers, keep = 10_000, 4, 0.85
    parts = parallel.parts(notes(last, step_size=1), workers, last)
    ends = [round(last * (1 - keep**j) / (1 - keep**workers)) for j in range(1, workers)]
    assert [b for _, b in parts] == [*ends, last]


@needs_fork
def test_a_log_of_two_steps_splits_in_two():
    assert parallel.parts(notes(2, step_size=1), 2, 2) == [(1, 1), (2, 2)]


@needs_fork
@pytest.mark.parametrize("workers", [3, 5, 8])
def test_parts_are_never_empty_when_there_are_fewer_steps_than_workers(workers):
    log = notes(120, step_size=50)  # steps start at 1, 51 and 101
    parts = parallel.parts(log, workers, 120)
    assert all(a <= b for a, b in parts), parts
    assert [a for a, _ in parts] == sorted({a for a, _ in parts})
    assert {a for a, _ in parts} <= {1, 51, 101} and parts[-1][1] == 120


@needs_fork
def test_a_sqlite_log_is_split_and_each_part_reads_it_on_its_own_connection(tmp_path):
    log = SqliteLog(tmp_path / "a.db")
    copy_log(played(), log)
    try:
        last = log.head()[0]
        assert len(parallel.parts(log, 2, last)) == 2
        reader = parallel._reader_for(log)()
        try:
            assert reader is not log and list(reader.lines()) == list(log.lines())
        finally:
            reader.close()
    finally:
        log.close()


# --- run: merging, progress, failures ----------------------------------------------------


def run(log, parts, parent, child, progress=None) -> Report:
    """`parallel.run` with `parent` auditing the first part here and `child` each other part."""

    def ranges(log, report, progress, projection, start, stop):
        return (parent if start == 1 else child)(log, report, progress, projection, start, stop)

    report = Report()
    parallel.run(log, report, progress, parts, ranges)
    return report


@needs_fork
def test_the_parts_reports_merge_in_order_with_the_first_notes_given():
    log = played()
    n = log.head()[0]
    cuts = [(1, 10), (11, 20), (21, n)]

    def part(log, report, progress, projection, start, stop):
        folding(log, projection, stop)
        report.findings.append(Finding(start, "illegal", f"in {start}"))
        report.steps = start
        report.events = stop
        if start > 1:
            report.notes = [f"a note of part {start}"]
        return True

    report = run(log, cuts, part, part)
    assert [f.seq for f in report.findings] == [1, 11, 21]
    assert report.steps == 1 + 11 + 21 and report.events == n
    assert report.notes == ["a note of part 11"]  # the first part with notes, not overwritten


@needs_fork
def test_a_part_that_stops_early_leaves_the_events_as_one_process_would(tmp_path):
    log = played()
    n = log.head()[0]

    def part(log, report, progress, projection, start, stop):
        folding(log, projection, stop)
        report.events = stop
        return start == 1  # the second part stopped at something

    report = run(log, [(1, 10), (11, n)], part, part)
    assert report.events == 0


@needs_fork
def test_a_part_is_a_daemonic_process_that_never_splits_again():
    log = played()
    n = log.head()[0]

    def parent(log, report, progress, projection, start, stop):
        folding(log, projection, stop)
        return True

    def child(log, report, progress, projection, start, stop):
        report.notes = [f"{multiprocessing.current_process().daemon} {len(parallel.parts(log, 2, stop))}"]
        return True

    report = run(log, [(1, 10), (11, n)], parent, child)
    assert len(parallel.parts(log, 2, n)) == 2  # here it would split
    assert report.notes == ["True 1"]


@needs_fork
def test_progress_counts_every_part_as_it_goes_and_waits_for_nothing(tmp_path):
    log = played()
    n = log.head()[0]
    first_stop = 12
    seen: list[int] = []
    during: list[tuple[int, float]] = []

    def parent(log, report, progress, projection, start, stop):
        t = time.monotonic()
        progress(3)  # the second part hasn't counted anything yet
        during.append((seen[-1], time.monotonic() - t))
        (tmp_path / "go").touch()
        wait_for(tmp_path / "counted")
        progress(first_stop)  # the second part has counted 5 by now
        during.append((seen[-1], 0.0))
        folding(log, projection, stop)
        return True

    def child(log, report, progress, projection, start, stop):
        wait_for(tmp_path / "go")
        progress(start + 4)  # 5 events of this part
        (tmp_path / "counted").touch()
        folding(log, projection, stop)
        progress(stop)
        return True

    run(log, [(1, first_stop), (first_stop + 1, n)], parent, child, progress=seen.append)
    assert during[0][0] == 3 and during[0][1] < 0.5  # nothing of the other part, and no wait for it
    assert during[1][0] == first_stop + 5
    assert seen[-1] == n  # the whole log, once the second part is in
    assert len(seen) <= 6  # once per message from the part, not in a busy loop while waiting


@needs_fork
def test_progress_counts_the_other_parts_while_the_first_waits_for_them(tmp_path):
    log = played()
    n = log.head()[0]
    first_stop = 12
    seen: list[int] = []

    def parent(log, report, progress, projection, start, stop):
        folding(log, projection, stop)
        progress(stop)
        (tmp_path / "done").touch()
        return True

    def child(log, report, progress, projection, start, stop):
        wait_for(tmp_path / "done")
        progress(start + 1)
        time.sleep(0.05)
        folding(log, projection, stop)
        progress(stop)
        return True

    run(log, [(1, first_stop), (first_stop + 1, n)], parent, child, progress=seen.append)
    assert first_stop + 2 in seen and seen[-1] == n
    assert seen == sorted(seen)
    assert len(seen) <= 5  # once per message from the part: waiting blocks, it doesn't spin


@needs_fork
def test_a_part_that_fails_names_its_first_seq_and_the_error():
    log = played()
    n = log.head()[0]

    def parent(log, report, progress, projection, start, stop):
        folding(log, projection, stop)
        return True

    def child(log, report, progress, projection, start, stop):
        raise RuntimeError("the disk went away")

    with pytest.raises(parallel.PartFailed, match=r"^seq 11: RuntimeError: the disk went away$"):
        run(log, [(1, 10), (11, n)], parent, child)


@needs_fork
def test_a_part_that_dies_without_a_word_fails_the_split():
    log = played()
    n = log.head()[0]

    def parent(log, report, progress, projection, start, stop):
        folding(log, projection, stop)
        return True

    def child(log, report, progress, projection, start, stop):
        os._exit(3)

    with pytest.raises(parallel.PartFailed, match=r"^seq 11: no report from the process \(EOFError\)$"):
        run(log, [(1, 10), (11, n)], parent, child)


@needs_fork
def test_a_part_that_started_from_another_state_than_the_first_ended_in_fails_the_split():
    log = played()
    n = log.head()[0]

    def parent(log, report, progress, projection, start, stop):
        folding(log, projection, stop - 1)  # one event short of where the second part starts
        return True

    def child(log, report, progress, projection, start, stop):
        folding(log, projection, stop)
        return True

    with pytest.raises(parallel.PartFailed, match=r"^seq 11: another state$"):
        run(log, [(1, 10), (11, n)], parent, child)


@needs_fork
def test_when_no_process_can_be_started_the_audit_is_done_in_one(monkeypatch):
    log = played()

    def refuse(self):
        raise OSError("Resource temporarily unavailable")

    monkeypatch.setattr(multiprocessing.context.ForkProcess, "start", refuse)
    with pytest.raises(parallel.PartFailed, match="can't start a process: Resource temporarily unavailable"):
        run(log, parallel.parts(log, 2, log.head()[0]), None, None)
    assert audit(log, workers=2) == audit(log, workers=1)


# --- a part's own process, run here ------------------------------------------------------


def test_a_part_whose_parent_stopped_listening_ends_quietly_and_closes_what_it_opened(monkeypatch):
    monkeypatch.setattr(parallel.signal, "signal", lambda *a: None)  # _part's SIGINT is its process's
    log = played()
    n = log.head()[0]
    closed = []

    class Store:
        def __init__(self, name):
            self.name = name

        def lines(self, start=1, stop=None):
            return log.lines(start, stop)

        def head(self):
            return log.head()

        def reopened(self):
            return Store("reopened")

        def close(self):
            closed.append(self.name)

    def part(log, report, progress, projection, start, stop):
        folding(log, projection, stop)
        return True

    ours, theirs = multiprocessing.Pipe(duplex=False)
    ours.close()  # the parent is gone
    parallel._part(theirs, [], Store("given"), 11, n, False, part, Report)
    assert closed == ["reopened"]  # the store it opened, not the one it was handed


def test_a_part_never_closes_a_log_it_reads_as_it_is(tmp_path, monkeypatch):
    monkeypatch.setattr(parallel.signal, "signal", lambda *a: None)
    log = JsonlLog(tmp_path / "a.jsonl")
    copy_log(played(), log)
    n = log.head()[0]
    closed = []
    log.close = lambda: closed.append(True)  # type: ignore[method-assign]

    def part(log, report, progress, projection, start, stop):
        folding(log, projection, stop)
        return True

    ours, theirs = multiprocessing.Pipe(duplex=False)
    parallel._part(theirs, [], log, 11, n, False, part, Report)
    message = ours.recv()
    assert message[0] == "done" and message[-1] is True
    assert closed == []


@needs_fork
def test_a_split_that_stops_with_its_first_part_ends_the_other_processes():
    log = played()
    n = log.head()[0]

    def parent(log, report, progress, projection, start, stop):
        return False  # stopped at something: the other parts are of no use

    def child(log, report, progress, projection, start, stop):
        time.sleep(30)
        return True

    t = time.monotonic()
    run(log, [(1, 10), (11, n)], parent, child)
    assert time.monotonic() - t < 10
    assert multiprocessing.active_children() == []
