"""The engine: order and timing strategies, refusals, entered dice, undo and redo, determinism."""

from __future__ import annotations

import pytest

from combatlog.engine import Refused, ScriptedDice, Session
from combatlog.events import (
    ActionResolved,
    CombatantDefeated,
    Command,
    DamageApplied,
    DiceRolled,
    Moved,
    ResolutionStarted,
    RoundEnded,
    StepRedone,
    StepUndone,
)
from combatlog.projections import replay
from combatlog.replays import MemoryLog
from combatlog.replays.audit import audit
from combatlog.replays.transcript import transcript
from combatlog.testing import fight
from tests.builders import ORDERS, PARTY, TIMINGS, lines, new_session

AYLA, BO, G1, G2 = PARTY


def begin(session: Session, faces: list[int]):
    return session.execute(Command(kind="begin"), dice=ScriptedDice(faces))


def events_of(envelopes, cls):
    return [e.event for e in envelopes if type(e.event) is cls]


# --- order ----------------------------------------------------------------------------


def test_initiative_ties_go_to_pcs_first_then_to_roll_offs_repeated_until_clear():
    # ayla 10+3, bo 12+1, g1 11+2 all make 13; g2 5+2 makes 7.
    # PCs first puts ayla and bo ahead of g1; their roll-off ties 5-5, then bo wins 9-3.
    f = fight(
        "skirmish",
        *PARTY,
        dice={
            "initiative by ayla": 10,
            "initiative by bo": 12,
            "initiative by g1": 11,
            "initiative by g2": 5,
            "roll-off by ayla": [5, 3],
            "roll-off by bo": [5, 9],
        },
    )
    assert f.state.order == (("bo",), ("ayla",), ("g1",), ("g2",))
    rolloffs = [r for r in f.events(DiceRolled) if r.purpose.startswith("initiative roll-off")]
    assert [r.total for r in rolloffs] == [5, 5, 3, 9]
    assert f.acting == ("bo",)


def test_ties_left_simultaneous_share_a_tier_and_its_turn():
    s = new_session(ties="simultaneous")
    begin(s, [10, 12, 11, 5])
    assert s.state.order == (("ayla", "bo", "g1"), ("g2",))
    assert s.state.acting == ("ayla", "bo", "g1")


def test_a_group_of_npcs_rolls_once_and_acts_together():
    s = new_session(group_initiative=True)
    out = begin(s, [15, 2, 9])  # ayla 18, bo 3, goblins 11
    assert s.state.order == (("ayla",), ("g1", "g2"), ("bo",))
    rolls = [e.event for e in out if type(e.event).__name__ == "InitiativeRolled"]
    assert rolls[2].combatants == ("g1", "g2") and rolls[2].group == "goblins"


def test_reverse_order_declares_lowest_first_and_resolves_highest_first():
    f = fight(
        "skirmish", AYLA, G1, order="reverse", timing="simultaneous", dice={"by ayla": 18, "by g1": 2}
    )  # ayla 21, g1 4
    assert f.acting == ("g1",)  # lowest declares first
    f.act("g1", "strike", "ayla")
    assert f.acting == ("ayla",)
    step = f.act("ayla", "strike", "g1", dice={"strike by ayla": 19, "damage by ayla": 8, "strike by g1": 2})
    assert [r.by for r in step.rolls] == ["ayla", "ayla", "g1"]  # ayla's roll resolves first
    assert len(step.outcomes) == 2 and not f.state.pending


def test_action_points_give_the_next_action_to_whoever_has_most_left():
    s = new_session(order="action-points", combatants=[AYLA, BO])
    s.do("remove", actor="bo")
    s.do("add", id="bo2", name="Bo", side="goblins", stats=BO["stats"])
    begin(s, [5, 5])  # tie-break values: ayla 8, bo2 6
    assert s.state.acting == ("ayla",)  # 7 AP against 6
    s.execute(Command(kind="act", actor="ayla", action="strike", targets=("bo2",)), dice=ScriptedDice([1]))
    # ayla paid 3 (4 left): bo2 now leads with 6 and the order was recomputed
    assert s.state.combatants["ayla"].resources["ap"] == 4
    assert s.state.acting == ("bo2",)
    assert s.state.order == (("bo2",), ("ayla",))


def test_under_action_points_the_round_ends_when_no_one_can_act():
    s = new_session(order="action-points", combatants=[AYLA, G1])
    begin(s, [1, 1])
    while s.state.round == 1 and s.state.phase != "end":
        actor = s.state.acting[0]
        s.execute(Command(kind="act", actor=actor, action="move", params={"to": "x"}))
    spent = [e for e in lines(s) if b'"ResourceSpent"' in e]
    assert len(spent) == 7 + 5  # every action point spent on 1-AP moves, then round 2
    assert s.state.round == 2


# --- timing ---------------------------------------------------------------------------


def test_in_a_simultaneous_round_a_combatant_who_falls_still_acts_and_damage_lands_at_the_end():
    f = fight("skirmish", AYLA, G1, timing="simultaneous", dice={"by ayla": 20, "by g1": 1})  # ayla 23, g1 3
    f.act("ayla", "strike", "g1")
    assert f.state.pending and f.damage("g1") == 0
    # ayla 15+4 hits, 8 damage (held); g1 still strikes: 19+1 hits, 4 damage (held)
    step = f.act(
        "g1",
        "strike",
        "ayla",
        dice={"strike by ayla": 15, "damage by ayla": 8, "strike by g1": 19, "damage by g1": 4},
    )
    assert [(d.target, d.amount, d.held) for d in step.of(DamageApplied)] == [
        ("g1", 8, True),
        ("ayla", 4, True),
        ("g1", 8, False),
        ("ayla", 4, False),
    ]
    kinds = [type(e).__name__ for e in step.events]
    assert kinds.index("CombatantDefeated") > kinds.index("ActionResolved")
    assert f.damage("ayla") == 4
    assert f.defeated("g1") == "down"
    assert f.outcome == ("victory", "party")


def test_turn_based_damage_counts_at_once_so_the_fallen_never_act():
    f = fight("skirmish", AYLA, G1, timing="turn", dice={"by ayla": 20, "by g1": 1})
    step = f.act("ayla", "strike", "g1", dice={"strike": 15, "damage": 8})
    assert [d.held for d in step.of(DamageApplied)] == [False]
    assert step.of(CombatantDefeated)[0].combatant == "g1"
    assert f.phase == "end"


def test_mixed_timing_resolves_movement_at_once_and_the_rest_movement_shooting_melee_at_round_end():
    s = new_session(timing="mixed", combatants=[AYLA, BO, G1])
    begin(s, [20, 10, 1])  # ayla 23, bo 11, g1 3
    out = s.do("act", actor="ayla", action="strike", targets=("g1",))
    assert not events_of(out, ActionResolved)  # melee waits
    out = s.do("act", actor="bo", action="move", to="the bridge")
    assert events_of(out, Moved)[0].to == "the bridge"  # movement at once
    out = s.execute(Command(kind="act", actor="g1", action="shoot", targets=("bo",)), dice=ScriptedDice([2, 2]))
    categories = [e.category for e in events_of(out, ResolutionStarted)]
    assert categories == ["shooting", "melee"]
    assert events_of(out, RoundEnded)


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("timing", TIMINGS)
def test_every_order_and_timing_plays_an_encounter_to_its_end(order, timing):
    s = new_session(order=order, timing=timing, begin=True)
    s.play_out()
    assert s.state.phase == "end" and s.state.winner in ("party", "goblins")


# --- refusals -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command, message",
    [
        (Command(kind="act", actor="g2", action="strike", targets=("ayla",)), "it is not their turn"),
        (Command(kind="act", actor="ayla", action="fireball", targets=("g1",)), "no such action; actions: strike"),
        (Command(kind="act", actor="ayla", action="strike", targets=("bo",)), "not a valid target; targets: g1, g2"),
        (Command(kind="act", actor="ayla", action="strike"), "needs 1 target"),
        (Command(kind="act", actor="nobody", action="strike"), "no such combatant"),
        (Command(kind="begin"), "the fight has begun already"),
        (Command(kind="redo"), "there is nothing to redo"),
        (Command(kind="dance"), "unknown command"),
        (Command(kind="override", params={"damage": {"target": "g1", "amount": 3}}), "needs a reason"),
    ],
)
def test_a_refused_command_says_why_and_appends_nothing(command, message):
    s = new_session()
    begin(s, [20, 1, 5, 4])  # ayla first
    before = lines(s)
    with pytest.raises(Refused, match=message):
        s.execute(command)
    assert lines(s) == before


def test_commands_after_the_end_are_refused_but_notes_are_taken():
    s = new_session(begin=True)
    s.play_out()
    with pytest.raises(Refused, match="the encounter is over"):
        s.do("act", actor="ayla", action="strike", targets=("g1",))
    s.do("note", text="well fought")
    assert s.state.phase == "end"


def test_faces_typed_in_at_the_table_are_recorded_as_entered():
    s = new_session(combatants=[AYLA, G1])
    s.execute(Command(kind="begin", entered=((20,), (1,))))
    out = s.execute(Command(kind="act", actor="ayla", action="strike", targets=("g1",), entered=((15,), (8,))))
    rolls = events_of(out, DiceRolled)
    assert [(r.faces, r.source) for r in rolls] == [((15,), "entered"), ((8,), "entered")]


def test_missing_or_extra_entered_dice_are_refused_naming_the_roll():
    s = new_session(seed=None, combatants=[AYLA, G1])  # no seed: every die is typed in
    before = lines(s)
    with pytest.raises(Refused, match=r"1d20\+2 \(initiative\)"):
        s.execute(Command(kind="begin", entered=((20,),)))
    with pytest.raises(Refused, match="1 entered roll"):
        s.execute(Command(kind="begin", entered=((20,), (1,), (5,))))
    assert lines(s) == before


def test_in_a_seeded_encounter_the_engine_rolls_what_was_not_typed():
    s = new_session(combatants=[AYLA, G1])
    envs = s.execute(Command(kind="begin", entered=((20,),)))
    rolled = [(e.event.faces, e.event.source) for e in envs if type(e.event).__name__ == "DiceRolled"]
    assert rolled[0] == ((20,), "entered") and rolled[1][1] == "engine"
    with pytest.raises(Refused, match="1 entered roll"):  # typed more than the step rolls: refused
        new_session(combatants=[AYLA, G1]).execute(Command(kind="begin", entered=((20,), (1,), (5,))))


def test_an_encounter_without_a_seed_asks_for_every_die():
    s = new_session(seed=None, combatants=[AYLA, G1])
    with pytest.raises(Refused, match="enter the faces for 1d20"):
        s.do("begin")


def test_a_game_master_override_lands_as_a_recorded_override():
    s = new_session(begin=True)
    out = s.do("override", reason="falls into the river", damage={"target": "g1", "amount": 7})
    kinds = [type(e.event).__name__ for e in out]
    assert kinds == ["CommandIssued", "GmOverride", "DamageApplied", "CombatantDefeated"]
    assert s.state.combatants["g1"].defeated == "down"


# --- undo and redo --------------------------------------------------------------------


def test_undo_restores_exactly_the_state_before_the_step():
    s = new_session(begin=True)
    before = s.state
    actor = s.state.acting[0]
    enemy = "g1" if s.state.combatants[actor].side == "party" else "ayla"
    s.do("act", actor=actor, action="strike", targets=(enemy,))
    assert s.state != before
    out = s.undo()
    assert [type(e.event) for e in out][1:] == [StepUndone]
    assert s.state == before


def test_redo_brings_back_the_same_events_and_dice_never_new_ones():
    s = new_session(begin=True)
    actor = s.state.acting[0]
    enemy = "g1" if s.state.combatants[actor].side == "party" else "ayla"
    s.do("act", actor=actor, action="strike", targets=(enemy,))
    after = s.state
    s.undo()
    out = s.redo()
    assert [type(e.event) for e in out][1:] == [StepRedone]
    assert s.state == after


def test_a_new_command_after_an_undo_ends_the_redo_chain():
    s = new_session(begin=True)
    s.auto()
    s.undo()
    s.do("note", text="changed my mind")
    with pytest.raises(Refused, match="nothing to redo"):
        s.redo()


def test_undo_never_erases_the_log_it_only_appends():
    s = new_session(begin=True)
    s.auto()
    kept = lines(s)
    s.undo()
    assert lines(s)[: len(kept)] == kept
    assert len(lines(s)) == len(kept) + 2  # the undo step: its command and StepUndone


def test_the_creation_of_the_encounter_cannot_be_undone():
    s = Session(MemoryLog())
    s.do("create", rules="skirmish", seed=1)
    with pytest.raises(Refused, match="creation can't be undone"):
        s.undo()


# --- determinism ----------------------------------------------------------------------


def test_the_same_seed_and_commands_give_a_byte_identical_log():
    a = new_session(seed=99, begin=True)
    b = new_session(seed=99, begin=True)
    a.play_out()
    b.play_out()
    assert lines(a) == lines(b)
    c = new_session(seed=100, begin=True)
    c.play_out()
    assert lines(c) != lines(a)


def test_a_session_resumed_from_its_log_rolls_what_it_would_have_rolled():
    straight = new_session(seed=5, begin=True)
    straight.play_out()
    interrupted = new_session(seed=5, begin=True)
    interrupted.auto()
    interrupted.auto()
    resumed = Session(interrupted.log)
    resumed.play_out()
    assert lines(resumed) == lines(straight)


def test_a_clock_stamps_events_only_when_given():
    s = new_session(begin=True)
    assert all(b'"at"' not in line for line in lines(s))
    timed = Session(MemoryLog(), clock=lambda: "2026-11-23T10:00:00Z")
    timed.do("create", rules="skirmish", seed=1)
    assert b'"at":"2026-11-23T10:00:00Z"' in lines(timed)[0]


def test_what_a_caller_passes_in_is_not_shared_with_the_state_it_made(monkeypatch):
    from combatlog.engine import get_rules

    # skirmish 2 kept a parameter no action reads (`plan`), as logs recorded then hold them
    monkeypatch.setattr(type(get_rules("skirmish")), "version", "2")
    s = new_session(seed=4, begin=True, timing="simultaneous")
    actor = s.state.acting[0]
    plan = {"route": ["ford", "bank"]}
    s.do("act", actor=actor, action="move", plan=plan, to="ford")
    pending = next(p for p in s.state.pending if p.actor == actor)
    assert pending.params["plan"] == {"route": ["ford", "bank"]}
    assert pending.params["plan"] is not plan  # the caller's dict stays the caller's
    plan["route"].append("the state must not see this")
    assert pending.params["plan"] == {"route": ["ford", "bank"]}
    assert replay(s.log).state == s.state


def test_an_event_that_would_not_read_back_is_refused_and_nothing_is_appended():
    s = new_session(seed=4, begin=True)
    before = list(s.log.lines())
    with pytest.raises(Refused, match="can't be stored as given"):
        s.do("override", reason="a typo", damage={"target": "ayla", "amount": 2, "location": 5})
    assert list(s.log.lines()) == before and replay(s.log).state == s.state


@pytest.mark.parametrize(
    "rules, stats",
    [
        ("starflight", {"hp": 3, "initiative": 1, "hd": "x", "strength": 1}),
        ("infinite-realms", {"hp": "x", "ap": 3, "init": 1, "defense": 2}),
        ("swords-of-infinity", {"vitality": 3, "dexterity": "x", "awareness": 2}),
        ("straalara", {"wits": 2, "dexterity": "x", "stamina": 2}),
        ("skirmish", {"hp": "x"}),
    ],
)
def test_every_rule_system_names_the_combatant_whose_stat_it_refuses(rules, stats):
    s = Session(MemoryLog())
    s.do("create", rules=rules, seed=1)
    with pytest.raises(Refused, match=r"^combatant g2\b"):
        s.do("add", id="g2", side="x", stats=stats)
    assert s.log.head()[0] == 2


def test_a_self_targeted_action_refuses_another_target():
    from combatlog.engine.protocol import ActionSpec

    s = new_session(begin=True)
    actor = s.state.combatants[s.state.acting[0]]
    selfish = [spec for spec in s.rules.actions(s.state, actor) if spec.targets == "self"]
    assert selfish and all(isinstance(spec, ActionSpec) for spec in selfish)  # skirmish's guard
    other = next(c.id for c in s.state.active() if c.id != actor.id)
    before = lines(s)
    with pytest.raises(Refused, match="targets only the one who takes it"):
        s.do("act", actor=actor.id, action=selfish[0].name, targets=(other,))
    assert lines(s) == before


# --- conditions that last until a turn -------------------------------------------------------


def _end_turns_until(s, cid: str, limit: int = 20) -> None:
    """End turns until `cid` is acting."""
    for _ in range(limit):
        if cid in s.state.acting:
            return
        s.do("end_turn", actor=s.state.acting[0])
    raise AssertionError(f"{cid} never acted")


def test_a_condition_until_the_bearers_next_turn_ends_as_that_turn_starts():
    s = new_session(begin=True)
    first = s.state.acting[0]
    s.do("override", reason="dodges", condition={"target": first, "name": "dodging", "ends": "bearer_turn"})
    s.do("end_turn", actor=first)  # its own turn ending doesn't end it
    assert s.state.combatants[first].has("dodging")
    _end_turns_until(s, first)
    assert not s.state.combatants[first].has("dodging")
    told = [line for _, line in transcript(s.log)]
    assert any(line.strip() == f"{s.state.combatants[first].name}: no longer dodging." for line in told)


def test_a_condition_until_the_end_of_the_sources_next_turn_outlasts_the_turn_it_was_given_in():
    s = new_session(begin=True)
    source = s.state.acting[0]
    target = next(c.id for c in s.state.active() if c.id != source)
    s.do(
        "override",
        reason="marked",
        condition={"target": target, "name": "marked", "ends": "source_turn", "source": source},
    )
    s.do("end_turn", actor=source)  # the turn it was given in
    assert s.state.combatants[target].has("marked")
    _end_turns_until(s, source)  # the source's next turn: still marked while it lasts
    assert s.state.combatants[target].has("marked")
    s.do("end_turn", actor=source)
    assert not s.state.combatants[target].has("marked")
    assert audit(s.log, workers=1).clean


def test_a_condition_until_a_turn_is_cleared_when_its_bearer_is_defeated():
    s = new_session(begin=True)
    first = s.state.acting[0]
    s.do("override", reason="dodges", condition={"target": first, "name": "dodging", "ends": "bearer_turn"})
    s.do("override", reason="a rock", defeat={"target": first, "how": "down"})
    assert not s.state.combatants[first].has("dodging")


# --- conditions that change attack rolls --------------------------------------------------


def test_conditions_give_advantage_disadvantage_a_bonus_and_a_reroll_to_every_attack(monkeypatch):
    from combatlog.engine.protocol import RollMods
    from combatlog.engine.rules.skirmish import SKIRMISH
    from combatlog.events import DiceRolled

    monkeypatch.setattr(
        type(SKIRMISH),
        "targeted_mods",
        {"dodging": RollMods(advantage=-1), "prone": RollMods(advantage=1)},
    )
    monkeypatch.setattr(
        type(SKIRMISH), "rolling_mods", {"blessed": RollMods(bonus=2), "lucky": RollMods(reroll_below=2)}
    )
    s = new_session(begin=True)
    actor = s.state.acting[0]
    attack = s.state.combatants[actor].stats.attack
    foe = next(c.id for c in s.state.active() if c.side != s.state.combatants[actor].side)

    def strike_roll(*conditions_on_foe: str, mine: tuple[str, ...] = ()) -> list:
        t = new_session(begin=True)
        for name in conditions_on_foe:
            t.do("override", reason="set up", condition={"target": foe, "name": name})
        for name in mine:
            t.do("override", reason="set up", condition={"target": actor, "name": name})
        envs = t.do("act", actor=actor, action="strike", targets=(foe,))
        return [e.event for e in envs if isinstance(e.event, DiceRolled)]

    assert strike_roll("dodging")[0].expression == f"2d20kl1+{attack}"
    assert strike_roll("prone")[0].expression == f"2d20kh1+{attack}"
    assert strike_roll("dodging", "prone")[0].expression == f"1d20+{attack}"  # they cancel
    assert strike_roll(mine=("blessed",))[0].expression == f"1d20+{attack + 2}"
    plain = strike_roll()
    assert plain[0].expression == f"1d20+{attack}"  # nothing on either: the roll as the system wrote it
    t = new_session(begin=True)
    t.do("override", reason="set up", condition={"target": actor, "name": "lucky"})
    from tests.builders import act

    events = act(t, actor, "strike", foe, faces=(1, 15, 3))  # a 1, rolled again: 15, then the damage
    rolled = [e for e in events if isinstance(e, DiceRolled)]
    assert [r.faces for r in rolled] == [(1,), (15,), (3,)] and "rolled again: 1" in rolled[1].purpose


def _weak_hitter(seed: int = 7) -> Session:
    """Ayla alone against g1, her damage 1d4-3 (a roll of 1 or 2 is below 0); begun, Ayla first."""
    from tests.builders import fighter

    ayla = fighter("ayla", "party", kind="pc", hp=14, init=9, attack=20, defense=12, damage="1d4-3", ap=7)
    g1 = fighter("g1", "goblins", hp=7, init=0, attack=0, defense=10, damage="1d6", ap=5)
    return new_session(seed=seed, combatants=[ayla, g1], begin=True)


def test_a_hit_whose_damage_rolls_below_zero_deals_nothing_never_heals():
    from tests.builders import act

    s = _weak_hitter()
    assert s.state.acting == ("ayla",)
    events = act(s, "ayla", "strike", "g1", faces=[10, 1])  # hits; 1d4-3 = -2
    assert [e.amount for e in events_of_type(events, DamageApplied)] == [0]
    assert s.state.combatants["g1"].damage == 0
    assert audit(s.log).clean


def test_a_skirmish_log_of_version_1_still_re_decides_its_negative_damage(monkeypatch):
    from combatlog.engine import get_rules
    from tests.builders import act

    monkeypatch.setattr(type(get_rules("skirmish")), "version", "1")
    s = _weak_hitter()
    act(s, "ayla", "strike", "g1", faces=[10, 1])
    assert s.state.rules_version == "1" and s.state.combatants["g1"].damage == -2  # as version 1 decided
    monkeypatch.undo()
    assert audit(s.log).clean  # re-decided under the version it was recorded with


def test_a_log_of_another_version_of_its_rules_is_read_but_not_played_on(monkeypatch, tmp_path):
    from click.testing import CliRunner

    from combatlog.cli.main import app
    from combatlog.engine import get_rules
    from combatlog.replays import JsonlLog, copy_log

    monkeypatch.setattr(type(get_rules("skirmish")), "version", "1")
    recorded = _weak_hitter().log
    monkeypatch.undo()  # this combatlog plays its own version again
    now = f"skirmish {get_rules('skirmish').version}"
    path = tmp_path / "v1.jsonl"
    copy_log(recorded, JsonlLog(path))
    before = path.read_bytes()
    session = Session(JsonlLog(path))
    for command in (session.auto, session.undo, lambda: session.do("note", text="later")):
        with pytest.raises(Refused, match=f"recorded under skirmish 1, and this combatlog plays {now}"):
            command()
    result = CliRunner().invoke(app, ["do", str(path), "auto"])
    assert result.exit_code == 1 and "skirmish 1" in result.output and now in result.output
    assert result.output.strip().count("\n") == 0, result.output
    assert path.read_bytes() == before
    assert CliRunner().invoke(app, ["show", str(path)]).exit_code == 0  # still read
    assert audit(JsonlLog(path)).clean


def events_of_type(events, cls):
    return [e for e in events if isinstance(e, cls)]
