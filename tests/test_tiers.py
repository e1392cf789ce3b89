"""Tiers: combatants who share a rank in the initiative order (tied under a `simultaneous` tie
rule, or a group rolling once) act together, and what one of them deals lands only once the
whole tier has acted (docs/architecture.md, "Tiers"), on every system whose order has tiers."""

from __future__ import annotations

import pytest

from combatlog.engine import registry
from combatlog.engine.rules.skirmish import SKIRMISH, Skirmish
from combatlog.engine.timing import make_timing
from combatlog.events import (
    ActionResolved,
    CombatantDefeated,
    DamageApplied,
    EncounterEnded,
    HeldDamageReleased,
    OrderSet,
)
from combatlog.replays.audit import audit
from tests.builders import act, encounter, fighter, forced, of

HIT, LETHAL = 15, 3  # a strike's d20 (15 + 10 beats defense 10) and its 1d6 (3 downs hp 3)


def pair(rules: str = "skirmish", **options: object):
    """Two skirmishers, one a side, who tie at initiative 1 and each down the other with a hit."""
    a = fighter("a", "left", hp=3, attack=10)
    b = fighter("b", "right", hp=3, attack=10)
    s = encounter(rules, a, b, ties="simultaneous", **options)
    forced(s, "begin", (1, 1))
    assert s.state.order == (("a", "b"),) and s.state.acting == ("a", "b")
    return s


# --- skirmish, turn-based: a tier's damage waits for the tier's end ---------------------------


def test_two_skirmishers_tied_under_simultaneous_ties_who_down_each_other_draw():
    s = pair()
    act(s, "a", "strike", "b", faces=(HIT, LETHAL))
    events = act(s, "b", "strike", "a", faces=(HIT, LETHAL))
    assert not any(e.outcome.startswith("lost") for e in of(events, ActionResolved))
    assert {e.combatant for e in of(events, CombatantDefeated)} == {"a", "b"}
    assert of(events, EncounterEnded) == [EncounterEnded(outcome="draw", winner=None)]


def test_the_first_of_a_tier_to_strike_leaves_the_other_standing_until_the_tier_has_acted():
    s = pair()
    events = act(s, "a", "strike", "b", faces=(HIT, LETHAL))
    assert [(e.target, e.amount, e.held) for e in of(events, DamageApplied)] == [("b", 3, True)]
    b = s.state.combatants["b"]
    assert b.active and b.damage == 0 and s.state.acting == ("b",)


def test_the_tier_s_damage_counts_together_once_its_last_member_ends_its_turn():
    s = pair()
    act(s, "a", "strike", "b", faces=(HIT, LETHAL))
    events = forced(s, "end_turn", actor="b")  # b lets the turn go by: the tier has acted
    assert of(events, HeldDamageReleased) == [HeldDamageReleased()]
    assert [(e.target, e.held) for e in of(events, DamageApplied)] == [("b", False)]
    assert s.state.outcome == "victory" and s.state.held == ()


def test_a_skirmisher_alone_in_its_tier_deals_its_damage_at_once():
    a = fighter("a", "left", hp=3, attack=10)
    b = fighter("b", "right", hp=3, attack=10)
    s = encounter("skirmish", a, b, ties="simultaneous")
    forced(s, "begin", (2, 1))
    assert s.state.order == (("a",), ("b",))
    events = act(s, "a", "strike", "b", faces=(HIT, LETHAL))
    assert [(e.target, e.held) for e in of(events, DamageApplied)] == [("b", False)]
    assert s.state.outcome == "victory"


def test_a_tier_whose_other_member_cannot_act_deals_its_damage_at_once():
    a = fighter("a", "left", hp=3, attack=10)
    b = fighter("b", "left", hp=3, attack=10)
    c = fighter("c", "right", hp=3, attack=10)
    s = encounter("skirmish", a, b, c, ties="simultaneous")
    forced(s, "begin", (1, 1, 5))
    assert s.state.order == (("c",), ("a", "b"))
    act(s, "c", "strike", "b", faces=(HIT, LETHAL))  # b is down before its tier's turn
    assert s.state.acting == ("a",)
    events = act(s, "a", "strike", "c", faces=(HIT, LETHAL))
    assert [(e.target, e.held) for e in of(events, DamageApplied)] == [("c", False)]


def test_a_group_rolling_once_is_a_tier_and_holds_its_damage_until_its_turn_ends():
    a = fighter("a", "left", kind="pc", hp=3, attack=10)
    g1 = fighter("g1", "right", group="goblins", hp=3, attack=10)
    g2 = fighter("g2", "right", group="goblins", hp=3, attack=10)
    s = encounter("skirmish", a, g1, g2, group_initiative=True)
    forced(s, "begin", (1, 9))  # a 1; the goblins 9, one roll for both
    assert s.state.order == (("g1", "g2"), ("a",))
    act(s, "g1", "strike", "a", faces=(HIT, LETHAL))
    assert s.state.combatants["a"].active  # still standing: g2 may still choose it
    events = act(s, "g2", "strike", "a", faces=(HIT, 1))
    assert [(e.target, e.amount, e.held) for e in of(events, DamageApplied)] == [
        ("a", 1, True),
        ("a", 3, False),
        ("a", 1, False),
    ]
    assert s.state.outcome == "victory"


def test_a_log_of_skirmish_2_still_lands_a_tier_s_damage_at_once_and_audits_so(monkeypatch):
    monkeypatch.setattr(type(SKIRMISH), "version", "2")  # the log is played by version 2 ...
    s = pair()
    assert s.state.rules_version == "2"
    events = act(s, "a", "strike", "b", faces=(HIT, LETHAL))
    assert [(e.target, e.held) for e in of(events, DamageApplied)] == [("b", False)]
    assert of(events, EncounterEnded) == [EncounterEnded(outcome="victory", winner="left")]
    monkeypatch.undo()
    assert audit(s.log, workers=1).clean  # ... and audited by version 3, which re-decides it as 2 did


# --- skirmish, simultaneous and mixed: held to the round's end, tiers or not ----------------


@pytest.mark.parametrize("timing", ["simultaneous", "mixed"])
def test_tied_skirmishers_resolving_later_down_each_other_and_draw(timing):
    s = pair(timing=timing)
    act(s, "a", "strike", "b")
    events = act(s, "b", "strike", "a", faces=(HIT, LETHAL, HIT, LETHAL))
    assert {e.combatant for e in of(events, CombatantDefeated)} == {"a", "b"}
    assert s.state.outcome == "draw"


# --- the core: a timing holding damage until a tier ends, under the ranked order -------------


class TierHeld(Skirmish):
    """Skirmish resolving every action after the declarations, tier by tier, each tier's damage
    counting once the tier has resolved (`hold_until="tier"`), as a third party's system may."""

    name = "tier-held"
    version = "1"
    tiers_since = 1

    def timing(self, options):
        return make_timing("simultaneous", hold_until="tier")


class TierHeldBefore(TierHeld):
    """The same, written before its tiers acted together (no `tiers_since`)."""

    name = "tier-held-before"
    tiers_since = None


@pytest.fixture
def tier_held(monkeypatch):
    for system in (TierHeld(), TierHeldBefore()):
        monkeypatch.setitem(registry._systems, system.name, system)


def trio(rules: str):
    """a and b tie at 5 and strike each other down; c, at 1, on a's side, strikes at b after them."""
    a = fighter("a", "left", hp=3, attack=10)
    b = fighter("b", "right", hp=3, attack=10)
    c = fighter("c", "left", hp=3, attack=10)
    s = encounter(rules, a, b, c, ties="simultaneous")
    events = forced(s, "begin", (5, 5, 1))
    assert of(events, OrderSet)[-1].tiers == (("a", "b"), ("c",))
    act(s, "a", "strike", "b")
    act(s, "b", "strike", "a")
    return s


def test_a_tier_resolved_after_the_declarations_holds_its_damage_until_the_tier_ends(tier_held):
    s = trio("tier-held")
    events = act(s, "c", "strike", "b", faces=(HIT, LETHAL, HIT, LETHAL))
    resolved = [e.outcome for e in of(events, ActionResolved)]
    # a and b, one tier, both strike; their damage counts before c, the next tier, resolves
    assert resolved == ["hit (25 against 10) for 3", "hit (25 against 10) for 3", "B is already down"]
    assert len(of(events, HeldDamageReleased)) == 1
    assert {e.combatant for e in of(events, CombatantDefeated)} == {"a", "b"}
    assert s.state.outcome == "victory" and s.state.winner == "left"


def test_before_its_tiers_acted_together_each_combatant_was_a_tier_of_its_own(tier_held):
    s = trio("tier-held-before")
    events = act(s, "c", "strike", "b", faces=(HIT, LETHAL))
    resolved = [e.outcome for e in of(events, ActionResolved)]
    assert resolved == ["hit (25 against 10) for 3", "lost: B is down", "B is already down"]
    assert {e.combatant for e in of(events, CombatantDefeated)} == {"b"}


# --- Starflight: a group of like NPCs rolls once and acts simultaneously ----------------------

BLASTER = {"name": "blaster", "attack": 1, "damage": "2d6", "range": 12}
STARFLIGHT = {"hp": 10, "initiative": 0, "hd": 10, "strength": 2, "weapons": [BLASTER]}


def patrol(**options: object):
    """Ayla (initiative 2) against two Thrynn rolling once as a group (11): the group acts first."""
    s = encounter(
        "starflight",
        fighter("a", "party", kind="pc", name="Ayla", defaults=STARFLIGHT),
        fighter("t1", "patrol", group="thrynn", defaults=STARFLIGHT, initiative=3),
        fighter("t2", "patrol", group="thrynn", defaults=STARFLIGHT, initiative=3),
        group_initiative=True,
        **options,
    )
    forced(s, "begin", (0, 1, 4, 4, 1, 1, 1, 1, 1, 1))  # a 0+1+1, the group 4+4+3; the ranges
    assert s.state.order == (("t1", "t2"), ("a",))
    return s


def shoot(s, actor: str, target: str, faces=(9, 9, 6, 6)):  # 9+9+1 = 19 against HD 10; 6+6 = 12
    return forced(s, "act", faces, actor=actor, action="shoot", targets=(target,), params={"weapon": "blaster"})


def test_a_starflight_group_s_shots_count_once_the_whole_group_has_acted():
    s = patrol()
    events = shoot(s, "t1", "a")
    assert [(e.target, e.amount, e.held) for e in of(events, DamageApplied)] == [("a", 12, True)]
    assert s.state.combatants["a"].active  # t2 still sees Ayla standing
    forced(s, "end_turn", actor="t1")
    events = forced(s, "end_turn", actor="t2")
    assert [(e.target, e.amount, e.held) for e in of(events, DamageApplied)] == [("a", 12, False)]
    assert not s.state.combatants["a"].active


def test_a_log_of_starflight_1_still_lands_a_group_member_s_shot_at_once(monkeypatch):
    from combatlog.engine import get_rules

    monkeypatch.setattr(type(get_rules("starflight")), "version", "1")
    s = patrol()
    events = shoot(s, "t1", "a")
    assert [(e.target, e.held) for e in of(events, DamageApplied)] == [("a", False)]
    assert not s.state.combatants["a"].active
    monkeypatch.undo()
    assert audit(s.log, workers=1).clean


def test_under_simultaneous_timing_a_starflight_group_s_shots_wait_for_the_round_s_end():
    s = patrol(timing="simultaneous")
    shoot(s, "t1", "a", faces=())
    forced(s, "end_turn", actor="t1")
    forced(s, "end_turn", actor="t2")
    events = forced(s, "end_turn", (9, 9, 6, 6), actor="a")
    assert [(e.target, e.held) for e in of(events, DamageApplied)] == [("a", True), ("a", False)]
    assert not of(events, HeldDamageReleased)  # the round's end counts it, not a tier's
