"""How Infinite Realms tells a fight: its own events as transcript lines, its own state under
`combatlog show`, and a declared action as prose (the system binds these as its hooks)."""

from __future__ import annotations

from typing import Any

from combatlog.engine.protocol import RuleSystem
from combatlog.engine.rules.infinite_realms.actions import (
    weapon_of,
)
from combatlog.engine.rules.infinite_realms.events import (
    Aimed,
    DefenseBought,
    DistanceSet,
    Engaged,
    WeaponBroken,
)
from combatlog.engine.rules.infinite_realms.model import (
    MOVES,
    own,
)
from combatlog.projections import Encounter, Pending


def summary(rules: RuleSystem, state: Encounter) -> list[str]:
    """Lines about Infinite Realms's own state, shown under the combatants (`combatlog show`)."""
    out = []
    engaged = {tuple(sorted((a, b))) for a, bs in own(state).engaged.items() for b in bs}
    if engaged:
        out.append("Engaged: " + ", ".join(f"{a}-{b}" for a, b in sorted(engaged)))
    ap = [f"{c.id} {c.resources.get('ap', 0)}" for c in state.active()]
    if ap:
        out.append("AP left: " + ", ".join(ap))
    return out


def narrate(rules: RuleSystem, state: Encounter, event: Any, dice: bool = False) -> str | None:
    """A transcript line for one of Infinite Realms's own events (None: say nothing); details indented."""

    def name(cid: str) -> str:
        return state.combatants[cid].name if cid in state.combatants else cid

    t = type(event)
    if t is Engaged:
        bonus = "; ".join(f"{name(c)} +{n} AP for reach" for c, n in event.bonus.items())
        return f"  {' and '.join(name(c) for c in event.combatants)} engage" + (f" ({bonus})." if bonus else ".")
    if t is DistanceSet and event.how == "given":
        return f"  {name(event.a)} and {name(event.b)} are {event.yards} yards apart."
    if t is DefenseBought:
        return f"  {name(event.combatant)} spends {event.ap} AP on defense."
    if t is WeaponBroken:
        return f"  {name(event.combatant)}'s {event.weapon} breaks."
    if t is Aimed and event.reason == "hit before attacking":
        return f"  {name(event.combatant)} loses the aim."
    return None


def describe(rules: RuleSystem, state: Encounter, pending: Pending) -> str:
    """A line of prose for a declared Infinite Realms action (transcripts)."""
    actor = state.combatants[pending.actor]
    ap = actor.resources.get("ap", 0)
    who = f"{actor.name} ({ap} AP)"
    if pending.action == "attack":
        w = weapon_of(state, actor, pending.params)
        return f"{who} attacks {state.combatants[pending.targets[0]].name} with the {w.name if w else 'weapon'}"
    if pending.action in ("punch", "kick"):
        return f"{who} {pending.action}s {state.combatants[pending.targets[0]].name}"
    if pending.action in MOVES:
        how = {"run": "runs", "dodge_run": "runs and dodges", "walk": "walks"}[pending.action]
        toward = pending.params.get("toward")
        other = state.combatants[str(toward or pending.params.get("away_from"))].name
        return f"{who} {how} {'toward' if toward else 'away from'} {other}"
    return RuleSystem.describe(rules, state, pending)
