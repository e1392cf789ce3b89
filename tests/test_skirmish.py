"""Skirmish's rules (`docs/rules/skirmish.md`), each stated by a test with the dice forced.

Skirmish has no rules text of its own: its page is the text, quoted here. Each test names
the rule and works one number through it; the defaults of its stats and options are rules
too (a combatant given only `hp` fights with them).
"""

from __future__ import annotations

import pytest

from combatlog.engine import Refused, get_rules
from combatlog.events import (
    ActionResolved,
    CombatantDefeated,
    DamageApplied,
    DiceRolled,
    EncounterEnded,
    InitiativeRolled,
    Moved,
)
from tests.builders import act, encounter, fighter, forced, of


def pc(cid: str = "ayla", **stats: object) -> dict:
    return fighter(cid, "party", kind="pc", **{"hp": 20, **stats})


def npc(cid: str = "g1", side: str = "goblins", **stats: object) -> dict:
    return fighter(cid, side, **{"hp": 20, **stats})


def duel(*fighters: dict, faces=(20, 1), **options: object):
    """`fighters` begun with the initiative `faces` (by default the first acts first)."""
    s = encounter("skirmish", *fighters, **options)
    forced(s, "begin", faces)
    return s


def outcomes(events: list) -> list[str]:
    return [e.outcome for e in of(events, ActionResolved)]


def rolled(events: list) -> list[tuple[str, int]]:
    return [(d.expression, d.total) for d in of(events, DiceRolled)]


# --- initiative -------------------------------------------------------------------------------


def test_initiative_is_1d20_plus_init():
    # "Initiative: 1d20 + `init`." ayla (init 3) rolls 10: 13; g1 (init 0 by default) rolls 12: 12
    s = encounter("skirmish", pc(init=3), npc())
    events = forced(s, "begin", (10, 12))
    assert [(r.combatants, r.value) for r in of(events, InitiativeRolled)] == [(("ayla",), 13), (("g1",), 12)]
    assert s.state.order == (("ayla",), ("g1",))


def test_ties_are_standard_by_default_pcs_first_with_no_roll_off_between_a_pc_and_an_npc():
    # "`ties` ... default `standard`: PCs first, then 1d20 roll-offs": ayla and g1 both make 12,
    # and the PC goes first without a die
    s = encounter("skirmish", npc(), pc())
    forced(s, "begin", (12, 12))
    assert s.state.order == (("ayla",), ("g1",))


def test_under_standard_ties_two_npcs_on_the_same_score_roll_off_1d20():
    s = encounter("skirmish", npc("g1"), npc("g2"), pc())
    events = forced(s, "begin", (12, 12, 2, 4, 5))  # g1 12, g2 12, ayla 4; roll-off g1 4, g2 5
    assert [e for e, _ in rolled(events)][-2:] == ["1d20", "1d20"]
    assert s.state.order == (("g2",), ("g1",), ("ayla",))


def test_initiative_is_rolled_once_by_default():
    # `initiative_every_round` defaults to false: round 2 keeps round 1's order, no new roll
    s = duel(pc(), npc())
    events = act(s, "ayla", "guard") + act(s, "g1", "guard")  # one action a turn: each turn ends with it
    assert s.state.round == 2 and not of(events, InitiativeRolled)


def test_initiative_every_round_rolls_again_as_each_round_starts():
    s = duel(pc(), npc(), initiative_every_round=True)
    act(s, "ayla", "guard")
    events = act(s, "g1", "guard", faces=(3, 19))  # round 2: ayla 3, g1 19
    assert s.state.round == 2
    assert [r.value for r in of(events, InitiativeRolled)] == [3, 19]
    assert s.state.order == (("g1",), ("ayla",))


def test_group_initiative_is_off_by_default_so_each_npc_of_a_group_rolls_its_own():
    g1, g2 = npc("g1", group="goblins"), npc("g2", group="goblins")
    s = encounter("skirmish", pc(), g1, g2)
    events = forced(s, "begin", (10, 15, 5))
    assert [r.combatants for r in of(events, InitiativeRolled)] == [("ayla",), ("g1",), ("g2",)]


def test_a_group_rolling_once_keeps_its_roll_from_round_to_round_unless_told_to_roll_again():
    g1, g2 = npc("g1", group="goblins"), npc("g2", group="goblins")
    s = encounter("skirmish", pc(), g1, g2, group_initiative=True)
    forced(s, "begin", (10, 15))  # ayla 10, the goblins 15
    assert s.state.order == (("g1", "g2"), ("ayla",))
    events = [e for who in ("g1", "g2", "ayla") for e in act(s, who, "guard")]
    assert s.state.round == 2 and not of(events, InitiativeRolled)
    assert s.state.order == (("g1", "g2"), ("ayla",))


# --- attacks ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("face", "hits"), [(6, True), (5, False)])
def test_a_strike_hits_when_1d20_plus_attack_reaches_the_defense(face, hits):
    # "1d20 + `attack` against `defense`": attack 4 against defense 10 hits on 6 (10), misses on 5 (9)
    s = duel(pc(attack=4), npc(defense=10))
    events = act(s, "ayla", "strike", "g1", faces=(face, 3) if hits else (face,))
    assert rolled(events)[0] == ("1d20+4", face + 4)
    assert [d.amount for d in of(events, DamageApplied)] == ([3] if hits else [])
    assert s.state.combatants["g1"].damage == (3 if hits else 0)


@pytest.mark.parametrize(("face", "hits"), [(10, True), (9, False)])
def test_defense_is_10_and_attack_0_when_the_file_gives_neither(face, hits):
    # the defaults: `attack` 0, `defense` 10; a face of 10 makes 10 and hits, 9 misses
    s = duel(pc(), npc())
    events = act(s, "ayla", "strike", "g1", faces=(face, 4) if hits else (face,))
    assert rolled(events)[0] == ("1d20+0", face)
    assert len(of(events, DamageApplied)) == int(hits)


def test_a_hit_deals_1d6_when_the_file_gives_no_damage_dice():
    s = duel(pc(), npc())
    events = act(s, "ayla", "strike", "g1", faces=(15, 6))
    assert rolled(events) == [("1d20+0", 15), ("1d6", 6)]
    assert of(events, DamageApplied)[0].amount == 6


def test_a_hit_deals_the_damage_dice_as_rolled_named_by_the_action():
    s = duel(pc(damage="2d6+1"), npc())
    events = act(s, "ayla", "shoot", "g1", faces=(15, 3, 4))
    assert rolled(events)[1] == ("2d6+1", 8)
    assert of(events, DamageApplied) == [DamageApplied(target="g1", amount=8, kind="shoot", source="ayla")]
    assert [d.purpose for d in of(events, DiceRolled)] == ["shoot at g1", "shoot damage to g1"]


def test_a_strike_tells_the_hit_with_both_numbers_and_the_amount():
    s = duel(pc(attack=2), npc(defense=12))
    events = act(s, "ayla", "strike", "g1", faces=(11, 5))
    assert "hit (13 against 12) for 5" in outcomes(events)
    events = act(s, "g1", "strike", "ayla", faces=(3,))
    assert "miss (3 against 10)" in outcomes(events)


@pytest.mark.parametrize(("face", "hits"), [(12, True), (11, False)])
def test_guard_adds_2_to_the_defense(face, hits):
    # "`guard`: +2 defense": defense 10 guarded needs 12
    s = duel(npc("g1"), pc("ayla"), faces=(20, 1))
    act(s, "g1", "guard")
    events = act(s, "ayla", "strike", "g1", faces=(face, 1) if hits else (face,))
    assert len(of(events, DamageApplied)) == int(hits)
    assert ("miss (11 against 12)" in outcomes(events)) is not hits


def test_guard_lasts_until_the_end_of_the_next_round():
    # guarded in round 1, g1's 11 misses in round 2 (against 12) and hits in round 3 (against 10)
    s = duel(pc(), npc())
    act(s, "ayla", "guard")
    act(s, "g1", "move", to="x")
    act(s, "ayla", "move", to="y")
    assert outcomes(act(s, "g1", "strike", "ayla", faces=(11,))) == ["miss (11 against 12)"]
    act(s, "ayla", "move", to="z")
    assert s.state.round == 3
    assert outcomes(act(s, "g1", "strike", "ayla", faces=(11, 2))) == ["hit (11 against 10) for 2"]


# --- down and the end -------------------------------------------------------------------------


@pytest.mark.parametrize(("hp", "down"), [(6, True), (7, False)])
def test_a_combatant_is_down_when_its_damage_reaches_its_hp(hp, down):
    s = duel(pc(), npc(hp=hp), faces=(20, 1))
    events = act(s, "ayla", "strike", "g1", faces=(15, 6))
    assert (CombatantDefeated(combatant="g1", how="down") in events) is down


def test_the_fight_ends_when_one_side_stands():
    s = duel(pc(), npc(hp=3), npc("g2", hp=30), faces=(20, 2, 1))  # two goblins: one down, one stands
    events = act(s, "ayla", "strike", "g1", faces=(15, 6))
    assert not of(events, EncounterEnded)
    s = duel(pc(), npc(hp=3))
    events = act(s, "ayla", "strike", "g1", faces=(15, 6))
    assert of(events, EncounterEnded)


# --- moving, and action points ----------------------------------------------------------------


def test_move_goes_to_the_position_named_by_to_one_step_unless_told_how_far():
    s = duel(pc(), npc())
    assert of(act(s, "ayla", "move", to="the ford"), Moved) == [Moved(combatant="ayla", to="the ford", distance=1)]
    assert of(act(s, "g1", "move", to="hill", distance=3), Moved) == [Moved(combatant="g1", to="hill", distance=3)]


def test_a_move_without_a_destination_is_refused_saying_how_to_give_one():
    s = duel(pc(), npc())
    with pytest.raises(Refused, match="say where to: params to=<position>"):
        act(s, "ayla", "move")


@pytest.mark.parametrize(
    ("action", "params", "cost"), [("strike", {}, 3), ("shoot", {}, 4), ("move", {"to": "x"}, 1), ("guard", {}, 2)]
)
def test_under_action_points_strike_shoot_move_and_guard_cost_3_4_1_and_2(action, params, cost):
    s = duel(pc(ap=7), npc(ap=1), order="action-points")
    targets = ("g1",) if action in ("strike", "shoot") else ()
    act(s, "ayla", action, *targets, faces=(1,) if targets else (), **params)
    assert s.state.combatants["ayla"].resources["ap"] == 7 - cost


def test_a_combatant_has_6_action_points_a_round_unless_its_file_says_otherwise():
    s = duel(pc(), npc(ap=2), order="action-points")
    assert s.state.combatants["ayla"].resources == {"ap": 6}


def test_under_a_ranked_order_a_turn_is_one_action():
    s = duel(pc(), npc())
    assert s.state.combatants["ayla"].resources == {"actions": 1}
    act(s, "ayla", "guard")
    assert s.state.acting == ("g1",)


# --- what the table reads, and what is refused -------------------------------------------------


def test_pending_actions_read_as_who_does_what_to_whom():
    rules = get_rules("skirmish")
    s = duel(pc(), npc(), npc("g2"), npc("g3"), npc("g4"), faces=(20, 10, 9, 8, 1), timing="simultaneous")
    act(s, "ayla", "strike", "g1")
    act(s, "g1", "shoot", "ayla")
    act(s, "g2", "move", to="the ford")
    act(s, "g3", "guard")
    said = [rules.describe(s.state, p) for p in s.state.pending]
    assert said == ["AYLA strikes G1", "G1 shoots at AYLA", "G2 moves to the ford", "G3 guards"]


def test_a_parameter_skirmish_does_not_know_is_refused_naming_the_known_ones():
    s = duel(pc(), npc())
    with pytest.raises(Refused, match="distanse"):
        act(s, "ayla", "move", to="x", distanse=2)
    assert s.state.combatants["ayla"].position is None


def test_move_and_guard_are_listed_as_taking_no_target():
    from click.testing import CliRunner

    from combatlog.cli.main import app

    out = CliRunner().invoke(app, ["rulesets", "skirmish"]).output
    assert "action move [1 action; no target]" in out and "action guard [1 action; no target]" in out
    assert "action strike [1 action; enemy]" in out


# --- the versions ------------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["2", None])
def test_from_version_2_on_a_damage_roll_below_0_deals_0(monkeypatch, version):
    # "a hit deals the `damage` dice, 0 at least: a roll below 0 (`1d4-2`) deals nothing, never
    # heals (version 2)": 1d4-2 rolling 1 makes -1, dealt as 0
    if version is not None:
        monkeypatch.setattr(type(get_rules("skirmish")), "version", version)
    s = duel(pc(damage="1d4-2"), npc())
    events = act(s, "ayla", "strike", "g1", faces=(15, 1))
    assert of(events, DamageApplied)[0].amount == 0 and outcomes(events) == ["hit (15 against 10) for 0"]


def test_under_version_2_a_move_s_distance_that_is_no_whole_number_counts_as_1(monkeypatch):
    # version 2 took any parameter; one distance it couldn't read was recorded as 1 step
    monkeypatch.setattr(type(get_rules("skirmish")), "version", "2")
    s = duel(pc(), npc())
    assert of(act(s, "ayla", "move", to="the ford", distance="far"), Moved)[0].distance == 1


def test_a_stat_skirmish_does_not_know_is_refused_naming_the_combatant():
    # "An unknown stat (a typo) is refused when the combatant is added, naming the combatant."
    with pytest.raises(Refused, match=r"combatant ayla.*defence"):
        encounter("skirmish", pc(defence=12))


def test_the_automatic_combatant_strikes_the_first_enemy_standing():
    # the policy: "strike the first enemy standing, else end the turn"
    s = duel(pc(), npc("g1"), npc("g2"), faces=(20, 2, 1))
    command = get_rules("skirmish").policy(s.state, s.state.combatants["ayla"])
    assert (command.action, command.targets) == ("strike", ("g1",))


@pytest.mark.parametrize(
    ("version", "said"), [(None, "lost: G1 is already out of the fight (down)"), ("2", "G1 is already down")]
)
def test_a_strike_at_a_goblin_downed_before_it_resolves_is_lost(monkeypatch, version, said):
    # simultaneous timing: ayla strikes g1, the game master downs it before the round resolves
    if version is not None:
        monkeypatch.setattr(type(get_rules("skirmish")), "version", version)
    s = duel(pc(), npc(), npc("g2"), faces=(20, 1, 10), timing="simultaneous")
    act(s, "ayla", "strike", "g1")
    forced(s, "override", params={"reason": "a rockfall", "defeat": {"target": "g1", "how": "down"}})
    assert outcomes(act(s, "g2", "guard")) == [said, "on guard"]


def test_the_template_is_written_for_this_releases_plugin_api():
    # docs/writing-a-rule-system.md: skirmish is the template a new system copies, and a copy
    # keeps its `api`: the version of the plugin API this release loads without a word
    from combatlog.plugin import API

    assert get_rules("skirmish").api == API
