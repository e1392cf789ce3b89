"""An attack: the hit roll, the defense (block or dodge, paid for in spirit while vulnerable),
the power roll and its damage, criticals and critical defenses, and the techniques."""

from __future__ import annotations

from typing import Any

from combatlog.engine.protocol import Draft
from combatlog.engine.rules.swords_of_infinity.events import Maintained, Pinned, Retreated, SpiritSpent, WeaponDropped
from combatlog.engine.rules.swords_of_infinity.model import Turn, Weapon, own
from combatlog.engine.rules.swords_of_infinity.numbers import (
    block_damage,
    critical,
    dodged,
    knockback_damage,
    location,
    power_of,
)
from combatlog.engine.rules.swords_of_infinity.reading import (
    at,
    cap,
    composition,
    cover,
    exploit,
    feet,
    is_melee,
    penalty,
    spirit_left,
    vulnerability,
    weapon,
)
from combatlog.events import ConditionApplied, ConditionRemoved, GmRuling, Moved
from combatlog.projections import Combatant, Encounter


def strike(
    draft: Draft,
    attacker_id: str,
    target_id: str,
    w: Weapon,
    params: dict[str, Any],
    free: bool = False,
    offhand: bool = False,
) -> str:
    """One attack: hit, defense, then damage or a technique; returns what happened."""
    state = draft.state
    attacker = state.combatants[attacker_id]
    target = state.combatants[target_id]
    melee = is_melee(w)
    said: list[str] = []
    # Retreat: a 5-ft step away from the first attack of the round, before it resolves
    if target.has("retreat") and own(state).retreated.get(target.id) != state.round:
        pa, pt = at(attacker), at(target)
        if pt is not None:
            dx = 0 if pa is None else (pt[0] > pa[0]) - (pt[0] < pa[0])
            dy = 0 if pa is None else (pt[1] > pa[1]) - (pt[1] < pa[1])
            if (dx, dy) == (0, 0):
                dx = 1
            draft.emit(Moved(combatant=target.id, to=f"{pt[0] + dx},{pt[1] + dy}", distance=5))
        draft.emit(Retreated(combatant=target.id, round=state.round))
        state = draft.state
        target = state.combatants[target_id]
        said.append(f"{target.name} retreats a step")
        d = feet(attacker, target)
        if melee and d is not None and d > w.reach:
            return "; ".join(said + ["out of reach"])
    mine, theirs = attacker.stats, target.stats  # (read once: the stats never change in a fight)
    size_gap = theirs.size - mine.size
    tn = mine.dexterity + w.skill + w.weight + penalty(state, attacker) + 10 * max(0, size_gap)
    if offhand:
        tn -= state.options.offhand_penalty
    d = feet(attacker, target)
    if d is not None and not melee:
        tn -= (5 if w.improvised else 1) * (d // 5)
    hit = draft.roll("d%", f"{w.name} at {target.id} (hit TN {tn})", by=attacker.id).total
    if hit > tn:
        return "; ".join(said + [f"hit roll {hit} against {tn}: a miss"])
    said.append(f"hit roll {hit} against {tn}: a hit")
    crit = critical(hit, tn)
    choice = params.get("critical") if crit else None
    if crit:
        said[-1] += f" (critical: {choice or 'no choice'})"
    area = bool(params.get("area"))
    where = str(params.get("block_target")) if area and params.get("block_target") else location(hit, theirs.parts)
    shield_class = 0
    blocked = False
    # the defense
    defense = params.get("defense", "none")
    if target.conditions and target.has(f"unaware of {attacker.id}"):
        draft.emit(ConditionRemoved(target=target.id, condition=f"unaware of {attacker.id}", reason="attacked"))
    if defense == "dodge" and area:
        said.append("an untargeted attack can't be dodged")
        defense = "none"
    if defense in ("block", "dodge"):
        stacks = vulnerability(draft.state, target, attacker, melee)
        if stacks:
            stacks += exploit(attacker, w, melee)
        if stacks > spirit_left(draft.state, target):
            said.append(f"{target.name} is too vulnerable to defend ({stacks} spirit needed)")
            defense = "none"
        elif stacks:
            draft.emit(SpiritSpent(combatant=target.id, amount=stacks, reason=f"defending while vulnerable x{stacks}"))
    if defense in ("block", "dodge"):
        bonus = 10 * max(0, -size_gap) + 10 * cover(target, not melee) + penalty(draft.state, target)
        if defense == "dodge":
            dtn = theirs.dexterity + theirs.dodge + bonus
            roll = draft.roll("d%", f"dodge (TN {dtn}, at or under {hit})", by=target.id).total
            ok = dodged(roll, hit, dtn) and (choice != "undefendable" or critical(roll, dtn))
            said.append(f"dodge {roll} against {dtn} and {hit}: " + ("dodged" if ok else "fails"))
            if ok:
                return "; ".join(said + _critical_defense(draft, target.id, attacker.id, roll, dtn, params))
        else:
            btn = theirs.awareness + theirs.block + bonus
            roll = draft.roll("d%", f"block (TN {btn})", by=target.id).total
            ok = roll <= btn and (choice != "undefendable" or critical(roll, btn))
            if ok:
                where = str(params.get("block_target") or where)
                shield = theirs.shield or weapon(draft.state, target, None)
                shield_class = shield.size_class
                said.append(f"block {roll} against {btn}: the {where} takes it")
                said += _critical_defense(draft, target.id, attacker.id, roll, btn, params)
                area = True  # a blocked attack is untargeted
                blocked = True
            else:
                said.append(f"block {roll} against {btn}: fails")
    if not draft.state.combatants[attacker.id].active or not draft.state.combatants[target.id].active:
        return "; ".join(said)
    # the power
    ptn = w.power + penalty(draft.state, attacker) + 10 * max(0, -size_gap)
    if choice == "full":
        power = max(0, ptn)
        said.append(f"full power {power}")
    else:
        roll = draft.roll("d%", f"{w.name} power (TN {ptn})", by=attacker.id).total
        power = power_of(roll, ptn)
        said.append(f"power {roll} against {ptn}" + ("" if power else ": no power"))
    if power and params.get("charge"):
        run = _straight_feet(draft.state, attacker)
        power += run
        said.append(f"+{run} for the charge")
    if choice == "narrative":
        draft.emit(
            ConditionApplied(target=target.id, condition=f"narrative effect from {attacker.id}", source=attacker.id)
        )
    technique = params.get("technique")
    if technique:
        said.append(_technique(draft, attacker.id, target.id, technique, power, params))
        if not params.get("ability"):  # without a special ability a technique deals no damage
            return "; ".join(said)
    if area and params.get("area") and not blocked:  # blocking stands in lieu of Physical Resistance
        prt = (
            theirs.physical_resistance
            + penalty(draft.state, target)
            + 10 * max(0, size_gap)
            + 10 * cover(target, not melee)
        )
        roll = draft.roll("d%", f"physical resistance (TN {prt}) against power {power}", by=target.id).total
        if power_of(roll, prt) > power:
            return "; ".join(said + [f"physical resistance {roll} against {prt}: no damage"])
        said.append(f"physical resistance {roll} against {prt}: fails")
    target = draft.state.combatants[target.id]
    armor = theirs.armor.get(where, 0)
    dmg = block_damage(power, armor, shield_class)
    dmg = min(dmg, theirs.cap - target.wounds.get(where, 0))
    if dmg > 0:
        draft.damage(target.id, dmg, location=where, kind=w.name, source=attacker.id)
    said.append(f"{dmg} damage to the {where}" + (f" (armour {armor + shield_class})" if armor + shield_class else ""))
    return "; ".join(said)


def _straight_feet(state: Encounter, c: Combatant) -> int:
    start = own(state).turn.get(c.id, Turn()).start
    here = at(c)
    if not start or here is None:
        return 0
    sx, sy = (int(float(v)) for v in start.split(","))
    return 5 * max(abs(here[0] - sx), abs(here[1] - sy))


def _critical_defense(
    draft: Draft, defender: str, attacker: str, roll: int, tn: int, params: dict[str, Any]
) -> list[str]:
    if not critical(roll, tn):
        return []
    choice = params.get("critical_defense")
    if choice == "counter":
        d_ = draft.state.combatants[defender]
        w = weapon(draft.state, d_, None)
        d = feet(d_, draft.state.combatants[attacker])
        if d is not None and d > int(w.range if w.range is not None else w.reach):
            return [f"a critical defense, but the {w.name} can't reach {d} ft for a counter-attack"]
        return ["a critical defense: a counter-attack: " + strike(draft, defender, attacker, w, {}, free=True)]
    if choice == "narrative":
        draft.emit(ConditionApplied(target=attacker, condition=f"narrative effect from {defender}", source=defender))
        return ["a critical defense: a narrative effect"]
    if choice == "move" and params.get("move_to"):
        draft.emit(Moved(combatant=defender, to=str(params["move_to"])))
        return [f"a critical defense: moves to {params['move_to']}"]
    return ["a critical defense"]


def _technique(draft: Draft, attacker: str, target: str, technique: str, power: int, params: dict[str, Any]) -> str:
    state = draft.state
    t = state.combatants[target]
    a = state.combatants[attacker]
    prt = t.stats.physical_resistance + penalty(state, t) + 10 * max(0, t.stats.size - a.stats.size)
    roll = draft.roll("d%", f"physical resistance (TN {prt}) against {technique} {power}", by=target).total
    if power_of(roll, prt) > power or not power:
        return f"{technique}: resisted ({roll} against {prt})"
    said = f"{technique}: not resisted ({roll} against {prt})"
    if technique == "disrupt":
        draft.emit(ConditionApplied(target=target, condition="disrupted", duration=2, source=attacker))
        for spell in own(state).maintained.get(target, ()):
            draft.emit(Maintained(combatant=target, spell=spell, ended=True))
        return said + ": no spells for a full round"
    if technique == "pin":
        draft.emit(Pinned(combatant=target, by=attacker, round=state.round))
        return said + ": pinned"
    if technique == "disarm":
        w = weapon(state, t, None)
        if w.name == "unarmed":
            return said + ": nothing to disarm"
        lands = str(params.get("lands", ""))
        draft.emit(GmRuling(topic="disarm", decision=lands or "where it falls", text=f"{t.name}'s {w.name}"))
        draft.emit(WeaponDropped(combatant=target, weapon=w.name, lands=lands))
        return said + f": the {w.name} drops" + (f" ({lands})" if lands else "")
    if technique == "trip":
        draft.emit(ConditionApplied(target=target, condition="prone", source=attacker))
        return said + ": prone"
    if technique == "knockback":
        wall = params.get("wall_ft")
        moved = power if wall is None else min(power, int(wall))
        pa, pt = at(a), at(t)
        if pa is not None and pt is not None:
            dx, dy = (pt[0] > pa[0]) - (pt[0] < pa[0]), (pt[1] > pa[1]) - (pt[1] < pa[1])
            if (dx, dy) == (0, 0):
                dx = 1
            n = moved // 5
            draft.emit(Moved(combatant=target, to=f"{pt[0] + dx * n},{pt[1] + dy * n}", distance=moved))
        if t.has("fortify"):
            draft.emit(ConditionRemoved(target=target, condition="fortify", reason="forced to move"))
            draft.emit(ConditionApplied(target=target, condition="vulnerable (forced out of fortify)", source=attacker))
        hurt = knockback_damage(power, None if wall is None else int(wall))
        if hurt:
            hits = str(params.get("hits", "torso"))
            where = hits if hits in composition(t) else next(iter(composition(t)))
            dmg = min(hurt, cap(t) - t.wounds.get(where, 0))  # a collision isn't a blow: no armour (our reading)
            if dmg > 0:
                draft.damage(target, dmg, location=where, kind="knockback", source=attacker)
            return said + f": thrown {power} ft, into an obstacle at {wall} ft: {dmg} damage to the {where}"
        return said + f": thrown {moved} ft"
    return said
