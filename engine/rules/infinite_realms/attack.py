"""An attack: its target number (offense % minus defense %, with every modifier), the d% roll,
the damage chart by margin, and the critical charts it leads to."""

from __future__ import annotations

from typing import Any

from combatlog.engine.draft import Draft
from combatlog.engine.rules.infinite_realms.criticals import critical_hit, critical_miss
from combatlog.engine.rules.infinite_realms.effects import _hurt
from combatlog.engine.rules.infinite_realms.events import Aimed, Using
from combatlog.engine.rules.infinite_realms.model import AIM_MAX, COVER, LIGHT, OFFENSE_MODS, SURPRISED, UNAWARE
from combatlog.engine.rules.infinite_realms.reading import (
    _half_up,
    base_defense,
    damage_of,
    damage_percent,
    distance,
    factor,
    protection,
    wound_shift,
)
from combatlog.projections import Combatant, Encounter


def target_number(
    state: Encounter, attacker: Combatant, target: Combatant, w: dict[str, Any], free: bool = False, dodge: bool = False
) -> tuple[int, list[str]]:
    """The number the d% roll must not exceed, and what went into it."""
    kind = w.get("kind", "melee")
    why = []
    if w.get("hand"):
        offense = int(attacker.stats.get("adjusted_pd", attacker.stats.get("offense", 0)))
    else:
        offense = int(w.get("offense", attacker.stats.get("offense", 0)))
    offense = int(offense * factor(attacker, "offense")) - wound_shift(attacker)
    aim = 0 if free else min(int(state.extra.get("aim", {}).get(attacker.id, 0)), AIM_MAX.get(kind, 2))
    offense += 5 * aim
    if aim:
        why.append(f"aim +{5 * aim}")
    for cond, bonus in OFFENSE_MODS.items():
        if target.has(cond) or (cond == SURPRISED and state.surprise_round and target.side in state.surprised):
            offense += bonus
            why.append(f"{cond} +{bonus}")
    if kind in ("thrown", "missile"):
        d = distance(state, attacker.id, target.id)
        if d > int(w.get("medium", w.get("long", 0))):
            offense -= 20
            why.append("long range -20")
    if dodge:
        defense = int(
            target.stats.get(
                "dodge",
                target.stats["defense"]
                if not isinstance(target.stats["defense"], dict)
                else min(target.stats["defense"].values()),
            )
        )
        why.append("against dodge")
    elif free:
        d0 = target.stats["defense"]
        defense = int(d0) if not isinstance(d0, dict) else min(int(v) for v in d0.values())
    else:
        defense = base_defense(state, target)
    changes = -2 * int(state.extra.get("defense_ap", {}).get(target.id, 0)) + wound_shift(target)
    if (w.get("bow") or w.get("sling")) and target.has(UNAWARE) and w.get("bow"):
        changes += 10
        why.append("unaware of the bow")
    elif w.get("bow") or w.get("sling"):
        changes += 4
    elif kind == "thrown":
        changes += 2
    if w.get("flail"):
        changes += 4
    if kind in ("thrown", "missile"):
        for cond, value in COVER.items():
            if target.has(cond):
                changes += value
                why.append(cond)
        light = LIGHT.get(str(state.options.get("light", "day")), 0)
        if light:
            changes += light
            why.append(str(state.options.get("light")))
    if state.options.get("defense_changes", "protect") == "literal":
        return offense - (defense + changes), why
    return offense - defense + changes, why


def critical_miss_at(state: Encounter, w: dict[str, Any]) -> int:
    """The lowest roll that may be a critical miss with weapon `w`."""
    if state.options.get("critical_miss", "chapter") == "attacks":
        if w.get("hand"):
            return 96
        return 81 if w.get("flail") else 91
    return 91 if w.get("flail") else 96


def strike(
    draft: Draft, attacker_id: str, target_id: str, w: dict[str, Any], *, free: bool = False, dodge: bool = False
) -> str:
    """One attack roll with everything that follows; returns the outcome."""
    state = draft.state
    attacker = state.combatants[attacker_id]
    target = state.combatants[target_id]
    if not target.active:
        return f"{target.name} is already {target.defeated}"
    kind = w.get("kind", "melee")
    if not free:
        aim = int(state.extra.get("aim", {}).get(attacker.id, 0))
        if aim:
            draft.emit(Aimed(combatant=attacker.id, aim=0, reason="used"))
        draft.emit(
            Using(
                combatant=attacker.id,
                kind="kick" if w["name"] == "kick" and w.get("hand") else "punch" if w.get("hand") else kind,
            )
        )
    number, why = target_number(state, attacker, target, w, free=free, dodge=dodge)
    roll = draft.roll("d%", f"{w['name']} at {target.id} (need {number} or less)", by=attacker.id).total
    said = f"d% {roll} against {number}" + (f" ({', '.join(why)})" if why else "")
    if roll <= number:
        made_by = number - roll
        pct = damage_percent(made_by)
        base = damage_of(draft, attacker, w, f"{w['name']} damage")
        amount = base * pct / 100
        if kind in ("thrown", "missile") and distance(draft.state, attacker.id, target.id) <= int(w.get("short", -1)):
            amount *= 1.25
            said += ", short range"
        amount = _half_up(amount * factor(attacker, "damage"))
        taken = max(0, amount - protection(target, w.get("type")))
        if int(draft.state.extra.get("aim", {}).get(target.id, 0)):
            draft.emit(Aimed(combatant=target.id, aim=0, reason="hit before attacking"))
        said += f": a hit by {made_by}, {pct}% of {base} = {amount}"
        if taken != amount:
            said += f", {taken} through armour"
        _hurt(draft, target.id, taken, w.get("type"), attacker.id)
        if roll <= int(w.get("critical", 0)) and draft.state.combatants[target.id].defeated != "dead":
            again = draft.roll(
                "d%", f"critical hit? {w['name']} at {target.id} (need {number} or less)", by=attacker.id
            ).total
            if again <= number:
                said += "; " + critical_hit(draft, target.id, number - again, base, attacker.id)
            else:
                said += f"; no critical ({again})"
        return said
    missed_by = roll - number
    said += f": a miss by {missed_by}"
    if roll >= critical_miss_at(state, w) and not free:
        again = draft.roll("d%", f"critical miss? {w['name']} (a miss above {number})", by=attacker.id).total
        if again > number:
            said += "; " + critical_miss(draft, attacker.id, w, again - number, number)
        else:
            said += f"; no critical miss ({again})"
    return said
