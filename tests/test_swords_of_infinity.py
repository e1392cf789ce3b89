"""Swords of Infinity: the core of Tactical Time and the text's worked examples, dice forced."""

from __future__ import annotations

from pathlib import Path

import pytest

from combatlog.engine import Refused, ScriptedDice, Session
from combatlog.engine.encounter_file import read_encounter
from combatlog.engine.rules.swords_of_infinity import (
    block_damage,
    dodged,
    exploit_stacks,
    knockback_damage,
    location,
    HUMAN,
)
from combatlog.events import ActionResolved, Command
from combatlog.projections import replay
from combatlog.replays import JsonlLog, MemoryLog
from combatlog.replays.audit import audit

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "swords-of-infinity-ambush.toml"
AXE = {"name": "axe", "skill": 10, "weight": 0, "power": 70}


def fighter(cid: str, side: str, **stats) -> dict:
    base = {"vitality": 30, "dexterity": 40, "awareness": 30, "weapons": [AXE]}
    base.update(stats)
    return {"id": cid, "name": cid.capitalize(), "side": side, "stats": base}


def soi(*combatants: dict, **options) -> Session:
    s = Session(MemoryLog())
    s.do("create", rules="swords-of-infinity", options=options)
    for c in combatants:
        s.do("add", **c)
    return s


def run(s: Session, kind: str, faces=(), **kw):
    dice = ScriptedDice(list(faces))
    params = kw.pop("params", {})
    envs = s.execute(Command(kind=kind, params=params, **kw), dice=dice)
    assert dice.queue == [], f"unused faces {dice.queue}"
    return [e.event for e in envs]


def attack(s: Session, actor: str, target: str, faces, **params) -> str:
    events = run(s, "act", faces, actor=actor, action="attack", targets=(target,),
                 params=params)
    return [e for e in events if isinstance(e, ActionResolved)][-1].outcome


def test_bjorics_block():
    # 20 in block + 35 awareness: 55; armour 3 on the left arm + a size 3 shield: -60; power 63 -> 3
    assert block_damage(63, 3, 3) == 3
    s = soi(fighter("raider", "B", dexterity=40),
            fighter("bjoric", "A", awareness=35, block=20, armor={"left arm": 3, "head": 2},
                    shield={"name": "shield", "size_class": 3}))
    run(s, "begin", [10, 90])  # the raider 10 (a success), Bjoric 90 (a failure): the raider first
    said = attack(s, "raider", "bjoric", [29, 55, 63], defense="block", block_target="left arm")
    # the hit roll's ones digit 9: the head; Bjoric blocks (55 against 55) and takes it on the left arm
    assert said == ("hit roll 29 against 50: a hit; block 55 against 55: the left arm takes it; "
                    "power 63 against 70; 3 damage to the left arm (armour 6)")
    assert s.state.combatants["bjoric"].wounds == {"left arm": 3}


def test_parthenias_dodge():
    assert dodged(13, 27, 55) and not dodged(28, 27, 55) and not dodged(56, 90, 55)
    s = soi(fighter("raider", "B"), fighter("parthenia", "A", dexterity=25, dodge=30))
    run(s, "begin", [10, 90])
    said = attack(s, "raider", "parthenia", [27, 13], defense="dodge")
    assert said == "hit roll 27 against 50: a hit; dodge 13 against 55 and 27: dodged"
    assert s.state.combatants["parthenia"].damage == 0


def test_the_knockback_example_and_the_exploit_example():
    assert knockback_damage(30, 10) == 20  # 30 ft of knockback into a wall 10 ft away
    assert knockback_damage(30, None) == 0 and knockback_damage(10, 30) == 0
    assert exploit_stacks(1, -1, True) == 3  # a dagger, a size -1 attacker, a target made vulnerable by stealth
    assert exploit_stacks(1, -1, False) == 0 and exploit_stacks(0, 0, True) == 1


def test_hit_location_by_the_ones_digit_on_a_human():
    assert [location(r, HUMAN) for r in (11, 2, 33, 46, 57, 68, 79, 100)] == [
        "left leg", "right leg", "torso", "torso", "left arm", "right arm", "head", "head"]


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
    s = soi(fighter("a", "A", dexterity=20, awareness=20), fighter("b", "B"), fighter("c", "B"))
    run(s, "begin", [39, 80, 75])  # a: 39 under 40; b: 80 fails (TN 70); c: 75 fails
    assert s.state.order == (("a",), ("c",), ("b",))
    s = soi(fighter("a", "A", dexterity=20, awareness=20), fighter("b", "B"), fighter("c", "B"),
            failed_initiative="roll")
    run(s, "begin", [39, 80, 75])
    assert s.state.order == (("b",), ("c",), ("a",))


def test_two_actions_and_a_minor_action():
    s = soi(fighter("a", "A"), fighter("b", "B"))
    run(s, "begin", [10, 90])
    run(s, "act", actor="a", action="speak", params={"text": "Yield!"})
    attack(s, "a", "b", [99])
    assert s.state.acting == ("a",)
    with pytest.raises(Refused, match="minor"):
        run(s, "act", actor="a", action="speak")
    attack(s, "a", "b", [99])
    assert s.state.acting == ("b",)


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
