"""How Starflight tells a fight: its own events as transcript lines, its own state under
`combatlog show`, and a declared action as prose (the system binds these as its hooks)."""

from __future__ import annotations

from typing import Any

from combatlog.engine.protocol import RuleSystem
from combatlog.engine.rules.starflight.events import (
    Awaiting,
    GoalEvent,
    GroupsRanked,
    HitsTaken,
    MarchingOrder,
    Placed,
    RangeSet,
    ShieldsSet,
    SimpleCombatStarted,
    StrengthTotalled,
)
from combatlog.engine.rules.starflight.model import number_text, own
from combatlog.engine.rules.starflight.reading import (
    csi,
    shields,
    weapon,
)
from combatlog.projections import Encounter, Pending


def summary(rules: RuleSystem, state: Encounter) -> list[str]:
    """Lines about Starflight's own state, shown under the combatants (`combatlog show`)."""
    out = []
    now = csi(state)
    first = own(state).csi_initial
    out.append(
        "CSI: " + ", ".join(f"{s} {v}" + (f" (of {first[s]})" if first and s in first else "") for s, v in now.items())
    )
    if state.options.grid == "none":
        ranges = own(state).ranges
        if ranges:
            out.append("Ranges to target: " + ", ".join(f"{cid} {r}" for cid, r in ranges.items()))
    else:
        placed = [f"{c.id} at {c.position}" for c in state.active() if c.position]
        if placed:
            out.append("Positions: " + ", ".join(placed))
    with_shields = [
        f"{c.id} {shields(state, c)}/{c.stats.shields}" for c in state.active() if c.stats.shields is not None
    ]
    if with_shields:
        out.append("Shields: " + ", ".join(with_shields))
    if own(state).awaiting:
        out.append(
            f"Waiting for the game master: {own(state).awaiting} (conclude continue|victory SIDE|draw)"
            if own(state).awaiting == "resolve combat"
            else f"Waiting for: {own(state).awaiting}"
        )
    return out


def narrate(rules: RuleSystem, state: Encounter, event: Any, dice: bool = False) -> str | None:
    """A transcript line for one of Starflight's own events (None: say nothing); details indented."""

    def name(cid: str) -> str:
        return state.combatants[cid].name if cid in state.combatants else cid

    t = type(event)
    if t is StrengthTotalled:
        values = ", ".join(f"{s} {v}" for s, v in event.csi.items())
        return f"Composite strength ({event.reason or 'now'}): {values}."
    if t is RangeSet:
        return f"  {name(event.combatant)}: range to target {event.range} ({event.how})."
    if t is Placed:
        if event.how == "moved":
            return None  # the move's own line says where
        facing = f", facing {event.facing}" if event.facing else ""
        at = f"{number_text(event.x)},{number_text(event.y)}"
        return f"  {name(event.combatant)} stands at {at}{facing} ({event.how})."
    if t is ShieldsSet and event.reason == "regenerated":
        return f"  {name(event.combatant)}'s shields regenerate to {event.shields}."
    if t is MarchingOrder:
        return f"Marching order of {event.side}: {', '.join(name(c) for c in event.order)}."
    if t is Awaiting:
        return f"The game master rules: {event.topic}." if event.topic else None
    if t is SimpleCombatStarted:
        return (
            "Simple Combat: "
            + "; ".join(f"{g} ({', '.join(name(c) for c in ids)})" for g, ids in event.groups.items())
            + "."
        )
    if t is GroupsRanked:
        rolls = ", ".join(
            f"{g} {r}" + (f" ({event.modifiers[g]:+d})" if event.modifiers.get(g) else "")
            for g, r in sorted(event.results.items(), key=lambda x: -x[1])
        )
        lost = ", ".join(f"{g} {n}" for g, n in event.losses.items() if n)
        return f"Group rolls: {rolls}." + (f" Losses: {lost}." if lost else "")
    if t is HitsTaken:
        return f"  {name(event.combatant)} takes {event.hits} hit{'s' if event.hits != 1 else ''}."
    if t is GoalEvent:
        said = {
            "primary": "reaches its primary goal",
            "primary lost": "can no longer reach its primary goal",
            "choice due": "rolled 18 and chooses: a secondary goal or +1",
            "secondary": "takes a secondary goal",
            "bonus": "takes +1 on its future rolls",
        }
        return f"  {event.group} {said.get(event.what, event.what)}" + (
            f" (roll {event.roll})." if event.roll is not None else "."
        )
    return None


def describe(rules: RuleSystem, state: Encounter, pending: Pending) -> str:
    """A line of prose for a declared Starflight action (transcripts)."""
    actor = state.combatants[pending.actor]
    init = f" (initiative {actor.initiative})" if actor.initiative is not None else ""
    if pending.action in ("shoot", "melee"):
        target = state.combatants[pending.targets[0]]
        w = weapon(actor, pending.params.get("weapon"), pending.action == "melee")
        wname = w.name if w else "a weapon"
        verb = "fires" if pending.action == "shoot" else "strikes with"
        prep = "at" if pending.action == "shoot" else "at"
        return f"{actor.name}{init} {verb} the {wname} {prep} {target.name}"
    if pending.action == "move":
        x, y = number_text(float(pending.params["x"])), number_text(float(pending.params["y"]))
        return f"{actor.name}{init} moves to {x},{y}"
    if pending.action == "heal":
        return f"{actor.name}{init} tends to {state.combatants[pending.targets[0]].name}"
    return RuleSystem.describe(rules, state, pending)
