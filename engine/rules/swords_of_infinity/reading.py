"""Reading a Swords of Infinity encounter: damage targets and their levels, penalties, spirit,
weapons, positions and distances, cover, vulnerability."""

from __future__ import annotations

import contextlib

from combatlog.engine.protocol import RuleSystem
from combatlog.engine.rules.swords_of_infinity.model import LIFTED_BY_RETREAT, Stats, Weapon, own
from combatlog.projections import Combatant, Encounter


def composition(c: Combatant) -> dict[str, tuple[int, int]]:
    """The damage targets and their d% digits (shared: read it, don't change it)."""
    stats: Stats = c.stats
    return stats.parts


def cap(c: Combatant) -> int:
    stats: Stats = c.stats
    return stats.cap


def raw_level(c: Combatant, d: int) -> int:
    """0 whole, 1 Wounded (above Vitality), 2 Disabled (above twice Vitality, or at the cap when that is the cap)."""
    s = c.stats
    return 2 if d >= s.disabled_at else 1 if d > s.vitality else 0


def _lowered(raw: int, entry: dict[str, int] | None) -> int:
    """A raw level as Resist Impairment and first aid leave it (`entry`: the target's impairment row)."""
    if entry:
        if "ignored" in entry and entry["ignored"] == raw:
            raw -= 1  # only the worst penalty is ignored
        if raw and "aided" in entry:
            raw -= 1
    return raw


def level(state: Encounter, c: Combatant, where: str) -> int:
    """A damage target's effective level: 0 whole, 1 Wounded, 2 Disabled (after first aid and Resist Impairment)."""
    raw = raw_level(c, c.wounds.get(where, 0))
    if not raw:
        return 0
    mine = own(state).impairment.get(c.id)
    return _lowered(raw, mine.get(where) if mine else None)


def destroyed(c: Combatant, where: str) -> bool:
    """Beyond 100 and twice Vitality: the count stops at the cap, so a target that reaches it is destroyed."""
    return c.wounds.get(where, 0) >= cap(c)


def _at_least(state: Encounter, c: Combatant, least: int) -> list[str]:
    """The damage targets of `c` at level `least` or worse, in the order of its wounds."""
    wounds = c.wounds
    if not wounds:
        return []  # (most combatants most of the time)
    s = c.stats
    v, disabled_at = s.vitality, s.disabled_at
    mine = own(state).impairment.get(c.id)
    out = []
    for where, d in wounds.items():
        raw = 2 if d >= disabled_at else 1 if d > v else 0
        if raw >= least and (mine is None or _lowered(raw, mine.get(where)) >= least):
            out.append(where)
    return out


def wounded_targets(state: Encounter, c: Combatant) -> list[str]:
    return _at_least(state, c, 1)


def disabled_targets(state: Encounter, c: Combatant) -> list[str]:
    return _at_least(state, c, 2)


def penalty(state: Encounter, c: Combatant) -> int:
    """-10 to every Power and Success check per Wounded damage target."""
    if not c.wounds:
        return 0  # `wounded_targets` without its frames: asked for every roll
    return -10 * len(_at_least(state, c, 1))


def skill(c: Combatant, name: str) -> int:
    skills: dict[str, int] = c.stats.skills
    return skills.get(name, 0)


def spirit_left(state: Encounter, c: Combatant) -> int:
    stats: Stats = c.stats
    return stats.spirit_max - own(state).spirit_spent.get(c.id, 0)


def weapon(state: Encounter, c: Combatant, name: str | None) -> Weapon:
    """The weapon `name` of `c` (its first one in hand if None); unarmed (class 0, Strength power) otherwise."""
    s: Stats = c.stats
    dropped = own(state).dropped.get(c.id)
    if not dropped and (name is None or type(name) is str):
        return s.in_hand.get(name, s.unarmed)  # nothing dropped (most of the time): one look-up
    for w in s.weapons:
        if (dropped is None or w.name not in dropped) and (name is None or w.name == name):
            return w
    return s.unarmed


_AT: dict[str, tuple[int, int] | None] = {}  # square by position text (a few dozen texts a fight)


def at(c: Combatant) -> tuple[int, int] | None:
    pos = c.position
    if not pos:
        return None
    square = _AT.get(pos, _AT)
    if square is _AT:
        if "," not in pos:
            square = None
        else:
            x, y = pos.split(",", 1)
            square = int(float(x)), int(float(y))
        if len(_AT) >= 4096:
            _AT.clear()
        _AT[pos] = square
    return square  # type: ignore[return-value]


def feet(a: Combatant, b: Combatant) -> int | None:
    """Distance in feet on the 5-ft grid (None when either isn't placed)."""
    pa, pb = at(a), at(b)
    if pa is None or pb is None:
        return None
    return 5 * max(abs(pa[0] - pb[0]), abs(pa[1] - pb[1]))


def cover(c: Combatant, ranged: bool = False) -> int:
    """Damage targets covered: a `cover N` condition, a fortifying shield's class, prone against ranged attacks."""
    if not c.conditions:
        return 0  # (most combatants most of the time)
    n = 0
    for cond in c.conditions:
        if cond.name.startswith("cover "):
            with contextlib.suppress(ValueError):  # a cover condition without a number
                n = max(n, int(cond.name.split()[1]))
    if c.has("fortify"):
        shield = c.stats.shield
        n = max(n, shield.size_class if shield is not None else 0)
    if ranged and c.has("prone"):
        n = max(n, 3)
    return n


def vulnerability(state: Encounter, target: Combatant, attacker: Combatant | None, melee: bool) -> int:
    """The target's Vulnerable stacks against this attacker (before Exploit)."""
    if not target.conditions:
        return 1 if target.id in own(state).pins else 0  # (most targets most of the time)
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
    return w.exploit + (max(0, -attacker.stats.size) if melee else 0)


def is_melee(w: Weapon) -> bool:
    return w.range is None


def since_v2(state: Encounter) -> bool:
    """Version 2 or later of the rules (`RuleSystem.since` reads each version's number once)."""
    return RuleSystem.since(state, 2)


def since_v3(state: Encounter) -> bool:
    """Version 3 or later of the rules."""
    return RuleSystem.since(state, 3)
