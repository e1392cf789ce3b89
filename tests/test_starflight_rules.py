"""Starflight's rules one sentence at a time ("9.1: General Combat Rules",
`shared/rules/004_3f86e69e5e0e7a54.txt`; readings in `docs/rules/starflight.md`).

Each test quotes the sentence (or the docs' reading where the text leaves a number to a chapter
we don't have) and works a number through it with the dice forced. Fighters are those of
`tests/test_starflight.py`: 10 hp, HD 10, a blaster (attack +1, 2d6, range 12) and a knife.
"""

from __future__ import annotations

import pytest

from combatlog.engine import Refused, get_rules
from combatlog.engine.rules.starflight.events import GoalEvent, GroupsRanked, HitsTaken
from combatlog.events import ActionResolved, CombatantDefeated, DamageApplied, DiceRolled
from tests.builders import forced
from tests.test_starflight import act, fighter, of, sf


def told(events: list) -> list[str]:
    return [e.outcome for e in of(events, ActionResolved)]


def placed(*fighters: dict, at: dict[str, tuple[float, float]], faces=(9, 9, 0, 0), **options):
    """`fighters` on a grid (physical unless `grid` says), placed `at`, the fight begun."""
    s = sf(*fighters, ranges="given", **{"grid": "physical", **options})
    for cid, (x, y) in at.items():
        forced(s, "place", actor=cid, params={"x": x, "y": y})
    forced(s, "begin", faces)
    return s


# --- movement ---------------------------------------------------------------------------------


def test_a_move_on_a_physical_grid_costs_the_larger_of_its_two_distances():
    # docs: "range is the larger of the horizontal and vertical distance": from 2,1 to 3,4 is 3
    s = placed(fighter("a", "party", "pc", init=5), fighter("x", "patrol"), at={"a": (2, 1), "x": (9, 9)})
    assert s.state.combatants["a"].resources == {"actions": 2, "mp": 6}  # Initiative + 1
    act(s, "a", "move", x=3, y=4)
    assert s.state.combatants["a"].resources == {"actions": 1, "mp": 3}
    assert s.state.combatants["a"].position == "3,4"


@pytest.mark.parametrize(("to", "cost"), [((4, 6), 5), ((2, 3), 2), ((1, 4), 2)])
def test_a_move_on_an_abstract_grid_costs_its_straight_line_rounded_up(to, cost):
    # docs: "ranges are measured (straight-line distance ...)": from 1,2, 4,6 is 5 away; 2,3 is
    # 1.41: 2 increments
    s = placed(
        fighter("a", "party", "pc", init=5), fighter("x", "patrol"), at={"a": (1, 2), "x": (9, 9)}, grid="abstract"
    )
    act(s, "a", "move", x=to[0], y=to[1])
    assert s.state.combatants["a"].resources["mp"] == 6 - cost


def test_a_second_move_costs_from_where_the_first_ends():
    # simultaneous movement: both moves are declared before either resolves
    s = placed(
        fighter("a", "party", "pc", init=5),
        fighter("x", "patrol"),
        at={"a": (0, 1), "x": (9, 9)},
        movement_timing="simultaneous",
    )
    act(s, "a", "move", x=2, y=1)  # 2
    act(s, "a", "move", x=2, y=4)  # 3 more from 2,1 (4 from 0,1)
    assert s.state.combatants["a"].resources["mp"] == 1


def test_a_square_of_a_physical_grid_is_whole_numbers_and_an_abstract_grid_takes_fractions():
    s = placed(fighter("a", "party", "pc", init=5), fighter("x", "patrol"), at={"a": (0, 0), "x": (9, 9)})
    for x, y in ((1.5, 0), (1, 0.5)):
        with pytest.raises(Refused, match="on a physical grid a square is whole numbers x, y"):
            act(s, "a", "move", x=x, y=y)
    s = placed(
        fighter("a", "party", "pc", init=5), fighter("x", "patrol"), at={"a": (0, 0), "x": (9, 9)}, grid="abstract"
    )
    act(s, "a", "move", x=1.5, y=0)
    assert s.state.combatants["a"].position == "1.5,0"


@pytest.mark.parametrize("version", [None, "1"])
def test_a_facing_is_1_to_8(monkeypatch, version):
    # docs: "eight facings" (1 ahead, clockwise in 45-degree steps); version 1 checked it itself
    if version is not None:
        monkeypatch.setattr(type(get_rules("starflight")), "version", version)
    s = placed(fighter("a", "party", "pc", init=5), fighter("x", "patrol"), at={"a": (0, 0), "x": (9, 9)})
    for facing in (0, 9):
        with pytest.raises(Refused, match="facing"):
            act(s, "a", "move", x=1, y=0, facing=facing)
    act(s, "a", "move", x=1, y=0, facing=1)
    act(s, "a", "move", x=2, y=0, facing=8)


def test_a_version_1_move_without_a_place_is_refused_saying_how_to_give_one(monkeypatch):
    monkeypatch.setattr(type(get_rules("starflight")), "version", "1")
    s = placed(fighter("a", "party", "pc", init=5), fighter("x", "patrol"), at={"a": (0, 0), "x": (9, 9)})
    for x in (None, "far"):
        with pytest.raises(Refused, match=r"say where to: params x=<increments> y=<increments>"):
            act(s, "a", "move", x=x, y=0)
    with pytest.raises(Refused, match=r"say where to: params x=<increments> y=<increments>"):
        act(s, "a", "move", y=0)


# --- attacks and healing ----------------------------------------------------------------------


def _shooting(**a: object):
    """a (init 9) and x 3 squares apart on a physical grid; a acts first."""
    return placed(fighter("a", "party", "pc", init=9, **a), fighter("x", "patrol"), at={"a": (0, 0), "x": (3, 0)})


def test_an_attack_that_reaches_the_hit_difficulty_hits():
    # docs: "2d10 + the attacker's attack + the weapon's attack against the target's hd hits":
    # 4 + 5 + 1 = 10 against HD 10 hits; 4 + 4 + 1 = 9 misses
    s = _shooting()
    events = act(s, "a", "shoot", "x", faces=(4, 5, 2, 3))
    assert told(events) == ["10 against HD 10, a hit; 2d6 = 5 damage"]
    events = act(s, "a", "shoot", "x", faces=(4, 4))
    assert told(events) == ["9 against HD 10, a miss"]


def test_a_shot_costs_one_of_the_two_standard_actions():
    # "two standard actions or one full-round action"
    s = _shooting()
    act(s, "a", "shoot", "x", faces=(0, 0))
    assert s.state.combatants["a"].resources["actions"] == 1


def test_damage_below_0_deals_nothing():
    s = _shooting(weapons=[{"name": "sparker", "damage": "1d4-3", "range": 12}])
    events = act(s, "a", "shoot", "x", faces=(9, 9, 1))
    assert not of(events, DamageApplied) and s.state.combatants["x"].damage == 0


def test_a_hit_outside_the_surprise_round_leaves_recovery_alone():
    # docs: "a combatant damaged in the surprise round can't regenerate shields, heal or be
    # healed that round" -- and only then
    s = _shooting()
    act(s, "a", "shoot", "x", faces=(9, 9, 2, 3))
    assert s.state.combatants["x"].conditions == ()


def test_healing_restores_the_heal_dice_up_to_the_damage_taken_for_one_action():
    # docs: "`heal` (a standard action ...) restores hp to an ally still in the fight"
    s = placed(
        fighter("a", "party", "pc", init=9, heal="1d6"),
        fighter("b", "party", "pc"),
        fighter("x", "patrol"),
        at={"a": (0, 0), "b": (1, 0), "x": (3, 0)},
        faces=(9, 9, 0, 0, 0, 0),
    )
    forced(s, "override", params={"reason": "an old wound", "damage": {"target": "b", "amount": 5}})
    events = act(s, "a", "heal", "b", faces=(3,))
    assert told(events) == ["heals B for 3"] and s.state.combatants["b"].damage == 2
    assert s.state.combatants["a"].resources["actions"] == 1
    events = act(s, "a", "heal", "b", faces=(6,))  # 6 rolled, 2 taken: 2 restored
    assert told(events) == ["heals B for 2"] and s.state.combatants["b"].damage == 0


def test_a_form_offers_the_weapons_that_shoot_at_range_1_or_more():
    s = _shooting(
        weapons=[{"name": "pistol", "damage": "1d6", "range": 1}, {"name": "knife", "damage": "1d4", "melee": True}]
    )
    a = s.state.combatants["a"]
    spec = s.rules.action(s.state, a, "shoot")
    assert spec.param("weapon").offered(s.state, a) == ("pistol",)


def test_a_move_without_its_x_is_refused_saying_how_to_give_one():
    # a (1 movement point: Initiative 0 + 1) is told where, not that it can't pay
    s = placed(fighter("a", "party", "pc"), fighter("x", "patrol"), at={"a": (0, 0), "x": (9, 9)})
    assert s.state.combatants["a"].resources["mp"] == 1
    with pytest.raises(Refused, match=r"say where to: params x=<increments> y=<increments>"):
        act(s, "a", "move", y=1)


def test_each_moves_cost_starts_where_its_own_declared_move_ends():
    # simultaneous movement: a's move, then b's from its own square, then a's shot, then a's move
    s = placed(
        fighter("a", "party", "pc", init=5),
        fighter("b", "party", "pc", init=5),
        fighter("x", "patrol"),
        at={"a": (0, 0), "b": (5, 5), "x": (9, 9)},
        faces=(9, 9, 8, 8, 0, 0),
        movement_timing="simultaneous",
        shooting_timing="simultaneous",
    )
    act(s, "a", "move", x=3, y=0)  # 3
    forced(s, "end_turn", actor="a")
    act(s, "b", "move", x=5, y=6)  # 1, from 5,5 (not from a's 3,0)
    assert s.state.combatants["b"].resources["mp"] == 5


def test_shooting_needs_range_1_or_more_and_melee_range_zero():
    # docs: "Shooting needs range 1 to the weapon's range; melee (range zero) needs a weapon with
    # melee = true"
    s = placed(fighter("a", "party", "pc", init=9), fighter("x", "patrol"), at={"a": (0, 0), "x": (0, 0)})
    with pytest.raises(Refused, match="X is at range zero; that is melee"):
        act(s, "a", "shoot", "x")
    act(s, "a", "melee", "x", faces=(0, 0))
    assert s.state.combatants["a"].resources["actions"] == 1  # a standard action
    s = placed(fighter("a", "party", "pc", init=9), fighter("x", "patrol"), at={"a": (0, 0), "x": (1, 0)})
    act(s, "a", "shoot", "x", faces=(0, 0))
    with pytest.raises(Refused, match="X is at range 1; melee is at range zero"):
        act(s, "a", "melee", "x")


def test_a_weapon_the_action_cannot_use_is_refused_naming_the_weapons():
    s = _shooting()
    with pytest.raises(Refused, match=r"no melee weapon 'blaster' \(weapons: blaster, knife\)"):
        act(s, "a", "melee", "x", weapon="blaster")
    with pytest.raises(Refused, match=r"no ranged weapon 'lance' \(weapons: blaster, knife\)"):
        act(s, "a", "shoot", "x", weapon="lance")


def test_shields_that_absorb_a_whole_hit_leave_no_damage():
    # docs: "a hit deals the weapon's damage dice, absorbed first by the target's current shields"
    s = placed(fighter("a", "party", "pc", init=9), fighter("x", "patrol", shields=8), at={"a": (0, 0), "x": (3, 0)})
    events = act(s, "a", "shoot", "x", faces=(9, 9, 2, 3))
    assert told(events) == ["19 against HD 10, a hit; 2d6 = 5 damage (shields absorb 5)"]
    assert not of(events, DamageApplied)


def test_healing_dice_below_0_restore_nothing():
    s = placed(
        fighter("a", "party", "pc", init=9, heal="1d4-3"),
        fighter("b", "party", "pc"),
        fighter("x", "patrol"),
        at={"a": (0, 0), "b": (1, 0), "x": (3, 0)},
        faces=(9, 9, 0, 0, 0, 0),
    )
    forced(s, "override", params={"reason": "an old wound", "damage": {"target": "b", "amount": 5}})
    events = act(s, "a", "heal", "b", faces=(1,))
    assert told(events) == ["heals B for 0"] and s.state.combatants["b"].damage == 5


def test_the_move_takes_no_target():
    from click.testing import CliRunner

    from combatlog.cli.main import app

    out = CliRunner().invoke(app, ["rulesets", "starflight"]).output
    assert "action move [1 action; no target]" in out


# --- Simple Combat ------------------------------------------------------------------------------


def simple(*fighters: dict, **options):
    s = sf(*fighters, method="simple", **options)
    forced(s, "begin")
    return s


def test_a_primary_goal_ends_the_fight_though_the_other_side_still_stands():
    # docs: "a natural 18 rolls again: more than the opposing combatants left reaches the primary
    # goal (the fight ends)": g 18 against h 17, h loses 1 of 3; the goal roll 10 > 3
    s = simple(fighter("a", "A", group="g"), *[fighter(f"b{i}", "B", group="h") for i in range(3)], simple_goals=True)
    events = forced(s, "exchange", (9, 9, 8, 9, 5, 5))
    ended = [e for e in events if type(e).__name__ == "EncounterEnded"]
    assert [(e.outcome, e.winner) for e in ended] == [("primary goal reached by g", "A")]
    assert [c.id for c in s.state.active()] == ["a", "b1", "b2"]
    rolled = [(d.purpose, d.by) for d in of(events, DiceRolled)]
    assert ("g rolled 18: the goal roll", "a") in rolled


def test_a_roll_of_0_loses_the_primary_goal_only_to_a_group_larger_than_the_roll_again():
    # docs: "a natural 0 rolls again, and a group with more combatants than that roll makes the
    # primary goal unreachable": 3 opponents against a second roll of 3 leave it in reach
    s = simple(fighter("a", "A", group="g"), *[fighter(f"b{i}", "B", group="h") for i in range(3)], simple_goals=True)
    events = forced(s, "exchange", (0, 0, 5, 5, 1, 2))
    assert not [e for e in of(events, GoalEvent) if e.what == "primary lost"]


def test_each_groups_result_is_its_roll_plus_its_modifiers():
    # docs: "option `simple_experience` = {group: bonus}": h's 2 + 2 = 4 against g's 3
    s = simple(fighter("a", "A", group="g"), fighter("b", "B", group="h"), simple_experience={"h": 2})
    events = forced(s, "exchange", (1, 2, 1, 1))
    ranked = of(events, GroupsRanked)[0]
    assert ranked.results == {"g": 3, "h": 4} and ranked.losses == {"g": 1, "h": 0}


def test_experience_may_name_a_combatants_group_within_a_pc_side():
    # a side with a PC is one group ("party"); an experience bonus named by the NPCs' own group
    # is still a group of this fight, and an unknown name is refused
    party = [fighter("p", "party", "pc"), fighter("m", "party", group="marines")]
    s = simple(*party, fighter("x", "raiders"), simple_experience={"marines": 1})
    forced(s, "exchange", (5, 5, 1, 1))
    s = simple(*party, fighter("x", "raiders"), simple_experience={"pirates": 1})
    with pytest.raises(Refused, match="option simple_experience: pirates: no such group"):
        forced(s, "exchange", (5, 5, 1, 1))


def test_a_pc_takes_one_hit_for_each_hostile_group_that_rolled_higher():
    # docs: "the low throw ... takes one hit per hostile group that rolled higher": raiders 10 beat
    # the party's 4, pirates 3 don't
    s = simple(
        fighter("p", "party", "pc"),
        fighter("x", "raiders", group="raiders"),
        fighter("y", "pirates", group="pirates"),
    )
    events = forced(s, "exchange", (2, 2, 5, 5, 1, 2))
    assert of(events, HitsTaken) == [HitsTaken(combatant="p", hits=1)]


def test_a_pc_is_incapacitated_at_its_third_hit_by_default():
    # docs: "A PC is incapacitated after `hits` hits (option `simple_hits`, default 3)"
    s = simple(fighter("p", "party", "pc"), fighter("q", "party", "pc"), fighter("x", "raiders"))
    for round_ in range(3):
        events = forced(s, "exchange", (1, 1, 5, 5, 1, 2))  # p throws low: one hit each exchange
        assert bool([e for e in of(events, CombatantDefeated) if e.combatant == "p"]) is (round_ == 2)


def test_a_choice_is_due_before_the_next_exchange_and_only_from_a_group_that_rolled_18():
    s = simple(
        fighter("a", "A", group="g"),
        *[fighter(f"b{i}", "B", group="h") for i in range(10)],
        simple_goals=True,
    )
    with pytest.raises(Refused, match="no choice is due for that group; a choice comes after a group rolls 18"):
        forced(s, "goal", params={"group": "g", "choice": "bonus"})
    forced(s, "exchange", (9, 9, 4, 5, 1, 1))  # g: 18, then 9, not more than 10
    with pytest.raises(Refused, match=r"g rolled 18 and must choose first; goal group=g choice=secondary\|bonus"):
        forced(s, "exchange", (1, 1, 1, 1))
    with pytest.raises(Refused, match="no choice is due for that group; due: g"):
        forced(s, "goal", params={"group": "h", "choice": "bonus"})


def test_with_two_choices_due_the_refusal_names_the_first_group_twice_over():
    # both groups roll 18, and neither goal roll beats the other side's number: two choices due
    s = simple(fighter("a", "A", group="g"), *[fighter(f"b{i}", "B", group="h") for i in range(2)], simple_goals=True)
    forced(s, "exchange", (9, 9, 9, 9, 0, 1, 0, 0))  # g 18 (goal 1, not above 2); h 18 (goal 0)
    with pytest.raises(Refused, match=r"^.*g rolled 18 and must choose first; goal group=g choice=secondary\|bonus$"):
        forced(s, "exchange", (1, 1, 1, 1))


def test_a_goal_roll_equal_to_the_opposing_combatants_is_not_more_a_choice_is_due():
    # "more than the opposing combatants left reaches the primary goal": 2 against 2 isn't
    s = simple(fighter("a", "A", group="g"), *[fighter(f"b{i}", "B", group="h") for i in range(2)], simple_goals=True)
    events = forced(s, "exchange", (9, 9, 8, 9, 1, 1))  # g 18, h 17 (loses 1); the goal roll 2
    assert [e.what for e in of(events, GoalEvent)] == ["choice due"]
    forced(s, "goal", params={"group": "g", "choice": "bonus"})
    assert not s.rules.waiting(s.state)  # the choice made, the fight goes on
    events = forced(s, "exchange", (1, 1, 1, 1))
    assert of(events, GroupsRanked)[0].results == {"g": 3, "h": 2}


def test_a_group_rolls_by_its_first_member():
    s = simple(
        fighter("a", "A", group="g"), fighter("a2", "A", group="g"), fighter("b", "B", group="h"), simple_goals=True
    )
    events = forced(s, "exchange", (0, 0, 5, 5, 3, 3))  # g rolls 0, then again
    assert [(d.purpose, d.by) for d in of(events, DiceRolled)][:3] == [
        ("simple combat: g", "a"),
        ("simple combat: h", "b"),
        ("g rolled 0: roll again", "a"),
    ]


def test_a_loss_of_exactly_the_groups_npcs_spares_its_pcs():
    # docs: "A group with PCs loses its NPCs first; then each PC rolls 1d10": a loss of 1 takes
    # the one ally, and no PC takes a hit
    s = simple(fighter("p", "party", "pc"), fighter("ally", "party"), fighter("x", "raiders"))
    events = forced(s, "exchange", (2, 2, 2, 3))  # party 4, raiders 5
    assert [e.combatant for e in of(events, CombatantDefeated)] == ["ally"] and not of(events, HitsTaken)


def test_a_hostile_group_that_rolled_the_same_gives_no_hit():
    s = simple(
        fighter("p", "party", "pc"),
        fighter("x", "raiders", group="raiders"),
        fighter("y", "pirates", group="pirates"),
    )
    events = forced(s, "exchange", (2, 2, 5, 5, 2, 2))  # party 4, raiders 10, pirates 4
    assert of(events, HitsTaken) == [HitsTaken(combatant="p", hits=1)]


def test_an_exchange_that_leaves_one_side_standing_ends_the_fight_by_the_csi():
    s = simple(fighter("a", "A"), fighter("b", "B"))
    events = forced(s, "exchange", (9, 9, 1, 1))  # 18 against 2: B loses 16
    ended = [e for e in events if type(e).__name__ == "EncounterEnded"]
    assert len(ended) == 1 and ended[0].winner == "A" and ended[0].outcome != "A"
    assert ended[0].outcome == s.state.outcome


# --- after the mutation run of 27 November ----------------------------------------------------


@pytest.mark.parametrize(
    ("weapons", "message"),
    [
        (
            [{"name": "blaster", "damage": "2d6", "range": 12}, {"name": "blaster", "damage": "1d4", "melee": True}],
            r"\$\.weapons\[1\]: two weapons named 'blaster'",
        ),
        ([{"name": "blaster", "damage": "2d", "range": 12}], r"weapons\[0\]\.damage"),
        (
            [{"name": "rock", "damage": "1d4"}],
            r"\$\.weapons\[0\]: a weapon needs range >= 1 \(shooting\) or melee = true",
        ),
    ],
)
def test_a_weapon_is_named_once_rolls_dice_and_shoots_or_strikes(weapons, message):
    with pytest.raises(Refused, match=message):
        sf(fighter("a", "party", "pc", weapons=weapons))


def test_one_without_a_ranged_weapon_cannot_shoot_and_one_without_heal_dice_cannot_heal():
    # (each action a combatant's stats give: shooting needs a ranged weapon, healing the heal dice)
    from tests.test_starflight import KNIFE

    s = placed(
        fighter("a", "party", "pc", init=5, weapons=[KNIFE]), fighter("x", "patrol"), at={"a": (0, 0), "x": (1, 0)}
    )
    with pytest.raises(Refused, match="starflight has no such action"):
        act(s, "a", "shoot", "x")
    with pytest.raises(Refused, match="starflight has no such action"):
        act(s, "a", "heal", "a")
    s = placed(fighter("a", "party", "pc", init=5), fighter("x", "patrol"), at={"a": (0, 0), "x": (1, 0)})
    with pytest.raises(Refused, match="starflight has no such action"):
        act(s, "a", "heal", "a")  # a blaster and a knife, no heal dice


def test_no_shields_no_regeneration():
    # shields regenerate up to the combatant's shields: one with none regenerates none
    s = placed(
        fighter("a", "party", "pc", init=5, shield_regen=2), fighter("x", "patrol"), at={"a": (0, 0), "x": (9, 9)}
    )
    from combatlog.engine.rules.starflight.reading import shields

    forced(s, "end_turn", actor="a")
    forced(s, "end_turn", actor="x")
    assert s.state.round == 2 and shields(s.state, s.state.combatants["a"]) == 0


def test_movement_points_are_initiative_plus_1_and_never_below_0():
    # docs: "movement points: Initiative + 1": Initiative -2 gives none, not -1
    s = placed(
        fighter("a", "party", "pc", init=-2), fighter("x", "patrol"), at={"a": (0, 0), "x": (9, 9)}, faces=(9, 9, 9, 9)
    )
    assert s.rules.budget(s.state, s.state.combatants["a"]) == {"actions": 2, "mp": 0}


def test_a_turn_with_no_action_left_ends_by_itself_though_heal_dice_and_movement_remain():
    # "two standard actions or one full-round action": spent, the turn is over
    s = placed(
        fighter("a", "party", "pc", init=5, heal="1d4"), fighter("x", "patrol", hp=40), at={"a": (0, 0), "x": (3, 0)}
    )
    act(s, "a", "shoot", "x", faces=(9, 9, 1, 1))
    assert s.state.acting == ("a",)
    act(s, "a", "shoot", "x", faces=(9, 9, 1, 1))
    assert s.state.acting == ("x",)


def test_shields_regenerate_by_1_a_round():
    from combatlog.engine.rules.starflight.reading import shields

    s = placed(
        fighter("a", "party", "pc", init=5, shields=5, shield_regen=1),
        fighter("x", "patrol"),
        at={"a": (0, 0), "x": (3, 0)},
    )
    forced(s, "end_turn", actor="a")
    act(s, "x", "shoot", "a", faces=(9, 9, 1, 1))
    assert shields(s.state, s.state.combatants["a"]) == 3  # 2d6 = 2 absorbed
    forced(s, "end_turn", actor="x")
    assert s.state.round == 2 and shields(s.state, s.state.combatants["a"]) == 4


def test_damage_below_0_leaves_shields_as_they_were():
    from combatlog.engine.rules.starflight.reading import shields

    s = placed(
        fighter("a", "party", "pc", init=9, weapons=[{"name": "sparker", "damage": "1d4-3", "range": 12}]),
        fighter("x", "patrol", shields=5),
        at={"a": (0, 0), "x": (3, 0)},
    )
    act(s, "a", "shoot", "x", faces=(9, 9, 1))  # 1 - 3: nothing
    assert shields(s.state, s.state.combatants["x"]) == 5


# --- the game master's commands ---------------------------------------------------------------


def _gm_refusal(s, kind: str, actor: str | None = None, **params) -> str:
    with pytest.raises(Refused) as exc:
        forced(s, kind, actor=actor, params=params)
    return str(exc.value)


def test_a_range_is_given_to_a_combatant_in_whole_increments_0_or_more():
    # "initial ranges (given or rolled)": 0 is a given range, -1, -3, 'far' and true are not
    s = sf(fighter("a", "party", "pc"), fighter("x", "patrol"), ranges="given")
    assert _gm_refusal(s, "range", "zz", range=3) == "range 'zz': no such combatant; ids: a, x"
    for bad in (-1, -3, "far", True):
        assert _gm_refusal(s, "range", "a", range=bad) == (
            f"range a: {bad!r}: a range is a whole number of increments, 0 or more"
        )
    forced(s, "range", actor="a", params={"range": 0})
    assert s.state.extra.ranges["a"] == 0


@pytest.mark.parametrize(("x", "y"), [(1.5, 2), (1, 2.5)])
def test_a_physical_grids_square_is_two_whole_numbers(x, y):
    s = sf(fighter("a", "party", "pc"), fighter("x", "patrol"), ranges="given", grid="physical")
    assert _gm_refusal(s, "place", "a", x=x, y=y) == "place a: on a physical grid a square is whole numbers x, y"


@pytest.mark.parametrize("where", [{"x": 1}, {"x": None, "y": 1}, {"x": "far", "y": 1}])
def test_a_place_says_where(where):
    s = sf(fighter("a", "party", "pc"), fighter("x", "patrol"), ranges="given", grid="physical")
    assert _gm_refusal(s, "place", "a", **where) == "place a: say where: params x=<increments> y=<increments>"


def test_continuing_a_fight_that_waits_for_no_ruling_is_refused():
    s = placed(fighter("a", "party", "pc", init=5), fighter("x", "patrol"), at={"a": (0, 0), "x": (9, 9)})
    assert _gm_refusal(s, "conclude", decision="continue") == (
        "conclude continue: the fight isn't waiting for a ruling; it goes on by itself"
    )


# --- placement by die, and the stats and options not given -----------------------------------

_PLACED = {
    1: ("0,4", "0,4"),
    2: ("4,4", "2.83,2.83"),
    3: ("4,0", "4,0"),
    4: ("4,-4", "2.83,-2.83"),
    5: ("0,-4", "0,-4"),
    6: ("-4,-4", "-2.83,-2.83"),
    7: ("-4,0", "-4,0"),
    8: ("-4,4", "-2.83,2.83"),
}


@pytest.mark.parametrize("direction", sorted(_PLACED))
@pytest.mark.parametrize("grid", ["physical", "abstract"])
def test_the_first_foe_is_placed_by_2d10_a_direction_and_a_range(direction, grid):
    # "roll 2d10; one die will indicate direction, and the other range ... 1 is a result of
    # straight ahead, rotating clockwise 45 degrees for each increasing number": 4 increments
    # away (on an abstract grid a diagonal step is 0.71 of an increment), facing the leader
    s = sf(fighter("a", "party", "pc", init=5), fighter("x", "patrol"), grid=grid)
    forced(s, "begin", (9, 9, 0, 0, direction, 4))
    assert s.state.combatants["x"].position == _PLACED[direction][grid == "abstract"]
    assert s.state.extra.facing["x"] == (direction + 3) % 8 + 1


def test_one_with_no_speed_has_no_movement_points_by_speed():
    # "movement points: ... or speed (kph x 5/3 m) over the increment's metres": no speed, none
    s = sf(fighter("a", "party", "pc"), fighter("x", "patrol"), grid="physical", movement="speed", increment_m=1)
    assert s.rules.movement_points(s.state, s.state.combatants["a"]) == 0
    s = sf(fighter("a", "party", "pc", speed=60), fighter("x", "patrol"), grid="physical", movement="speed")
    assert s.rules.movement_points(s.state, s.state.combatants["a"]) == 10  # 100 m over 10 m increments


def test_a_one_action_blow_leaves_a_second():
    # "two standard actions": a knife blow is one; a full-round blow takes both
    from tests.test_starflight import KNIFE

    s = placed(
        fighter("a", "party", "pc", init=5, weapons=[KNIFE]),
        fighter("x", "patrol", hp=40),
        at={"a": (0, 0), "x": (0, 0)},
    )
    act(s, "a", "melee", "x", faces=(0, 0))
    assert s.state.acting == ("a",)
    s = placed(
        fighter("a", "party", "pc", init=5, weapons=[{**KNIFE, "name": "maul", "full_round": True}]),
        fighter("x", "patrol", hp=40),
        at={"a": (0, 0), "x": (0, 0)},
    )
    assert s.state.acting == ("a",)
    act(s, "a", "melee", "x", faces=(0, 0))
    assert s.state.acting == ("x",)


def test_like_npcs_roll_initiative_each_unless_grouped():
    # "one roll for a group of like NPCs" is the option group_initiative, off by default
    s = sf(
        fighter("a", "party", "pc"),
        fighter("x", "patrol", group="g"),
        fighter("y", "patrol", group="g"),
        ranges="given",
    )
    forced(s, "begin", (1, 1, 2, 2, 3, 3))
    assert s.state.order == (("y",), ("x",), ("a",))


@pytest.mark.parametrize(
    "where", [{"mana": 3}, {"weapons": [{"name": "blaster", "damage": "2d6", "range": 12, "edge": 1}]}]
)
def test_an_unknown_stat_or_weapon_field_is_refused(where):
    with pytest.raises(Refused, match=r"mana|edge"):
        sf(fighter("a", "party", "pc", **where))


def test_a_full_round_weapon_is_not_offered_with_one_action_left():
    # "two standard actions or one full-round action": after a move that spends every movement
    # point, a full-round gun can't fire with the one action left, and the turn ends; a
    # one-action gun still can
    from tests.test_starflight import BLASTER

    for full_round, acting in ((True, "x"), (False, "a")):
        s = placed(
            fighter("a", "party", "pc", init=5, weapons=[{**BLASTER, "full_round": full_round}]),
            fighter("x", "patrol", hp=40),
            at={"a": (0, 0), "x": (9, 9)},
        )
        act(s, "a", "move", x=0, y=6)  # 6 movement points, all of them
        assert s.state.acting == (acting,)


def test_a_9_is_a_random_direction_and_a_0_rolls_again_for_foes_and_allies_alike():
    # "On a roll of 9, pick a random direction. On zero, just roll the dice again. Do this for
    # each of the combatant groups ... using the individual combatant with the highest Initiative
    # Check value for that group as the "origin point" and making rolls of 1d5 for the range"
    s = sf(
        fighter("a", "party", "pc", init=9),
        fighter("b", "party", "pc", init=5),
        fighter("x", "patrol"),
        grid="physical",
    )
    # initiative; x: 2d10 0 (again), 9 (1d8: 2) and 3; b: 1d10 0 (again), 9 (1d8: 1), 1d5 4
    forced(s, "begin", (9, 9, 5, 5, 0, 0, 0, 8, 9, 3, 2, 0, 9, 1, 4))
    where = {c: (s.state.combatants[c].position, s.state.extra.facing.get(c)) for c in "abx"}
    assert where == {"a": ("0,0", 1), "b": ("0,4", 1), "x": ("3,3", 6)}


def test_an_unknown_parameter_is_refused_from_version_2():
    s = _shooting()
    with pytest.raises(Refused, match="takes no parameter 'bogus'"):
        act(s, "a", "shoot", "x", faces=(0, 0), bogus=1)


def test_one_without_a_melee_weapon_cannot_strike_and_a_healer_has_no_other_actions():
    from tests.test_starflight import BLASTER

    s = placed(
        fighter("a", "party", "pc", init=5, weapons=[BLASTER], heal="1d4"),
        fighter("x", "patrol"),
        at={"a": (0, 0), "x": (0, 0)},
    )
    for action in ("melee", "fly"):
        with pytest.raises(Refused, match="starflight has no such action"):
            act(s, "a", action, "x")


def test_a_second_blow_is_offered_with_no_movement_left():
    # "two standard actions": one with no movement points strikes twice in its turn
    from tests.test_starflight import KNIFE

    s = placed(
        fighter("a", "party", "pc", init=-1, weapons=[KNIFE]),
        fighter("x", "patrol", init=-5, hp=40),
        at={"a": (0, 0), "x": (0, 0)},
    )
    assert s.state.acting == ("a",) and s.state.combatants["a"].resources == {"actions": 2, "mp": 0}
    act(s, "a", "melee", "x", faces=(0, 0))
    assert s.state.acting == ("a",)


def test_one_unarmed_with_a_movement_point_has_a_turn():
    s = placed(
        fighter("a", "party", "pc", init=0, weapons=[]), fighter("x", "patrol", init=-5), at={"a": (0, 0), "x": (5, 5)}
    )
    assert s.state.acting == ("a",)


def test_no_regeneration_at_full_shields_or_without_a_rate():
    from combatlog.engine.rules.starflight.events import ShieldsSet

    s = placed(
        fighter("a", "party", "pc", init=5, shields=5, shield_regen=2),
        fighter("x", "patrol", shields=5),
        at={"a": (0, 0), "x": (3, 0)},
    )
    act(s, "a", "shoot", "x", faces=(9, 9, 1, 1))  # 2 absorbed by x's shields; x has no rate
    forced(s, "end_turn", actor="a")
    events = forced(s, "end_turn", actor="x")
    assert s.state.round == 2 and not [e for e in events if isinstance(e, ShieldsSet)]


def test_one_unarmed_without_a_grid_has_no_turn():
    # without a grid there is no move: one with no weapon and no heal dice can do nothing
    s = sf(fighter("a", "party", "pc", init=5, weapons=[]), fighter("x", "patrol"), ranges="given")
    forced(s, "begin", (9, 9, 0, 0))
    assert s.state.acting == ("x",)


def test_placement_by_die_starts_from_a_leader_the_game_master_placed():
    # the leader placed at 2,5 with no facing (facing ahead, 1): the foe 4 increments ahead of it,
    # facing back; the ally 2 to its right (direction 3), facing as the leader does
    s = sf(
        fighter("a", "party", "pc", init=9),
        fighter("b", "party", "pc", init=5),
        fighter("x", "patrol"),
        grid="physical",
    )
    forced(s, "place", actor="a", params={"x": 2, "y": 5})
    forced(s, "begin", (9, 9, 5, 5, 0, 0, 1, 4, 3, 2))
    where = {c: (s.state.combatants[c].position, s.state.extra.facing.get(c)) for c in "bx"}
    assert where == {"b": ("4,5", 1), "x": ("2,9", 5)}


def test_near_death_at_0_hit_points_left_by_default():
    # docs: "Near death: remaining hp at or below `near_death` (default 0)"
    s = _shooting()
    forced(s, "override", params={"reason": "t", "damage": {"target": "x", "amount": 9}})
    assert not s.state.combatants["x"].has("near death")
    forced(s, "override", params={"reason": "t", "damage": {"target": "x", "amount": 1}})
    assert s.state.combatants["x"].has("near death")
