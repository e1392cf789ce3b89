"""How Swords of Infinity tells a fight: its own events as transcript lines, its own state under
`combatlog show`, and a declared action as prose (the system binds these as its hooks)."""

from __future__ import annotations

from typing import Any

from combatlog.engine.protocol import RuleSystem
from combatlog.engine.rules.swords_of_infinity.events import (
    Impairment,
    Pinned,
    Recovered,
    RetaliationChosen,
    RetaliationOffered,
    SpiritSpent,
)
from combatlog.engine.rules.swords_of_infinity.model import own
from combatlog.engine.rules.swords_of_infinity.reading import (
    level,
    weapon,
)
from combatlog.projections import Encounter, Pending


def summary(rules: RuleSystem, state: Encounter) -> list[str]:
    """Lines about Swords of Infinity's own state, shown under the combatants (`combatlog show`)."""
    out = []
    offer = own(state).offer
    if offer is not None:
        holder, mover = state.combatants[offer.retaliator], state.combatants[offer.mover]
        out.append(
            f"Waiting for {holder.name}'s choice: {mover.name} came within its reach "
            f"(retaliation {holder.id} attack, or retaliation {holder.id} hold)"
        )
    for c in state.active():
        hurt = [
            f"{t} {d}" + {1: " (wounded)", 2: " (disabled)"}.get(level(state, c, t), "")
            for t, d in c.wounds.items()
            if d
        ]
        if hurt:
            out.append(f"{c.id}: " + ", ".join(hurt))
    return out


def narrate(rules: RuleSystem, state: Encounter, event: Any, dice: bool = False) -> str | None:
    """A transcript line for one of Swords of Infinity's own events (None: say nothing); details indented."""

    def name(cid: str) -> str:
        return state.combatants[cid].name if cid in state.combatants else cid

    t = type(event)
    if t is SpiritSpent:
        return f"  {name(event.combatant)} spends {event.amount} spirit ({event.reason})."
    if t is Impairment and event.what == "ignored":
        return f"  {name(event.combatant)} resists the impairment of the {event.target}."
    if t is Pinned and event.by is None:
        return f"  {name(event.combatant)} is no longer pinned."
    if t is Recovered:
        return f"{name(event.combatant)} recovers: " + ", ".join(f"{k} {v}" for k, v in event.healed.items()) + "."
    if t is RetaliationOffered:
        holder = name(event.retaliator)
        return f"  {name(event.mover)} comes within {holder}'s reach: {holder} may retaliate, or hold."
    if t is RetaliationChosen:
        if event.choice == "attack":
            return f"{event.outcome}."
        return f"{name(event.retaliator)} holds the Retaliate; {name(event.mover)} goes on."
    return None


def describe(rules: RuleSystem, state: Encounter, pending: Pending) -> str:
    """A line of prose for a declared Swords of Infinity action (transcripts)."""
    actor = state.combatants[pending.actor]
    if pending.action == "attack":
        w = weapon(state, actor, pending.params.get("weapon"))
        tech = pending.params.get("technique")
        how = f" ({tech})" if tech else ""
        return f"{actor.name} attacks {state.combatants[pending.targets[0]].name} with the {w.name}{how}"
    return RuleSystem.describe(rules, state, pending)
