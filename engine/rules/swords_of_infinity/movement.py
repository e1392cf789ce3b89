"""Moving: walking, resisted movement (sprint, jump, climb, swim) and the Retaliates a move
meets."""

from __future__ import annotations

from typing import Any

from combatlog.engine.protocol import Draft
from combatlog.engine.rules.swords_of_infinity.attack import strike
from combatlog.engine.rules.swords_of_infinity.events import SpiritSpent, TurnMark
from combatlog.engine.rules.swords_of_infinity.model import RESISTED, Turn, own, stats_of
from combatlog.engine.rules.swords_of_infinity.numbers import moved_squares, power_of
from combatlog.engine.rules.swords_of_infinity.reading import (
    at,
    feet,
    is_melee,
    penalty,
    since_v2,
    skill,
    spirit_left,
    weapon,
)
from combatlog.events import ConditionApplied, ConditionRemoved, Moved
from combatlog.projections import Combatant, Encounter, Pending


def move(draft: Draft, p: Pending) -> str:
    """Resolve a walk to x,y (with the attacks of those it passes); returns the outcome."""
    me = draft.state.combatants[p.actor]
    to = f"{int(p.params['x'])},{int(p.params['y'])}"
    if me.has("fortify"):
        draft.emit(ConditionRemoved(target=me.id, condition="fortify", reason="moved"))
    draft.emit(Moved(combatant=me.id, to=to, distance=5 * _squares(me, int(p.params["x"]), int(p.params["y"]))))
    return f"moves to {to}" + _retaliations(draft, me.id, bool(p.params.get("through")), p.params)


def _squares(c: Combatant, x: int, y: int) -> int:
    here = at(c)
    return 0 if here is None else max(abs(x - here[0]), abs(y - here[1]))


def retaliation_defense(mover: Combatant, params: dict[str, Any]) -> str:
    """How the mover defends against a Retaliate: as its move says (`defense`), else as any
    defender would (a block if it has the skill, else a dodge, else none)."""
    said = params.get("defense")
    if said in ("block", "dodge", "none"):
        return str(said)
    return "block" if "block" in mover.stats else "dodge" if "dodge" in mover.stats else "none"


def _retaliations(draft: Draft, mover: str, through: bool, params: dict[str, Any] | None = None) -> str:
    said = ""
    for c in list(draft.state.active()):
        m = draft.state.combatants[mover]
        if c.side == m.side or not c.has("retaliating") or not m.active:
            continue
        w = weapon(draft.state, c, None)
        d = feet(c, m)
        if d is not None and is_melee(w) and d <= w.reach:
            draft.emit(ConditionRemoved(target=c.id, condition="retaliating", reason="used"))
            # version 2: "whenever a combat participant is successfully attacked they get a chance
            # to defend themselves": the mover blocks or dodges the Retaliate
            how = {"defense": retaliation_defense(m, params or {})} if since_v2(draft.state) else {}
            said += f"; {c.name} retaliates: " + strike(draft, c.id, mover, w, how, free=True)
            if through and draft.state.combatants[mover].active:
                draft.emit(ConditionApplied(target=mover, condition="vulnerable (kept moving)", source=c.id))
                said += f"; {m.name} moves on, vulnerable"
    return said


def check_move(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    """Why the move can't be declared (x, y within the combatant's move, standing), or None."""
    try:
        x, y = int(params["x"]), int(params["y"])
    except (KeyError, TypeError, ValueError):
        return "say where: params x, y (squares)"
    if actor.has("prone"):
        return f"{actor.name} is prone; stand up first (one action)"
    if actor.position:
        squares = _squares(actor, x, y)
        most = stats_of(actor).move
        if squares > most:
            return f"{squares} squares is more than {actor.name}'s move of {most}"
    return None


def resisted(draft: Draft, p: Pending) -> str:
    """Resolve a resisted move (sprint, jump, climb, swim): endurance right after another, then a
    Power roll for the squares covered; returns the outcome."""
    state = draft.state
    me = state.combatants[p.actor]
    kind = p.action
    said = []
    last = own(state).turn.get(me.id, Turn()).last
    if last in RESISTED:
        etn = skill(me, "endurance") + penalty(state, me)
        roll = draft.roll("d%", f"endurance after {last} (TN {etn})", by=me.id).total
        if roll <= etn:
            said.append(f"endurance {roll} against {etn}")
        elif spirit_left(draft.state, me) > 0:
            draft.emit(SpiritSpent(combatant=me.id, amount=1, reason="tired by resisted movement"))
            said.append(f"endurance {roll} against {etn} fails: 1 spirit")
        else:
            said.append(f"endurance {roll} against {etn} fails (no spirit left)")
    tn = skill(me, kind) + penalty(draft.state, me)
    roll = draft.roll("d%", f"{kind} (Power, TN {tn})", by=me.id).total
    power = power_of(roll, tn)
    squares = moved_squares(kind, power, stats_of(me).move, me.has("rough terrain"))
    here = at(me)
    tx, ty = int(p.params["x"]), int(p.params["y"])
    if here is None:
        to = (tx, ty)
    else:
        dist = max(abs(tx - here[0]), abs(ty - here[1]))
        f = min(1.0, squares / dist) if dist else 0.0
        to = (here[0] + int(round((tx - here[0]) * f)), here[1] + int(round((ty - here[1]) * f)))
    draft.emit(Moved(combatant=me.id, to=f"{to[0]},{to[1]}", distance=5 * squares))
    draft.emit(TurnMark(combatant=me.id, last=kind))
    if kind == "climb" or (kind == "swim" and not stats_of(me).swim_speed):
        draft.emit(
            ConditionApplied(
                target=me.id, condition=f"vulnerable ({'climbing' if kind == 'climb' else 'swimming'})", source=me.id
            )
        )
    if me.has("fortify"):
        draft.emit(ConditionRemoved(target=me.id, condition="fortify", reason="moved"))
    said.append(f"{kind} {roll} against {tn}: power {power}, {squares} squares, to {to[0]},{to[1]}")
    return "; ".join(said) + _retaliations(draft, me.id, bool(p.params.get("through")), p.params)


def check_resisted(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    """Why the resisted move can't be declared (x, y given, standing), or None."""
    try:
        int(params["x"]), int(params["y"])
    except (KeyError, TypeError, ValueError):
        return "say toward where: params x, y (squares)"
    if actor.has("prone"):
        return f"{actor.name} is prone; stand up first (one action)"
    return None
