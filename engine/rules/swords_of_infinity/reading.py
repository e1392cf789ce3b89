"""Reading a Swords of Infinity encounter: damage targets and their levels, penalties, spirit,
weapons, positions and distances, cover, vulnerability."""

from __future__ import annotations

import contextlib
from typing import Any

from combatlog.engine.rules.base import RuleSystem
from combatlog.engine.rules.swords_of_infinity.model import HUMAN, LIFTED_BY_RETREAT
from combatlog.projections import Combatant, Encounter


def composition(c: Combatant) -> dict[str, Any]:
    comp = c.stats.get("composition")
    return {k: tuple(v) for k, v in comp.items()} if isinstance(comp, dict) and comp else HUMAN


def cap(c: Combatant) -> int:
    return max(100, 2 * int(c.stats["vitality"]))


def raw_level(c: Combatant, d: int) -> int:
    """0 whole, 1 Wounded (above Vitality), 2 Disabled (above twice Vitality, or at the cap when that is the cap)."""
    v = int(c.stats["vitality"])
    if d > 2 * v or (d >= cap(c) and 2 * v >= cap(c)):
        return 2
    return 1 if d > v else 0


def level(state: Encounter, c: Combatant, where: str) -> int:
    """A damage target's effective level: 0 whole, 1 Wounded, 2 Disabled (after first aid and Resist Impairment)."""
    d = c.wounds.get(where, 0)
    raw = raw_level(c, d)
    entry = state.extra.get("impairment", {}).get(c.id, {}).get(where, {})
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
    return int((c.stats.get("skills") or {}).get(name, 0))


def spirit_left(state: Encounter, c: Combatant) -> int:
    spent = int(state.extra.get("spirit_spent", {}).get(c.id, 0))
    return min(int(c.stats.get("spirit", 0)), int(c.stats.get("spirit_limit", c.stats.get("spirit", 0)))) - spent


UNARMED = {"name": "unarmed", "skill": 0, "weight": 0, "size_class": 0}


def weapon(state: Encounter, c: Combatant, name: str | None) -> dict[str, Any]:
    """The weapon `name` of `c` (its first one in hand if None); unarmed (class 0, Strength power) otherwise."""
    dropped = state.extra.get("dropped", {}).get(c.id, ())
    for w in c.stats.get("weapons", ()):
        if isinstance(w, dict) and w.get("name") not in dropped and (name is None or w.get("name") == name):
            return w
    return {**UNARMED, "power": int(c.stats.get("strength", 0))}


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
        n = max(n, int((c.stats.get("shield") or {}).get("size_class", 0)))
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
    if target.id in state.extra.get("pins", {}):
        n += 1
    if attacker is not None and target.has(f"unaware of {attacker.id}"):
        n += 1
    return n


def exploit(attacker: Combatant, w: dict[str, Any], melee: bool) -> int:
    """Exploit: the weapon's, and 1 per size category below 0 for a small creature attacking in melee."""
    return int(w.get("exploit", 0)) + (max(0, -int(attacker.stats.get("size", 0))) if melee else 0)


def is_melee(w: dict[str, Any]) -> bool:
    return "range" not in w


def _v2(state: Encounter) -> bool:
    return RuleSystem.since(state, 2)
