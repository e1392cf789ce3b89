"""The critical hit and critical miss charts, by how much the second roll was made or missed by."""

from __future__ import annotations

from combatlog.engine.protocol import Draft
from combatlog.engine.rules.infinite_realms.effects import bleed, hurt, stun
from combatlog.engine.rules.infinite_realms.events import WeaponBroken
from combatlog.engine.rules.infinite_realms.model import CRIPPLED, DOWN, HALF_AP, Weapon
from combatlog.engine.rules.infinite_realms.reading import damage_of, factor, half_up, protection
from combatlog.events import CombatantDefeated, ConditionApplied

CRITICAL_HITS = [
    (10, 25, "an extra 25% hit"),
    (20, 50, "an extra 50% hit"),
    (30, 50, "an extra 50% hit and half AP for a round"),
    (35, 75, "an extra 75% hit, stunned a round"),
    (40, 100, "an extra 100% hit, stunned a round"),
    (45, 100, "an extra 100% hit, stunned two rounds"),
    (50, 0, "internal bleeding"),
    (55, 0, "internal bleeding, passes out"),
    (65, 0, "a crippled extremity"),
    (10_000, 0, "dies"),
]


def critical_hit(draft: Draft, target: str, made_by: int, base: int, source: str) -> str:
    """The critical hit chart, by how much the second roll was made by."""
    band = next(i for i, (top, _, _) in enumerate(CRITICAL_HITS) if made_by <= top)
    _, pct, text = CRITICAL_HITS[band]
    said = f"critical hit by {made_by}: {text}"
    if pct:
        scale = 1.0
        if draft.rules.since(draft.state, 2) and source in draft.state.combatants:
            scale = factor(draft.state.combatants[source], "damage")  # a wounded attacker's factor
        extra = half_up(base * pct / 100 * scale)
        said += f" ({extra})"
        if extra:
            draft.damage(target, extra, kind="critical", source=source)  # armour doesn't stop it
    if not draft.state.combatants[target].active and band != 9:
        return said
    if band == 2:
        stun(draft, target, 1, HALF_AP)
    elif band in (3, 4):
        stun(draft, target, 1)
    elif band == 5:
        stun(draft, target, 2)
    elif band in (6, 7):
        bleed(draft, target)
        if band == 7:
            draft.emit(CombatantDefeated(combatant=target, how="passed out"))
    elif band == 8:
        face = draft.roll("1d10", "crippled extremity", by=source).total
        limb = [
            "right arm",
            "right arm",
            "left arm",
            "left arm",
            "right leg",
            "right leg",
            "left leg",
            "left leg",
            "castration",
            "castration",
        ][face - 1]
        draft.emit(ConditionApplied(target=target, condition=CRIPPLED[limb], source="critical"))
        bleed(draft, target)
        said += f": {limb}"
    elif band == 9:
        draft.emit(CombatantDefeated(combatant=target, how="dead"))
    return said


CRITICAL_MISSES = [
    (20, "goes wild and falls down (5 AP to get up)"),
    (30, "whacks himself, stunned a round"),
    (40, "a 25% wound on himself"),
    (45, "a non-quality weapon breaks"),
    (50, "a 50% wound on himself, stunned a round"),
    (60, "a 100% wound on himself, stunned two rounds"),
    (65, "the weapon breaks"),
    (10_000, "a 100% wound on himself and a critical hit on himself"),
]


def critical_miss(draft: Draft, attacker: str, w: Weapon, missed_by: int, number: int) -> str:
    """The critical miss chart, by how much the second roll missed."""
    band = next(i for i, (top, _) in enumerate(CRITICAL_MISSES) if missed_by <= top)
    said = f"critical miss by {missed_by}: {CRITICAL_MISSES[band][1]}"
    me = draft.state.combatants[attacker]

    def wound(pct: int) -> int:
        base = damage_of(draft, me, w, f"{w.name} wound on oneself")
        scale = factor(me, "damage") if draft.rules.since(draft.state, 2) else 1.0  # one's own wounded factor
        amount = max(0, half_up(base * pct / 100 * scale) - protection(me, w.type))
        hurt(draft, attacker, amount, w.type, attacker)
        return base

    if band == 0:
        draft.emit(ConditionApplied(target=attacker, condition=DOWN, source="critical miss"))
    elif band == 1:
        stun(draft, attacker, 1)
    elif band == 2:
        wound(25)
    elif band == 3:
        if w.quality:
            said += " (a quality weapon: it holds)"
        elif not w.hand:
            draft.emit(WeaponBroken(combatant=attacker, weapon=w.name))
    elif band in (4, 5):
        wound(50 if band == 4 else 100)
        if draft.state.combatants[attacker].active:
            stun(draft, attacker, 1 if band == 4 else 2)
    elif band == 6:
        if not w.hand:
            draft.emit(WeaponBroken(combatant=attacker, weapon=w.name))
    else:
        base = wound(100)
        if draft.state.combatants[attacker].active:
            roll = draft.roll("d%", "critical hit on oneself", by=attacker).total
            if roll <= number:
                said += "; " + critical_hit(draft, attacker, number - roll, base, attacker)
    return said
