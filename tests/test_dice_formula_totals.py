"""A d20 formula's totals, each rule on its own: operators, added numbers, the 1,000-dice stop and
the 15-digit cap checked before any roll (a formula that could pass it is refused, one that can't is read)."""

from __future__ import annotations

import dataclasses

import msgspec
import pytest

from combatlog.engine import DiceError, ScriptedDice, parse
from combatlog.engine.dicetree import Binary, DiceTerm, Literal, Operator, Selector, SetTerm, Unary
from tests.test_dice_formula_reading import refusal, roll

# --- the 15-digit cap --------------------------------------------------------------------------

# Each of these can total more than 15 digits with some faces (the largest worked out beside it).
PAST = [
    "2906161*1269729*271+1",  # 10**15
    "(2906161*1269729*271,1)",  # a set adds its items: 10**15
    "9999999*9999999*9999999/2",  # about 5 * 10**20: halving doesn't bring it back
    "9999999*9999999*9999999/1d6",  # a 1 on the die: about 10**21
    "9999999*99999/(1/9999999)",  # dividing by a fraction multiplies: about 10**19
    "9999999*99/(1/(1d1000000/(1/7)))",  # 9999999 * 99 * 7,000,000: about 7 * 10**15
    "9999999*9999999*2//(1/7)",  # about 1.4 * 10**15
    "9999999*9999999*99//1",  # about 10**16
    "9999999*9999999*99/(7//2)",  # 7//2 is 3: about 3.3 * 10**15
    "9999999*9999999*2/(1/7,0)",  # the set totals 1/7: about 1.4 * 10**15
    "1d6e6*9999999*99999",  # 1,000 dice of sixes: about 6 * 10**15
    "(2906161*1269729*271+1)//1",  # 10**15
    "9999999*9999999*99/(1,0)",  # the set totals 1: about 10**16
    "9999999*9999999*2/(0+1/7)",  # about 1.4 * 10**15
    "9999999*9999999*2/(1*(1/7))",  # about 1.4 * 10**15
    "9999999*500/(1/(1d1000000+1/7))",  # about 5 * 10**15
    "-2906161*271*423243//(1/3)",  # -(10**15 - 1) * 3 // 1, floored in floats: -10**15
]

# Each of these stays within 15 digits whatever the faces.
WITHIN = [
    "2906161*1269729*271",  # 10**15 - 1
    "2906161*1269729*271/(7//2)",  # a third of it
    "2906161*1269729*271/(1,2)",  # a third of it
    "1000d1000000*999999+1000",  # 999,999,000,001,000
    "1000d1000000p>9999999*999999+1000",  # the same: p>9999999 drops nothing
    "1d6*9999999*99999",  # one die, not 1,000: about 6 * 10**12
    "2906161*1269729*271/3",  # a third of 10**15 - 1
    "2906161*1269729*271/1d6",  # 10**15 - 1 at most, on a 1
    "(9999999*9999999*10+9999999*20+8)//1",  # 10**15 - 2
]


@pytest.mark.parametrize("expression", PAST)
def test_a_formula_that_could_total_past_15_digits_is_refused_when_read(expression):
    assert "its total could pass 15 digits" in refusal(expression)


@pytest.mark.parametrize("expression", WITHIN)
def test_a_formula_that_stays_within_15_digits_is_read(expression):
    assert parse(expression).formula is not None


def test_the_largest_total_of_a_read_formula_fits_in_15_digits():
    assert roll("1000d1000000*999999+1000", [1_000_000] * 1000).total == 999_999_000_001_000
    assert roll("2906161*1269729*271/(7//2)", []).total == (10**15 - 1) // 3


def test_a_formula_that_rerolls_or_explodes_can_show_from_its_dice_up_to_1000_faces():
    exploding = parse("1d6e6+1d4")
    assert [n for n in (0, 1, 2, 3, 999, 1000, 1001) if exploding.takes(n)] == [2, 3, 999, 1000]
    fixed = parse("1d6kh1+1d4")
    assert [n for n in (1, 2, 3) if fixed.takes(n)] == [2]


# --- the 1,000-dice stop ----------------------------------------------------------------------


def test_a_roll_may_roll_1000_dice_rerolls_and_explosions_counted_but_not_1001():
    assert roll("1d6e6", [6] * 999 + [1]).total == 6 * 999 + 1
    with pytest.raises(DiceError, match="rolled more than 1000 dice"):
        ScriptedDice([6] * 1000 + [1]).roll("1d6e6", "test")


# --- operators -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "faces", "total"),
    [
        ("4d6k>4", [4, 5, 3, 6], 11),  # above 4: not the 4
        ("4d6p<3", [3, 5, 2, 6], 14),  # below 3: not the 3
        ("2d6ra1", [1, 1, 4], 6),  # one more die, however many it picks
        ("2d6ra1ra2", [1, 2, 5], 8),  # still one more: the first picked
        ("3d6ra6ra1", [1, 6, 6, 3], 16),
        ("4d6mi3", [3, 1, 2, 6], 15),
        ("4d6ma3", [3, 4, 2, 6], 11),
    ],
)
def test_an_operator_picks_what_its_selector_says(expression, faces, total):
    assert roll(expression, faces).total == total


@pytest.mark.parametrize(
    ("expression", "faces", "kept"),
    [
        ("(2d6)kh1", [2, 5], (5,)),
        ("(1d20,1d20)kh1", [7, 15], (15,)),
        ("(1d20,1d20)kl1+2", [7, 15], (7,)),
        ("(1d4+1,3,2d6kl1)kh1", [2, 2, 5], (2,)),
        ("-4d6kh3", [1, 5, 3, 6], (5, 3, 6)),
    ],
)
def test_a_formula_with_an_operator_records_the_values_that_count(expression, faces, kept):
    assert roll(expression, faces).kept == kept


# --- the numbers added to the whole ------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "modifier"),
    [("1d6+-3", -3), ("1d6-+3", -3), ("1d6--3", 3), ("-3+1d6", -3), ("+3+1d6", 3), ("1d6+3-1", 2)],
)
def test_signed_numbers_added_to_the_whole_are_its_modifier_a_whole_number(expression, modifier):
    rolled = roll(expression, [4])
    assert rolled.modifier == modifier and rolled.total == 4 + modifier
    assert f'"modifier":{modifier},'.encode() in msgspec.json.encode(rolled)  # as a log records it


# --- messages quote at most 40 characters ---------------------------------------------------------


@pytest.mark.parametrize("length", [39, 40, 41, 50])
def test_a_refused_formula_is_quoted_whole_up_to_40_characters_then_cut_to_37_and_dots(length):
    text = ("1+" * 30)[: length - 2] + "1$"
    assert len(text) == length
    shown = repr(text) if length <= 40 else repr(text[:37] + "...")
    assert f"can't read dice expression {shown};" in refusal(text)


# --- a parsed formula is shared: nothing in it can be changed ---------------------------------------


def test_every_part_of_a_parsed_formula_is_frozen():
    formula = parse("(1d20kh1+5,3)*-2").formula
    parts = []

    def walk(node):
        parts.append(node)
        if isinstance(node, DiceTerm):
            for op in node.operators:
                parts.append(op)
                parts.extend(op.selectors)
        elif isinstance(node, Unary):
            walk(node.inner)
        elif isinstance(node, Binary):
            walk(node.left)
            walk(node.right)
        elif isinstance(node, SetTerm):
            for item in node.items:
                walk(item)

    walk(formula.root)
    kinds = {type(p) for p in parts}
    assert {Binary, SetTerm, DiceTerm, Operator, Selector, Literal, Unary} <= kinds
    for part in [formula, *parts]:
        field = dataclasses.fields(part)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(part, field, getattr(part, field))


@pytest.mark.parametrize("text", ["1/(1%(1/3))", "9999999*9999999/(1%(1/3))"])
def test_a_division_by_a_float_remainder_past_the_cap_is_refused_when_rolled(text):
    parse(text)  # the bounds can't see a float remainder's size: it is read ...
    with pytest.raises(DiceError, match="passes 15 digits with these dice"):
        ScriptedDice([]).roll(text)  # ... and refused once the dice (here none) give it
