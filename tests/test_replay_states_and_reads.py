"""Replaying a stored log: a line that can't be read or folded is named by its seq wherever the
reading starts, each step's states before and after are folded again exactly (up to the log's
last step), and undoing past the kept window reads the log once per window.

Each test here fails against a mutant of `projections/replay.py` that the rest of the suite let
through (docs/mutation.md).
"""

from __future__ import annotations

import importlib

import msgspec
import pytest

from combatlog.events import CorruptLog, Envelope, decode_line, seal
from combatlog.events import catalogue as ev
from combatlog.projections import Projection, replay
from combatlog.projections.replay import envelopes, states_between
from combatlog.replays import MemoryLog
from tests.builders import new_session

replay_module = importlib.import_module("combatlog.projections.replay")


def log_of(raw: list[bytes]) -> MemoryLog:
    log = MemoryLog()
    log._lines = list(raw)
    return log


def played() -> list[bytes]:
    s = new_session(seed=7, begin=True)
    s.auto()
    s.auto()
    return list(s.log.lines())


@pytest.mark.parametrize("start", [None, 1, 4, 9])
def test_a_line_that_cant_be_read_is_named_by_its_seq_wherever_the_reading_starts(start):
    raw = played()
    broken = list(raw)
    broken[9] = b'{"seq":10,' + raw[9][10:40]  # seq 10
    read = envelopes(log_of(broken)) if start is None else envelopes(log_of(broken), start)
    got = []
    with pytest.raises(CorruptLog) as error:
        for envelope in read:
            got.append(envelope.seq)
    assert error.value.seq == 10 and str(error.value).startswith("seq 10: can't decode the line (")
    assert got == list(range(start or 1, 10))


def test_a_line_that_cant_be_folded_is_a_corrupt_log_naming_its_seq():
    raw = played()
    i = max(n for n, line in enumerate(raw) if b'"DamageApplied"' in line)
    env = decode_line(raw[i])
    line, _ = seal(decode_line(raw[i - 1]).digest, env.seq, env.step, ev.DamageApplied(target="nobody", amount=1))
    with pytest.raises(CorruptLog) as error:
        replay(log_of([*raw[:i], line]))
    assert error.value.seq == i + 1 and str(error.value).startswith(f"seq {i + 1}: ")


def _steps(raw: list[bytes]) -> dict[int, list]:
    """{step: [state before, state after]}, folded one line at a time."""
    p, out = Projection(), {}
    for line in raw:
        envelope = decode_line(line)
        if envelope.step not in out:
            out[envelope.step] = [p.state, p.state]
        p.apply(envelope)
        out[envelope.step][1] = p.state
    return out


def test_the_states_around_each_step_are_folded_again_exactly_up_to_the_logs_end():
    raw = played()
    log, every = log_of(raw), _steps(raw)
    last = max(every)
    for low, high in [(1, 1), (2, 4), (3, last), (last, last), (1, last), (last - 1, last + 5)]:
        want = {step: every[step] for step in range(low, min(high, last) + 1)}
        assert states_between(log, low, high) == want, (low, high)
        for step in want:  # before and after differ where the step did something
            got = states_between(log, low, high)[step]
            assert (got[0] == got[1]) == (every[step][0] == every[step][1])
    assert states_between(log, last + 1, last + 3) == {}
    assert states_between(MemoryLog(), 1, 3) == {}


def test_an_undo_of_the_first_step_past_the_window_folds_as_within_it(monkeypatch):
    """A forged log may undo even the creation (the engine refuses to, the fold doesn't): how
    much history a replay keeps never changes what it folds."""
    s = new_session(begin=True)
    for n in range(6):
        s.do("note", text=f"note {n}")
    while s.projection.undo[-1] != 1:
        s.undo()
    last: Envelope = decode_line(list(s.log.lines())[-1])
    forged, previous = list(s.log.lines()), last.digest
    step = last.step + 1
    for n, event in enumerate([ev.CommandIssued(command=ev.Command(kind="undo"), events=2), ev.StepUndone(step=1)]):
        line, sealed = seal(previous, last.seq + 1 + n, step, event)
        previous = sealed.digest
        forged.append(line)
    whole = replay(log_of(forged))
    monkeypatch.setattr(Projection, "KEEP", 2)
    narrow = replay(log_of(forged))
    assert narrow.state == whole.state and narrow.state.rules is None
    assert msgspec.json.encode(narrow.snapshot()) == msgspec.json.encode(whole.snapshot())
