"""Straalara ("004: Combat Turns"), with the dice forced.

Default fighter: Wits 2 + Dexterity 3 = initiative rating 5; attack with the sword
(melee: Dexterity 3 + Weaponry 3 = 6 dice), parry Dexterity 3 + Melee 2 = 5 dice, dodge
Dexterity 3 + Dodge 2 = 5 dice, soak = Stamina 3 dice; the sword's base damage is 4.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from combatlog.engine import Refused, ScriptedDice
from combatlog.engine.rules.straalara.events import Botched, EffectLanded, EffectScheduled
from combatlog.events import (
    ActionDeclared,
    ActionResolved,
    CombatantDefeated,
    ConditionApplied,
    DamageApplied,
    DiceRolled,
    GmRuling,
    InitiativeRolled,
    OrderSet,
    PassStarted,
    RoundEnded,
)
from combatlog.projections import replay
from combatlog.replays.audit import audit
from combatlog.testing import Fight, fight
from tests.builders import act, encounter, fighter, forced, of

SWORD = {"name": "sword", "kind": "melee", "damage": 4}
KNIFE = {"name": "knife", "kind": "thrown", "damage": 2}
BASE = {
    "wits": 2,
    "dexterity": 3,
    "stamina": 3,
    "weaponry": 3,
    "melee": 2,
    "dodge": 2,
    "brawl": 1,
    "athletics": 2,
    "weapons": [SWORD, KNIFE],
}
NO = (2,)  # a die that is neither a success nor a 1


def f(cid: str, side: str, **stats: object) -> dict:
    return fighter(cid, side, defaults=BASE, **stats)


def st(*fighters: dict, **options: object):
    return encounter("straalara", *fighters, **options)


def begin(s, *faces: int) -> list:
    """Begin with these initiative d10s, one per combatant in the order they were added."""
    return forced(s, "begin", faces)


def attack(s, actor: str, target: str, faces=(), **params):
    return act(s, actor, "attack", target, faces=faces, **params)


def defend(s, actor: str, faces=(), **params):
    return act(s, actor, "defend", faces=faces, **params)


# --- initiative and the order ------------------------------------------------------------


def test_initiative_is_wits_plus_dexterity_plus_a_d10_rolled_every_turn_highest_first():
    four = fight(
        "straalara",
        f("a", "x"),
        f("b", "y"),
        f("c", "x", wits=1),
        f("d", "y", dexterity=1),
        dice={"initiative by a": 7, "initiative by b": 5, "initiative by c": 4, "initiative by d": 2},
    )
    rolled = {e.combatants[0]: (e.value, e.tiebreak) for e in four.events(InitiativeRolled)}
    assert rolled == {"a": (12, (5,)), "b": (10, (5,)), "c": (8, (4,)), "d": (5, (3,))}
    assert four.state.order == (("a",), ("b",), ("c",), ("d",))


def test_a_whole_turn_declares_lowest_first_and_resolves_highest_first():
    s = st(f("a", "x"), f("b", "y"), f("c", "x"), f("d", "y"))
    begin(s, 7, 5, 3, 1)  # a 12, b 10, c 8, d 6
    declared = []
    for _ in range(3):
        declared.append(s.state.acting)
        defend(s, s.state.acting[0])
    declared.append(s.state.acting)
    assert declared == [("d",), ("c",), ("b",), ("a",)]
    # the last declaration ends the declaring: everything resolves, fastest first, then a new turn
    events = defend(s, "a", faces=(5, 5, 5, 5))
    actor_of = {e.id: e.actor for e in of(_all(s), ActionDeclared)}
    assert [actor_of[e.id] for e in of(events, ActionResolved)] == ["a", "b", "c", "d"]
    assert s.state.round == 2


def test_a_tie_on_score_goes_to_the_higher_rating_first():
    s = st(f("a", "x", wits=3), f("b", "y"))
    begin(s, 4, 5)  # a: rating 6 + 4 = 10; b: rating 5 + 5 = 10
    assert s.state.order == (("a",), ("b",))


def _wounded_pair():
    """a: rating 2 with a -5 wound (rating -3); b: rating 2 with a -3 wound (rating -1)."""
    track = [{"name": "Hurt", "penalty": -3}, {"name": "Crippled", "penalty": -5}]
    s = st(f("a", "x", wits=1, dexterity=1), f("b", "y", wits=1, dexterity=1), health_levels=track)
    begin(s, 9, 2)
    forced(s, "override", params={"reason": "wounded", "damage": {"target": "a", "amount": 2}})
    forced(s, "override", params={"reason": "wounded", "damage": {"target": "b", "amount": 1}})
    defend(s, "b", stance="partial", defense="none")
    return s


def _next_turn(s, a_face: int, b_face: int) -> list:
    """a declares last; the turn resolves and the next one's initiative rolls (a, then b)."""
    return defend(s, "a", stance="partial", defense="none", faces=(a_face, b_face))


def test_a_wound_penalty_larger_than_the_rating_takes_it_below_zero():
    # "penalties subtract directly": a's rating is 2 - 5 = -3, b's 2 - 3 = -1; both score 2,
    # and the tie goes to the higher rating (b), not to one simultaneous tier at 0
    s = _wounded_pair()
    events = _next_turn(s, 5, 3)
    rolled = {e.combatants[0]: (e.value, e.tiebreak) for e in of(events, InitiativeRolled)}
    assert rolled == {"a": (2, (-3,)), "b": (2, (-1,))}
    assert s.state.order == (("b",), ("a",))


def test_a_log_of_version_1_still_stops_the_rating_at_zero(monkeypatch):
    from combatlog.engine.rules.straalara import STRAALARA as straalara

    monkeypatch.setattr(type(straalara), "version", "1")  # the log is played by version 1 ...
    s = _wounded_pair()
    assert s.state.rules_version == "1"
    events = _next_turn(s, 5, 3)
    rolled = {e.combatants[0]: (e.value, e.tiebreak) for e in of(events, InitiativeRolled)}
    assert rolled == {"a": (5, (0,)), "b": (3, (0,))}
    monkeypatch.undo()
    assert audit(s.log, workers=1).clean  # ... and audited by version 2, which re-decides it as 1 did


def test_a_tie_on_score_and_rating_acts_simultaneously_and_both_take_their_damage():
    track = [{"name": "Hurt", "penalty": -1}, {"name": "Crippled", "penalty": -5}]
    s = st(f("a", "x"), f("b", "y"), health_levels=track)
    begin(s, 5, 5)
    assert s.state.order == (("a", "b"),)
    assert s.state.acting == ("a", "b")
    attack(s, "a", "b", defense="none")
    hit = (8, 8, 8, 2, 2, 2)  # 3 successes
    damage = (7, 7, 7, 2, 2, 2)  # 4 + 2 dice: 3 successes
    soak = (2, 2, 2)
    events = attack(s, "b", "a", defense="none", faces=hit + damage + soak + hit + damage + soak)
    outcomes = [e.outcome for e in of(events, ActionResolved)]
    assert len(outcomes) == 2 and not any(o.startswith("lost") for o in outcomes)
    assert {(e.target, e.amount) for e in of(events, DamageApplied)} == {("a", 3), ("b", 3)}
    assert {e.combatant for e in of(events, CombatantDefeated)} == {"a", "b"}
    assert s.state.outcome == "draw"


# --- stances ---------------------------------------------------------------------------------


def test_offense_acts_again_at_score_minus_ten_in_a_second_pass():
    s = st(f("a", "x"), f("b", "y"))
    begin(s, 10, 3)  # a 15, b 8
    defend(s, "b", stance="offense", defense="parry")
    events = defend(s, "a", stance="offense", defense="parry")
    assert of(events, PassStarted) == [PassStarted(number=2)]
    # second actions: a at 15 - 10 = 5, b at max(8 - 10, 0) = 0; declared lowest first again
    assert of(events, OrderSet)[-1] == OrderSet(tiers=(("a",), ("b",)), reason="second actions")
    assert s.state.acting == ("b",)
    defend(s, "b")
    events = defend(s, "a", faces=(1, 1))  # the next turn's initiative
    assert of(events, RoundEnded) and s.state.round == 2


def test_second_actions_that_both_fall_to_zero_with_equal_ratings_act_together():
    s = st(f("a", "x"), f("b", "y"))
    begin(s, 4, 3)  # a 9 -> 0, b 8 -> 0
    defend(s, "b", stance="offense", defense="parry")
    events = defend(s, "a", stance="offense", defense="parry")
    assert of(events, OrderSet)[-1].tiers == (("a", "b"),)


def test_partial_defense_acts_once():
    s = st(f("a", "x"), f("b", "y"))
    begin(s, 10, 3)
    defend(s, "b", stance="partial")
    events = defend(s, "a", stance="partial", faces=(1, 1))
    assert not of(events, PassStarted) and s.state.round == 2


def test_the_defense_stance_may_not_attack():
    s = st(f("a", "x"), f("b", "y"))
    begin(s, 10, 3)
    before = list(s.log.lines())
    with pytest.raises(Refused, match="Defense stance may not attack"):
        attack(s, "b", "a", stance="defense")
    assert list(s.log.lines()) == before


@pytest.mark.parametrize("defense", ["dodge", "block", "spell"])
def test_offense_can_only_soak_or_parry_and_anything_else_is_refused_naming_what_is(defense):
    # "Offense: Character can only Soak or Parry, not Dodge." A block isn't a parry: "A parry is
    # a block using a melee weapon or shield", not every block a parry; nor is a spell.
    s = st(f("a", "x"), f("b", "y", spell_defense=3))
    begin(s, 10, 3)
    before = list(s.log.lines())
    with pytest.raises(Refused) as refused:
        attack(s, "b", "a", stance="offense", defense=defense)
    assert str(refused.value) == (
        f"B: attack: the Offense stance can only soak or parry, not {defense}: defense=parry, or none (soak alone)"
    )
    assert list(s.log.lines()) == before
    attack(s, "b", "a", stance="offense", defense="parry")


def test_offense_defends_by_parry_when_no_defense_is_declared_even_with_a_bigger_brawl():
    s = st(f("a", "x"), f("b", "y", brawl=5))  # block 3 + 5 = 8 dice, parry 3 + 2 = 5
    begin(s, 10, 3)
    attack(s, "b", "a", stance="offense")
    assert s.state.extra.declared["b"].defense == "parry"


def test_the_stance_holds_for_the_whole_turn():
    s = st(f("a", "x"), f("b", "y"))
    begin(s, 10, 3)
    defend(s, "b", stance="offense", defense="parry")
    defend(s, "a", stance="offense", defense="parry")
    with pytest.raises(Refused, match="offense stance holds for the whole turn"):
        defend(s, "b", stance="defense")


def test_the_defense_stance_adds_four_dice_to_parry_and_soak():
    s = st(f("a", "x"), f("b", "y"))
    begin(s, 10, 3)
    defend(s, "b", stance="defense", defense="parry")
    hit = (9, 9, 9, 9, 2, 2)  # 4 successes
    parry = NO * 9  # 3 + 2 + 4 dice, no success
    damage = (7,) + NO * 6  # 4 + 3 dice: 1 success
    soak = NO * 7  # Stamina 3 + 4
    events = attack(s, "a", "b", stance="partial", faces=hit + parry + damage + soak + (1, 1))
    expressions = [e.expression for e in of(events, DiceRolled)]
    assert expressions[:4] == ["6d10>=6c", "9d10>=6c", "7d10>=6", "7d10>=6"]


@pytest.mark.parametrize(
    ("defense", "pool"),
    [("parry", "9d10>=6c"), ("dodge", "9d10>=6c"), ("block", "4d10>=6c"), ("spell", "3d10>=6c")],
)
def test_the_defense_stance_adds_four_dice_to_soak_parry_and_dodge_only(defense, pool):
    # "Defense: Character may not attack, but gets a +4 dice to add to any Soak, Parry or Dodge
    # rolls": parry 3 + 2 + 4, dodge 3 + 2 + 4; a block stays Dexterity 3 + Brawl 1, a spell its 3
    s = st(f("a", "x"), f("b", "y", spell_defense=3))
    begin(s, 10, 3)
    defend(s, "b", stance="defense", defense=defense)
    hit = (9, 9, 9, 9, 2, 2)  # 4 successes
    saved = NO * int(pool[0])  # no success
    damage = (7,) + NO * 6  # 4 + 3 dice: 1 success
    soak = NO * 7  # Stamina 3 + 4, whatever the defense
    events = attack(s, "a", "b", stance="partial", faces=hit + saved + damage + soak + (1, 1))
    assert [e.expression for e in of(events, DiceRolled)][:4] == ["6d10>=6c", pool, "7d10>=6", "7d10>=6"]


def test_a_version_2_log_still_gives_a_block_four_dice_and_lets_offense_block(monkeypatch):
    from combatlog.engine.rules.straalara import STRAALARA as straalara

    monkeypatch.setattr(type(straalara), "version", "2")
    s = st(f("a", "x"), f("b", "y"))
    begin(s, 10, 3)
    defend(s, "b", stance="defense", defense="block")
    hit = (9, 9, 9, 9, 2, 2)
    events = attack(s, "a", "b", stance="offense", defense="block", faces=hit + NO * 8 + (7,) + NO * 6 + NO * 7)
    assert [e.expression for e in of(events, DiceRolled)][1] == "8d10>=6c"  # Dexterity 3 + Brawl 1 + 4
    assert s.state.rules_version == "2"
    monkeypatch.undo()
    assert audit(s.log, workers=1).clean


# --- attack, defense, damage -----------------------------------------------------------------
# --- attack, defense, damage (with the kit: each pool's dice named by what it is for) -----------


def parrying(**stats_b: object) -> Fight:
    """a (score 15) against b (score 8); b, declaring first, parries in a partial stance."""
    duel = fight("straalara", f("a", "x"), f("b", "y", **stats_b), dice={"initiative by a": 10, "initiative by b": 3})
    duel.act("b", "defend", stance="partial", defense="parry")
    return duel


NEXT_TURN = {"initiative": [1, 1]}  # the last declaration resolves the turn, and the next one's initiative rolls


def test_damage_adds_the_net_successes_beyond_the_first_and_soak_takes_some_away():
    duel = parrying()
    step = duel.act(
        "a",
        "attack",
        "b",
        stance="partial",
        dice={
            "sword at b": (9, 9, 9, 9, 2, 2),  # 4 successes
            "parry by b": (7, 2, 2, 2, 2),  # 1: 3 left
            "sword damage": (6, 6, 6, 6, 2, 1),  # 4 + (3 - 1) = 6 dice: 4 successes, the 1 cancels nothing
            "soak by b": (6, 2, 2),  # 1
            **NEXT_TURN,
        },
    )
    assert [r.expression for r in step.rolls][:4] == ["6d10>=6c", "5d10>=6c", "6d10>=6", "3d10>=6"]
    assert step.of(DamageApplied)[0].amount == 3
    assert duel.damage("b") == 3


def test_a_thrown_weapon_ignores_the_extra_successes_for_damage():
    duel = parrying()
    step = duel.act(
        "a",
        "attack",
        "b",
        stance="partial",
        weapon="knife",
        dice={
            "knife at b": (9, 9, 9, 9, 2),  # thrown: Dexterity 3 + Athletics 2 = 5 dice, 4 successes
            "parry by b": NO * 5,
            "knife damage": (7, 7),  # the knife's 2 dice alone
            "soak by b": NO * 3,
            **NEXT_TURN,
        },
    )
    assert step.rolls[2].expression == "2d10>=6"
    assert duel.damage("b") == 2


def test_ones_cancel_attack_successes_and_no_successes_is_a_miss():
    duel = parrying()
    step = duel.act("a", "attack", "b", stance="partial", dice={"sword at b": (9, 1, 2, 2, 2, 2), **NEXT_TURN})
    assert "a miss" in step.outcomes[0]
    assert not step.of(DamageApplied)


def test_a_failed_defense_leaves_the_whole_attack_and_soak_can_take_all_damage():
    duel = parrying()
    step = duel.act(
        "a",
        "attack",
        "b",
        stance="partial",
        dice={
            "sword at b": (9, 2, 2, 2, 2, 2),  # 1 success
            "parry by b": (1, 2, 2, 2, 2),  # a defense botch is simply a failure
            "damage": (6, 6, 2, 2),  # 4 dice: 2
            "soak": (6, 6, 2),  # 2: nothing left
            **NEXT_TURN,
        },
    )
    assert not step.of(DamageApplied)
    assert "0 health levels" in step.outcomes[0]


def test_zero_damage_successes_deal_nothing_and_soak_is_not_rolled():
    duel = parrying()
    step = duel.act(
        "a",
        "attack",
        "b",
        stance="partial",
        dice={"sword at b": (9, 2, 2, 2, 2, 2), "parry": NO * 5, "damage": NO * 4, **NEXT_TURN},
    )
    assert len(step.rolls) == 3 + 2 and not step.of(DamageApplied)


def test_health_levels_and_their_wound_penalty_lower_the_next_turns_initiative_and_pools():
    duel = parrying()
    step = duel.act(
        "a",
        "attack",
        "b",
        stance="partial",
        dice={"sword at b": (9, 9, 9, 2, 2, 2), "parry": NO * 5, "damage": (7, 7, 2, 2, 2, 2), "soak": NO * 3}
        | {"initiative by a": 1, "initiative by b": 1},
    )
    assert duel.damage("b") == 2  # Bruised, then Hurt: -1
    b_next = [e for e in step.of(InitiativeRolled) if e.combatants == ("b",)][0]
    assert b_next.tiebreak == (4,) and b_next.value == 5  # rating 5 - 1, plus the d10's 1
    # and the wound penalty takes a die off b's attack pool (b, slower now, declares first)
    assert duel.acting == ("b",)
    duel.act("b", "attack", "a", stance="partial", defense="none")
    step = duel.act("a", "defend", stance="partial", defense="none", dice={"sword at a by b": NO * 5, **NEXT_TURN})
    assert step.rolls[0].expression == "5d10>=6c"


def test_damage_beyond_stamina_dazes_and_the_dazed_lose_their_next_action():
    duel = fight("straalara", f("a", "x"), f("b", "y", stamina=2), dice={"initiative by a": 10, "initiative by b": 3})
    duel.act("b", "attack", "a", stance="partial", defense="none")
    step = duel.act(
        "a",
        "attack",
        "b",
        stance="partial",
        dice={"sword at b": (9, 9, 9, 9, 2, 2), "damage": (7, 7, 7, 7, 2, 2, 2), "soak": (2, 2), **NEXT_TURN},
    )  # 4 successes; 4 + 3 dice: 4; soak nothing
    assert ConditionApplied(target="b", condition="dazed", source="a") in step.events
    assert step.outcomes[1] == "lost: B is Dazed"
    assert "dazed" not in duel.conditions("b")  # the lost action spent the daze


def test_incapacitated_by_a_faster_combatant_before_acting_loses_the_action():
    track = [{"name": "Hurt", "penalty": -1}]
    duel = fight(
        "straalara", f("a", "x"), f("b", "y"), dice={"initiative by a": 10, "initiative by b": 3}, health_levels=track
    )
    duel.act("b", "attack", "a", stance="partial", defense="none")
    step = duel.act(
        "a",
        "attack",
        "b",
        stance="partial",
        dice={"sword at b": (9, 9, 2, 2, 2, 2), "damage": (7, 7, 7, 2, 2), "soak": NO * 3},
    )
    assert CombatantDefeated(combatant="b", how="incapacitated") in step.events
    assert step.outcomes[1].startswith("lost: B is incapacitated")
    assert duel.outcome == ("victory", "x")


def _begun_parrying(**stats_b: object):
    """`parrying`, on a session with dice forced in the order rolled (for the tests below)."""
    s = st(f("a", "x"), f("b", "y", **stats_b))
    begin(s, 10, 3)
    defend(s, "b", stance="partial", defense="parry")
    return s


# --- botches, rulings, effects at the end of the turn ----------------------------------------


def test_a_botch_fails_and_waits_for_the_game_masters_ruling():
    s = _begun_parrying()
    events = attack(s, "a", "b", stance="partial", faces=(1, 2, 3, 4, 5, 2))
    assert Botched(actor="a", weapon="sword") in events
    assert not s.state.acting and s.state.round == 1  # the next turn waits for the ruling
    with pytest.raises(Refused, match="say what goes wrong"):
        forced(s, "botch", params={"effect": ""})
    events = forced(s, "botch", (4, 4), params={"effect": "the blade shatters"})
    assert GmRuling(topic="botch", decision="the blade shatters", text="A's botch") in events
    assert s.state.round == 2 and s.state.acting


def test_the_botch_ruling_typed_as_words_is_kept_as_one_sentence():
    from combatlog.engine.grammar import build_command

    s = _begun_parrying()
    attack(s, "a", "b", stance="partial", faces=(1, 2, 3, 4, 5, 2))
    command = build_command("botch", ("the", "club", "flies", "off"), (), None, "gm", s.rules)
    assert command.params == {"effect": "the club flies off"}
    events = s.execute(command, dice=ScriptedDice([4, 4]))
    assert GmRuling(topic="botch", decision="the club flies off", text="A's botch") in [e.event for e in events]


def test_an_action_that_takes_effect_at_the_end_of_the_turn_lands_then():
    s = _begun_parrying()
    events = act(
        s,
        "a",
        "task",
        faces=(8, 8, 2) + (1, 1),
        pool=3,
        effect="the bridge ropes are cut",
        at_end_of_turn=True,
        stance="partial",
    )
    scheduled, landed = of(events, EffectScheduled), of(events, EffectLanded)
    assert scheduled == [EffectScheduled(actor="a", round=1, text="the bridge ropes are cut")]
    assert landed == [EffectLanded(actor="a", text="the bridge ropes are cut")]
    assert events.index(landed[0]) < events.index(of(events, RoundEnded)[0])


def test_an_extended_action_lands_at_the_end_of_a_later_turn():
    s = _begun_parrying()
    events = act(
        s, "a", "task", faces=(8, 2, 2) + (1, 1), pool=3, effect="the ward is drawn", turns=2, stance="partial"
    )
    assert not of(events, EffectLanded)
    defend(s, "b", stance="partial")
    events = defend(s, "a", stance="partial", faces=(1, 1))
    assert of(events, EffectLanded) == [EffectLanded(actor="a", text="the ward is drawn")]


def test_a_non_attack_action_with_net_successes_takes_effect_at_once():
    s = _begun_parrying()
    events = act(s, "a", "task", faces=(8, 8, 1) + (1, 1), pool=3, effect="the door is barred", stance="partial")
    assert of(events, EffectLanded) == [EffectLanded(actor="a", text="the door is barred")]
    assert not of(events, EffectScheduled)


# --- options -------------------------------------------------------------------------------------


def test_interleaved_second_actions_are_declared_with_the_first_and_resolved_at_score_minus_ten():
    s = st(f("a", "x"), f("b", "y"), passes="interleaved")
    begin(s, 10, 3)  # a 15 (second at 5), b 8
    defend(s, "b", stance="partial")
    defend(s, "a", stance="offense", defense="parry")
    assert s.state.acting == ("a",)  # Offense declares its second action in the same turn
    events = defend(s, "a", faces=(1, 1))
    ids = [e.id for e in of(events, ActionResolved)]
    assert len(ids) == 3 and not of(events, PassStarted)
    declared = [e for e in of(_all(s), ActionDeclared)]
    actor_of = {e.id: e.actor for e in declared}
    assert [actor_of[i] for i in ids] == ["a", "b", "a"]  # 15, 8, then a's second at 5


def _all(s) -> list:
    from combatlog.projections import envelopes

    return [env.event for env in envelopes(s.log)]


def test_interleaved_only_offense_acts_twice():
    s = st(f("a", "x"), f("b", "y"), passes="interleaved")
    begin(s, 10, 3)
    defend(s, "b", stance="partial")
    assert s.state.acting == ("a",)
    defend(s, "a", stance="partial", faces=(1, 1))
    assert s.state.round == 2


def test_a_table_may_give_its_own_health_track_and_death_at_incapacitated():
    s = st(f("a", "x"), f("b", "y"), health_levels=[{"name": "Hurt", "penalty": -2}], incapacitated="die")
    begin(s, 10, 3)
    defend(s, "b", stance="partial", defense="none")
    events = attack(s, "a", "b", stance="partial", faces=(9, 9, 2, 2, 2, 2) + (7, 7, 2, 2, 2) + NO * 3)
    assert CombatantDefeated(combatant="b", how="dead") in events


def test_dazed_may_be_switched_off():
    s = st(f("a", "x"), f("b", "y", stamina=1), dazed="no_effect")
    begin(s, 10, 3)
    defend(s, "b", stance="partial", defense="none")
    events = attack(s, "a", "b", stance="partial", faces=(9, 9, 2, 2, 2, 2) + (7, 7, 7, 2, 2) + (2,) + (1, 1))
    assert not [e for e in events if isinstance(e, ConditionApplied)]


def test_the_base_difficulty_is_an_option_and_an_attack_may_adjust_it():
    s = st(f("a", "x"), f("b", "y"), difficulty=7)
    begin(s, 10, 3)
    defend(s, "b", stance="partial", defense="none")
    events = attack(s, "a", "b", stance="partial", modifier=2, faces=NO * 6 + (1, 1))
    assert of(events, DiceRolled)[0].expression == "6d10>=9c"


def test_a_bad_stat_is_refused_when_the_combatant_is_added():
    s = st(f("a", "x"))
    with pytest.raises(Refused, match=r"combatant b: \$.weapons\[0\].damage: Expected int, got str"):
        s.do("add", **f("b", "y", weapons=[{"name": "x", "kind": "melee", "damage": "lots"}]))
    with pytest.raises(Refused, match=r"combatant b: missing stat"):
        s.do("add", id="b", side="y", stats={"wits": 2})


# --- the bundled encounter -----------------------------------------------------------------------


def test_the_bundled_bridge_fight_plays_to_the_end_replays_audits_clean_and_repeats_byte_for_byte(tmp_path):
    from combatlog.engine import Session
    from combatlog.engine.encounter_file import read_encounter
    from combatlog.replays import open_log

    example = Path(__file__).resolve().parents[1] / "examples" / "straalara-bridge.toml"
    logs = []
    for n in (1, 2):
        log = open_log(tmp_path / f"{n}.jsonl")
        s = Session(log)
        for command in read_encounter(example, seed=11):
            s.execute(command)
        s.do("begin")
        s.play_out()
        assert s.state.phase == "end" and s.state.winner in ("travellers", "bandits")
        assert replay(log).state == s.state
        assert audit(log).clean
        logs.append((tmp_path / f"{n}.jsonl").read_bytes())
    assert logs[0] == logs[1]


def test_the_systems_own_state_survives_a_snapshot_and_a_cursor_seeks_it_exactly(tmp_path):
    from combatlog.projections import dump_snapshot, load_snapshot
    from combatlog.replays import MemoryLog
    from combatlog.replays.cursor import Cursor

    s = st(f("a", "x"), f("b", "y"), seed=3)
    s.do("begin")
    s.play_out()
    whole = replay(s.log)
    restored = load_snapshot(dump_snapshot(whole))
    assert restored.state == whole.state and type(restored.state.extra).__name__ == "State"
    cursor = Cursor(s.log, every=7)
    for seq in (5, 20, cursor.last // 2, cursor.last):
        prefix = MemoryLog()
        for line in s.log.lines(1, seq):
            prefix._lines.append(line)
        assert cursor.state(seq) == replay(prefix).state


def test_a_weapon_named_by_a_number_is_the_weapon_of_that_name_when_it_strikes():
    """A parameter read from a command line or JSON may come as a number: `weapon=3` names the
    weapon "3" both when the attack is checked and when it resolves."""
    three = {"name": "3", "kind": "melee", "damage": 4}
    s = st(f("a", "x", weapons=[SWORD, three]), f("b", "y"))
    begin(s, 10, 3)
    defend(s, "b", stance="partial", defense="parry")
    hit, parry, damage, soak = (9, 2, 2, 2, 2, 2), NO * 5, (6,) * 4, NO * 3
    events = attack(s, "a", "b", stance="partial", weapon=3, faces=hit + parry + damage + soak + (1, 1))
    assert "3 at b" in [e.purpose for e in of(events, DiceRolled)][0]
