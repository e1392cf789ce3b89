"""The phase machine: the one place the phases of an encounter and their triggers are declared.

The phases run setup → surprise → initiative → declare → resolve → end, with the round
loop from resolve back to declare. Each event type is a trigger; an event that has no
transition from the current phase is illegal there. The machine is a `transitions`
Machine built once at import. Folding a log can't afford a trigger call per event
(~20 µs), so the fold uses `TABLE`, a dict *generated from* the machine:
(phase, event tag) → next phase.

Rule systems that add event types declare where those are legal with `allow`, which adds
transitions to the same machine and regenerates the table.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from transitions import Machine


class Phase(str, Enum):  # noqa: UP042  (str() of a member must stay its value's repr as before)
    """Where an encounter stands."""

    setup = "setup"
    surprise = "surprise"
    initiative = "initiative"
    declare = "declare"
    resolve = "resolve"
    end = "end"


SETUP, SURPRISE, INITIATIVE, DECLARE, RESOLVE, END = (p.value for p in Phase)
LIVE = [SETUP, SURPRISE, INITIATIVE, DECLARE, RESOLVE]  # every phase but end
FIGHTING = [SURPRISE, INITIATIVE, DECLARE, RESOLVE]

# Each row: trigger (an event tag), the phases it may come in, where it leads (None: stays).
TRANSITIONS: list[dict[str, Any]] = [
    {"trigger": "EncounterCreated", "source": SETUP, "dest": None},
    {"trigger": "SurpriseDetermined", "source": SETUP, "dest": SURPRISE},
    {"trigger": "InitiativeRolled", "source": [SETUP, SURPRISE, INITIATIVE, DECLARE, RESOLVE], "dest": INITIATIVE},
    {"trigger": "OrderSet", "source": [INITIATIVE, DECLARE, RESOLVE], "dest": None},
    {"trigger": "RoundStarted", "source": [INITIATIVE, DECLARE, RESOLVE], "dest": DECLARE},
    {"trigger": "TurnStarted", "source": [DECLARE, RESOLVE], "dest": DECLARE},
    {"trigger": "ActionDeclared", "source": [DECLARE, RESOLVE], "dest": DECLARE},
    {"trigger": "ResolutionStarted", "source": [DECLARE, RESOLVE], "dest": RESOLVE},
    {"trigger": "ActionResolved", "source": RESOLVE, "dest": None},
    {"trigger": "TurnEnded", "source": [DECLARE, RESOLVE], "dest": None},
    {"trigger": "PassStarted", "source": RESOLVE, "dest": DECLARE},
    {"trigger": "HeldDamageReleased", "source": RESOLVE, "dest": None},
    {"trigger": "RoundEnded", "source": [DECLARE, RESOLVE], "dest": RESOLVE},
    {"trigger": "EncounterEnded", "source": LIVE, "dest": END},
    # combatants come and go, and the table places them, until the encounter is over
    {"trigger": "CombatantAdded", "source": LIVE, "dest": None},
    {"trigger": "CombatantRemoved", "source": LIVE, "dest": None},
    {"trigger": "Moved", "source": LIVE, "dest": None},
    {"trigger": "ResourcesSet", "source": LIVE, "dest": None},
    {"trigger": "DiceRolled", "source": "*", "dest": None},  # a rule system's command after the end may roll
    # effects land once the fight is on (an override may land them between resolutions)
    {"trigger": "ResourceSpent", "source": FIGHTING, "dest": None},
    {"trigger": "DamageApplied", "source": FIGHTING, "dest": None},
    {"trigger": "ConditionApplied", "source": FIGHTING, "dest": None},
    {"trigger": "ConditionRemoved", "source": FIGHTING, "dest": None},
    {"trigger": "CombatantDefeated", "source": FIGHTING, "dest": None},
    # the record itself: legal in every phase, the end included
    {"trigger": "CommandIssued", "source": "*", "dest": None},
    {"trigger": "StepUndone", "source": "*", "dest": None},
    {"trigger": "StepRedone", "source": "*", "dest": None},
    {"trigger": "GmRuling", "source": "*", "dest": None},
    {"trigger": "GmOverride", "source": "*", "dest": None},
    {"trigger": "Note", "source": "*", "dest": None},
    {"trigger": "ViewSet", "source": "*", "dest": None},
    {"trigger": "SeatSet", "source": "*", "dest": None},
    {"trigger": "SeatingSet", "source": "*", "dest": None},
    {"trigger": "StepSigned", "source": "*", "dest": None},
    {"trigger": "Forked", "source": "*", "dest": None},
    {"trigger": "StepAmended", "source": "*", "dest": None},  # a step after the end may be decided again
    # fair dice: the players' contributions come before the fight begins; the reveal, when it comes
    {"trigger": "Contributed", "source": [SETUP, SURPRISE], "dest": None},
    {"trigger": "SeedRevealed", "source": "*", "dest": None},
]

MACHINE = Machine(
    model=None,
    states=Phase,
    transitions=TRANSITIONS,
    initial=Phase.setup,
    auto_transitions=False,
    send_event=False,
)

TABLE: dict[tuple[str, str], str] = {}


def _generate() -> None:
    """Rebuild TABLE from the machine's declared transitions."""
    TABLE.clear()
    for trigger, event in MACHINE.events.items():
        for source, transitions in event.transitions.items():
            dest = transitions[0].dest
            TABLE[(source, trigger)] = source if dest is None else dest


def allow(trigger: str, sources: list[str] | str = LIVE, dest: str | None = None) -> None:
    """Declare a rule system's event `trigger` legal in `sources`, leading to `dest` (None: stay)."""
    if trigger in MACHINE.events:
        return
    MACHINE.add_transition(trigger, sources, dest)  # type: ignore[arg-type]  # str phases are the Enum's values
    _generate()


def legal(phase: str) -> list[str]:
    """The event tags legal in `phase`, sorted."""
    return sorted(trigger for (source, trigger) in TABLE if source == phase)


_generate()
