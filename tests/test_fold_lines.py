"""The bulk fold of a stored log (`Projection.fold_lines`) is the event-by-event fold, edge cases included.

The property test in test_properties.py covers played logs with lines dropped, doubled,
swapped or garbled; these are the hand-made logs that reach the bulk fold's general path:
errors raised after a step opened, undo and redo inside the step they undo, a handler
setting a phase the table doesn't, and a history larger than the window.
"""

from __future__ import annotations

import msgspec
import pytest

from combatlog.events import Command, line_decoder
from combatlog.events import catalogue as ev
from combatlog.events.envelope import seal
from combatlog.projections import FoldError, Projection
from combatlog.projections.bulk import fold_lines
from combatlog.projections.fold import register_fold
from tests.builders import new_session


def _played():
    s = new_session(seed=3, begin=True)
    return s, list(s.log.lines())


def _extend(raw: list[bytes], items) -> list[bytes]:
    """`raw` and then `items` ((step, event) pairs), sealed onto its digest chain."""
    last = line_decoder()(raw[-1])
    previous, seq, out = last.digest, last.seq, list(raw)
    for step, event in items:
        seq += 1
        line, envelope = seal(previous, seq, step, event)
        previous = envelope.digest
        out.append(line)
    return out


def _outcome(p: Projection) -> tuple:
    return (
        p.state,
        p.seq,
        p.step,
        p.digest,
        list(p.undo),
        list(p.redo),
        {k: tuple(v) for k, v in p.history.items()},
        list(p._kept),
        None if p._open is None else tuple(p._open),
    )


def _both(raw: list[bytes], then: list[bytes] = (), make=Projection) -> None:
    """Fold `raw` in bulk and one by one (each may fail), then `then` one by one: the two must agree."""
    decode = line_decoder()
    results = []
    for bulk in (True, False):
        p = make()
        error = None
        try:
            if bulk:
                fold_lines(p, raw, decode)
            else:
                for line in raw:
                    p.apply(decode(line))
        except Exception as exc:
            error = (type(exc).__name__, str(exc))
        for line in then:
            p.apply(decode(line))
        results.append((error, _outcome(p)))
    assert results[0] == results[1]


def _issued(kind: str, events: int) -> ev.CommandIssued:
    return ev.CommandIssued(command=Command(kind=kind), events=events)


def test_an_error_after_a_step_opened_leaves_the_same_projection_and_folding_goes_on_alike():
    s, raw = _played()
    step = s.projection.step + 1
    bad = _extend(raw, [(step, ev.SurpriseDetermined(surprised=("g1",)))])  # opens a step, illegal now
    _both(bad)
    go_on = _extend(raw, [(step, ev.Note(text="x")), (step, ev.DamageApplied(target="g1", amount=3))])
    _both(bad, then=go_on[len(raw) :])


def test_an_undo_and_a_redo_inside_the_step_they_undo_fold_alike():
    s, raw = _played()
    step = s.projection.step + 1
    undone = [
        (step, _issued("note", 3)),
        (step, ev.DamageApplied(target="g1", amount=3)),
        (step, ev.StepUndone(step=step)),
    ]
    _both(_extend(raw, undone))
    _both(_extend(raw, undone + [(step, ev.StepRedone(step=step))]))
    _both(_extend(raw, undone + [(step, ev.Note(text="after the undo"))]))
    _both(_extend(raw, undone + [(step + 1, _issued("note", 2)), (step + 1, ev.Note(text="next"))]))


def test_the_table_sets_the_phase_whatever_a_handler_returns():
    from combatlog.projections.fold import HANDLERS

    s, raw = _played()
    step = s.projection.step + 1
    # two steps of notes: the first Note after the handler changes is folded by apply,
    # which builds the row the later ones are folded inline with
    log = _extend(
        raw,
        [
            (step, _issued("note", 2)),
            (step, ev.Note(text="flip")),
            (step + 1, _issued("note", 2)),
            (step + 1, ev.Note(text="flip again")),
        ],
    )
    kept = HANDLERS[ev.Note]
    register_fold(ev.Note)(lambda state, e: msgspec.structs.replace(state, phase="end"))
    try:
        _both(log)
    finally:
        register_fold(ev.Note)(kept)


def test_a_shared_history_larger_than_the_window_is_cut_back_alike():
    s, raw = _played()
    for _ in range(6):
        s.auto()
    raw_all = list(s.log.lines())
    head = Projection(keep=100)
    decode = line_decoder()
    for line in raw[: len(raw)]:
        head.apply(decode(line))
    snapshot, history = head.snapshot(), dict(head.history)
    tail = raw_all[len(raw) :]
    _both(tail, make=lambda: Projection(snapshot, history, keep=2))


class Pushed(ev.Event):
    """Test-only, at version 2: a push in feet; version 1 had the same field counting 5-ft squares,
    so a version-1 line reads as a version-2 event unless its `v` is looked at."""

    version = 2
    target: str
    distance: int


def test_a_line_of_an_older_shape_is_upcast_in_bulk_as_one_by_one():
    from combatlog.events import register_event, register_upcaster
    from combatlog.projections.fold import put_extra
    from combatlog.projections.phases import LIVE, allow

    if "Pushed" not in {t.__struct_config__.tag for t in ev.event_types()}:
        register_event(Pushed)
        register_upcaster("Pushed", 1, lambda data: {**data, "distance": data["distance"] * 5})
        allow("Pushed", LIVE)
        register_fold(Pushed)(lambda state, e: put_extra(state, "pushed", e.target, e.distance))
    s, raw = _played()
    step = s.projection.step + 1
    # two steps, so the second Pushed is folded inline by the row the first one built
    log = _extend(
        raw,
        [
            (step, _issued("note", 2)),
            (step, Pushed(target="g1", distance=2)),
            (step + 1, _issued("note", 2)),
            (step + 1, Pushed(target="g2", distance=3)),
        ],
    )
    old = [line.replace(b'"v":2', b'"v":1') if b'"Pushed"' in line else line for line in log]
    assert sum(b'"v":1,"event":{"type":"Pushed"' in line for line in old) == 2
    _both(old)
    p = Projection()
    fold_lines(p, old, line_decoder())
    assert p.state.extra["pushed"] == {"g1": 10, "g2": 15}  # in feet: upcast, both


def _folded(n: int):
    from combatlog.projections import envelopes
    from tests.builders import new_session

    s = new_session(begin=True)
    s.auto()
    s.auto()
    envs = list(envelopes(s.log))
    p = Projection()
    for env in envs[:n]:
        p.apply(env)
    return p, envs


def test_the_replay_refuses_a_seq_that_goes_backwards():
    p, envs = _folded(12)
    with pytest.raises(FoldError, match="seq 5: expected seq 13, found 5"):
        p.apply(envs[4])


def test_the_replay_refuses_a_step_that_goes_backwards():
    import msgspec

    p, envs = _folded(len(_folded(0)[1]))
    last = envs[-1]
    earlier = msgspec.structs.replace(envs[-1], seq=last.seq + 1, step=last.step - 1)
    with pytest.raises(FoldError, match=f"step {last.step - 1} comes after step {last.step}"):
        p.apply(earlier)


def test_the_replay_refuses_an_undo_or_redo_of_a_step_that_is_not_next():
    import msgspec

    from combatlog.events import StepRedone, StepUndone

    p, envs = _folded(len(_folded(0)[1]))
    last = envs[-1]
    wrong = p.undo[-2]
    undo = msgspec.structs.replace(last, seq=last.seq + 1, step=last.step + 1, event=StepUndone(step=wrong))
    with pytest.raises(FoldError, match=f"step {wrong} can't be undone now \\(the last live step is {p.undo[-1]}\\)"):
        p.apply(undo)
    redo = msgspec.structs.replace(last, seq=last.seq + 1, step=last.step + 1, event=StepRedone(step=wrong))
    with pytest.raises(FoldError, match=f"step {wrong} can't be redone now"):
        p.apply(redo)
