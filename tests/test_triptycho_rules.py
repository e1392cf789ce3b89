"""Triptycho's rules one sentence at a time (Player's Guide chapter 4,
`shared/rules/003_bf33078487e4c07d.txt`; readings in `docs/rules/triptycho.md`).

Each test quotes the sentence it holds the engine to (or the docs' reading, where the text is
silent) and works a number through it with the dice forced: the order of turns, the cards
drawn, played and discarded, the Blocks, the falls and climbs, the dice levels.
"""

from __future__ import annotations

import pytest

from combatlog.engine import Refused
from combatlog.engine.rules.triptycho.events import (
    BlockLowered,
    CardDiscarded,
    CardDrawn,
    ChargesChanged,
    ClimbChanged,
    DeckShuffled,
)
from combatlog.events import ActionResolved, CombatantDefeated, DamageApplied, GmRuling, OrderSet
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


def holder(cid: str, side: str, where: str, *cards: str, kind: str = "npc") -> dict:
    """An entity whose deck is `cards`, each a card that only tells its effect."""
    return fighter(cid, side, kind=kind, hp=10, section=where, deck=[{"name": n, "effect": n.lower()} for n in cards])


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
    assert of(events, GmRuling)[0].text.startswith("X, the terrain: 3 against 5 (a tie succeeds)")


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
