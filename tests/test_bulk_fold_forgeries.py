"""Forged and odd logs fold in bulk exactly as one line at a time: a seq or a step that goes back
inside a run of inline folds, a step opened by something other than a command, a log that
doesn't begin with its creation, a second creation, and an older event shape msgspec alone
can't read.

The bulk fold folds most events inline, through tables it learns as it goes; each case here
is one the tables must not take, so it reaches `Projection.apply` and its checks. Each test
fails against a mutant of `projections/bulk.py` that the rest of the suite let through
(docs/mutation.md).
"""

from __future__ import annotations

import msgspec
import pytest

from combatlog.events import GENESIS, CorruptLog, decode_line, line_decoder, seal
from combatlog.events import catalogue as ev
from combatlog.projections import FoldError, Projection
from combatlog.projections.bulk import fold_lines
from tests.builders import lines, new_session, resealed


def outcome(raw: list[bytes], bulk: bool) -> tuple:
    p = Projection()
    error = None
    try:
        if bulk:
            fold_lines(p, raw, line_decoder())
        else:
            for line in raw:
                p.apply(decode_line(line))
    except (CorruptLog, FoldError) as exc:
        error = (type(exc).__name__, str(exc), exc.seq)
    return error, p.state, p.seq, p.step, p.digest, list(p.undo), list(p.redo)


def alike(raw: list[bytes]) -> tuple:
    """Fold `raw` in bulk (twice: the second time with every table learned) and one line at a time."""
    first, again, alone = outcome(raw, True), outcome(raw, True), outcome(raw, False)
    assert first == alone and again == alone
    return alone


def played(begin: bool = True) -> list[bytes]:
    s = new_session(seed=7, begin=begin)
    if begin:
        s.auto()
        s.auto()
    raw = lines(s)
    outcome(raw, True)  # the tables have learned every type in it
    return raw


def damage_at(raw: list[bytes]) -> int:
    return max(i for i, line in enumerate(raw) if b'"DamageApplied"' in line)


@pytest.mark.parametrize("back", [1, 2])
def test_a_seq_that_goes_back_inside_a_step_is_refused_in_bulk_too(back):
    raw = played()
    i = damage_at(raw)
    forged = resealed(raw, i, lambda e: msgspec.structs.replace(e, seq=e.seq - back))
    error, _, seq, *_ = alike(forged)
    assert error[0] == "FoldError" and f"expected seq {i + 1}, found {i + 1 - back}" in error[1]
    assert seq == i


def test_a_command_that_goes_back_a_step_is_refused_in_bulk_too():
    raw = played()
    j = max(
        i
        for i, line in enumerate(raw)
        if b'"CommandIssued"' in line and b'"undo"' not in line and decode_line(raw[i - 1]).step >= 3
    )
    current = decode_line(raw[j - 1]).step
    forged = resealed(raw, j, lambda e: msgspec.structs.replace(e, step=current - 1))
    error, _, seq, step, *_ = alike(forged)
    assert error[0] == "FoldError" and f"step {current - 1} comes after step {current}" in error[1]
    assert (seq, step) == (j, current)


def test_a_step_opened_by_an_event_that_is_not_a_command_folds_in_bulk_as_alone():
    raw = played()
    i = damage_at(raw)
    forged = resealed(raw, i, lambda e: msgspec.structs.replace(e, step=e.step + 1))
    alike(forged)
    alike(forged[: i + 1])  # the step it opened, by itself


def test_a_log_that_does_not_begin_with_its_creation_is_refused_in_bulk_too():
    raw = played(begin=False)
    adds = [n for n, line in enumerate(raw) if b'"kind":"add"' in line or b'"CombatantAdded"' in line][:2]
    forged, previous = [], GENESIS
    for seq, n in enumerate(adds, start=1):  # the first add's step, as the log's first lines
        env = decode_line(raw[n])
        line, sealed = seal(previous, seq, 1, env.event)
        previous = sealed.digest
        forged.append(line)
    error, state, seq, *_ = alike(forged)
    assert error[:1] == ("FoldError",) and "CombatantAdded before the encounter was created" in error[1]
    assert seq == 1 and state.combatants == {}


def test_a_second_creation_is_refused_in_bulk_too():
    raw = played(begin=False)
    create = [line for line in raw[:3] if b'"EncounterCreated"' in line or b'"kind":"create"' in line]
    assert len(create) == 2
    last = decode_line(raw[-1])
    forged, previous = list(raw), last.digest
    for n, line in enumerate(create, start=1):
        line, sealed = seal(previous, last.seq + n, last.step + 1, decode_line(line).event)
        previous = sealed.digest
        forged.append(line)
    error, state, seq, *_ = alike(forged)
    assert error[0] == "FoldError" and "the encounter was already created" in error[1]
    assert seq == len(raw) + 1 and len(state.combatants) == 4


class Toppled(ev.Event):
    """Test-only, at version 2: a fall in feet; version 1 stored `squares` of 5 ft, a field
    the current shape doesn't have, so msgspec's own decoder can't read a version-1 line."""

    version = 2
    target: str
    distance: int


def _register_toppled() -> None:
    from combatlog.events import register_event, register_upcaster
    from combatlog.projections.fold import put_extra, register_fold
    from combatlog.projections.phases import LIVE, allow

    if "Toppled" in {t.__struct_config__.tag for t in ev.event_types()}:
        return
    register_event(Toppled)
    register_upcaster(
        "Toppled", 1, lambda d: {**{k: v for k, v in d.items() if k != "squares"}, "distance": d["squares"] * 5}
    )
    allow("Toppled", LIVE)
    register_fold(Toppled)(lambda state, e: put_extra(state, "toppled", e.target, e.distance))


def test_a_line_of_an_older_shape_msgspec_cant_read_is_upcast_in_bulk():
    _register_toppled()
    raw = played()
    last = decode_line(raw[-1])
    out, previous = list(raw), last.digest
    items = [
        ev.CommandIssued(command=ev.Command(kind="note"), events=2),
        Toppled(target="g1", distance=2),
        ev.CommandIssued(command=ev.Command(kind="note"), events=2),
        Toppled(target="g2", distance=3),
    ]
    for n, event in enumerate(items):
        line, sealed = seal(previous, last.seq + n + 1, last.step + 1 + n // 2, event)
        previous = sealed.digest
        if type(event) is Toppled:  # stored as version 1 wrote it
            line = line.replace(b'"v":2', b'"v":1').replace(b'"distance":', b'"squares":')
        out.append(line)
    assert sum(b'"squares"' in line for line in out) == 2
    error, state, seq, *_ = alike(out)
    assert error is None and seq == len(out)
    assert state.extra["toppled"] == {"g1": 10, "g2": 15}
