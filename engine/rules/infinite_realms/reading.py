"""Reading an Infinite Realms encounter: distances, engagement, weapons, reach, the wound and
crippling factors, defense ratings, damage and protection."""

from __future__ import annotations

import math

from combatlog.engine.protocol import Draft
from combatlog.engine.rules.infinite_realms.model import WOUNDED_25, WOUNDED_50, Stats, Weapon, own
from combatlog.projections import Combatant, Encounter


def distance(state: Encounter, a: str, b: str) -> int:
    """Yards between two combatants (enemies start `start_distance` apart, allies 0)."""
    d = own(state).distance.get(f"{a}|{b}" if a < b else f"{b}|{a}")  # (`pair`, inlined)
    if d is not None:
        return int(d)
    ca, cb = state.combatants[a], state.combatants[b]
    return state.options.start_distance if ca.side != cb.side else 0


def engaged_with(state: Encounter, a: str) -> list[str]:
    """The active combatants `a` is fighting hand to hand."""
    return [b for b in own(state).engaged.get(a, ()) if state.combatants[b].active]


def weapons(c: Combatant) -> tuple[Weapon, ...]:
    """The combatant's weapons as given in its stats."""
    stats: Stats = c.stats
    return stats.weapons


def weapon(state: Encounter, c: Combatant, name: str | None) -> Weapon | None:
    """The weapon `name` of `c` (its first unbroken one if None), or None."""
    broken = own(state).broken.get(c.id, ())
    if not broken and (name is None or type(name) is str):
        stats: Stats = c.stats
        return stats.in_hand.get(name)  # nothing broken (most of the time): one look-up
    for w in weapons(c):
        if w.name in broken:
            continue
        if name is None or w.name == name:
            return w
    return None


def reach(state: Encounter, c: Combatant) -> int:
    """The reach in feet of `c`'s first melee weapon (0 bare-handed)."""
    broken = own(state).broken.get(c.id, ())
    for w in weapons(c):
        if w.kind == "melee" and w.name not in broken:
            return w.reach
    return 0


def factor(c: Combatant, what: str) -> float:
    """The lowest of the wound and crippling factors on `what` (ap, damage, offense, defense)."""
    if not c.conditions:
        return 1.0  # (most combatants most of the time)
    f = 1.0
    if c.has(WOUNDED_25):
        f = min(f, 0.5) if what in ("ap", "damage") else f
    elif c.has(WOUNDED_50):
        f = min(f, 0.75) if what in ("ap", "damage") else f
    for name in ("crippled right arm", "crippled left arm", "crippled right leg", "crippled left leg"):
        if c.has(name):
            f = min(f, 0.5)
    if c.has("castrated"):
        f = min(f, 0.75)
    return f


def wound_shift(c: Combatant) -> int:
    """Offense drops (and defense % rises) by this much for wounds: 10 at 50% HP, 20 at 25%."""
    if not c.conditions:
        return 0
    return 20 if c.has(WOUNDED_25) else 10 if c.has(WOUNDED_50) else 0


def base_defense(state: Encounter, c: Combatant) -> int:
    """The defense rating for the attacks `c` uses this round (the lowest of them)."""
    d = c.stats.defense
    if isinstance(d, dict):
        kinds = own(state).using.get(c.id) or (_first_kind(c),)
        value = min(d.get(k, min(d.values())) for k in kinds)
    else:
        value = d
    if "kick" in own(state).using.get(c.id, ()):
        value = value * 3 // 4
    return int(value * factor(c, "defense"))


def _first_kind(c: Combatant) -> str:
    ws = weapons(c)
    return ws[0].kind if ws else "punch"


def damage_of(draft: Draft, attacker: Combatant, w: Weapon, purpose: str) -> int:
    """The weapon's full damage: its dice rolled, a number, or a percentage of PS (punch, kick)."""
    if w.damage_ps is not None:
        return half_up(attacker.stats.ps * w.damage_ps / 100)
    dmg = w.damage
    if isinstance(dmg, int):
        return dmg
    return draft.roll(str(dmg), purpose, by=attacker.id).total


def half_up(x: float) -> int:
    """`x` rounded to the nearest whole number, halves up."""
    return int(math.floor(x + 0.5))


def damage_percent(made_by: int) -> int:
    """The damage chart: percent damage by how much the roll was made by."""
    if made_by <= 10:
        return 25
    if made_by <= 20:
        return 50
    if made_by <= 30:
        return 75
    return 100


def protection(c: Combatant, kind: str | None) -> int:
    stats: Stats = c.stats
    p = stats.protection
    if isinstance(p, dict):
        return p.get(kind or "", p.get("default", 0))
    return p
