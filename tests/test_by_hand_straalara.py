"""Straalara, "Combat Turns", worked by hand from the text and checked through the Python API.

Every roll is typed in (no seed), in the order the engine asks. Pools are d10s against 6: a
die showing 6 or more is a success; on attack and defense rolls each 1 cancels a success; on
damage and soak rolls 1s don't. The numbers in each docstring are the ones asserted.

Kael: Wits 3, Dexterity 3, Stamina 3, Weaponry 3, Melee 2, Dodge 1, Brawl 1, soak 4.
  Initiative rating 3 + 3 = 6. Pools: parry = Dexterity + Melee = 5, dodge = Dex + Dodge = 4,
  block = Dex + Brawl = 4, soak 4.
The bandit: Wits 2, Dexterity 3, Weaponry 2, an axe of base damage 5: attack pool 3 + 2 = 5,
  rating 5.
"""

from __future__ import annotations

from typing import Any

import pytest

from combatlog.engine import Refused, Session
from combatlog.replays import open_log

KAEL = {
    "wits": 3,
    "dexterity": 3,
    "stamina": 3,
    "weaponry": 3,
    "melee": 2,
    "dodge": 1,
    "brawl": 1,
    "soak": 4,
    "weapons": [{"name": "sword", "kind": "melee", "damage": 4}],
}
BANDIT = {
    "wits": 2,
    "dexterity": 3,
    "stamina": 3,
    "weaponry": 2,
    "soak": 4,
    "weapons": [{"name": "axe", "kind": "melee", "damage": 5}],
}

# The bandit's axe, 5 dice: 8 7 6 3 2, three successes.
AXE = (8, 7, 6, 3, 2)


def fight(kael: dict[str, Any] = KAEL, bandit: dict[str, Any] = BANDIT, rolls=((5,), (8,))) -> Session:
    """Initiative 1d10 each, Kael's first: by default Kael 6 + 5 = 11, the bandit 5 + 8 = 13."""
    s = Session(open_log("memory:"))
    s.do("create", rules="straalara")
    s.do("add", id="kael", name="Kael", side="travellers", kind="pc", stats=kael)
    s.do("add", id="b1", name="Bandit", side="bandits", stats=bandit)
    s.do("begin", entered=rolls)
    return s


def pools(envelopes) -> list[tuple[str, str, int]]:
    """(purpose, expression, successes) of each roll."""
    return [
        (e.event.purpose, e.event.expression, e.event.successes)
        for e in envelopes
        if type(e.event).__name__ == "DiceRolled"
    ]


def bandit_axes_kael(s: Session, *rolls: tuple[int, ...]):
    """Kael has declared (he declares first: lower score); the bandit declares its attack on Kael,
    and the resolution runs, the bandit first (13 before 11)."""
    assert s.state.acting == ("b1",)
    return s.do("act", actor="b1", action="attack", targets=("kael",), entered=(AXE, *rolls))


# --- Stances ----------------------------------------------------------------------------


@pytest.mark.parametrize("defense", ["dodge", "block", "spell"])
def test_offense_can_only_soak_or_parry(defense):
    """The text: "Offense: Character can only Soak or Parry, not Dodge."

    Declaring the Offense stance with a dodge, a block (bare hands: "A parry is a block using a
    melee weapon or shield", not the other way round) or a spell defense is refused; with a
    parry, or none (soak alone), it is taken.
    """
    s = fight()
    with pytest.raises(Refused, match="Offense stance can only soak or parry"):
        s.do("act", actor="kael", action="defend", stance="offense", defense=defense)
    s.do("act", actor="kael", action="defend", stance="offense", defense="parry")
    assert s.state.acting == ("b1",)


def test_offense_parries_with_its_own_pool_and_soaks_without_bonus():
    """The text: "Offense: Character can only Soak or Parry" and "Parrying (Dexterity + Melee)".

    Kael in Offense parries the bandit's axe. Axe 8 7 6 3 2: 3 successes. Parry 3 + 2 = 5 dice,
    6 2 2 2 2: 1 success. Net 2: damage 5 + (2 - 1) = 6 dice, 6 6 2 2 2 2: 2 successes. Soak 4
    dice (no bonus outside Defense), 2 2 2 2: 0. Kael loses 2 health levels.
    """
    s = fight()
    s.do("act", actor="kael", action="defend", stance="offense", defense="parry")
    envs = bandit_axes_kael(s, (6, 2, 2, 2, 2), (6, 6, 2, 2, 2, 2), (2, 2, 2, 2))
    assert pools(envs) == [
        ("axe at kael", "5d10>=6c", 3),
        ("parry against b1", "5d10>=6c", 1),
        ("axe damage to kael", "6d10>=6", 2),
        ("soak against b1", "4d10>=6", 0),
    ]
    assert s.state.combatants["kael"].damage == 2


def test_offense_without_a_named_defense_parries_even_when_a_block_pool_is_bigger():
    """The text: "Offense: Character can only Soak or Parry, not Dodge."

    Kael with Brawl 5 has a block pool of 3 + 5 = 8 and a parry pool of 3 + 2 = 5. In Offense,
    declaring no defense, the only defense left him besides soak is the parry: 5 dice. Axe 3
    successes, parry 6 6 6 2 2: 3, net 0: no damage, no soak roll.
    """
    s = fight(kael=KAEL | {"brawl": 5})
    s.do("act", actor="kael", action="defend", stance="offense")
    envs = bandit_axes_kael(s, (6, 6, 6, 2, 2))
    assert pools(envs) == [("axe at kael", "5d10>=6c", 3), ("parry against b1", "5d10>=6c", 3)]
    assert s.state.combatants["kael"].damage == 0


def test_the_defense_stance_may_not_attack():
    """The text: "Defense: Character may not attack, but gets a +4 dice to add to any Soak, Parry or
    Dodge rolls." An attack declared in the Defense stance is refused."""
    s = fight()
    with pytest.raises(Refused, match="Defense stance may not attack"):
        s.do("act", actor="kael", action="attack", targets=("b1",), stance="defense")
    assert s.state.acting == ("kael",)


def test_the_defense_stance_adds_four_dice_to_parry_and_soak():
    """The text: "Defense: [...] gets a +4 dice to add to any Soak, Parry or Dodge rolls." "Determine the
    attack's base damage and add any net attack successes beyond the first" and "Damage rolls
    cannot Botch! and 1's do not take away successes". "Wound penalties subtract directly from a
    character's initiative rating."

    Axe 8 7 6 3 2: 3 successes. Parry 5 + 4 = 9 dice, 6 7 2 2 3 3 4 4 5: 2. Net 1: damage 5
    dice, 6 6 7 2 1: 3 (the 1 takes nothing away). Soak 4 + 4 = 8 dice, 6 2 2 2 2 2 2 2: 1.
    Kael loses 3 - 1 = 2 levels (Stamina 3: not Dazed). Hurt, -1: next turn his rating is
    6 - 1 = 5, and a d10 of 5 gives 10.
    """
    s = fight()
    s.do("act", actor="kael", action="defend", stance="defense", defense="parry")
    envs = bandit_axes_kael(s, (6, 7, 2, 2, 3, 3, 4, 4, 5), (6, 6, 7, 2, 1), (6, 2, 2, 2, 2, 2, 2, 2), (5,), (8,))
    assert pools(envs)[:4] == [
        ("axe at kael", "5d10>=6c", 3),
        ("parry against b1", "9d10>=6c", 2),
        ("axe damage to kael", "5d10>=6", 3),
        ("soak against b1", "8d10>=6", 1),
    ]
    assert s.state.combatants["kael"].damage == 2
    assert not s.state.combatants["kael"].conditions
    assert s.state.round == 2
    assert s.state.combatants["kael"].initiative == 10


@pytest.mark.parametrize(
    ("defense", "dice", "faces"),
    [("dodge", 4 + 4, (6, 7, 2, 2, 2, 2, 2, 2)), ("block", 4, (6, 7, 2, 2))],
)
def test_the_defense_stance_adds_four_dice_to_a_dodge_not_to_a_bare_handed_block(defense, dice, faces):
    """The text: "+4 dice to add to any Soak, Parry or Dodge rolls"; "Blocking (Dexterity + Brawl): A
    block is an interception of an incoming attack with the defender's bare hands or another
    body-part." A block isn't in the list.

    Dodge: 3 + 1 + 4 = 8 dice; block: 3 + 1 = 4 dice. Either way 2 successes against the axe's
    3: net 1, damage 5 dice 6 6 7 2 1: 3, soak 8 dice (+4) 6 2 2 2 2 2 2 2: 1; 2 levels lost.
    """
    s = fight()
    s.do("act", actor="kael", action="defend", stance="defense", defense=defense)
    envs = bandit_axes_kael(s, faces, (6, 6, 7, 2, 1), (6, 2, 2, 2, 2, 2, 2, 2), (5,), (8,))
    assert pools(envs)[1:4] == [
        (f"{defense} against b1", f"{dice}d10>=6c", 2),
        ("axe damage to kael", "5d10>=6", 3),
        ("soak against b1", "8d10>=6", 1),
    ]
    assert s.state.combatants["kael"].damage == 2


# --- Ties at initiative -----------------------------------------------------------------

DUELLIST = {
    "wits": 3,
    "dexterity": 3,
    "stamina": 1,
    "weaponry": 3,
    "weapons": [{"name": "sword", "kind": "melee", "damage": 7}],
}
# A blow that incapacitates: 6 dice all 10 (6 successes, no defense), damage 7 + 5 = 12 dice
# all 6 (12), soak 1 die (Stamina 1) showing 2 (0): 12 levels, past the 6 of the track.
KILLING_BLOW = ((10,) * 6, (6,) * 12, (2,))


def test_a_simultaneous_tie_who_down_each_other_both_go_down():
    """The text: "If two characters have the same score, the one with the higher basic initiative rating
    goes first. If initiative ratings are also tied, the characters act simultaneously."
    "Characters who reach Incapacitated collapse".

    Both rate 3 + 3 = 6 and roll 5: 11 each, one rating: they act simultaneously. Each lands a
    12-level blow on the other (see KILLING_BLOW); both blows land, both collapse: a draw.
    """
    s = Session(open_log("memory:"))
    s.do("create", rules="straalara")
    s.do("add", id="kael", name="Kael", side="travellers", kind="pc", stats=DUELLIST)
    s.do("add", id="b1", name="Bandit", side="bandits", stats=DUELLIST)
    s.do("begin", entered=((5,), (5,)))
    assert s.state.order == (("kael", "b1"),)
    s.do("act", actor="kael", action="attack", targets=("b1",), defense="none")
    s.do("act", actor="b1", action="attack", targets=("kael",), defense="none", entered=KILLING_BLOW * 2)
    assert s.state.combatants["kael"].defeated == "incapacitated"
    assert s.state.combatants["b1"].defeated == "incapacitated"
    assert (s.state.phase, s.state.outcome, s.state.winner) == ("end", "draw", None)


def test_a_tie_on_score_broken_by_rating_lets_the_faster_strike_first():
    """The text: "If two characters have the same score, the one with the higher basic initiative rating
    goes first." "Those without further actions cannot act".

    Kael rates 6 and rolls 5: 11; the bandit rates 2 + 3 = 5 and rolls 6: 11. Kael goes first;
    his 12-level blow incapacitates the bandit before it acts: Kael wins untouched.
    """
    s = Session(open_log("memory:"))
    s.do("create", rules="straalara")
    s.do("add", id="kael", name="Kael", side="travellers", kind="pc", stats=DUELLIST)
    s.do("add", id="b1", name="Bandit", side="bandits", stats=DUELLIST | {"wits": 2})
    s.do("begin", entered=((5,), (6,)))
    assert s.state.order == (("kael",), ("b1",))
    s.do("act", actor="b1", action="attack", targets=("kael",), defense="none")
    s.do("act", actor="kael", action="attack", targets=("b1",), defense="none", entered=KILLING_BLOW)
    assert s.state.combatants["b1"].defeated == "incapacitated"
    assert s.state.combatants["kael"].damage == 0
    assert (s.state.phase, s.state.outcome, s.state.winner) == ("end", "victory", "travellers")
