"""How Straalara tells a fight: its own events as transcript lines, its own state under
`combatlog show`, and a declared action as prose (the system binds these as its hooks)."""

from __future__ import annotations

from typing import Any

from combatlog.engine.protocol import RuleSystem
from combatlog.engine.rules.straalara.actions import stance_now
from combatlog.engine.rules.straalara.attack import health_level, wound_penalty
from combatlog.engine.rules.straalara.events import (
    Botched,
    EffectLanded,
    EffectScheduled,
    StanceDeclared,
    own,
)
from combatlog.projections import Encounter, Pending


def summary(rules: RuleSystem, state: Encounter) -> list[str]:
    """Lines about Straalara's own state, shown under the combatants (`combatlog show`)."""
    out = []
    for c in state.combatants.values():
        if c.removed:
            continue
        stance = stance_now(state, c.id)
        penalty = wound_penalty(rules, state, c)
        out.append(
            f"{c.name}: {health_level(rules, state, c)}"
            + (f" ({penalty} dice)" if penalty else "")
            + (f", {stance}" if stance else "")
        )
    botch = own(state).botch
    if botch is not None:
        out.append(f"Waiting for the game master: {state.combatants[botch].name}'s botch (botch TEXT)")
    return out


def narrate(rules: RuleSystem, state: Encounter, event: Any, dice: bool = False) -> str | None:
    """A transcript line for one of Straalara's own events (None: say nothing); details indented."""

    def name(cid: str) -> str:
        return state.combatants[cid].name if cid in state.combatants else cid

    if isinstance(event, StanceDeclared):
        return f"  {name(event.combatant)} takes the {event.stance} stance, defending by {event.defense}."
    if isinstance(event, Botched):
        return f"  {name(event.actor)} botches with the {event.weapon}: the game master rules what goes wrong."
    if isinstance(event, EffectScheduled):
        return f"  {name(event.actor)}: takes effect at the end of turn {event.round}: {event.text}."
    if isinstance(event, EffectLanded):
        return f"  {name(event.actor)}: {event.text}."
    return None


def describe(rules: RuleSystem, state: Encounter, pending: Pending) -> str:
    """A line of prose for a declared Straalara action (transcripts)."""
    actor = state.combatants[pending.actor].name
    if pending.action == "attack":
        target = state.combatants[pending.targets[0]].name
        weapon = pending.params.get("weapon")
        return f"{actor} attacks {target}" + (f" with the {weapon}" if weapon else "")
    if pending.action == "move":
        return f"{actor} moves to {pending.params.get('move_to')}"
    if pending.action == "task":
        return f"{actor} tries: {pending.params.get('effect', 'a task')}"
    return f"{actor} defends"
