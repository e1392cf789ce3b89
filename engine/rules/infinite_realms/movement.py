"""Moving, engaging and pursuing: distances in yards, reach bonus AP, free attacks on leaving."""

from __future__ import annotations

from typing import Any

from combatlog.engine.protocol import Draft
from combatlog.engine.rules.infinite_realms.attack import strike
from combatlog.engine.rules.infinite_realms.events import Disengaged, DistanceSet, Engaged, Fled, Rushing
from combatlog.engine.rules.infinite_realms.model import DOWN, MOVES, PUNCH, STUNNED, Weapon, own
from combatlog.engine.rules.infinite_realms.reading import distance, engaged_with, reach, weapons
from combatlog.events import CombatantDefeated, ResourcesSet
from combatlog.projections import Combatant, Encounter, Pending


def move(draft: Draft, p: Pending) -> str:
    """Resolve a walk, run or dodging run toward or away from someone; returns the outcome."""
    state = draft.state
    me = state.combatants[p.actor]
    yards = MOVES[p.action]
    toward, away = p.params.get("toward"), p.params.get("away_from")
    if toward and state.combatants[toward].side == me.side:
        return f"moves up to {state.combatants[toward].name}"
    if away and state.combatants[away].side == me.side:
        return f"moves away from {state.combatants[away].name}"
    if toward:
        other = state.combatants[toward]
        d = distance(state, me.id, toward)
        left = max(0, d - yards)
        if p.action == "run":
            draft.emit(Rushing(combatant=me.id, target=toward, round=state.round))
        if left == 0 and toward not in engaged_with(state, me.id):
            if not other.active:
                draft.emit(DistanceSet(a=me.id, b=toward, yards=0, how="moved"))
                return f"reaches {other.name}"
            engage(draft, (me.id, toward))
            return f"closes {d} yards and engages {other.name}"
        draft.emit(DistanceSet(a=me.id, b=toward, yards=left, how="moved"))
        return f"moves {min(d, yards)} yards toward {other.name} ({left} left)"
    away = str(away)  # the check made sure one of toward and away_from is given
    other = state.combatants[away]
    said = []
    fled = away in engaged_with(state, me.id)
    if fled:
        fighting_others = [x for x in engaged_with(state, away) if x != me.id]
        able = other.active and not other.has(STUNNED) and not other.has(DOWN)
        if not fighting_others and able:
            w = melee_weapon(state, other)
            said.append(
                f"{other.name}'s free attack: "
                + strike(draft, away, me.id, w, free=True, dodge=p.action == "dodge_run")
            )
        draft.emit(Disengaged(combatants=(me.id, away)))
    if draft.state.combatants[me.id].active:
        d = distance(draft.state, me.id, away)
        draft.emit(DistanceSet(a=me.id, b=away, yards=d + yards, how="moved"))
        if fled:
            draft.emit(Fled(combatant=me.id, enemy=away, round=state.round))
        said.append(f"moves {yards} yards away from {other.name}")
    return "; ".join(said)


def melee_weapon(state: Encounter, c: Combatant) -> Weapon:
    """The first unbroken melee weapon of `c`, else a punch."""
    broken = own(state).broken.get(c.id, ())
    for w in weapons(c):
        if w.kind == "melee" and w.name not in broken:
            return w
    return PUNCH


def check_move(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    """Why the move can't be declared (toward=ID or away_from=ID, standing), or None."""
    toward, away = params.get("toward"), params.get("away_from")
    if bool(toward) == bool(away):
        return "say toward=ID or away_from=ID"
    other = toward or away
    if other not in state.combatants or other == actor.id:
        return f"no other combatant {other!r}; ids: {', '.join(state.combatants)}"
    if actor.has(DOWN):
        return f"{actor.name} is down; stand up first (5 AP)"
    return None


def pursue(draft: Draft, p: Pending) -> str:
    """Resolve running after a combatant who fled: a d% roll to engage them again; returns the outcome."""
    state = draft.state
    me = state.combatants[p.actor]
    target = state.combatants[p.targets[0]]
    need = me.stats.running - target.stats.running + state.options.pursuit_base
    roll = draft.roll("d%", f"running after {target.id} (need {need} or less)", by=me.id).total
    if roll <= need:
        engage(draft, (me.id, target.id))
        return f"d% {roll} against {need}: catches up with {target.name}"
    draft.emit(CombatantDefeated(combatant=target.id, how="got away"))
    return f"d% {roll} against {need}: {target.name} gets away"


def check_pursue(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    """Why the pursuit can't be declared (the target fled from the actor this round), or None."""
    if own(state).fled.get(f"{targets[0]}>{actor.id}") != state.round:
        return f"{state.combatants[targets[0]].name} hasn't fled from {actor.name} this round"
    return None


def reach_bonus(state: Encounter, ids: tuple[str, ...]) -> dict[str, int]:
    """+1 AP per 2 feet of reach over the shortest weapon in the engagement."""
    reaches = {cid: reach(state, state.combatants[cid]) for cid in ids}
    shortest = min(reaches.values())
    return {cid: (r - shortest) // 2 for cid, r in reaches.items() if (r - shortest) // 2 > 0}


def engage(draft: Draft, ids: tuple[str, ...]) -> None:
    """Engage now: the reach bonus is added to this round's AP, once a round (the largest one)."""
    state = draft.state
    given = own(state).reach_given
    bonus = {
        cid: n - int(given.get(cid, 0))
        for cid, n in reach_bonus(state, ids).items()
        if n > int(given.get(cid, 0)) and not state.combatants[cid].has(STUNNED)
    }
    draft.emit(Engaged(combatants=tuple(ids), bonus=bonus))
    for cid, extra in bonus.items():
        c = draft.state.combatants[cid]
        draft.emit(ResourcesSet(combatant=cid, resources={**c.resources, "ap": c.resources.get("ap", 0) + extra}))
