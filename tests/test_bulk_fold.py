"""The bulk fold of stored lines fails where folding them one by one fails, with the same words
and the same seq, and leaves the projection where that fold would.

Each test here fails against a mutant of `projections/bulk.py` that the rest of the suite let
through (docs/mutation.md).
"""

from __future__ import annotations

import msgspec
import pytest

from combatlog.events import CorruptLog, DamageApplied, decode_line, line_decoder
from combatlog.projections import FoldError, Projection
from combatlog.projections.bulk import fold_lines
from tests.builders import lines, new_session, resealed


def played() -> list[bytes]:
    s = new_session(seed=7, begin=True)
    s.auto()
    s.auto()
    return lines(s)


def plain(line: bytes):
    """A decoder without msgspec's own beside it: the bulk fold calls it for every line."""
    return decode_line(line)


def outcome(raw: list[bytes], bulk: bool, decode=None) -> tuple:
    p = Projection()
    error = None
    try:
        if bulk:
            fold_lines(p, raw, decode or line_decoder())
        else:
            for line in raw:
                p.apply(decode_line(line))
    except (CorruptLog, FoldError) as exc:
        error = (type(exc).__name__, str(exc), exc.seq)
    return error, p.state, p.seq, p.step, p.digest, list(p.undo)


def to_nobody(env):
    return msgspec.structs.replace(env, event=DamageApplied(target="nobody", amount=1))


def damage_at(raw: list[bytes]) -> int:
    """The last damage of the fight: its type is folded inline by then (the bulk fold's fast path)."""
    return max(i for i, line in enumerate(raw) if b'"DamageApplied"' in line)


@pytest.mark.parametrize("decode", [None, plain], ids=["msgspec's decoder first", "the decoder alone"])
def test_an_undecodable_line_is_corrupt_at_its_seq_and_the_fold_stops_just_before_it(decode):
    raw = played()
    i = damage_at(raw)
    broken = raw[:i] + [b'{"seq":' + raw[i][7:30]] + raw[i + 1 :]
    error, state, seq, *_ = outcome(broken, bulk=True, decode=decode)
    assert error[0] == "CorruptLog" and error[2] == i + 1
    assert error[1].startswith(f"seq {i + 1}: can't decode the line (")
    assert seq == i and state == outcome(raw[:i], bulk=False)[1]


def test_a_line_of_an_old_shape_that_wont_upcast_is_corrupt_at_its_seq():
    raw = played()
    i = damage_at(raw)
    old = raw[i].replace(b'"v":1,', b'"v":0,')  # a version no upcaster starts from
    error, _, seq, *_ = outcome(raw[:i] + [old], bulk=True)
    assert error[0] == "CorruptLog" and error[2] == i + 1 and error[1].startswith(f"seq {i + 1}: can't decode")
    assert seq == i


@pytest.mark.parametrize(
    "break_it",
    [
        pytest.param(lambda raw, i: raw[:i] + raw[i + 1 :], id="a line left out"),
        pytest.param(
            lambda raw, i: resealed(raw, i, to_nobody),
            id="damage to someone who isn't there",
        ),
        pytest.param(
            lambda raw, i: resealed(raw, i, lambda e: msgspec.structs.replace(e, step=e.step - 1)),
            id="a step that goes back",
        ),
    ],
)
def test_a_broken_log_folds_in_bulk_as_it_folds_one_line_at_a_time(break_it):
    raw = played()
    broken = break_it(raw, damage_at(raw))
    bulk, alone = outcome(broken, bulk=True), outcome(broken, bulk=False)
    assert bulk[0] is not None and bulk[0][0] == "FoldError"
    assert bulk == alone


def test_a_whole_log_folds_in_bulk_as_it_folds_one_line_at_a_time_with_either_decoder():
    raw = played()
    alone = outcome(raw, bulk=False)
    assert alone[0] is None
    assert outcome(raw, bulk=True) == alone == outcome(raw, bulk=True, decode=plain)
