"""Swords of Infinity, "Retaliate", worked by hand from the text and checked through the Python API.

Every roll is typed in (no seed), in the order the engine asks. The holder's axe: Dexterity 40
+ skill 15 + weight -5 = hit TN 50; power 75. A d% hit roll of 34 hits (at or under 50, above a
tenth of it: no critical) on damage target 4, the torso (3-6); a power roll of 25 is power 25.
The movers wear no armour and have Vitality 30: 25 damage leaves them unwounded. Positions are
5-ft squares "x,y"; the holder's axe reaches 5 ft, the squares next to it, diagonals included.
"""

from __future__ import annotations

from typing import Any

import pytest

from combatlog.engine import Refused, Session
from combatlog.replays import open_log

HOLDER = {
    "vitality": 40,
    "dexterity": 40,
    "awareness": 35,
    "weapons": [{"name": "axe", "skill": 15, "weight": -5, "power": 75}],
}
MOVER = {
    "vitality": 30,
    "dexterity": 25,
    "awareness": 40,
    "dodge": 30,
    "weapons": [{"name": "spear", "skill": 25, "weight": 0, "power": 65}],
}
HIT_AND_POWER = ((34,), (25,))


def fight(*people: tuple[str, str, dict[str, Any], str]) -> Session:
    """Placed by the game master, then initiative: d% rolls of 50, 30, 20 in the order given
    (every one under its TN, Dexterity + Awareness), so they act in that order."""
    s = Session(open_log("memory:"))
    s.do("create", rules="swords-of-infinity")
    for pid, side, stats, _ in people:
        s.do("add", id=pid, name=pid.title(), side=side, kind="pc", stats=stats)
    for pid, _, _, at in people:
        s.do("override", reason="placed", move={"target": pid, "to": at})
    s.do("begin", entered=((50,), (30,), (20,))[: len(people)])
    assert s.state.order == tuple((p[0],) for p in people)
    return s


def retaliating(*movers: tuple[str, str]) -> Session:
    """The holder at 0,0 takes the Retaliate action and ends its turn; the movers come next."""
    s = fight(("holder", "heroes", HOLDER, "0,0"), *((m, "raiders", MOVER, at) for m, at in movers))
    s.do("act", actor="holder", action="retaliate")
    s.do("end_turn", actor="holder")
    return s


def where(s: Session) -> dict[str, tuple[str | None, int]]:
    return {k: (c.position, c.damage) for k, c in s.state.combatants.items()}


def names(envelopes) -> list[str]:
    return [type(e.event).__name__ for e in envelopes]


def test_an_enemy_coming_within_reach_is_attacked_at_no_action_cost():
    """The text: "Characters that opt to Retaliate forgo an attack on their turn, instead holding it in
    reserve to attack one enemy that comes within the character's melee range."

    The mover walks from 6,0 to 1,0, next to the holder: the fight waits for the holder's
    choice, and nothing else is taken meanwhile. It attacks: hit 34 against TN 50, power 25:
    25 damage to the mover's torso. The mover, whose move ended there, stays at 1,0.
    """
    s = retaliating(("mover", "6,0"))
    offered = s.do("act", actor="mover", action="move", x=1, y=0, defense="none")
    assert "RetaliationOffered" in names(offered)
    with pytest.raises(Refused, match="waits for Holder's choice"):
        s.do("act", actor="mover", action="attack", targets=("holder",))
    s.do("retaliation", actor="holder", choice="attack", entered=HIT_AND_POWER)
    assert where(s) == {"holder": ("0,0", 0), "mover": ("1,0", 25)}
    assert s.state.combatants["mover"].wounds == {"torso": 25}


@pytest.mark.parametrize(
    ("through", "ends_at", "vulnerable"),
    [(True, "-3,1", True), (False, "1,1", False)],
)
def test_an_enemy_passing_by_may_continue_vulnerable_or_stop_in_the_first_square(through, ends_at, vulnerable):
    """The text: "The enemy targeted by the Retaliate action may choose to continue moving after the
    attack, or come to a stop within the first square threatened by the Retaliating character's
    melee range. If the enemy chooses to continue moving, they are Vulnerable."

    The mover walks along y = 1 from 3,1 toward -3,1, past the holder at 0,0. The first square
    the axe threatens is 1,1. The holder attacks there: 25 to the torso. Continuing, the mover
    ends at -3,1, Vulnerable; stopping, it stays at 1,1, not Vulnerable.
    """
    s = retaliating(("mover", "3,1"))
    s.do("act", actor="mover", action="move", x=-3, y=1, defense="none", through=through)
    assert s.state.combatants["mover"].position == "1,1"
    s.do("retaliation", actor="holder", choice="attack", entered=HIT_AND_POWER)
    assert where(s)["mover"] == (ends_at, 25)
    assert any("vulnerable" in c.name for c in s.state.combatants["mover"].conditions) is vulnerable


def test_the_mover_defends_against_the_retaliation():
    """The text: "If the player's attack hits, the opponent gets a chance to defend" and Parthenia's dodge:
    "the defender needs to roll less than or equal to both their opponent's hit roll and their
    own target number."

    The mover (Dexterity 25 + Dodge 30: TN 55) walks past, saying it will dodge and go on. Hit
    34; dodge 13, at or under 34 and 55: dodged, no damage. It goes on to -3,1.
    """
    s = retaliating(("mover", "3,1"))
    s.do("act", actor="mover", action="move", x=-3, y=1, defense="dodge", through=True)
    chosen = s.do("retaliation", actor="holder", choice="attack", entered=((34,), (13,)))
    assert [e.event.expression for e in chosen if type(e.event).__name__ == "DiceRolled"] == ["d%", "d%"]
    assert where(s)["mover"] == ("-3,1", 0)


def test_the_holder_need_not_attack_the_first_enemy_within_range():
    """The text: "The character need not necessarily attack the first enemy within range" and "attack one
    enemy that comes within the character's melee range."

    The first raider walks from 6,0 to 1,0: the holder holds. The second walks from 0,6 to 0,1:
    the holder attacks it, 25 to the torso. The first is untouched at 1,0.
    """
    s = retaliating(("r1", "6,0"), ("r2", "0,6"))
    s.do("act", actor="r1", action="move", x=1, y=0, defense="none")
    s.do("retaliation", actor="holder", choice="hold")
    s.do("end_turn", actor="r1")
    s.do("act", actor="r2", action="move", x=0, y=1, defense="none")
    s.do("retaliation", actor="holder", choice="attack", entered=HIT_AND_POWER)
    assert where(s) == {"holder": ("0,0", 0), "r1": ("1,0", 0), "r2": ("0,1", 25)}


def test_the_retaliate_attacks_one_enemy_only():
    """The text: "holding it in reserve to attack one enemy that comes within the character's melee range."

    The holder attacks the first raider at 1,0 (25 damage). The second then walks to 0,1,
    within reach too: no second attack is offered, and it arrives unharmed.
    """
    s = retaliating(("r1", "6,0"), ("r2", "0,6"))
    s.do("act", actor="r1", action="move", x=1, y=0, defense="none")
    s.do("retaliation", actor="holder", choice="attack", entered=HIT_AND_POWER)
    s.do("end_turn", actor="r1")
    moved = s.do("act", actor="r2", action="move", x=0, y=1, defense="none")
    assert "RetaliationOffered" not in names(moved)
    assert where(s) == {"holder": ("0,0", 0), "r1": ("1,0", 25), "r2": ("0,1", 0)}


def test_an_unused_retaliate_is_wasted_at_the_holders_next_turn():
    """The text: "if they do not use it by the beginning of their next turn, the Retaliate action is
    wasted."

    No enemy comes in round 1. Round 2 begins with the holder's turn; it ends its turn without
    retaliating again. The mover then walks from 6,0 to 1,0 unopposed.
    """
    s = retaliating(("mover", "6,0"))
    s.do("end_turn", actor="mover")
    assert s.state.round == 2 and s.state.acting == ("holder",)
    s.do("end_turn", actor="holder")
    moved = s.do("act", actor="mover", action="move", x=1, y=0, defense="none")
    assert "RetaliationOffered" not in names(moved)
    assert where(s) == {"holder": ("0,0", 0), "mover": ("1,0", 0)}


def test_an_enemy_already_within_range_does_not_come_within_it():
    """The text: "attack one enemy that comes within the character's melee range."

    The mover starts at 1,0, next to the holder, and walks away to 1,5: it never came within
    the range it was already in, and leaves unopposed.
    """
    s = retaliating(("mover", "1,0"))
    moved = s.do("act", actor="mover", action="move", x=1, y=5, defense="none")
    assert "RetaliationOffered" not in names(moved)
    assert where(s) == {"holder": ("0,0", 0), "mover": ("1,5", 0)}
