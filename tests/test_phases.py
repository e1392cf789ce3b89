"""The phase machine and the fold's use of it."""

from __future__ import annotations

import pytest
from transitions import MachineError

from combatlog.events import GENESIS, DamageApplied, EncounterCreated, RoundStarted, seal
from combatlog.projections import MACHINE, TABLE, FoldError, Phase, Projection, legal
from combatlog.projections.phases import TRANSITIONS


def test_the_fold_table_is_exactly_what_the_machine_does():
    # Drive a real transitions model through every (phase, trigger) pair and compare.
    class Model:
        pass

    for phase in Phase:
        for trigger in MACHINE.events:
            model = Model()
            MACHINE.add_model(model, initial=phase.value)
            try:
                getattr(model, trigger)()
                outcome = model.state
            except MachineError:
                outcome = None
            finally:
                MACHINE.remove_model(model)
            assert TABLE.get((phase.value, trigger)) == outcome, (phase, trigger)


def test_the_phases_run_setup_surprise_initiative_declare_resolve_end():
    assert [p.value for p in Phase] == ["setup", "surprise", "initiative", "declare", "resolve", "end"]
    path = [
        "SurpriseDetermined",
        "InitiativeRolled",
        "RoundStarted",
        "ResolutionStarted",
        "RoundStarted",
        "ResolutionStarted",
        "EncounterEnded",
    ]
    phase = "setup"
    seen = [phase]
    for trigger in path:
        phase = TABLE[(phase, trigger)]
        seen.append(phase)
    assert seen == ["setup", "surprise", "initiative", "declare", "resolve", "declare", "resolve", "end"]


def test_after_the_end_only_the_record_itself_may_grow():
    # of the core's events; DiceRolled for a rule system's commands after the fight (a day's recovery)
    from combatlog.events import catalogue

    core = {
        cls.__name__
        for cls in vars(catalogue).values()
        if isinstance(cls, type) and cls.__module__ == catalogue.__name__
    }
    assert [t for t in legal("end") if t in core] == [
        "CommandIssued",
        "DiceRolled",
        "Forked",  # a finished fight may be forked at its end
        "GmOverride",
        "GmRuling",
        "Note",
        "SeatSet",  # the players' seats too: the players may read the finished fight on their phones
        "SeatingSet",
        "SeedRevealed",  # a fair encounter's seed, revealed once the fight is over
        "StepAmended",  # a note or a ruling after the end may be decided again in an amendment
        "StepRedone",
        "StepSigned",  # every step may end signed, the last ones too
        "StepUndone",
        "ViewSet",  # what the players see may change after the fight too
    ]


def test_an_event_illegal_in_the_phase_is_an_error_naming_its_seq():
    p = Projection()
    line, env = seal(GENESIS, 1, 1, EncounterCreated(rules="skirmish", rules_version="1"))
    p.apply(env)
    _, env2 = seal(env.digest, 2, 2, DamageApplied(target="x", amount=1))
    with pytest.raises(FoldError, match=r"seq 2: DamageApplied is not legal in phase setup"):
        p.apply(env2)


def test_a_gap_in_the_sequence_is_an_error_naming_the_seq():
    p = Projection()
    _, env = seal(GENESIS, 2, 1, EncounterCreated(rules="skirmish", rules_version="1"))
    with pytest.raises(FoldError, match="seq 2: expected seq 1"):
        p.apply(env)


def test_phases_are_declared_in_one_table_of_transitions():
    triggers = [row["trigger"] for row in TRANSITIONS]
    assert len(triggers) == len(set(triggers))
    assert "RoundStarted" in MACHINE.events and RoundStarted.__name__ == "RoundStarted"
