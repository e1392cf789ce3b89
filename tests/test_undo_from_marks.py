"""Undo and redo past the kept history, folded again from the nearest mark, on logs whose steps
branch: undone steps followed by new ones, several undos in a row, a redo after them. Every
state an undo or redo gives is the one a fold keeping the whole history gives, and the log is
not folded again from its start while a mark serves.

Each test here fails against a mutant of `projections/replay.py` that the rest of the suite let
through (docs/mutation.md).
"""

from __future__ import annotations

import importlib

import pytest

from combatlog.engine import Refused, Session
from combatlog.projections import Projection, replay
from tests.builders import fighter, new_session

replay_module = importlib.import_module("combatlog.projections.replay")

# n: a step that changes the state (a point of damage), u: an undo, r: a redo
PATTERNS = {
    "undone then branched": "nnnnnunnnuunnnnnnunnn",
    "deep undos, a redo, new steps": "nnnnnnnnnuuuuurnnnnnuunnnn",
    "undo of a step below its mark": "nnnnnnnnuuuuuunnnnnnnnnuuunnnnnnn",
}


def whole(log) -> Projection:
    """The fold of `log` keeping every step's states: no undo ever looks past them."""
    return replay(log, None, Projection(keep=1 << 20, marks=False))


TOUGH = [
    fighter("ayla", "party", kind="pc", hp=100, init=3, attack=4, defense=12, damage="1d8", ap=7),
    fighter("g1", "goblins", hp=100, init=2, attack=1, defense=10, damage="1d6", ap=5),
]


def play(pattern: str):
    s = new_session(seed=3, combatants=TOUGH, begin=True)
    for n, c in enumerate(pattern):
        if c == "n":  # a step that changes the state, and again if folded twice: a point of damage
            s.do("override", reason="a stone", damage={"target": ("ayla", "g1")[n % 2], "amount": 1})
        elif c == "u":
            s.undo()
        else:
            s.redo()
    return s


@pytest.mark.parametrize("every", [1, 2, 3, 4])
@pytest.mark.parametrize("pattern", PATTERNS.values(), ids=PATTERNS.keys())
def test_every_undo_and_redo_past_the_history_gives_the_whole_folds_state(monkeypatch, pattern, every):
    monkeypatch.setattr(Projection, "KEEP", 1)
    monkeypatch.setattr(Projection, "MARK_EVERY", every)
    s = play(pattern)
    from_start, refolded = [], []
    real_between, real_fold = replay_module.states_between, replay_module.fold_lines

    def counted(projection, lines, *rest):
        if type(projection) is not Projection:  # a fold from a mark (not the whole fold compared with)
            lines = list(lines)
            refolded.append(len(lines))
        return real_fold(projection, iter(lines), *rest)

    monkeypatch.setattr(replay_module, "states_between", lambda *a: from_start.append(a[2]) or real_between(*a))
    monkeypatch.setattr(replay_module, "fold_lines", counted)
    undone = 0
    while True:
        try:
            s.undo()
        except Refused:
            break
        undone += 1
        assert s.state == whole(s.log).state, undone
    assert undone > 5
    assert all(step < every for step in from_start)  # from the log's start only below the first mark
    assert max(refolded) <= 12 * every + 24 < s.log.head()[0]  # a few marks' steps, not the log
    for n in range(undone):
        s.redo()
        assert s.state == whole(s.log).state, n


def test_a_loaded_branched_log_is_undone_from_marks_never_from_its_start(monkeypatch):
    monkeypatch.setattr(Projection, "KEEP", 1)
    monkeypatch.setattr(Projection, "MARK_EVERY", 4)
    s = Session(play("nnnnnnnnnnnnuuunnnnnnnnnnnnnnnnnn").log)  # loaded: its marks made by the bulk fold
    from_start, refolds = [], []
    real_between, real_mark = replay_module.states_between, replay_module.states_from_mark
    monkeypatch.setattr(replay_module, "states_between", lambda *a: from_start.append(a[1:]) or real_between(*a))
    monkeypatch.setattr(replay_module, "states_from_mark", lambda *a: refolds.append(real_mark(*a)) or refolds[-1])
    for _ in range(20):  # back over the branch point and the undone steps before it
        s.undo()
        assert s.state == whole(s.log).state
    assert from_start == []
    assert refolds and all(found is not None and len(found) <= 3 * 4 for found in refolds)
