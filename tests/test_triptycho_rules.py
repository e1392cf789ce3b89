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
from combatlog.events import ActionResolved, CombatantDefeated, DamageApplied, GmRuling, InitiativeRolled, OrderSet
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
