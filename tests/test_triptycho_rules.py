"""Triptycho's rules one sentence at a time (Player's Guide chapter 4,
`shared/rules/003_bf33078487e4c07d.txt`; readings in `docs/rules/triptycho.md`).

Each test quotes the sentence it holds the engine to (or the docs' reading, where the text is
silent) and works a number through it with the dice forced: the order of turns, the cards
drawn, played and discarded, the Blocks, the falls and climbs, the dice levels.
"""

from __future__ import annotations

import pytest

from combatlog.engine import Refused, get_rules
from combatlog.engine.rules.triptycho.events import (
    BlockLowered,
    CardDiscarded,
    CardDrawn,
    ChargesChanged,
    ClimbChanged,
    DeckShuffled,
    DistantBlockEnded,
)
from combatlog.events import (
    ActionResolved,
    CombatantDefeated,
    Command,
    DamageApplied,
    GmRuling,
    InitiativeRolled,
    Moved,
    OrderSet,
)
from tests.builders import act, board, border, encounter, fighter, forced, of, section
from tests.test_triptycho import HALL, ent, rolls, tri

KNIFE = {"name": "Knife", "hit": "d6", "damage": "d4"}
BOLT = {"name": "Bolt", "range": 2, "incantation": 1, "hit": "d8", "damage": "d6"}


def told(events: list) -> list[str]:
    return [e.outcome for e in of(events, ActionResolved)]


# --- the turn order ---------------------------------------------------------------------------


def test_the_default_order_alternates_pcs_and_adversaries_each_in_the_files_order_pcs_first():
    # docs: "`alternating` (the default): PCs and adversaries take turns, each in the file's
    # order, PCs first"; the longer side's rest go last, in its order
    s = encounter(
        "triptycho",
        ent("n1", "q", "c"),
        ent("p1", "p", "a", kind="pc"),
        ent("n2", "q", "c"),
        ent("p2", "p", "a", kind="pc"),
        ent("n3", "q", "c"),
        map=HALL,
        starting_hand=0,
    )
    events = forced(s, "begin")
    assert of(events, OrderSet)[0].tiers == (("p1",), ("n1",), ("p2",), ("n2",), ("n3",))
    # each one's place in the order is recorded as its initiative, the first highest
    assert [(e.combatants, e.value) for e in of(events, InitiativeRolled)] == [
        (("p1",), 5),
        (("n1",), 4),
        (("p2",), 3),
        (("n2",), 2),
        (("n3",), 1),
    ]


def test_more_pcs_than_adversaries_alternate_then_the_rest_of_the_pcs_follow():
    s = encounter(
        "triptycho",
        ent("p1", "p", "a", kind="pc"),
        ent("p2", "p", "a", kind="pc"),
        ent("n1", "q", "c"),
        ent("p3", "p", "a", kind="pc"),
        map=HALL,
        starting_hand=0,
    )
    forced(s, "begin")
    assert s.state.order == (("p1",), ("n1",), ("p2",), ("p3",))


def test_the_rolled_order_is_1d20_each_highest_first():
    s = encounter("triptycho", ent("x", "p", "a", kind="pc"), ent("y", "q", "c"), map=HALL, order="rolled")
    events = forced(s, "begin", (7, 15))
    assert rolls(events)[:2] == [("1d20", (7,)), ("1d20", (15,))]
    assert s.state.order == (("y",), ("x",))


# --- cards: dealing, drawing, discarding ------------------------------------------------------


def holder(cid: str, side: str, where: str, *cards: str, kind: str = "npc", deck: tuple = ()) -> dict:
    """An entity whose deck is `deck`, then `cards`, each a card that only tells its effect."""
    told = [{"name": n, "effect": n.lower()} for n in cards]
    return fighter(cid, side, kind=kind, hp=10, section=where, deck=[*deck, *told])


def test_two_cards_are_dealt_before_the_first_turn_unless_the_file_says_otherwise():
    # docs: "starting_hand = 2: cards dealt before the first turn", each a draw of 1dK over
    # the K cards left: x (deck A, B, C) draws 1d3 = 2 (B), then 1d2 = 2 (C); its turn draws A
    s = encounter(
        "triptycho", holder("x", "p", "a", "A", "B", "C", kind="pc"), ent("y", "q", "c"), map=HALL, order="listed"
    )
    events = forced(s, "begin", (2, 2))
    assert [e.card for e in of(events, CardDrawn) if e.combatant == "x"] == ["B", "C", "A"]
    assert rolls(events) == [("1d3", (2,)), ("1d2", (2,))]
    assert s.state.extra.hands["x"] == ("B", "C", "A")


def test_an_empty_pile_is_made_again_from_the_discards_in_deck_order():
    # docs: "An empty pile is made again from the discards, in deck order (`DeckShuffled`)":
    # x plays C and discards B; its next turn's pile is B, C (the deck's order), drawn by 1d2
    s = encounter(
        "triptycho",
        holder("x", "p", "a", "A", "B", "C", kind="pc"),
        ent("y", "q", "c"),
        map=HALL,
        order="listed",
        starting_hand=3,
    )
    forced(s, "begin", (3, 2))  # x: C, B, then A
    assert s.state.extra.hands["x"] == ("C", "B", "A")
    act(s, "x", "play", card="C")
    forced(s, "end_turn", actor="x", params={"discard": "B"})
    assert s.state.extra.discards["x"] == ("C", "B")
    events = forced(s, "end_turn", (2,), actor="y")
    assert DeckShuffled(combatant="x", pile=("B", "C")) in events
    assert CardDrawn(combatant="x", card="C", private_to="x") in events
    assert s.state.extra.hands["x"] == ("A", "C") and s.state.extra.piles["x"] == ("B",)


def test_the_card_discarded_at_the_turns_end_is_the_one_named_or_else_the_oldest():
    # docs: "The card discarded is the one named by `discard=NAME` on the command that ends the
    # turn. Without one, it is the oldest card in the hand."
    s = encounter(
        "triptycho",
        holder("x", "p", "a", "A", "B", "C", kind="pc"),
        ent("y", "q", "c"),
        map=HALL,
        order="listed",
    )
    forced(s, "begin", (1, 1))  # x: A, then B; its turn: C (the last, no roll)
    hand = s.state.extra.hands["x"]
    assert hand == ("A", "B", "C")
    events = forced(s, "end_turn", actor="x", params={"discard": "B"})
    assert of(events, CardDiscarded) == [CardDiscarded(combatant="x", card="B")]


def test_a_discard_naming_a_card_not_in_hand_lets_go_of_the_oldest():
    s = encounter(
        "triptycho",
        holder("x", "p", "a", "A", "B", "C", kind="pc"),
        ent("y", "q", "c"),
        map=HALL,
        order="listed",
    )
    forced(s, "begin", (1, 1))
    events = forced(s, "end_turn", actor="x", params={"discard": "Z"})
    assert of(events, CardDiscarded) == [CardDiscarded(combatant="x", card="A")]


# --- defeat, acrobatics, climbing -------------------------------------------------------------


@pytest.mark.parametrize(("hp", "down"), [(5, True), (6, False)])
def test_an_entity_is_defeated_when_its_damage_reaches_its_health(hp, down):
    s = tri(HALL, ent("x", "p", "a", kind="pc"), ent("y", "q", "a", hp=hp))
    events = act(s, "x", "play", "y", faces=(6, 1, 5), card="Sword")  # Hit 6 against 1; d6 damage 5
    assert (CombatantDefeated(combatant="y", how="down") in events) is down


def test_an_acrobatics_roll_the_game_master_calls_without_a_reason_is_against_the_terrain():
    s = tri(HALL, ent("x", "p", "a", kind="pc"), ent("y", "q", "c"))
    events = forced(s, "acrobatics", (3, 5), actor="x")
    failed = "X, the terrain: 3 against 5 (a tie succeeds); the game master rules what failing costs"
    assert of(events, GmRuling)[0].text == failed
    events = forced(s, "acrobatics", (5, 5), actor="x")
    assert of(events, GmRuling)[0].text == "X, the terrain: 5 against 5 (a tie succeeds); "


def test_an_acrobatics_roll_needs_a_named_entity():
    s = tri(HALL, ent("x", "p", "a", kind="pc"), ent("y", "q", "c"))
    with pytest.raises(Refused, match="name the entity: acrobatics ACTOR"):
        forced(s, "acrobatics", actor="nobody")


def test_a_hurt_climber_who_ties_the_game_master_holds_on():
    # "If the entity takes damage, the entity must immediately make an Acrobatics check vs. the
    # border; success does not result in any traversal, but failure results in an immediate
    # fall" -- and "To succeed, you'll need to tie or beat the DM's roll": 3 against 3 holds
    ledge = board(section("low"), section("high"), borders=[border("low", "high", height=2)])
    rock = {"name": "Rock", "thrown": 1, "hit": "d8", "damage": "d4"}
    s = tri(ledge, ent("x", "p", "low", kind="pc"), ent("y", "q", "low", rock))
    act(s, "x", "climb", faces=(4, 4), to="high")
    forced(s, "end_turn", actor="x")
    events = act(s, "y", "play", "x", faces=(8, 1, 3, 3, 3), card="Rock")
    assert not of(events, ClimbChanged) and s.state.extra.climbing["x"].done == 1
    assert [d.kind for d in of(events, DamageApplied)] == [None]  # the Rock's 3, no fall


def test_damage_loses_every_charge_held():
    # "If you take damage while you are incanting or while you have accumulated any Incantation
    # charges, you immediately stop incanting and lose any charges you have built up."
    s = tri(HALL, ent("x", "p", "a", BOLT, kind="pc"), ent("y", "q", "b", {**KNIFE, "reach": 1}))
    act(s, "x", "incant")
    forced(s, "end_turn", actor="x")
    forced(s, "end_turn", actor="y")
    act(s, "x", "incant")  # keeps its charge by incanting again
    forced(s, "end_turn", actor="x")
    events = act(s, "y", "play", "x", faces=(6, 1, 2), card="Knife")
    assert ChargesChanged(combatant="x", charges=0, reason="hurt") in events
    assert "x" not in s.state.extra.charges


def test_an_action_triptycho_does_not_have_is_refused_naming_those_it_has():
    s = tri(HALL, ent("x", "p", "a", kind="pc"), ent("y", "q", "c"))
    with pytest.raises(Refused, match="play"):
        act(s, "x", "dance")


def test_a_block_held_by_an_entity_that_goes_down_is_lowered():
    s = tri(HALL, ent("x", "p", "a", kind="pc"), ent("y", "q", "a", hp=1))
    forced(s, "end_turn", actor="x")
    act(s, "y", "block", toward="b")
    forced(s, "end_turn", actor="y")
    events = act(s, "x", "play", "y", faces=(6, 1, 1), card="Sword")
    assert BlockLowered(combatant="y", reason="down") in events and "y" not in s.state.extra.blocks


# --- what a turn can still pay for ----------------------------------------------------------


def _affordable(s, cid: str) -> list[str]:
    return [spec.name for spec in s.rules.affordable(s.state, s.state.combatants[cid])]


def test_a_turn_starts_able_to_pay_for_the_move_the_strategy_and_the_action_and_lower_only_a_block():
    # docs: "The turn's budget is one `move`, one `strategy` and one `action`"; `lower` is free,
    # for one who holds a Block
    s = tri(HALL, ent("x", "p", "a", kind="pc"), ent("y", "q", "c"))
    assert _affordable(s, "x") == ["move", "climb", "fall", "block", "incant", "play"]
    act(s, "x", "block", toward="b")
    assert _affordable(s, "x") == ["move", "climb", "fall", "lower", "incant", "play"]


def test_an_incantation_card_on_this_turns_charges_stays_playable_once_every_phase_is_spent():
    # "At the start of your next turn, if you are still incanting, you gain 1 charge and can
    # immediately play any valid Actions with an Incantation entry that you have accumulated
    # sufficient charge to pay. Playing an Action in this manner does not cost your Action Phase"
    plan = {"name": "Plan", "effect": "plans"}
    s = encounter(
        "triptycho",
        fighter("x", "p", kind="pc", hp=10, section="a", deck=[BOLT, plan]),
        ent("y", "q", "c"),
        map=HALL,
        order="listed",
        starting_hand=2,
    )
    forced(s, "begin", (1,))  # x: Bolt, then Plan
    assert _affordable(s, "x")[-1] == "play" and not s.state.extra.charges  # the Action phase pays
    act(s, "x", "incant")
    forced(s, "end_turn", actor="x", params={"discard": "Plan"})
    forced(s, "end_turn", actor="y")  # x's turn 2: a charge, and Plan drawn back from the discards
    assert s.state.extra.charges["x"] == 1 and s.state.extra.hands["x"] == ("Bolt", "Plan")
    assert _affordable(s, "x") == ["move", "climb", "fall", "block", "incant", "play"]  # play once
    act(s, "x", "block", toward="b")  # the Strategy phase
    act(s, "x", "play", card="Plan")  # the Action phase
    assert _affordable(s, "x") == ["move", "climb", "fall", "lower", "play"]  # Bolt, on the charge
    act(s, "x", "move", to="b")  # the Move: nothing left to pay for but the charged Bolt
    assert _affordable(s, "x") == ["play"] and s.state.acting == ("x",)
    events = act(s, "x", "play", "y", faces=(8, 1, 6), card="Bolt")
    assert ChargesChanged(combatant="x", charges=0, reason="spent on Bolt") in events
    assert s.state.combatants["y"].damage == 6


def test_an_incantation_card_without_charges_gained_this_turn_waits_for_the_action_phase():
    plan = {"name": "Plan", "effect": "plans"}
    s = encounter(
        "triptycho",
        fighter("x", "p", kind="pc", hp=10, section="a", deck=[BOLT, plan]),
        ent("y", "q", "c"),
        map=HALL,
        order="listed",
        starting_hand=2,
    )
    forced(s, "begin", (1,))  # x: Bolt, then Plan; no charges
    act(s, "x", "block", toward="b")
    act(s, "x", "play", card="Plan")
    assert _affordable(s, "x") == ["move", "climb", "fall", "lower"]


def test_without_an_incantation_card_in_hand_charges_pay_for_nothing_once_the_phases_are_spent():
    s = encounter(
        "triptycho",
        holder("x", "p", "a", "Plan", "Nap", "Rest", kind="pc", deck=[BOLT]),
        ent("y", "q", "c"),
        map=HALL,
        order="listed",
        starting_hand=2,
    )
    forced(s, "begin", (1, 1, 1))  # x: Bolt, Plan; its turn draws Nap (1d2 over Nap, Rest)
    act(s, "x", "incant")
    forced(s, "end_turn", actor="x", params={"discard": "Bolt"})
    forced(s, "end_turn", actor="y")  # x's turn 2: a charge, and Rest drawn
    assert s.state.extra.charges["x"] == 1 and s.state.extra.hands["x"] == ("Plan", "Nap", "Rest")
    act(s, "x", "block", toward="b")
    act(s, "x", "play", card="Plan")
    assert _affordable(s, "x") == ["move", "climb", "fall", "lower"]


def test_the_game_master_placing_an_entity_off_the_map_is_refused_naming_the_sections():
    s = tri(HALL, ent("x", "p", "a", kind="pc"), ent("y", "q", "c"))
    with pytest.raises(Refused, match=r"no section 'zz' on the map \(sections: a, b, c\)"):
        forced(s, "override", params={"reason": "a push", "move": {"target": "x", "to": "zz"}})


def test_a_place_of_two_sections_off_the_map_is_refused_naming_the_first():
    s = tri(HALL, ent("x", "p", "a", kind="pc"), ent("y", "q", "c"))
    with pytest.raises(Refused, match=r"no section 'zz' on the map"):
        forced(s, "override", params={"reason": "a push", "move": {"target": "x", "to": "zz+yy"}})


def test_a_version_1_log_took_a_parameter_no_action_declares(monkeypatch):
    # docs: "Version 2 refuses an unknown parameter"; a version-1 log re-decides as recorded
    s = tri(HALL, ent("x", "p", "a", kind="pc"), ent("y", "q", "c"))
    with pytest.raises(Refused, match="tward"):
        act(s, "x", "block", tward="b", toward="b")
    monkeypatch.setattr(type(get_rules("triptycho")), "version", "1")
    s = tri(HALL, ent("x", "p", "a", kind="pc"), ent("y", "q", "c"))
    act(s, "x", "block", tward="b", toward="b")
    assert s.state.extra.blocks["x"].toward == "b"


# --- Blocks ------------------------------------------------------------------------------------


def test_a_block_at_a_distance_lasts_through_round_plus_n_minus_1_then_ends():
    # docs: "It lasts through round `round + N − 1`": a Ward of 1 played in round 1 stops x
    # crossing b|c for the rest of round 1, and ends as round 1 ends
    ward = {"name": "Ward", "phase": "strategy", "block": 1}
    s = tri(HALL, ent("y", "q", "a", ward), ent("x", "p", "b", kind="pc"))
    events = act(s, "y", "play", card="Ward", a="b", b="c")
    assert told(events) == ["plays Ward; blocks the border b|c from afar, through round 1"]
    forced(s, "end_turn", actor="y")
    with pytest.raises(Refused, match=r"Y \(at a distance\) blocks the border from b to c"):
        act(s, "x", "move", to="c")
    events = forced(s, "end_turn", actor="x")
    assert DistantBlockEnded(combatant="y", a="b", b="c") in events and s.state.round == 2
    forced(s, "end_turn", actor="y")
    act(s, "x", "move", to="c")
    assert s.state.combatants["x"].position == "c"


def test_the_block_of_a_blocker_the_game_master_defeats_is_lowered_as_the_round_ends():
    # "the Block will remain so until the entity leaves the section or willfully lowers the
    # Block": one defeated by the game master's ruling (no damage taken) is down at the round's end
    s = tri(HALL, ent("x", "p", "a", kind="pc"), ent("y", "q", "a"), ent("w", "p", "c", kind="pc"))
    act(s, "x", "block", toward="b")
    forced(s, "end_turn", actor="x")
    forced(s, "override", params={"reason": "a ruling", "defeat": {"target": "x"}})
    assert "x" in s.state.extra.blocks
    forced(s, "end_turn", actor="y")
    events = forced(s, "end_turn", actor="w")
    assert BlockLowered(combatant="x", reason="immobilized, defenseless or down") in events
    assert "x" not in s.state.extra.blocks


# --- attacks ----------------------------------------------------------------------------------


def test_an_allies_area_attack_hits_the_attackers_side_in_the_section_attacker_included():
    # "Some such Actions will specify that the Action only targets enemies or allies"; without a
    # range it "can only target the occupied section and will also target the attacker"
    blessing = {"name": "Blessing", "area": "allies", "hit": "d8", "damage": "d4"}
    s = tri(HALL, ent("x", "p", "a", blessing, kind="pc"), ent("y", "q", "a"), ent("w", "p", "a", kind="pc"))
    events = act(s, "x", "play", faces=(8, 1, 2, 8, 1, 3), card="Blessing")
    assert {e.target: e.amount for e in of(events, DamageApplied)} == {"x": 2, "w": 3}


def test_a_target_at_exactly_the_cards_reach_but_too_high_is_told_the_height():
    # "The range of the Action must be equal to or greater than the total change in Height":
    # 2 soft borders away is within Range 2, a rise of 4 isn't
    bow = {"name": "Bow", "range": 2, "hit": "d8", "damage": "d6"}
    m = board(
        section("o"), section("m"), section("t"), borders=[border("o", "m", height=2), border("m", "t", height=2)]
    )
    s = tri(m, ent("x", "p", "o", bow, kind="pc"), ent("y", "q", "t"))
    with pytest.raises(Refused, match="Y in t is 4 higher or lower; Bow's range 2 doesn't cover it"):
        act(s, "x", "play", "y", card="Bow")


def test_letting_go_of_a_climb_falls_the_height_climbed():
    # "A climbing entity that wants to stop climbing can choose to fall as a Move, suffering any
    # resulting falling damage": 1 of 2 climbed, the fall is 1d4
    ledge = board(section("low"), section("high"), borders=[border("low", "high", height=2)])
    s = tri(ledge, ent("x", "p", "low", kind="pc"), ent("y", "q", "high"))
    act(s, "x", "climb", faces=(4, 4), to="high")
    forced(s, "end_turn", actor="x")
    forced(s, "end_turn", actor="y")
    events = act(s, "x", "fall", faces=(3,))
    assert told(events) == ["lets go: falls 1: 3 damage"]
    assert DamageApplied(target="x", amount=3, kind="fall") in events and "x" not in s.state.extra.climbing


def test_playing_an_incantation_card_while_incanting_again_stops_the_incanting():
    # "Playing an Action with an Incantation entry expends all the charges you've built up": the
    # incantation it was building is over too
    s = tri(HALL, ent("x", "p", "a", BOLT, kind="pc"), ent("y", "q", "b"))
    act(s, "x", "incant")
    forced(s, "end_turn", actor="x")
    forced(s, "end_turn", actor="y")
    act(s, "x", "incant")  # its second turn: incanting again, holding 1 charge
    assert s.state.extra.incanting == ("x",)
    act(s, "x", "play", "y", faces=(8, 1, 6), card="Bolt")
    assert s.state.extra.incanting == () and "x" not in s.state.extra.charges


def test_a_target_that_cant_see_its_attacker_lowers_its_miss_die_one_level():
    # "if an entity is attacked by another entity that it cannot see, then it is considered to
    # be Vulnerable": y's Miss d8 is rolled as a d6 (one level), x attacking from the dark
    dim = board(section("a", light="dark"), section("b"), borders=[border("a", "b")])
    s = tri(dim, ent("x", "p", "a", kind="pc", darkvision=True), ent("y", "q", "a", miss="d8"))
    events = act(s, "x", "play", "y", faces=(4, 3, 2), card="Sword")
    assert [r[0] for r in rolls(events)[:2]] == ["1d8", "1d6"]


def test_the_actions_that_take_no_target_are_listed_so():
    from click.testing import CliRunner

    from combatlog.cli.main import app

    out = CliRunner().invoke(app, ["rulesets", "triptycho"]).output
    listed = [line.split(":")[0].strip() for line in out.splitlines() if line.startswith("  action ")]
    assert listed == [
        "action move [1 move; no target]",
        "action climb [1 move; no target]",
        "action fall [1 move; no target]",
        "action block [1 strategy; no target]",
        "action lower [free; no target]",
        "action incant [1 action; no target]",
        "action play [1 action; any]",
    ]


def test_an_armoured_target_swimming_lowers_its_miss_die_one_level():
    # swimming reduces "all Hit, Miss, and Damage dice when using weapons, armor, and shields":
    # an armoured Miss d8 in the water is rolled as a d6
    pool = board(section("a", water=True), section("b"), borders=[border("a", "b")])
    s = tri(pool, ent("x", "p", "a", KNIFE, kind="pc", aquatic=True), ent("y", "q", "a", miss="d8", armoured=True))
    events = act(s, "x", "play", "y", faces=(4, 3, 2), card="Knife")
    assert [r[0] for r in rolls(events)[:2]] == ["1d6", "1d6"]


def test_a_hit_with_a_card_that_has_no_damage_die_is_told_as_a_hit():
    trip = {"name": "Trip", "hit": "d8", "effect": "the target is knocked down"}
    s = tri(HALL, ent("x", "p", "a", trip, kind="pc"), ent("y", "q", "a"))
    events = act(s, "x", "play", "y", faces=(5, 2), card="Trip")
    assert told(events) == ["plays Trip; Y: Hit 5 (d8) against Miss 2 (d6), a hit; the target is knocked down"]
    assert not of(events, DamageApplied)


def test_an_others_area_attack_spares_the_attacker_alone():
    # "some may exclude the attacker from the set of targets"
    sweep = {"name": "Sweep", "area": "others", "hit": "d8", "damage": "d4"}
    s = tri(HALL, ent("x", "p", "a", sweep, kind="pc"), ent("y", "q", "a"), ent("w", "p", "a", kind="pc"))
    events = act(s, "x", "play", faces=(8, 1, 2, 8, 1, 3), card="Sweep")
    assert {e.target: e.amount for e in of(events, DamageApplied)} == {"y": 2, "w": 3}


@pytest.mark.parametrize(("reach", "hit"), [(0, False), (1, True)])
def test_a_climber_is_hit_by_an_area_attack_only_if_its_range_reaches_the_height_climbed(reach, hit):
    # "the entity is only affected by the Action if the Action's Range entry is sufficient to
    # reach the entity's current Height": x has climbed 1 of 2
    ledge = board(section("low"), section("high"), borders=[border("low", "high", height=2)])
    blast = {"name": "Blast", "area": "enemies", "hit": "d8", "damage": "d4", **({"thrown": reach} if reach else {})}
    s = tri(ledge, ent("x", "p", "low", kind="pc"), ent("y", "q", "low", blast))
    act(s, "x", "climb", faces=(4, 4), to="high")
    forced(s, "end_turn", actor="x")
    faces = (8, 1, 2, 3, 3) if hit else ()  # hit, Miss, damage 2; x holds on (3 against 3)
    events = act(s, "y", "play", faces=faces, card="Blast", section="low")
    assert [e.target for e in of(events, DamageApplied)] == (["x"] if hit else [])


def test_a_shot_within_range_over_a_crest_is_told_hidden_not_too_high():
    # up 3, down 1: a rise of 2 is within Range 2, but the ground rises then falls on the way
    bow = {"name": "Bow", "range": 2, "hit": "d8", "damage": "d6"}
    m = board(
        section("o"), section("m"), section("t"), borders=[border("o", "m", height=3), border("m", "t", height=-1)]
    )
    s = tri(m, ent("x", "p", "o", bow, kind="pc"), ent("y", "q", "t"))
    with pytest.raises(Refused, match="the terrain hides Y in t from o"):
        act(s, "x", "play", "y", card="Bow")


def test_a_form_offers_only_the_incantation_cards_in_hand_to_incant_toward():
    plan = {"name": "Plan", "effect": "plans"}
    s = encounter(
        "triptycho",
        fighter("x", "p", kind="pc", hp=10, section="a", deck=[plan, BOLT]),
        ent("y", "q", "c"),
        map=HALL,
        order="listed",
        starting_hand=2,
    )
    forced(s, "begin", (1,))
    spec = s.rules.action(s.state, s.state.combatants["x"], "incant")
    assert spec.param("card").offered(s.state, s.state.combatants["x"]) == ("Bolt",)


def test_only_a_holder_of_a_block_on_a_border_a_ranged_single_shot_crosses_may_intercept():
    # "If an entity is blocking a section border in its occupied section that a ranged attack
    # without the Area Attack descriptor passes through, the entity may choose to Intercept"
    bow = {"name": "Bow", "range": 2, "hit": "d8", "damage": "d6"}
    pike = {"name": "Pike", "reach": 2, "hit": "d8", "damage": "d6"}
    s = encounter(
        "triptycho",
        fighter("x", "p", kind="pc", hp=10, section="a", deck=[bow, pike]),
        ent("z", "q", "b"),
        ent("v", "q", "b"),
        ent("y", "q", "c"),
        map=HALL,
        order="listed",
        starting_hand=2,
    )
    forced(s, "begin", (1,))
    forced(s, "end_turn", actor="x", params={"discard": "Pike"})
    act(s, "z", "block", toward="c")
    forced(s, "end_turn", actor="z")
    forced(s, "end_turn", actor="v")
    forced(s, "end_turn", actor="y")
    no = "holds no Block on a border this shot crosses, in its own section"
    with pytest.raises(Refused, match=f"v {no}"):  # v holds no Block
        act(s, "x", "play", "y", card="Bow", intercepted_by="v")
    with pytest.raises(Refused, match=f"z {no}"):  # the shot at z's own section crosses a|b only
        act(s, "x", "play", "v", card="Bow", intercepted_by="z")
    events = act(s, "x", "play", "y", faces=(8, 1, 4), card="Bow", intercepted_by="z")
    assert [e.target for e in of(events, DamageApplied)] == ["z"]


def test_a_reach_card_s_blow_cannot_be_intercepted():
    pike = {"name": "Pike", "reach": 2, "hit": "d8", "damage": "d6"}
    s = tri(HALL, ent("x", "p", "a", pike, kind="pc"), ent("z", "q", "b"), ent("y", "q", "c"))
    forced(s, "end_turn", actor="x")
    act(s, "z", "block", toward="c")
    forced(s, "end_turn", actor="z")
    forced(s, "end_turn", actor="y")
    with pytest.raises(Refused, match="z holds no Block on a border this shot crosses"):
        act(s, "x", "play", "y", card="Pike", intercepted_by="z")


def test_an_area_card_with_reach_must_name_its_section_and_one_on_the_map():
    swing = {"name": "Swing", "reach": 1, "area": "enemies", "hit": "d8", "damage": "d4"}
    s = tri(HALL, ent("x", "p", "a", swing, kind="pc"), ent("y", "q", "b"))
    with pytest.raises(Refused, match="Swing is an area attack: say which section, section=SECTION"):
        act(s, "x", "play", card="Swing")
    with pytest.raises(Refused, match="Swing is an area attack: say which section"):
        act(s, "x", "play", card="Swing", section="zz")


def test_a_block_goes_toward_an_adjacent_section_and_says_which_are():
    s = tri(HALL, ent("x", "p", "a", kind="pc"), ent("y", "q", "c"))
    with pytest.raises(Refused, match=r"block the border toward an adjacent section: toward=SECTION \(b\)"):
        act(s, "x", "block", toward="c")


def test_a_block_at_a_distance_needs_two_sections_that_border():
    ward = {"name": "Ward", "phase": "strategy", "block": 2}
    s = tri(HALL, ent("x", "p", "a", ward, kind="pc"), ent("y", "q", "c"))
    says = r"Ward blocks a border at a distance: a=SECTION b=SECTION \(two that border\)"
    for params in ({"a": "b"}, {"b": "c"}, {"a": "a", "b": "c"}):
        with pytest.raises(Refused, match=says):
            act(s, "x", "play", card="Ward", **params)


def test_the_turns_move_climbs_no_rise_at_all():
    # "In order to cross a border with a height increase, you must climb ..., perform a Move with
    # a provided Height value equal to or greater than the border's height": the turn's Move has none
    step = board(section("low"), section("high"), borders=[border("low", "high", height=1)])
    s = tri(step, ent("x", "p", "low", kind="pc"), ent("y", "q", "high"))
    with pytest.raises(Refused, match="high is 1 higher than low: climb, or a Move with Height 1"):
        act(s, "x", "move", to="high")


def test_a_card_is_played_at_one_target_at_most():
    s = tri(HALL, ent("x", "p", "a", kind="pc"), ent("y", "q", "a"), ent("z", "q", "a"))
    with pytest.raises(Refused, match=r"needs 0-1 target\(s\), 2 given"):
        act(s, "x", "play", "y", "z", card="Sword")


# --- Blocks on the map ---------------------------------------------------------------------


def _blocked_by_y(*entities: dict, battle_map: dict = HALL):
    """x (party, in a) waits; y (adversary) blocks a -> b; the round comes back to x."""
    s = tri(battle_map, *entities)
    forced(s, "end_turn", actor="x")
    act(s, "y", "block", toward="b")
    forced(s, "end_turn", actor="y")
    for c in s.state.order[2:]:
        forced(s, "end_turn", actor=c[0])
    assert s.state.acting == ("x",)
    return s


def test_a_block_stops_an_enemy_leaving_across_that_border_only():
    # "prevent enemy passage across any one section border between the occupied section and a
    # single adjacent section": a -> b is blocked, a -> w isn't
    m = board(section("a"), section("b"), section("w"), borders=[border("a", "b"), border("a", "w")])
    s = _blocked_by_y(ent("x", "p", "a", kind="pc"), ent("y", "q", "a"), battle_map=m)
    with pytest.raises(Refused, match="Y blocks the border from a to b"):
        act(s, "x", "move", to="b")
    act(s, "x", "move", to="w")
    assert s.state.combatants["x"].position == "w"


def test_a_block_never_stops_the_blockers_own_side():
    s = _blocked_by_y(ent("x", "q", "a"), ent("y", "q", "a"), ent("z", "p", "c", kind="pc"))
    act(s, "x", "move", to="b")
    assert s.state.combatants["x"].position == "b"


def test_a_block_does_not_stop_an_enemy_the_blocker_cannot_see():
    # "nor can they impede any movement from an enemy that the blocking entity cannot see": in
    # a dark section y sees no one, so x walks out
    m = board(section("a", light="dark"), section("b"), borders=[border("a", "b")])
    s = _blocked_by_y(ent("x", "p", "a", kind="pc"), ent("y", "q", "a"), battle_map=m)
    act(s, "x", "move", to="b")
    assert s.state.combatants["x"].position == "b"


def test_an_immobilized_blocker_of_a_version_1_log_blocks_nothing(monkeypatch):
    # "Blocks are automatically lowered if an entity becomes Immobilized": version 1 lowered the
    # Block as the round ended, and the Block stopped no one in the meantime
    monkeypatch.setattr(type(get_rules("triptycho")), "version", "1")
    s = _blocked_by_y(ent("x", "p", "a", kind="pc"), ent("y", "q", "a"))
    forced(s, "override", params={"reason": "webbed", "condition": {"target": "y", "name": "immobilized"}})
    assert "y" in s.state.extra.blocks
    act(s, "x", "move", to="b")
    assert s.state.combatants["x"].position == "b"


def test_a_block_at_a_distance_stops_enemies_both_ways_but_not_the_owners_side():
    # "In these cases the Blocks function on both sides of the section border."
    ward = {"name": "Ward", "phase": "strategy", "block": 2}
    s = tri(HALL, ent("y", "q", "c", ward), ent("x", "p", "b", kind="pc"), ent("w", "p", "a", kind="pc"))
    act(s, "y", "play", card="Ward", a="a", b="b")
    forced(s, "end_turn", actor="y")
    with pytest.raises(Refused, match=r"Y \(at a distance\) blocks the border from b to a"):
        act(s, "x", "move", to="a")
    forced(s, "end_turn", actor="x")
    with pytest.raises(Refused, match=r"Y \(at a distance\) blocks the border from a to b"):
        act(s, "w", "move", to="b")
    s = tri(HALL, ent("y", "q", "c", ward), ent("v", "q", "b"), ent("x", "p", "c", kind="pc"))
    act(s, "y", "play", card="Ward", a="a", b="b")
    forced(s, "end_turn", actor="y")
    act(s, "v", "move", to="a")  # y's own side crosses
    assert s.state.combatants["v"].position == "a"


def test_leaving_its_section_lowers_ones_own_block():
    # "the Block will remain so until the entity leaves the section"
    s = _blocked_by_y(ent("x", "p", "c", kind="pc"), ent("y", "q", "a"))
    forced(s, "end_turn", actor="x")
    events = act(s, "y", "move", to="b")
    assert BlockLowered(combatant="y", reason="left the section") in events and not s.state.extra.blocks


def test_a_block_lowered_at_will_is_free_and_stops_no_one_after():
    s = _blocked_by_y(ent("x", "p", "c", kind="pc"), ent("y", "q", "a"))
    forced(s, "end_turn", actor="x")
    events = act(s, "y", "lower")
    assert BlockLowered(combatant="y", reason="lowered") in events
    assert s.state.combatants["y"].resources == {"move": 1, "strategy": 1, "action": 1}


def test_a_shot_that_doesnt_cross_the_border_blocked_from_afar_is_rolled():
    # "If a ranged attack ... passes through a section border that was blocked from a distance,
    # the attack automatically misses": a Ward on b|c doesn't touch a shot across a|b
    bow = {"name": "Bow", "range": 2, "hit": "d8", "damage": "d6"}
    ward = {"name": "Ward", "phase": "strategy", "block": 2}
    s = tri(HALL, ent("w", "q", "c", ward), ent("x", "p", "a", bow, kind="pc"), ent("y", "q", "b"))
    act(s, "w", "play", card="Ward", a="b", b="c")
    forced(s, "end_turn", actor="w")
    events = act(s, "x", "play", "y", faces=(8, 1, 4), card="Bow")
    assert [(e.target, e.amount) for e in of(events, DamageApplied)] == [("y", 4)]


def test_incanting_toward_a_range_card_alone_in_the_section_is_taken():
    s = tri(HALL, ent("x", "p", "a", BOLT, kind="pc"), ent("y", "q", "c"))
    act(s, "x", "incant", card="Bolt")
    assert s.state.extra.incanting == ("x",)


def test_a_card_not_in_hand_is_refused_naming_the_hand():
    s = encounter("triptycho", ent("x", "p", "a", kind="pc"), ent("y", "q", "a"), map=HALL, order="listed")
    forced(s, "begin")  # each deck holds one card: dealt without a roll
    with pytest.raises(Refused, match=r"'Axe' isn't in X's hand \(in hand: Sword\)"):
        act(s, "x", "play", "y", card="Axe")


def test_swimming_lowers_a_weapons_damage_die_one_level():
    # "An entity that is swimming has dice levels reduced by 1 on all Hit, Miss, and Damage dice
    # when using weapons": a sword's d8 Damage is rolled as a d6
    pool = board(section("a", water=True), section("b"), borders=[border("a", "b")])
    sword = {"name": "Sword", "hit": "d8", "damage": "d8", "weapon": "sword"}
    s = tri(pool, ent("x", "p", "a", sword, kind="pc"), ent("y", "q", "a", aquatic=True))
    events = act(s, "x", "play", "y", faces=(6, 1, 5), card="Sword")
    assert [r[0] for r in rolls(events)] == ["1d6", "1d6", "1d6"]


def test_the_turns_move_crosses_one_border_not_two():
    # "every entity has the innate ability to Move 1 during their turn"
    s = tri(HALL, ent("x", "p", "a", kind="pc"), ent("y", "q", "a"))
    with pytest.raises(Refused, match="c is beyond a Move 1 from a"):
        act(s, "x", "move", to="c")


def test_an_incantation_card_without_its_charges_is_refused_saying_how_many():
    # "This number refers to how many charges are required to play the Action."
    s = tri(HALL, ent("x", "p", "a", BOLT, kind="pc"), ent("y", "q", "b"))
    with pytest.raises(Refused, match=r"Bolt needs 1 incantation charge\(s\); X has 0"):
        act(s, "x", "play", "y", card="Bolt")


def test_playing_needs_a_card_named_and_says_what_the_hand_holds():
    s = encounter("triptycho", ent("x", "p", "a", kind="pc"), ent("y", "q", "a"), map=HALL, order="listed")
    forced(s, "begin")
    for card in ("", None):
        params = {"card": card} if card is not None else {}
        with pytest.raises(Refused, match=r"name the card: card=NAME \(in hand: Sword\)"):
            act(s, "x", "play", "y", **params)


def test_incanting_toward_a_card_that_isnt_an_incantation_is_refused():
    s = tri(HALL, ent("x", "p", "a", kind="pc"), ent("y", "q", "c"))
    with pytest.raises(Refused, match="'Sword' isn't an Incantation card of X's"):
        act(s, "x", "incant", card="Sword")


def test_a_blocker_the_game_master_defeated_can_no_longer_intercept():
    # its Block waits for the round's end to be lowered, and holds nothing meanwhile
    bow = {"name": "Bow", "range": 2, "hit": "d8", "damage": "d6"}
    s = tri(HALL, ent("z", "q", "b"), ent("x", "p", "a", bow, kind="pc"), ent("y", "q", "c"))
    act(s, "z", "block", toward="c")
    forced(s, "end_turn", actor="z")
    forced(s, "override", params={"reason": "a ruling", "defeat": {"target": "z"}})
    assert "z" in s.state.extra.blocks
    with pytest.raises(Refused, match="z holds no Block on a border this shot crosses"):
        act(s, "x", "play", "y", card="Bow", intercepted_by="z")


@pytest.mark.parametrize("why", ["debilitated", "climbing"])
def test_an_attacker_debilitated_or_climbing_lowers_its_hit_die_one_level(why):
    # "The entity is Debilitated and Vulnerable" while climbing; the condition itself does as much
    ledge = board(section("low"), section("high"), borders=[border("low", "high", height=2)])
    rock = {"name": "Rock", "thrown": 1, "hit": "d8", "damage": "d4"}
    s = tri(ledge, ent("x", "p", "low", rock, kind="pc"), ent("y", "q", "low"))
    if why == "climbing":
        act(s, "x", "climb", faces=(4, 4), to="high")
    else:
        forced(s, "override", params={"reason": "dazzled", "condition": {"target": "x", "name": "debilitated"}})
    events = act(s, "x", "play", "y", faces=(6, 1, 2), card="Rock")
    assert rolls(events)[0] == ("1d6", (6,))
    assert "[Debilitated]" in told(events)[0]


def test_an_area_attack_passing_over_a_climber_still_hits_the_others_in_the_section():
    ledge = board(section("low"), section("high"), borders=[border("low", "high", height=2)])
    blast = {"name": "Blast", "area": "enemies", "hit": "d8", "damage": "d4"}
    s = tri(ledge, ent("x", "p", "low", kind="pc"), ent("w", "p", "low", kind="pc"), ent("y", "q", "low", blast))
    act(s, "x", "climb", faces=(4, 4), to="high")
    forced(s, "end_turn", actor="x")
    forced(s, "end_turn", actor="w")
    events = act(s, "y", "play", faces=(8, 1, 2), card="Blast", section="low")
    assert [e.target for e in of(events, DamageApplied)] == ["w"]


def test_a_version_1_log_records_no_enemy_alongside_an_incantation(monkeypatch):
    # docs: "Version 1 checked only `incant card=NAME`": its plain `incant` recorded nothing more
    from combatlog.engine.rules.triptycho.events import IncantingChanged

    monkeypatch.setattr(type(get_rules("triptycho")), "version", "1")
    s = tri(HALL, ent("x", "p", "a", BOLT, kind="pc"), ent("y", "q", "a"))
    events = act(s, "x", "incant")
    assert of(events, IncantingChanged) == [IncantingChanged(combatant="x", incanting=True)]
    assert told(events) == ["begins incanting"]


@pytest.mark.parametrize(("version", "lost"), [(None, True), ("2", True), ("1", False)])
def test_a_card_played_at_an_entity_gone_as_it_resolves_is_lost(monkeypatch, version, lost):
    # version 2 on: the core's one sentence; version 1 played the card all the same
    from tests.test_target_gone import aimed, bundled, resolved_now, take_out

    s = bundled("triptycho", monkeypatch, version=version)
    command = aimed(s)
    target = s.state.combatants[command.targets[0]]
    take_out(s, target.id, "felled")
    events = resolved_now(s, command)
    if lost:
        assert told(events) == [f"lost: {target.name} is already out of the fight (felled)"]
    else:
        assert told(events)[0].startswith("plays ")


def test_a_reach_or_area_attack_across_a_border_blocked_from_afar_is_rolled():
    # the automatic miss is for "a ranged attack without the Area Attack descriptor": a Reach
    # blow (melee) and an area shot cross the Ward and are rolled
    pike = {"name": "Pike", "reach": 1, "hit": "d8", "damage": "d6"}
    burst = {"name": "Burst", "range": 1, "area": "enemies", "hit": "d8", "damage": "d6"}
    ward = {"name": "Ward", "phase": "strategy", "block": 2}
    for card, params in ((pike, {}), (burst, {"section": "b"})):
        s = tri(HALL, ent("w", "q", "c", ward), ent("x", "p", "a", card, kind="pc"), ent("y", "q", "b"))
        act(s, "w", "play", card="Ward", a="a", b="b")
        forced(s, "end_turn", actor="w")
        targets = () if params else ("y",)
        events = act(s, "x", "play", *targets, faces=(8, 1, 4), card=card["name"], **params)
        assert [(e.target, e.amount) for e in of(events, DamageApplied)] == [("y", 4)]


def test_a_card_of_the_deck_not_in_hand_is_refused():
    s = encounter(
        "triptycho",
        holder("x", "p", "a", "Plan", "Rest", kind="pc", deck=[KNIFE]),
        ent("y", "q", "a"),
        map=HALL,
        order="listed",
        starting_hand=1,
    )
    forced(s, "begin", (2, 2))  # x is dealt Plan (1d3), and its turn draws Rest (1d2): the Knife stays in the pile
    assert s.state.extra.hands["x"] == ("Plan", "Rest")
    with pytest.raises(Refused, match=r"'Knife' isn't in X's hand \(in hand: Plan, Rest\)"):
        act(s, "x", "play", "y", card="Knife")


@pytest.mark.parametrize(("version", "refused"), [(None, True), ("1", False)])
def test_a_section_named_for_a_card_that_isnt_an_attack_is_refused_from_version_2(monkeypatch, version, refused):
    plan = {"name": "Plan", "effect": "plans"}
    if version is not None:
        monkeypatch.setattr(type(get_rules("triptycho")), "version", version)
    s = tri(HALL, ent("x", "p", "a", plan, kind="pc"), ent("y", "q", "c"))
    if refused:
        with pytest.raises(Refused, match="Plan isn't an attack: section=SECTION names where an attack occurs"):
            act(s, "x", "play", card="Plan", section="a")
    else:
        assert told(act(s, "x", "play", card="Plan", section="a")) == ["plays Plan; plans"]


# --- moving: teleport, swimming, phase, falls, climbs -------------------------------------------


def test_teleport_reaches_within_n_borders_of_any_kind_and_no_further():
    # "Phase and Teleport special movement types must have a range equal to or greater than the
    # Height value"; docs: "Teleport goes to any section within N borders of any kind"
    hop = {"name": "Hop", "move": 1, "movement": "teleport"}
    s = tri(HALL, ent("x", "p", "a", hop, kind="pc"), ent("y", "q", "a"))
    with pytest.raises(Refused, match="c is 2 sections away; Teleport 1"):
        act(s, "x", "play", card="Hop", to="c")
    events = act(s, "x", "play", card="Hop", to="b")
    assert of(events, Moved) == [Moved(combatant="x", to="b", distance=0)]  # it crosses nothing on the way
    assert told(events) == ["plays Hop; teleports from a to b"]


def test_a_swimmers_long_move_short_of_its_reach_only_for_the_water_says_so():
    # "Any Move that grants more than one section of movement is reduced by 1 for each section
    # entered that requires swimming": Dash 2 through the pool w to c is 3
    wet = board(section("a"), section("w", water=True), section("c"), borders=[border("a", "w"), border("w", "c")])
    dash = {"name": "Dash", "move": 2}
    s = tri(wet, ent("x", "p", "a", dash, kind="pc"), ent("y", "q", "c"))
    with pytest.raises(
        Refused, match="^.*c is beyond a Move 2 from a: each water section entered costs a section more$"
    ):
        act(s, "x", "play", card="Dash", to="c")
    dry = board(
        section("a"),
        section("b"),
        section("c"),
        section("d"),
        borders=[border("a", "b"), border("b", "c"), border("c", "d")],
    )
    s = tri(dry, ent("x", "p", "a", dash, kind="pc"), ent("y", "q", "d"))
    with pytest.raises(Refused, match="^.*d is beyond a Move 2 from a$"):
        act(s, "x", "play", card="Dash", to="d")


def test_the_turns_move_of_one_section_into_water_costs_no_more():
    wet = board(section("a"), section("w", water=True), borders=[border("a", "w")])
    s = tri(wet, ent("x", "p", "a", kind="pc"), ent("y", "q", "w"))
    act(s, "x", "move", to="w")
    assert s.state.combatants["x"].position == "w"


def test_phase_crosses_a_height_equal_to_its_range():
    # "Phase and Teleport special movement types must have a range equal to or greater than the
    # Height value to perform the movement"
    ledge = board(section("low"), section("high"), borders=[border("low", "high", height=2)])
    ghost = {"name": "Ghost Step", "move": 2, "movement": "phase"}
    s = tri(ledge, ent("x", "p", "low", ghost, kind="pc"), ent("y", "q", "high"))
    act(s, "x", "play", card="Ghost Step", to="high")
    assert s.state.combatants["x"].position == "high"
    short = {"name": "Flicker", "move": 1, "movement": "phase"}
    s = tri(ledge, ent("x", "p", "low", short, kind="pc"), ent("y", "q", "high"))
    with pytest.raises(Refused, match="Phase 1 can't cross a height of 2"):
        act(s, "x", "play", card="Flicker", to="high")


def test_the_turns_move_down_a_drop_of_1_falls_1d4():
    # "the entity suffers 1d4 damage per height"
    step = board(section("top"), section("bottom"), borders=[border("top", "bottom", height=-1)])
    s = tri(step, ent("x", "p", "top", kind="pc"), ent("y", "q", "bottom"))
    events = act(s, "x", "move", faces=(3,), to="bottom")
    assert rolls(events) == [("1d4", (3,))] and DamageApplied(target="x", amount=3, kind="fall") in events
    assert not of(events, ClimbChanged) and not of(events, BlockLowered)  # not climbing, holding no Block


def test_a_failed_first_climb_climbs_nothing_and_leaves_no_climb_begun():
    # "Each successful roll results in traversing Height 1"; a failure, none
    ledge = board(section("low"), section("high"), borders=[border("low", "high", height=2)])
    s = tri(ledge, ent("x", "p", "low", kind="pc"), ent("y", "q", "high"))
    events = act(s, "x", "climb", faces=(2, 5), to="high")
    assert told(events) == ["fails to climb toward high (2 against 5)"]
    assert not of(events, ClimbChanged) and "x" not in s.state.extra.climbing


def test_climbing_goes_up_a_rise_and_not_along_the_flat():
    flat = board(section("a"), section("b"), section("high"), borders=[border("a", "b"), border("a", "high", height=1)])
    s = tri(flat, ent("x", "p", "a", kind="pc"), ent("y", "q", "b"))
    with pytest.raises(Refused, match="b isn't higher than a: move there"):
        act(s, "x", "climb", to="b")
    events = act(s, "x", "climb", faces=(4, 4), to="high")  # a tie climbs the height of 1: up
    assert told(events) == ["climbs up to high (4 against 4)"] and s.state.combatants["x"].position == "high"


def test_a_climber_climbs_on_toward_one_section_only():
    m = board(
        section("low"),
        section("high"),
        section("ridge"),
        borders=[border("low", "high", height=2), border("low", "ridge", height=2)],
    )
    s = tri(m, ent("x", "p", "low", kind="pc"), ent("y", "q", "high"))
    act(s, "x", "climb", faces=(4, 4), to="high")
    forced(s, "end_turn", actor="x")
    forced(s, "end_turn", actor="y")
    with pytest.raises(Refused, match="already climbing toward high"):
        act(s, "x", "climb", to="ridge")


def _may_move(s, cid: str, to: str) -> bool:
    """True when `cid`'s move to `to` passes its check now (the way is found, and kept)."""
    actor = s.state.combatants[cid]
    return s.rules.action(s.state, actor, "move").check(s.state, actor, (), {"to": to}) is None


def test_a_way_found_before_a_block_was_raised_is_not_taken_through_it():
    # the ways found on a map are kept; a Block raised since is still in the way
    m = board(section("a"), section("b"), section("c"), borders=[border("a", "b"), border("a", "c")])
    s = tri(m, ent("y", "q", "a"), ent("z", "q", "a"), ent("x", "p", "a", kind="pc"))
    act(s, "y", "block", toward="c")
    forced(s, "end_turn", actor="y")
    move_b = Command(kind="act", actor="x", action="move", params={"to": "b"})
    assert _may_move(s, "x", "b")
    act(s, "z", "block", toward="b")
    forced(s, "end_turn", actor="z")
    with pytest.raises(Refused, match="Z blocks the border from a to b"):
        s.execute(move_b)
    ward = {"name": "Ward", "phase": "strategy", "block": 2}
    s = tri(m, ent("y", "q", "b", ward), ent("z", "q", "b", ward), ent("x", "p", "a", kind="pc"))
    act(s, "y", "play", card="Ward", a="a", b="c")
    forced(s, "end_turn", actor="y")
    assert _may_move(s, "x", "b")
    act(s, "z", "play", card="Ward", a="a", b="b")
    forced(s, "end_turn", actor="z")
    with pytest.raises(Refused, match=r"Z \(at a distance\) blocks the border from a to b"):
        s.execute(move_b)


def test_a_climb_goes_on_from_the_height_already_climbed_and_a_failure_keeps_it():
    # "Each successful roll results in traversing Height 1 ... Until enough Height is traversed
    # to overcome the border, the entity is climbing"
    ledge = board(section("low"), section("high"), borders=[border("low", "high", height=2)])
    s = tri(ledge, ent("x", "p", "low", kind="pc"), ent("y", "q", "high"))
    assert told(act(s, "x", "climb", faces=(4, 4), to="high")) == ["climbs 1 of 2 toward high (4 against 4)"]
    forced(s, "end_turn", actor="x")
    forced(s, "end_turn", actor="y")
    events = act(s, "x", "climb", faces=(2, 5), to="high")
    assert told(events) == ["makes no headway toward high (2 against 5); climbing, 1 of 2"]
    assert s.state.extra.climbing["x"].done == 1
    forced(s, "end_turn", actor="x")
    forced(s, "end_turn", actor="y")
    events = act(s, "x", "climb", faces=(6, 1), to="high")
    assert told(events) == ["climbs up to high (6 against 1)"]
    assert of(events, Moved) == [Moved(combatant="x", to="high", distance=1)]  # over one border
    assert s.state.combatants["x"].position == "high" and "x" not in s.state.extra.climbing


def test_a_long_move_through_water_pays_one_section_more_for_it_and_no_more():
    wet = board(
        section("a"),
        section("w", water=True),
        section("c"),
        section("d"),
        borders=[border("a", "w"), border("w", "c"), border("c", "d")],
    )
    run = {"name": "Run", "move": 3}
    s = tri(wet, ent("x", "p", "a", run, kind="pc"), ent("y", "q", "d"))
    act(s, "x", "play", card="Run", to="c")  # w costs 2, c 1: 3
    assert s.state.combatants["x"].position == "c"


@pytest.mark.parametrize(
    ("senses", "seen"),
    [
        ({"light_sensitive": True}, {"lit": "shadowy", "shadowy": "shadowy", "dark": "dark"}),
        ({"low_light": True}, {"lit": "lit", "shadowy": "lit", "dark": "dark"}),
        ({"light_sensitive": True, "low_light": True}, {"lit": "shadowy", "shadowy": "lit", "dark": "dark"}),
        ({"darkvision": True, "light_sensitive": True}, {"lit": "lit", "shadowy": "lit", "dark": "lit"}),
    ],
)
def test_each_sense_alone_and_together_sees_the_light_as_the_text_says(senses, seen):
    # "An entity with Low-light Vision treats shadowy sections as though they were lit ... An
    # entity with Light Sensitivity ... treats lit sections as though they were shadowy ... an
    # entity with Low-light Vision and Light Sensitivity would simply reverse the lit and shadowy"
    from combatlog.engine.rules.triptycho.model import Stats
    from combatlog.engine.rules.triptycho.sight import seen_as

    stats = Stats(hp=1, section="a", deck=[], **senses)
    assert {light: seen_as(stats, light) for light in seen} == seen


def test_a_dry_move_cut_short_by_a_rise_is_not_blamed_on_water():
    # c is 2 soft borders from a, but the rise a|b stops a plain Move: no water on the way
    m = board(section("a"), section("b"), section("c"), borders=[border("a", "b", height=2), border("b", "c")])
    dash = {"name": "Dash", "move": 2}
    s = tri(m, ent("x", "p", "a", dash, kind="pc"), ent("y", "q", "c"))
    with pytest.raises(Refused, match="^.*c is beyond a Move 2 from a$"):
        act(s, "x", "play", card="Dash", to="c")


# --- after the mutation run of 27 November ----------------------------------------------------


def test_two_cards_dealt_and_one_drawn_leave_the_rest_of_a_deck_of_four_in_the_pile():
    # docs: "starting_hand = 2"; the first turn draws one more: of A, B, C, D one stays in the pile
    s = encounter(
        "triptycho", holder("x", "p", "a", "A", "B", "C", "D", kind="pc"), ent("y", "q", "c"), map=HALL, order="listed"
    )
    forced(s, "begin", (1, 1, 1))
    assert s.state.extra.hands["x"] == ("A", "B", "C") and s.state.extra.piles["x"] == ("D",)


@pytest.mark.parametrize(
    ("die", "levels", "moved"),
    [("d6", -1, "d4"), ("d4", -1, "d4"), ("d4", -2, "d4"), ("d12", 1, "d12"), ("d10", 2, "d12"), ("d20", 1, "d20")],
)
def test_a_die_moves_along_the_ladder_and_never_past_either_end(die, levels, moved):
    # "dice levels reduced by 1": d6 to d4; the ladder d4, d6, d8, d10, d12 has no step below d4
    # or above d12; a die not on it (d20) stays as it is
    from combatlog.engine.rules.triptycho.model import LADDER, step_die

    assert step_die(LADDER, die, levels) == moved


@pytest.mark.parametrize("where", [{"edge": 1}, None])
def test_an_unknown_card_field_or_stat_is_refused(where):
    card = {"name": "Knife", "hit": "d6", "damage": "d4", **(where or {})}
    stats = {} if where else {"mana": 3}
    with pytest.raises(Refused, match=r"edge|mana"):
        encounter("triptycho", fighter("x", "p", kind="pc", hp=10, section="a", deck=[card], **stats), map=HALL)
