"""A lean session started from another's state: its steps counted from 0 unless given (the next
step's dice are the seed's for that count plus one), and a creation refused on it, as on a log
that already holds lines.

Each test here fails against a mutant of `engine/lean.py` that the rest of the suite let
through (docs/mutation.md).
"""

from __future__ import annotations

import pytest

from combatlog.engine import Refused
from combatlog.engine.lean import LeanSession
from combatlog.events import Command, DiceRolled
from combatlog.projections import Encounter
from tests.builders import new_session


def test_a_lean_session_from_a_state_counts_its_steps_from_zero_unless_told():
    set_up = new_session(seed=7).state  # created, combatants added, not begun
    given, told = LeanSession(set_up), LeanSession(set_up, step=0)
    assert given.step == 0
    rolls = [given.execute(Command(kind="begin")), told.execute(Command(kind="begin"))]
    assert rolls[0] == rolls[1] and any(isinstance(e, DiceRolled) for e in rolls[0])
    assert given.state == told.state and given.step == 1
    later = LeanSession(set_up, step=5)
    assert later.execute(Command(kind="begin")) != rolls[0]  # step 6's dice, not step 1's


def test_a_lean_session_given_a_state_refuses_a_creation_as_its_log_would():
    for state in (new_session(seed=7).state, Encounter()):
        lean = LeanSession(state)
        with pytest.raises(Refused, match="already holds an encounter"):
            lean.execute(Command(kind="create", params={"rules": "skirmish"}))
