"""combatlog.events: the facts of an encounter, the envelope they travel in, and their codecs.

This package imports nothing else of combatlog. Everything above it (projections,
engine, replays) depends on the names exported here.
"""

from combatlog.events.catalogue import (
    ActionDeclared,
    ActionResolved,
    CombatantAdded,
    CombatantDefeated,
    CombatantRemoved,
    Command,
    CommandIssued,
    ConditionApplied,
    ConditionRemoved,
    DamageApplied,
    DiceRolled,
    EncounterCreated,
    EncounterEnded,
    Event,
    GmOverride,
    GmRuling,
    InitiativeRolled,
    Moved,
    Note,
    OrderSet,
    ResolutionStarted,
    ResourceSpent,
    ResourcesSet,
    HeldDamageReleased,
    PassStarted,
    RoundEnded,
    RoundStarted,
    StepRedone,
    StepUndone,
    SurpriseDetermined,
    TurnEnded,
    TurnStarted,
    event_types,
    event_union,
    register_event,
)
from combatlog.events.envelope import (
    GENESIS,
    Envelope,
    canonical_bytes,
    check_link,
    decode_line,
    decode_msgpack,
    digest_of,
    encode_msgpack,
    line_decoder,
    seal,
)
from combatlog.events.log import (
    ConcurrencyError,
    CorruptLog,
    EventLog,
    LogError,
    TornLog,
)
from combatlog.events.schema import json_schema
from combatlog.events.upcast import register_upcaster

__all__ = [
    "ActionDeclared", "ActionResolved", "CombatantAdded", "CombatantDefeated",
    "CombatantRemoved", "Command", "CommandIssued", "ConditionApplied", "ConditionRemoved",
    "DamageApplied", "DiceRolled", "EncounterCreated", "EncounterEnded", "Event",
    "GmOverride", "GmRuling", "InitiativeRolled", "Moved", "Note", "OrderSet",
    "HeldDamageReleased", "PassStarted", "ResolutionStarted", "ResourceSpent", "ResourcesSet", "RoundEnded", "RoundStarted",
    "StepRedone", "StepUndone", "SurpriseDetermined", "TurnEnded", "TurnStarted",
    "event_types", "event_union", "register_event",
    "GENESIS", "Envelope", "canonical_bytes", "check_link", "decode_line", "decode_msgpack",
    "digest_of", "encode_msgpack", "line_decoder", "seal",
    "ConcurrencyError", "CorruptLog", "EventLog", "LogError", "TornLog",
    "json_schema", "register_upcaster",
]
