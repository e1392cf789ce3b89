"""combatlog.projections: pure folds of the log into read models, and the phase machine."""

from combatlog.projections.fold import (
    HANDLERS,
    FoldError,
    NeedsHistory,
    Projection,
    Snapshot,
    apply,
    fold,
    register_fold,
)
from combatlog.projections.phases import MACHINE, TABLE, Phase, allow, legal
from combatlog.projections.replay import envelopes, replay
from combatlog.projections.snapshot import dump_snapshot, load_snapshot
from combatlog.projections.state import (
    HP_SHOWN,
    Combatant,
    Condition,
    Contribution,
    Encounter,
    Fair,
    Held,
    Pending,
    PlayerView,
    SeatEntry,
    Seating,
)

__all__ = [
    "HP_SHOWN",
    "PlayerView",
    "SeatEntry",
    "Seating",
    "HANDLERS",
    "FoldError",
    "NeedsHistory",
    "Projection",
    "Snapshot",
    "apply",
    "fold",
    "register_fold",
    "MACHINE",
    "TABLE",
    "Phase",
    "allow",
    "legal",
    "dump_snapshot",
    "load_snapshot",
    "envelopes",
    "replay",
    "Combatant",
    "Condition",
    "Contribution",
    "Encounter",
    "Fair",
    "Held",
    "Pending",
]
