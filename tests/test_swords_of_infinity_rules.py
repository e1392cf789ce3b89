"""Swords of Infinity's rules one sentence at a time (the combat chapter,
`shared/rules/000_08caf533923f88a4.txt`; readings in `docs/rules/swords-of-infinity.md`).

Each test quotes the sentence (or the reading where the text leaves it open) and works a number
through it with the dice forced. The fighters are those of `tests/test_swords_of_infinity.py`:
vitality 30, dexterity 40, awareness 30, an axe (skill 10, power 70); `duel` begins a fight in
which a acts first.
"""

from __future__ import annotations

import pytest

from combatlog.engine import Refused, get_rules
from combatlog.events import ActionResolved
from tests.test_swords_of_infinity import act, attack, duel, fighter, run, soi


def refused(s, kind: str, actor: str | None = None, faces=(), **params) -> str:
    with pytest.raises(Refused) as exc:
        run(s, kind, faces, actor=actor, params=params)
    return str(exc.value)


def hurt(s, who: str, where: str, n: int, faces=()) -> None:
    run(s, "override", faces, params={"reason": "t", "damage": {"target": who, "amount": n, "location": where}})


# --- initiative, actions ----------------------------------------------------------------------


def test_initiative_is_a_power_roll_on_dexterity_plus_awareness_a_roll_at_the_tn_succeeds():
    # "a Power roll with a target number equal to their Dexterity plus their Awareness ... the
    # highest number going first": TN 70; a rolls 70 (a success, 70), b 60: a first
    s = soi(fighter("a", "A"), fighter("b", "B"))
    run(s, "begin", [70, 60])
    assert s.state.order == (("a",), ("b",))
    assert [s.state.combatants[c].initiative for c in "ab"] == [70, 60]


def test_one_left_with_only_a_minor_action_has_no_turn():
    # "she loses one action per turn for each Damage Target that is Disabled": with two, b's turn
    # ends as it starts (a minor action alone doesn't hold a turn open); a is next again
    s = soi(fighter("a", "A"), fighter("b", "B"), fighter("c", "B"))
    run(s, "begin", [20, 10, 90])  # a 20, b 10, c a failure
    hurt(s, "b", "left arm", 61)
    hurt(s, "b", "right arm", 61)
    run(s, "end_turn", actor="a")
    assert s.state.acting == ("c",)
    run(s, "end_turn", actor="c")
    assert s.state.round == 2 and s.state.acting == ("a",)


def test_enough_disabled_damage_targets_leave_no_action():
    # "she loses one action per turn for each Damage Target that is Disabled ... Enough Disabled
    # Damage Targets can leave a combatant completely unable to act": two or three, 0 actions
    s = soi(fighter("a", "A"), fighter("b", "B"), fighter("c", "B"))
    run(s, "begin", [10, 80, 90])
    for n, where in enumerate(("left arm", "right arm", "left leg"), start=1):
        hurt(s, "b", where, 61)
        assert s.rules.budget(s.state, s.state.combatants["b"]) == {"actions": max(0, 2 - n), "minor": 1}


def test_the_surprised_side_acts_once_the_surprise_round_is_over():
    s = soi(fighter("a", "A"), fighter("b", "B"))
    run(s, "surprise", params={"sides": ["B"]})
    run(s, "begin", [10, 20])
    assert s.state.surprise_round and s.state.acting == ("a",)
    run(s, "end_turn", actor="a")
    assert not s.state.surprise_round and s.state.acting == ("b",)


def test_an_unknown_action_is_refused_naming_those_known():
    s = duel()
    with pytest.raises(Refused, match="swords-of-infinity has no such action"):
        act(s, "a", "fly")


def test_an_unknown_parameter_is_refused_from_version_3():
    s = duel()
    with pytest.raises(Refused, match=r"A: attack takes no parameter 'bogus'"):
        attack(s, "a", "b", [99], bogus=1)


def test_a_version_2_fight_lets_an_unknown_parameter_by(monkeypatch):
    monkeypatch.setattr(type(get_rules("swords-of-infinity")), "version", "2")
    s = duel()
    assert attack(s, "a", "b", [99], bogus=1).startswith("hit roll 99 against 50")


# --- the composition --------------------------------------------------------------------------


@pytest.mark.parametrize("part", [[0, 5], [5, 4], [3, 11], [1, 0]])
def test_a_composition_is_ranges_of_the_d10_within_1_to_10(part):
    # "two legs (1-2), the torso (3-6), two arms (7-8), and the head (9-10)"
    with pytest.raises(
        Refused, match=r"combatant b: \$\.composition: give \{damage target: \[low, high\]\} within 1-10"
    ):
        soi(fighter("a", "A"), fighter("b", "B", composition={"body": part}))


def test_a_composition_may_be_one_part_at_each_end():
    # the ones digit 1 falls on the tail, 0 (10) on the head
    s = soi(fighter("a", "A"), fighter("b", "B", composition={"tail": [1, 1], "body": [2, 9], "head": [10, 10]}))
    run(s, "begin", [10, 99])
    assert attack(s, "a", "b", [21, 30]).endswith("30 damage to the tail")
    assert attack(s, "a", "b", [40, 30]).endswith("30 damage to the head")


def test_an_empty_composition_is_refused():
    with pytest.raises(Refused, match=r"\$\.composition"):
        soi(fighter("a", "A"), fighter("b", "B", composition={}))


# --- resisting impairment ---------------------------------------------------------------------


def test_damage_that_wounds_by_one_point_calls_for_resist_impairment():
    # "If a combatant's damage exceeds his Vitality Score he is wounded"; "Whenever a combatant
    # would take damage that Wounds or Disables them, they can attempt to ignore the penalties":
    # 30 is not above vitality 30, 31 is: the check (TN 40) is rolled then
    s = soi(fighter("a", "A"), fighter("b", "B", skills={"resist_impairment": 40}), fighter("c", "B"))
    run(s, "begin", [10, 80, 90])
    hurt(s, "b", "torso", 30)
    hurt(s, "b", "torso", 1, [20])  # 20 against 40: ignored
    assert s.state.extra.impairment["b"]["torso"] == {"ignored": 1}


def test_more_damage_within_the_same_level_calls_for_no_new_check():
    s = soi(fighter("a", "A"), fighter("b", "B", skills={"resist_impairment": 40}), fighter("c", "B"))
    run(s, "begin", [10, 80, 90])
    hurt(s, "b", "torso", 31, [90])  # wounded; 90: not ignored
    hurt(s, "b", "torso", 1)  # 32: still wounded, no check
    assert s.state.combatants["b"].has("torso wounded")


def test_a_resist_impairment_of_1_is_rolled_and_of_0_is_not():
    # a check that can't succeed isn't rolled: TN 0 means no die. Skill 11, less the new wound's
    # -10 ("These penalties combine"): TN 1
    s = soi(fighter("a", "A"), fighter("b", "B", skills={"resist_impairment": 11}), fighter("c", "B"))
    run(s, "begin", [10, 80, 90])
    hurt(s, "b", "torso", 31, [1])
    assert s.state.extra.impairment["b"]["torso"] == {"ignored": 1}
    s = soi(fighter("a", "A"), fighter("b", "B", skills={"resist_impairment": 10}), fighter("c", "B"))
    run(s, "begin", [10, 80, 90])
    hurt(s, "b", "torso", 31)  # TN 10 - 10: no die
    assert s.state.combatants["b"].has("torso wounded")


# --- recovery ---------------------------------------------------------------------------------


def test_recovery_heals_the_tens_place_of_a_power_check_on_physical_resistance():
    # "roll a Power Check based on the combatant's Physical Resistance score, the 10's place of the
    # roll is how many points of damage she heals": 95 against 100 heals 9, 100 heals 10's place 0
    s = soi(fighter("a", "A"), fighter("b", "B", physical_resistance=100), fighter("c", "B"))
    run(s, "begin", [10, 80, 90])
    hurt(s, "b", "torso", 20)
    hurt(s, "b", "left arm", 1)
    run(s, "recover", [95], actor="b", params={"target": "torso"})
    assert s.state.combatants["b"].wounds == {"torso": 11, "left arm": 1}
    run(s, "recover", [100], actor="b", params={"rested": True})
    assert s.state.combatants["b"].wounds == {"torso": 11, "left arm": 1}
    run(s, "recover", [10], actor="b", params={"rested": True})  # rested: every injured target
    assert s.state.combatants["b"].wounds == {"torso": 10}


def test_recovery_names_a_living_combatant_with_damage():
    s = soi(fighter("a", "A"), fighter("b", "B"), fighter("c", "B"))
    run(s, "begin", [10, 80, 90])
    assert refused(s, "recover", actor="zz") == "recover 'zz': no such combatant; ids: a, b, c"
    assert refused(s, "recover", actor="b", rested=True) == "recover b: nothing to heal"
    hurt(s, "b", "torso", 1)
    assert refused(s, "recover", actor="b").startswith("recover b: without a day of rest one damage target heals")
    run(s, "override", params={"reason": "t", "defeat": {"target": "b", "how": "dead"}})
    assert refused(s, "recover", actor="b", rested=True) == "recover b: the dead don't recover"


def test_a_target_healed_to_0_is_not_injured():
    s = soi(fighter("a", "A"), fighter("b", "B", physical_resistance=100), fighter("c", "B"))
    run(s, "begin", [10, 80, 90])
    hurt(s, "b", "torso", 1)
    run(s, "recover", [10], actor="b", params={"rested": True})
    assert s.state.combatants["b"].wounds == {}
    assert refused(s, "recover", actor="b", rested=True) == "recover b: nothing to heal"


# --- awareness, stealth, first aid, casting, dropping -----------------------------------------


def told(events: list) -> str:
    return [e for e in events if isinstance(e, ActionResolved)][-1].outcome


@pytest.mark.parametrize(
    ("size", "roll", "said"), [(0, 30, "notices"), (0, 31, "notices nothing"), (-2, 50, "notices")]
)
def test_noticing_is_an_awareness_check_plus_10_a_size_smaller(size, roll, said):
    # "+10 bonus on Awareness skill Success chance for every size category smaller": awareness 30,
    # a size -2 creature's TN is 50; a roll at the TN notices
    s = duel({"size": size})
    tn = 30 + 10 * max(0, -size)
    assert told(act(s, "a", "notice", [roll])) == f"awareness {roll} against {tn}: {said}"


def test_a_wounded_combatant_notices_at_10_less():
    # "a penalty of -10 to all Power and Success checks": awareness 30, wounded: TN 20
    s = duel()
    hurt(s, "a", "torso", 31)
    assert told(act(s, "a", "notice", [25])) == "awareness 25 against 20: notices nothing"


@pytest.mark.parametrize(
    ("rolls", "unaware"),
    [((40, 50), True), ((40, 40), True), ((41, 99), False), ((25, 25), True), ((40, 30), False)],
)
def test_stealth_against_spot_the_lower_successful_roll_wins(rolls, unaware):
    # stealth 40 against spot 30 (size -1: +10 on the target's Awareness-based spot): the stealthy
    # one must succeed and the spotter fail or roll higher
    s = duel({"skills": {"stealth": 40}}, {"skills": {"spot": 20}, "size": -1})
    text = told(act(s, "a", "stealth", list(rolls), target="b"))
    assert text.startswith(f"stealth {rolls[0]} against 40, spot {rolls[1]} against 30: ")
    assert s.state.combatants["b"].has("unaware of a") is unaware


def test_a_wounded_spotter_spots_at_10_less():
    s = duel({"skills": {"stealth": 40}}, {"skills": {"spot": 40}})
    hurt(s, "b", "torso", 31)
    assert told(act(s, "a", "stealth", [35, 31], target="b")).startswith("stealth 35 against 40, spot 31 against 30: ")


def test_first_aid_treats_a_damage_target_one_level_better_on_a_roll_at_the_tn():
    # "A successful Intelligence based Success Check, adding any Skill Specialization in First
    # Aid ... allow[s] the injured combatant to treat a Wounded Damage target as unwounded":
    # intelligence 20 + first aid 10 = 30
    s = soi(fighter("a", "A"), fighter("b", "B"), fighter("m", "B", intelligence=20, skills={"first_aid": 10}))
    run(s, "begin", [99, 98, 10])  # m first
    hurt(s, "b", "torso", 31)

    def aid(where: str, faces=()):
        return run(s, "act", faces, actor="m", action="first_aid", targets=("b",), params={"target": where})

    with pytest.raises(Refused, match=r"name a wounded or disabled damage target: target=\.\.\. \(torso\)"):
        aid("left arm")
    assert told(aid("torso", [30])) == "30 against 30: the torso is treated one level better"
    assert s.state.extra.impairment["b"]["torso"] == {"aided": 1}


def test_a_wounded_sneak_and_a_wounded_healer_roll_at_10_less():
    s = duel({"skills": {"stealth": 40}}, {"skills": {"spot": 20}})
    hurt(s, "a", "torso", 31)
    assert told(act(s, "a", "stealth", [35, 99], target="b")).startswith("stealth 35 against 30")
    s = soi(fighter("a", "A"), fighter("b", "B"), fighter("m", "B", intelligence=20, skills={"first_aid": 10}))
    run(s, "begin", [99, 98, 10])
    hurt(s, "b", "torso", 31)
    hurt(s, "m", "torso", 31)
    events = run(s, "act", [25], actor="m", action="first_aid", targets=("b",), params={"target": "torso"})
    assert told(events) == "25 against 20: no help"


def test_a_larger_creature_has_no_awareness_bonus():
    s = duel({"size": 1})
    assert told(act(s, "a", "notice", [31])) == "awareness 31 against 30: notices nothing"


def test_first_aid_is_for_a_wounded_or_disabled_target_not_one_merely_hurt():
    s = soi(fighter("a", "A"), fighter("b", "B"), fighter("m", "B", intelligence=20, skills={"first_aid": 10}))
    run(s, "begin", [99, 98, 10])
    hurt(s, "b", "torso", 5)
    with pytest.raises(Refused, match=r"name a wounded or disabled damage target: target=\.\.\. \(none\)"):
        run(s, "act", [30], actor="m", action="first_aid", targets=("b",), params={"target": "torso"})


# --- techniques, dual wielding, pins, spells, items -------------------------------------------

BOW = {"name": "bow", "skill": 10, "weight": 0, "power": 40, "range": 100}
SWORD = {"name": "sword", "skill": 10, "weight": 0, "power": 50}
DAGGER = {"name": "dagger", "skill": 10, "weight": 0, "power": 30}


@pytest.mark.parametrize(
    ("technique", "weapon", "message"),
    [
        ("pin", BOW, "a pin takes a melee or unarmed attack"),
        ("knockback", BOW, "a knockback takes an unarmed, melee or shield attack"),
        ("trip", SWORD, "a trip without a special ability is an unarmed attack"),
    ],
)
def test_a_technique_takes_its_kind_of_attack(technique, weapon, message):
    s = duel({"weapons": [weapon]})
    with pytest.raises(Refused, match=message):
        attack(s, "a", "b", [99], technique=technique)


def test_a_disrupt_may_be_shot():
    s = duel({"weapons": [BOW]})
    assert attack(s, "a", "b", [99], technique="disrupt").startswith("hit roll 99 against")


@pytest.mark.parametrize(("wall", "version"), [(-1, None), (True, "2"), ("x", "2")])
def test_the_distance_to_a_wall_is_whole_feet(wall, version, monkeypatch):
    # (version 3 checks a parameter's kind first; a version 2 log was refused by the attack's check)
    if version:
        monkeypatch.setattr(type(get_rules("swords-of-infinity")), "version", version)
    s = duel()
    with pytest.raises(Refused, match=f"wall_ft={wall!r}: a whole number of feet"):
        attack(s, "a", "b", [99], technique="knockback", wall_ft=wall)


def test_a_wall_may_be_0_feet_away():
    s = duel()
    assert attack(s, "a", "b", [99], technique="knockback", wall_ft=0).startswith("hit roll 99")


def test_dual_wielding_needs_two_weapons_in_hand():
    s = duel({"weapons": [SWORD]})
    with pytest.raises(Refused, match="A needs two different one-handed weapons in hand"):
        act(s, "a", "dual_attack", target="b")


def test_dual_wielding_strikes_with_the_main_hand_named_first_and_may_strike_two_targets():
    s = soi(fighter("a", "A", weapons=[SWORD, DAGGER]), fighter("b", "B"), fighter("c", "B"), fighter("d", "B"))
    run(s, "begin", [10, 99, 98, 97])
    events = run(
        s,
        "act",
        [99, 99],
        actor="a",
        action="dual_attack",
        targets=("b", "c"),
        params={"main": "dagger", "off": "sword"},
    )
    text = told(events)
    assert text.startswith("dagger: hit roll 99 against") and "sword (off hand): hit roll 99" in text
    rolls = [e.purpose for e in events if type(e).__name__ == "DiceRolled"]
    assert "at b" in rolls[0] and "at c" in rolls[1]
    with pytest.raises(Refused, match="1-2"):
        run(s, "act", [99, 99], actor="a", action="dual_attack", targets=("b", "c", "d"))


def test_standing_is_for_the_prone():
    s = duel()
    with pytest.raises(Refused, match="A isn't prone"):
        act(s, "a", "stand")


def test_casting_makes_vulnerable_and_a_kept_spell_is_kept():
    s = duel()
    assert told(act(s, "a", "cast", spell="light")) == "casts light"
    assert s.state.combatants["a"].has("vulnerable (casting)")
    s = duel()
    assert told(act(s, "a", "cast", spell="shield", maintain=True)) == "casts shield and keeps it up"


def test_a_dropped_weapon_is_picked_up_again():
    # "Minor Action ... Dropping a Held Item"; "Full Action ... Picking up an Item"
    s = duel()
    with pytest.raises(Refused, match=r"nothing of A's dropped: none"):
        act(s, "a", "pick_up", weapon="axe")
    assert told(act(s, "a", "drop")) == "drops the axe"
    assert told(act(s, "a", "pick_up", weapon="axe")) == "picks up the axe"
    assert s.state.extra.dropped.get("a", ()) == ()
    s = duel({"weapons": []})
    assert told(act(s, "a", "drop")) == "has nothing to drop"


# --- where a knockback throws and a Retreat steps ---------------------------------------------


def place(s, **where) -> None:
    for cid, (x, y) in where.items():
        s.do("override", reason="placing", move={"target": cid, "to": f"{x},{y}"})


@pytest.mark.parametrize(
    ("b", "to"),
    [((1, 0), "7,0"), ((-1, 0), "-7,0"), ((0, 1), "0,7"), ((0, -1), "0,-7"), ((1, -1), "7,-7"), ((-1, 1), "-7,7")],
)
def test_a_knockback_throws_the_target_straight_away_from_the_attacker(b, to):
    # Knockback: the target is thrown the attack's power in feet (30 ft: 6 squares of 5 ft)
    # directly away from the attacker, in any of the eight directions
    s = duel({"weapons": [], "strength": 60}, {"physical_resistance": 20})
    place(s, a=(0, 0), b=b)
    said = attack(s, "a", "b", [10, 30, 50], technique="knockback")
    assert said.endswith("knockback: not resisted (50 against 20): thrown 30 ft")
    assert s.state.combatants["b"].position == to


@pytest.mark.parametrize(("b", "to"), [((-1, 0), "-2,0"), ((0, 1), "0,2"), ((0, -1), "0,-2"), ((-1, -1), "-2,-2")])
def test_retreat_steps_5_feet_straight_away_from_the_first_attacker(b, to):
    # Retreat: "a 5-ft step away from the first attack of the round"
    s = soi(fighter("a", "A", dexterity=0), fighter("b", "B", dexterity=40))
    place(s, a=(0, 0), b=b)
    run(s, "begin", [99, 10])  # b first
    act(s, "b", "retreat")
    run(s, "end_turn", actor="b")
    assert attack(s, "a", "b", []) == "B retreats a step; out of reach"
    assert s.state.combatants["b"].position == to


# --- the attack's numbers ---------------------------------------------------------------------


def test_the_hit_tn_is_dexterity_plus_skill_plus_weight_and_a_roll_at_it_hits():
    # dexterity 40 + the weapon's skill 10 + its weight 5: TN 55; a roll of 55 hits
    s = duel({"weapons": [{"name": "maul", "skill": 10, "weight": 5, "power": 70}]})
    assert attack(s, "a", "b", [55, 30]).startswith("hit roll 55 against 55: a hit")


@pytest.mark.parametrize(("size", "tn"), [(1, 60), (-1, 50)])
def test_a_larger_target_is_easier_to_hit(size, tn):
    # "+10 Hit Target Number for every size category smaller" (the attacker smaller than its target)
    s = duel({}, {"size": size})
    assert attack(s, "a", "b", [99]) == f"hit roll 99 against {tn}: a miss"


def test_a_wounded_attacker_hits_and_hurts_at_10_less():
    # "a penalty of -10 to all Power and Success checks": TN 50 - 10, power 70 - 10
    s = duel()
    hurt(s, "a", "torso", 31)
    assert attack(s, "a", "b", [40, 30]) == "hit roll 40 against 40: a hit; power 30 against 60; 30 damage to the head"


def test_a_larger_attacker_hits_harder():
    # "+10 to Damage Target Number for every size category larger": power TN 70 + 10
    s = duel({"size": 1})
    assert attack(s, "a", "b", [50, 75]).startswith("hit roll 50 against 50: a hit; power 75 against 80")


def test_one_point_of_damage_lands():
    s = duel()
    assert attack(s, "a", "b", [50, 1]).endswith("1 damage to the head")
    assert s.state.combatants["b"].wounds == {"head": 1}


@pytest.mark.parametrize(("size", "wounded", "tn"), [(0, False, 50), (-1, False, 60), (0, True, 40)])
def test_block_tn_is_awareness_plus_block_10_more_a_size_smaller_10_less_wounded(size, wounded, tn):
    # "+10 bonus to Success chance on block and dodge for every size category smaller"
    s = duel({}, {"block": 20, "size": size})
    if wounded:
        hurt(s, "b", "left arm", 31)
    assert f"block 99 against {tn}: " in attack(s, "a", "b", [50, 99, 30], defense="block", block_target="torso")


@pytest.mark.parametrize(("size", "wounded", "tn"), [(-1, False, 70), (0, True, 50)])
def test_dodge_tn_is_10_more_a_size_smaller_10_less_wounded(size, wounded, tn):
    s = duel({}, {"dodge": 20, "size": size})
    if wounded:
        hurt(s, "b", "left arm", 31)
    assert f"dodge 99 against {tn} and 50" in attack(s, "a", "b", [50, 99, 30], defense="dodge")


def test_a_technique_is_resisted_when_the_resistance_power_beats_it_and_not_on_a_tie():
    # "the defender must win a power contest using their Physical Resistance against the Power"
    s = duel(b={"physical_resistance": 60})
    assert attack(s, "a", "b", [30, 50, 50], technique="disrupt").endswith(
        "disrupt: not resisted (50 against 60): no spells for a full round"
    )
    assert [c.remaining for c in s.state.combatants["b"].conditions if c.name == "disrupted"] == [2]
    s = duel(b={"physical_resistance": 60})
    assert attack(s, "a", "b", [30, 50, 51], technique="disrupt").endswith("disrupt: resisted (51 against 60)")


def test_a_technique_with_no_power_is_resisted():
    s = duel(b={"physical_resistance": 0})
    assert attack(s, "a", "b", [30, 90, 50], technique="disrupt").endswith("disrupt: resisted (50 against 0)")


@pytest.mark.parametrize(("size", "wounded", "prt"), [(1, False, 50), (0, True, 30)])
def test_physical_resistance_is_10_more_a_size_larger_and_10_less_wounded(size, wounded, prt):
    # "+10 to Physical Resistance Target Number against the attacks and abilities of smaller
    # creatures for every size category larger"
    s = duel(b={"physical_resistance": 40, "size": size})
    if wounded:
        hurt(s, "b", "left arm", 31)
    assert f"(99 against {prt})" in attack(s, "a", "b", [30, 60, 99], technique="disrupt")


def test_a_disarm_lets_the_weapon_fall_where_the_game_master_says():
    s = duel({}, {"physical_resistance": 40})
    events = run(
        s,
        "act",
        [33, 60, 50],
        actor="a",
        action="attack",
        targets=("b",),
        params={"technique": "disarm", "ability": True},
    )
    assert "disarm: not resisted (50 against 40): the axe drops;" in told(events)
    assert [e.decision for e in events if type(e).__name__ == "GmRuling"] == ["where it falls"]
    s = duel({"weapons": [], "strength": 60}, {"physical_resistance": 40, "weapons": []})
    assert "disarm: not resisted (50 against 40): nothing to disarm;" in attack(
        s, "a", "b", [10, 30, 50], technique="disarm", ability=True
    )


def test_a_knockback_forces_one_out_of_fortify():
    s = duel({"weapons": [], "strength": 60}, {"physical_resistance": 20, "shield": {"name": "tower", "size_class": 2}})
    place(s, a=(0, 0), b=(1, 0))
    run(s, "end_turn", actor="a")
    act(s, "b", "fortify")
    run(s, "end_turn", actor="b")
    attack(s, "a", "b", [10, 30, 50], technique="knockback")
    b = s.state.combatants["b"]
    assert not b.has("fortify") and b.has("vulnerable (forced out of fortify)")


def test_a_knockback_into_a_wall_a_foot_short_of_its_reach_deals_1():
    s = duel({"weapons": [], "strength": 60}, {"physical_resistance": 20})
    place(s, a=(0, 0), b=(1, 0))
    said = attack(s, "a", "b", [10, 30, 50], technique="knockback", wall_ft=29)
    assert said.endswith("into an obstacle at 29 ft: 1 damage to the torso")


def test_a_retreat_within_the_weapons_reach_is_still_attacked():
    s = soi(fighter("a", "A", dexterity=0, weapons=[{**SWORD, "reach": 10}]), fighter("b", "B", dexterity=40))
    place(s, a=(0, 0), b=(1, 0))
    run(s, "begin", [99, 10])
    act(s, "b", "retreat")
    run(s, "end_turn", actor="b")
    assert attack(s, "a", "b", [99]).startswith("B retreats a step; hit roll 99")


# --- pins, and a wound ignored until hurt again -----------------------------------------------


@pytest.mark.parametrize(("spirit", "ok"), [(1, True), (0, False)])
def test_escaping_a_pin_takes_a_point_of_spirit(spirit, ok):
    s = duel(b={"physical_resistance": 40, "spirit": spirit})
    attack(s, "a", "b", [30, 60, 50], technique="pin")
    run(s, "end_turn", actor="a")
    if ok:
        act(s, "b", "escape")
        assert "b" not in s.state.extra.pins
    else:
        with pytest.raises(Refused, match="escaping takes a point of spirit, and none is left"):
            act(s, "b", "escape")


def test_only_the_pinner_keeps_a_pin():
    s = soi(fighter("a", "A"), fighter("b", "B", physical_resistance=40), fighter("c", "A"))
    run(s, "begin", [20, 99, 10])  # a, c, then b
    attack(s, "a", "b", [30, 60, 50], technique="pin")
    run(s, "end_turn", actor="a")
    with pytest.raises(Refused, match="C isn't pinning B"):
        act(s, "c", "maintain_pin", target="b")


def test_a_pin_lapses_when_the_pinner_falls():
    s = soi(fighter("a", "A"), fighter("b", "B", physical_resistance=40), fighter("c", "A"))
    run(s, "begin", [10, 99, 98])
    attack(s, "a", "b", [30, 60, 50], technique="pin")
    act(s, "a", "maintain_pin", target="b")
    run(s, "override", params={"reason": "t", "defeat": {"target": "a", "how": "felled"}})
    for _ in range(4):
        if s.state.round == 1:
            run(s, "end_turn", actor=s.state.acting[0])
    assert s.state.round == 2 and "b" not in s.state.extra.pins


def test_from_version_2_damage_to_an_ignored_target_calls_for_a_new_check():
    # "they ignore the negative effects of the wound or disability until that Damage Target takes
    # damage again": the torso's wound, ignored, is hit for 1 more: a new check (TN 40 - 0)
    s = soi(fighter("a", "A"), fighter("b", "B", skills={"resist_impairment": 50}), fighter("c", "B"))
    run(s, "begin", [10, 80, 90])
    hurt(s, "b", "torso", 31, [20])  # TN 50 - 10: 20 ignores it
    assert s.state.extra.impairment["b"]["torso"] == {"ignored": 1}
    hurt(s, "b", "torso", 1, [99])  # a new check (TN 40): 99 fails, the wound counts again
    assert s.state.combatants["b"].has("torso wounded") and s.state.extra.impairment["b"]["torso"] == {}


# --- the numbers of the worked examples -------------------------------------------------------


def test_the_numbers_at_their_edges():
    from combatlog.engine.rules.swords_of_infinity.model import HUMAN
    from combatlog.engine.rules.swords_of_infinity.numbers import (
        block_damage,
        critical,
        dodged,
        knockback_damage,
        location,
        moved_squares,
        power_of,
    )

    # a Power check's power is the roll at or under the TN, else 0
    assert (power_of(50, 50), power_of(51, 50)) == (50, 0)
    # our reading of a critical success: a tenth of the TN or less (TN 55: 5)
    assert (critical(5, 55), critical(6, 55)) == (True, False)
    # Exploit: 1 per size below 0, none for a larger attacker
    from combatlog.engine.rules.swords_of_infinity.numbers import exploit_stacks

    assert (exploit_stacks(0, 1, True), exploit_stacks(0, -2, True)) == (1, 3)
    # Bjoric's block: power less 10 per class of armour and shield, never below 0
    assert (block_damage(50, 3, 3), block_damage(60, 3, 3), block_damage(61, 3, 3)) == (0, 0, 1)
    # Parthenia's dodge: at or under both the hit roll and one's TN
    assert (dodged(27, 27, 55), dodged(55, 60, 55), dodged(56, 60, 55)) == (True, True, False)
    # knockback into an obstacle: the feet not travelled, never below 0
    assert (knockback_damage(30, 30), knockback_damage(30, 31), knockback_damage(31, 30)) == (0, 0, 1)
    # the ones digit on the composition, 0 counting as 10; a digit no part takes falls on the first
    assert (location(10, HUMAN), location(1, HUMAN), location(3, {"body": [5, 9]})) == ("head", "left leg", "body")
    # a sprint covers a square a point of power, halved on rough ground, never less than a walk
    assert (moved_squares("sprint", 20, 7, False), moved_squares("sprint", 20, 7, True)) == (20, 10)
    assert (moved_squares("sprint", 10, 7, True), moved_squares("jump", 40, 7, True)) == (7, 4)


# --- thresholds, the cap, spirit, armour ------------------------------------------------------


@pytest.mark.parametrize(
    ("vitality", "damage", "level"),
    [
        (30, 60, "wounded"),
        (30, 61, "disabled"),
        (50, 99, "wounded"),
        (50, 100, "disabled"),
        (60, 119, "wounded"),
        (60, 120, "disabled"),
    ],
)
def test_disabled_above_twice_vitality_or_at_the_cap_of_100(vitality, damage, level):
    # "If a combatant's damage exceeds twice his Vitality score he is disabled"; a target's count
    # stops at 100 (or twice Vitality if more), where it is destroyed: vitality 50 is disabled at 100
    s = soi(fighter("a", "A"), fighter("b", "B", vitality=vitality), fighter("c", "B"))
    run(s, "begin", [10, 80, 90])
    hurt(s, "b", "left arm", damage)
    assert s.state.combatants["b"].has(f"left arm {level}")


def test_spirit_to_spend_is_the_lower_of_spirit_and_its_limit():
    from combatlog.engine.rules.swords_of_infinity.reading import spirit_left

    s = soi(
        fighter("a", "A", spirit=3, spirit_limit=1),
        fighter("b", "B", spirit=2),
        fighter("c", "B", spirit=2, spirit_limit=5),
    )
    assert [spirit_left(s.state, s.state.combatants[c]) for c in "abc"] == [1, 2, 2]


def test_the_human_composition():
    # "two legs (1-2), the torso (3-6), two arms (7-8), and the head (9-10)"
    from combatlog.engine.rules.swords_of_infinity.model import HUMAN
    from combatlog.engine.rules.swords_of_infinity.numbers import location

    assert [location(d, HUMAN) for d in range(1, 11)] == [
        "left leg",
        "right leg",
        "torso",
        "torso",
        "torso",
        "torso",
        "left arm",
        "right arm",
        "head",
        "head",
    ]


def test_the_size_table_as_the_text_gives_it():
    # "Creature Size Active Space Occupied Space": -5 1/32 1/128 ... 5 25 16
    from combatlog.engine.rules.swords_of_infinity.model import SIZE_SPACE

    text = """-5 1/32 1/128
    -4 1/16 1/64
    -3 1/4 1/16
    -2 1/2 1/8
    -1 1 1/6
    0 1 1/4
    1 1 1/2
    2 4 1
    3 9 4
    4 16 8
    5 25 16"""
    rows = [line.split() for line in text.splitlines()]
    assert {int(size): (active, occupied) for size, active, occupied in rows} == SIZE_SPACE


def test_stats_not_given_are_0():
    # block (its TN is Awareness 30 + 0), strength (an unarmed blow's power TN), a weapon's
    # power, and physical resistance (a technique's contest against TN 0), when the file leaves
    # them out
    s = soi(fighter("a", "A", weapons=[]), fighter("b", "B"))
    run(s, "begin", [10, 99])
    assert attack(s, "a", "b", [40, 99, 50], defense="block", block_target="torso") == (
        "hit roll 40 against 40: a hit; block 99 against 30: fails; power 50 against 0: no power; 0 damage to the head"
    )
    s = soi(fighter("a", "A", weapons=[{"name": "stick", "skill": 10}]), fighter("b", "B"))
    run(s, "begin", [10, 99])
    assert (
        attack(s, "a", "b", [40, 50])
        == "hit roll 40 against 50: a hit; power 50 against 0: no power; 0 damage to the head"
    )
    s = duel()
    assert attack(s, "a", "b", [30, 60, 1], technique="disrupt").endswith(
        "disrupt: not resisted (1 against 0): no spells for a full round"
    )


def test_resisted_moves_cost_their_points_of_power_a_square():
    # a jump 10 points of power a square, a climb 50, a swim 5
    from combatlog.engine.rules.swords_of_infinity.numbers import moved_squares

    assert [moved_squares(k, p, 7, False) for k, p in (("jump", 19), ("climb", 99), ("swim", 9))] == [1, 1, 1]


def test_an_attack_naming_no_weapon_is_made_with_the_first_in_hand():
    s = duel({"weapons": [SWORD, DAGGER]})
    assert attack(s, "a", "b", [99]) == "hit roll 99 against 50: a miss"  # the sword: 40 + 10
    s = duel({"weapons": [{**DAGGER, "skill": 20}, SWORD]})
    assert attack(s, "a", "b", [99]) == "hit roll 99 against 60: a miss"  # the dagger: 40 + 20


# --- resisted moves ---------------------------------------------------------------------------


def test_a_wounded_sprinter_sprints_and_endures_at_10_less():
    # "a penalty of -10 to all Power and Success checks": sprint 50 - 10, endurance 20 - 10; a roll
    # at the TN succeeds; the last point of spirit pays for a failed endurance
    s = duel({"skills": {"sprint": 50, "endurance": 20}, "spirit": 1})
    place(s, a=(0, 0), b=(30, 30))
    hurt(s, "a", "torso", 31)
    said = told(act(s, "a", "sprint", [40], x=0, y=29))
    assert said.startswith("sprint 40 against 40: power 40, 40 squares, to 0,29")
    said = told(act(s, "a", "sprint", [10, 5], x=0, y=0))
    assert said.startswith("endurance 10 against 10; sprint 5 against 40")
    s = duel({"skills": {"sprint": 50, "endurance": 20}, "spirit": 1})
    place(s, a=(0, 0), b=(30, 30))
    act(s, "a", "sprint", [40], x=0, y=29)
    assert told(act(s, "a", "sprint", [90, 5], x=0, y=0)).startswith("endurance 90 against 20 fails: 1 spirit")
    assert s.state.extra.spirit_spent["a"] == 1


def test_a_swimmer_without_a_swim_speed_is_vulnerable_and_one_with_it_is_not():
    for speed, vulnerable in ((None, True), (5, False)):
        extra = {} if speed is None else {"swim_speed": speed}
        s = duel({"skills": {"swim": 60}, **extra})
        place(s, a=(0, 0), b=(30, 30))
        act(s, "a", "swim", [55], x=0, y=1)
        assert s.state.combatants["a"].has("vulnerable (swimming)") is vulnerable


def test_a_sprint_stops_short_along_its_line():
    # a sprint of power 10 (10 squares) toward 20,10 from 0,0 ends halfway: 10,5
    s = duel({"skills": {"sprint": 50}})
    place(s, a=(0, 0), b=(30, 30))
    assert told(act(s, "a", "sprint", [10], x=20, y=10)).startswith(
        "sprint 10 against 50: power 10, 10 squares, to 10,5"
    )
    assert s.state.combatants["a"].position == "10,5"


def test_a_destroyed_damage_target_does_not_recover():
    # (our reading) "If this damage is beyond 100 points and more than twice his Vitality Score,
    # the Damage Target is destroyed (i.e. limbs are cut off, etc.)": no recovery grows it back
    s = soi(fighter("a", "A"), fighter("b", "B", physical_resistance=100), fighter("c", "B"))
    run(s, "begin", [10, 80, 90])
    hurt(s, "b", "left arm", 100)
    assert refused(s, "recover", actor="b", rested=True) == "recover b: nothing to heal"


def test_a_larger_spotter_has_no_awareness_bonus():
    s = duel({"skills": {"stealth": 40}}, {"skills": {"spot": 20}, "size": 1})
    assert told(act(s, "a", "stealth", [35, 99], target="b")).startswith("stealth 35 against 40, spot 99 against 20: ")


def test_shooting_makes_the_shooter_vulnerable_and_a_blow_does_not():
    s = duel({"weapons": [BOW]})
    attack(s, "a", "b", [99])
    assert s.state.combatants["a"].has("vulnerable (ranged attack)")
    s = duel()
    attack(s, "a", "b", [99])
    assert not s.state.combatants["a"].has("vulnerable (ranged attack)")


def test_a_dual_attacks_second_blow_at_one_the_first_felled_is_lost():
    # version 3: "a target gone (a dual attack's second blow at one the first felled) says so in
    # the core's words"
    s = soi(fighter("a", "A", weapons=[SWORD, DAGGER]), fighter("b", "B", vitality=1), fighter("c", "B"))
    run(s, "begin", [10, 99, 98])
    events = run(s, "act", [10, 40], actor="a", action="dual_attack", targets=("b",))
    assert told(events).endswith(
        "40 damage to the head; dagger (off hand): lost: B is already out of the fight (unconscious)"
    )


def test_a_retaliate_holds_an_attack_for_an_enemy_coming_within_reach():
    assert told(act(duel(), "a", "retaliate")) == "holds an attack for an enemy coming within reach"


def test_a_kept_spell_is_recorded_as_kept_and_a_cast_one_is_not():
    s = duel()
    act(s, "a", "cast", spell="light")
    assert not s.state.extra.maintained.get("a")
    act(s, "a", "cast", spell="shield", maintain=True)
    assert s.state.extra.maintained["a"] == ("shield",)


def test_dual_wielding_offers_the_one_handed_weapons_in_hand():
    from combatlog.engine.rules.swords_of_infinity.actions import ACTIONS

    s = duel({"weapons": [SWORD, {**DAGGER, "two_handed": False}, {"name": "pike", "two_handed": True}]})
    dual = next(a for a in ACTIONS if a.name == "dual_attack")
    assert dual.params[0].offered(s.state, s.state.combatants["a"]) == ("sword", "dagger")


# the attacker away from the origin, so that its x and y differ
@pytest.mark.parametrize(
    ("b", "to"),
    [((3, 5), "8,5"), ((1, 5), "-4,5"), ((2, 6), "2,11"), ((2, 4), "2,-1"), ((3, 4), "8,-1"), ((2, 5), "7,5")],
)
def test_a_knockback_from_2_5_throws_straight_away_and_from_the_same_square_to_the_east(b, to):
    # power 25: 5 squares; a target on the attacker's own square is thrown along x
    s = duel({"weapons": [], "strength": 60}, {"physical_resistance": 20})
    place(s, a=(2, 5), b=b)
    attack(s, "a", "b", [10, 25, 50], technique="knockback")
    assert s.state.combatants["b"].position == to


@pytest.mark.parametrize(
    ("b", "to", "faces"),
    [((3, 5), "4,5", []), ((1, 5), "0,5", []), ((2, 6), "2,7", []), ((2, 4), "2,3", []), ((2, 5), "3,5", [99])],
)
def test_retreat_from_2_5_steps_straight_away_and_from_the_same_square_to_the_east(b, to, faces):
    # (a sword reaches 5 ft: out of reach after a step away, still in reach from the same square)
    s = soi(fighter("a", "A", dexterity=0, weapons=[SWORD]), fighter("b", "B", dexterity=40))
    place(s, a=(2, 5), b=b)
    run(s, "begin", [99, 10])
    act(s, "b", "retreat")
    run(s, "end_turn", actor="b")
    events = run(s, "act", faces, actor="a", action="attack", targets=("b",))
    assert [(e.to, e.distance) for e in events if type(e).__name__ == "Moved"] == [(to, 5)]


def test_retreat_from_an_attacker_with_no_square_steps_to_the_east():
    s = soi(fighter("a", "A", dexterity=0), fighter("b", "B", dexterity=40))
    place(s, b=(2, 5))
    run(s, "begin", [99, 10])
    act(s, "b", "retreat")
    run(s, "end_turn", actor="b")
    attack(s, "a", "b", [99])
    assert s.state.combatants["b"].position == "3,5"


def test_a_damage_target_is_destroyed_at_100_not_99():
    # "If this damage is beyond 100 points and more than twice his Vitality Score, the Damage
    # Target is destroyed": the count stops at 100 for vitality 30; at 99 it still heals
    s = soi(fighter("a", "A"), fighter("b", "B", physical_resistance=100), fighter("c", "B"))
    run(s, "begin", [10, 80, 90])
    hurt(s, "b", "left arm", 99)
    run(s, "recover", [10], actor="b", params={"rested": True})
    assert s.state.combatants["b"].wounds == {"left arm": 98}


def test_intelligence_and_spirit_not_given_are_0():
    s = soi(fighter("a", "A"), fighter("b", "B"), fighter("m", "B", skills={"first_aid": 10}))
    run(s, "begin", [99, 98, 10])
    hurt(s, "b", "torso", 31)
    events = run(s, "act", [10], actor="m", action="first_aid", targets=("b",), params={"target": "torso"})
    assert told(events) == "10 against 10: the torso is treated one level better"  # 0 + first aid 10
    s = duel(b={"physical_resistance": 40})
    attack(s, "a", "b", [30, 60, 50], technique="pin")
    run(s, "end_turn", actor="a")
    with pytest.raises(Refused, match="escaping takes a point of spirit, and none is left"):
        act(s, "b", "escape")


@pytest.mark.parametrize("weapons", [[{**SWORD, "edge": 1}], None])
def test_an_unknown_weapon_or_shield_field_is_refused(weapons):
    extra = {"weapons": weapons} if weapons else {"shield": {"name": "tower", "size_class": 2, "spikes": 1}}
    with pytest.raises(Refused, match="edge|spikes"):
        soi(fighter("a", "A", **extra))


def test_a_sprint_from_2_5_goes_along_its_line():
    # power 10 toward 22,15 (20 squares away): halfway, 12,10
    s = duel({"skills": {"sprint": 50}})
    place(s, a=(2, 5), b=(40, 40))
    events = act(s, "a", "sprint", [10], x=22, y=15)
    assert told(events).startswith("sprint 10 against 50: power 10, 10 squares, to 12,10")


@pytest.mark.parametrize("version", ["2", "3"])
def test_a_version_2_sprint_moves_at_once_and_version_3_walks(version, monkeypatch):
    # version 2 put a resisted move's mover straight there; version 3 walks it there square by
    # square (where a Retaliate may strike): 10 squares, 50 ft, either way
    monkeypatch.setattr(type(get_rules("swords-of-infinity")), "version", version)
    s = duel({"skills": {"sprint": 50}})
    place(s, a=(2, 5), b=(40, 40))
    events = act(s, "a", "sprint", [10], x=22, y=15)
    assert [(e.to, e.distance) for e in events if type(e).__name__ == "Moved"][-1] == ("12,10", 50)


def test_a_failed_endurance_with_no_spirit_left_costs_nothing():
    s = duel({"skills": {"sprint": 50, "endurance": 20}})
    place(s, a=(0, 0), b=(30, 30))
    act(s, "a", "sprint", [40], x=0, y=29)
    assert told(act(s, "a", "sprint", [90, 5], x=0, y=0)).startswith("endurance 90 against 20 fails (no spirit left)")
    assert not s.state.extra.spirit_spent.get("a")


def test_a_resisted_move_leaves_fortify():
    s = duel({"skills": {"sprint": 50}, "shield": {"name": "tower", "size_class": 2}})
    place(s, a=(0, 0), b=(30, 30))
    act(s, "a", "fortify")
    act(s, "a", "sprint", [5], x=0, y=5)
    assert not s.state.combatants["a"].has("fortify")


# --- an untargeted attack's Physical Resistance, a hit for 0, a wall's damage -----------------


@pytest.mark.parametrize(
    ("b", "wounded", "faces", "said"),
    [
        ({}, False, [30, 50, 50], "physical resistance 50 against 60: fails; 50 damage to the left leg"),
        ({"size": 1}, False, [30, 50, 55], "physical resistance 55 against 70: no damage"),
        ({}, True, [30, 50, 55], "physical resistance 55 against 50: fails; 50 damage to the left leg"),
    ],
)
def test_an_untargeted_attack_is_resisted_whole_by_a_higher_power(b, wounded, faces, said):
    # "the defender must win a power contest using their Physical Resistance against the Power":
    # a tie (50 against 50) doesn't win; a larger target resists at +10, a wounded one at -10
    s = duel({}, {"physical_resistance": 60, **b})
    if wounded:
        hurt(s, "b", "torso", 31)
    assert attack(s, "a", "b", faces, area=True, block_target="left leg").endswith(said)


def test_a_hit_for_0_leaves_no_wound_and_a_wall_1_foot_short_deals_1():
    s = duel({"weapons": [{"name": "stick", "skill": 10}]})
    attack(s, "a", "b", [40, 50])
    assert s.state.combatants["b"].wounds == {}
    s = duel({"weapons": [], "strength": 60}, {"physical_resistance": 20})
    place(s, a=(0, 0), b=(1, 0))
    attack(s, "a", "b", [10, 30, 50], technique="knockback", wall_ft=29)
    assert s.state.combatants["b"].wounds == {"torso": 1}
