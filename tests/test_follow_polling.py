"""Following a file log: the poll's default and its bounds, waits that never spin, a log replaced
by another of the same length, and envelopes checked against the chain from the first line
followed, wherever the following starts.

Each test here fails against a mutant of `replays/follow.py` that the rest of the suite let
through (docs/mutation.md).
"""

from __future__ import annotations

import importlib

import pytest

from combatlog.events import CorruptLog, decode_line
from combatlog.replays import MemoryLog, open_log
from combatlog.replays.follow import follow_envelopes, follow_lines
from tests.builders import fight, lines

follow_module = importlib.import_module("combatlog.replays.follow")


class Stop(Exception):
    pass


def memory_fight() -> MemoryLog:
    s = fight(MemoryLog())
    s.do("note", text="the last word")
    return s.log


@pytest.mark.parametrize("poll", [0, -1, -0.5])
def test_a_poll_that_isnt_a_positive_number_of_seconds_is_refused(poll):
    with pytest.raises(ValueError, match="poll must be a positive number of seconds"):
        next(follow_lines(memory_fight(), 0, poll=poll))


@pytest.mark.parametrize("follow", [follow_lines, follow_envelopes])
def test_without_a_timeout_a_file_is_looked_at_again_every_half_second_by_default(monkeypatch, follow):
    waits = []

    def sleep(seconds):
        waits.append(seconds)
        raise Stop

    monkeypatch.setattr(follow_module.time, "sleep", sleep)
    log = memory_fight()
    got = []
    with pytest.raises(Stop):
        for item in follow(log):
            got.append(item)
    assert len(got) == log.head()[0]  # from the first line by default
    assert waits == [0.5]


def test_a_follower_with_a_timeout_waits_between_looks_instead_of_spinning(monkeypatch):
    real = follow_module.time.sleep
    waits = []
    monkeypatch.setattr(follow_module.time, "sleep", lambda s: waits.append(s) or real(s))
    log = memory_fight()
    assert len(list(follow_lines(log, 0, poll=0.05, timeout=0.3))) == log.head()[0]
    assert 1 <= len(waits) <= 12 and all(w > 0 for w in waits[:-1])


def test_a_log_replaced_by_another_of_the_same_length_under_its_follower_is_reported(tmp_path):
    path = tmp_path / "f.jsonl"
    s = fight(open_log(path))
    s.do("note", text="the first ending")
    raw = path.read_bytes()
    n = s.log.head()[0]
    s.log.close()
    following = follow_lines(open_log(path), 0, poll=0.01, timeout=1)
    assert len([next(following) for _ in range(n)]) == n
    path.write_bytes(raw.replace(b"the first ending", b"another ending!!"))  # the same lines but the last
    with pytest.raises(
        CorruptLog, match=f"seq {n} was followed, but the log now ends at seq {n} with other lines"
    ) as e:
        next(following)
    assert e.value.seq == n


def test_a_log_cut_back_under_its_follower_names_the_first_seq_it_lost():
    log = memory_fight()
    n = log.head()[0]
    following = follow_lines(log, 0, poll=0.01, timeout=1)
    assert len([next(following) for _ in range(n)]) == n
    del log._lines[n - 3 :]  # cut back by three lines
    with pytest.raises(CorruptLog, match=f"seq {n} was followed, but the log now ends at seq {n - 3}") as e:
        next(following)
    assert e.value.seq == n - 2


def test_a_short_timeout_is_never_overslept_by_a_longer_poll(monkeypatch):
    real = follow_module.time.sleep
    waits = []
    monkeypatch.setattr(follow_module.time, "sleep", lambda s: waits.append(s) or real(s))
    log = memory_fight()
    assert len(list(follow_lines(log, 0, poll=5, timeout=0.05))) == log.head()[0]
    assert waits and all(0 < w <= 0.05 for w in waits)


@pytest.mark.parametrize("after", [1, 5])
def test_envelopes_followed_from_a_later_seq_are_checked_against_the_line_at_it(after):
    log = memory_fight()
    got = list(follow_envelopes(log, after, poll=0.01, timeout=0.02))
    assert [e.seq for e in got] == list(range(after + 1, log.head()[0] + 1))
    assert got[0].digest == decode_line(list(log.lines())[after]).digest


def test_a_line_that_doesnt_follow_the_one_before_where_the_following_starts_is_reported():
    log = memory_fight()
    log._lines[5] = log._lines[5].replace(b'"seq":6', b'"seq":6 ')  # seq 6, edited
    with pytest.raises(CorruptLog, match="seq 6: the line doesn't follow the one before it"):
        list(follow_envelopes(log, 5, poll=0.01, timeout=0.02))


def test_the_first_line_of_a_log_is_checked_against_the_chains_start():
    s = fight(MemoryLog())
    raw = lines(s)
    forged = MemoryLog()
    forged._lines = [raw[0].replace(b'"seq":1', b'"seq":1 '), *raw[1:]]  # its digest no longer its own
    with pytest.raises(CorruptLog, match="seq 1: the line doesn't follow the one before it"):
        next(follow_envelopes(forged, 0, poll=0.01, timeout=0.02))


@pytest.mark.parametrize("follow", [follow_lines, follow_envelopes])
def test_by_default_every_line_is_followed_once_from_the_first(follow):
    log = memory_fight()
    got = list(follow(log, poll=0.01, timeout=0.05))
    assert len(got) == log.head()[0]
    if follow is follow_envelopes:
        assert [e.seq for e in got] == list(range(1, log.head()[0] + 1))
    else:
        assert got == list(log.lines())


def test_a_wait_computed_as_the_timeout_passes_is_nothing_never_negative(monkeypatch):
    from types import SimpleNamespace

    now = [0.0]

    def monotonic():  # a clock that moves on 0.06 s at each reading
        now[0] += 0.06
        return now[0]

    waits = []
    monkeypatch.setattr(follow_module, "time", SimpleNamespace(monotonic=monotonic, sleep=waits.append))
    log = memory_fight()
    assert len(list(follow_lines(log, 0, poll=1, timeout=0.1))) == log.head()[0]
    assert waits and all(w >= 0 for w in waits)


def test_a_followed_line_that_cant_be_decoded_is_named_by_its_seq():
    log = memory_fight()
    log._lines[6] = b'{"seq":7,' + log._lines[6][9:30]  # seq 7, cut short
    got = []
    with pytest.raises(CorruptLog, match=r"^seq 7: can't decode the line \("):
        for envelope in follow_envelopes(log, 0, poll=0.01, timeout=0.02):
            got.append(envelope.seq)
    assert got == [1, 2, 3, 4, 5, 6]
