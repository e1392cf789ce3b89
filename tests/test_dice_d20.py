"""Dice: the syntax a table knows from Avrae's d20, with d20's totals, and what it refuses."""

from __future__ import annotations

import copy
import re

import msgspec
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from combatlog.engine import DiceError, EnteredDice, NeedDice, RecordedDice, Refused, ScriptedDice, SeededDice, parse
from combatlog.engine.dice import MixedDice
from combatlog.engine.grammar import typed_roll
from combatlog.events import DiceRolled, decode_line
from combatlog.replays.audit import audit
from tests.builders import PARTY, lines, new_session


def roll(expression, faces):
    dice = ScriptedDice(faces)
    rolled = dice.roll(expression, "test")
    assert dice.queue == [], f"{expression} left faces {dice.queue} unrolled"
    return rolled


# --- each form, against totals worked by hand --------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "faces", "total"),
    [
        ("1d8+2d6+3", [5, 2, 6], 16),  # each die of its own kind
        ("7", [], 7),  # a plain number rolls nothing
        ("2*3+1", [], 7),
        ("(1d20+5)*2", [10], 30),  # a critical, doubled
        ("1d8/2", [7], 3),  # halved, cut toward 0
        ("-1d8/2", [7], -3),  # d20's int() of -3.5
        ("1d8//2", [7], 3),
        ("-1d8//2", [7], -4),  # floor division
        ("1d100%10", [57], 7),
        ("((1d6))", [4], 4),
        ("1d6e6", [6, 6, 2], 14),  # explodes twice, then stops
        ("1d6e>4", [5, 6, 1], 12),
        ("2d6e6", [6, 3, 6, 1], 16),  # the first six's new die is a six again
        ("1d20rr1", [1, 1, 15], 15),  # rerolled until it isn't a 1
        ("1d20ro1", [1, 1], 1),  # rerolled once, whatever comes
        ("2d6ro<3", [1, 3, 6], 9),
        ("1d6ra6", [6, 4], 10),  # reroll and add: one more die
        ("8d6mi2", [1, 6, 4, 2, 6, 2, 5, 6], 33),
        ("4d6ma3", [1, 5, 6, 2], 9),
        ("4d6pl1", [1, 5, 3, 6], 14),  # d20's drop lowest
        ("4d6ph1kl1", [1, 5, 3, 6], 1),  # the highest dropped, then the lowest of the rest kept
        ("4d6kh1kl1", [1, 5, 3, 6], 7),  # one operator twice: both kept
        ("4d6k>4", [1, 5, 3, 6], 11),
        ("4d6p<3", [1, 5, 3, 2], 8),
        ("4d6p3", [3, 5, 3, 2], 7),  # p with a bare number drops those showing it
        ("4d6dl1+1d4", [1, 5, 3, 6, 2], 16),  # combatlog's dl in a formula
        ("(1d20,1d20)kh1", [7, 15], 15),  # a set: the better of two
        ("(2d6)kh1", [2, 5], 5),  # parentheses are the dice's own set
        ("(1,2,3,4,5)ph1pl1", [], 9),
        ("1d10z*10+1d10", [7, 3], 73),  # zero-based dice in a formula
        ("-+-++---+1", [], -1),  # d20's own test
        ("1+3*6", [], 19),
    ],
)
def test_a_d20_formula_totals_what_its_faces_give(expression, faces, total):
    rolled = roll(expression, faces)
    assert rolled.total == total and rolled.faces == tuple(faces)


# d20's README examples (github.com/avrae/d20, "Dice Syntax" and "Traversing Dice Results"),
# with the faces its printouts show; the dropped dice of 4d6e6kh3 it prints as X are ours.
@pytest.mark.parametrize(
    ("expression", "faces", "total"),
    [
        ("1d20+5", [10], 15),
        ("4d6kh3", [4, 4, 6, 3], 14),
        ("2d6ro<3", [1, 3, 6], 9),
        ("8d6mi2", [1, 6, 4, 2, 6, 2, 5, 6], 33),
        ("(1d4 + 1, 3, 2d6kl1)kh1", [2, 2, 5], 3),
        ("4d6e6kh3", [1, 5, 6, 6, 2, 3], 17),
        ("3d6 + 1d4 + 3", [4, 6, 6, 1], 20),
        ("-(1d8 + 3)", [7], -10),
        ("1 + 2 + 3 + 4", [], 10),
        ("-1d8 + 4 - (3, 1d4)kh1", [8, 3], -7),
    ],
)
def test_the_examples_of_d20s_readme_total_as_there(expression, faces, total):
    assert roll(expression, faces).total == total


def test_a_formula_records_every_face_the_values_that_count_and_its_added_numbers():
    rerolled = roll("2d6ro<3+2", [1, 3, 6])
    assert rerolled.faces == (1, 3, 6) and rerolled.kept == (6, 3) and rerolled.modifier == 2
    assert rerolled.natural == (6, 3)  # the first die counts as its reroll
    assert roll("8d6mi2", [1, 6, 4, 2, 6, 2, 5, 6]).kept == (2, 6, 4, 2, 6, 2, 5, 6)
    assert roll("1d6e6", [6, 2]).kept == (6, 2)
    mixed = roll("1d8+2d6+3-1", [5, 2, 6])
    assert mixed.kept is None and mixed.modifier == 2 and mixed.successes is None and not mixed.botch


def test_a_plain_roll_reads_as_before_and_as_the_same_roll_in_parentheses():
    plain = parse("4d6kh3+2")
    assert plain.formula is None and (plain.count, plain.sides, plain.keep, plain.modifier) == (4, 6, "kh", 2)
    assert parse("d%").formula is None and parse("6d10>=6c").formula is None
    assert roll("(4d6kh3+2)", [1, 5, 3, 6]).total == roll("4d6kh3+2", [1, 5, 3, 6]).total == 16


def test_a_formula_is_parsed_once():
    assert parse("1d8 + 2D6") is parse("1d8+2d6")


def test_a_critical_doubles_every_dice_term_of_a_formula():
    assert parse("1d8+1d6+2").scaled(2).text == "2d8+2d6+2"
    assert parse("(d8+2)*2").scaled(3).text == "(3d8+2)*2"
    assert parse("1d6e6+1").scaled(2).text == "2d6e6+1"
    for keeps in ("(1d20,1d20)kh1", "4d6pl1+1"):
        with pytest.raises(DiceError, match="only dice without keep or drop scale"):
            parse(keeps).scaled(2)


# --- where d20 and combatlog read a string differently: refused, with what to write -----------


@pytest.mark.parametrize(
    ("expression", "says"),
    [
        ("4d6k3", "write '4d6kh3' for the highest 3"),  # d20: keep the dice showing 3
        ("2d20k1+5", "write '2d20kh1+5'"),
        ("(1,2,3)k3", "kh3"),
        ("5d10>=6+1", "a success pool is NdX>=T alone"),  # d20: 1 if the sum is 7 or more
        ("6d10kh3>=6", "a success pool is NdX>=T alone"),
        ("1d20+5>=15", "comparisons aren't read"),
        ("(6d10>=6)", "comparisons aren't read"),
        ("2d6==7", "comparisons aren't read"),
        ("1d20>10", "comparisons aren't read"),
        ("1d6!=1", "comparisons aren't read"),
        ("d%+1d10", "write 1d100"),  # d20's tens die: 1d%+1d10 is its percentile roll
        ("2*d%", "d% alone is a percentile die (1-100)"),
    ],
)
def test_a_string_d20_reads_otherwise_is_refused_with_what_to_write(expression, says):
    with pytest.raises(DiceError, match=re.escape(says)):
        parse(expression)


def test_combatlogs_own_pool_and_percentile_die_keep_their_meaning_alone():
    pool = roll("5d10>=6c", [6, 10, 1, 3, 7])
    assert pool.successes == 2 and pool.total == 2  # d20 would say 1: the sum 27 is at least 6
    assert roll("d%", [100]).total == 100  # d20's d% is 0-90
    assert roll("1d20>=15", [15]).total == 1  # one die: the pool and d20's comparison agree


@pytest.mark.parametrize(
    ("expression", "says"),
    [
        ("1d6e>0", "e>0 would explode every die forever"),
        ("1d6rr<7", "rr<7 would reroll every die forever"),
        ("1d2rr1rr2", "rr2 would reroll every die forever"),
        ("1d6rrh1", "rrh1 would reroll every die forever"),
        ("1d6/0", "divides by 0 whatever the dice show"),
        ("1d6//(2*0)", "divides by 0"),
        ("1000d6+1d6", "roll 1 to 1000 dice"),
        ("0d6+1", "roll 1 to 1000 dice"),
        ("1d1+1", "of 2 to 1000000 sides"),
        ("9999999*9999999*9999999", "its total could pass 15 digits"),
        ("1000d1000000*1000000", "its total could pass 15 digits"),
        ("(2d6)e6", "go after dice (1d6e6), not after ( )"),
        ("2d6mih1", "mi takes a number"),
        ("3d6[fire]", "annotations such as [fire] aren't read"),
        ("1.5*1d6", "whole numbers only"),
        ("1d6+12345678", "at most 7 a number"),
        ("1d6+", "expected a number, dice (NdX) or ("),
        ("1d6 *", "at its end"),
        ("((1d6)", "expected , or ) in ( )"),
        ("1d6)", "a ) with no ( before it"),
        ("1d6,2", "a comma separates the items of a set"),
        ("1d6kh", "kh needs a number"),
        ("1d6x", "expected + - * / // % or the end"),
        ("1d20 I rolled a d20", "can't read dice expression"),  # d20's comments
    ],
)
def test_a_formula_that_cant_be_rolled_is_refused_in_one_line_quoting_at_most_40_characters(expression, says):
    with pytest.raises(DiceError, match=re.escape(says)) as err:
        parse(expression)
    message = str(err.value)
    assert "\n" not in message and len(message) < 400
    assert all(len(q) <= 40 for q in re.findall(r"'([^']*)'", message))


def test_a_roll_past_1000_dice_stops_as_d20_does():
    with pytest.raises(DiceError, match="rolled more than 1000 dice, rerolls and explosions counted"):
        ScriptedDice([2] * 1001).roll("1d2e2")
    assert roll("1d2e2", [2] * 999 + [1]).total == 2 * 999 + 1


def test_a_division_by_0_the_dice_make_is_refused_when_rolled():
    with pytest.raises(DiceError, match="divides by 0 with these dice"):
        ScriptedDice([3, 1]).roll("1d6/(1d2-1)")


@pytest.mark.parametrize(
    "given", [10**5000, -(10**5000), None, 2.5, b"1d6"], ids=["5001 digits", "-5001 digits", "None", "2.5", "bytes"]
)
def test_what_isnt_text_is_refused_without_writing_it_out(given):
    with pytest.raises(DiceError, match="a dice expression is text"):
        parse(given)


def test_a_face_or_a_scale_past_pythons_digit_limit_is_refused_without_writing_it_out():
    huge = 10**5000
    with pytest.raises(DiceError, match="a number past 15 digits"):
        EnteredDice([(huge,)]).roll("1d6")
    with pytest.raises(DiceError, match="a number past 15 digits"):
        EnteredDice([(huge, 1)]).roll("1d6+1d4")
    with pytest.raises(DiceError, match="1 to 1000"):
        parse("1d6").scaled(huge)
    with pytest.raises(DiceError, match="a number past 15 digits"):
        ScriptedDice([huge]).roll("1d6")


# --- entered faces: as many as the formula rolls, each on its own die ---------------------------


def test_entered_faces_of_an_exploding_roll_are_read_in_the_order_rolled():
    rolled = EnteredDice([(6, 6, 2)]).roll("1d6e6+1", "damage", by="ayla")
    assert rolled.total == 15 and rolled.faces == (6, 6, 2) and rolled.source == "entered"
    with pytest.raises(DiceError, match="rolls more dice than the 2 face"):
        EnteredDice([(6, 6)]).roll("1d6e6", "damage")  # the second six explodes too
    with pytest.raises(DiceError, match=re.escape("rolls 1 dice, 2 face(s) were given: [3, 4]")):
        EnteredDice([(3, 4)]).roll("1d6e6", "damage")


def test_each_entered_face_of_mixed_dice_is_checked_against_its_own_die():
    assert EnteredDice([(8, 6, 6)]).roll("1d8+2d6").total == 20
    with pytest.raises(DiceError, match="7 can't come up on a d6; 1d8\\+2d6 \\(damage\\) takes 3 number"):
        EnteredDice([(7, 7, 2)]).roll("1d8+2d6", "damage")


def test_a_formula_not_entered_asks_for_its_dice_in_order():
    with pytest.raises(NeedDice, match=r"1d8\+2d6 \(damage\): 3 number\(s\), in order: 1d8, then 2d6"):
        EnteredDice([]).roll("1d8+2d6", "damage")
    with pytest.raises(NeedDice, match="1 number\\(s\\) or more, in the order rolled: 1d6, then each reroll"):
        EnteredDice([]).roll("1d6e6", "damage")


def test_a_typed_line_of_a_formula_is_checked_like_its_roll():
    assert typed_roll("1d6e6: 6 6 2") == ("1d6e6", (6, 6, 2))
    assert typed_roll("(1d20 + 5)*2: 15") == ("(1d20+5)*2", (15,))
    with pytest.raises(ValueError, match="7 can't come up on a d6"):
        typed_roll("1d8+2d6: 7 7 2")
    with pytest.raises(ValueError, match="write '4d6kh3'"):
        typed_roll("4d6k3: 1 2 3 4")


def test_a_typed_formula_is_used_where_its_dice_match_else_the_engine_rolls():
    seeded = SeededDice(1, 1)
    dice = MixedDice([(6, 6, 2), (3, 4, 5)], ["1d6e6", ""], seeded)
    assert dice.roll("1d6e6+2", "a").total == 16  # the dice named, whatever the modifier
    bare = dice.roll("1d8+2d6", "b")  # bare faces: as many as it rolls
    assert (bare.faces, bare.source) == ((3, 4, 5), "entered")
    engine = MixedDice([(4,)], ["1d20"], SeededDice(1, 1)).roll("1d20+1d4", "c")
    assert engine.source == "engine" and len(engine.faces) == 2


def test_a_seedless_fight_asks_for_a_formulas_faces_and_audits_them_as_typed():
    party = copy.deepcopy(PARTY)
    for c in party:
        c["stats"]["damage"] = "1d8+2d6"
    s = new_session(seed=None, combatants=party)
    s.do("begin", entered=((20,), (10,), (5,), (4,)))
    actor = s.state.acting[0]
    with pytest.raises(Refused, match=r"enter the faces for 1d8\+2d6 \(strike damage to g1\) by ayla: 3 number"):
        s.do("act", actor=actor, action="strike", targets=("g1",), entered=((20,),))
    s.do("act", actor=actor, action="strike", targets=("g1",), entered=((20,), (5, 3, 4)))
    assert s.state.combatants["g1"].damage == 12
    assert audit(s.log, workers=1).clean


# --- the audit of a log whose dice exploded -------------------------------------------------------


def _exploding_fight():
    """A seeded skirmish whose damage explodes (1d4e4+1), played out; the first seed (from 1)
    whose fight has a damage roll that exploded."""
    party = copy.deepcopy(PARTY)
    for c in party:
        c["stats"]["damage"] = "1d4e4+1"
    for seed in range(1, 30):
        s = new_session(seed=seed, combatants=party, begin=True)
        s.play_out()
        raw = lines(s)
        exploded = [
            i
            for i, line in enumerate(raw)
            if b'"DiceRolled"' in line and len(decode_line(line).event.faces) > 1 and b"1d4e4" in line
        ]
        if exploded:
            return s, raw, exploded[0]
    raise AssertionError("no seed from 1 to 29 explodes a damage die")


def test_a_log_whose_dice_exploded_audits_clean_and_a_changed_explosion_is_found():
    from tests.test_audit import _audit_raw, resealed

    s, raw, i = _exploding_fight()
    assert audit(s.log, workers=1).clean
    event = decode_line(raw[i]).event
    assert event.faces[0] == 4 and event.total == sum(event.faces) + 1

    def fewer(e):  # the explosion's die taken away, the total made to fit
        return msgspec.structs.replace(e, faces=e.faces[:1], total=e.faces[0] + 1)

    findings = _audit_raw(resealed(raw, i, fewer))
    assert findings and "rolls more dice than the 1 face" in findings[0].message

    def changed(e):  # the last die shows another face, the total made to fit
        last = e.faces[-1] % 3 + 1
        return msgspec.structs.replace(e, faces=(*e.faces[:-1], last), total=sum(e.faces[:-1]) + last + 1)

    findings = _audit_raw(resealed(raw, i, changed))
    assert findings and findings[0].kind == "dice" and "the encounter's seed gives" in findings[0].message

    def off(e):  # a face a d4 can't show
        return msgspec.structs.replace(e, faces=(*e.faces[:-1], 5), total=sum(e.faces[:-1]) + 6)

    findings = _audit_raw(resealed(raw, i, off))
    assert findings and findings[0].kind == "dice" and "shows 5, which a d4 can't show" in findings[0].message


# --- properties: a roll reads back from its own faces --------------------------------------------

_OPS = ["", "", "kh1", "kl1", "pl1", "ro1", "ra>2", "e6", "mi2", "ma5", "rr1", "k>3", "p<2", "e>5"]
_terms = st.builds(
    lambda n, s, op: f"{n}d{s}{op.replace('6', str(s)) if op.startswith('e') else op}",
    st.integers(1, 4),
    st.sampled_from([4, 6, 8, 10, 20]),
    st.sampled_from(_OPS),
)
_atoms = st.one_of(_terms, st.integers(0, 9).map(str), _terms.map(lambda t: f"({t})"))
_formulas = st.builds(
    lambda first, rest: first + "".join(op + a for op, a in rest),
    _atoms,
    st.lists(st.tuples(st.sampled_from(["+", "-", "*", "+", "//"]), _atoms), max_size=3),
).filter(lambda t: len(t) <= 64 and "//0" not in t)


@settings(max_examples=150, deadline=None)
@given(_formulas, st.integers(0, 2**32))
def test_a_roll_totals_what_its_recorded_faces_give_when_typed_in_or_audited(text, seed):
    try:
        rolled = SeededDice(seed, 1).roll(text, "p")
    except DiceError as exc:  # a divisor its dice made 0 (kh1 of 1d4k>3 can keep nothing)
        assume("divides by 0" not in str(exc))
        raise
    assert parse(text).takes(len(rolled.faces))
    again = EnteredDice([rolled.faces]).roll(text, "p")
    assert (again.total, again.kept, again.modifier) == (rolled.total, rolled.kept, rolled.modifier)
    assert RecordedDice([rolled], SeededDice(seed, 1)).roll(text, "p") == rolled


@settings(max_examples=150, deadline=None)
@given(
    st.integers(1, 6),
    st.sampled_from([2, 6, 10, 20]),
    st.sampled_from(["", "kh1", "kl2", "dl1", "dh1"]),
    st.integers(-9, 9),
    st.data(),
)
def test_a_plain_roll_and_the_same_roll_as_a_formula_give_the_same_total(count, sides, keep, mod, data):
    if keep and int(keep[-1]) > count:
        keep = ""
    text = f"{count}d{sides}{keep}{mod:+d}"
    faces = data.draw(st.lists(st.integers(1, sides), min_size=count, max_size=count))
    plain, formula = roll(text, faces), roll(f"({text})", faces)
    assert parse(text).formula is None and parse(f"({text})").formula is not None
    assert formula.total == plain.total
    # the same dice kept; of tied dice d20 keeps the earlier, combatlog's plain roll the later
    assert sorted(formula.kept or ()) == sorted(plain.kept or ())


def test_a_formulas_roll_is_recorded_as_the_event_it_always_was():
    rolled = SeededDice(3, 2).roll("1d8+2d6+3", "damage", by="ayla")
    assert isinstance(rolled, DiceRolled) and rolled.purpose == "damage" and rolled.by == "ayla"
    assert rolled.source == "engine" and len(rolled.faces) == 3


def test_a_stat_typed_as_a_comparison_is_refused_with_the_total_to_give():
    from tests.builders import fighter, new_session

    s = new_session(seed=1, combatants=())
    with pytest.raises(Refused, match=r"'5d10>=6' counts the dice showing 6 or more here, where d20 gives 1 or 0"):
        s.do("add", **fighter("g9", "goblins", hp=5, init=0, attack=0, defense=10, damage="5d10>=6", ap=5))
    assert "g9" not in s.state.combatants
    s.do("add", **fighter("g9", "goblins", hp=5, init=0, attack=0, defense=10, damage="1d20>=15", ap=5))  # d20 agrees
