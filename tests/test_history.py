"""Undo history in bounded memory: steps older than the window are folded again from the log."""

from __future__ import annotations

import pytest

from combatlog.engine import Session
from combatlog.projections import Projection, replay
from combatlog.replays.audit import audit
from combatlog.replays.cursor import Cursor
from tests.builders import new_session


def _play(session: Session, steps: int) -> list:
    states = [session.state]
    for _ in range(steps):
        if session.state.phase == "end":
            break
        session.auto()
        states.append(session.state)
    return states


@pytest.mark.parametrize("keep", [1, 3])
def test_undo_and_redo_far_beyond_the_kept_window_restore_the_exact_states(monkeypatch, keep):
    monkeypatch.setattr(Projection, "KEEP", keep)
    s = new_session(seed=5, begin=True)
    states = _play(s, 12)
    assert len(s.projection.history) <= keep
    for expected in reversed(states[:-1]):  # undo all the way back to the fight's start
        s.undo()
        assert s.state == expected
    for expected in states[1:]:
        s.redo()
        assert s.state == expected
    assert replay(s.log).state == s.state
    assert audit(s.log).clean
    cursor = Cursor(s.log, every=7)
    for seq in range(0, cursor.last + 1, 5):
        assert cursor.at(seq).state == replay(s.log, seq).state


def test_a_long_replay_keeps_at_most_the_window(monkeypatch):
    monkeypatch.setattr(Projection, "KEEP", 4)
    s = new_session(seed=9, begin=True)
    _play(s, 30)
    assert len(replay(s.log).history) <= 4


def test_undoing_deeper_than_the_kept_window_folds_again_from_the_nearest_mark(monkeypatch):
    import importlib

    replay_module = importlib.import_module("combatlog.projections.replay")
    from combatlog.projections import Projection
    from combatlog.projections.replay import apply_from, envelopes
    from tests.builders import new_session

    monkeypatch.setattr(Projection, "MARK_EVERY", 4)
    s = new_session(begin=True)
    s.auto()
    for n in range(40):
        s.do("note", text=f"note {n}")
    undone = 0
    while undone < 30 and len(s.projection.undo) > 6:  # past create, the four adds and begin
        s.undo()
        undone += 1
    assert undone >= 20
    calls, refolds = [], []
    real_between, real_mark = replay_module.states_between, replay_module.states_from_mark
    monkeypatch.setattr(replay_module, "states_between", lambda *a: calls.append(a) or real_between(*a))
    monkeypatch.setattr(replay_module, "states_from_mark", lambda *a: refolds.append(real_mark(*a)) or refolds[-1])
    read = []
    real_fold = replay_module.fold_lines

    def counted(projection, lines, *rest):
        lines = list(lines)
        read.append(len(lines))
        return real_fold(projection, iter(lines), *rest)

    monkeypatch.setattr(replay_module, "fold_lines", counted)
    window = Projection(keep=8)
    for envelope in envelopes(s.log):
        apply_from(s.log, window, envelope)
    assert window.state == s.state  # the same fight, undone as deep
    assert read and max(read) <= 2 * 4 * 2 + 2  # two marks' note steps (two lines each) at most, not the log's rest
    assert calls == []  # never folded from the log's start: every step undone is above the first mark
    assert refolds and all(found is not None and len(found) <= 4 for found in refolds)  # a mark's few steps
    assert len(refolds) <= (undone - 8) // 4 + 2  # once per mark's steps, not once per undo


@pytest.mark.parametrize("every", [2, 4])
def test_undo_at_any_depth_from_marks_restores_the_exact_states_with_undone_steps_in_the_log(monkeypatch, every):
    """A log whose steps include undos and redos (an undo in a mark's range of a step below the
    mark folds from the mark before): undone all the way back from marks, state by state."""
    monkeypatch.setattr(Projection, "KEEP", 2)
    monkeypatch.setattr(Projection, "MARK_EVERY", every)
    s = new_session(seed=5, begin=True)
    states = [s.state]
    for n in range(24):
        if s.state.phase == "end":
            break
        s.auto() if n % 3 else s.do("note", text=f"note {n}")
        if n % 5 == 4:
            s.undo()
            s.redo()
        states.append(s.state)
    for expected in reversed(states[:-1]):
        s.undo()
        assert s.state == expected
    assert replay(s.log).state == s.state and audit(s.log).clean


def test_marks_thin_out_past_their_budget(monkeypatch):
    monkeypatch.setattr(Projection, "MARK_EVERY", 1)
    monkeypatch.setattr(Projection, "MARK_BUDGET", 40)
    monkeypatch.setattr(Projection, "KEEP", 2)
    s = new_session(seed=3, begin=True)
    states = _play(s, 40)
    projection = s.projection
    weight = sum(len(state.combatants) + 1 for _, state in projection.marks.values())
    assert weight <= 40 and projection.mark_every > 1 and projection.marks
    assert all(step % projection.mark_every == 0 for step in projection.marks)
    assert min(projection.marks) == projection.mark_every  # thinned, the marks on the new spacing stay
    for expected in reversed(states[-16:-1]):
        s.undo()
        assert s.state == expected
    assert replay(s.log).state == s.state


def test_a_large_roster_keeps_fewer_steps_and_undoes_past_them_exactly(monkeypatch):
    """Each kept state holds its own roster: the history is bounded by combatants kept (BUDGET),
    so a roster of thousands keeps a window of steps in proportion, and undoing past it folds
    the states again from the log, exactly."""
    from tests.builders import fighter

    monkeypatch.setattr(Projection, "BUDGET", 400)
    roster = [fighter(f"g{i}", "goblins" if i % 2 else "party", attack=3, defense=11, hp=5) for i in range(60)]
    s = new_session(seed=4, combatants=roster)
    states = [s.state]
    for n in range(25):
        s.do("note", text=f"note {n}")
        states.append(s.state)
    history = s.projection.history
    kept = sum(len(before.combatants) + 1 for before, _ in history.values())
    assert kept <= Projection.BUDGET and len(history) <= 400 // 61 + 1  # 6 steps of a roster of 60, not 4,096
    assert s.projection.window() == 400 // 61
    for expected in reversed(states[:-1]):
        s.undo()
        assert s.state == expected
    again = replay(s.log)
    assert again.state == s.state and len(again.history) <= 400 // 61 + 1
    assert audit(s.log).clean


def test_the_cursors_snapshots_share_their_undo_stacks_and_seek_exactly(monkeypatch):
    """A cursor keeps a snapshot every `every` events; their undo stacks share chunks (a long
    log's snapshots don't each copy a stack of every step), and seeking anywhere, across undos
    that pop below a chunk, gives the replay's state and stacks."""
    import importlib

    cursor_module = importlib.import_module("combatlog.replays.cursor")
    monkeypatch.setattr(cursor_module, "CHUNK", 3)
    s = new_session(seed=8, begin=True)
    for n in range(60):
        s.do("note", text=f"note {n}")
        if n % 9 == 8:  # undo several steps (below a chunk), redo one, go on
            for _ in range(4):
                s.undo()
            s.redo()
    cursor = Cursor(s.log, every=4)
    marks = cursor._snaps
    shared = sum(1 for a, b in zip(marks, marks[1:]) if a.chunks and b.chunks and a.chunks[0] is b.chunks[0])
    assert shared > len(marks) // 2
    for seq in range(cursor.last + 1):
        want, got = replay(s.log, seq), cursor.at(seq)
        assert (got.state, got.undo, got.redo) == (want.state, want.undo, want.redo), seq


def test_show_keeps_no_marks_and_a_cursor_s_seeks_share_its_own():
    s = new_session(seed=3, begin=True)
    _play(s, 20)
    assert s.projection.marks  # a session undoes: it keeps them
    assert Session(s.log).projection.marks == s.projection.marks  # loaded again, the same
    assert replay(s.log).marks == {}  # a reader's fold (show, export) keeps none
    cursor = Cursor(s.log, every=7)
    assert cursor.final.marks and cursor.at(cursor.last // 2).marks is cursor.final.marks
