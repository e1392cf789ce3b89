"""The fold's own checks and its small handlers, each pinned by what it leaves in the state.

Each test here fails against a mutant of `projections/fold.py` that the rest of the suite let
through (docs/mutation.md).
"""

from __future__ import annotations

import importlib

import msgspec
import pytest

from combatlog.events import catalogue as ev
from combatlog.events import decode_line
from combatlog.projections import FoldError, Projection, fold
from combatlog.projections.fold import apply, put_extra
from combatlog.projections.state import Combatant, Condition, Encounter, PlayerView
from tests.builders import encounter, lines, new_session

fold_module = importlib.import_module("combatlog.projections.fold")  # the package's `fold` is the function


def two() -> Encounter:
    return Encounter(
        rules="skirmish",
        combatants={
            "ayla": Combatant(id="ayla", name="Ayla", side="party"),
            "g1": Combatant(id="g1", name="Goblin", side="goblins"),
        },
    )


def envelopes_of(session) -> list:
    return [decode_line(line) for line in lines(session)]


# --- an event naming a combatant that isn't there -------------------------------------------------


@pytest.mark.parametrize(
    "event",
    [
        ev.ResourcesSet(combatant="nobody", resources={"ap": 3}),
        ev.ResourceSpent(combatant="nobody", resource="ap", amount=1),
        ev.DamageApplied(target="nobody", amount=2),
        ev.DamageApplied(target="nobody", amount=2, location="head"),
        ev.Moved(combatant="nobody", to="B2"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_an_event_naming_an_unknown_combatant_is_a_fold_error_naming_the_known_ones(event):
    with pytest.raises(KeyError, match=r"no combatant 'nobody' \(known: ayla, g1\)"):
        apply(two(), event)


def test_a_projection_turns_an_unknown_combatant_into_a_fold_error_at_its_seq():
    s = new_session(seed=7, begin=True)
    envs = envelopes_of(s)
    p = fold(envs)
    last = envs[-1]
    bad = msgspec.structs.replace(last, seq=last.seq + 1, event=ev.DamageApplied(target="nobody", amount=1))
    with pytest.raises(FoldError) as caught:
        p.apply(bad)
    assert str(caught.value) == f"seq {last.seq + 1}: no combatant 'nobody' (known: ayla, bo, g1, g2)"
    assert caught.value.seq == last.seq + 1


def test_known_combatants_take_resources_and_damage():
    state = apply(two(), ev.ResourcesSet(combatant="ayla", resources={"ap": 3}))
    state = apply(state, ev.ResourceSpent(combatant="ayla", resource="ap", amount=1))
    state = apply(state, ev.DamageApplied(target="ayla", amount=2))
    state = apply(state, ev.DamageApplied(target="ayla", amount=1, location="arm"))
    ayla = state.combatants["ayla"]
    assert ayla.resources == {"ap": 2} and ayla.damage == 3 and ayla.wounds == {"arm": 1}


# --- conditions lapse as rounds end ----------------------------------------------------------------


def test_a_condition_of_two_rounds_lapses_at_the_second_round_end_and_one_without_a_count_stays():
    state = apply(two(), ev.ConditionApplied(target="ayla", condition="stunned", duration=2))
    state = apply(state, ev.ConditionApplied(target="ayla", condition="prone"))
    state = apply(state, ev.RoundEnded(round=1))
    assert state.combatants["ayla"].conditions == (Condition(name="stunned", remaining=1), Condition(name="prone"))
    state = apply(state, ev.RoundEnded(round=2))
    assert state.combatants["ayla"].conditions == (Condition(name="prone"),)


def test_a_one_round_condition_on_a_combatant_with_no_other_lapses_at_the_round_end():
    state = apply(two(), ev.ConditionApplied(target="g1", condition="dazed", duration=1))
    assert apply(state, ev.RoundEnded(round=1)).combatants["g1"].conditions == ()


# --- rounds, passes, turns ------------------------------------------------------------------------


def test_an_initiative_roll_gives_each_combatant_it_names_its_value_and_tiebreak():
    state = apply(two(), ev.InitiativeRolled(combatants=("ayla", "g1"), value=12, tiebreak=(3,)))
    assert [(c.initiative, c.tiebreak) for c in state.combatants.values()] == [(12, (3,)), (12, (3,))]


def test_a_new_round_starts_at_the_first_pass_with_nobody_acting():
    state = msgspec.structs.replace(two(), action_pass=2, acting=("ayla",), acted=("g1",), resolving="all")
    state = apply(state, ev.RoundStarted(round=2))
    assert (state.round, state.action_pass, state.acting, state.acted, state.resolving) == (2, 1, (), (), None)


def test_ending_one_of_two_turns_leaves_the_other_acting_and_still_declaring():
    state = msgspec.structs.replace(two(), acting=("ayla", "g1"), declaring=True)
    state = apply(state, ev.TurnEnded(actors=("ayla",)))
    assert (state.acting, state.declaring, state.acted) == (("g1",), True, ("ayla",))
    state = apply(state, ev.TurnEnded(actors=("g1",)))
    assert (state.acting, state.declaring, state.acted) == ((), False, ("ayla", "g1"))


def test_resolution_of_a_category_resolves_that_category_and_without_one_everything():
    assert apply(two(), ev.ResolutionStarted(category="missile")).resolving == "missile"
    assert apply(two(), ev.ResolutionStarted()).resolving == "all"


def test_spending_a_resource_never_set_leaves_it_below_zero():
    state = apply(two(), ev.ResourceSpent(combatant="ayla", resource="fate", amount=1))
    assert state.combatants["ayla"].resources == {"fate": -1}


# --- the players' view ------------------------------------------------------------------------------


def test_hiding_two_combatants_and_showing_one_again_keeps_the_other_hidden():
    state = apply(two(), ev.ViewSet(combatant="g1", hidden=True))
    state = apply(state, ev.ViewSet(combatant="ayla", hidden=True))
    state = apply(state, ev.ViewSet(combatant="g1", hidden=False))
    assert state.players == PlayerView(hidden=("ayla",))
    state = apply(state, ev.ViewSet(hidden=True))  # no combatant named: nothing to hide
    state = apply(state, ev.ViewSet(combatant="g1"))  # neither hidden nor shown: nothing changes
    assert state.players == PlayerView(hidden=("ayla",))


def test_hiding_a_combatant_leaves_the_sides_health_view_as_it_was():
    state = apply(two(), ev.ViewSet(side="goblins", hp="hidden"))
    state = apply(state, ev.ViewSet(combatant="g1", hidden=True))
    assert state.players == PlayerView(hp={"goblins": "hidden"}, hidden=("g1",))
    state = apply(state, ev.ViewSet(side="party"))  # a side without a setting changes nothing
    state = apply(state, ev.ViewSet(hp="exact"))  # nor a setting without a side
    assert state.players == PlayerView(hp={"goblins": "hidden"}, hidden=("g1",))


# --- a rule system's own state ----------------------------------------------------------------------


def test_put_extra_replaces_a_different_value_and_keeps_the_state_when_nothing_changes():
    state = put_extra(two(), "marks", "ayla", 1)
    assert state.extra == {"marks": {"ayla": 1}}
    assert put_extra(state, "marks", "ayla", 1) is state
    assert put_extra(state, "marks", "ayla", 2).extra == {"marks": {"ayla": 2}}
    assert put_extra(state, "marks", "ayla", None).extra == {"marks": {}}
    # equal but of another type (True == 1): the new value is stored as given
    assert type(put_extra(state, "marks", "ayla", True).extra["marks"]["ayla"]) is bool


def test_an_encounter_of_rules_nobody_has_installed_folds_with_an_empty_extra():
    created = ev.EncounterCreated(rules="no-such-rules", rules_version="1")
    state = apply(Encounter(), created)
    assert state.rules == "no-such-rules" and state.extra == {}


def test_the_rules_loader_is_asked_for_a_system_the_fold_meets_for_the_first_time(monkeypatch):
    class Marks(msgspec.Struct, frozen=True):
        count: int = 0

    asked: list[str] = []

    def loader(rules: str) -> None:
        asked.append(rules)
        fold_module.register_rules_state(rules, Marks)

    monkeypatch.setattr(fold_module, "_rules_loader", [loader])
    monkeypatch.setattr(fold_module, "_RULES_STATE", {})
    state = apply(Encounter(), ev.EncounterCreated(rules="marks-test", rules_version="1"))
    assert asked == ["marks-test"] and state.extra == Marks()


@pytest.mark.parametrize("rules", ["starflight", "infinite-realms"])
def test_a_snapshot_read_back_from_json_gives_the_rule_systems_own_state_type(rules):
    from combatlog.projections import Snapshot

    live = encounter(rules)
    snap = live.projection.snapshot()
    assert not isinstance(snap.state.extra, dict)
    back = msgspec.json.decode(msgspec.json.encode(snap, enc_hook=str), type=Snapshot)
    assert isinstance(back.state.extra, dict)  # plain data until a projection types it
    assert Projection(back).state == live.state


# --- the projection: its window, its stacks, its errors -----------------------------------------


def _note_steps(n: int) -> list:
    """A created encounter and then `n` steps of one note each, as envelopes."""
    from combatlog.events import GENESIS, Command, seal

    events = [(1, ev.CommandIssued(command=Command(kind="create", params={"rules": "skirmish"}), events=2))]
    events.append((1, ev.EncounterCreated(rules="skirmish", rules_version="1")))
    for step in range(2, n + 2):
        events.append((step, ev.CommandIssued(command=Command(kind="note", params={"text": "x"}), events=2)))
        events.append((step, ev.Note(text=str(step))))
    out, previous = [], GENESIS
    for seq, (step, event) in enumerate(events, start=1):
        _, env = seal(previous, seq, step, event)
        previous = env.digest
        out.append(env)
    return out


def test_a_long_fold_keeps_the_states_of_the_last_4096_steps_and_no_more():
    p = fold(_note_steps(4100))
    assert len(p.history) == 4096
    assert min(p.history) == 4101 - 4096 + 1 and max(p.history) == 4101


def test_fold_goes_on_from_the_projection_it_is_given():
    envs = _note_steps(3)
    p = fold(envs[:4])
    assert fold(envs[4:], p) is p and p.seq == len(envs)
    assert fold(envs[4:], fold(envs[:4]).snapshot()).state == p.state


def test_a_plain_fold_undoes_and_redoes_from_its_own_history():
    s = new_session(seed=7, begin=True)
    s.auto()
    s.undo()
    s.redo()
    s.auto()
    s.undo()
    p = fold(envelopes_of(s))  # would raise NeedsHistory if a step's states weren't kept
    assert p.state == s.state
    assert (p.undo, p.redo) == (s.projection.undo, s.projection.redo) and p.redo


def test_a_redo_of_the_wrong_step_names_the_one_that_can_be_redone():
    s = new_session(seed=7, begin=True)
    s.auto()
    s.auto()
    s.undo()
    s.undo()
    envs = envelopes_of(s)
    p = fold(envs)
    assert len(p.redo) == 2
    redoable = p.redo[-1]
    last = envs[-1]
    wrong = msgspec.structs.replace(last, seq=last.seq + 1, step=last.step + 1, event=ev.StepRedone(step=redoable + 5))
    with pytest.raises(FoldError) as caught:
        p.apply(wrong)
    assert str(caught.value).endswith(f"step {redoable + 5} can't be redone now (the next to redo is {redoable})")


def test_a_snapshot_is_frozen_and_built_by_keyword_only():
    snap = fold(_note_steps(1)).snapshot()
    with pytest.raises(AttributeError):
        snap.seq = 0  # type: ignore[misc]
    with pytest.raises(TypeError):
        type(snap)(snap.state, snap.seq, snap.step, snap.digest, snap.undo, snap.redo)  # type: ignore[misc]


def test_no_event_but_the_creation_folds_before_it_and_the_creation_folds_once():
    envs = _note_steps(1)
    first = Projection()
    first.apply(envs[0])  # a command may come first: it opens the creation step
    note = msgspec.structs.replace(envs[3], seq=2, step=1)
    with pytest.raises(FoldError, match="Note before the encounter was created"):
        first.apply(note)
    p = fold(envs[:2])
    again = msgspec.structs.replace(envs[1], seq=3)
    with pytest.raises(FoldError, match="the encounter was already created"):
        p.apply(again)


def test_a_paused_collector_is_back_as_it_was():
    import gc

    from combatlog.projections.fold import paused_gc

    assert gc.isenabled()
    with paused_gc():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with paused_gc():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_an_event_types_phases_declared_after_its_first_use_are_taken_up(monkeypatch):
    class Probe(ev.Event, frozen=True):
        """An event type of a system whose phases aren't declared yet."""

    monkeypatch.setattr(fold_module, "ROWS", {})
    monkeypatch.setitem(fold_module.HANDLERS, Probe, fold_module.unchanged)
    table = dict(fold_module.TABLE)
    monkeypatch.setattr(fold_module, "TABLE", table)
    p = fold(_note_steps(1))
    envelope = msgspec.structs.replace(_note_steps(1)[-1], seq=p.seq + 1, event=Probe())
    with pytest.raises(FoldError, match="Probe is not legal in phase setup"):
        p.apply(envelope)
    table[("setup", "Probe")] = "setup"
    p.apply(envelope)
    assert p.seq == envelope.seq


def test_a_fold_registered_again_is_the_one_the_bulk_fold_uses_from_then_on():
    from combatlog.events import line_decoder
    from combatlog.projections.bulk import fold_lines

    s = new_session(seed=3, begin=True)
    s.do("note", text="first")
    s.do("note", text="second")
    raw = lines(s)
    fold_lines(Projection(), raw, line_decoder())  # the bulk fold learns Note's row
    kept = fold_module.HANDLERS[ev.Note]
    fold_module.register_fold(ev.Note)(lambda state, e: msgspec.structs.replace(state, title=e.text))
    try:
        p = Projection()
        fold_lines(p, raw, line_decoder())
    finally:
        fold_module.register_fold(ev.Note)(kept)
    assert p.state.title == "second"


def test_the_fold_table_holds_the_declared_triggers_and_no_machine_made_ones():
    from combatlog.projections.phases import MACHINE, TABLE, TRANSITIONS, legal

    declared = {row["trigger"] for row in TRANSITIONS}
    triggers = {trigger for (_, trigger) in TABLE}
    assert declared <= triggers
    # a rule system may declare its own triggers (`allow`), but the machine adds none (to_setup...)
    assert not any(t.startswith("to_") for t in triggers) and set(MACHINE.events) == triggers
    assert legal("end") == sorted(t for (phase, t) in TABLE if phase == "end")


def test_the_history_window_is_the_4096_steps_for_a_fight_and_about_100_for_a_roster_of_10000():
    p = Projection()
    assert p.window() == 4096  # no one yet
    for size, low, high in [(250, 4096, 4096), (10_000, 90, 110)]:
        p.state = Encounter(combatants={f"c{i}": Combatant(id=f"c{i}", name="x", side="a") for i in range(size)})
        assert low <= p.window() <= high, size


@pytest.mark.parametrize(("budget", "kept"), [(3, 3), (0, 1)])
def test_the_history_keeps_the_steps_a_budget_of_combatants_allows_and_always_the_newest(monkeypatch, budget, kept):
    # a step weighs its roster before it, and one: with no one in the encounter, 1 a step
    monkeypatch.setattr(Projection, "BUDGET", budget)
    p = fold(_note_steps(6))
    assert sorted(p.history) == list(range(8 - kept, 8))
    assert p.window() == kept


def test_a_redo_of_the_wrong_step_names_the_next_to_redo_among_three():
    s = new_session(seed=7, begin=True)
    for _ in range(3):
        s.auto()
    for _ in range(3):
        s.undo()
    envs = envelopes_of(s)
    p = fold(envs)
    assert len(p.redo) == 3
    last = envs[-1]
    wrong = msgspec.structs.replace(last, seq=last.seq + 1, step=last.step + 1, event=ev.StepRedone(step=999))
    with pytest.raises(FoldError) as caught:
        p.apply(wrong)
    assert str(caught.value).endswith(f"(the next to redo is {p.redo[-1]})")


def test_an_event_type_without_a_fold_is_refused_at_its_own_seq():
    """A type that skipped the load-time checks and has no fold is a FoldError at the seq where
    it stands, not at seq 0."""
    from combatlog.events import catalogue

    class Unfolded(catalogue.Event, frozen=True):
        x: int = 0

    try:
        envelopes = envelopes_of(new_session(seed=7, begin=True))
        projection = fold(envelopes)
        last = envelopes[-1]
        with pytest.raises(FoldError, match="no fold for event type") as caught:
            projection.apply(msgspec.structs.replace(last, seq=last.seq + 1, event=Unfolded()))
        assert caught.value.seq == last.seq + 1
    finally:
        if Unfolded in catalogue._registered:
            catalogue._registered.remove(Unfolded)
            catalogue._generation += 1
