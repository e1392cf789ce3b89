"""Starflight RPG, chapter 9.1: every step of the general combat procedure, with the dice forced."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from combatlog.engine import Refused, Session, get_rules, rules_of
from combatlog.engine.encounter_file import read_encounter
from combatlog.engine.rules.starflight import Starflight, StarflightSimple
from combatlog.engine.rules.starflight.events import GoalEvent, GroupsRanked, HitsTaken, Placed, StrengthTotalled
from combatlog.engine.rules.starflight.reading import auto_target, range_between, shields
from combatlog.engine.rules.starflight.simple_combat import simple_losses, size_modifiers
from combatlog.events import (
    ActionResolved,
    CombatantDefeated,
    DamageApplied,
    EncounterEnded,
    InitiativeRolled,
    ResolutionStarted,
)
from combatlog.projections import Combatant, Encounter, replay
from combatlog.replays import JsonlLog, MemoryLog
from combatlog.replays.audit import audit
from combatlog.testing import Fight, fight
from tests import builders

run = builders.forced
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "starflight-patrol.toml"
BLASTER = {"name": "blaster", "attack": 1, "damage": "2d6", "range": 12}
KNIFE = {"name": "knife", "damage": "1d4", "melee": True}


BASE = {"hp": 10, "initiative": 0, "hd": 10, "strength": 2, "weapons": [BLASTER, KNIFE]}


def fighter(cid: str, side: str, kind: str = "npc", init: int = 0, group: str | None = None, **stats) -> dict:
    return builders.fighter(cid, side, kind=kind, group=group, defaults=BASE, initiative=init, **stats)


def sf(*combatants: dict, **options) -> Session:
    """A Starflight encounter with no seed: every die is forced by the test."""
    return builders.encounter("starflight", *combatants, **options)


def act(s: Session, actor: str, action: str, target: str | None = None, faces=(), **params):
    return run(s, "act", faces, actor=actor, action=action, targets=(target,) if target else (), params=params)


def of(events, cls):
    return [e for e in events if isinstance(e, cls)]


# --- step 1: surprise -----------------------------------------------------------------


def test_both_sides_surprised_cancel_out_and_the_fight_starts_with_round_one():
    s = sf(fighter("a", "party", "pc"), fighter("x", "patrol"))
    run(s, "surprise", params={"sides": ["party", "patrol"]})
    assert s.state.surprised == ()
    run(s, "begin", [5, 5, 1, 1, 3, 3, 4, 4])  # initiative a, x; then the round's ranges a, x
    assert s.state.round == 1 and not s.state.surprise_round


def surprise_fight(**options) -> Fight:
    f = fight(
        "starflight",
        fighter(
            "a",
            "party",
            "pc",
            init=5,
            attack=1,
            weapons=[BLASTER, {"name": "grenade", "damage": "1d6", "range": 6, "blast": True}],
        ),
        fighter("t", "patrol", hd=12, fhd=6, bhd=9, thd=3, hp=20, shields=5, shield_regen=5),
        begin=False,
        **options,
    )
    f.do("surprise", sides=["patrol"])
    # a 11, t 2; ranges a 5, t 4
    f.begin(dice={"initiative by a": (3, 3), "initiative by t": (1, 1), "range by a": (2, 3), "range by t": (0, 4)})
    return f


def test_the_surprise_round_only_the_side_not_surprised_acts_against_flat_footed_hd():
    f = surprise_fight()
    assert f.state.surprise_round and f.round == 0
    assert f.acting == ("a",)
    # 2d10+2 = 7: a hit against FHD 6 (it would miss HD 12); 2d6 = 8, shields absorb 5
    step = f.act("a", "shoot", "t", weapon="blaster", dice={"shoot at t": (2, 3), "blaster damage": (4, 4)})
    assert step.outcome.startswith("7 against FHD 6, a hit; 2d6 = 8 damage (shields absorb 5)")
    assert f.damage("t") == 3 and shields(f.state, f.combatant("t")) == 0 and "no recovery" in f.conditions("t")
    # t can't act in the surprise round: ending a's turn ends the round; t's shields stay down
    f.end_turn("a", dice={"range by a": (1, 1), "range by t": (2, 2)})  # round 1's ranges
    assert f.round == 1 and not f.state.surprise_round
    assert shields(f.state, f.combatant("t")) == 0
    assert "no recovery" not in f.conditions("t")
    # the next round's end regenerates them as usual
    f.end_turn("a")
    f.end_turn("t", dice={"range": [(1, 1), (2, 2)]})
    assert shields(f.state, f.combatant("t")) == 5


@pytest.mark.parametrize(
    "options, expect", [({}, "THD 3"), ({"blast_hd": "bhd"}, "BHD 9"), ({"scale": "vehicle"}, "BHD 9")]
)
def test_blast_weapons_in_the_surprise_round_use_bhd_or_thd(options, expect):
    f = surprise_fight(**options)
    step = f.act("a", "shoot", "t", weapon="grenade", dice={"shoot at t with grenade": (0, 0)})  # 2d10+1 = 1
    assert step.outcome == f"1 against {expect}, a miss"  # a miss, whichever HD


def test_a_combatant_damaged_in_the_surprise_round_can_not_heal_or_be_healed_that_round():
    s = sf(fighter("a", "party", "pc", init=5, heal="1d6"), fighter("b", "party", "pc"), fighter("x", "patrol"))
    run(s, "surprise", params={"sides": ["patrol"]})
    run(s, "begin", [5, 5, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1])
    run(s, "override", params={"reason": "a trap", "condition": {"target": "b", "name": "no recovery", "duration": 1}})
    with pytest.raises(Refused, match="can't be healed this round"):
        act(s, "a", "heal", "b")


# --- step 2: initiative and the composite strength index --------------------------------


def test_initiative_is_2d10_plus_initiative_highest_first_pcs_first_then_rolloffs():
    # a 5+5+2 = 12, b 4+4+4 = 12, c 3+3 = 6, d 2+4 = 6: a and b tie, the PC first; c and d roll
    # off 7-7, again 2-5
    f = fight(
        "starflight",
        fighter("a", "party", "pc", init=2, strength=4),
        fighter("b", "patrol", init=4, strength=3),
        fighter("c", "patrol", strength=1),
        fighter("d", "patrol", strength=1),
        dice={
            "initiative check by a": (5, 5),
            "initiative check by b": (4, 4),
            "initiative check by c": (3, 3),
            "initiative check by d": (2, 4),
            "roll-off by c": [7, 2],
            "roll-off by d": [7, 5],
            "range to target": [(1, 1)] * 4,
        },
    )
    rolled = f.events(InitiativeRolled)
    assert [(r.combatants, r.value) for r in rolled] == [(("a",), 12), (("b",), 12), (("c",), 6), (("d",), 6)]
    assert f.state.order == (("a",), ("b",), ("d",), ("c",))
    assert f.events(StrengthTotalled)[0].csi == {"party": 4, "patrol": 5}
    assert f.acting == ("a",)


def test_a_group_of_like_npcs_rolls_once_and_acts_simultaneously():
    s = sf(
        fighter("a", "party", "pc", init=1),
        fighter("t1", "patrol", init=3, group="thrynn"),
        fighter("t2", "patrol", init=3, group="thrynn"),
        group_initiative=True,
    )
    events = run(s, "begin", [0, 1, 4, 4, 1, 1, 1, 1, 1, 1])  # a 2, thrynn 11; ranges
    assert [(r.combatants, r.value) for r in of(events, InitiativeRolled)] == [(("a",), 2), (("t1", "t2"), 11)]
    assert s.state.order == (("t1", "t2"), ("a",))
    assert s.state.acting == ("t1", "t2")


# --- step 3: ranges -------------------------------------------------------------------


def two_sides() -> tuple[dict, dict]:
    return (
        fighter("a", "party", "pc", init=9),
        fighter("x", "patrol", weapons=[{"name": "pistol", "damage": "1d6", "range": 6}]),
    )


def two(**options) -> Session:
    return sf(*two_sides(), **options)


def test_without_a_grid_ranges_are_rolled_2d10_for_every_combatant_every_round():
    a_first = {"initiative by a": (5, 5), "initiative by x": (0, 0)}  # a 19, x 0
    f = fight("starflight", *two_sides(), dice=a_first | {"range by a": (3, 4), "range by x": (9, 9)})
    assert f.state.extra.ranges == {"a": 7, "x": 18}
    f.end_turn("a")
    f.end_turn("x", dice={"range by x": (2, 2), "range by a": (1, 0)})
    assert f.round == 2 and f.state.extra.ranges == {"a": 1, "x": 4}


def test_a_target_may_answer_at_the_range_of_the_combatant_that_targeted_it():
    # a's range 4, x's 18: x's pistol (range 6) can't reach
    a_first = {"initiative by a": (5, 5), "initiative by x": (0, 0)}
    f = fight("starflight", *two_sides(), dice=a_first | {"range by a": (2, 2), "range by x": (9, 9)})
    f.act("a", "shoot", "x", weapon="blaster", dice={"shoot by a": (0, 0)})
    f.end_turn("a")
    with pytest.raises(Refused, match="beyond the pistol's 6"):
        f.act("x", "shoot", "a")
    step = f.act("x", "shoot", "a", range_from="theirs", dice={"shoot by x": (0, 0)})  # at a's range 4
    assert step.outcome == "0 against HD 10, a miss"


def test_range_from_theirs_needs_the_target_to_have_targeted_you():
    s = two()
    run(s, "begin", [5, 5, 0, 0, 2, 2, 9, 9])
    head = s.log.head()
    with pytest.raises(Refused, match="hasn't targeted"):
        act(s, "a", "shoot", "x", range_from="theirs")
    assert s.log.head() == head  # nothing appended


def test_physical_grid_placement_by_die():
    s = sf(
        fighter("a", "party", "pc"),
        fighter("b", "party", "pc"),
        fighter("x", "patrol"),
        fighter("y", "patrol"),
        grid="physical",
    )
    faces = [9, 9, 5, 5, 6, 6, 1, 1]  # initiative: a 18, b 10, x 12, y 2 -> a, x, b, y
    faces += [0, 5, 9, 3, 3]  # x: direction 0 rolls again; 9 = random, 1d8 -> 3 (right); range 3
    faces += [2, 2]  # b: direction 2 (ahead-right), 1d5 = 2 from a
    faces += [0, 5, 1]  # y: 0 again, 5 (behind), 1d5 = 1 from x
    events = run(s, "begin", faces)
    placed = {p.combatant: (p.x, p.y, p.facing) for p in of(events, Placed)}
    assert placed == {"a": (0, 0, 1), "x": (3, 0, 7), "b": (2, 2, 1), "y": (3, -1, 7)}
    st = s.state
    assert range_between(st, st.combatants["a"], st.combatants["x"]) == 3
    assert range_between(st, st.combatants["b"], st.combatants["y"]) == 3  # the larger of 1 and 3


def test_physical_grid_range_is_the_larger_axis_and_abstract_grid_measures():
    s = two(grid="physical", ranges="given")
    run(s, "place", actor="a", params={"x": 0, "y": 0})
    run(s, "place", actor="x", params={"x": -2, "y": 8, "facing": 5})  # eight above, two to the left
    st = s.state
    assert range_between(st, st.combatants["a"], st.combatants["x"]) == 8
    s = two(grid="abstract", ranges="given")
    run(s, "place", actor="a", params={"x": 0, "y": 0})
    run(s, "place", actor="x", params={"x": 3, "y": 4.4})
    st = s.state
    assert range_between(st, st.combatants["a"], st.combatants["x"]) == 5  # 5.45 rounds to 5


def test_given_ranges_and_marching_order():
    s = two(ranges="given")
    run(s, "range", actor="a", params={"range": 3})
    run(s, "range", actor="x", faces=[4, 5])  # a forgotten range is rolled
    assert s.state.extra.ranges == {"a": 3, "x": 9}
    run(s, "marching", params={"side": "party", "order": ["a"]})
    assert s.state.extra.marching == {"party": ("a",)}
    with pytest.raises(Refused, match="every member"):
        run(s, "marching", params={"side": "patrol", "order": []})
    with pytest.raises(Refused, match="no grid"):
        run(s, "place", actor="a", params={"x": 1, "y": 1})


# --- step 4: rounds -------------------------------------------------------------------


def test_two_standard_actions_or_one_full_round_action():
    rifle = {"name": "rifle", "damage": "1d6", "range": 20, "full_round": True}
    s = sf(fighter("a", "party", "pc", init=9, weapons=[BLASTER, rifle]), fighter("x", "patrol"))
    run(s, "begin", [5, 5, 0, 0, 2, 2, 2, 2])
    act(s, "a", "shoot", "x", [0, 0], weapon="blaster")
    with pytest.raises(Refused, match="costs 2 actions but actions 1 left"):
        act(s, "a", "shoot", "x", weapon="rifle")
    act(s, "a", "shoot", "x", [0, 0], weapon="blaster")
    assert s.state.acting == ("x",)  # two standard actions end the turn
    s = sf(fighter("a", "party", "pc", init=9, weapons=[BLASTER, rifle]), fighter("x", "patrol"))
    run(s, "begin", [5, 5, 0, 0, 2, 2, 2, 2])
    act(s, "a", "shoot", "x", [0, 0], weapon="rifle")
    assert s.state.acting == ("x",)  # one full-round action is the whole turn


def test_near_death_one_standard_action_and_unconscious_none():
    rifle = {"name": "rifle", "damage": "1d6", "range": 20, "full_round": True}
    s = sf(
        fighter("a", "party", "pc", init=5, weapons=[BLASTER, rifle]),
        fighter("b", "party", "pc", init=9),
        fighter("x", "patrol"),
    )
    run(s, "begin", [5, 5, 5, 5, 0, 0, 2, 2, 2, 2, 2, 2])  # b 19, a 15, x 0
    run(s, "override", params={"reason": "a sniper", "damage": {"target": "a", "amount": 10}})
    assert s.state.combatants["a"].has("near death")
    run(s, "end_turn", actor="b")
    assert s.state.combatants["a"].resources["actions"] == 1
    with pytest.raises(Refused, match="costs 2 actions"):
        act(s, "a", "shoot", "x", weapon="rifle")
    act(s, "a", "shoot", "x", [0, 0], weapon="blaster")
    assert s.state.acting == ("x",)
    run(s, "override", params={"reason": "bleeding", "damage": {"target": "a", "amount": 1}})
    assert s.state.combatants["a"].defeated == "unconscious"


def test_initiative_based_movement_points_on_a_grid():
    s = sf(fighter("a", "party", "pc", init=2), fighter("x", "patrol"), grid="physical", ranges="given")
    run(s, "place", actor="a", params={"x": 0, "y": 0})
    run(s, "place", actor="x", params={"x": 9, "y": 9})
    run(s, "begin", [9, 9, 0, 0])
    assert s.state.combatants["a"].resources == {"actions": 2, "mp": 3}  # Initiative + 1
    act(s, "a", "move", x=3, y=2)  # three squares diagonally and across
    assert s.state.combatants["a"].position == "3,2"
    with pytest.raises(Refused, match="mp 0 left"):
        act(s, "a", "move", x=3, y=3)


def test_speed_based_movement_and_the_starship_exception():
    s = sf(
        fighter("a", "party", "pc", speed=36),
        fighter("x", "patrol", speed=1),
        grid="abstract",
        ranges="given",
        movement="speed",
        increment_m=10,
    )
    run(s, "place", actor="a", params={"x": 0, "y": 0})
    run(s, "place", actor="x", params={"x": 9, "y": 9})
    run(s, "begin", [9, 9, 0, 0])
    assert s.state.combatants["a"].resources["mp"] == 6  # 36 kph x 5/3 = 60 m a round, 10 m increments
    with pytest.raises(Refused, match="initiative-based movement only"):
        sf(fighter("a", "party"), scale="starship", movement="speed")


def test_without_a_grid_there_is_no_movement():
    s = two()
    run(s, "begin", [5, 5, 0, 0, 2, 2, 9, 9])
    with pytest.raises(Refused, match="without a grid there is no movement"):
        act(s, "a", "move", x=1, y=1)


def test_simultaneous_damage_counts_at_the_round_end_and_the_fallen_still_act():
    s = sf(fighter("a", "party", "pc", init=9), fighter("x", "patrol", hp=3), timing="simultaneous")
    run(s, "begin", [5, 5, 0, 0, 2, 2, 2, 2])
    act(s, "a", "shoot", "x", weapon="blaster")
    run(s, "end_turn", actor="a")
    act(s, "x", "shoot", "a", weapon="blaster")
    # the round ends: a's shot (9+9+1 = 19, 6+6 = 12), then x's (9+9+1 = 19, 1+1 = 2), then the damage
    events = run(s, "end_turn", [9, 9, 6, 6, 9, 9, 1, 1], actor="x")
    held = [e for e in of(events, DamageApplied) if e.held]
    counted = [e for e in of(events, DamageApplied) if not e.held]
    assert [(e.target, e.amount) for e in held] == [("x", 12), ("a", 2)]
    assert [(e.target, e.amount) for e in counted] == [("x", 12), ("a", 2)]
    assert s.state.combatants["x"].defeated == "unconscious" and s.state.combatants["a"].damage == 2
    assert s.state.phase == "end" and s.state.winner == "party"


def test_simultaneous_actions_resolve_movement_then_shooting_then_melee():
    s = sf(
        fighter("a", "party", "pc", init=9),
        fighter("x", "patrol"),
        fighter("y", "party", "pc", init=5),
        grid="physical",
        ranges="given",
        timing="simultaneous",
    )
    run(s, "place", actor="a", params={"x": 0, "y": 0})
    run(s, "place", actor="x", params={"x": 1, "y": 0})
    run(s, "place", actor="y", params={"x": 0, "y": 3})
    run(s, "begin", [5, 5, 0, 0, 1, 1])  # a 19, x 0, y 7
    act(s, "a", "melee", "x", weapon="knife")  # declared first, at range 1: legal once x has moved in
    run(s, "end_turn", actor="a")
    act(s, "y", "shoot", "x", weapon="blaster")  # declared second
    run(s, "end_turn", actor="y")
    act(s, "x", "move", x=0, y=0)  # declared last
    events = run(s, "end_turn", [0, 0, 0, 0], actor="x")
    assert [e.category for e in of(events, ResolutionStarted)] == ["movement", "shooting", "melee"]
    resolved = of(events, ActionResolved)
    assert resolved[0].outcome == "moves to 0,0"
    assert resolved[1].outcome == "1 against HD 10, a miss"  # the shot, from 3 squares
    assert resolved[2].outcome == "0 against HD 10, a miss"  # the knife, at range zero: rolled


def test_timing_per_category():
    s = sf(
        fighter("a", "party", "pc", init=9), fighter("x", "patrol"), grid="physical", ranges="given", timing="mixed"
    )  # movement and melee simultaneous, shooting turn-based
    run(s, "place", actor="a", params={"x": 0, "y": 0})
    run(s, "place", actor="x", params={"x": 5, "y": 0})
    run(s, "begin", [5, 5, 0, 0])
    act(s, "a", "move", x=1, y=0)
    assert s.state.pending and s.state.combatants["a"].position == "0,0"
    events = act(s, "a", "shoot", "x", [0, 0])
    assert of(events, ActionResolved)  # resolved at once
    s = sf(
        fighter("a", "party", "pc", init=9),
        fighter("x", "patrol"),
        grid="physical",
        ranges="given",
        shooting_timing="simultaneous",
    )
    run(s, "place", actor="a", params={"x": 0, "y": 0})
    run(s, "place", actor="x", params={"x": 5, "y": 0})
    run(s, "begin", [5, 5, 0, 0])
    act(s, "a", "move", x=1, y=0)
    assert s.state.combatants["a"].position == "1,0"
    act(s, "a", "shoot", "x")
    assert [p.action for p in s.state.pending] == ["shoot"]


# --- step 5: resolve combat -----------------------------------------------------------


def test_a_side_whose_csi_is_zero_has_lost():
    s = sf(fighter("a", "party", "pc", init=9, strength=5), fighter("x", "patrol", hp=3, strength=2))
    run(s, "begin", [5, 5, 0, 0, 2, 2, 2, 2])
    events = act(s, "a", "shoot", "x", [9, 9, 6, 6])
    assert of(events, CombatantDefeated)[0].how == "unconscious"
    ended = of(events, EncounterEnded)[0]
    assert ended.winner == "party" and ended.outcome == "victory: the CSI of patrol is 0"


def test_round_end_csi_and_the_game_masters_ruling():
    s = sf(fighter("a", "party", "pc", init=9, strength=5), fighter("x", "patrol", strength=2), victory="ruling")
    run(s, "begin", [5, 5, 0, 0, 2, 2, 2, 2])
    run(s, "end_turn", actor="a")
    events = run(s, "end_turn", actor="x")
    assert of(events, StrengthTotalled)[-1].csi == {"party": 5, "patrol": 2}
    assert s.state.extra.awaiting == "resolve combat" and not s.state.acting
    with pytest.raises(Refused):
        act(s, "a", "shoot", "x")
    run(s, "conclude", [1, 1, 1, 1], params={"decision": "continue"})
    assert s.state.round == 2 and s.state.acting == ("a",)
    run(s, "conclude", params={"decision": "victory", "winner": "party"})
    assert s.state.phase == "end" and s.state.winner == "party"
    s.undo()
    run(s, "conclude", params={"decision": "draw"})
    assert s.state.phase == "end" and s.state.winner is None and s.state.outcome.startswith("draw")


# --- step 6: automatic combatants -----------------------------------------------------


def _with_initiatives(values: dict[str, tuple[str, int]]) -> Encounter:
    combatants = {cid: Combatant(id=cid, name=cid, side=side, initiative=v) for cid, (side, v) in values.items()}
    order = tuple((cid,) for cid in sorted(values, key=lambda c: -values[c][1]))
    return Encounter(rules="starflight", combatants=combatants, order=order)


def test_automatic_target_is_the_enemy_with_the_next_lowest_initiative_else_the_highest():
    st = _with_initiatives({"me": ("a", 12), "e1": ("b", 15), "e2": ("b", 10), "e3": ("b", 8), "f": ("a", 11)})
    assert auto_target(st, st.combatants["me"]).id == "e2"
    st = _with_initiatives({"me": ("a", 5), "e1": ("b", 15), "e2": ("b", 10)})
    assert auto_target(st, st.combatants["me"]).id == "e1"


# --- step 7: simple combat ------------------------------------------------------------


def test_simple_combat_16_13_9_the_second_group_loses_3_and_the_third_7():
    assert simple_losses({"one": 16, "two": 13, "three": 9}, {"one": "A", "two": "B", "three": "C"}) == {
        "one": 0,
        "two": 3,
        "three": 7,
    }
    groups = [fighter(f"a{i}", "A", group="one") for i in range(4)]
    groups += [fighter(f"b{i}", "B", group="two") for i in range(5)]
    groups += [fighter(f"c{i}", "C", group="three") for i in range(9)]
    s = sf(*groups, method="simple")
    run(s, "begin")
    events = run(s, "exchange", [8, 8, 6, 7, 4, 5])  # 16, 13, 9
    ranked = of(events, GroupsRanked)[0]
    assert ranked.results == {"one": 16, "two": 13, "three": 9}
    assert ranked.losses == {"one": 0, "two": 3, "three": 7}
    down = [e.combatant for e in of(events, CombatantDefeated)]
    assert down == ["b0", "b1", "b2", "c0", "c1", "c2", "c3", "c4", "c5", "c6"]


def test_simple_combat_npc_allies_fall_first_then_the_pcs_low_throw_takes_the_hits():
    s = sf(
        fighter("p1", "party", "pc", hits=1),
        fighter("p2", "party", "pc"),
        fighter("ally", "party"),
        *[fighter(f"x{i}", "raiders", group="raiders") for i in range(3)],
        method="simple",
    )
    run(s, "begin")
    # party 2+2 = 4, raiders 5+5 = 10: a loss of 6; the ally falls, then the PCs throw 1d10: 3-3, again 1-6
    events = run(s, "exchange", [2, 2, 5, 5, 3, 3, 1, 6])
    assert [e.combatant for e in of(events, CombatantDefeated)] == ["ally", "p1"]
    assert of(events, HitsTaken) == [HitsTaken(combatant="p1", hits=1)]


def test_simple_combat_goals_on_18_and_0():
    def game(opponents: int):
        s = sf(
            fighter("a", "A", group="g"),
            *[fighter(f"b{i}", "B", group="h") for i in range(opponents)],
            method="simple",
            simple_goals=True,
        )
        run(s, "begin")
        return s

    s = game(3)  # an 18 (h 2), then 10 > the 3 opponents left: the primary goal
    events = run(s, "exchange", [9, 9, 1, 1, 5, 5])
    assert of(events, GoalEvent)[0].what == "primary"
    assert s.state.phase == "end" and s.state.winner == "A"
    s = game(10)  # an 18 (h 9), then 2, not more than 10: a choice, secondary goal or +1 on future rolls
    events = run(s, "exchange", [9, 9, 4, 5, 1, 1])
    assert of(events, GoalEvent)[0].what == "choice due"
    assert of(events, GroupsRanked)[0].losses == {"g": 0, "h": 9}
    with pytest.raises(Refused, match="must choose first"):
        run(s, "exchange", [1, 1, 1, 1])
    run(s, "goal", params={"group": "g", "choice": "bonus"})
    events = run(s, "exchange", [1, 1, 2, 2])
    assert of(events, GroupsRanked)[0].modifiers == {"g": 1, "h": 0}
    s = game(3)  # a 0 (h 10), then 1: a group of three is larger, the primary goal is out of reach
    events = run(s, "exchange", [0, 0, 5, 5, 1, 0])
    assert of(events, GoalEvent)[0].what == "primary lost"


def test_simple_combat_size_and_experience_modifiers():
    assert size_modifiers({"big": 6, "small": 2, "mid": 3}) == {"big": 3, "small": 0, "mid": 1}
    assert size_modifiers({"x": 10, "y": 2}) == {"x": 5, "y": 0}
    s = sf(
        *[fighter(f"a{i}", "A", group="g") for i in range(3)],
        fighter("b", "B", group="h"),
        method="simple",
        simple_size_modifier=True,
        simple_experience={"h": 2},
    )
    run(s, "begin")
    events = run(s, "exchange", [1, 1, 1, 1])
    assert of(events, GroupsRanked)[0].modifiers == {"g": 3, "h": 2}
    with pytest.raises(Refused, match="at most"):
        sf(fighter("a", "A"), method="simple", simple_experience={"g": 6})


def test_simple_combat_is_played_by_its_variant_while_the_log_names_starflight_and_its_options():
    s = sf(fighter("a", "A"), fighter("x", "B"), method="simple")
    created = next(s.log.lines(1, 2))
    assert b'"rules":"starflight"' in created and b'"method":"simple"' in created
    assert type(rules_of(replay(s.log).state)) is StarflightSimple
    assert s.rules.name == "starflight" and s.rules.version == get_rules("starflight").version
    standard = sf(fighter("a", "A"), fighter("x", "B"))
    assert type(standard.rules) is Starflight


def test_simple_combat_declares_no_actions_and_standard_rounds_no_exchange():
    s = sf(fighter("a", "A"), fighter("x", "B"), method="simple")
    run(s, "begin")
    with pytest.raises(Refused, match="starflight has no such action.*actions: none"):
        act(s, "a", "shoot", "x")
    standard = sf(fighter("a", "A"), fighter("x", "B"))
    run(standard, "begin", [1, 1, 2, 2, 1, 1, 1, 1])
    with pytest.raises(Refused, match="isn't Simple Combat"):
        run(standard, "exchange")


# --- the bundled example --------------------------------------------------------------


@pytest.mark.parametrize("timing", ["turn", "simultaneous", "mixed"])
@pytest.mark.parametrize("grid", ["none", "physical"])
def test_the_patrol_plays_to_the_end_and_its_log_replays_and_audits_clean(timing, grid, tmp_path):
    log = JsonlLog(tmp_path / "patrol.jsonl")
    s = Session(log)
    for c in read_encounter(EXAMPLE, seed=11):
        if c.kind == "create":
            c.params["options"] = dict(c.params["options"], timing=timing, grid=grid)
        s.execute(c)
    assert s.state.surprised == ("patrol",)  # the file's ruling
    s.do("begin")
    assert s.state.surprise_round
    s.play_out(3000)
    assert s.state.phase == "end" and s.state.winner in ("party", "patrol")
    assert replay(log).state == s.state
    assert audit(log).clean


def test_a_starflight_log_loads_in_a_process_that_never_imported_starflight(tmp_path):
    log = JsonlLog(tmp_path / "patrol.jsonl")
    s = Session(log)
    for c in read_encounter(EXAMPLE, seed=3):
        s.execute(c)
    s.do("begin")
    s.play_out()
    log.close()
    code = (
        "import sys; from combatlog.replays import JsonlLog; from combatlog.projections import replay; "
        f"p = replay(JsonlLog({str(tmp_path / 'patrol.jsonl')!r})); print(p.state.phase, p.state.winner)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["end", s.state.winner]


# --- edge cases -----------------------------------------------------------------------


def test_a_turn_based_shot_is_measured_from_where_the_shooter_stands_not_where_it_is_going():
    s = sf(
        fighter("a", "party", "pc", init=9, weapons=[BLASTER]),
        fighter("x", "patrol"),
        grid="physical",
        ranges="given",
        timing="mixed",
    )  # moves wait for the round's end, shots resolve at once
    run(s, "place", actor="a", params={"x": 0, "y": 0})
    run(s, "place", actor="x", params={"x": 20, "y": 0})
    run(s, "begin", [5, 5, 0, 0])
    act(s, "a", "move", x=10, y=0)  # declared: resolves at the round's end
    with pytest.raises(Refused, match="at range 20, beyond the blaster's 12"):
        act(s, "a", "shoot", "x")


def test_the_same_group_name_on_two_sides_is_two_groups():
    s = sf(
        fighter("a", "A", group="guards"),
        fighter("b", "A", group="guards"),
        fighter("x", "B", group="guards"),
        group_initiative=True,
    )
    events = run(s, "begin", [1, 1, 9, 9, 1, 1, 1, 1, 1, 1])
    assert [r.combatants for r in of(events, InitiativeRolled)] == [("a", "b"), ("x",)]
    s = sf(fighter("a", "A", group="guards"), fighter("x", "B", group="guards"), method="simple")
    run(s, "begin")
    events = run(s, "exchange", [5, 5, 1, 1])
    assert of(events, GroupsRanked)[0].results == {"A/guards": 10, "B/guards": 2}
    assert s.state.phase == "end" and s.state.winner == "A"


def test_a_fight_where_no_one_can_ever_act_ends_as_a_draw_instead_of_looping():
    s = sf(fighter("a", "A", weapons=[]), fighter("x", "B", weapons=[]))
    run(s, "begin", [1, 1, 2, 2, 1, 1, 1, 1])
    assert s.state.phase == "end" and s.state.winner is None and s.state.outcome.startswith("draw")


def test_automatic_play_calls_a_draw_when_no_one_is_hurt_for_ten_rounds():
    far = {"name": "sling", "damage": "1d4", "range": 2}
    s = Session(MemoryLog())
    s.do("create", rules="starflight", seed=3, options={"grid": "physical", "ranges": "given"})
    s.do("add", **fighter("a", "A", init=-1, weapons=[far]))  # no movement points, out of range
    s.do("add", **fighter("x", "B", init=-1, weapons=[far]))
    s.do("place", actor="a", x=0, y=0)
    s.do("place", actor="x", x=9, y=0)
    s.do("begin")
    s.play_out(500)
    assert s.state.outcome == "draw: no one was hurt for 10 rounds"


def test_the_ruling_mode_does_not_stop_after_the_surprise_round():
    s = sf(fighter("a", "party", "pc", init=9), fighter("x", "patrol"), victory="ruling")
    run(s, "surprise", params={"sides": ["patrol"]})
    run(s, "begin", [5, 5, 0, 0, 2, 2, 2, 2])
    run(s, "end_turn", [1, 1, 1, 1], actor="a")  # the surprise round ends: round 1 starts at once
    assert s.state.round == 1 and s.state.acting == ("a",) and s.state.extra.awaiting is None


@pytest.mark.parametrize(
    "params", [{"x": 1, "y": 1, "facing": [1]}, {"x": 1, "y": 1, "facing": True}, {"x": 1, "y": 1, "facing": 9}]
)
def test_a_bad_facing_is_refused(params):
    s = two(grid="physical", ranges="given")
    with pytest.raises(Refused, match="use 1-8"):
        run(s, "place", actor="a", params=params)


def test_a_bad_marching_order_is_refused():
    s = two()
    with pytest.raises(Refused, match="every member"):
        run(s, "marching", params={"side": "party", "order": ["a", 1]})


def test_a_side_added_after_the_surprise_ruling_is_refused():
    s = two()
    run(s, "surprise", params={"sides": ["party", "patrol"]})
    with pytest.raises(Refused, match="surprise was ruled before"):
        s.do("add", **fighter("r", "raiders"))
