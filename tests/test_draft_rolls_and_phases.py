"""A step in the making (`Draft`): which attack rolls conditions change and how, a low face rolled
again only below its mark, an event refused in a phase with where it is allowed, and a
condition lasting until its source's next turn armed as that turn starts.

Each test here fails against a mutant of `engine/draft.py` that the rest of the suite let
through (docs/mutation.md).
"""

from __future__ import annotations

import pytest

from combatlog.engine import Refused, ScriptedDice
from combatlog.engine.draft import Draft
from combatlog.engine.protocol import RollMods
from combatlog.engine.rules.skirmish import SKIRMISH
from combatlog.events import ConditionApplied, ConditionRemoved, DamageApplied, TurnStarted
from combatlog.events import catalogue as ev
from tests.builders import new_session


@pytest.fixture
def mods(monkeypatch):
    monkeypatch.setattr(
        type(SKIRMISH), "targeted_mods", {"dodging": RollMods(advantage=-1), "prone": RollMods(advantage=1)}
    )
    monkeypatch.setattr(type(SKIRMISH), "rolling_mods", {"lucky": RollMods(reroll_below=2)})


def draft_with(*conditions: tuple[str, str], faces=()) -> tuple[Draft, str, str]:
    """A draft of the next step of a begun skirmish, with (who, condition) set first: (draft, actor, foe)."""
    s = new_session(begin=True)
    actor = s.state.acting[0]
    foe = next(c.id for c in s.state.active() if c.side != s.state.combatants[actor].side)
    for who, name in conditions:
        s.do("override", reason="set up", condition={"target": {"actor": actor, "foe": foe}[who], "name": name})
    return Draft(s.state, ScriptedDice(list(faces)), s.rules, s.projection.step + 1), actor, foe


@pytest.mark.parametrize("expression", ["2d6+1", "1d20kh1+3", "1d20>=15"])
def test_a_roll_of_several_dice_a_kept_die_or_a_target_is_rolled_as_given_whatever_the_conditions(mods, expression):
    for conditions in ((), (("foe", "prone"),), (("foe", "dodging"),)):
        d, actor, foe = draft_with(*conditions, faces=[3, 4])
        rolled = d.attack_roll(expression, "attack", actor, foe)
        assert rolled.expression == expression, conditions


@pytest.mark.parametrize("condition,dice,kept", [("prone", "2d10zkh1+2", 9), ("dodging", "2d10zkl1+2", 0)])
def test_advantage_on_a_die_counted_from_zero_keeps_its_zero(mods, condition, dice, kept):
    d, actor, foe = draft_with(("foe", condition), faces=[0, 9])
    rolled = d.attack_roll("1d10z+2", "attack", actor, foe)
    assert rolled.expression == dice and rolled.faces == (0, 9) and rolled.natural == (kept,)


def test_a_face_at_the_reroll_mark_stands_and_one_below_it_is_rolled_again(mods):
    d, actor, foe = draft_with(("actor", "lucky"), faces=[2])
    assert d.attack_roll("1d20+4", "attack", actor, foe).natural == (2,)
    assert d.dice.queue == [] and len(d.events) == 1
    d, actor, foe = draft_with(("actor", "lucky"), faces=[1, 12])
    assert d.attack_roll("1d20+4", "attack", actor, foe).natural == (12,)
    assert len(d.events) == 2


def test_an_event_refused_in_a_phase_says_where_it_is_allowed():
    s = new_session()  # in setup: no turn can start
    d = Draft(s.state, ScriptedDice([]), s.rules, s.projection.step + 1)
    with pytest.raises(Refused) as refused:
        d.emit(TurnStarted(actors=("ayla",)))
    assert refused.value.why == "not possible in phase setup"
    allowed = refused.value.allowed.removeprefix("allowed in: ").split(", ")
    assert allowed and "setup" not in allowed and "no phase" not in allowed and allowed == sorted(allowed)


class Unheard(ev.Event, frozen=True):
    """Test-only: an event type no phase allows and nothing folds."""

    what: str = ""


def test_an_event_no_phase_allows_is_refused_saying_so():
    s = new_session(begin=True)
    d = Draft(s.state, ScriptedDice([]), s.rules, s.projection.step + 1)
    with pytest.raises(Refused, match="Unheard: not possible in phase .*; allowed in: no phase$"):
        d.emit(Unheard())
    assert d.events == []


def test_a_condition_until_the_end_of_its_sources_next_turn_is_armed_as_that_turn_starts():
    s = new_session(begin=True)
    source = s.state.acting[0]
    target = next(c.id for c in s.state.active() if c.id != source)
    s.do(
        "override",
        reason="marked",
        condition={"target": target, "name": "marked", "ends": "source_turn", "source": source},
    )
    armed = []
    for _ in range(20):
        acting = s.state.acting[0]
        step = [e.event for e in s.do("end_turn", actor=acting)]
        armings = [e for e in step if isinstance(e, ConditionApplied) and e.condition == "marked"]
        starts = [e for e in step if isinstance(e, TurnStarted) and source in e.actors]
        if armings:
            assert starts and step.index(armings[0]) > step.index(starts[0])  # after the source's turn starts
            assert all(e.armed for e in armings)
        armed += armings
        if not s.state.combatants[target].has("marked"):
            break
        cond = next(c for c in s.state.combatants[target].conditions if c.name == "marked")
        assert cond.armed == (source in s.state.acting)  # unarmed until the source's next turn, armed through it
    assert len(armed) == 1
    assert not s.state.combatants[target].has("marked")
    removed = [e for e in step if isinstance(e, ConditionRemoved) and e.condition == "marked"]
    assert [e.reason for e in removed] == [f"until the end of {s.state.combatants[source].name}'s next turn"]


def test_a_rule_system_may_name_the_target_and_amount_of_damage():
    d, actor, foe = draft_with()
    d.damage(target=foe, amount=3, kind="club", source=actor)
    d.hold_damage = True
    d.damage(target=foe, amount=2)
    assert [(e.target, e.amount, e.held) for e in d.events if isinstance(e, DamageApplied)] == [
        (foe, 3, False),
        (foe, 2, True),
    ]
    assert d.state.combatants[foe].damage == 3  # the held damage waits for the round's end


def test_conditions_that_cancel_out_leave_the_roll_as_written(mods, monkeypatch):
    """Advantage and disadvantage cancel: nothing changes the roll, so even a roll written
    `d20+4` (not `1d20+4`) is rolled and recorded as written."""
    monkeypatch.setattr(type(SKIRMISH), "rolling_mods", {"lucky": RollMods(advantage=1)})
    d, actor, foe = draft_with(("actor", "lucky"), ("foe", "dodging"), faces=[11])
    rolled = d.attack_roll("d20+4", "attack", actor, foe)
    assert rolled.expression == "d20+4" and rolled.faces == (11,) and rolled.total == 15
