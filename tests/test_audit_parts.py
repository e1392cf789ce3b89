"""Where a long audit is cut into parts: whole steps, every seq once, and only when it pays.

Each test here fails against a mutant of `replays/parallel.py` that the rest of the suite let
through (docs/mutation.md).
"""

from __future__ import annotations

import threading

import pytest

from combatlog.events import decode_line
from combatlog.replays import MemoryLog, parallel
from tests.builders import notes

needs_fork = pytest.mark.skipif(not parallel.can_fork(), reason="a split audit forks, which this platform can't")


def only_this_thread(monkeypatch):
    """As if the process ran no thread but the main one besides those it runs now (an earlier web
    test leaves its logging thread running for the whole session)."""
    real = threading.active_count
    before = real()
    monkeypatch.setattr(parallel.threading, "active_count", lambda: real() - before + 1)


def starts_a_step(log: MemoryLog, seq: int) -> bool:
    lines = list(log.lines(seq - 1, seq))
    return decode_line(lines[0]).step != decode_line(lines[1]).step


@needs_fork
@pytest.mark.parametrize("workers", [2, 3, 8])
def test_the_parts_cover_every_seq_once_and_each_begins_a_step(workers):
    log = notes(1000, step_size=7)
    parts = parallel.parts(log, workers, 1000)
    assert len(parts) == workers
    assert parts[0][0] == 1 and parts[-1][1] == 1000
    assert all(a[1] + 1 == b[0] for a, b in zip(parts, parts[1:]))
    assert all(starts_a_step(log, start) for start, _ in parts[1:])


@needs_fork
def test_the_first_part_is_the_longest_as_the_others_replay_up_to_theirs_first():
    parts = parallel.parts(notes(10_000, step_size=1), 4, 10_000)
    sizes = [b - a + 1 for a, b in parts]
    assert sizes == sorted(sizes, reverse=True) and sizes[0] > sizes[-1]
    assert abs(sum(sizes[:1]) - 10_000 * 0.15 / (1 - 0.85**4)) < 2  # part 1 ends where its time equals each other's


def test_a_cut_falls_at_the_first_step_start_at_or_after_the_seq_asked_and_never_outside_the_log():
    log = notes(40, step_size=10)  # steps start at 1, 11, 21, 31
    assert parallel._step_start(log, 11, 40) == 11
    assert parallel._step_start(log, 12, 40) == 21
    assert parallel._step_start(log, 2, 40) == 11
    assert parallel._step_start(log, 31, 31) == 31
    assert parallel._step_start(log, 1, 40) is None
    assert parallel._step_start(log, 32, 40) is None
    assert parallel._step_start(log, 41, 40) is None


@needs_fork
def test_with_no_workers_given_a_log_is_split_from_50000_events_on_a_machine_of_several_cores(monkeypatch):
    only_this_thread(monkeypatch)
    monkeypatch.setattr(parallel.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    log = notes(50_000, step_size=5)
    assert parallel.parts(log, None, 49_999) == [(1, 49_999)]
    assert len(parallel.parts(log, None, 50_000)) == 4
    monkeypatch.setattr(parallel.os, "sched_getaffinity", lambda pid: set(range(16)), raising=False)
    assert len(parallel.parts(log, None, 50_000)) == 8  # at most eight
