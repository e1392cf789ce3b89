"""An attack: its target number (offense % minus defense %, with every modifier), the d% roll,
the damage chart by margin, and the critical charts it leads to."""

from __future__ import annotations

from combatlog.engine.protocol import Draft
from combatlog.engine.rules.infinite_realms.criticals import critical_hit, critical_miss
from combatlog.engine.rules.infinite_realms.effects import hurt
from combatlog.engine.rules.infinite_realms.events import Aimed, Using
from combatlog.engine.rules.infinite_realms.model import (
    AIM_MAX,
    COVER,
    LIGHT,
    OFFENSE_MODS,
    SURPRISED,
    UNAWARE,
    Weapon,
    own,
)
from combatlog.engine.rules.infinite_realms.reading import (
    base_defense,
    damage_of,
    damage_percent,
    distance,
    factor,
    half_up,
    protection,
    wound_shift,
)
from combatlog.projections import Combatant, Encounter


def target_number(
    state: Encounter, attacker: Combatant, target: Combatant, w: Weapon, free: bool = False, dodge: bool = False
) -> tuple[int, list[str]]:
    """The number the d% roll must not exceed, and what went into it."""
    kind = w.kind
    why = []
    mine = attacker.stats
    if w.hand:
        offense = mine.adjusted_pd if mine.adjusted_pd is not None else mine.offense
    else:
        offense = w.offense if w.offense is not None else mine.offense
    offense = int(offense * factor(attacker, "offense")) - wound_shift(attacker)
    aim = 0 if free else min(own(state).aim.get(attacker.id, 0), AIM_MAX.get(kind, 2))
    offense += 5 * aim
    if aim:
        why.append(f"aim +{5 * aim}")
    if target.conditions or state.surprise_round:  # (most targets are under none, most rounds)
        for cond, bonus in OFFENSE_MODS.items():
            if target.has(cond) or (cond == SURPRISED and state.surprise_round and target.side in state.surprised):
                offense += bonus
                why.append(f"{cond} +{bonus}")
    if kind in ("thrown", "missile"):
        d = distance(state, attacker.id, target.id)
        if d > (w.medium if w.medium is not None else (w.long or 0)):
            offense -= 20
            why.append("long range -20")
    if dodge:
        theirs = target.stats
        if theirs.dodge is not None:
            defense = theirs.dodge
        else:
            defense = theirs.defense if isinstance(theirs.defense, int) else min(theirs.defense.values())
        why.append("against dodge")
    elif free:
        defense = target.stats.lowest_defense
    else:
        defense = base_defense(state, target)
    changes = -2 * own(state).defense_ap.get(target.id, 0) + wound_shift(target)
    if (w.bow or w.sling) and target.has(UNAWARE) and w.bow:
        changes += 10
        why.append("unaware of the bow")
    elif w.bow or w.sling:
        changes += 4
    elif kind == "thrown":
        changes += 2
    if w.flail:
        changes += 4
    if kind in ("thrown", "missile"):
        for cond, value in COVER.items():
            if target.conditions and target.has(cond):
                changes += value
                why.append(cond)
        light = LIGHT[state.options.light]
        if light:
            changes += light
            why.append(state.options.light)
    if state.options.defense_changes == "literal":
        return offense - (defense + changes), why
    return offense - defense + changes, why


def critical_miss_at(state: Encounter, w: Weapon) -> int:
    """The lowest roll that may be a critical miss with weapon `w`."""
    if state.options.critical_miss == "attacks":
        if w.hand:
            return 96
        return 81 if w.flail else 91
    return 91 if w.flail else 96


def strike(
    draft: Draft, attacker_id: str, target_id: str, w: Weapon, *, free: bool = False, dodge: bool = False
) -> str:
    """One attack roll with everything that follows; returns the outcome."""
    state = draft.state
    attacker = state.combatants[attacker_id]
    target = state.combatants[target_id]
    kind = w.kind
    if not free:
        aim = own(state).aim.get(attacker.id, 0)
        if aim:
            draft.emit(Aimed(combatant=attacker.id, aim=0, reason="used"))
        draft.emit(
            Using(
                combatant=attacker.id,
                kind="kick" if w.name == "kick" and w.hand else "punch" if w.hand else kind,
            )
        )
    number, why = target_number(state, attacker, target, w, free=free, dodge=dodge)
    roll = draft.roll("d%", f"{w.name} at {target.id} (need {number} or less)", by=attacker.id).total
    said = f"d% {roll} against {number}" + (f" ({', '.join(why)})" if why else "")
    if roll <= number:
        made_by = number - roll
        pct = damage_percent(made_by)
        base = damage_of(draft, attacker, w, f"{w.name} damage")
        amount = base * pct / 100
        if kind in ("thrown", "missile") and distance(draft.state, attacker.id, target.id) <= (
            w.short if w.short is not None else -1
        ):
            amount *= 1.25
            said += ", short range"
        amount = half_up(amount * factor(attacker, "damage"))
        taken = max(0, amount - protection(target, w.type))
        if own(draft.state).aim.get(target.id, 0):
            draft.emit(Aimed(combatant=target.id, aim=0, reason="hit before attacking"))
        said += f": a hit by {made_by}, {pct}% of {base} = {amount}"
        if taken != amount:
            said += f", {taken} through armour"
        hurt(draft, target.id, taken, w.type, attacker.id)
        if roll <= w.critical and draft.state.combatants[target.id].defeated != "dead":
            again = draft.roll(
                "d%", f"critical hit? {w.name} at {target.id} (need {number} or less)", by=attacker.id
            ).total
            if again <= number:
                said += "; " + critical_hit(draft, target.id, number - again, base, attacker.id)
            else:
                said += f"; no critical ({again})"
        return said
    missed_by = roll - number
    said += f": a miss by {missed_by}"
    if roll >= critical_miss_at(state, w) and not free:
        again = draft.roll("d%", f"critical miss? {w.name} (a miss above {number})", by=attacker.id).total
        if again > number:
            said += "; " + critical_miss(draft, attacker.id, w, again - number, number)
        else:
            said += f"; no critical miss ({again})"
    return said
