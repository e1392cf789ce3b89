"""One guard, one sentence: an action whose target is gone by the time it resolves is lost, in
the words of `gone` (in the protocol), for every system; a log recorded before that re-decides with the
words (and effects) its version had."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from combatlog.engine import RuleSystem, Session, get_rules, make_timing, registry, rules_of
from combatlog.engine.draft import Draft
from combatlog.engine.errors import Refused
from combatlog.engine.protocol import ActionSpec, gone
from combatlog.engine.session import dice_for
from combatlog.engine.turns import resolve
from combatlog.events import (
    ActionDeclared,
    ActionResolved,
    CombatantDefeated,
    Command,
    ConditionRemoved,
    Moved,
    ResolutionStarted,
    decode_line,
)
from combatlog.projections import Pending
from combatlog.replays import MemoryLog
from combatlog.replays.audit import audit
from tests import builders

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

# each system: its rules version before the guard, and what that version said when the target
# was defeated ({how}) or removed; None: it resolved the action all the same
BEFORE: dict[str, tuple[str, str | None, str | None]] = {
    "skirmish": ("2", "{name} is already down", "{name} is already down"),
    "starflight": ("1", "{name} is already {how}", "{name} is already gone"),
    "straalara": ("2", "no attack: {name} is already {how}", "no attack: {name} is already gone"),
    "infinite-realms": ("2", "{name} is already {how}", "{name} is already None"),
    "swords-of-infinity": ("2", "{name} is already {how}", "{name} is already None"),
    "triptycho": ("1", None, None),
}


def bundled(system: str, monkeypatch: pytest.MonkeyPatch, version: str | None = None, **options: Any) -> Session:
    """The bundled encounter of `system` (created under rules `version` if given), begun."""
    if version is not None:
        monkeypatch.setattr(type(get_rules(system)), "version", version)  # what a log of that version recorded
    s = Session(MemoryLog())
    for command in read_commands(system):
        if command.kind == "create" and options:
            given = dict(command.params)
            given["options"] = {**given.get("options", {}), **options}
            command = msgspec.structs.replace(command, params=given)
        s.execute(command)
    s.do("begin")
    return s


def read_commands(system: str) -> list[Command]:
    from combatlog.engine.encounter_file import read_encounter

    (path,) = EXAMPLES.glob(f"{system}-*.toml")
    return read_encounter(path)


def aimed(s: Session) -> Command:
    """The action the automatic combatant whose turn it is aims at someone (not taken yet)."""
    command = s.rules.policy(s.state, s.state.combatants[s.state.acting[0]])
    assert command.kind == "act" and command.targets, command
    return command


def take_out(s: Session, target: str, how: str) -> None:
    """The game master defeats `target` (`how`: "felled") or removes it ("removed")."""
    if how == "removed":
        s.do("remove", actor=target)
    else:
        s.do("override", reason="a stray boulder", defeat={"target": target, "how": how})


def resolved_now(s: Session, command: Command) -> list[Any]:
    """The events of resolving `command`'s action on the state as it stands (`turns.resolve`,
    as the round's end or an immediate action calls it)."""
    step = s.projection.step + 1
    draft = Draft(s.state, dice_for(s.state, command, step), rules_of(s.state), step)
    pending = Pending(
        id="aimed", actor=str(command.actor), action=str(command.action), targets=command.targets, params=command.params
    )
    draft.emit(ResolutionStarted(category=None))  # as an action resolving at once begins
    resolve(draft, pending)
    return draft.events[1:]


def test_the_one_sentence_says_removed_or_out_of_the_fight_with_how(monkeypatch):
    s = bundled("skirmish", monkeypatch)
    g1 = s.state.combatants["g1"]
    assert gone(g1) is None
    take_out(s, "g1", "felled")
    assert gone(s.state.combatants["g1"]) == f"lost: {g1.name} is already out of the fight (felled)"
    take_out(s, "g2", "removed")
    assert gone(s.state.combatants["g2"]) == f"lost: {s.state.combatants['g2'].name} is no longer in the encounter"


@pytest.mark.parametrize("system", sorted(BEFORE))
@pytest.mark.parametrize("how", ["felled", "removed"])
def test_an_action_at_a_target_gone_is_lost_before_its_mechanics_in_one_sentence(system, how, monkeypatch):
    s = bundled(system, monkeypatch)
    command = aimed(s)
    target = s.state.combatants[command.targets[0]]
    take_out(s, target.id, how)
    said = (
        f"lost: {target.name} is no longer in the encounter"
        if how == "removed"
        else f"lost: {target.name} is already out of the fight (felled)"
    )
    assert resolved_now(s, command) == [ActionResolved(id="aimed", outcome=said)]  # no die, no effect


@pytest.mark.parametrize("system", sorted(BEFORE))
@pytest.mark.parametrize("how", ["felled", "removed"])
def test_a_log_of_the_version_before_says_what_that_version_said(system, how, monkeypatch):
    version, defeated, removed = BEFORE[system]
    s = bundled(system, monkeypatch, version=version)
    command = aimed(s)
    target = s.state.combatants[command.targets[0]]
    take_out(s, target.id, how)
    events = resolved_now(s, command)
    old = removed if how == "removed" else defeated
    if old is None:  # the action resolved all the same: the card is played, its dice rolled
        assert events[-1].outcome.startswith("plays ") and len(events) > 2
    else:
        assert events == [ActionResolved(id="aimed", outcome=old.format(name=target.name, how="felled"))]


@pytest.mark.parametrize(
    "version, said", [(None, "lost: Ayla is already out of the fight (unconscious)"), ("1", "Ayla is unconscious")]
)
def test_a_starflight_healer_whose_patient_fell_first_heals_no_one(version, said, monkeypatch):
    s = bundled("starflight", monkeypatch, version=version)
    assert s.state.acting == ("korr",)  # Korr has heal dice; Ayla is of his side
    take_out(s, "ayla", "unconscious")
    heal = Command(kind="act", actor="korr", action="heal", targets=("ayla",))
    assert resolved_now(s, heal) == [ActionResolved(id="aimed", outcome=said)]


# --- end to end: actions that wait for the round's end, in a log that audits clean ---------


def declared_then_taken_out(s: Session, how: str, **params: Any) -> tuple[str, Any, list[Any]]:
    """The acting combatant declares what its policy aims (with `params` added); the game master
    then takes its target out; the fight goes on until that action resolves. Returns the
    action's id, its target, and the events of the step that resolved it."""
    command = aimed(s)
    command = msgspec.structs.replace(command, params={**command.params, **params})
    step = [e.event for e in s.execute(command)]
    assert not any(isinstance(e, ActionResolved) for e in step)  # it waits for the round's end
    action = next(e.id for e in step if isinstance(e, ActionDeclared))
    target = s.state.combatants[command.targets[0]]
    take_out(s, target.id, how)
    for _ in range(50):
        events = [e.event for e in s.auto()]
        if any(isinstance(e, ActionResolved) and e.id == action for e in events):
            return action, target, events
    raise AssertionError("the action never resolved")


def outcome_of(action: str, events: list[Any]) -> str:
    return next(e.outcome for e in events if isinstance(e, ActionResolved) and e.id == action)


@pytest.mark.parametrize(
    "system, options",
    [("skirmish", {"timing": "simultaneous"}), ("starflight", {"timing": "simultaneous"}), ("straalara", {})],
)
@pytest.mark.parametrize("how", ["felled", "removed"])
def test_a_declared_action_whose_target_the_game_master_took_out_is_lost_at_the_round_end(
    system, options, how, monkeypatch
):
    s = bundled(system, monkeypatch, **options)
    action, target, events = declared_then_taken_out(s, how)
    said = outcome_of(action, events)
    assert said == (
        f"lost: {target.name} is no longer in the encounter"
        if how == "removed"
        else f"lost: {target.name} is already out of the fight (felled)"
    )
    assert audit(s.log).clean


@pytest.mark.parametrize(
    "system, options",
    [("skirmish", {"timing": "simultaneous"}), ("starflight", {"timing": "simultaneous"}), ("straalara", {})],
)
@pytest.mark.parametrize("how", ["felled", "removed"])
def test_a_log_of_the_version_before_re_decides_its_own_words_at_the_round_end(system, options, how, monkeypatch):
    version, defeated, removed = BEFORE[system]
    s = bundled(system, monkeypatch, version=version, **options)
    action, target, events = declared_then_taken_out(s, how)
    old = (removed if how == "removed" else defeated) or ""
    assert outcome_of(action, events) == old.format(name=target.name, how="felled")
    monkeypatch.undo()  # audited by this combatlog's version of the rules
    report = audit(s.log)
    assert report.clean and report.notes == [f"recorded under {system} {version}, audited with {s.rules.version}"]


def test_straalara_loses_the_attack_whole_its_move_too_where_version_2_moved_first(monkeypatch):
    s = bundled("straalara", monkeypatch)
    action, target, events = declared_then_taken_out(s, "felled", move_to="the far end")
    assert outcome_of(action, events) == f"lost: {target.name} is already out of the fight (felled)"
    assert not any(isinstance(e, Moved) for e in events)
    old = bundled("straalara", monkeypatch, version="2")
    action, target, events = declared_then_taken_out(old, "felled", move_to="the far end")
    assert outcome_of(action, events) == f"no attack: {target.name} is already felled"
    assert [e.to for e in events if isinstance(e, Moved)] == ["the far end"]
    monkeypatch.undo()
    assert audit(old.log).clean


@pytest.mark.parametrize("version", [None, "2"])
def test_a_dazed_straalara_combatant_loses_its_action_to_the_daze_before_its_target_is_looked_at(version, monkeypatch):
    s = bundled("straalara", monkeypatch, version=version)
    command = aimed(s)
    actor = s.state.combatants[str(command.actor)]
    s.do("override", reason="t", condition={"target": actor.id, "name": "dazed"})
    take_out(s, command.targets[0], "felled")
    events = resolved_now(s, command)
    assert events == [
        ConditionRemoved(target=actor.id, condition="dazed", reason="the action is lost"),  # spent on it
        ActionResolved(id="aimed", outcome=f"lost: {actor.name} is Dazed"),
    ]


# --- Swords of Infinity: a dual attack's second blow at the one the first felled ------------


SWORD = {"name": "sword", "skill": 10, "weight": 0, "power": 50}
DUELLIST = {"vitality": 30, "dexterity": 40, "awareness": 30, "weapons": [SWORD, {**SWORD, "name": "dagger"}]}


def dual_felling(monkeypatch: pytest.MonkeyPatch, version: str | None = None) -> tuple[Session, str]:
    if version is not None:
        monkeypatch.setattr(type(get_rules("swords-of-infinity")), "version", version)
    s = builders.encounter(
        "swords-of-infinity",
        builders.fighter("a", "A", name="Ayla", defaults=DUELLIST),
        builders.fighter("b", "B", name="Bran", defaults={**DUELLIST, "vitality": 1}),
        builders.fighter("c", "B", name="Cole", defaults=DUELLIST),
    )
    builders.forced(s, "begin", [10, 98, 99])
    # the hit roll's ones digit 9: the head; power 40 disables Bran's head: unconscious
    events = builders.forced(s, "act", [29, 40], actor="a", action="dual_attack", targets=("b",))
    assert s.state.combatants["b"].defeated == "unconscious"
    return s, next(e.outcome for e in events if isinstance(e, ActionResolved))


def test_a_dual_attacks_second_blow_at_the_one_the_first_felled_is_lost_in_the_one_sentence(monkeypatch):
    s, said = dual_felling(monkeypatch)
    assert said.endswith("; dagger (off hand): lost: Bran is already out of the fight (unconscious)")
    assert said.startswith("sword: hit roll 29 against 50: a hit; power 40 against 50; 40 damage to the head")


def test_a_dual_attack_of_version_2_said_already_unconscious_and_audits_clean(monkeypatch):
    s, said = dual_felling(monkeypatch, version="2")
    assert said.endswith("; dagger (off hand): Bran is already unconscious")
    monkeypatch.undo()
    assert audit(s.log).clean


# --- targets_down_ok: an action meant for the fallen -------------------------------------


def _tend(draft: Draft, p: Pending) -> str:
    return f"tends {draft.state.combatants[p.targets[0]].name}"


def _blow(draft: Draft, p: Pending) -> str:
    draft.emit(CombatantDefeated(combatant=p.targets[0], how="struck"))
    return "struck"


class Field(RuleSystem):
    """A system of simultaneous blows and a medic who tends the fallen."""

    name = "field"

    def timing(self, options: dict[str, Any]) -> Any:
        return make_timing("simultaneous")

    def initiative(self, draft: Draft, combatant: Any, ids: tuple[str, ...]) -> int:
        return draft.roll("1d6", "initiative", by=combatant.id).total

    def actions(self, state: Any, actor: Any) -> list[ActionSpec]:
        return [
            ActionSpec("blow", "melee", {"actions": 1}, _blow),
            ActionSpec("tend", None, {"actions": 1}, _tend, targets="ally", targets_down_ok=True),
        ]


@pytest.fixture
def field():
    registry.register(Field())
    s = Session(MemoryLog())
    s.do("create", rules="field", seed=1)
    for cid, side in (("ana", "left"), ("medic", "left"), ("bo", "right"), ("cy", "right")):
        s.do("add", id=cid, name=cid.capitalize(), side=side)
    s.do("begin")
    yield s
    registry._systems.pop("field", None)


def outcomes(s: Session) -> list[str]:
    """The outcomes of the actions resolved once every turn of the round has ended."""
    while s.state.pending:
        s.do("end_turn")
    return [e.outcome for e in (decode_line(line).event for line in s.log.lines(1)) if isinstance(e, ActionResolved)]


def declare(s: Session, actor: str, action: str, target: str) -> None:
    while actor not in s.state.acting:
        s.do("end_turn")
    s.do("act", actor=actor, action=action, targets=(target,))


def test_an_action_that_says_targets_down_ok_resolves_on_a_target_that_fell_before_it(field):
    declare(field, "medic", "tend", "ana")
    take_out(field, "ana", "felled")
    assert outcomes(field) == ["tends Ana"]


def test_an_action_that_says_targets_down_ok_may_be_declared_at_the_fallen_and_no_other(field):
    take_out(field, "ana", "felled")
    declare(field, "medic", "tend", "ana")
    assert field.state.pending[-1].targets == ("ana",)
    with pytest.raises(Refused, match="Bo: blow at 'ana': not a valid target; targets: medic$"):
        declare(field, "bo", "blow", "ana")


def test_a_removed_target_is_gone_even_for_an_action_meant_for_the_fallen(field):
    declare(field, "medic", "tend", "ana")
    take_out(field, "ana", "removed")
    assert outcomes(field) == ["lost: Ana is no longer in the encounter"]
