"""Swords of Infinity: the core of Tactical Time and the text's worked examples, dice forced."""

from __future__ import annotations

from pathlib import Path

import pytest

from combatlog.engine import Refused, Session
from combatlog.engine.encounter_file import read_encounter
from combatlog.engine.rules.swords_of_infinity.events import RetaliationChosen, RetaliationOffered
from combatlog.engine.rules.swords_of_infinity.model import HUMAN
from combatlog.engine.rules.swords_of_infinity.numbers import (
    block_damage,
    dodged,
    exploit_stacks,
    knockback_damage,
    location,
)
from combatlog.events import ActionResolved, Command, DiceRolled, Moved
from combatlog.projections import replay
from combatlog.replays import JsonlLog, MemoryLog
from combatlog.replays.audit import audit
from combatlog.replays.transcript import transcript
from combatlog.testing import fight
from tests import builders

run = builders.forced
of = builders.of
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "swords-of-infinity-ambush.toml"
AXE = {"name": "axe", "skill": 10, "weight": 0, "power": 70}


BASE = {"vitality": 30, "dexterity": 40, "awareness": 30, "weapons": [AXE]}


def fighter(cid: str, side: str, **stats) -> dict:
    return builders.fighter(cid, side, name=cid.capitalize(), defaults=BASE, **stats)


def soi(*combatants: dict, **options) -> Session:
    return builders.encounter("swords-of-infinity", *combatants, **options)


def attack(s: Session, actor: str, target: str, faces, **params) -> str:
    events = run(s, "act", faces, actor=actor, action="attack", targets=(target,), params=params)
    return [e for e in events if isinstance(e, ActionResolved)][-1].outcome


def test_bjorics_block():
    # 20 in block + 35 awareness: 55; armour 3 on the left arm + a size 3 shield: -60; power 63 -> 3
    assert block_damage(63, 3, 3) == 3
    f = fight(
        "swords-of-infinity",
        fighter("raider", "B", dexterity=40),
        fighter(
            "bjoric",
            "A",
            awareness=35,
            block=20,
            armor={"left arm": 3, "head": 2},
            shield={"name": "shield", "size_class": 3},
        ),
        dice={"initiative by raider": 10, "initiative by bjoric": 90},  # a success and a failure: the raider first
    )
    step = f.act(
        "raider",
        "attack",
        "bjoric",
        defense="block",
        block_target="left arm",
        dice={"axe at bjoric": 29, "block by bjoric": 55, "axe power": 63},
    )
    # the hit roll's ones digit 9: the head; Bjoric blocks (55 against 55) and takes it on the left arm
    assert step.outcome == (
        "hit roll 29 against 50: a hit; block 55 against 55: the left arm takes it; "
        "power 63 against 70; 3 damage to the left arm (armour 6)"
    )
    assert f.combatant("bjoric").wounds == {"left arm": 3}


def test_parthenias_dodge():
    assert dodged(13, 27, 55) and not dodged(28, 27, 55) and not dodged(56, 90, 55)
    f = fight(
        "swords-of-infinity",
        fighter("raider", "B"),
        fighter("parthenia", "A", dexterity=25, dodge=30),
        dice={"initiative by raider": 10, "initiative by parthenia": 90},
    )
    step = f.act("raider", "attack", "parthenia", defense="dodge", dice={"axe at parthenia": 27, "dodge": 13})
    assert step.outcome == "hit roll 27 against 50: a hit; dodge 13 against 55 and 27: dodged"
    assert f.damage("parthenia") == 0


def test_the_knockback_example_and_the_exploit_example():
    assert knockback_damage(30, 10) == 20  # 30 ft of knockback into a wall 10 ft away
    assert knockback_damage(30, None) == 0 and knockback_damage(10, 30) == 0
    assert exploit_stacks(1, -1, True) == 3  # a dagger, a size -1 attacker, a target made vulnerable by stealth
    assert exploit_stacks(1, -1, False) == 0 and exploit_stacks(0, 0, True) == 1


def test_hit_location_by_the_ones_digit_on_a_human():
    assert [location(r, HUMAN) for r in (11, 2, 33, 46, 57, 68, 79, 100)] == [
        "left leg",
        "right leg",
        "torso",
        "torso",
        "left arm",
        "right arm",
        "head",
        "head",
    ]


def test_wounded_disabled_and_destroyed():
    s = soi(fighter("a", "A"), fighter("b", "B", vitality=30), fighter("c", "B"))
    run(s, "begin", [10, 80, 90])

    def hurt(where, n):
        run(s, "override", params={"reason": "t", "damage": {"target": "b", "amount": n, "location": where}})

    hurt("left arm", 31)  # above vitality: wounded
    b = s.state.combatants["b"]
    assert b.has("left arm wounded") and s.rules.budget(s.state, b) == {"actions": 2, "minor": 1}
    hurt("left arm", 30)  # above twice vitality: disabled, one action fewer
    b = s.state.combatants["b"]
    assert b.has("left arm disabled") and s.rules.budget(s.state, b) == {"actions": 1, "minor": 1}
    hurt("head", 61)
    assert s.state.combatants["b"].defeated == "unconscious"  # a disabled head knocks out
    s2 = soi(fighter("a", "A"), fighter("b", "B", vitality=30), fighter("c", "B"))
    run(s2, "begin", [10, 80, 90])
    run(s2, "override", params={"reason": "t", "damage": {"target": "b", "amount": 101, "location": "torso"}})
    assert s2.state.combatants["b"].defeated.startswith("dead")


def test_a_wound_penalises_every_check():
    s = soi(fighter("a", "A"), fighter("b", "B"), fighter("c", "B"))
    run(s, "begin", [10, 80, 90])
    run(s, "override", params={"reason": "t", "damage": {"target": "a", "amount": 31, "location": "torso"}})
    assert attack(s, "a", "b", [45]) == "hit roll 45 against 40: a miss"


def test_initiative_is_a_power_roll_and_failures_act_last():
    trio = (fighter("a", "A", dexterity=20, awareness=20), fighter("b", "B"), fighter("c", "B"))
    rolled = {"initiative by a": 39, "initiative by b": 80, "initiative by c": 75}
    f = fight("swords-of-infinity", *trio, dice=rolled)  # a: 39 under 40; b: 80 fails (TN 70); c: 75 fails
    assert f.state.order == (("a",), ("c",), ("b",))
    f = fight("swords-of-infinity", *trio, dice=rolled, failed_initiative="roll")
    assert f.state.order == (("b",), ("c",), ("a",))


def test_a_failed_initiative_is_shown_as_rolled_not_as_its_sort_key(tmp_path):
    """A failure is kept as its negative so that it sorts after every success; the order line,
    the `show` table, a viewer's view and the web tracker say it as rolled: `80, failed`."""
    from click.testing import CliRunner

    from combatlog.cli.main import app
    from combatlog.events.privacy import GM
    from combatlog.replays import open_log
    from combatlog.replays.transcript import transcript
    from combatlog.replays.views import seen
    from combatlog.web.view import screen

    trio = (fighter("a", "A", dexterity=20, awareness=20), fighter("b", "B"), fighter("c", "B"))
    rolled = {"initiative by a": 39, "initiative by b": 80, "initiative by c": 75}
    path = tmp_path / "fight.jsonl"
    f = fight("swords-of-infinity", *trio, dice=rolled, log=open_log(path))
    assert f.state.combatants["b"].initiative == -80  # the sort key, as recorded
    assert "Order: A (39); C (75, failed); B (80, failed)" in [line for _, line in transcript(f.log)]
    view = {c.id: c for c in seen(f.state, GM, 0).combatants}
    assert view["b"].initiative == -80 and view["b"].initiative_said == "80, failed"
    assert view["a"].initiative == 39 and view["a"].initiative_said is None  # a success reads as its number
    assert {r.id: r.initiative for r in screen(f.state, GM, 0).rows} == {"a": 39, "b": "80, failed", "c": "75, failed"}
    f.log.close()
    shown = CliRunner().invoke(app, ["show", str(path)]).output
    assert "80, failed" in shown and "-80" not in shown


def test_two_actions_and_a_minor_action():
    f = fight("swords-of-infinity", fighter("a", "A"), fighter("b", "B"), dice={"initiative": [10, 90]})
    f.act("a", "speak", text="Yield!")
    f.act("a", "attack", "b", dice={"axe at b": 99})
    assert f.acting == ("a",)
    with pytest.raises(Refused, match="minor"):
        f.act("a", "speak")
    f.act("a", "attack", "b", dice={"axe at b": 99})
    assert f.acting == ("b",)


def test_ranged_attacks_lose_1_per_5_feet_and_improvised_throws_5():
    bow = {"name": "bow", "skill": 10, "weight": 0, "power": 50, "range": 100}
    rock = {"name": "rock", "skill": 10, "weight": 0, "power": 20, "range": 30, "improvised": True}
    s = soi(fighter("a", "A", weapons=[bow, rock]), fighter("b", "B"))
    run(s, "begin", [10, 90])
    s.do("override", reason="placing", move={"target": "a", "to": "0,0"})
    s.do("override", reason="placing", move={"target": "b", "to": "4,0"})  # 20 ft
    assert attack(s, "a", "b", [99], weapon="bow").startswith("hit roll 99 against 46")
    assert attack(s, "a", "b", [99], weapon="rock").startswith("hit roll 99 against 30")


def test_the_ambush_plays_to_the_end_and_its_log_replays_and_audits_clean(tmp_path):
    log = JsonlLog(tmp_path / "ambush.jsonl")
    s = Session(log)
    for c in read_encounter(EXAMPLE, seed=2):
        s.execute(c)
    s.do("begin")
    s.play_out(3000)
    assert s.state.phase == "end"
    assert replay(log).state == s.state and audit(log).clean


# --- the rest of the chapter ------------------------------------------------------------

from combatlog.engine.rules.swords_of_infinity.model import SIZE_SPACE  # noqa: E402
from combatlog.engine.rules.swords_of_infinity.numbers import moved_squares  # noqa: E402


def place(s: Session, **where):
    for cid, (x, y) in where.items():
        s.do("override", reason="placing", move={"target": cid, "to": f"{x},{y}"})


def duel(a: dict | None = None, b: dict | None = None, **options) -> Session:
    """a acts first (initiative 10 against b's failure)."""
    s = soi(fighter("a", "A", **(a or {})), fighter("b", "B", **(b or {})), **options)
    run(s, "begin", [10, 99])
    return s


def test_the_size_table():
    assert SIZE_SPACE[0] == ("1", "1/4") and SIZE_SPACE[3] == ("9", "4") and SIZE_SPACE[-5] == ("1/32", "1/128")


@pytest.mark.parametrize(
    "kind, power, squares", [("sprint", 40, 40), ("sprint", 3, 7), ("jump", 40, 4), ("climb", 100, 2), ("swim", 40, 8)]
)
def test_resisted_movement_distances(kind, power, squares):
    assert moved_squares(kind, power, 7, False) == squares


def test_sprint_on_rough_terrain_is_halved_and_a_second_resisted_move_tires():
    s = duel({"skills": {"sprint": 50, "endurance": 20}, "spirit": 3})
    place(s, a=(0, 0), b=(30, 0))
    run(s, "override", params={"reason": "debris", "condition": {"target": "a", "name": "rough terrain"}})
    said = outcome_of(act(s, "a", "sprint", [40], x=29, y=0))
    assert said == "sprint 40 against 50: power 40, 20 squares, to 20,0"
    said = outcome_of(act(s, "a", "sprint", [90, 10], x=29, y=0))  # endurance 90 against 20 fails: 1 spirit
    assert said.startswith("endurance 90 against 20 fails: 1 spirit; sprint 10 against 50: power 10, 7 squares")
    assert s.state.extra.spirit_spent["a"] == 1


def outcome_of(events) -> str:
    return [e for e in events if isinstance(e, ActionResolved)][-1].outcome


def act(s: Session, actor: str, action: str, faces=(), target: str | None = None, **params):
    return run(s, "act", faces, actor=actor, action=action, targets=(target,) if target else (), params=params)


def test_climbing_makes_vulnerable_until_the_next_turn():
    s = duel({"skills": {"climb": 60}})
    act(s, "a", "climb", [55], x=0, y=1)
    assert s.state.combatants["a"].has("vulnerable (climbing)")


def test_an_untargeted_attack_the_defender_places_it_and_may_resist_it_whole():
    s = duel(b={"physical_resistance": 60, "dodge": 90})
    said = attack(s, "a", "b", [30, 50, 55], area=True, block_target="left leg")
    assert said == ("hit roll 30 against 50: a hit; power 50 against 70; physical resistance 55 against 60: no damage")
    said = attack(s, "a", "b", [30, 60, 20], area=True, block_target="left leg", defense="dodge")
    assert "can't be dodged" in said and said.endswith(
        "physical resistance 20 against 60: fails; 60 damage to the left leg"
    )


def test_size_differences():
    s = duel({"size": -1}, {"size": 1, "dodge": 10})
    # a smaller attacker: +10 per size to hit (two sizes: +20); a larger defender gets no dodge bonus
    assert attack(s, "a", "b", [99]) == "hit roll 99 against 70: a miss"
    s = duel({"size": 1}, {"size": -1, "dexterity": 20, "dodge": 10})
    said = attack(s, "a", "b", [45, 45], defense="dodge")  # dodge TN 30 + 20
    assert said == ("hit roll 45 against 50: a hit; dodge 45 against 50 and 45: dodged")
    s = duel({"size": 1}, {"size": -1})
    assert attack(s, "a", "b", [45, 85]).startswith("hit roll 45 against 50: a hit; power 85 against 90")


def test_critical_hit_choices():
    s = duel(b={"block": 30})  # block TN 60: a critical block is 6 or less
    said = attack(s, "a", "b", [5, 20, 60], defense="block", critical="undefendable")
    assert "block 20 against 60: fails" in said and said.endswith("60 damage to the torso")
    s = duel(b={"block": 30})
    said = attack(s, "a", "b", [5, 6, 60], defense="block", critical="undefendable")  # a critical block holds
    assert "block 6 against 60: the torso takes it" in said
    s = duel()
    assert "full power 70" in attack(s, "a", "b", [5], critical="full")
    s = duel()
    attack(s, "a", "b", [5, 10], critical="narrative")
    assert s.state.combatants["b"].has("narrative effect from a")
    run(s, "end_turn", actor="a")
    run(s, "end_turn", actor="b")
    assert not s.state.combatants["b"].has("narrative effect from a")  # a round: gone when a's next turn starts


def test_critical_defense_choices():
    s = duel(b={"dodge": 30, "weapons": [AXE]})
    said = attack(s, "a", "b", [40, 5, 95], defense="dodge", critical_defense="counter")  # b counters: 95 misses
    assert said.endswith("dodged; a critical defense: a counter-attack: hit roll 95 against 50: a miss")
    s = duel(b={"dodge": 30})
    place(s, a=(0, 0), b=(1, 0))
    attack(s, "a", "b", [40, 5], defense="dodge", critical_defense="move", move_to="5,5")
    assert s.state.combatants["b"].position == "5,5"


def test_a_vulnerable_defender_pays_spirit_per_stack_and_exploit_adds_stacks():
    dagger = {"name": "dagger", "skill": 10, "weight": 0, "power": 40, "exploit": 1}
    s = duel({"weapons": [dagger], "size": -1}, {"dodge": 30, "spirit": 5})
    run(s, "override", params={"reason": "t", "condition": {"target": "b", "name": "encumbered"}})
    attack(s, "a", "b", [30, 25], defense="dodge")  # 1 stack + exploit 1 (dagger) + 1 (size -1): 3 spirit
    assert s.state.extra.spirit_spent["b"] == 3
    said = attack(s, "a", "b", [30, 50], defense="dodge")  # 3 more needed, 2 left: no defense
    assert "too vulnerable to defend (3 spirit needed)" in said


def test_retreat_steps_back_from_the_first_attack_and_lifts_ranged_vulnerability():
    s = duel(b={"weapons": [{"name": "bow", "skill": 10, "weight": 0, "power": 40, "range": 100}]})
    place(s, a=(0, 0), b=(1, 0))
    run(s, "end_turn", actor="a")
    act(s, "b", "attack", [99], target="a")  # b shoots: vulnerable (ranged attack)
    act(s, "b", "retreat")
    run(s, "end_turn", actor="b")  # a new round
    said = attack(s, "a", "b", [])
    assert said == "B retreats a step; out of reach" and s.state.combatants["b"].position == "2,0"
    assert vulnerability_of(s, "b", "a") == 0  # retreat lifts the shooting vulnerability


def vulnerability_of(s, target, attacker, melee=True):
    from combatlog.engine.rules.swords_of_infinity.reading import vulnerability

    st = s.state
    return vulnerability(st, st.combatants[target], st.combatants[attacker], melee)


def test_cover_fortify_and_prone():
    s = duel(b={"dodge": 20, "shield": {"name": "tower", "size_class": 2}})
    run(s, "override", params={"reason": "t", "condition": {"target": "b", "name": "cover 3"}})
    assert "dodge 55 against 90 and 40: fails" in attack(s, "a", "b", [40, 55, 60], defense="dodge")  # +30: cover
    s = duel(a={"shield": {"name": "tower", "size_class": 2}})
    act(s, "a", "fortify")
    act(s, "a", "prone")
    st = s.state
    from combatlog.engine.rules.swords_of_infinity.reading import cover

    assert cover(st.combatants["a"]) == 2 and cover(st.combatants["a"], ranged=True) == 3
    assert vulnerability_of(s, "a", "b", melee=True) == 1 and vulnerability_of(s, "a", "b", melee=False) == 0


def test_dual_wielding_two_attacks_for_one_action_the_off_hand_lower_and_vulnerable():
    sword = {"name": "sword", "skill": 10, "weight": 0, "power": 50}
    s = duel({"weapons": [sword, {**sword, "name": "dagger"}]})
    events = act(s, "a", "dual_attack", [99, 99], target="b")
    assert (
        outcome_of(events) == "sword: hit roll 99 against 50: a miss; dagger (off hand): hit roll 99 against 40: a miss"
    )
    assert (
        s.state.combatants["a"].has("vulnerable (dual wielding)") and s.state.combatants["a"].resources["actions"] == 1
    )


def test_unarmed_attacks_are_class_0_with_strength_power():
    s = duel({"weapons": [], "strength": 30}, {"block": 40, "armor": {"head": 1}})
    said = attack(s, "a", "b", [19, 10, 25], defense="block")
    assert said == (
        "hit roll 19 against 40: a hit; block 10 against 70: the head takes it; power 25 against 30; "
        "15 damage to the head (armour 1)"
    )


def test_stealth_makes_the_target_unaware_until_attacked():
    s = duel({"skills": {"stealth": 60}}, {"skills": {"spot": 30}, "dodge": 10, "spirit": 0})
    events = act(s, "a", "stealth", [40, 50], target="b")
    assert outcome_of(events).endswith("B is unaware of A")
    said = attack(s, "a", "b", [30, 60], defense="dodge")  # unaware: vulnerable, no spirit to defend
    assert "too vulnerable to defend" in said and not s.state.combatants["b"].has("unaware of a")


def test_a_charge_adds_the_straight_line_feet_to_the_power():
    s = duel()
    place(s, a=(0, 0), b=(8, 0))
    run(s, "end_turn", actor="a")
    run(s, "end_turn", actor="b")
    act(s, "a", "move", x=7, y=0)  # its turn began at 0,0: 35 ft in a straight line
    said = attack(s, "a", "b", [33, 50], charge=True)
    assert said == "hit roll 33 against 50: a hit; power 50 against 70; +35 for the charge; 85 damage to the torso"


def retaliating(mover: dict | None = None, **where) -> Session:
    """a (first, with the stats `mover`) and b placed; b holds a Retaliate; a's next turn has begun."""
    s = duel(mover, {"weapons": [AXE]})
    place(s, **where)
    run(s, "end_turn", actor="a")
    act(s, "b", "retaliate")
    run(s, "end_turn", actor="b")
    assert s.state.acting == ("a",) and s.state.combatants["b"].has("retaliating")
    return s


def transcript_of(s: Session) -> str:
    return "\n".join(line for _, line in transcript(s.log))


def choose(s: Session, holder: str, choice: str, faces=()) -> list:
    return run(s, "retaliation", faces, actor=holder, params={"choice": choice})


def chosen(events) -> str:
    return [e for e in events if isinstance(e, RetaliationChosen)][-1].outcome


def test_retaliate_strikes_an_enemy_that_comes_within_reach_and_it_may_move_on_vulnerable():
    # "The enemy targeted by the Retaliate action may choose to continue moving after the attack
    # ... If the enemy chooses to continue moving, they are Vulnerable."
    s = retaliating(a=(0, 0), b=(5, 0))
    events = act(s, "a", "move", x=4, y=0, through=True)
    assert outcome_of(events) == "moves to 4,0; within B's reach: B may retaliate"
    events = choose(s, "b", "attack", [99])
    assert chosen(events) == "B retaliates: hit roll 99 against 50: a miss; A moves on, vulnerable"
    assert s.state.combatants["a"].has("vulnerable (kept moving)") and not s.state.combatants["b"].has("retaliating")


def test_techniques_disrupt_pin_disarm_trip_knockback():
    s = duel(b={"physical_resistance": 40, "spirit": 2})
    run(s, "end_turn", actor="a")
    act(s, "b", "cast", spell="ward", maintain=True)
    run(s, "end_turn", actor="b")
    said = attack(s, "a", "b", [30, 60, 50], technique="disrupt")  # power 60 against resistance 50 (fails: > 40)
    assert said.endswith("disrupt: not resisted (50 against 40): no spells for a full round")
    assert s.state.combatants["b"].has("disrupted") and not s.state.extra.maintained.get("b")
    s = duel(b={"physical_resistance": 40, "spirit": 2})
    attack(s, "a", "b", [30, 60, 50], technique="pin")
    run(s, "end_turn", actor="a")
    with pytest.raises(Refused, match="pinned"):
        act(s, "b", "attack", target="a")
    act(s, "b", "escape")
    assert "b" not in s.state.extra.pins and s.state.extra.spirit_spent["b"] == 1
    s = duel(b={"physical_resistance": 40})
    with pytest.raises(Refused, match="special ability"):
        attack(s, "a", "b", [], technique="disarm")
    said = attack(s, "a", "b", [33, 60, 50], technique="disarm", ability=True, lands="in the river")
    assert s.state.extra.dropped["b"] == ("axe",) and said.endswith("60 damage to the torso")  # damage too
    s = duel({"weapons": []}, {"physical_resistance": 40})
    armed = duel()
    with pytest.raises(Refused, match="unarmed"):
        attack(armed, "a", "b", [], technique="trip")
    s = duel({"weapons": [], "strength": 60}, {"physical_resistance": 40})
    attack(s, "a", "b", [10, 30, 50], technique="trip")
    assert s.state.combatants["b"].has("prone")


def test_knockback_into_a_wall():
    s = duel({"weapons": [], "strength": 60}, {"physical_resistance": 20})
    place(s, a=(0, 0), b=(1, 0))
    said = attack(s, "a", "b", [10, 30, 50], technique="knockback", wall_ft=10)
    assert said.endswith(
        "knockback: not resisted (50 against 20): thrown 30 ft, into an obstacle at 10 ft: 20 damage to the torso"
    )
    assert s.state.combatants["b"].position == "3,0"


def test_resist_impairment_ignores_the_worst_penalty_until_hurt_again():
    s = duel(b={"vitality": 20, "skills": {"resist_impairment": 50}})
    attack(s, "a", "b", [33, 25, 40])  # 25 to the torso: wounded; resisted (40 against 50)
    b = s.state.combatants["b"]
    assert b.wounds == {"torso": 25} and not b.has("torso wounded")
    assert s.rules.budget(s.state, b) == {"actions": 2, "minor": 1}
    # hurt again: the ignoring ends, and the damage that keeps the torso Wounded brings a new
    # check (version 2; the text: "whenever a combatant would take damage that ... Disables
    # them"); it fails (95 against 40, the Wounded penalty counting now)
    attack(s, "a", "b", [33, 2, 95])
    assert s.state.combatants["b"].has("torso wounded")


def test_a_target_whose_impairment_was_ignored_checks_again_when_damaged_again_and_may_resist_again():
    s = duel(b={"vitality": 20, "skills": {"resist_impairment": 50}})
    attack(s, "a", "b", [33, 25, 40])  # wounded; resisted
    events = run(s, "act", [33, 2, 10], actor="a", action="attack", targets=("b",))  # a new check: 10, resisted
    b = s.state.combatants["b"]
    assert not b.has("torso wounded") and s.rules.budget(s.state, b) == {"actions": 2, "minor": 1}
    assert any(isinstance(e, DiceRolled) and e.purpose.startswith("resist impairment") for e in events)


def test_first_aid_treats_a_damage_target_one_level_better():
    s = soi(
        fighter("a", "A", intelligence=40, skills={"first_aid": 20}), fighter("c", "A", vitality=20), fighter("b", "B")
    )
    run(s, "begin", [30, 10, 99])
    run(s, "override", params={"reason": "t", "damage": {"target": "c", "amount": 45, "location": "left arm"}})
    c = s.state.combatants["c"]
    assert s.rules.budget(s.state, c)["actions"] == 1  # disabled
    run(s, "act", [30], actor="a", action="first_aid", targets=("c",), params={"target": "left arm"})
    assert s.rules.budget(s.state, s.state.combatants["c"])["actions"] == 2  # now merely wounded


def test_recovery_is_a_command_that_works_after_the_fight():
    s = duel(
        {"weapons": [{"name": "maul", "skill": 50, "weight": 0, "power": 100}]},
        {"vitality": 20, "physical_resistance": 80},
    )
    attack(s, "a", "b", [30, 95])  # 95 to the head: disabled, b is knocked out and the fight is over
    assert s.state.phase == "end"
    run(s, "recover", [63], actor="b", params={"target": "head"})  # the tens digit: 6
    assert s.state.combatants["b"].wounds == {"head": 89}
    run(s, "recover", [40], actor="b", params={"rested": True})
    assert s.state.combatants["b"].wounds == {"head": 85}


def test_only_back_to_back_resisted_moves_tire():
    s = duel({"skills": {"sprint": 50, "endurance": 20}, "spirit": 3})
    place(s, a=(0, 0), b=(30, 30))
    act(s, "a", "sprint", [10], x=0, y=29)
    act(s, "a", "speak")  # a minor action between: still back to back
    act(s, "a", "sprint", [90, 10], x=0, y=29)  # endurance fails: 1 spirit
    assert s.state.extra.spirit_spent["a"] == 1
    run(s, "end_turn", actor="b")
    act(s, "a", "move", x=0, y=20)
    act(s, "a", "sprint", [10], x=0, y=29)  # after a walk: no endurance check
    assert s.state.extra.spirit_spent["a"] == 1


def test_a_pin_is_kept_with_an_action_each_round_and_lapses_without():
    s = duel(b={"physical_resistance": 40})
    attack(s, "a", "b", [30, 60, 50], technique="pin")
    run(s, "end_turn", actor="a")
    run(s, "end_turn", actor="b")  # round 2
    act(s, "a", "maintain_pin", target="b")
    run(s, "end_turn", actor="a")
    run(s, "end_turn", actor="b")  # round 3: kept in round 2
    assert "b" in s.state.extra.pins
    run(s, "end_turn", actor="a")
    run(s, "end_turn", actor="b")  # not kept in round 3: it lapses at the round's end
    assert "b" not in s.state.extra.pins


def test_a_disrupted_caster_can_not_cast():
    s = duel(b={"physical_resistance": 40})
    attack(s, "a", "b", [30, 60, 50], technique="disrupt")
    run(s, "end_turn", actor="a")
    with pytest.raises(Refused, match="disrupted"):
        act(s, "b", "cast", spell="fire")


def test_a_target_that_reaches_its_cap_is_destroyed_and_a_vital_one_kills():
    maul = {"name": "maul", "skill": 50, "weight": 0, "power": 100}
    s = soi(fighter("a", "A", weapons=[maul]), fighter("b", "B", vitality=60), fighter("c", "B"))
    run(s, "begin", [10, 98, 99])
    attack(s, "a", "b", [37, 99])  # the left arm: 99 of a 120 cap
    attack(s, "a", "b", [37, 99])  # capped at 120: destroyed (and disabled: twice 60 is the cap)
    b = s.state.combatants["b"]
    assert b.wounds["left arm"] == 120 and s.rules.budget(s.state, b)["actions"] == 1
    run(s, "end_turn", actor="a")
    run(s, "end_turn", actor="b")
    run(s, "end_turn", actor="c")
    attack(s, "a", "b", [33, 99])
    attack(s, "a", "b", [33, 99])  # the torso reaches 120: dead
    assert s.state.combatants["b"].defeated == "dead (the torso destroyed)"


def test_dual_attack_checks_each_weapon():
    sword = {"name": "sword", "skill": 10, "weight": 0, "power": 50}
    s = duel({"weapons": [sword, {**sword, "name": "dagger"}]})
    place(s, a=(0, 0), b=(5, 0))
    with pytest.raises(Refused, match="beyond the sword's reach"):
        act(s, "a", "dual_attack", target="b")
    with pytest.raises(Refused, match="two different"):
        act(s, "a", "dual_attack", target="b", main="sword", off="sword")


def test_a_counter_needs_reach():
    bow = {"name": "bow", "skill": 10, "weight": 0, "power": 40, "range": 200}
    s = duel({"weapons": [bow]}, {"dodge": 30, "weapons": [AXE]})
    place(s, a=(0, 0), b=(20, 0))
    said = attack(s, "a", "b", [20, 5], defense="dodge", critical_defense="counter")  # hit TN 50 - 20 for 100 ft
    assert said.endswith("can't reach 100 ft for a counter-attack")


def test_no_spirit_is_paid_to_dodge_an_attack_that_can_not_be_dodged():
    s = duel(b={"dodge": 30, "spirit": 3, "physical_resistance": 10})
    run(s, "override", params={"reason": "t", "condition": {"target": "b", "name": "encumbered"}})
    attack(s, "a", "b", [30, 50, 90], area=True, defense="dodge", block_target="torso")
    assert s.state.extra.spirit_spent == {}


def test_first_aid_lasts_until_the_target_is_hurt_again_and_is_given_once():
    s = soi(
        fighter("a", "A", intelligence=40, skills={"first_aid": 20}), fighter("c", "A", vitality=20), fighter("b", "B")
    )
    run(s, "begin", [30, 10, 99])
    run(s, "override", params={"reason": "t", "damage": {"target": "c", "amount": 45, "location": "left arm"}})
    run(s, "act", [30], actor="a", action="first_aid", targets=("c",), params={"target": "left arm"})
    with pytest.raises(Refused, match="treated already"):
        run(s, "act", actor="a", action="first_aid", targets=("c",), params={"target": "left arm"})
    run(s, "override", params={"reason": "t", "damage": {"target": "c", "amount": 1, "location": "left arm"}})
    assert s.rules.budget(s.state, s.state.combatants["c"])["actions"] == 1  # hurt again: disabled again


def test_stealth_is_an_opposed_check_won_by_the_lower_roll():
    s = duel({"skills": {"stealth": 60}}, {"skills": {"spot": 50}})
    said = outcome_of(act(s, "a", "stealth", [30, 20], target="b"))  # both succeed; 20 is lower: spotted
    assert said.endswith("noticed")
    said = outcome_of(act(s, "a", "stealth", [20, 30], target="b"))
    assert said.endswith("B is unaware of A")
    # the engine's own route to the Exploit example: unaware (1) + a dagger (1) + size -1 (1) = 3 spirit to dodge
    dagger = {"name": "dagger", "skill": 10, "weight": 0, "power": 40, "exploit": 1}
    s = duel(
        {"weapons": [dagger], "size": -1, "skills": {"stealth": 60}}, {"skills": {"spot": 50}, "dodge": 30, "spirit": 3}
    )
    act(s, "a", "stealth", [20, 30], target="b")
    attack(s, "a", "b", [30, 25], defense="dodge")
    assert s.state.extra.spirit_spent["b"] == 3


@pytest.mark.parametrize("stats", [{"skills": {"sprint": "fast"}}, {"armor": {"head": "thick"}}])
def test_bad_stat_tables_are_refused(stats):
    s = soi(fighter("a", "A"))
    with pytest.raises(Refused, match=r"combatant b: \$\.(skills|armor)\[\.\.\.\]: Expected int, got str"):
        s.do("add", **fighter("b", "B", **stats))


@pytest.mark.parametrize(
    "stats, path",
    [
        ({"weapons": True}, r"\$\.weapons: Expected array, got bool"),
        ({"weapons": [{"name": "axe", "power": "big"}]}, r"\$\.weapons\[0\]\.power: Expected int, got str"),
        ({"vitality": 0}, r"\$\.vitality: Expected int >= 1"),
        ({"size": 9}, r"\$\.size: Expected int <= 5"),
        ({"shield": {"size_class": "huge"}}, r"\$\.shield\.size_class: Expected int, got str"),
        ({"armour": {"head": 2}}, r"unknown field armour"),
    ],
)
def test_a_bad_stat_is_refused_when_added_naming_the_combatant_and_the_path(stats, path):
    s = soi(fighter("a", "A"))
    before = list(s.log.lines())
    with pytest.raises(Refused, match="combatant b: .*" + path):
        s.do("add", **fighter("b", "B", **stats))
    assert list(s.log.lines()) == before


def test_bad_critical_defense_moves_and_walls_are_refused():
    s = duel()
    with pytest.raises(Refused, match="move_to"):
        attack(s, "a", "b", [], critical_defense="move", move_to="nowhere")
    with pytest.raises(Refused, match="wall_ft"):
        attack(s, "a", "b", [], technique="knockback", wall_ft="far")


def test_fortify_is_lost_on_moving():
    s = duel({"shield": {"name": "tower", "size_class": 2}})
    act(s, "a", "fortify")
    assert s.state.combatants["a"].has("fortify")
    act(s, "a", "move", x=1, y=0)
    assert not s.state.combatants["a"].has("fortify")


# --- version 2: what the text says that version 1 missed ---------------------------------


def test_the_target_of_a_retaliate_gets_to_defend_as_its_move_says():
    s = retaliating(a=(0, 0), b=(5, 0))
    act(s, "a", "move", x=4, y=0, defense="dodge")
    # the Retaliate hits (30 against 50); a dodges it (20: at or under 30 and under 40)
    said = chosen(choose(s, "b", "attack", [30, 20]))
    assert said.startswith("B retaliates: hit roll 30 against 50: a hit; dodge 20 against 40 and 30: dodged")
    assert s.state.combatants["a"].wounds == {}


def test_a_mover_that_says_nothing_defends_a_retaliate_as_any_defender_would():
    s = retaliating({"block": 20}, a=(0, 0), b=(5, 0))
    act(s, "a", "move", x=4, y=0)
    said = chosen(choose(s, "b", "attack", [30, 95, 99]))  # a has block: blocks, fails (95); no power
    assert "block 95 against 50: fails" in said


def test_those_who_retaliate_forgo_an_attack_on_their_turn():
    s = duel(b={"weapons": [AXE]})
    run(s, "end_turn", actor="a")
    act(s, "b", "retaliate")
    with pytest.raises(Refused, match="holds a Retaliate this turn and forgoes its attack"):
        attack(s, "b", "a", [30])
    assert s.state.combatants["b"].has("retaliating")


def test_an_attack_forgoes_retaliate_for_the_rest_of_the_turn():
    s = duel(b={"weapons": [AXE]})
    run(s, "end_turn", actor="a")
    attack(s, "b", "a", [99])
    with pytest.raises(Refused, match="attacked this turn"):
        act(s, "b", "retaliate")


# --- version 3: Retaliate as the text has it: any enemy coming within reach, the holder's choice ---


def test_an_enemy_passing_through_reach_is_caught_where_it_comes_within_it():
    # "attack one enemy that comes within the character's melee range": a's way from 0,0 to 7,0
    # passes b at 4,1; its reach (5 ft) begins at 3,0, and a's move ends 15 ft away, out of it
    s = retaliating(a=(0, 0), b=(4, 1))
    events = act(s, "a", "move", x=7, y=0, through=True)
    assert outcome_of(events) == "moves toward 7,0; stops at 3,0, within B's reach: B may retaliate"
    assert s.state.combatants["a"].position == "3,0" and [e.distance for e in of(events, Moved)] == [15]
    assert of(events, RetaliationOffered)[0].retaliator == "b"
    events = choose(s, "b", "attack", [99])
    assert s.state.combatants["a"].position == "7,0" and [e.distance for e in of(events, Moved)] == [20]
    assert s.state.combatants["a"].has("vulnerable (kept moving)")


def test_a_mover_that_doesnt_go_on_stops_in_the_first_square_threatened():
    # "or come to a stop within the first square threatened by the Retaliating character's melee range"
    s = retaliating(a=(0, 0), b=(4, 1))
    act(s, "a", "move", x=7, y=0)
    events = choose(s, "b", "attack", [99])
    assert chosen(events).endswith("; A stops") and not of(events, Moved)
    assert s.state.combatants["a"].position == "3,0" and not s.state.combatants["a"].has("vulnerable (kept moving)")


def test_the_holder_need_not_attack_the_first_enemy_and_keeps_the_retaliate_for_another():
    # "The character need not necessarily attack the first enemy within range"
    s = soi(fighter("a", "A"), fighter("b", "B", weapons=[AXE]), fighter("c", "A"))
    run(s, "begin", [10, 99, 20])  # c 20, a 10, then b (a failure)
    place(s, a=(0, 0), b=(4, 1), c=(0, 2))
    run(s, "end_turn", actor="c")
    run(s, "end_turn", actor="a")
    act(s, "b", "retaliate")
    run(s, "end_turn", actor="b")
    act(s, "c", "move", x=7, y=2)  # passes b: stopped at 3,2
    choose(s, "b", "hold")
    assert s.state.combatants["c"].position == "7,2" and not s.state.combatants["c"].conditions
    assert "B holds the Retaliate; C goes on." in transcript_of(s)
    run(s, "end_turn", actor="c")
    act(s, "a", "move", x=3, y=0)
    assert chosen(choose(s, "b", "attack", [99])) == "B retaliates: hit roll 99 against 50: a miss; A stops"
    assert not s.state.combatants["b"].has("retaliating")
    assert audit(s.log, workers=1).clean


def test_while_a_retaliate_waits_nothing_else_is_done_and_a_wrong_choice_is_refused_in_one_line():
    s = retaliating(a=(0, 0), b=(4, 1))
    act(s, "a", "move", x=7, y=0)
    before = list(s.log.lines())
    with pytest.raises(Refused) as refused:
        act(s, "a", "move", x=0, y=0)
    assert str(refused.value) == (
        "A: move: the fight waits for B's choice: A came within its reach; retaliation b attack, or retaliation b hold"
    )
    with pytest.raises(Refused, match="it is B's Retaliate that waits; retaliation b attack, or retaliation b hold"):
        choose(s, "a", "attack")
    with pytest.raises(Refused, match=r"choose attack \(A, in reach now\) or hold \(for another enemy\)"):
        choose(s, "b", "maybe")
    assert list(s.log.lines()) == before
    assert "Waiting for B's choice: A came within its reach (retaliation b attack, or retaliation b hold)" in (
        s.rules.summary(s.state)
    )


def test_the_automatic_player_attacks_the_enemy_that_comes_within_reach():
    s = retaliating(a=(0, 0), b=(4, 1))
    act(s, "a", "move", x=7, y=0)
    assert s.rules.policy(s.state, s.state.combatants["a"]) == Command(
        kind="retaliation", actor="b", params={"choice": "attack"}, by="policy"
    )
    run(s, "end_turn", actor="a")  # the mover's turn may end: the next waits for the choice
    assert not s.state.acting and s.rules.waiting(s.state)
    assert s.rules.ruling_policy(s.state) == Command(
        kind="retaliation", actor="b", params={"choice": "attack"}, by="policy"
    )
    run(s, "override", params={"reason": "felled", "defeat": {"target": "b"}})
    assert s.rules.ruling_policy(s.state).params == {"choice": "hold"}  # b can't strike now: the move goes on


def test_automatic_fights_with_retaliates_held_play_to_their_end():
    import random

    offered = 0
    for seed in range(8):
        rng = random.Random(seed)
        s = Session(MemoryLog())
        for c in read_encounter(EXAMPLE, seed=seed):
            s.execute(c)
        for cid in sorted(s.state.combatants):  # the game master places them before the fight
            s.do("override", reason="placing", move={"target": cid, "to": f"{rng.randint(0, 9)},{rng.randint(0, 4)}"})
        s.do("begin")
        for _ in range(2000):
            if s.state.phase == "end":
                break
            me = s.state.combatants[s.state.acting[0]] if s.state.acting else None
            fresh = me is not None and s.state.extra.offer is None and me.resources.get("actions") == 2
            if fresh and not me.has("retaliating") and rng.random() < 0.4:  # a turn begun with a Retaliate
                s.execute(Command(kind="act", actor=me.id, action="retaliate"))
                continue
            offered += any(isinstance(e.event, RetaliationOffered) for e in s.auto())
        assert s.state.phase == "end"
        assert audit(s.log, workers=1).clean
    assert offered >= 4  # the Retaliates met movers, and the automatic player chose each time


def test_a_version_2_log_still_strikes_the_first_enemy_whose_move_ends_in_reach(monkeypatch):
    from combatlog.engine import get_rules

    monkeypatch.setattr(type(get_rules("swords-of-infinity")), "version", "2")
    s = retaliating(a=(0, 0), b=(4, 1))
    assert outcome_of(act(s, "a", "move", x=7, y=0)) == "moves to 7,0"  # passing by: not caught
    s = retaliating(a=(0, 0), b=(5, 0))
    said = outcome_of(act(s, "a", "move", [99], x=4, y=0, through=True))
    assert said == "moves to 4,0; B retaliates: hit roll 99 against 50: a miss; A moves on, vulnerable"
    monkeypatch.undo()
    assert audit(s.log, workers=1).clean


def test_the_game_master_places_combatants_with_a_move_override_before_the_fight_begins():
    s = soi(fighter("a", "A"), fighter("b", "B"))
    assert s.state.phase == "setup"
    place(s, a=(0, 0), b=(4, 0))
    with pytest.raises(Refused, match="override move a: 'nowhere' is not a square of the grid; give x,y"):
        s.do("override", reason="placing", move={"target": "a", "to": "nowhere"})
    run(s, "begin", [10, 99])
    assert (s.state.combatants["a"].position, s.state.combatants["b"].position) == ("0,0", "4,0")
    with pytest.raises(Refused, match="B is 20 ft away, beyond the axe's reach of 5 ft"):
        attack(s, "a", "b", [30])
