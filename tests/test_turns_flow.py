"""Turns going on within a step: an idle combatant's turn ends as it starts and the next one's
begins in the same step; damage a rule system deals as the round ends lands at once, even after
simultaneous actions held theirs; held damage released at the round's end needs no event of
its own (the round's end empties it).

Each test here fails against a mutant of `engine/turns.py` that the rest of the suite let
through (docs/mutation.md).
"""

from __future__ import annotations

from combatlog.engine.rules.skirmish import SKIRMISH
from combatlog.events import DamageApplied, HeldDamageReleased, RoundEnded, TurnEnded, TurnStarted
from tests.builders import new_session


def test_an_idle_combatants_turn_ends_as_it_starts_and_the_next_begins_in_the_same_step(monkeypatch):
    monkeypatch.setattr(type(SKIRMISH), "idle", lambda self, state, c: c.id == "g1")
    s = new_session(seed=7, begin=True)
    skipped = 0
    for _ in range(12):
        if s.state.phase == "end":
            break
        events = [e.event for e in s.auto()]
        started = [a for e in events if isinstance(e, TurnStarted) for a in e.actors]
        ended = [a for e in events if isinstance(e, TurnEnded) for a in e.actors]
        skipped += "g1" in started and "g1" in ended
        assert s.state.acting or s.state.phase == "end"  # someone else's turn began
        assert "g1" not in s.state.acting
    assert skipped


def _round_end(monkeypatch) -> list:
    """The events of the first step of a simultaneous skirmish that ends a round."""
    s = new_session(seed=7, begin=True, timing="simultaneous")
    for _ in range(30):
        events = [e.event for e in s.auto()]
        if any(isinstance(e, RoundEnded) for e in events):
            return events
    raise AssertionError("no round ended")


def test_damage_dealt_as_the_round_ends_lands_at_once_after_simultaneous_actions(monkeypatch):
    monkeypatch.setattr(type(SKIRMISH), "round_ending", lambda self, draft: draft.damage("g1", 1, kind="storm"))
    events = _round_end(monkeypatch)
    storm = [e for e in events if isinstance(e, DamageApplied) and e.kind == "storm"]
    assert [e.held for e in storm] == [False]


def test_held_damage_released_at_the_rounds_end_has_no_release_event(monkeypatch):
    events = _round_end(monkeypatch)
    assert any(isinstance(e, DamageApplied) and not e.held for e in events)  # held damage landed
    assert not any(isinstance(e, HeldDamageReleased) for e in events)
