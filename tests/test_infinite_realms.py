"""Infinite Realms, chapter four: the AP order and every chart, with the dice forced."""

from __future__ import annotations

from pathlib import Path

import pytest

from combatlog.engine import Refused, ScriptedDice, Session
from combatlog.engine.encounter_file import read_encounter
from combatlog.engine.rules.infinite_realms.reading import damage_percent
from combatlog.events import ActionResolved, Command, TurnStarted
from combatlog.projections import replay
from combatlog.replays import JsonlLog
from combatlog.replays.audit import audit
from combatlog.testing import Fight, fight
from tests import builders

run = builders.forced
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "infinite-realms-road.toml"
SWORD = {"name": "sword", "kind": "melee", "ap": 3, "damage": 20, "critical": 10, "reach": 4}


BASE = {"hp": 200, "ap": 10, "init": 0, "offense": 100, "defense": 0, "weapons": [SWORD]}


def fighter(cid: str, side: str, kind: str = "npc", **stats) -> dict:
    return builders.fighter(cid, side, kind=kind, defaults=BASE, **stats)


def ir(*combatants: dict, **options) -> Session:
    return builders.encounter("infinite-realms", *combatants, **options)


def act(s: Session, actor: str, action: str, target: str | None = None, faces=(), **params):
    return run(s, "act", faces, actor=actor, action=action, targets=(target,) if target else (), params=params)


def outcome(events) -> str:
    return [e for e in events if isinstance(e, ActionResolved)][-1].outcome


def duel(a: dict | None = None, b: dict | None = None, faces=(1, 1), **options) -> Session:
    """a and b engaged from the start; a acts first (more AP)."""
    s = ir(fighter("a", "A", **(a or {})), fighter("b", "B", **{"ap": 5, **(b or {})}), **options)
    run(s, "engage", params={"combatants": ["a", "b"]})
    run(s, "begin", faces)
    return s


def engaged(a: dict | None = None, b: dict | None = None, **options) -> Fight:
    """`duel` with the kit: a and b engaged from the start, a acting first (more AP)."""
    f = fight(
        "infinite-realms", fighter("a", "A", **(a or {})), fighter("b", "B", **{"ap": 5, **(b or {})}), begin=False
    )
    f.do("engage", combatants=["a", "b"])
    f.begin(dice={"tie-break by a": 1, "tie-break by b": 1})
    return f


# --- order ----------------------------------------------------------------------------


def test_the_most_ap_acts_next_recomputed_after_every_action_ties_by_d10_plus_init_and_reach():
    dagger = {"name": "dagger", "kind": "melee", "ap": 2, "damage": 1, "critical": 0, "reach": 1}
    bow = {
        "name": "bow",
        "kind": "missile",
        "ap": 2,
        "damage": 1,
        "critical": 0,
        "short": 5,
        "medium": 20,
        "long": 50,
        "bow": True,
    }
    s = ir(
        fighter("a", "A", ap=6, offense=40, defense=20),
        fighter("b", "B", ap=6, init=2, offense=40, defense=20, weapons=[dagger]),
        fighter("c", "A", ap=5, offense=40, weapons=[bow]),
    )
    run(s, "engage", params={"combatants": ["a", "b"]})  # sword 4 ft against dagger 1 ft: a +1 AP
    turns = []

    def step(events):
        turns.extend(e.actors[0] for e in events if isinstance(e, TurnStarted))

    step(run(s, "begin", [2, 9, 4]))  # tie-breaks: a 2, b 2+9 = 11, c 4
    assert {c: s.state.combatants[c].resources["ap"] for c in "abc"} == {"a": 7, "b": 6, "c": 5}
    step(act(s, "a", "attack", "b", [50]))  # a 7 -> 4
    step(act(s, "b", "attack", "a", [50], weapon="dagger"))  # b 6 -> 4
    step(act(s, "c", "attack", "b", [90]))  # c 5 -> 3
    step(act(s, "b", "attack", "a", [50], weapon="dagger"))  # a 4 = b 4: b's 11 beats a's 2; b -> 2
    step(act(s, "a", "attack", "b", [50]))  # a 4 -> 1
    step(act(s, "c", "attack", "b", [90]))  # c 3 -> 1
    step(run(s, "end_turn", actor="b"))
    step(run(s, "end_turn", actor="c"))  # a 1 = c 1: c's 4 beats a's 2
    step(run(s, "end_turn", [5, 5, 5], actor="a"))  # the round ends; round 2's tie-breaks
    assert turns == ["a", "b", "c", "b", "a", "c", "b", "c", "a", "b"]
    assert s.state.round == 2
    assert {c: s.state.combatants[c].resources["ap"] for c in "abc"} == {"a": 6, "b": 6, "c": 5}  # reach: round 1 only


# --- the damage chart -----------------------------------------------------------------


@pytest.mark.parametrize(
    "made_by, pct", [(0, 25), (10, 25), (11, 50), (20, 50), (21, 75), (30, 75), (31, 100), (90, 100)]
)
def test_damage_chart_bands(made_by, pct):
    assert damage_percent(made_by) == pct


def test_an_attack_offense_minus_defense_margin_damage_and_protection():
    f = engaged(
        {"offense": 60, "weapons": [{**SWORD, "damage": "2d6", "critical": 0}]}, {"defense": 20, "protection": 2}
    )
    step = f.act("a", "attack", "b", dice={"sword at b": 20, "sword damage": (6, 6)})
    # need 40: made by 20 -> 50% of 12 = 6, less 2
    assert step.outcome == "d% 20 against 40: a hit by 20, 50% of 12 = 6, 4 through armour"
    assert f.damage("b") == 4


# --- critical hits --------------------------------------------------------------------


@pytest.mark.parametrize(
    "made_by, extra, effect",
    [
        (5, 5, None),
        (15, 10, None),
        (25, 10, "half AP"),
        (33, 15, "stunned"),
        (38, 20, "stunned"),
        (43, 20, "stunned"),
        (48, 0, "internal bleeding"),
        (53, 0, "passed out"),
        (70, 0, "dead"),
    ],
)
def test_critical_hit_chart(made_by, extra, effect):
    f = engaged()
    # need 100; 5 is at or under the critical 10: 100% of 20, then the re-roll is made by `made_by`
    step = f.act("a", "attack", "b", dice={"sword at b": 5, "critical hit": 100 - made_by})
    b = f.combatant("b")
    assert b.damage == 20 + extra
    assert f"critical hit by {made_by}" in step.outcome
    if effect in ("passed out", "dead"):
        assert b.defeated == effect
    elif effect is not None:
        assert b.has(effect)
    if effect == "stunned":
        assert b.resources["ap"] == 0
        rounds = {33: 1, 38: 1, 43: 2}[made_by]
        assert [c.remaining for c in b.conditions if c.name == "stunned"] == [rounds + 1]
    if effect == "half AP":
        assert b.resources["ap"] == 2  # 5 halved, rounded down


def test_a_crippled_extremity_bleeds_and_halves():
    f = engaged()
    f.act("a", "attack", "b", dice={"sword at b": 5, "critical hit": 40, "crippled extremity": 6})
    # made by 60: crippled; 1d10 = 6: the right leg
    b = f.combatant("b")
    assert b.has("crippled right leg") and b.has("internal bleeding")
    assert f.rules.cost(f.state, b, f.rules.action(f.state, b, "run"), {}) == {"ap": 2}  # movement at double AP
    assert f.rules.budget(f.state, b) == {"ap": 2}  # AP to 50% (of 5)


def test_no_critical_when_the_re_roll_misses():
    f = engaged(b={"defense": 10})
    step = f.act("a", "attack", "b", dice={"sword at b": 5, "critical hit": 95})  # need 90: 5 hits, 95 misses
    assert f.damage("b") == 20 and "no critical (95)" in step.outcome


# --- critical misses ------------------------------------------------------------------


@pytest.mark.parametrize(
    "missed_by, effect",
    [
        (10, "down"),
        (25, "stunned"),
        (35, "wound 5"),
        (43, "broken"),
        (48, "wound 10"),
        (55, "wound 20"),
        (63, "broken"),
    ],
)
def test_critical_miss_chart(missed_by, effect):
    f = engaged({"offense": 0}, {"defense": 0})  # need 0: every roll misses, by the roll
    f.act("a", "attack", "b", dice={"sword at b": 97, "critical miss": missed_by})
    a = f.combatant("a")
    if effect in ("down", "stunned"):
        assert a.has(effect)
    elif effect == "broken":
        assert f.state.extra.broken["a"] == ("sword",)
    else:
        assert a.damage == int(effect.split()[1])
        if missed_by >= 46:
            assert a.has("stunned")


def test_a_quality_weapon_survives_the_non_quality_break():
    s = duel({"offense": 0, "weapons": [{**SWORD, "quality": True}]})
    act(s, "a", "attack", "b", [97, 43])
    assert s.state.extra.broken == {}


@pytest.mark.parametrize(
    "option, weapon, roll, rerolls",
    [
        ("chapter", {}, 95, False),
        ("chapter", {}, 96, True),
        ("chapter", {"flail": True}, 91, True),
        ("attacks", {}, 91, True),
        ("attacks", {"flail": True}, 81, True),
        ("attacks", {}, 90, False),
    ],
)
def test_the_critical_miss_threshold_is_an_option(option, weapon, roll, rerolls):
    s = duel({"offense": 0, "weapons": [{**SWORD, **weapon}]}, critical_miss=option)
    faces = [roll, 20] if rerolls else [roll]
    events = act(s, "a", "attack", "b", faces)
    assert ("critical miss by" in outcome(events)) is rerolls


# --- thresholds and bleeding ----------------------------------------------------------


def test_hit_point_thresholds_50_25_0_and_minus_hp():
    s = ir(fighter("a", "A"), fighter("b", "B", hp=20, ap=5), fighter("c", "B"))
    run(s, "begin", [1, 1, 1])

    def hurt(n):
        run(s, "override", params={"reason": "test", "damage": {"target": "b", "amount": n}})

    hurt(10)
    b = s.state.combatants["b"]
    assert b.has("wounded (50%)") and s.rules.budget(s.state, b) == {"ap": 3}  # 75% of 5
    hurt(5)
    b = s.state.combatants["b"]
    assert b.has("wounded (25%)") and s.rules.budget(s.state, b) == {"ap": 2}
    hurt(5)
    assert s.state.combatants["b"].defeated == "passed out"
    hurt(20)
    assert s.state.combatants["b"].defeated == "passed out"  # -20 is not beyond -20
    hurt(1)
    assert s.state.combatants["b"].defeated == "dead"


def test_wounds_lower_offense_and_raise_defense():
    s = duel({"offense": 60}, {"defense": 20, "hp": 40})
    run(s, "override", params={"reason": "t", "damage": {"target": "a", "amount": 150}})  # a at 25%: -20
    run(s, "override", params={"reason": "t", "damage": {"target": "b", "amount": 20}})  # b at 50%: +10
    events = act(s, "a", "attack", "b", [95])
    assert "against 30" in outcome(events)  # 60 - 20 - 20 + 10


def test_internal_bleeding_costs_1_hp_every_4_rounds_until_first_aid():
    s = ir(fighter("a", "A"), fighter("b", "B", ap=1), fighter("m", "B", ap=6, first_aid=80))
    run(s, "engage", params={"combatants": ["a", "b"]})
    run(s, "begin", [1, 1, 1])
    act(s, "a", "attack", "b", [5, 52])  # made by 48: internal bleeding, in round 1
    assert s.state.combatants["b"].has("internal bleeding")
    base = s.state.combatants["b"].damage
    lost = {}
    while s.state.round < 9:
        r = s.state.round
        s.execute(Command(kind="end_turn", actor=s.state.acting[0]), dice=ScriptedDice([1, 1, 1]))
        if s.state.round != r:
            lost[r] = s.state.combatants["b"].damage - base
    assert [lost[r] for r in range(1, 9)] == [0, 0, 0, 1, 1, 1, 1, 2]
    run(s, "end_turn", actor="a")
    act(s, "m", "first_aid", "b", [50])  # 50 against 80
    assert not s.state.combatants["b"].has("internal bleeding")
    while s.state.round < 13:
        s.execute(Command(kind="end_turn", actor=s.state.acting[0]), dice=ScriptedDice([1, 1, 1]))
    assert s.state.combatants["b"].damage - base == 2


# --- movement, aim, defense, ranges ---------------------------------------------------


def test_moving_away_from_an_enemy_gives_a_free_attack_against_base_defense_or_dodge():
    s = duel({"defense": 30, "dodge": 60}, {"offense": 70})
    events = act(s, "a", "walk", faces=[40], away_from="b")  # against base 30: need 40, roll 40 hits
    text = outcome(events)
    assert text.startswith("B's free attack: d% 40 against 40: a hit by 0, 25% of 20 = 5")
    assert s.state.combatants["a"].damage == 5
    assert "b" not in s.state.extra.engaged.get("a", [])
    s = duel({"defense": 30, "dodge": 60}, {"offense": 70})
    events = act(s, "a", "dodge_run", faces=[40], away_from="b")  # against dodge 60: need 10
    assert "against 10 (against dodge): a miss" in outcome(events)


def test_pursuit_catches_up_or_lets_the_fleeing_one_get_away():
    s = duel({"running": 60, "defense": 100}, {"running": 40, "ap": 9}, faces=(9, 1))
    act(s, "a", "run", faces=[95], away_from="b")  # the free attack misses
    run(s, "end_turn", actor="a")
    events = act(s, "b", "pursue", "a", [31])  # need 40 - 60 + 50 = 30
    assert "gets away" in outcome(events) and s.state.combatants["a"].defeated == "got away"


def test_aiming_adds_5_a_point_up_to_the_weapons_limit_and_is_lost_when_hit():
    s = duel({"offense": 40}, {"offense": 100})
    act(s, "a", "aim")
    act(s, "a", "aim")
    with pytest.raises(Refused, match="at most 2"):
        act(s, "a", "aim")
    assert s.state.extra.aim["a"] == 2
    events = act(s, "a", "attack", "b", [95])
    assert "against 50 (aim +10)" in outcome(events)
    act(s, "a", "aim")  # a 4 AP, b 5: b's turn
    assert s.state.extra.aim["a"] == 1
    act(s, "b", "attack", "a", [50])  # a hit: a's aim is lost
    assert "a" not in s.state.extra.aim


def test_defense_is_bought_at_the_start_of_the_round_only():
    s = duel({"offense": 60}, {"defense": 20})
    run(s, "end_turn", actor="a")
    act(s, "b", "defend", ap=2)  # b hasn't acted: -4
    run(s, "end_turn", actor="b", faces=[1, 1])
    events = act(s, "a", "attack", "b", [95])
    assert "against 40" in outcome(events)  # a new round: the bought defense is gone
    s = duel({"offense": 60}, {"defense": 20})
    act(s, "a", "defend", ap=1)
    act(s, "a", "defend", ap=1)
    act(s, "a", "attack", "b", [95])
    with pytest.raises(Refused, match="start of the round"):
        act(s, "a", "defend", ap=1)


@pytest.mark.parametrize("option, need", [("protect", 76), ("literal", 84)])
def test_bought_defense_and_the_literal_reading(option, need):
    s = duel({"ap": 4}, {"defense": 20, "ap": 9}, defense_changes=option)
    act(s, "b", "defend", ap=2)  # -4 defense %
    run(s, "end_turn", actor="b")
    events = act(s, "a", "attack", "b", [95])
    assert f"against {need}" in outcome(events)


def test_offensive_modifiers_for_a_stunned_down_prone_or_surprised_target():
    for condition, bonus in (("stunned", 15), ("down", 20), ("prone", 30), ("surprised", 20)):
        s = duel({"offense": 40}, {"defense": 20})
        run(s, "override", params={"reason": "t", "condition": {"target": "b", "name": condition}})
        events = act(s, "a", "attack", "b", [95])
        assert f"against {20 + bonus} ({condition} +{bonus})" in outcome(events)


def test_thrown_and_missile_ranges_short_long_and_beyond():
    spear = {
        "name": "spear",
        "kind": "thrown",
        "ap": 3,
        "damage": 8,
        "critical": 0,
        "short": 5,
        "medium": 15,
        "long": 30,
    }
    s = ir(fighter("a", "A", ap=20, offense=50, weapons=[spear]), fighter("b", "B", ap=5, defense=10))
    run(s, "distance", params={"a": "a", "b": "b", "yards": 4})
    run(s, "begin", [1, 1])
    events = act(s, "a", "attack", "b", [1])  # need 50 - 10 + 2 (thrown); made by 41: 100% of 8, x1.25 = 10
    assert outcome(events) == "d% 1 against 42, short range: a hit by 41, 100% of 8 = 10"
    run(s, "distance", params={"a": "a", "b": "b", "yards": 20})
    events = act(s, "a", "attack", "b", [90])
    assert "against 22 (long range -20)" in outcome(events)
    run(s, "distance", params={"a": "a", "b": "b", "yards": 31})
    with pytest.raises(Refused, match="beyond the spear's long range 30"):
        act(s, "a", "attack", "b")


def test_the_defensive_chart_cover_light_and_weapons():
    bow = {
        "name": "bow",
        "kind": "missile",
        "ap": 4,
        "damage": 4,
        "critical": 0,
        "short": 5,
        "medium": 50,
        "long": 100,
        "bow": True,
    }
    flail = {"name": "flail", "kind": "melee", "ap": 4, "damage": 4, "critical": 0, "flail": True}
    s = ir(fighter("a", "A", offense=50, weapons=[bow, flail]), fighter("b", "B", ap=5, defense=10), light="night")
    run(s, "distance", params={"a": "a", "b": "b", "yards": 10})
    run(s, "begin", [1, 1])
    run(s, "override", params={"reason": "t", "condition": {"target": "b", "name": "cover 75"}})
    events = act(s, "a", "attack", "b", [95], weapon="bow")  # 50 - 10 + 4 (bow) - 15 - 25
    assert "against 4 (cover 75, night)" in outcome(events)


def test_rapid_fire_only_against_a_rush_and_at_half_the_ap():
    bow = {"name": "bow", "kind": "missile", "ap": 5, "damage": 4, "critical": 0, "short": 5, "medium": 50, "long": 100}
    s = ir(fighter("a", "A", ap=14, weapons=[bow]), fighter("b", "B", ap=12, offense=0))
    run(s, "begin", [1, 1])
    with pytest.raises(Refused, match="against a combatant rushing you"):
        act(s, "a", "attack", "b", rapid=True)
    s = ir(fighter("a", "A", ap=12, weapons=[bow]), fighter("b", "B", ap=14, offense=0))
    run(s, "begin", [1, 1])
    act(s, "b", "run", toward="a")  # 20 yards to 10: rushing a
    run(s, "end_turn", actor="b")
    act(s, "a", "attack", "b", [95], rapid=True)
    assert s.state.combatants["a"].resources["ap"] == 12 - 3  # half of 5, rounded up


def test_punch_and_kick():
    s = duel({"ps": 60, "adjusted_pd": 50, "punch_ap": 2, "kick_ap": 4}, {"defense": 20, "protection": 0})
    events = act(s, "a", "punch", "b", [30])  # offense = adjusted PD 50 - 20: made by 0 -> 25% of 3
    assert outcome(events) == "d% 30 against 30: a hit by 0, 25% of 3 = 1"
    events = act(s, "a", "kick", "b", [6])  # 10% of PS = 6, made by 24: 75% -> 5 (4.5 rounds up)
    assert outcome(events) == "d% 6 against 30: a hit by 24, 75% of 6 = 5"
    assert s.state.combatants["a"].resources["ap"] == 10 - 2 - 4


def test_a_kicker_defends_at_three_quarters():
    s = duel({"kick_ap": 2, "adjusted_pd": 0, "defense": 40, "ps": 10}, {"offense": 100})
    act(s, "a", "kick", "b", [95])
    run(s, "end_turn", actor="a")
    events = act(s, "b", "attack", "a", [95])
    assert "against 70" in outcome(events)  # 100 - 40 * 3/4


# --- the bundled example --------------------------------------------------------------


def test_the_road_plays_to_the_end_and_its_log_replays_and_audits_clean(tmp_path):
    log = JsonlLog(tmp_path / "road.jsonl")
    s = Session(log)
    for c in read_encounter(EXAMPLE, seed=4):
        s.execute(c)
    s.do("begin")
    s.play_out(3000)
    assert s.state.phase == "end" and s.state.winner in ("party", "bandits")
    assert replay(log).state == s.state
    assert audit(log).clean


# --- after review: edges and the state between actions --------------------------------


PIKE = {"name": "pike", "kind": "melee", "ap": 3, "damage": 5, "critical": 0, "reach": 10}
DAGGER = {"name": "dagger", "kind": "melee", "ap": 2, "damage": 1, "critical": 0, "reach": 1}


def test_the_reach_bonus_is_given_once_a_round():
    s = ir(fighter("a", "A", ap=14, weapons=[PIKE]), fighter("b", "B", ap=3, weapons=[DAGGER]), fighter("c", "A", ap=1))
    run(s, "distance", params={"a": "a", "b": "b", "yards": 3})
    run(s, "engage", params={"combatants": ["b", "c"]})  # b fights c: no free attack on a
    run(s, "begin", [1, 1, 1])
    act(s, "a", "walk", toward="b")  # engages: +4 (10 ft against 1 ft)
    assert s.state.combatants["a"].resources["ap"] == 14 - 1 + 4
    act(s, "a", "walk", away_from="b")
    act(s, "a", "walk", toward="b")  # engaging again this round: no more
    assert s.state.combatants["a"].resources["ap"] == 17 - 2


def test_moving_toward_an_ally_engages_no_one():
    s = ir(fighter("a", "A", weapons=[PIKE]), fighter("c", "A", weapons=[DAGGER]), fighter("b", "B"))
    run(s, "begin", [1, 1, 1])
    act(s, "a", "walk", toward="c")
    assert s.state.extra.engaged == {} and s.state.combatants["a"].resources["ap"] == 9


def test_the_free_attack_uses_the_first_melee_weapon():
    bow = {"name": "bow", "kind": "missile", "ap": 5, "damage": 4, "critical": 0, "short": 5, "medium": 50, "long": 100}
    s = duel({"defense": 50}, {"offense": 60, "weapons": [bow, DAGGER]})
    events = act(s, "a", "walk", faces=[1], away_from="b")
    assert outcome(events).startswith("B's free attack: d% 1 against 10: a hit by 9, 25% of 1 = 0")
    s = duel({"defense": 50}, {"offense": 60})
    run(s, "override", params={"reason": "t", "condition": {"target": "b", "name": "stunned"}})
    events = act(s, "a", "walk", away_from="b")  # a stunned enemy gets no free attack
    assert outcome(events) == "moves 3 yards away from B"


def test_walking_away_from_an_enemy_never_engaged_is_not_fleeing():
    s = ir(fighter("a", "A"), fighter("b", "B", ap=5))
    run(s, "begin", [1, 1])
    act(s, "a", "walk", away_from="b")
    run(s, "end_turn", actor="a")
    with pytest.raises(Refused, match="hasn't fled"):
        act(s, "b", "pursue", "a")


def test_a_pursuer_who_makes_the_running_roll_catches_up():
    s = duel({"running": 40, "defense": 100}, {"running": 60, "ap": 9}, faces=(9, 1))
    act(s, "a", "run", faces=[95], away_from="b")
    run(s, "end_turn", actor="a")
    events = act(s, "b", "pursue", "a", [70])  # need 60 - 40 + 50 = 70
    assert "catches up" in outcome(events) and "a" in s.state.extra.engaged["b"]


def test_attacks_on_the_surprised_side_get_plus_20_in_the_surprise_round():
    s = ir(fighter("a", "A", offense=40), fighter("b", "B", defense=20))
    run(s, "engage", params={"combatants": ["a", "b"]})
    run(s, "surprise", params={"sides": ["B"]})
    run(s, "begin", [1, 1])
    assert s.state.surprise_round and s.state.acting == ("a",)
    events = act(s, "a", "attack", "b", [95])
    assert "against 40 (surprised +20)" in outcome(events)


def test_aim_is_lost_to_a_hit_even_when_armour_stops_it_all():
    s = duel({"offense": 100}, {"protection": 50, "ap": 11}, faces=(9, 1))
    act(s, "b", "aim")  # b 10 AP; a 10: a's tie-break 9 beats b's 1
    assert s.state.extra.aim["b"] == 1 and s.state.acting == ("a",)
    events = act(s, "a", "attack", "b", [50])  # a hit by 50: 50% of 20 = 10, all of it stopped
    assert "0 through armour" in outcome(events)
    assert "b" not in s.state.extra.aim


def test_a_critical_is_rolled_even_when_the_hit_drops_the_target_and_can_kill():
    s = ir(fighter("a", "A"), fighter("b", "B", hp=20, ap=5), fighter("c", "B"))
    run(s, "engage", params={"combatants": ["a", "b"]})
    run(s, "begin", [1, 1, 1])
    act(s, "a", "attack", "b", [5, 30])  # 20 damage: 0 HP, passed out; the re-roll is made by 70: dies
    assert s.state.combatants["b"].defeated == "dead"


def test_a_shorter_stun_does_not_cut_a_longer_one():
    s = duel()
    act(s, "a", "attack", "b", [5, 57])  # made by 43: stunned two rounds
    act(s, "a", "attack", "b", [5, 62])  # made by 38: stunned one round
    assert [c.remaining for c in s.state.combatants["b"].conditions if c.name == "stunned"] == [3]


def test_defense_bought_by_command_at_the_start_of_the_round_and_not_after():
    s = duel({"offense": 60}, {"defense": 20})
    run(s, "defend", actor="b", params={"ap": 2})  # before anyone has acted
    events = act(s, "a", "attack", "b", [95])
    assert "against 36" in outcome(events)
    with pytest.raises(Refused, match="before anyone does anything else"):
        run(s, "defend", actor="b", params={"ap": 1})


@pytest.mark.parametrize(
    "stats, message",
    [
        ({"defense": {}}, "defense"),
        ({"weapons": [{"name": "spear", "kind": "thrown", "ap": 3, "long": 30}]}, "short <= medium <= long"),
    ],
)
def test_bad_stats_are_refused(stats, message):
    s = ir(fighter("a", "A"))
    with pytest.raises(Refused, match=message):
        s.do("add", **fighter("b", "B", **stats))


@pytest.mark.parametrize(
    "made_by, extra",
    [
        (10, 5),
        (11, 10),
        (20, 10),
        (21, 10),
        (30, 10),
        (31, 15),
        (35, 15),
        (36, 20),
        (40, 20),
        (41, 20),
        (45, 20),
        (46, 0),
        (50, 0),
        (51, 0),
        (55, 0),
        (56, 0),
        (65, 0),
        (66, 0),
    ],
)
def test_critical_hit_band_edges(made_by, extra):
    s = duel()
    faces = [5, 100 - made_by] + ([1] if 56 <= made_by <= 65 else [])
    act(s, "a", "attack", "b", faces)
    b = s.state.combatants["b"]
    assert b.damage == 20 + extra
    assert b.has("half AP") is (21 <= made_by <= 30)
    assert b.has("stunned") is (31 <= made_by <= 45)
    assert b.has("internal bleeding") is (46 <= made_by <= 65)
    assert (b.defeated == "passed out") is (51 <= made_by <= 55)
    assert b.has("crippled right arm") is (56 <= made_by <= 65)
    assert (b.defeated == "dead") is (made_by >= 66)


@pytest.mark.parametrize(
    "missed_by, down, stunned, wound, broken",
    [
        (20, True, False, 0, False),
        (21, False, True, 0, False),
        (30, False, True, 0, False),
        (31, False, False, 5, False),
        (40, False, False, 5, False),
        (41, False, False, 0, True),
        (45, False, False, 0, True),
        (46, False, True, 10, False),
        (50, False, True, 10, False),
        (51, False, True, 20, False),
        (60, False, True, 20, False),
        (61, False, False, 0, True),
        (65, False, False, 0, True),
        (66, False, False, 20, False),
    ],
)
def test_critical_miss_band_edges(missed_by, down, stunned, wound, broken):
    s = duel({"offense": 0}, {"defense": 0})
    faces = [97, missed_by] + ([50] if missed_by >= 66 else [])  # 66+: a critical hit on oneself? 50 > 0: no
    act(s, "a", "attack", "b", faces)
    a = s.state.combatants["a"]
    assert (a.has("down"), a.has("stunned"), a.damage, s.state.extra.broken != {}) == (down, stunned, wound, broken)


def test_medium_range_is_plain_and_long_range_starts_past_it():
    bow = {"name": "bow", "kind": "missile", "ap": 2, "damage": 4, "critical": 0, "short": 5, "medium": 15, "long": 30}
    s = ir(fighter("a", "A", ap=30, offense=50, weapons=[bow]), fighter("b", "B", ap=5, defense=10))
    run(s, "begin", [1, 1])
    for yards, need in ((6, 40), (15, 40), (16, 20)):
        run(s, "distance", params={"a": "a", "b": "b", "yards": yards})
        assert f"against {need}" in outcome(act(s, "a", "attack", "b", [95]))


def test_a_round_in_which_no_one_has_any_ap_ends_the_fight_as_a_draw():
    s = ir(fighter("a", "A", ap=0), fighter("b", "B", ap=0))
    run(s, "begin", [1, 1] * 11)
    assert s.state.phase == "end" and s.state.outcome == "draw: no one could act for 10 rounds"


# --- version 2: what the text says that version 1 missed ---------------------------------


def _wound_a_to_half(s: Session) -> None:
    run(s, "override", params={"reason": "earlier fight", "damage": {"target": "a", "amount": 100}})
    assert s.state.combatants["a"].has("wounded (50%)")


def test_a_wounded_attackers_damage_factor_applies_to_a_criticals_extra_damage():
    s = duel()
    _wound_a_to_half(s)
    # need 100 - 10 for a's wounds = 90: 5 hits for 100% of 20 at 75% = 15; the re-roll 75
    # is made by 15: an extra 50% of 20, at 75% too: 7.5, rounded half up to 8 (version 1: 10)
    events = act(s, "a", "attack", "b", [5, 75])
    assert "critical hit by 15" in outcome(events)
    assert s.state.combatants["b"].damage == 15 + 8


def test_a_wounded_attackers_damage_factor_applies_to_the_wound_a_critical_miss_deals_him():
    s = duel({"offense": 10}, {"defense": 0})
    _wound_a_to_half(s)
    # need 10 - 10 for a's wounds = 0; the re-roll 35 misses by 35: a 25% wound on himself,
    # 25% of 20 at 75% = 3.75 -> 4 (version 1: 5)
    act(s, "a", "attack", "b", [97, 35])
    assert s.state.combatants["a"].damage == 100 + 4


def test_defense_bought_for_the_acting_combatant_hands_the_turn_to_whoever_now_has_more_points():
    s = duel()  # a 10 AP, b 5: a acts
    assert s.state.acting == ("a",)
    run(s, "defend", actor="a", params={"ap": 6})  # a keeps 4 AP: b's 5 lead now
    assert s.state.acting == ("b",)
    assert [t for t in s.state.order] == [("b",), ("a",)]


def test_a_log_recorded_under_version_1_still_audits_clean():
    # written before version 2: the gated changes don't apply to it, and the audit says so
    log = JsonlLog(Path(__file__).parent / "fixtures" / "before-rule-packages" / "infinite-realms.jsonl", create=False)
    report = audit(log)
    from combatlog.engine import get_rules

    installed = get_rules("infinite-realms").version
    assert report.clean and report.notes == [f"recorded under infinite-realms 1, audited with {installed}"]


def test_the_light_option_accepts_exactly_the_light_table():
    from combatlog.engine.rules.infinite_realms import INFINITE_REALMS
    from combatlog.engine.rules.infinite_realms.model import LIGHT

    assert set(INFINITE_REALMS.option_specs["light"].choices) == set(LIGHT)
    with pytest.raises(Refused, match=r"option start_distance: Expected int >= 0; yards between enemies"):
        ir(light="day", start_distance=-1)
