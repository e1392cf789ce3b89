"""How Skirmish tells a fight: a declared action as prose (the system binds it as its hook).

Skirmish has no events or state of its own to tell; a system that has them tells them here
too: `narrate(rules, state, event, dice)`, a transcript line for one of its events, and
`summary(rules, state)`, lines under the combatants in `combatlog show`."""

from __future__ import annotations

from combatlog.engine.protocol import RuleSystem
from combatlog.projections import Encounter, Pending


def describe(rules: RuleSystem, state: Encounter, pending: Pending) -> str:
    """A line of prose for a declared Skirmish action (transcripts)."""
    actor = state.combatants[pending.actor].name
    targets = " and ".join(state.combatants[t].name for t in pending.targets if t in state.combatants)
    if pending.action == "strike":
        return f"{actor} strikes {targets}"
    if pending.action == "shoot":
        return f"{actor} shoots at {targets}"
    if pending.action == "move":
        return f"{actor} moves to {pending.params.get('to')}"
    return f"{actor} guards"
