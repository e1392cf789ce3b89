"""Triptycho, chapter 4, worked by hand from the text and checked through the Python API.

Every roll is typed in (no seed), in the order the engine asks, so the numbers below are the
ones worked on paper. The decks are dealt whole before the first turn (`starting_hand` = the
deck's size), so the draws are the only rolls besides the attacks: a pile of K cards is a 1dK.
"""

from __future__ import annotations

from typing import Any

import pytest

from combatlog.engine import Refused, Session
from combatlog.replays import open_log

LIT = "lit"


def encounter(sections: list[tuple[str, str]], borders: list[tuple[str, str]], *people: dict[str, Any]) -> Session:
    """A listed-order encounter on a map of soft borders; each deck dealt whole (draw 1 each time)."""
    s = Session(open_log("memory:"))
    size = max(len(p["stats"]["deck"]) for p in people)
    s.do(
        "create",
        rules="triptycho",
        options={
            "order": "listed",
            "starting_hand": size,
            "map": {
                "sections": [{"id": i, "light": light} for i, light in sections],
                "borders": [{"a": a, "b": b} for a, b in borders],
            },
        },
    )
    for p in people:
        s.do("add", **p)
    draws = tuple((1,) for p in people for _ in range(len(p["stats"]["deck"]) - 1))
    s.do("begin", entered=draws)
    return s


def who(pid: str, side: str, section: str, deck: list[dict[str, Any]], miss: str = "d6", hp: int = 10) -> dict:
    return {
        "id": pid,
        "name": pid.title(),
        "side": side,
        "stats": {"hp": hp, "section": section, "miss": miss, "deck": deck},
    }


def outcomes(envelopes) -> list[str]:
    return [e.event.outcome for e in envelopes if type(e.event).__name__ == "ActionResolved"]


def rolled(envelopes) -> list[tuple[str, tuple[int, ...]]]:
    return [(e.event.expression, e.event.faces) for e in envelopes if type(e.event).__name__ == "DiceRolled"]


# --- Incantation and Range -------------------------------------------------------------

LANCE = {"name": "Lance", "range": 2, "incantation": 1, "hit": "d8", "damage": "d6"}
STORM = {"name": "Storm", "range": 2, "incantation": 2, "hit": "d8", "damage": "d6"}
DAGGER = {"name": "Dagger", "hit": "d6", "damage": "d4"}
FIREBOLT = {"name": "Firebolt", "range": 3, "hit": "d8", "damage": "d6"}
BITE = {"name": "Bite", "hit": "d8", "damage": "d6"}


def incanter(spell: dict[str, Any], hound_at: str) -> Session:
    """Oren (party) in section a with a Range incantation card; the hound (cult) in `hound_at`."""
    return encounter(
        [("a", LIT), ("b", LIT)],
        [("a", "b")],
        who("oren", "party", "a", [spell, DAGGER, FIREBOLT]) | {"kind": "pc"},
        who("hound", "cult", hound_at, [BITE], hp=9),
    )


def test_an_enemy_arriving_after_the_incantation_began_does_not_stop_the_range_card():
    """The text: "If the Action has an Incantation entry along with a Range entry, only check for enemies
    in the occupied section when beginning the incantation; the Action is not canceled if an
    enemy then enters the occupied section later, and it can still fire normally at the start
    of the incanting entity's finishing turn regardless of the presence of enemies."

    Oren begins incanting alone in a (hound in b). The hound moves into a. Round 2: Oren gains
    1 charge, enough for Lance (Incantation 1, Range 2); the hound stands beside him, yet Lance
    fires: Hit d8 = 6 against the hound's Miss d6 = 4, a hit; Damage d6 = 5: hound 9 -> 4.
    A plain Range card (Firebolt) is still refused with the hound alongside. Playing Lance on the
    charges spends them all, and "does not cost your Action Phase": Oren then plays Dagger too
    (d6 = 5 against d6 = 2, d4 = 3: hound 4 -> 1).
    """
    s = incanter(LANCE, hound_at="b")
    assert outcomes(s.do("act", actor="oren", action="incant", card="Lance")) == ["begins incanting"]
    s.do("end_turn", actor="oren", discard="Dagger")
    s.do("act", actor="hound", action="move", to="a")
    s.do("end_turn", actor="hound")
    assert s.state.round == 2 and s.state.acting == ("oren",)
    assert s.state.combatants["hound"].position == "a"

    with pytest.raises(Refused, match="enemy in the section"):
        s.do("act", actor="oren", action="play", targets=("hound",), card="Firebolt", entered=((8,), (1,), (6,)))

    lance = s.do("act", actor="oren", action="play", targets=("hound",), card="Lance", entered=((6,), (4,), (5,)))
    assert rolled(lance) == [("1d8", (6,)), ("1d6", (4,)), ("1d6", (5,))]
    assert s.state.combatants["hound"].damage == 5

    dagger = s.do("act", actor="oren", action="play", targets=("hound",), card="Dagger", entered=((5,), (2,), (3,)))
    assert rolled(dagger) == [("1d6", (5,)), ("1d6", (2,)), ("1d4", (3,))]
    assert s.state.combatants["hound"].damage == 8


def test_an_enemy_alongside_when_the_incantation_begins_bars_the_range_card():
    """The text: "Unless otherwise specified, Actions with a Range entry cannot be made if there are any
    enemies in your occupied section. [...] only check for enemies in the occupied section when
    beginning the incantation".

    The hound stands in a with Oren as he begins incanting. Naming Lance, the beginning is
    refused. Beginning without naming it, the check is made then: when the hound has left (to b,
    distance 1, within Lance's Range 2) and the charge has come, Lance still may not fire on it.
    """
    s = incanter(LANCE, hound_at="a")
    with pytest.raises(Refused, match="enemy in the section"):
        s.do("act", actor="oren", action="incant", card="Lance")
    s.do("act", actor="oren", action="incant")
    s.do("end_turn", actor="oren", discard="Dagger")
    s.do("act", actor="hound", action="move", to="b")
    s.do("end_turn", actor="hound")
    assert s.state.round == 2 and s.state.combatants["hound"].position == "b"
    with pytest.raises(Refused, match="began incanting with an enemy in the section"):
        s.do("act", actor="oren", action="play", targets=("hound",), card="Lance", entered=((6,), (4,), (5,)))
    assert s.state.combatants["hound"].damage == 0


def test_a_two_charge_range_incantation_fires_though_an_enemy_came_in_during_it():
    """The text: "the Action is not canceled if an enemy then enters the occupied section later, and it
    can still fire normally at the start of the incanting entity's finishing turn regardless of
    the presence of enemies." With "The charge is maintained as long as you begin incanting once
    again before the end of your turn."

    Storm is Incantation 2, Range 2. Round 1: Oren begins incanting alone in a. The hound moves
    in. Round 2: 1 charge; Oren incants again to keep it (the only way to reach 2 charges).
    Round 3, his finishing turn: 2 charges, Storm fires at the hound beside him: Hit d8 = 6
    against Miss d6 = 4, Damage d6 = 5: hound 9 -> 4.
    """
    s = incanter(STORM, hound_at="b")
    s.do("act", actor="oren", action="incant", card="Storm")
    s.do("end_turn", actor="oren", discard="Dagger")
    s.do("act", actor="hound", action="move", to="a")
    s.do("end_turn", actor="hound")
    s.do("act", actor="oren", action="incant")
    s.do("end_turn", actor="oren", discard="Dagger")
    s.do("end_turn", actor="hound")
    assert s.state.round == 3 and s.state.acting == ("oren",)
    storm = s.do("act", actor="oren", action="play", targets=("hound",), card="Storm", entered=((6,), (4,), (5,)))
    assert rolled(storm) == [("1d8", (6,)), ("1d6", (4,)), ("1d6", (5,))]
    assert s.state.combatants["hound"].damage == 5


# --- A large entity across sections of different light ---------------------------------

VOLLEY = {"name": "Volley", "range": 1, "area": "enemies", "hit": "d8", "damage": "d6"}
SWORD = {"name": "Sword", "hit": "d8", "damage": "d8"}
CLUB = {"name": "Club", "hit": "d8", "damage": "d8"}


def ogre_fight(ogre_at: str, ash_at: str) -> Session:
    """A lit yard, a lit hall and a dark crypt, each a soft border from the others; the ogre
    (Miss d8) across two of them; Ash (Hit d8 cards) in `ash_at`."""
    return encounter(
        [("yard", LIT), ("hall", LIT), ("crypt", "dark")],
        [("yard", "hall"), ("yard", "crypt"), ("hall", "crypt")],
        who("ash", "party", ash_at, [VOLLEY, SWORD, DAGGER]) | {"kind": "pc"},
        who("ogre", "brutes", ogre_at, [CLUB], miss="d8", hp=30),
    )


@pytest.mark.parametrize("ogre_at", ["hall+crypt", "crypt+hall"])
@pytest.mark.parametrize(("section", "hit_die"), [("crypt", "1d6"), ("hall", "1d8")])
def test_an_area_attack_reads_a_large_entitys_light_in_the_section_it_strikes(ogre_at, section, hit_die):
    """The text: "If an entity occupies multiple sections with different illumination, only consider the
    section in which the attack occurs." and "If an entity attacks another entity that it cannot
    see, then it is considered to be Debilitated for the attack" (Debilitated: the Hit penalty).

    Ash in the lit yard plays Volley (Range 1, area, enemies) on one of the ogre's sections.
    On the dark crypt Ash can't see the ogre: Hit d8 one level down to d6. On the lit hall he
    sees it: d8. The ogre sees Ash in the lit yard either way: its Miss stays d8. Hit 5 against
    Miss 3: a hit; Damage d6 = 4. The order the ogre's sections are listed in doesn't matter.
    """
    s = ogre_fight(ogre_at, "yard")
    volley = s.do("act", actor="ash", action="play", card="Volley", section=section, entered=((5,), (3,), (4,)))
    assert rolled(volley) == [(hit_die, (5,)), ("1d8", (3,)), ("1d6", (4,))]
    assert s.state.combatants["ogre"].damage == 4


@pytest.mark.parametrize("ogre_at", ["hall+crypt", "crypt+hall"])
def test_a_melee_attack_reaches_a_large_entity_in_the_attackers_section(ogre_at):
    """The text: "Particularly large entities may, at the DM's discretion, occupy multiple sections at a
    time." "An Action without a Range or Thrown entry is considered to be melee. Such Actions can
    only target entities in your occupied section." "only consider the section in which the
    attack occurs."

    The ogre is across the dark crypt and the lit hall; Ash stands in the hall and swings his
    Sword (melee) at it: the ogre is in his section, and the attack occurs in the lit hall, so
    neither is unseen: Hit d8 = 5 against Miss d8 = 3, a hit; Damage d8 = 4: ogre 30 -> 26.
    """
    s = ogre_fight(ogre_at, "hall")
    sword = s.do("act", actor="ash", action="play", targets=("ogre",), card="Sword", entered=((5,), (3,), (4,)))
    assert rolled(sword) == [("1d8", (5,)), ("1d8", (3,)), ("1d8", (4,))]
    assert s.state.combatants["ogre"].damage == 4


# --- Blocks and Immobilized / Defenseless ----------------------------------------------

WARD = {"name": "Ward", "phase": "strategy", "block": 2}


def blocked_hall(guard_deck: list[dict[str, Any]], guard_at: str = "hall") -> Session:
    """keep - hall - yard; the guard (cult, first in the order) and Vela (party) in the hall."""
    return encounter(
        [("keep", LIT), ("hall", LIT), ("yard", LIT)],
        [("keep", "hall"), ("hall", "yard")],
        who("guard", "cult", guard_at, guard_deck),
        who("vela", "party", "hall", [SWORD]) | {"kind": "pc"},
    )


def test_a_block_stops_an_enemy_leaving_across_it():
    """The text: "An entity can choose to prevent enemy passage across any one section border between the
    occupied section and a single adjacent section [...] This blocking only works for leaving
    the section".

    The guard blocks hall -> yard; Vela, in the hall, can't Move to the yard, but can Move to
    the keep across the other border.
    """
    s = blocked_hall([CLUB])
    s.do("act", actor="guard", action="block", toward="yard")
    s.do("end_turn", actor="guard")
    with pytest.raises(Refused, match="blocks the border from hall to yard"):
        s.do("act", actor="vela", action="move", to="yard")
    s.do("act", actor="vela", action="move", to="keep")
    assert s.state.combatants["vela"].position == "keep"


@pytest.mark.parametrize("condition", ["immobilized", "defenseless"])
def test_a_block_is_lowered_as_its_blocker_becomes_immobilized_or_defenseless(condition):
    """The text: "Additionally, Blocks are automatically lowered if an entity becomes Immobilized or
    Defenseless."

    The guard blocks hall -> yard; the game master puts the condition on the guard; Vela then
    Moves from the hall to the yard, in the same round.
    """
    s = blocked_hall([CLUB])
    s.do("act", actor="guard", action="block", toward="yard")
    s.do("end_turn", actor="guard")
    lowered = s.do("override", reason="netted", condition={"target": "guard", "name": condition})
    assert any(type(e.event).__name__ == "BlockLowered" for e in lowered)
    s.do("act", actor="vela", action="move", to="yard")
    assert s.state.combatants["vela"].position == "yard"


def test_a_block_lowered_by_a_condition_stays_down_when_the_condition_goes():
    """The text: "Blocks are automatically lowered if an entity becomes Immobilized or Defenseless." and
    "Blocking requires spending the Strategy Phase; the Block will remain so until the entity
    leaves the section or willfully lowers the Block".

    Lowered, the Block is gone: taking the condition off again (before Vela moves, in the same
    round) doesn't raise it, since raising a Block takes a Strategy phase. Vela Moves to the yard.
    """
    s = blocked_hall([CLUB])
    s.do("act", actor="guard", action="block", toward="yard")
    s.do("end_turn", actor="guard")
    s.do("override", reason="netted", condition={"target": "guard", "name": "immobilized"})
    s.do("override", reason="cut free", remove_condition={"target": "guard", "name": "immobilized"})
    assert s.state.combatants["guard"].conditions == ()
    s.do("act", actor="vela", action="move", to="yard")
    assert s.state.combatants["vela"].position == "yard"


@pytest.mark.parametrize("condition", ["immobilized", "defenseless"])
def test_a_block_at_a_distance_holds_through_immobilized_or_defenseless(condition):
    """The text: "Some abilities permit Blocks of section borders at a distance. In these cases the Blocks
    function on both sides of the section border. Such Blocks do not end automatically if the
    blocking entity becomes Immobilized or Defenseless, they do not require the entity to occupy
    the section".

    The guard, in the keep, plays Ward (Block 2) on the hall|yard border; then the condition
    lands on it. Vela, in the hall, still can't Move to the yard.
    """
    s = blocked_hall([WARD], guard_at="keep")
    s.do("act", actor="guard", action="play", card="Ward", a="hall", b="yard")
    s.do("end_turn", actor="guard")
    s.do("override", reason="netted", condition={"target": "guard", "name": condition})
    with pytest.raises(Refused, match="blocks the border from hall to yard"):
        s.do("act", actor="vela", action="move", to="yard")
    assert s.state.combatants["vela"].position == "hall"
