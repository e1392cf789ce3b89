"""The replay cursor: one event at a time forward and back by default, clamped at the ends, the
exact projection at every seq whatever the snapshot spacing, and a log that can't be folded
refused as corrupt at its seq.

Each test here fails against a mutant of `replays/cursor.py` that the rest of the suite let
through (docs/mutation.md).
"""

from __future__ import annotations

import pytest

from combatlog.events import CorruptLog, decode_line, seal
from combatlog.events import catalogue as ev
from combatlog.projections import replay
from combatlog.replays import MemoryLog
from combatlog.replays.cursor import Cursor, diff_states
from tests.builders import new_session


def played() -> MemoryLog:
    s = new_session(seed=5, begin=True)
    for n in range(4):
        s.auto()
        if n == 1:
            s.undo()
            s.redo()
    return s.log


def test_forward_and_back_move_one_event_by_default_and_stop_at_the_ends():
    cursor = Cursor(played(), every=4)
    assert cursor.position == cursor.last
    assert cursor.forward().seq == cursor.last  # already at the end
    assert cursor.back().seq == cursor.last - 1 and cursor.position == cursor.last - 1
    assert cursor.back().seq == cursor.last - 2
    assert cursor.forward().seq == cursor.last - 1
    cursor.seek(1)
    assert cursor.back().seq == 0 and cursor.back().seq == 0
    assert cursor.forward().seq == 1


@pytest.mark.parametrize("every", [1, 3, 256])
def test_every_seq_seeks_to_the_replays_projection_whatever_the_spacing(every):
    log = played()
    cursor = Cursor(log, every=every)
    for seq in range(cursor.last + 1):
        want, got = replay(log, seq), cursor.at(seq)
        assert (got.state, got.seq, got.step, got.digest, got.undo, got.redo) == (
            want.state,
            want.seq,
            want.step,
            want.digest,
            want.undo,
            want.redo,
        ), seq
    assert cursor.state() == cursor.final.state and cursor.diff(cursor.last, cursor.last) == []
    with pytest.raises(ValueError, match=rf"seq {cursor.last + 1} is outside the log \(0 to {cursor.last}\)"):
        cursor.at(cursor.last + 1)
    with pytest.raises(ValueError, match="seq -1 is outside the log"):
        cursor.at(-1)


def test_a_log_that_cant_be_folded_is_refused_as_corrupt_at_its_seq():
    raw = list(played().lines())
    i = max(n for n, line in enumerate(raw) if b'"DamageApplied"' in line)
    env = decode_line(raw[i])
    line, _ = seal(decode_line(raw[i - 1]).digest, env.seq, env.step, ev.DamageApplied(target="nobody", amount=1))
    log = MemoryLog()
    log._lines = [*raw[:i], line]
    with pytest.raises(CorruptLog) as error:
        Cursor(log, every=4)
    assert error.value.seq == i + 1


def test_a_diff_names_each_changed_field_by_its_path():
    cursor = Cursor(played(), every=4)
    a, b = cursor.state(20), cursor.state(cursor.last)
    lines = diff_states(a, b)
    assert lines and all(": " in line and " -> " in line and not line.startswith(".") for line in lines)
    assert any(line.startswith("combatants.ayla.damage: ") for line in lines)  # a nested field: its path
    assert any(line.startswith("round: ") for line in lines)  # a top-level one: its name
    assert len(diff_states(b, a)) == len(lines) and diff_states(b, a) != lines
