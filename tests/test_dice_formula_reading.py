"""Reading a d20 formula, each rule on its own: what is read, what is refused, and where a message points."""

from __future__ import annotations

import re

import pytest

from combatlog.engine import DiceError, EnteredDice, NeedDice, ScriptedDice, parse


def roll(expression, faces):
    dice = ScriptedDice(faces)
    rolled = dice.roll(expression, "test")
    assert dice.queue == [], f"{expression} left faces {dice.queue} unrolled"
    return rolled


def refusal(expression):
    with pytest.raises(DiceError) as err:
        parse(expression)
    return str(err.value)


# --- where a message points --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "where"),
    [("1d8+2d6$", "at character 8 ('$')"), ("$", "at character 1 ('$')"), ("1d8+", "at its end")],
)
def test_an_unreadable_formula_is_refused_pointing_at_the_character_counted_from_1(expression, where):
    assert f"can't read dice expression {expression!r}; {where}: " in refusal(expression)


def test_a_character_that_isnt_ascii_is_named():
    assert "'\u0663' isn't ASCII" in refusal("1d6+\u0663")
    assert "'\u00e9' isn't ASCII" in refusal("1d6+1d4\u00e9")


@pytest.mark.parametrize("expression", ["(1d6,", "(", "(1d6,1d4,"])
def test_a_parenthesis_left_open_after_a_comma_is_named(expression):
    assert "a ( isn't closed" in refusal(expression)


# --- the caps --------------------------------------------------------------------------------------


def test_a_total_may_reach_15_digits_not_16():
    widest = "2906161*1269729*271"  # exactly 10**15 - 1
    assert roll(widest, []).total == 10**15 - 1
    assert "its total could pass 15 digits" in refusal(widest + "+1")


@pytest.mark.parametrize("expression", ["0d6+1d4", "1d1+1d4", "1d4+1d2000000", "1001d6+1d4"])
def test_each_dice_term_rolls_1_to_1000_dice_of_2_to_a_million_sides(expression):
    assert "roll 1 to 1000 dice of 2 to 1000000 sides" in refusal(expression)


def test_the_smallest_and_largest_dice_terms_are_read():
    assert parse("1d2*2").dice == ((1, 2, 1),)
    assert parse("1000d1000000*2").dice == ((1000, 1000000, 1),)


# --- zero-based dice ---------------------------------------------------------------------------


def test_a_zero_based_die_in_a_formula_shows_0_to_9_and_is_asked_for_as_such():
    assert roll("1d10z*10", [0]).total == 0
    assert roll("1d10z*10", [9]).total == 90
    with pytest.raises(DiceError, match=re.escape("scripted face 10 can't come up on a d10 read 0-9")):
        ScriptedDice([10]).roll("1d10z*10", "test")
    with pytest.raises(NeedDice, match=re.escape("1 number(s), in order: 1d10z")):
        EnteredDice([]).roll("1d10z*10", "test")


# --- operators: the same one twice is one, another in between is not ---------------------------


@pytest.mark.parametrize(
    ("expression", "faces", "total"),
    [
        ("4d6kh3pl1kl1", [1, 5, 3, 6], 5),  # keep 5 3 6, drop the 3, keep the lower of 5 6
        ("4d6pl1kh1kl1", [1, 5, 3, 6], 9),  # drop the 1, then keep the highest and the lowest: 6 and 3
        ("4d6kh1kl1", [1, 5, 3, 6], 7),
        ("4d6mi2mi3", [1, 5, 2, 6], 3 + 5 + 3 + 6),  # at least 2, then at least 3: never one operator
    ],
)
def test_consecutive_operators_of_one_name_merge_and_others_stay_apart(expression, faces, total):
    assert roll(expression, faces).total == total


def test_rerolling_the_highest_none_rerolls_nothing_and_is_read():
    assert roll("1d6rrh0", [4]).total == 4
    assert "would reroll every die forever" in refusal("1d6rrh1")
    assert "would reroll every die forever" in refusal("1d6rrl1")


def test_a_reroll_or_explosion_after_another_operator_is_checked_for_every_face():
    assert "would reroll every die forever" in refusal("1d6kh1rr>0")
    assert "would explode every die forever" in refusal("2d6pl1e<7")


def test_as_many_rerolled_faces_as_the_die_has_but_not_all_of_them_is_read():
    # four faces named on a d4, one of them one it can't show: a 4 is never rerolled
    assert roll("1d4rr1rr2rr3rr9", [1, 2, 4]).total == 4
    assert "would reroll every die forever" in refusal("1d4rr1rr2rr3rr4")
