"""Dice, each rule on its own: what each source of faces accepts and refuses, and what its messages say."""

from __future__ import annotations

import dataclasses
import re

import msgspec
import pytest

from combatlog.engine import DiceError, EnteredDice, NeedDice, RecordedDice, ScriptedDice, SeededDice, parse
from combatlog.engine.dice import MAX_COUNT, DiceMismatch, MixedDice
from combatlog.events import DiceRolled


def recorded(expression, faces, source="entered", purpose="damage"):
    """A roll as a log records it: `faces` shown, whatever they are."""
    rolled = ScriptedDice([1] * len(faces)).roll(expression, purpose) if faces else DiceRolled(expression, (), 0)
    return msgspec.structs.replace(rolled, faces=tuple(faces), source=source)


# --- what a message calls a die -------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "face", "die"),
    [
        ("1d10z", 10, "a d10 read 0-9"),  # Starflight's ten-sided dice
        ("2d6z", 6, "a d6 counted from 0"),
        ("1d10", 11, "a d10"),
        ("1d10", 0, "a d10"),
        ("3d6", 7, "a d6"),
    ],
)
def test_a_face_off_its_die_is_refused_naming_the_die_as_rolled(expression, face, die):
    count = parse(expression).count
    faces = [face] + [1] * (count - 1)
    with pytest.raises(DiceError, match=re.escape(f"scripted face {face} can't come up on {die} (attack)")):
        ScriptedDice(faces).roll(expression, "attack")
    with pytest.raises(DiceError, match=re.escape(f"{face} can't come up on {die}; ")):
        EnteredDice([faces]).roll(expression, "attack")


def test_an_entered_face_past_15_digits_is_not_written_out():
    with pytest.raises(DiceError, match=r"^a number past 15 digits can't come up on a d6"):
        EnteredDice([[10**15]]).roll("1d6")
    with pytest.raises(DiceError, match=r"^999999999999999 can't come up on a d6"):
        EnteredDice([[10**15 - 1]]).roll("1d6")
    with pytest.raises(DiceError, match=r"^a number past 15 digits can't come up on a d6"):
        EnteredDice([[-(10**15)]]).roll("1d6")


TWELVE = "[1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6"


@pytest.mark.parametrize(("given", "shown"), [(11, TWELVE[:-3] + "]"), (12, TWELVE + "]"), (13, TWELVE + ", ...]")])
def test_a_wrong_number_of_faces_lists_at_most_12_of_them(given, shown):
    faces = [(i % 6) + 1 for i in range(given)]
    with pytest.raises(DiceError) as err:
        EnteredDice([faces]).roll("2d6", "damage")
    assert str(err.value) == f"2d6 (damage) needs 2 face(s), {given} were entered: {shown}"
    with pytest.raises(DiceError) as err:
        EnteredDice([faces]).roll("1d8+1d4", "damage")
    assert str(err.value) == f"1d8+1d4 (damage) rolls 2 dice, {given} face(s) were given: {shown}"


# --- scaling a critical ------------------------------------------------------------------


@pytest.mark.parametrize("times", [1, 2, MAX_COUNT])
def test_a_roll_scales_by_any_whole_number_of_times_from_1_to_the_most_dice(times):
    assert parse("1d6+2").scaled(times).text == f"{times}d6+2"
    assert parse("(1d8+2)*2").scaled(times).text == f"({times}d8+2)*2"


@pytest.mark.parametrize("times", [0, -1, MAX_COUNT + 1, True, 2.0])
def test_a_scale_outside_1_to_the_most_dice_is_refused(times):
    for text in ("1d6+2", "(1d8+2)*2"):
        with pytest.raises(DiceError, match=f"scaled: give a whole number of times, 1 to {MAX_COUNT}"):
            parse(text).scaled(times)


# --- a formula's fields -------------------------------------------------------------------


def test_a_formula_has_no_count_or_sides_of_its_own_its_dice_say_what_it_rolls():
    expr = parse("1d8+2d6z+3")
    assert (expr.count, expr.sides, expr.modifier) == (0, 0, 3)
    assert expr.dice == ((1, 8, 1), (2, 6, 0))


# --- recorded dice (an audit) ----------------------------------------------------------------


def test_a_step_asking_for_more_rolls_than_the_log_recorded_is_refused():
    dice = RecordedDice([recorded("1d6", [4])])
    assert dice.roll("1d6", "damage").total == 4
    with pytest.raises(DiceError, match=re.escape("asks for 1d20 (attack) but the log recorded no more rolls")):
        dice.roll("1d20", "attack")
    with pytest.raises(DiceError, match="recorded no more rolls"):
        RecordedDice([]).roll("1d20", "attack")


def test_a_recorded_roll_with_faces_off_its_die_names_the_first():
    with pytest.raises(DiceMismatch, match=re.escape("the log's 3d6 (damage) shows 9, which a d6 can't show")):
        RecordedDice([recorded("3d6", [2, 9, 8])]).roll("3d6", "damage")


def test_a_script_that_runs_out_names_the_dice_a_formula_asked_for_as_written():
    with pytest.raises(DiceError, match=re.escape("the script ran out of dice at 2d6z (damage)")):
        ScriptedDice([3]).roll("1d8+2d6z", "damage")
    with pytest.raises(DiceError, match=re.escape("the script ran out of dice at 2d6 (damage)")):
        ScriptedDice([3]).roll("1d8+2d6", "damage")


def test_a_face_that_isnt_a_number_is_quoted_cut_to_20_characters():
    face = "x" * 30
    with pytest.raises(DiceError) as err:
        EnteredDice([[face]]).roll("1d6")
    assert str(err.value).startswith(repr(face)[:20] + " can't come up on a d6")


def test_need_dice_asks_for_the_faces_of_a_die_from_1_unless_told():
    assert str(NeedDice("2d6", "damage", 2, 6)) == "enter the faces for 2d6 (damage): 2 number(s) from 1 to 6"
    assert str(NeedDice("2d10z", "hit", 2, 10, low=0)).endswith("2 number(s) from 0 to 9")


# --- parsing ----------------------------------------------------------------------------------


def test_a_parsed_expression_is_kept_for_the_next_time_and_cant_be_changed():
    from combatlog.engine import dice

    dice._parsed.clear()  # a cache near its bound would be emptied halfway through
    first = parse("3d6+1")
    parse("3d6+2")
    parse("1d8+2d6")
    assert parse("3d6+1") is first
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.count = 4  # type: ignore[misc]
    assert parse("3d6+1").count == 3


def test_the_parse_cache_never_holds_more_than_its_bound():
    from combatlog.engine import dice

    most = 0
    for n in range(dice.PARSE_CACHE + 10):
        parse(f"2d6+{n}")
        most = max(most, len(dice._parsed))
    assert most == dice.PARSE_CACHE


def test_an_expression_of_64_characters_is_read_one_more_is_refused():
    longest = "1d6" + "+1" * 30 + "1"
    assert len(longest) == 64 and parse(longest).modifier == 40
    with pytest.raises(DiceError, match="at most 64 characters"):
        parse(longest + "1")


def test_the_most_dice_a_plain_roll_may_roll_is_1000():
    assert parse("1000d6").count == 1000
    with pytest.raises(DiceError, match="roll 1 to 1000 dice"):
        parse("1001d6")


# --- mixed dice: typed rolls among the engine's ---------------------------------------------


def test_typed_rolls_that_dont_all_name_their_dice_match_by_their_number_of_faces():
    dice = MixedDice([[4], [5, 6]], ["1d6"], SeededDice(3, 1))
    first = dice.roll("1d6", "damage")
    second = dice.roll("2d6", "damage")
    assert (first.faces, first.source) == ((4,), "entered")
    assert (second.faces, second.source) == ((5, 6), "entered")
    engine = dice.roll("1d20", "attack")
    assert engine.source == "engine" and engine.faces == SeededDice(3, 1).roll("1d20").faces
