"""decide's checks and defaults, each pinned by what a game master sees: the events, or the refusal's words.

Each test here fails against a mutant of `engine/decide.py` that the rest of the suite let
through (docs/mutation.md).
"""

from __future__ import annotations

import re

import pytest

from combatlog.engine import Refused, Session
from combatlog.engine.decide import legal_commands
from combatlog.engine.protocol import ActionSpec
from combatlog.events import ActionDeclared, DamageApplied, Moved, ResourcesSet, TurnEnded, ViewSet
from combatlog.replays import MemoryLog
from tests.builders import PARTY, new_session, of


def step_events(s: Session) -> list:
    """The events of the session's last step (its command left out)."""
    from combatlog.events import decode_line

    envs = [decode_line(line) for line in s.log.lines()]
    return [e.event for e in envs if e.step == envs[-1].step][1:]


def enemy_of(s: Session, cid: str) -> str:
    side = s.state.combatants[cid].side
    return next(c.id for c in s.state.active() if c.side != side)


# --- acting ----------------------------------------------------------------------------------------


def test_an_action_is_declared_under_the_number_of_the_step_that_declares_it():
    s = new_session(seed=7, begin=True)
    actor = s.state.acting[0]
    s.do("act", actor=actor, action="strike", targets=(enemy_of(s, actor),))
    declared = of(step_events(s), ActionDeclared)
    assert [d.id for d in declared] == [str(s.projection.step)]


def test_a_self_targeted_action_takes_its_own_taker_named_as_the_target():
    s = new_session(seed=7, begin=True)
    actor = s.state.acting[0]
    s.do("act", actor=actor, action="guard", targets=(actor,))
    assert of(step_events(s), ActionDeclared)[0].targets == (actor,)


def test_an_action_that_costs_more_than_is_left_says_what_is_left_and_what_can_be_done():
    s = new_session(seed=7, begin=True, order="action-points")
    actor = s.state.acting[0]
    target = enemy_of(s, actor)
    s.do("override", reason="spent", resources={"target": actor, "values": {}})
    with pytest.raises(Refused) as none_left:
        s.do("act", actor=actor, action="strike", targets=(target,))
    assert str(none_left.value).endswith("costs 3 ap but ap 0 left; can do: end the turn")
    s.do("override", reason="spent", resources={"target": actor, "values": {"ap": 1}})
    with pytest.raises(Refused) as one_left:
        s.do("act", actor=actor, action="strike", targets=(target,))
    assert str(one_left.value).endswith("costs 3 ap but ap 1 left; can do: move")


def test_ally_and_enemy_targets_are_offered_whatever_order_the_combatants_were_added_in(monkeypatch):
    bo, ayla, g1, g2 = (next(c for c in PARTY if c["id"] == cid) for cid in ("bo", "ayla", "g1", "g2"))
    s = new_session(seed=7, begin=True, combatants=[g1, ayla, g2, bo])
    actor = s.state.acting[0]
    side = s.state.combatants[actor].side
    allies = [c.id for c in s.state.active() if c.side == side]
    enemies = [c.id for c in s.state.active() if c.side != side]
    aid = ActionSpec(name="aid", category=None, cost={}, resolve=lambda draft, pending: "aided", targets="ally")
    monkeypatch.setattr(s.rules, "action", lambda state, who, name: aid)
    with pytest.raises(Refused) as at_enemy:
        s.do("act", actor=actor, action="aid", targets=(enemies[0],))
    assert str(at_enemy.value).endswith("targets: " + ", ".join(allies))
    monkeypatch.setattr(s.rules, "action", lambda state, who, name: ActionSpec(**{**aid.__dict__, "targets": "enemy"}))
    with pytest.raises(Refused) as at_ally:
        s.do("act", actor=actor, action="aid", targets=(allies[0],))
    assert str(at_ally.value).endswith("targets: " + ", ".join(enemies))


# --- turns and combatants ---------------------------------------------------------------------------


def test_removing_the_combatant_whose_turn_it_is_passes_the_turn_on():
    s = new_session(seed=7, begin=True)
    actor = s.state.acting[0]
    s.do("remove", actor=actor)
    events = step_events(s)
    assert TurnEnded(actors=(actor,)) in events
    assert s.state.acting and actor not in s.state.acting


def test_ending_the_turn_without_naming_anyone_ends_every_turn_now_taken():
    s = new_session(seed=7, begin=True, timing="simultaneous")
    acting = s.state.acting
    s.do("end_turn")
    assert of(step_events(s), TurnEnded)[0].actors == acting


def test_a_stat_refusal_without_a_name_is_given_the_combatants(monkeypatch):
    s = new_session(seed=7)

    def refuse(what):
        def check(stats, who=""):
            raise Refused(what, "not a stat this system knows")

        return check

    monkeypatch.setattr(s.rules, "check_combatant", refuse("combatant"))
    with pytest.raises(Refused) as bare:
        s.do("add", id="g9", side="goblins", stats={"hp": 3})
    assert bare.value.what == "combatant g9"
    monkeypatch.setattr(s.rules, "check_combatant", refuse("$.hp"))
    with pytest.raises(Refused) as named_stat:
        s.do("add", id="g9", side="goblins", stats={"hp": 3})
    assert named_stat.value.what == "combatant g9: $.hp"
    monkeypatch.setattr(s.rules, "check_combatant", refuse("combatant g9: $.hp"))
    with pytest.raises(Refused) as already:
        s.do("add", id="g9", side="goblins", stats={"hp": 3})
    assert already.value.what == "combatant g9: $.hp"


# --- the game master -------------------------------------------------------------------------------


def test_a_ruling_with_a_topic_is_recorded_and_one_without_is_refused():
    s = new_session(seed=7, begin=True)
    s.do("ruling", topic="cover", decision="half")
    assert step_events(s)[0].topic == "cover"
    with pytest.raises(Refused, match="a ruling needs a topic"):
        s.do("ruling", decision="half")


@pytest.mark.parametrize(
    ("params", "event"),
    [
        ({"side": "goblins", "hp": "level"}, ViewSet(side="goblins", hp="level")),
        ({"combatant": "g1", "hidden": True}, ViewSet(combatant="g1", hidden=True)),
    ],
)
def test_a_view_names_a_side_and_how_its_health_shows_or_a_combatant_and_whether_hidden(params, event):
    s = new_session(seed=7, begin=True)
    s.do("view", **params)
    assert step_events(s) == [event]


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"side": "goblins"},
        {"combatant": "g1"},
        {"hp": "level"},
        {"hidden": True},
        {"side": "goblins", "hp": "level", "combatant": "g1", "hidden": True},
    ],
)
def test_a_view_that_doesnt_say_what_the_players_see_is_refused(params):
    s = new_session(seed=7, begin=True)
    with pytest.raises(Refused, match="say what the players see"):
        s.do("view", **params)


def test_an_override_with_nothing_to_do_or_an_unknown_effect_is_refused_naming_the_effects():
    s = new_session(seed=7, begin=True)
    for params, said in [
        ({}, "override: nothing to override; give one of damage, condition"),
        ({"heal": {"target": "g1"}}, "override: nothing to override with heal; give one of damage"),
        ({"heal": {"target": "g1"}, "damage": {"target": "g1", "amount": 1}}, "nothing to override with heal;"),
    ]:
        with pytest.raises(Refused) as caught:
            s.do("override", reason="because", **params)
        assert said in str(caught.value)


def test_override_defaults_no_damage_and_no_distance_and_sets_resources_as_given():
    s = new_session(seed=7, begin=True)
    s.do("override", reason="a scratch", damage={"target": "g1"})
    assert of(step_events(s), DamageApplied)[0].amount == 0
    s.do("override", reason="pushed", move={"target": "g1", "to": "B2"})
    assert of(step_events(s), Moved)[0].distance == 0
    s.do("override", reason="rested", resources={"target": "g1", "values": {"ap": "2"}})
    assert of(step_events(s), ResourcesSet) == [ResourcesSet(combatant="g1", resources={"ap": 2})]
    assert s.state.combatants["g1"].resources == {"ap": 2}


# --- what can be done now ----------------------------------------------------------------------------


def test_the_commands_offered_follow_the_encounter_from_its_creation_to_its_end():
    s = Session(MemoryLog())
    assert legal_commands(s.projection) == ["create"]
    s.do("create", rules="skirmish", options={}, seed=7)
    setup = ["add", "remove", "surprise", "begin", "note", "ruling", "view", "override", "end"]
    assert legal_commands(s.projection) == setup
    for c in PARTY:
        s.do("add", **c)
    s.do("surprise", sides=["goblins"])
    assert legal_commands(s.projection)[:3] == ["add", "remove", "begin"]
    assert "undo" in legal_commands(s.projection)
    s.do("begin")
    assert legal_commands(s.projection)[:2] == ["act", "end_turn"]
    s.do("end", outcome="they fled")
    assert legal_commands(s.projection) == ["note", "ruling", "view", "undo"]
    s.undo()
    assert legal_commands(s.projection)[-1] == "redo"


# --- refusals that name what is there ------------------------------------------------------------------


def test_commands_after_the_end_are_refused_naming_what_is_still_taken(monkeypatch):
    s = new_session(seed=7, begin=True)
    actor = s.state.acting[0]
    s.do("end", outcome="they fled")
    with pytest.raises(Refused) as plain:
        s.do("act", actor=actor, action="strike", targets=(enemy_of(s, actor),))
    assert str(plain.value).endswith("the encounter is over (they fled); you can undo, add a note or a ruling")
    monkeypatch.setattr(s.rules, "after_end", ("recover",))
    with pytest.raises(Refused) as more:
        s.do("end_turn")
    assert str(more.value).endswith("you can undo, add a note or a ruling, or recover")


def test_creating_under_rules_nobody_installed_is_refused_naming_the_installed_ones():
    s = Session(MemoryLog())
    with pytest.raises(Refused) as caught:
        s.do("create", rules="no-such-rules", options={})
    assert str(caught.value).startswith("create: no rule system 'no-such-rules'; installed: ")
    assert "skirmish" in str(caught.value)


def test_a_fight_needs_two_sides_and_a_surprise_names_sides_that_are_there():
    s = new_session(seed=7, combatants=[c for c in PARTY if c["side"] == "party"])
    with pytest.raises(Refused, match="a fight needs combatants on at least two sides"):
        s.do("begin")
    with pytest.raises(Refused, match=r"surprise 'goblins': no such side; sides: party"):
        s.do("surprise", sides=["goblins"])


def test_naming_no_combatant_or_one_that_isnt_there_lists_the_ids_or_none():
    s = new_session(seed=7, combatants=())
    with pytest.raises(Refused) as none_yet:
        s.do("remove", actor="g1")
    assert str(none_yet.value).endswith("remove 'g1': no such combatant; ids: none")
    with pytest.raises(Refused) as no_side:
        s.do("view", side="goblins", hp="level")
    assert str(no_side.value).endswith("no such side; sides: none yet")
    s = new_session(seed=7)
    with pytest.raises(Refused) as unnamed:
        s.do("remove")
    assert str(unnamed.value).endswith("remove: name a combatant; ids: ayla, bo, g1, g2")


def test_an_action_is_short_of_a_resource_the_taker_doesnt_have_unless_it_costs_none_of_it(monkeypatch):
    s = new_session(seed=7, begin=True, order="action-points")
    actor = s.state.acting[0]
    s.do("override", reason="spent", resources={"target": actor, "values": {}})
    with pytest.raises(Refused, match="costs 1 ap but ap 0 left"):
        s.do("act", actor=actor, action="move", to="B2")
    monkeypatch.setattr(s.rules, "cost", lambda state, who, spec, params: {"ap": 0})
    s.do("act", actor=actor, action="move", to="B2")
    assert of(step_events(s), ActionDeclared)[0].cost == {"ap": 0}


@pytest.mark.parametrize(
    ("example", "bad", "good", "says"),
    [
        ("starflight-patrol", "a,b", "3,4", "is not a square of the grid; give x,y"),
        ("swords-of-infinity-ambush", "1,2,3", "2,5", "is not a square of the grid; give x,y"),
        ("triptycho-cistern", "nowhere", "gallery", "no section 'nowhere' on the map (sections: stair, gallery"),
    ],
)
def test_a_move_override_to_a_place_the_system_cant_read_is_refused_and_appends_nothing(example, bad, good, says):
    from pathlib import Path

    from combatlog.engine.encounter_file import read_encounter

    session = Session(MemoryLog())
    for command in read_encounter(Path(__file__).resolve().parents[1] / "examples" / f"{example}.toml"):
        session.execute(command)
    session.do("begin")
    who = sorted(session.state.combatants)[0]
    head = session.log.head()
    with pytest.raises(Refused, match=re.escape(says)):
        session.do("override", reason="the cliff gives way", move={"target": who, "to": bad})
    assert session.log.head() == head  # refused whole: not even the GmOverride line
    session.do("override", reason="the cliff gives way", move={"target": who, "to": good})
    assert session.state.combatants[who].position == good
    assert session.play_out(max_steps=2_000) > 0 and session.state.phase == "end"  # the fight reads it and goes on


def test_a_defeated_or_removed_combatant_is_not_a_valid_target_and_the_refusal_lists_who_is():
    for how in ("defeated", "removed"):
        s = new_session(seed=7, begin=True)
        actor = s.state.acting[0]
        gone, left = [c.id for c in s.state.active() if c.side != s.state.combatants[actor].side]
        if how == "defeated":
            s.do("override", reason="a rock slide", defeat={"target": gone})
        else:
            s.do("remove", actor=gone, reason="fled")
        with pytest.raises(Refused, match="not a valid target") as refused:
            s.do("act", actor=actor, action="strike", targets=(gone,))
        assert refused.value.allowed == f"targets: {left}", how
