"""Straalara's rules one sentence at a time ("004: Combat Turns",
`shared/rules/001_945e0f0cccd3588e.txt`; readings in `docs/rules/straalara.md`).

Each test quotes the sentence it holds the engine to and works its numbers through with the
dice given by the roll they are for. The fighters are those of `tests/test_straalara.py`:
Dexterity 3, Wits 2, Stamina 3; sword 4 dice of damage (Weaponry 3), knife 2 (Athletics 2),
parry 5 (Melee 2), dodge 5 (Dodge 2), block 4 (Brawl 1), soak 3.
"""

from __future__ import annotations

import re

import msgspec
import pytest

from combatlog.engine import Refused, get_rules
from combatlog.engine.rules.straalara.events import Dazed, DazingBlow
from combatlog.engine.rules.straalara.order import second_score, tiers
from combatlog.events import ActionDeclared, CombatantDefeated, DamageApplied, InitiativeRolled, Moved, OrderSet
from combatlog.testing import fight
from tests.test_straalara import NO, f

NEXT_TURN = {"initiative": [1, 1]}  # the last declaration resolves the turn; the next one's initiative


def duel(defense: str = "none", stance: str = "partial", options: dict | None = None, **stats_b: object):
    """a (score 15) against b (score 8), who declares first: `stance` and `defense`."""
    d = fight(
        "straalara",
        f("a", "x"),
        f("b", "y", **stats_b),
        dice={"initiative by a": 10, "initiative by b": 3},
        **(options or {}),
    )
    d.act("b", "defend", stance=stance, defense=defense)
    return d


# --- pools ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("weapon", "dice"),
    [
        ({"name": "fists", "kind": "brawl", "damage": 1}, 4),  # Dexterity 3 + Brawl 1
        ({"name": "sword", "kind": "melee", "damage": 4}, 6),  # Dexterity 3 + Weaponry 3
        ({"name": "bow", "kind": "bow", "damage": 3}, 5),  # Dexterity 3 + Archery 2
        ({"name": "knife", "kind": "thrown", "damage": 2}, 5),  # Dexterity 3 + Athletics 2
        ({"name": "bolt", "kind": "spell", "damage": 3, "pool": 7}, 7),  # the spell's own pool
    ],
)
def test_an_attack_pool_is_dexterity_plus_the_ability_its_kind_names(weapon, dice):
    # "Brawl (Dexterity + Brawl) ... Melee (Dexterity + Weaponry) ... Bows & Crossbows (Dexterity
    # + Archery) ... Thrown weapons (Dexterity + Athletics) ... Spellcasting (See spell description)"
    d = fight(
        "straalara",
        f("a", "x", archery=2, weapons=[weapon]),
        f("b", "y"),
        dice={"initiative by a": 10, "initiative by b": 3},
    )
    d.act("b", "defend", stance="partial", defense="none")
    step = d.act("a", "attack", "b", stance="partial", dice={"at b by a": NO * dice, **NEXT_TURN})
    assert step.rolls[0].expression == f"{dice}d10>=6c"
    assert step.outcomes[0] == "a miss: no successes at difficulty 6"


@pytest.mark.parametrize(("defense", "dice"), [("block", 4), ("parry", 5), ("dodge", 5), ("spell", 6)])
def test_a_defense_pool_is_dexterity_plus_brawl_melee_or_dodge_or_the_spells(defense, dice):
    # "Blocking (Dexterity + Brawl) ... Parrying (Dexterity + Melee) ... Dodging (Dexterity + Dodge)"
    d = duel(defense, spell_defense=6)
    saved = (9,) + NO * (dice - 1)  # one success saves the attack's one
    step = d.act("a", "attack", "b", stance="partial", dice={"sword": (9,) + NO * 5, "by b": saved, **NEXT_TURN})
    assert step.rolls[1].expression == f"{dice}d10>=6c"
    assert step.outcomes[0].endswith(": no hit")


def test_soak_is_the_stamina_pool_unless_the_file_gives_one():
    for stats, dice in (({}, 3), ({"soak": 5}, 5)):
        d = duel(**stats)
        step = d.act(
            "a",
            "attack",
            "b",
            stance="partial",
            dice={"sword at b": (9,) + NO * 5, "sword damage": (7,) * 4, "soak by b": NO * dice, **NEXT_TURN},
        )
        assert step.rolls[2].expression == f"{dice}d10>=6"
        assert d.damage("b") == 4


# --- difficulty -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("modifier", "difficulty"), [(-9, 2), (-5, 2), (-4, 2), (-3, 3), (3, 9), (4, 10), (5, 10), (9, 10)]
)
def test_an_attacks_difficulty_is_6_adjusted_by_its_modifier_and_kept_within_2_and_10(modifier, difficulty):
    # "The difficulty for most attacks is 6. It can be adjusted for situational modifiers"
    d = duel()
    # every die a 1 and a face under the difficulty: no success whatever the difficulty, a botch
    step = d.act("a", "attack", "b", stance="partial", modifier=modifier, dice={"sword": (1,) * 6})
    assert step.rolls[0].expression == f"6d10>={difficulty}c"


def test_a_weapons_own_difficulty_replaces_the_base_one():
    heavy = {"name": "maul", "kind": "melee", "damage": 5, "difficulty": 8}
    d = fight(
        "straalara",
        f("a", "x", weapons=[heavy]),
        f("b", "y"),
        dice={"initiative by a": 10, "initiative by b": 3},
    )
    d.act("b", "defend", stance="partial", defense="none")
    step = d.act("a", "attack", "b", stance="partial", modifier=1, dice={"maul": (1,) * 6})
    assert step.rolls[0].expression == "6d10>=9c"


# --- damage, Dazed, Incapacitated -------------------------------------------------------------


def _hit_for(d, levels: int, goes_on: bool = True):
    """a's sword: 1 success, damage 4 dice with `levels` successes, b soaks nothing (then the
    next turn's initiative, if the fight `goes_on`)."""
    damage = (7,) * levels + NO * (4 - levels)
    dice = {"sword at b": (9,) + NO * 5, "sword damage": damage, "soak by b": NO * 3}
    return d.act("a", "attack", "b", stance="partial", dice={**dice, **(NEXT_TURN if goes_on else {})})


@pytest.mark.parametrize(("levels", "dazed"), [(3, False), (4, True)])
def test_more_levels_than_stamina_from_one_attack_dazes(levels, dazed):
    # "Dazed: When suffering more damage than Stamina." b's Stamina is 3
    d = duel()
    step = _hit_for(d, levels)
    assert bool(step.of(DazingBlow)) is dazed and bool(step.of(Dazed)) is dazed


def test_damage_successes_become_lost_health_levels_and_the_wound_penalty_comes_with_them():
    # "Apply any net damage successes as lost health levels to the defender. Wound penalties take
    # effect immediately." The default track: Bruised 0, Hurt -1, Injured -1, Wounded -2 ...
    d = duel()
    _hit_for(d, 2)
    assert d.damage("b") == 2
    assert d.session.rules.health_level(d.state, d.state.combatants["b"]) == "hurt"
    # b's next parry rolls 5 - 1 = 4 dice
    d.act("b", "defend", stance="partial", defense="parry")
    saved = (9,) + NO * 3
    step = d.act("a", "attack", "b", stance="partial", dice={"sword": (9,) + NO * 5, "parry by b": saved, **NEXT_TURN})
    assert step.rolls[1].expression == "4d10>=6c"


@pytest.mark.parametrize(("levels", "down"), [(6, False), (7, True)])
def test_losing_more_levels_than_the_track_holds_is_incapacitated(levels, down):
    # "Characters who reach Incapacitated collapse": the track holds 6 levels before it
    d = duel()
    d.do("override", reason="old wounds", damage={"target": "b", "amount": levels - 1})
    step = _hit_for(d, 1, goes_on=not down)
    assert bool(step.of(CombatantDefeated)) is down
    if down:
        assert step.of(CombatantDefeated) == [CombatantDefeated(combatant="b", how="incapacitated")]


def test_incapacitated_is_death_when_the_table_says_so():
    d = duel(options={"incapacitated": "die"})
    d.do("override", reason="old wounds", damage={"target": "b", "amount": 6})
    step = _hit_for(d, 1, goes_on=False)
    assert step.of(CombatantDefeated) == [CombatantDefeated(combatant="b", how="dead")]


def test_the_defense_stance_adds_4_dice_to_soak():
    # "Defense: Character may not attack, but gets a +4 dice to add to any Soak, Parry or Dodge rolls."
    d = duel(stance="defense")
    step = d.act(
        "a",
        "attack",
        "b",
        stance="partial",
        dice={"sword at b": (9,) + NO * 5, "sword damage": (7,) * 4, "soak by b": NO * 7, **NEXT_TURN},
    )
    assert step.rolls[2].expression == "7d10>=6"
    assert step.of(DamageApplied)[0].amount == 4


# --- the order --------------------------------------------------------------------------------


@pytest.mark.parametrize(("score", "second"), [(15, 5), (11, 1), (10, 0), (9, 0)])
def test_offense_acts_again_at_initiative_minus_10_or_0_whichever_is_higher(score, second):
    # "Character gets actions on their initial initiative and again at initiative -10 or 0,
    # whichever is higher."
    assert second_score(score) == second


def test_the_order_ranks_score_then_rating_and_equal_pairs_share_a_tier():
    # "If two characters have the same score, the one with the higher basic initiative rating goes
    # first. If initiative ratings are also tied, the characters act simultaneously."
    entries = [("a", 10, 5), ("b", 12, 3), ("c", 10, 6), ("d", 10, 5), ("e", 9, 9)]
    assert tiers(entries) == (("b",), ("c",), ("a", "d"), ("e",))


def test_defaults_of_a_fighter_given_only_wits_dexterity_and_stamina():
    # every ability not given is 0: a brawl attack is Dexterity alone
    bare = {"wits": 1, "dexterity": 2, "stamina": 2, "weapons": [{"name": "fists", "kind": "brawl", "damage": 1}]}
    d = fight(
        "straalara",
        {"id": "a", "name": "A", "side": "x", "kind": "npc", "stats": bare},
        f("b", "y"),
        dice={"initiative by a": 10, "initiative by b": 3},
    )
    d.act("b", "defend", stance="partial", defense="none")
    step = d.act("a", "attack", "b", stance="partial", dice={"fists": NO * 2, **NEXT_TURN})
    assert step.rolls[0].expression == "2d10>=6c"


# --- declarations: stance, defense, tasks, moves ----------------------------------------------


def test_a_wound_penalty_takes_dice_from_a_task_pool_too():
    # docs: "Wound penalties remove dice from attack, defense and task pools": Hurt (-1) from 3
    d = duel()
    d.do("override", reason="old wounds", damage={"target": "a", "amount": 2})
    step = d.act("a", "task", pool=3, effect="the gate shuts", stance="partial", dice={"shuts": (8, 2), **NEXT_TURN})
    assert step.rolls[0].expression == "2d10>=6c"


def test_a_tasks_1s_cancel_its_successes_and_net_successes_take_effect():
    # "if the action is not an attack AND the action does not otherwise cause damage AND the
    # acting player is left with net successes the action is automatic"; 8, 8, 1: one net
    d = duel()
    step = d.act(
        "a", "task", pool=3, effect="the door is barred", stance="partial", dice={"barred": (8, 8, 1), **NEXT_TURN}
    )
    assert step.outcomes[0] == "1 net successes: the door is barred"


@pytest.mark.parametrize(("faces", "said"), [((1, 2, 2), "a botch: it fails"), ((2, 2, 2), "no successes: it fails")])
def test_a_task_without_net_successes_fails_and_a_1_among_them_is_a_botch(faces, said):
    d = duel()
    step = d.act(
        "a", "task", pool=3, effect="the door is barred", stance="partial", dice={"barred": faces, **NEXT_TURN}
    )
    assert step.outcomes[0] == said


def test_a_task_of_no_dice_is_taken_and_fails():
    d = duel()
    step = d.act("a", "task", pool=0, effect="a wish", stance="partial", dice=NEXT_TURN)
    assert step.outcomes[0] == "no successes: it fails" and not step.rolls[:-2]


@pytest.mark.parametrize("key", ["pool", "difficulty", "turns"])
def test_a_tasks_numbers_below_0_are_refused(key):
    d = duel()
    params = {"pool": 3, key: -1}
    with pytest.raises(Refused, match=f"{key} must be a whole number, not -1"):
        d.act("a", "task", effect="x", stance="partial", **params)


@pytest.mark.parametrize("value", [True, "3"])
def test_a_version_2_task_pool_that_isnt_a_whole_number_is_refused(monkeypatch, value):
    # version 2 took any parameter: the task's own check refused what isn't a whole number
    monkeypatch.setattr(type(get_rules("straalara")), "version", "2")
    d = duel()
    with pytest.raises(Refused, match=f"pool must be a whole number, not {value!r}"):
        d.act("a", "task", pool=value, effect="x", stance="partial")


def test_the_defense_stance_may_move_and_take_a_task_though_not_attack():
    # "Defense: Character may not attack"
    d = fight("straalara", f("a", "x"), f("b", "y"), f("c", "y"), dice={"initiative": [10, 3, 2]})
    d.act("c", "task", pool=0, effect="waits", stance="defense")
    d.act("b", "move", move_to="the bridge", stance="defense")
    step = d.act("a", "defend", stance="partial", dice={"initiative": [1, 1, 1]})
    assert any(isinstance(e, Moved) and e == Moved(combatant="b", to="the bridge", distance=0) for e in step.events)


def test_a_move_needs_a_place():
    d = duel()
    with pytest.raises(Refused, match="say where to: move_to=<place>"):
        d.act("a", "move", stance="partial")


def test_the_defense_declared_with_the_turns_first_action_holds_for_its_second():
    # "the defense used against attacks this turn": Offense declares parry, and again parry
    d = fight("straalara", f("a", "x"), f("b", "y"), dice={"initiative": [10, 3]})
    d.act("b", "defend", stance="offense", defense="parry")
    d.act("a", "defend", stance="partial", defense="none")
    with pytest.raises(Refused, match=r"the defense declared this turn \(parry\) holds for the whole turn"):
        d.act("b", "defend", defense="none")
    d.act("b", "defend", defense="parry", dice=NEXT_TURN)  # the same again: taken


def test_the_actions_that_take_no_target_are_listed_so():
    from click.testing import CliRunner

    from combatlog.cli.main import app

    out = CliRunner().invoke(app, ["rulesets", "straalara"]).output
    listed = [line.split(":")[0].strip() for line in out.splitlines() if line.startswith("  action ")]
    assert listed == [
        "action attack [1 action; enemy]",
        "action defend [1 action; no target]",
        "action move [1 action; no target]",
        "action task [1 action; no target]",
    ]


# --- what an attack tells --------------------------------------------------------------------


def test_an_attack_tells_successes_parried_damage_soaked_and_levels_lost():
    # 2 successes, 1 parried: 1 net; damage 4 + (1 - 1) = 4 dice: 1 success; soak 0: 1 level
    d = duel("parry")
    dice = {
        "sword at b": (9, 9, 2, 2, 2, 2),
        "parry by b": (9, 2, 2, 2, 2),
        "sword damage": (7, 2, 2, 2),
        "soak by b": NO * 3,
        **NEXT_TURN,
    }
    step = d.act("a", "attack", "b", stance="partial", dice=dice)
    assert step.outcomes[0] == "2 successes, 1 parried; damage 4 dice: 1 − 0 soaked = 1 health level"
    d.act("b", "defend", stance="partial", defense="none")
    dice = {"sword at b": (9,) + NO * 5, "sword damage": (7, 7, 2, 2), "soak by b": NO * 3, **NEXT_TURN}
    step = d.act("a", "attack", "b", stance="partial", dice=dice)
    assert "1 success; damage 4 dice: 2 − 0 soaked = 2 health levels" in step.outcomes


def test_soak_above_the_damage_takes_no_level_and_heals_none():
    # "Any soak successes reduce the net damage successes": 1 damage, 3 soaked, 0 levels
    d = duel()
    dice = {"sword at b": (9,) + NO * 5, "sword damage": (7, 2, 2, 2), "soak by b": (6, 6, 6), **NEXT_TURN}
    step = d.act("a", "attack", "b", stance="partial", dice=dice)
    assert step.outcomes[0] == "1 success; damage 4 dice: 1 − 3 soaked = 0 health levels"
    assert not step.of(DamageApplied) and d.damage("b") == 0


@pytest.mark.parametrize(("defense", "rolled"), [("dodge", False), ("parry", True)])
def test_an_attack_the_defender_cant_sense_takes_away_its_dodge_alone(defense, rolled):
    # "Dodging ... is useful against any attack the defender can sense coming (Storyteller's
    # discretion)": `unseen` is that ruling; a parry still stands
    d = duel(defense)
    dice = {"sword at b": (9,) + NO * 5, **({f"{defense} by b": (9,) + NO * 4} if rolled else {})}
    if not rolled:
        dice |= {"sword damage": NO * 4}
    step = d.act("a", "attack", "b", stance="partial", unseen=True, dice={**dice, **NEXT_TURN})
    assert any(r.purpose == f"{defense} against a" for r in step.rolls) is rolled
    assert ("(unseen: no dodge)" in step.outcomes[0]) is not rolled


def test_an_attack_may_move_first():
    # "Moving: Characters can move their up to their full walk speed and still attack."
    d = duel()
    step = d.act("a", "attack", "b", stance="partial", move_to="the ford", dice={"sword": NO * 6, **NEXT_TURN})
    assert step.of(Moved) == [Moved(combatant="a", to="the ford", distance=0)]


@pytest.mark.parametrize(
    ("levels", "named"), [(0, "healthy"), (1, "bruised"), (2, "hurt"), (6, "crippled"), (7, "incapacitated")]
)
def test_the_health_level_after_each_level_lost(levels, named):
    # the default track: Bruised, Hurt, Injured, Wounded, Mauled, Crippled, then Incapacitated
    from combatlog.engine.rules.straalara.attack import health_level

    d = duel()
    if levels:
        d.do("override", reason="old wounds", damage={"target": "b", "amount": levels})
    state = d.state
    assert health_level(d.session.rules, state, state.combatants["b"]).lower() == named


def test_a_dazed_combatant_who_lost_its_declaration_defends_with_none_not_last_turns_parry():
    # b (15) parries in turn 1 and acts before a (8), whose blow then dazes it (4 levels >
    # Stamina 3): b's next declaration is lost, and in turn 2 a's blow meets no parry
    d = fight("straalara", f("a", "x"), f("b", "y"), dice={"initiative by a": 3, "initiative by b": 10})
    d.act("a", "attack", "b", stance="partial")
    dice = {
        "sword at b": (9, 9, 2, 2, 2, 2),
        "parry by b": NO * 5,
        "sword damage": (7, 7, 7, 7, 2),
        "soak by b": NO * 3,
        "initiative": [3, 10],
    }
    step = d.act("b", "defend", stance="partial", defense="parry", dice=dice)
    assert "dazed" in d.conditions("b")
    dice = {"sword at b": (9,) + NO * 5, "sword damage": NO * 4, **NEXT_TURN}
    step = d.act("a", "attack", "b", stance="partial", dice=dice)
    assert [r.purpose for r in step.rolls][:2] == ["sword at b", "sword damage to b"]  # no parry rolled


# --- the model: wound penalties, default defenses, the automatic combatant's weapon ------------


@pytest.mark.parametrize(
    ("lost", "penalty"), [(0, 0), (1, 0), (2, -1), (3, -1), (4, -2), (5, -2), (6, -5), (7, -5), (9, -5)]
)
def test_the_default_tracks_wound_penalty_after_each_level_lost(lost, penalty):
    # docs: "default Bruised 0, Hurt -1, Injured -1, Wounded -2, Mauled -2, Crippled -5. After
    # losing k levels the penalty is the k-th level's"; past the track, the last one's
    from combatlog.engine.rules.straalara.model import Options

    assert Options().wound_penalty(lost) == penalty


def _stats(**given: object):
    from combatlog.engine.rules.straalara.model import Stats

    return msgspec.convert({"wits": 2, "dexterity": 3, "stamina": 3, **given}, Stats)


def test_pools_default_to_dexterity_alone_and_a_spell_without_a_pool_to_none():
    # every ability not given is 0, and so is the defensive spell's pool
    kinds = ("brawl", "melee", "bow", "thrown", "spell")
    s = _stats(weapons=[{"name": kind, "kind": kind, "damage": 1} for kind in kinds])
    assert [s.attack_pool(w) for w in s.weapons] == [3, 3, 3, 3, 0]
    assert [s.defense_pool(d) for d in ("block", "parry", "dodge", "spell", "none")] == [3, 3, 3, 0, 0]
    assert s.soak_dice == 3  # Stamina


@pytest.mark.parametrize(
    ("given", "v2", "v3"),
    [
        # block 4, parry 5, dodge 5: the first of equals
        ({"brawl": 1, "melee": 2, "dodge": 2}, {"offense": "parry", "partial": "parry", "defense": "parry"}, "parry"),
        # a big block: Offense took it up to version 2; version 3 keeps it to a parry
        ({"brawl": 4, "melee": 1}, {"offense": "block", "partial": "block", "defense": "block"}, "parry"),
        # the Defense stance's 4 dice go to a dodge and not a block (version 3)
        ({"brawl": 3, "dodge": 1}, {"offense": "block", "partial": "block", "defense": "block"}, "dodge"),
        # a spell's pool beats the rest
        ({"spell_defense": 9}, {"offense": "spell", "partial": "spell", "defense": "spell"}, "spell"),
        # 10 for a spell beats a dodge of 5 with the Defense stance's 4 (version 3)
        ({"dodge": 2, "spell_defense": 10}, {"offense": "spell", "partial": "spell", "defense": "spell"}, "spell"),
    ],
)
def test_a_declaration_without_a_defense_takes_the_biggest_pool_its_stance_allows(given, v2, v3):
    # docs: "without `defense`, the stance's defense with the biggest pool, the Defense stance's 4
    # dice counted (block on a tie ...; with Offense, a parry)"
    s = _stats(**given)
    assert s.best_defenses == v2
    assert s.best_defenses_v3["defense"] == v3
    assert s.best_defenses_v3["offense"] in ("parry", "none")


def test_of_equal_pools_the_first_the_stance_lists_is_taken():
    # partial lists block, parry, dodge, spell: parry 5 and dodge 5 tie, and parry comes first
    s = _stats(brawl=1, melee=2, dodge=2)
    assert s.best_defenses_v3["partial"] == s.best_defenses["partial"] == "parry"


def test_a_fighter_with_no_defense_at_all_defends_with_none_and_one_die_is_a_defense():
    s = _stats(dexterity=0)
    assert s.best_defenses == s.best_defenses_v3 == {"offense": "none", "partial": "none", "defense": "none"}
    s = _stats(dexterity=1)  # block, parry and dodge of 1 die each
    assert s.best_defenses == {"offense": "block", "partial": "block", "defense": "block"}
    assert s.best_defenses_v3 == {"offense": "parry", "partial": "block", "defense": "parry"}


def test_the_automatic_combatant_fights_with_its_biggest_pool_plus_damage_the_first_of_equals():
    s = _stats(
        weaponry=3,
        athletics=2,
        weapons=[
            {"name": "knife", "kind": "thrown", "damage": 2},  # 5 + 2
            {"name": "sword", "kind": "melee", "damage": 4},  # 6 + 4
            {"name": "axe", "kind": "melee", "damage": 4},  # 6 + 4, after the sword
        ],
    )
    assert s.best_weapon.name == "sword"


@pytest.mark.parametrize(("rating", "taken"), [(0, True), (20, True), (-1, False), (21, False)])
def test_a_rating_is_0_to_20(rating, taken):
    from combatlog.engine import Refused

    if taken:
        assert _stats(brawl=rating).brawl == rating
        return
    with pytest.raises(Refused, match=r"combatant b: \$\.brawl"):
        fight("straalara", f("a", "x"), f("b", "y", brawl=rating))


@pytest.mark.parametrize(
    ("where", "stats", "options"),
    [
        ("weapons[0]", {"weapons": [{"name": "sword", "kind": "melee", "damage": 4, "dmg": 1}]}, {}),
        ("health_levels[0]", {}, {"health_levels": [{"name": "Hurt", "penalty": -1, "pain": 2}]}),
        ("dodeg", {"dodeg": 2}, {}),
    ],
)
def test_a_key_a_stat_a_weapon_or_a_health_level_doesnt_have_is_refused(where, stats, options):
    with pytest.raises(Refused, match=re.escape(where)):
        fight("straalara", f("a", "x", **stats), f("b", "y"), **options)


# --- the order of resolving ---------------------------------------------------------------------


def test_on_equal_scores_the_higher_rating_resolves_first():
    # "If two characters have the same score, the one with the higher basic initiative rating
    # goes first": a (rating 6) and b (rating 5) both score 10
    d = fight("straalara", f("a", "x", wits=3), f("b", "y"), dice={"initiative by a": 4, "initiative by b": 5})
    assert d.state.order == (("a",), ("b",))
    d.act("b", "task", pool=0, effect="b's", stance="partial")
    step = d.act("a", "task", pool=0, effect="a's", stance="partial", dice=NEXT_TURN)
    resolved = [e for e in step.events if type(e).__name__ == "ActionResolved"]
    declared = {e.id: e.actor for e in d.events(ActionDeclared)}
    assert [declared[e.id] for e in resolved] == ["a", "b"]


def test_a_version_2_log_takes_a_wounded_rating_below_0_too(monkeypatch):
    # docs: "Version 2: a wounded initiative rating may go below 0"; version 1 stopped it at 0
    monkeypatch.setattr(type(get_rules("straalara")), "version", "2")
    d = fight("straalara", f("a", "x", wits=0, dexterity=1), f("b", "y"), dice={"initiative": [9, 2]})
    d.do("override", reason="old wounds", damage={"target": "a", "amount": 6})  # Crippled: -5
    d.act("b", "defend", stance="partial", defense="none")
    step = d.act("a", "defend", stance="partial", defense="none", dice={"initiative": [1, 1]})
    rated = {e.combatants[0]: e.tiebreak for e in step.of(InitiativeRolled)}
    assert rated == {"a": (-4,), "b": (5,)}


def test_a_surprised_combatant_gets_no_second_action_in_the_surprise_round():
    # the surprise round: only the side not surprised acts; Offense's second pass counts no one else
    d = fight("straalara", f("a", "x"), f("b", "y"), begin=False)
    d.do("surprise", sides=["y"])
    d.begin(dice={"initiative": [5, 5]})
    d.act("a", "defend", stance="offense", defense="parry")
    assert d.state.acting == ("a",)  # its second action: b, surprised, has none


def test_an_offense_declared_in_an_earlier_turn_gives_no_second_action_now():
    # b (15) takes Offense in turn 1 and is dazed by a's second blow after both its actions: its
    # turn-2 declaration is lost, and turn 2's second pass is a's alone
    d = fight("straalara", f("a", "x"), f("b", "y"), dice={"initiative by a": 3, "initiative by b": 10})
    d.act("a", "attack", "b", stance="offense", defense="parry")
    d.act("b", "defend", stance="offense", defense="parry", dice={"sword at b": NO * 6})  # a's first: a miss
    d.act("a", "attack", "b")
    dazing = {"sword at b": (9, 9, 2, 2, 2, 2), "parry by b": NO * 5, "sword damage": (7,) * 5, "soak by b": NO * 3}
    d.act("b", "defend", dice={**dazing, "initiative": [3, 10]})
    assert "dazed" in d.conditions("b")
    step = d.act("a", "defend", stance="offense", defense="parry")
    assert step.of(OrderSet)[-1] == OrderSet(tiers=(("a",),), reason="second actions")


# --- after the mutation run of 27 November ----------------------------------------------------


def test_an_unknown_action_is_refused_naming_those_known():
    d = duel()
    with pytest.raises(Refused, match="straalara has no such action"):
        d.act("a", "fly")


def test_an_unknown_parameter_is_refused_from_version_3():
    d = duel()
    with pytest.raises(Refused, match=r"takes no parameter 'bogus'"):
        d.act("a", "defend", stance="partial", bogus=1)


def test_a_version_2_fight_lets_an_unknown_parameter_by(monkeypatch):
    monkeypatch.setattr(type(get_rules("straalara")), "version", "2")
    d = duel()
    step = d.act("a", "defend", stance="partial", defense="none", bogus=1, dice=NEXT_TURN)
    assert [e.params for e in step.of(ActionDeclared)] == [{"stance": "partial", "defense": "none", "bogus": 1}]
