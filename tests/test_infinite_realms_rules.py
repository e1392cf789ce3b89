"""Infinite Realms' rules one sentence at a time (Infinite Realms Players Book, chapter four,
"Combat", `shared/rules/002_30acb8a20f7a0058.txt`; readings in `docs/rules/infinite-realms.md`).

Each test quotes the sentence (or the reading where the text leaves a number to a chapter we
don't have) and works a number through it with the dice forced. The fighters are those of
`tests/test_infinite_realms.py`: 200 hp, 10 AP, offense 100, defense 0, a sword (3 AP, 20
damage, critical 10, reach 4 ft).
"""

from __future__ import annotations

import pytest

from combatlog.engine import Refused, ScriptedDice, get_rules
from combatlog.events import Command
from tests.test_infinite_realms import SWORD, act, duel, fighter, ir, outcome, run


def ap(s, cid: str) -> int:
    return s.state.combatants[cid].resources["ap"]


def refused(s, kind: str, actor: str | None = None, **params) -> str:
    with pytest.raises(Refused) as exc:
        run(s, kind, actor=actor, params=params)
    return str(exc.value)


def next_round(s, faces=(1, 1, 1, 1)) -> None:
    """End the turns of everyone left in this round; the next one's tie-breaks are `faces`."""
    r = s.state.round
    for _ in range(20):
        if s.state.round != r or s.state.phase == "end":
            return
        s.execute(Command(kind="end_turn", actor=s.state.acting[0]), dice=ScriptedDice(list(faces)))
    raise AssertionError(f"round {r} didn't end")


# --- the encounter file: weapons --------------------------------------------------------------


@pytest.mark.parametrize(
    ("weapons", "message"),
    [
        ([SWORD, SWORD], r"combatant a: \$\.weapons\[1\]: the name 'sword' is taken"),
        ([{**SWORD, "name": "punch"}], r"combatant a: \$\.weapons\[0\]: the name 'punch' is taken"),
        ([{**SWORD, "name": "kick"}], r"combatant a: \$\.weapons\[0\]: the name 'kick' is taken"),
        ([{**SWORD, "damage": "2d"}], r"combatant a: \$\.weapons\[0\]\.damage: can't read dice expression '2d'"),
        (
            [{**SWORD, "kind": "thrown", "short": 5}],
            r"combatant a: \$\.weapons\[0\]: a thrown or missile weapon needs short <= medium <= long, in yards",
        ),
    ],
)
def test_a_weapon_is_named_once_punch_and_kick_are_the_bare_hands_and_ranges_come_in_order(weapons, message):
    # "Punch ... Kick": the bare hands' attacks have their own names; "Thrown weapons have three
    # ranges, short, medium and long, given in yards"
    with pytest.raises(Refused, match=message):
        ir(fighter("a", "A", weapons=weapons))


def test_three_ranges_may_be_equal():
    # short <= medium <= long: a dart whose short and medium range are both 5, long 5
    dart = {**SWORD, "name": "dart", "kind": "thrown", "short": 5, "medium": 5, "long": 5}
    s = ir(fighter("a", "A", weapons=[dart]), fighter("b", "B", ap=5))
    assert "a" in s.state.combatants


# --- the game master's commands ---------------------------------------------------------------


def test_a_distance_names_two_combatants_and_whole_yards_0_or_more():
    s = duel()
    assert refused(s, "distance", a="a", b="zz", yards=3) == "distance 'zz': no such combatant; ids: a, b"
    assert refused(s, "distance", a="a", b="a", yards=3) == "distance: name two different combatants"
    for yards in (-1, -3, "x", True):
        assert refused(s, "distance", a="a", b="b", yards=yards).endswith(": a whole number of yards, 0 or more")


def test_a_distance_of_0_during_the_fight_engages_with_the_reach_bonus_at_once():
    # "1 AP is added to their total for every 2 feet of reach their weapon has over the reach of
    # the shortest weapon in that engagement": a pike (10 ft) against a sword (4 ft): +3 AP
    pike = {**SWORD, "name": "pike", "reach": 10}
    s = ir(fighter("a", "A", weapons=[pike]), fighter("b", "B", ap=5))
    run(s, "begin", [1, 1])
    run(s, "distance", params={"a": "a", "b": "b", "yards": 0})
    assert s.state.extra.engaged["a"] == ("b",) and ap(s, "a") == 13


def test_a_distance_of_0_before_the_fight_engages_for_round_1():
    pike = {**SWORD, "name": "pike", "reach": 10}
    s = ir(fighter("a", "A", weapons=[pike]), fighter("b", "B", ap=5))
    run(s, "distance", params={"a": "a", "b": "b", "yards": 0})
    run(s, "begin", [1, 1])
    assert s.state.extra.engaged["a"] == ("b",) and ap(s, "a") == 13


def test_a_distance_given_between_two_engaged_combatants_parts_them():
    s = duel()
    run(s, "distance", params={"a": "a", "b": "b", "yards": 5})
    assert "b" not in s.state.extra.engaged.get("a", ())
    with pytest.raises(Refused, match="B is 5 yards away; melee needs engaging first"):
        act(s, "a", "attack", "b", [50])


def test_engaging_names_two_or_more_combatants_of_the_fight():
    s = duel()
    for params in ({"combatants": ["a"]}, {"combatants": ["a", "zz"]}, {}, {"combatants": "ab"}):
        assert refused(s, "engage", **params) == "engage: name two or more combatants; ids: a, b"


def test_engaging_during_the_fight_adds_the_reach_bonus_at_once():
    # "This is only for the round in which they are engaging": a pike (10 ft) against a sword
    # (4 ft) engages in round 1: a's 10 AP become 13, and round 2 starts at 10
    pike = {**SWORD, "name": "pike", "reach": 10}
    s = ir(fighter("a", "A", weapons=[pike]), fighter("b", "B", ap=5))
    run(s, "begin", [1, 1])
    run(s, "engage", params={"combatants": ["a", "b"]})
    assert ap(s, "a") == 13 and ap(s, "b") == 5
    next_round(s)
    assert ap(s, "a") == 10


def test_defense_bought_by_command_names_a_combatant_in_the_fight_and_what_it_has():
    # "For 1 AP a character can decrease his defensive % by 2": no more than he has
    s = duel()
    assert refused(s, "defend", actor="zz", ap=1) == "defend 'zz': no such combatant in the fight; ids: a, b"
    assert refused(s, "defend", actor="a", ap=11) == "defend a: A has 10 AP"
    run(s, "defend", actor="b", params={"ap": 5})  # all of b's 5 AP
    assert ap(s, "b") == 0 and s.state.extra.defense_ap == {"b": 5}


def test_defense_bought_by_command_costs_1_ap_unless_told():
    s = duel()
    run(s, "defend", actor="a")
    assert ap(s, "a") == 9 and s.state.extra.defense_ap == {"a": 1}


# --- what actions cost ------------------------------------------------------------------------


@pytest.mark.parametrize(("params", "spent"), [({}, 1), ({"ap": 3}, 3)])
def test_defending_costs_1_ap_for_each_2_defense(params, spent):
    # "Subtract 2 from Defense % – 1 AP (Unlimited)"
    s = duel()
    events = act(s, "a", "defend", **params)
    assert outcome(events) == f"defends: -{2 * spent} defense % this round"
    assert ap(s, "a") == 10 - spent


def test_getting_up_costs_5_ap():
    # critical miss 1 - 20: "Attack goes wild and attacker falls down 5 AP to get up"
    s = duel({"offense": 0, "ap": 20}, {"defense": 0})
    act(s, "a", "attack", "b", [97, 10])  # missed by 10: down
    assert s.state.combatants["a"].has("down") and ap(s, "a") == 17
    act(s, "a", "stand")
    assert ap(s, "a") == 12 and not s.state.combatants["a"].has("down")


def test_getting_up_costs_a_whole_round_for_one_with_fewer_than_5_ap():
    # the reading: one whose round holds fewer than 5 AP gets up with all of them
    s = duel({"offense": 0, "ap": 4}, {"defense": 0, "ap": 3})
    act(s, "a", "attack", "b", [97, 10])  # 4 - 3 = 1 AP left; down
    next_round(s)
    assert ap(s, "a") == 4
    act(s, "a", "stand")
    assert ap(s, "a") == 0


def test_pursuing_costs_1_ap_and_2_with_a_crippled_leg():
    # "Run 10 yards – 1 AP"; a crippled leg: "Movement costs twice as many AP"
    for crippled, spent in ((False, 1), (True, 2)):
        s = duel({"running": 40, "defense": 100}, {"running": 60, "ap": 9}, faces=(9, 1))
        if crippled:
            run(s, "override", params={"reason": "t", "condition": {"target": "b", "name": "crippled left leg"}})
        act(s, "a", "run", faces=[95], away_from="b")
        run(s, "end_turn", actor="a")
        act(s, "b", "pursue", "a", [70])
        assert ap(s, "b") == 9 - spent


def test_first_aid_costs_5_ap_by_default():
    s = ir(fighter("a", "A"), fighter("b", "B", ap=1), fighter("m", "B", ap=6, first_aid=80))
    run(s, "engage", params={"combatants": ["a", "b"]})
    run(s, "begin", [1, 1, 1])
    act(s, "a", "attack", "b", [5, 52])  # made by 48: internal bleeding
    run(s, "end_turn", actor="a")
    act(s, "m", "first_aid", "b", [50])
    assert ap(s, "m") == 1


# --- stunned, half AP, wounds, bleeding -------------------------------------------------------


def test_a_stunned_character_has_0_ap_in_the_next_round_too():
    # "While a character is stunned he cannot do anything, he has 0 AP": made by 43, two rounds
    s = duel()
    act(s, "a", "attack", "b", [5, 57])
    next_round(s)
    b = s.state.combatants["b"]
    assert b.has("stunned") and ap(s, "b") == 0 and s.rules.budget(s.state, b) == {"ap": 0}


def test_losing_50_percent_ap_for_a_round_halves_the_next_rounds_ap():
    # made by 21 - 30: "Victim receives an extra 50% hit and losses 50% AP for a round": b's 9
    # AP are 4 in the next round (halved, rounded down)
    s = duel(b={"ap": 9})
    act(s, "a", "attack", "b", [5, 75])  # made by 25
    next_round(s)
    assert s.state.combatants["b"].has("half AP") and ap(s, "b") == 4


def test_one_hit_point_left_is_not_passed_out():
    # "If a character's current hit points drop to 0, he will pass out": 1 left, he fights on
    s = ir(fighter("a", "A"), fighter("b", "B", hp=20, ap=5), fighter("c", "B"))
    run(s, "begin", [1, 1, 1])
    run(s, "override", params={"reason": "t", "damage": {"target": "b", "amount": 19}})
    assert s.state.combatants["b"].defeated is None and s.state.combatants["b"].has("wounded (25%)")


def test_bleeding_goes_on_for_one_and_stops_for_another_given_first_aid():
    # "he loses 1 hit point every 4 rounds (1 minute) until successfully bound by first aid":
    # b1's bleeding is bound, b2's goes on: at round 4's end b2 has lost 1 HP, b1 none
    s = ir(
        fighter("a", "A", ap=12),
        fighter("b1", "B", ap=1),
        fighter("b2", "B", ap=1),
        fighter("m", "B", ap=6, first_aid=80),
    )
    run(s, "engage", params={"combatants": ["a", "b1", "b2"]})
    run(s, "begin", [1, 1, 1, 1])
    act(s, "a", "attack", "b1", [5, 52])  # made by 48: internal bleeding
    act(s, "a", "attack", "b2", [5, 52])
    while s.state.acting != ("m",):
        run(s, "end_turn", actor=s.state.acting[0])
    act(s, "m", "first_aid", "b1", [50])
    base = {c: s.state.combatants[c].damage for c in ("b1", "b2")}
    while s.state.round < 5:
        next_round(s)
    assert {c: s.state.combatants[c].damage - base[c] for c in ("b1", "b2")} == {"b1": 0, "b2": 1}


def test_the_dead_bleed_no_more():
    # bleeding costs hit points of the living: a dead bleeder's damage stays as it was
    s = ir(fighter("a", "A", ap=12), fighter("b", "B", ap=1, hp=20), fighter("c", "B", ap=1))
    run(s, "engage", params={"combatants": ["a", "b", "c"]})
    run(s, "begin", [1, 1, 1])
    act(s, "a", "attack", "b", [5, 52])  # 20 damage and bleeding: passed out
    run(s, "override", params={"reason": "t", "damage": {"target": "b", "amount": 21}})  # -21: dead
    assert s.state.combatants["b"].defeated == "dead"
    damage = s.state.combatants["b"].damage
    while s.state.round < 5:
        next_round(s)
    assert s.state.combatants["b"].damage == damage


# --- parameters -------------------------------------------------------------------------------


def test_an_unknown_parameter_is_refused_from_version_3_naming_those_taken():
    s = duel()
    with pytest.raises(Refused, match=r"A: attack takes no parameter 'bogus'; it takes: weapon, rapid"):
        act(s, "a", "attack", "b", [50], bogus=1)


def test_a_version_2_fight_lets_an_unknown_parameter_by(monkeypatch):
    # a log recorded under version 2 took what it was given: it re-decides the same
    monkeypatch.setattr(type(get_rules("infinite-realms")), "version", "2")
    s = duel()
    assert outcome(act(s, "a", "attack", "b", [50], bogus=1)).startswith("d% 50 against 100: a hit by 50")


def test_bleeding_begun_in_the_surprise_round_costs_1_hp_at_the_end_of_round_3():
    # "he loses 1 hit point every 4 rounds (1 minute)": the surprise round (0) is the first of
    # the four, so the first hit point goes as round 3 ends
    s = ir(fighter("a", "A"), fighter("b", "B", ap=1, defense=20))  # need 100 with surprised +20
    run(s, "engage", params={"combatants": ["a", "b"]})
    run(s, "surprise", params={"sides": ["B"]})
    run(s, "begin", [1, 1])
    act(s, "a", "attack", "b", [5, 52])  # made by 48: internal bleeding, in round 0
    base = s.state.combatants["b"].damage
    lost = {}
    while s.state.round < 5:
        r = s.state.round
        next_round(s)
        lost[r] = s.state.combatants["b"].damage - base
    assert lost == {0: 0, 1: 0, 2: 0, 3: 1, 4: 1}


def test_bleeding_stopped_some_other_way_costs_no_more():
    # "until successfully bound by first aid or the bleeding is stopped in some other way": the
    # game master takes the condition off in round 2; at round 4's end nothing more is lost
    s = ir(fighter("a", "A"), fighter("b", "B", ap=1))
    run(s, "engage", params={"combatants": ["a", "b"]})
    run(s, "begin", [1, 1])
    act(s, "a", "attack", "b", [5, 52])
    next_round(s)
    run(s, "override", params={"reason": "a healer", "remove_condition": {"target": "b", "name": "internal bleeding"}})
    base = s.state.combatants["b"].damage
    while s.state.round < 6:
        next_round(s)
    assert s.state.combatants["b"].damage == base


# --- aiming, defending, standing, first aid ---------------------------------------------------

BOW = {"name": "bow", "kind": "missile", "ap": 5, "damage": 4, "critical": 0, "short": 5, "medium": 50, "long": 100}
KNIFE = {"name": "knife", "kind": "thrown", "ap": 2, "damage": 4, "critical": 0, "short": 5, "medium": 10, "long": 20}


def test_aiming_costs_1_ap_a_point_for_plus_5():
    # "Add 5 to Offensive % (Aiming) – 1 AP (Max 2)"
    s = duel()
    assert outcome(act(s, "a", "aim")) == "aims (+5)"
    assert outcome(act(s, "a", "aim")) == "aims (+10)"
    assert ap(s, "a") == 8


@pytest.mark.parametrize(("weapon", "most"), [(KNIFE, 3), (BOW, 5)])
def test_a_thrown_weapon_aims_up_to_3_and_a_missile_weapon_up_to_5(weapon, most):
    # thrown: "Add 5 to Offensive % (Aiming) – 1 AP (Max 3)"; missile: "(Max 5)"
    s = ir(fighter("a", "A", weapons=[weapon]), fighter("b", "B", ap=5))
    run(s, "begin", [1, 1])
    for _ in range(most):
        act(s, "a", "aim")
    with pytest.raises(Refused, match=f"aiming is at most {most} AP with a {weapon['kind']} weapon"):
        act(s, "a", "aim")


def test_defense_can_be_bought_after_a_combatant_joins_mid_round():
    # "Defensive AP are taken out of his AP total at the beginning of the round": one who joins
    # with no AP yet doesn't close that window for the others
    s = duel()
    s.do("add", **fighter("c", "A"))
    assert outcome(act(s, "a", "defend", ap=1)) == "defends: -2 defense % this round"


def test_defense_is_at_least_1_ap():
    s = duel()
    with pytest.raises(Refused, match=r"A: defend: ap=0: spend a whole number of AP, at least 1"):
        act(s, "a", "defend", ap=0)


@pytest.mark.parametrize("given", [True, "x"])
def test_a_version_2_defense_is_a_whole_number_of_ap(given, monkeypatch):
    # before version 3 checked parameters by kind, the action's own check refused them
    monkeypatch.setattr(type(get_rules("infinite-realms")), "version", "2")
    s = duel()
    with pytest.raises(Refused, match=f"A: defend: ap={given!r}: spend a whole number of AP, at least 1"):
        act(s, "a", "defend", ap=given)


def test_standing_is_for_one_who_is_down():
    s = duel()
    with pytest.raises(Refused, match=r"A: stand: A isn't down"):
        act(s, "a", "stand")


def test_first_aid_stops_bleeding_on_a_roll_at_or_under_the_skill():
    s = ir(fighter("a", "A"), fighter("b", "B", ap=1), fighter("m", "B", ap=6, first_aid=80))
    run(s, "engage", params={"combatants": ["a", "b"]})
    run(s, "begin", [1, 1, 1])
    act(s, "a", "attack", "b", [5, 52])  # made by 48: internal bleeding
    run(s, "end_turn", actor="a")
    assert outcome(act(s, "m", "first_aid", "b", [80])) == "d% 80 against 80: the bleeding stops"
    assert not s.state.combatants["b"].has("internal bleeding")
    for _ in range(5):
        if s.state.acting == ("m",):
            break
        s.execute(Command(kind="end_turn", actor=s.state.acting[0]), dice=ScriptedDice([1, 1, 1]))
    with pytest.raises(Refused, match=r"M: first_aid: B isn't bleeding"):
        act(s, "m", "first_aid", "b", [80])


# --- attacks: weapons, ranges, rapid fire, bare hands ----------------------------------------


def test_an_unknown_weapon_is_refused_naming_those_usable():
    s = duel({"weapons": [SWORD, BOW]})
    with pytest.raises(Refused, match=r"no usable weapon 'axe' \(weapons: sword, bow; broken ones can't be used\)"):
        act(s, "a", "attack", "b", [50], weapon="axe")


def test_a_missile_weapon_reaches_its_long_range_and_no_further():
    # "Missile weapons can't be used beyond long range": 100 yards is in, 101 isn't
    s = ir(fighter("a", "A", weapons=[BOW]), fighter("b", "B", ap=5))
    run(s, "distance", params={"a": "a", "b": "b", "yards": 101})
    run(s, "begin", [1, 1])
    with pytest.raises(Refused, match=r"B is 101 yards away, beyond the bow's long range 100"):
        act(s, "a", "attack", "b", [95])
    run(s, "distance", params={"a": "a", "b": "b", "yards": 100})
    assert outcome(act(s, "a", "attack", "b", [95])) == "d% 95 against 80 (long range -20): a miss by 15"


def test_rapid_fire_is_against_one_rushing_you_this_round():
    # "Rapid fire is used when a character using a missile weapon is being rushed"
    s = ir(fighter("a", "A", ap=12, weapons=[BOW]), fighter("b", "B", ap=14, offense=0), fighter("c", "A", ap=1))
    run(s, "distance", params={"a": "a", "b": "b", "yards": 40})
    run(s, "begin", [1, 1, 1])
    act(s, "b", "run", toward="c")  # rushing c, not a
    run(s, "end_turn", actor="b")
    with pytest.raises(Refused, match="rapid fire is against a combatant rushing you; B isn't"):
        act(s, "a", "attack", "b", rapid=True)
    s = ir(fighter("a", "A", ap=12, weapons=[BOW]), fighter("b", "B", ap=14, offense=0))
    run(s, "distance", params={"a": "a", "b": "b", "yards": 40})
    run(s, "begin", [1, 1])
    act(s, "b", "run", toward="a")  # rushing a in round 1
    next_round(s)
    run(s, "end_turn", actor="b")
    with pytest.raises(Refused, match="rapid fire is against a combatant rushing you; B isn't"):
        act(s, "a", "attack", "b", rapid=True)


def test_a_punch_needs_one_arm_and_a_target_within_reach():
    # a crippled arm: "the character can't do anything with the limb"; the other arm punches
    hands = {"ps": 60, "adjusted_pd": 50, "punch_ap": 2, "kick_ap": 4}
    for arms in (["crippled right arm"], ["crippled left arm"]):
        s = duel(hands, {"defense": 20})
        for arm in arms:
            run(s, "override", params={"reason": "t", "condition": {"target": "a", "name": arm}})
        assert outcome(act(s, "a", "punch", "b", [30])).startswith("d% 30 against ")  # at half offense
    s = duel(hands, {"defense": 20})
    for arm in ("crippled right arm", "crippled left arm"):
        run(s, "override", params={"reason": "t", "condition": {"target": "a", "name": arm}})
    with pytest.raises(Refused, match="A can't punch with both arms crippled"):
        act(s, "a", "punch", "b", [30])
    s = ir(fighter("a", "A", **hands), fighter("b", "B", ap=5))
    run(s, "begin", [1, 1])
    with pytest.raises(Refused, match="B isn't within reach; engage first"):
        act(s, "a", "punch", "b", [30])


def test_a_kick_needs_both_legs():
    s = duel({"ps": 60, "adjusted_pd": 50, "punch_ap": 2, "kick_ap": 4})
    run(s, "override", params={"reason": "t", "condition": {"target": "a", "name": "crippled left leg"}})
    with pytest.raises(Refused, match="A can't kick with a crippled leg"):
        act(s, "a", "kick", "b", [30])


def test_a_move_offers_the_others_in_the_fight():
    from combatlog.engine.rules.infinite_realms.actions import MOVE_PARAMS

    s = duel()
    assert [p.offered(s.state, s.state.combatants["a"]) for p in MOVE_PARAMS] == [("b",), ("b",)]


# --- the attack roll --------------------------------------------------------------------------


def test_a_roll_at_the_weapons_critical_rating_may_be_a_critical_and_a_re_roll_at_the_need_is_one():
    # "If the attack is made by the weapon's critical percentage or less, there is a chance for a
    # critical hit"; "reroll the dice and if a hit is again rolled, a critical hit has occurred":
    # need 100, roll 10 (the sword's critical 10), re-roll 100: made by 0, "an extra 25% hit"
    s = duel()
    text = outcome(act(s, "a", "attack", "b", [10, 100]))
    assert text == "d% 10 against 100: a hit by 90, 100% of 20 = 20; critical hit by 0: an extra 25% hit (5)"
    assert s.state.combatants["b"].damage == 25


def test_the_full_damage_is_the_weapons_damage_to_the_point():
    # made by 31 or more: "100%" of a 60-point weapon is 60
    s = duel({"weapons": [{**SWORD, "damage": 60, "critical": 0}]})
    assert outcome(act(s, "a", "attack", "b", [50])) == "d% 50 against 100: a hit by 50, 100% of 60 = 60"


def test_a_critical_miss_is_missed_by_the_re_roll_over_the_need():
    # "The main factor ... is how much the critical is missed by": need 30, roll 97, re-roll 60:
    # missed by 30, "Attacker whacks himself and is stunned for a round"; a re-roll of 30 is no miss
    s = duel({"offense": 30})
    assert outcome(act(s, "a", "attack", "b", [97, 60])).startswith(
        "d% 97 against 30: a miss by 67; critical miss by 30"
    )
    assert s.state.combatants["a"].has("stunned")
    s = duel({"offense": 30})
    assert outcome(act(s, "a", "attack", "b", [97, 30])) == "d% 97 against 30: a miss by 67; no critical miss (30)"


def test_a_crippled_arm_halves_offense():
    # "If it is an arm, all his physical attributes ... his offense, defense, damage and AP drop to 50%"
    s = duel()
    run(s, "override", params={"reason": "t", "condition": {"target": "a", "name": "crippled right arm"}})
    assert outcome(act(s, "a", "attack", "b", [95])) == "d% 95 against 50: a miss by 45"


def test_a_dodging_run_without_a_dodge_rating_is_against_the_lowest_defense():
    # the free attack "against the fleeing character's dodge rating": without one, his defense
    # (the lowest of those given by the kind of attack)
    s = duel({"defense": {"melee": 30, "missile": 50}}, {"offense": 70})
    assert outcome(act(s, "a", "dodge_run", faces=[95], away_from="b")).startswith(
        "B's free attack: d% 95 against 40 (against dodge): a miss"
    )


def test_a_bow_unawares_is_plus_10_defense():
    # defensive chart: "A bow unawares + 10" (not "A bow or sling + 4"): 80 - 20 + 10
    bow = {**BOW, "bow": True}
    s = ir(fighter("a", "A", offense=80, weapons=[bow]), fighter("b", "B", ap=5, defense=20))
    run(s, "distance", params={"a": "a", "b": "b", "yards": 30})
    run(s, "begin", [1, 1])
    run(s, "override", params={"reason": "t", "condition": {"target": "b", "name": "unaware"}})
    assert outcome(act(s, "a", "attack", "b", [95])) == "d% 95 against 70 (unaware of the bow): a miss by 25"


def test_a_puncher_defends_at_his_base_defense():
    # "Punching characters use their base defense. Kicking characters' defense is ¾ base defense."
    s = duel({"punch_ap": 2, "adjusted_pd": 0, "defense": 40, "ps": 10}, {"offense": 100})
    act(s, "a", "punch", "b", [95])
    run(s, "end_turn", actor="a")
    assert "against 60" in outcome(act(s, "b", "attack", "a", [95]))


@pytest.mark.parametrize(
    ("option", "weapon", "roll", "rerolls"),
    [
        ("attacks", {"flail": True}, 80, False),
        ("chapter", {"flail": True}, 90, False),
    ],
)
def test_the_critical_miss_threshold_edges(option, weapon, roll, rerolls):
    # chapter: "96 or more (91 or more for a flail)"; the attack sections: "81 or more for a flail"
    s = duel({"offense": 0, "weapons": [{**SWORD, **weapon}]}, critical_miss=option)
    assert ("critical miss" in outcome(act(s, "a", "attack", "b", [roll, 50] if rerolls else [roll]))) is rerolls


@pytest.mark.parametrize(("roll", "rerolls"), [(95, False), (96, True)])
def test_a_hand_to_hand_critical_miss_is_96_or_more_under_either_reading(roll, rerolls):
    # hand to hand: "If the attack is missed by a 96 or more refer to the critical misses section"
    s = duel({"punch_ap": 2, "adjusted_pd": 0, "ps": 10}, critical_miss="attacks")
    text = outcome(act(s, "a", "punch", "b", [roll, 50] if rerolls else [roll]))
    assert ("critical miss" in text) is rerolls


# --- the critical charts with a 100-point weapon ----------------------------------------------

BIG = {**SWORD, "name": "maul", "damage": 100, "critical": 10}


@pytest.mark.parametrize(
    ("made_by", "extra", "stunned"),
    [
        (10, 25, None),
        (20, 50, None),
        (30, 50, None),
        (35, 75, 2),
        (36, 100, 2),
        (40, 100, 2),
        (41, 100, 3),
        (45, 100, 3),
    ],
)
def test_a_critical_hits_extra_damage_and_stun_by_band(made_by, extra, stunned):
    # "0 –10 Victim receives an extra 25% hit" ... "41 – 45 ... an extra 100% hit and is
    # stunned for two rounds": a 100-point maul, need 100, so the extra is the chart's percent
    s = duel({"weapons": [BIG]}, {"hp": 1000})
    act(s, "a", "attack", "b", [5, 100 - made_by])
    b = s.state.combatants["b"]
    assert b.damage == 100 + extra
    assert [c.remaining for c in b.conditions if c.name == "stunned"] == ([stunned] if stunned else [])


@pytest.mark.parametrize("made_by", [46, 50, 51, 55, 56, 65])
def test_bleeding_passing_out_and_crippling_add_no_damage(made_by):
    s = duel({"weapons": [BIG]}, {"hp": 1000})
    act(s, "a", "attack", "b", [5, 100 - made_by] + ([1] if made_by > 55 else []))
    assert s.state.combatants["b"].damage == 100


@pytest.mark.parametrize(
    ("missed_by", "wound", "stunned"),
    [(31, 25, None), (40, 25, None), (46, 50, 2), (50, 50, 2), (51, 100, 3), (60, 100, 3)],
)
def test_a_critical_miss_wounds_by_band(missed_by, wound, stunned):
    # "31 – 40 Attacker inflicts 25% wound on self"; "46 – 50 ... 50% wound on self and is stunned
    # for a round"; "51 – 60 ... 100% wound on self and in stunned for 2 rounds"
    s = duel({"offense": 0, "hp": 1000, "weapons": [BIG]})
    act(s, "a", "attack", "b", [97, missed_by])
    a = s.state.combatants["a"]
    assert a.damage == wound
    assert [c.remaining for c in a.conditions if c.name == "stunned"] == ([stunned] if stunned else [])


def test_a_critical_miss_by_66_or_more_rolls_a_critical_hit_on_oneself():
    # "66+ Attacker inflicts 100% wound and rolls for a critical hit on himself": need 10, miss
    # by 70 (re-roll 80); the critical roll 10 is made by 0: a further 25%
    s = duel({"offense": 10, "hp": 1000, "weapons": [BIG]})
    text = outcome(act(s, "a", "attack", "b", [97, 80, 10]))
    assert text.endswith("critical hit by 0: an extra 25% hit (25)")
    assert s.state.combatants["a"].damage == 125
    s = duel({"offense": 10, "hp": 1000, "weapons": [BIG]})
    act(s, "a", "attack", "b", [97, 80, 11])  # 11: no hit on himself
    assert s.state.combatants["a"].damage == 100


def test_half_ap_lasts_the_next_round_only():
    # made by 21 - 30: "losses 50% AP for a round"
    s = duel(b={"ap": 9})
    act(s, "a", "attack", "b", [5, 75])
    assert [c.remaining for c in s.state.combatants["b"].conditions if c.name == "half AP"] == [2]


@pytest.mark.parametrize(("version", "extra"), [("1", 5), ("2", 4)])
def test_before_version_2_a_wounded_attackers_critical_is_not_scaled(version, extra, monkeypatch):
    # version 2 applied a wounded attacker's damage factor (75% at half HP) to a critical's
    # extra damage: 25% of 20 = 5, at 75% 3.75 -> 4 ... a log of version 1 keeps 5
    monkeypatch.setattr(type(get_rules("infinite-realms")), "version", version)
    s = duel({"hp": 40})
    run(s, "override", params={"reason": "t", "damage": {"target": "a", "amount": 20}})  # a at 50%
    act(s, "a", "attack", "b", [5, 90])  # need 90 (offense -10 at half HP): made by 0
    assert s.state.combatants["b"].damage == 15 + extra  # 20 at 75% = 15, then the critical


@pytest.mark.parametrize(("version", "wound"), [("1", 5), ("2", 4)])
def test_before_version_2_a_wounded_attackers_wound_on_himself_is_not_scaled(version, wound, monkeypatch):
    monkeypatch.setattr(type(get_rules("infinite-realms")), "version", version)
    s = duel({"hp": 40, "offense": 0})
    run(s, "override", params={"reason": "t", "damage": {"target": "a", "amount": 20}})
    act(s, "a", "attack", "b", [97, 25])  # need -10 at half HP: missed by 35, a 25% wound of 20
    assert s.state.combatants["a"].damage == 20 + wound


@pytest.mark.parametrize(("version", "turn"), [("1", "a"), ("2", "b"), ("3", "b")])
def test_from_version_2_points_changed_by_the_game_master_rank_the_order_again(version, turn, monkeypatch):
    monkeypatch.setattr(type(get_rules("infinite-realms")), "version", version)
    s = duel()  # a 10 AP, b 5: a acts
    run(s, "defend", actor="a", params={"ap": 6})  # a keeps 4
    assert s.state.acting == (turn,)


# --- the tables -------------------------------------------------------------------------------


@pytest.mark.parametrize(("cover", "need"), [("cover 50", 70), ("cover 75", 65), ("cover 90", 55)])
def test_cover_against_thrown_and_missile_weapons(cover, need):
    # "when 50% covered - 10", "when 75% covered - 15", "when 90% covered - 25": offense 80
    s = ir(fighter("a", "A", offense=80, weapons=[BOW]), fighter("b", "B", ap=5))
    run(s, "distance", params={"a": "a", "b": "b", "yards": 30})
    run(s, "begin", [1, 1])
    run(s, "override", params={"reason": "t", "condition": {"target": "b", "name": cover}})
    assert f"against {need} ({cover})" in outcome(act(s, "a", "attack", "b", [95]))


@pytest.mark.parametrize(("light", "need"), [("overcast", 75), ("night", 55), ("fog", 55), ("pitch black", 30)])
def test_light_and_weather_against_thrown_and_missile_weapons(light, need):
    # "at night or in fog - 25", "during pitch black - 50", "when heavily overcast - 5"
    s = ir(fighter("a", "A", offense=80, weapons=[BOW]), fighter("b", "B", ap=5), light=light)
    run(s, "distance", params={"a": "a", "b": "b", "yards": 30})
    run(s, "begin", [1, 1])
    assert f"against {need} ({light})" in outcome(act(s, "a", "attack", "b", [95]))


def test_enemies_start_20_yards_apart_and_a_dodging_run_covers_6():
    # "Run and dodge 6 yards – 1 AP"; "Walk 3 yards"; moving away adds the yards
    s = ir(fighter("a", "A"), fighter("b", "B", ap=5))
    run(s, "begin", [1, 1])
    assert outcome(act(s, "a", "dodge_run", toward="b")) == "moves 6 yards toward B (14 left)"
    assert outcome(act(s, "a", "walk", away_from="b")) == "moves 3 yards away from B"
    assert s.state.extra.distance == {"a|b": 17}


def test_a_weapon_given_no_critical_rating_or_damage_has_0():
    plain = {"name": "club", "ap": 3}
    s = duel({"weapons": [plain]})
    assert outcome(act(s, "a", "attack", "b", [1])) == "d% 1 against 100: a hit by 99, 100% of 0 = 0"


@pytest.mark.parametrize(("action", "rating"), [("punch", 3), ("kick", 5)])
def test_a_punch_has_a_3_percent_critical_rating_and_a_kick_5(action, rating):
    # "The critical hit rating is 3%"; a kick "has a 5% critical hit rating"
    s = duel({"ps": 60, "adjusted_pd": 100, "punch_ap": 2, "kick_ap": 2}, {"hp": 1000})
    assert "critical" in outcome(act(s, "a", action, "b", [rating, 99]))
    s = duel({"ps": 60, "adjusted_pd": 100, "punch_ap": 2, "kick_ap": 2}, {"hp": 1000})
    assert "critical" not in outcome(act(s, "a", action, "b", [rating + 1]))


def test_a_weapon_given_no_reach_has_0_feet():
    # "The character with the shortest weapon reach gains no extra AP": a club (no reach given)
    # against the sword's 4 feet: the sword +2
    s = ir(fighter("a", "A", weapons=[{"name": "club", "ap": 3}]), fighter("b", "B", ap=5))
    run(s, "engage", params={"combatants": ["a", "b"]})
    assert s.state.extra.reach_bonus == {"b": 2}


def test_reach_under_2_feet_longer_gives_nothing():
    s = ir(fighter("a", "A", weapons=[{**SWORD, "reach": 5}]), fighter("b", "B", ap=5))
    run(s, "engage", params={"combatants": ["a", "b"]})
    assert s.state.extra.reach_bonus == {}


def test_engaging_a_second_time_in_a_round_tops_the_bonus_up_to_the_largest():
    # the reach bonus once a round, the largest one: a pike against a dagger (+4), then against
    # bare hands (+5): one more
    pike = {**SWORD, "name": "pike", "reach": 10}
    s = ir(
        fighter("a", "A", ap=14, weapons=[pike]),
        fighter("b", "B", ap=3, weapons=[{**SWORD, "name": "dagger", "reach": 1}]),
        fighter("c", "B", ap=3, weapons=[]),
    )
    run(s, "begin", [1, 1, 1])
    run(s, "engage", params={"combatants": ["a", "b"]})
    assert ap(s, "a") == 18
    run(s, "engage", params={"combatants": ["a", "c"]})
    assert ap(s, "a") == 19


def test_no_reach_bonus_for_one_stunned():
    pike = {**SWORD, "name": "pike", "reach": 10}
    s = ir(fighter("a", "A", weapons=[pike]), fighter("b", "B", ap=5))
    run(s, "begin", [1, 1])
    run(s, "override", params={"reason": "t", "condition": {"target": "a", "name": "stunned"}})
    run(s, "engage", params={"combatants": ["a", "b"]})
    assert ap(s, "a") == 10


def test_the_free_attack_on_one_leaving_is_never_a_critical_miss():
    s = duel({"defense": 30}, {"offense": 0})
    assert outcome(act(s, "a", "walk", faces=[97], away_from="b")) == (
        "B's free attack: d% 97 against -30: a miss by 127; moves 3 yards away from B"
    )


def test_a_move_names_another_combatant():
    s = duel()
    for other in ("zz", "a"):
        with pytest.raises(Refused, match=f"no other combatant '{other}'; ids: a, b"):
            act(s, "a", "walk", toward=other)


def test_moving_up_to_a_fallen_foe_closes_to_0_yards():
    s = ir(fighter("a", "A"), fighter("b", "B", ap=5), fighter("c", "B", ap=5))
    run(s, "distance", params={"a": "a", "b": "b", "yards": 2})
    run(s, "begin", [1, 1, 1])
    run(s, "override", params={"reason": "t", "defeat": {"target": "b", "how": "felled"}})
    assert outcome(act(s, "a", "walk", toward="b")) == "reaches B"
    assert s.state.extra.distance["a|b"] == 0


# --- after the second run ---------------------------------------------------------------------


def test_one_who_joined_mid_round_has_no_ap_to_buy_defense_with():
    # his AP come "at the start of each round": until then he has none
    s = duel()
    s.do("add", **fighter("c", "A"))
    assert refused(s, "defend", actor="c", ap=1) == "defend c: C has 0 AP"


def test_a_wound_on_oneself_is_reduced_by_ones_own_protection():
    # "The amount of damage is reduced by the defender's protection rating": 25% of 100 = 25, less 5
    s = duel({"offense": 0, "hp": 1000, "protection": 5, "weapons": [BIG]})
    text = outcome(act(s, "a", "attack", "b", [97, 35]))
    assert text.endswith("critical miss by 35: a 25% wound on himself")
    assert s.state.combatants["a"].damage == 20
    s = duel({"offense": 0, "hp": 1000, "protection": 50, "weapons": [BIG]})
    act(s, "a", "attack", "b", [97, 35])
    assert s.state.combatants["a"].damage == 0


def test_whacking_oneself_stuns_for_a_round():
    # "21 – 30 Attacker whacks himself and is stunned for a round (0 AP)"
    s = duel({"offense": 0})
    act(s, "a", "attack", "b", [97, 25])
    assert [c.remaining for c in s.state.combatants["a"].conditions if c.name == "stunned"] == [2]


def test_half_ap_after_a_longer_stun_lasts_its_own_round():
    s = duel(b={"hp": 1000})
    act(s, "a", "attack", "b", [5, 57])  # made by 43: stunned two rounds
    act(s, "a", "attack", "b", [5, 90])  # need 115 (stunned +15): made by 25, half AP for a round
    conditions = {c.name: c.remaining for c in s.state.combatants["b"].conditions}
    assert conditions["stunned"] == 3 and conditions["half AP"] == 2


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ({"stats": {"mana": 3}}, r"mana"),
        ({"weapon": {"edge": 3}}, r"edge"),
    ],
)
def test_an_unknown_stat_or_weapon_field_is_refused(where, message):
    stats = where.get("stats", {})
    weapons = [{**SWORD, **where["weapon"]}] if "weapon" in where else [SWORD]
    with pytest.raises(Refused, match=message):
        ir(fighter("a", "A", weapons=weapons, **stats))


def test_an_unknown_option_is_refused():
    with pytest.raises(Refused, match="weather"):
        ir(fighter("a", "A"), weather="rain")


def test_a_weapon_given_no_reach_has_0_feet_against_a_5_foot_one():
    s = ir(
        fighter("a", "A", weapons=[{"name": "club", "ap": 3}]), fighter("b", "B", ap=5, weapons=[{**SWORD, "reach": 5}])
    )
    run(s, "engage", params={"combatants": ["a", "b"]})
    assert s.state.extra.reach_bonus == {"b": 2}


def test_stats_not_given_are_0_offense_ps_and_running():
    from tests import builders

    bare = builders.fighter("a", "A", hp=50, ap=10, init=0, defense=0, punch_ap=2, weapons=[SWORD])
    s = ir(bare, fighter("b", "B", ap=5, running=0, defense=-50))
    run(s, "engage", params={"combatants": ["a", "b"]})
    run(s, "begin", [1, 1])
    assert outcome(act(s, "a", "attack", "b", [95])) == "d% 95 against 50: a miss by 45"
    # a punch's "offense rating equal to the character's adjusted PD": none given, his offense 0;
    # "Damage for punch is 5% of the character's PS": 0
    assert outcome(act(s, "a", "punch", "b", [10])) == "d% 10 against 50: a hit by 40, 100% of 0 = 0"
    act(s, "a", "run", faces=[95], away_from="b")  # b's free attack misses; a 4 AP, b 5: b's turn
    assert (
        "(need 50 or less)"
        in [e for e in act(s, "b", "pursue", "a", [50]) if type(e).__name__ == "DiceRolled"][0].purpose
    )


def test_an_attack_naming_no_weapon_is_made_with_the_first():
    # "The AP cost for an attack is listed on the character sheet under AP Used": the sword's 3
    s = duel({"weapons": [SWORD, {**SWORD, "name": "pike", "ap": 5}]})
    act(s, "a", "attack", "b", [95])
    assert ap(s, "a") == 7
