"""Automatic play, continued: with two acting at once the policy plays the first; the stall rule
counts a round as quiet when its only damage is 0, and not when someone took even 1; and
play_out gives up after 10,000 steps by default.

Each test here fails against a mutant of `engine/session.py` that the rest of the suite let
through (docs/mutation.md).
"""

from __future__ import annotations

import pytest

from combatlog.engine.turns import STALL_ROUNDS, stall_outcome
from combatlog.events import Command, CommandIssued, decode_line
from tests.builders import lines, new_session


def test_with_two_acting_at_once_auto_plays_the_first():
    s = new_session(seed=7, begin=True, ties="simultaneous")
    seen = 0
    for _ in range(40):
        if s.state.phase == "end":
            break
        acting = s.state.acting
        s.auto()
        issued = [decode_line(line).event for line in lines(s) if b'"CommandIssued"' in line][-1]
        assert isinstance(issued, CommandIssued) and issued.command.actor == acting[0]
        seen += len(acting) > 1
    assert seen  # two acted at once at least once


def _stall_with(monkeypatch, amount: int):
    """A fight where everyone only ends their turn, but for one GM damage of `amount` in round 3."""
    s = new_session(seed=7, begin=True)
    done = {"hurt": False}

    def policy(state, actor):
        if state.round == 3 and not done["hurt"]:
            done["hurt"] = True
            damage = {"target": "g1", "amount": amount}
            return Command(kind="override", params={"reason": "a rock falls", "damage": damage}, by="policy")
        return Command(kind="end_turn", actor=actor.id, by="policy")

    monkeypatch.setattr(s.rules, "policy", policy)
    s.play_out()
    assert s.state.phase == "end" and s.state.outcome == stall_outcome("no one was hurt")
    assert done["hurt"] and s.state.combatants["g1"].damage == amount
    return s.state.round


def test_one_point_of_damage_is_a_hurt_that_starts_the_stall_count_again(monkeypatch):
    assert _stall_with(monkeypatch, 1) == 3 + 1 + STALL_ROUNDS


def test_damage_of_nothing_leaves_the_round_quiet(monkeypatch):
    assert _stall_with(monkeypatch, 0) == 1 + STALL_ROUNDS


def test_play_out_gives_up_after_ten_thousand_steps_by_default(monkeypatch):
    s = new_session(seed=7, begin=True)
    calls = []
    monkeypatch.setattr(s, "auto", lambda: calls.append(1) or [])  # a step that changes nothing
    with pytest.raises(RuntimeError, match="didn't end within 10000 steps"):
        s.play_out()
    assert len(calls) == 10_000
