"""Dice: the expression parser and the four sources."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from combatlog.engine import DiceError, EnteredDice, NeedDice, RecordedDice, ScriptedDice, SeededDice, parse


def roll(expression, faces):
    return ScriptedDice(faces).roll(expression, "test")


def test_sums_dice_and_modifiers():
    r = roll("2d10+3-1", [7, 9])
    assert (r.faces, r.modifier, r.total) == ((7, 9), 2, 18)


def test_percentile_die_runs_from_1_to_100():
    assert parse("d%").sides == 100 and parse("d%").count == 1
    assert roll("d%", [100]).total == 100


@pytest.mark.parametrize(
    "expression, faces, kept, total",
    [
        ("4d6kh3", [1, 5, 3, 6], (5, 3, 6), 14),
        ("4d6kl1", [4, 5, 2, 6], (2,), 2),
        ("4d6dl1", [1, 5, 3, 6], (5, 3, 6), 14),
        ("4d6dh2", [1, 5, 3, 6], (1, 3), 4),
        ("2d20kh1+2", [4, 17], (17,), 19),
    ],
)
def test_keep_and_drop_highest_and_lowest(expression, faces, kept, total):
    r = roll(expression, faces)
    assert r.kept == kept and r.total == total and r.faces == tuple(faces)


def test_a_pool_counts_successes_against_the_difficulty():
    r = roll("5d10>=6", [6, 10, 1, 3, 7])
    assert r.successes == 3 and r.total == 3 and not r.botch


def test_ones_cancel_successes_and_a_pool_with_no_success_and_a_one_botches():
    assert roll("5d10>=6c", [6, 10, 1, 3, 7]).successes == 2
    botched = roll("3d10>=6c", [1, 3, 4])
    assert botched.successes == 0 and botched.botch
    assert not roll("3d10>=6c", [2, 3, 4]).botch


@pytest.mark.parametrize("bad", ["", "d", "2x6", "0d6", "2d1", "3d6kh4", "d6+", "two dice"])
def test_a_bad_expression_is_refused_with_what_is_accepted(bad):
    with pytest.raises(DiceError, match="use NdX|roll 1 to 1000|can't keep"):
        parse(bad)


def test_seeded_dice_repeat_for_the_same_seed_and_step_and_differ_between_steps():
    a = [SeededDice(42, 3).roll("10d10").faces for _ in range(2)]
    assert a[0] == a[1]
    assert SeededDice(42, 3).roll("10d10").faces != SeededDice(42, 4).roll("10d10").faces


def test_seeded_dice_never_touch_the_global_random_module():
    random.seed(1)
    expected = random.random()
    random.seed(1)
    SeededDice(5, 1).roll("20d20")
    assert random.random() == expected


def test_entered_dice_are_taken_roll_by_roll_and_marked_as_entered():
    dice = EnteredDice([(7, 9), (4,)])
    first = dice.roll("2d10", "initiative", by="ayla")
    assert first.faces == (7, 9) and first.source == "entered" and first.by == "ayla"
    assert dice.roll("1d6").total == 4


def test_entered_dice_that_run_out_say_which_roll_is_needed():
    with pytest.raises(NeedDice, match=r"2d10 \(initiative\): 2 number\(s\) from 1 to 10"):
        EnteredDice([]).roll("2d10", "initiative")


def test_an_entered_face_that_cannot_come_up_is_refused():
    with pytest.raises(DiceError, match="11 can't come up on a d10"):
        EnteredDice([(11, 2)]).roll("2d10", "initiative")
    with pytest.raises(DiceError, match="needs 2 face"):
        EnteredDice([(3,)]).roll("2d10", "initiative")


def test_recorded_dice_replay_a_log_and_report_a_different_request():
    recorded = [ScriptedDice([3, 4]).roll("2d6", "damage")]
    assert RecordedDice(recorded).roll("2d6", "damage").total == 7
    with pytest.raises(DiceError, match="recorded 2d6"):
        RecordedDice(recorded).roll("1d20", "attack")


@given(st.integers(1, 30), st.integers(2, 100), st.integers(0, 2**32))
def test_seeded_faces_stay_on_the_die(count, sides, seed):
    r = SeededDice(seed, 1).roll(f"{count}d{sides}")
    assert len(r.faces) == count and all(1 <= f <= sides for f in r.faces)
    assert r.total == sum(r.faces)


def test_zero_based_dice_read_0_to_9():
    assert ScriptedDice([0, 9]).roll("2d10z+1").total == 10
    faces = {f for step in range(200) for f in SeededDice(3, step).roll("2d10z").faces}
    assert faces == set(range(10))
    assert EnteredDice([(0, 0)]).roll("2d10z").total == 0
    with pytest.raises(DiceError, match="takes 0 to 9"):
        EnteredDice([(10, 1)]).roll("2d10z")
    with pytest.raises(NeedDice, match="from 0 to 9"):
        EnteredDice([]).roll("1d10z", "direction")


# --- typed dice mixed with the engine's, in a seeded encounter ---------------------------------


def _seeded_turn():
    from tests.builders import new_session

    s = new_session(seed=7, begin=True)
    actor = s.state.acting[0]
    foe = next(c.id for c in s.state.active() if c.side != s.state.combatants[actor].side)
    damage = s.state.combatants[actor].stats.damage
    return s, actor, foe, damage


def _rolls(envelopes):
    from combatlog.events import DiceRolled

    return [(e.event.expression, e.event.faces, e.event.source) for e in envelopes if isinstance(e.event, DiceRolled)]


def test_a_typed_damage_die_is_used_and_the_engine_rolls_the_attack():
    s, actor, foe, damage = _seeded_turn()
    die = damage.split("d")[1]
    envs = s.do("act", actor=actor, action="strike", targets=(foe,), entered=((1,),), entered_for=(f"1d{die}",))
    rolled = _rolls(envs)  # seed 7: the engine's attack hits, and the typed die is the damage
    assert rolled[0][2] == "engine" and rolled[0][0].startswith("1d20")
    assert rolled[1] == (f"1d{die}", (1,), "entered")
    from combatlog.replays.audit import audit

    assert audit(s.log, workers=1).clean


def test_a_typed_attack_die_matches_whatever_its_modifier():
    s, actor, foe, _ = _seeded_turn()
    envs = s.do("act", actor=actor, action="strike", targets=(foe,), entered=((20,),), entered_for=("1d20",))
    rolled = _rolls(envs)
    assert rolled[0][1:] == ((20,), "entered") and all(r[2] == "engine" for r in rolled[1:])
    from combatlog.replays.audit import audit

    assert audit(s.log, workers=1).clean


def test_a_typed_roll_no_roll_asks_for_is_refused_naming_what_was_rolled():
    from combatlog.engine import Refused

    s, actor, foe, _ = _seeded_turn()
    before = s.log.head()[0]
    with pytest.raises(Refused, match=r"it rolled 1d20"):
        s.do("act", actor=actor, action="strike", targets=(foe,), entered=((3, 3, 3),), entered_for=("3d6",))
    assert s.log.head()[0] == before


def test_auto_takes_typed_dice_too():
    s, actor, foe, _ = _seeded_turn()
    envs = s.auto(entered=((20,),), entered_for=("1d20",))
    assert any(r[1:] == ((20,), "entered") for r in _rolls(envs))


def test_a_critical_doubles_the_dice_not_the_modifier_and_natural_reads_the_kept_die():
    from combatlog.engine.dice import DiceError, ScriptedDice

    assert parse("2d6+3").scaled(2).text == "4d6+3"
    assert parse("1d10z").scaled(3).text == "3d10z"
    with pytest.raises(DiceError, match="only a plain sum"):
        parse("2d20kh1").scaled(2)
    advantage = ScriptedDice([20, 4]).roll("2d20kh1+5")
    assert advantage.natural == (20,) and advantage.total == 25
    assert ScriptedDice([3, 4]).roll("2d6+1").natural == (3, 4)


@pytest.mark.parametrize(
    ("expression", "says"),
    [
        ("2d" + "9" * 5000, "at most 64 characters"),
        ("1d\u0663", "ASCII digits"),
        ("1001d6", "roll 1 to 1000 dice of 2 to 1000000 sides"),
        ("1d2000000", "roll 1 to 1000 dice of 2 to 1000000 sides"),
        ("1d6+" + "9" * 20, "at most 7 a number"),
    ],
)
def test_an_expression_past_the_caps_is_refused_quoting_a_short_excerpt(expression, says):
    with pytest.raises(DiceError, match=re.escape(says)) as err:
        parse(expression)
    assert len(str(err.value)) < 300


def test_the_parse_cache_is_bounded():
    from combatlog.engine import dice

    for n in range(dice.PARSE_CACHE + 50):
        parse(f"1d6+{n}")
    assert len(dice._parsed) <= dice.PARSE_CACHE


def test_the_engines_dice_are_randints_of_the_steps_generator_made_on_the_first_roll():
    """The seeded source draws its faces straight from the generator's bits: they must be exactly
    `randint(low, high)` of a `random.Random` seeded for the step (logs audit against that), for
    any die, and seeding waits for the first roll."""
    import random

    from combatlog.engine.dice import SeededDice, parse, step_seed

    for seed, step in ((1, 1), (7, 42), (2**40, 3)):
        dice = SeededDice(seed, step)
        assert dice._bits is None  # a step that rolls nothing never seeds a generator
        rng = random.Random(step_seed(seed, step))
        for text in ("1d20", "2d10z", "d%", "3d6", "5d1000000", "1d2", "4d3z", "6d10>=6c"):
            expr = parse(text)
            want = tuple(rng.randint(expr.low, expr.high) for _ in range(expr.count))
            assert dice.faces(expr, "test") == want, (seed, step, text)
        assert dice.rng.random() == random.Random(step_seed(seed, step)).random()
