"""combatlog.testing, the kit a rule system's tests are written with: a fight in one call, dice
given by the roll they are for, and the results read back."""

from __future__ import annotations

import subprocess
import sys

import pytest

from combatlog.engine.rules.triptycho.events import CardDiscarded
from combatlog.engine.rules.triptycho.model import own
from combatlog.events import CommandIssued, ConditionApplied, DamageApplied
from combatlog.testing import Refused, fight, fighter

AYLA = fighter("ayla", "party", kind="pc", hp=14, init=3, attack=4, defense=12, damage="1d8")
G1 = fighter("g1", "goblins", hp=7, init=2, attack=1, defense=10, damage="1d6")
FIRST = {"initiative by ayla": 15, "initiative by g1": 3}  # ayla 18, g1 5


def test_a_first_test_is_one_call_then_a_step_with_its_dice_by_purpose():
    f = fight("skirmish", AYLA, G1, dice=FIRST)
    step = f.act("ayla", "strike", "g1", dice={"damage by ayla": 5, "strike by ayla": 9})  # in any order
    assert f.hp("g1") == 2 and f.damage("g1") == 5
    assert step.outcome == "hit (13 against 10) for 5"
    assert [d.amount for d in step.of(DamageApplied)] == [5]
    assert [(r.purpose, r.faces) for r in step.rolls] == [("strike at g1", (9,)), ("strike damage to g1", (5,))]
    assert step.told == ["AYLA strikes G1: hit (13 against 10) for 5.", "  G1 takes 5 damage."]
    assert f.acting == ("g1",) and f.outcome is None


def test_the_fights_log_carries_the_dice_as_typed_at_a_table_and_audits_clean():
    f = fight("skirmish", AYLA, G1, dice=FIRST)
    f.act("ayla", "strike", "g1", dice={"strike by ayla": 9, "damage by ayla": 5})
    command = f.events(CommandIssued)[-1].command
    assert command.entered == ((9,), (5,)) and command.entered_for == ("strike by ayla", "damage by ayla")
    f.audit()


def test_a_die_that_went_to_no_roll_is_an_error_naming_it_and_the_rolls_asked():
    f = fight("skirmish", AYLA, G1, dice=FIRST)
    seq = f.log.head()[0]
    with pytest.raises(Refused) as err:
        f.act("ayla", "strike", "g1", dice={"strike by ayla": 2, "damage by ayla": 5})  # 2 + 4 misses: no damage
    said = str(err.value)
    assert said.startswith("act: 'damage by ayla: 5' went to no roll; it rolled 1d20+4 (strike at g1) by ayla;")
    assert f.log.head()[0] == seq  # nothing appended


def test_a_roll_no_dice_were_given_for_is_an_error_naming_it_and_the_dice_given():
    with pytest.raises(Refused) as err:
        fight("skirmish", AYLA, G1, dice={"initiative by ayla": 15})
    assert str(err.value) == (
        "begin: no dice were given for 1d20+2 (initiative) by g1; name it, as 'initiative by g1: N'; "
        "given: 'initiative by ayla: 15'"
    )


def test_a_name_gives_a_list_of_rolls_in_the_order_asked_the_next_rounds_initiative_among_them():
    f = fight("skirmish", AYLA, G1, dice=FIRST, initiative_every_round=True)
    f.end_turn("ayla")
    step = f.end_turn("g1", dice={"initiative": [2, 19]})  # round 2: ayla 5, g1 21
    assert [r.total for r in step.rolls] == [5, 21]
    assert f.round == 2 and f.acting == ("g1",)


def test_with_a_seed_the_rolls_not_named_are_the_seeds():
    f = fight("skirmish", AYLA, G1, seed=3)
    step = f.act(f.acting[0], "strike", "g1" if f.acting == ("ayla",) else "ayla", dice={"strike": 20})
    assert [r.source for r in step.rolls] == ["entered", "engine"]
    f.audit()


def test_conditions_the_outcome_and_undo_read_back():
    f = fight("skirmish", AYLA, G1, dice=FIRST)
    f.do("override", reason="a trip", condition={"target": "g1", "name": "prone"})
    assert f.conditions("g1") == ("prone",)
    assert f.events(ConditionApplied)[0].target == "g1"
    f.undo()
    assert f.conditions("g1") == ()
    f.act("ayla", "strike", "g1", dice={"strike by ayla": 20, "damage by ayla": 7})
    assert f.defeated("g1") == "down" and f.outcome == ("victory", "party") and f.phase == "end"


@pytest.mark.parametrize(
    ("dice", "says"),
    [
        ({"1d20": 15}, "'1d20' names no roll"),
        ({"": 15}, "'' names no roll"),
        ({"initiative by ayla": "15"}, "'initiative by ayla': '15' isn't a roll"),
        ({"initiative by ayla": True}, "'initiative by ayla': True isn't a roll"),
    ],
)
def test_dice_that_name_no_roll_or_arent_faces_are_refused_before_anything_is_played(dice, says):
    with pytest.raises(ValueError, match=says):
        fight("skirmish", AYLA, G1, dice=dice)


def test_the_kit_is_not_imported_by_the_pytest_plugin_alone():
    code = "import sys, combatlog.testing; print('combatlog.engine' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_a_saved_fight_is_a_log_the_pytest_plugin_replays(tmp_path):
    from combatlog.replays import open_log
    from combatlog.replays.audit import audit

    f = fight("skirmish", AYLA, G1, seed=2)
    assert f.play_out() > 0 and f.outcome is not None
    f.save(tmp_path / "duel.jsonl")
    saved = open_log(tmp_path / "duel.jsonl", create=False, read_only=True)
    assert list(saved.lines()) == list(f.log.lines()) and audit(saved, workers=1).clean


def test_end_turn_takes_the_parameters_its_rule_system_reads_there():
    """Triptycho discards a card as a turn ends: the kit's `end_turn` takes `discard=` as `act`
    takes an action's parameters, without going down to `do`."""
    deck = [{"name": "Dagger", "hit": "d6", "damage": "d4"}, {"name": "Club", "hit": "d6", "damage": "d6"}]
    f = fight(
        "triptycho",
        fighter("x", "party", kind="pc", hp=10, section="a", miss="d6", deck=deck),
        fighter("y", "cult", hp=10, section="b", miss="d6", deck=deck),
        seed=3,
        order="listed",
        starting_hand=2,
        map={"sections": [{"id": "a", "light": "lit"}, {"id": "b", "light": "lit"}], "borders": [{"a": "a", "b": "b"}]},
    )
    hand = own(f.state).hands["x"]
    assert sorted(hand) == ["Club", "Dagger"]
    step = f.end_turn("x", discard=hand[1])  # not the first, which is discarded when none is named
    assert [e.card for e in step.of(CardDiscarded)] == [hand[1]]
