"""Reading a Swords of Infinity encounter: damage targets and their levels, penalties, spirit,
weapons, positions and distances, cover, vulnerability."""

from __future__ import annotations

import contextlib

import msgspec

from combatlog.engine.rules.base import RuleSystem
from combatlog.engine.rules.swords_of_infinity.model import HUMAN, LIFTED_BY_RETREAT, Weapon, own, stats_of
from combatlog.projections import Combatant, Encounter


def composition(c: Combatant) -> dict[str, tuple[int, int]]:
    comp = stats_of(c).composition
    return dict(comp) if comp else HUMAN


def cap(c: Combatant) -> int:
    return max(100, 2 * stats_of(c).vitality)


def raw_level(c: Combatant, d: int) -> int:
    """0 whole, 1 Wounded (above Vitality), 2 Disabled (above twice Vitality, or at the cap when that is the cap)."""
    v = stats_of(c).vitality
    if d > 2 * v or (d >= cap(c) and 2 * v >= cap(c)):
        return 2
    return 1 if d > v else 0


def level(state: Encounter, c: Combatant, where: str) -> int:
    """A damage target's effective level: 0 whole, 1 Wounded, 2 Disabled (after first aid and Resist Impairment)."""
    d = c.wounds.get(where, 0)
    raw = raw_level(c, d)
    entry = own(state).impairment.get(c.id, {}).get(where, {})
    if raw and "ignored" in entry and entry["ignored"] == raw:
        raw -= 1  # only the worst penalty is ignored
    if raw and "aided" in entry:
        raw = max(0, raw - 1)
    return raw


def destroyed(c: Combatant, where: str) -> bool:
    """Beyond 100 and twice Vitality: the count stops at the cap, so a target that reaches it is destroyed."""
    return c.wounds.get(where, 0) >= cap(c)


def wounded_targets(state: Encounter, c: Combatant) -> list[str]:
    return [t for t in c.wounds if level(state, c, t) >= 1]


def disabled_targets(state: Encounter, c: Combatant) -> list[str]:
    return [t for t in c.wounds if level(state, c, t) >= 2]


def penalty(state: Encounter, c: Combatant) -> int:
    """-10 to every Power and Success check per Wounded damage target."""
    return -10 * len(wounded_targets(state, c))


def skill(c: Combatant, name: str) -> int:
    return int(stats_of(c).skills.get(name, 0))


def spirit_left(state: Encounter, c: Combatant) -> int:
    spent = own(state).spirit_spent.get(c.id, 0)
    mine = stats_of(c)
    return min(mine.spirit, mine.spirit if mine.spirit_limit is None else mine.spirit_limit) - spent


UNARMED = Weapon(name="unarmed")


def weapon(state: Encounter, c: Combatant, name: str | None) -> Weapon:
    """The weapon `name` of `c` (its first one in hand if None); unarmed (class 0, Strength power) otherwise."""
    dropped = own(state).dropped.get(c.id, ())
    for w in stats_of(c).weapons:
        if w.name not in dropped and (name is None or w.name == name):
            return w
    return msgspec.structs.replace(UNARMED, power=stats_of(c).strength)


def at(c: Combatant) -> tuple[int, int] | None:
    if not c.position or "," not in c.position:
        return None
    x, y = c.position.split(",", 1)
    return int(float(x)), int(float(y))


def feet(a: Combatant, b: Combatant) -> int | None:
    """Distance in feet on the 5-ft grid (None when either isn't placed)."""
    pa, pb = at(a), at(b)
    if pa is None or pb is None:
        return None
    return 5 * max(abs(pa[0] - pb[0]), abs(pa[1] - pb[1]))


def cover(c: Combatant, ranged: bool = False) -> int:
    """Damage targets covered: a `cover N` condition, a fortifying shield's class, prone against ranged attacks."""
    n = 0
    for cond in c.conditions:
        if cond.name.startswith("cover "):
            with contextlib.suppress(ValueError):  # a cover condition without a number
                n = max(n, int(cond.name.split()[1]))
    if c.has("fortify"):
        shield = stats_of(c).shield
        n = max(n, shield.size_class if shield is not None else 0)
    if ranged and c.has("prone"):
        n = max(n, 3)
    return n


def vulnerability(state: Encounter, target: Combatant, attacker: Combatant | None, melee: bool) -> int:
    """The target's Vulnerable stacks against this attacker (before Exploit)."""
    n = 0
    retreat = target.has("retreat")
    for cond in target.conditions:
        name = cond.name
        if name.startswith("vulnerable") or name == "rough terrain" or name == "encumbered":
            if retreat and name in LIFTED_BY_RETREAT:
                continue
            n += 1
    if melee and target.has("prone"):
        n += 1
    if target.id in own(state).pins:
        n += 1
    if attacker is not None and target.has(f"unaware of {attacker.id}"):
        n += 1
    return n


def exploit(attacker: Combatant, w: Weapon, melee: bool) -> int:
    """Exploit: the weapon's, and 1 per size category below 0 for a small creature attacking in melee."""
    return w.exploit + (max(0, -stats_of(attacker).size) if melee else 0)


def is_melee(w: Weapon) -> bool:
    return w.range is None


def _v2(state: Encounter) -> bool:
    return RuleSystem.since(state, 2)
