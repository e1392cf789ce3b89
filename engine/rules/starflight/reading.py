"""Reading a Starflight encounter: the composite strength index, shields, positions, ranges,
weapons, the automatic target."""

from __future__ import annotations

import math
from typing import Any

from combatlog.engine.dice import DiceError
from combatlog.engine.dice import parse as parse_dice
from combatlog.engine.errors import Refused
from combatlog.engine.rules.starflight.model import NEAR_DEATH, Stats, Weapon, own
from combatlog.projections import Combatant, Encounter


def csi(state: Encounter) -> dict[str, int]:
    """Each side's composite strength index now: the strength of its combatants still fighting."""
    # one pass, sides in the order their first combatant was added (as Encounter.sides):
    # a step's end asks for it at least once, an audit a million times
    out: dict[str, int] = {}
    for c in state.combatants.values():
        if c.removed:
            continue
        if c.defeated is None:
            out[c.side] = out.get(c.side, 0) + c.stats.strength
        elif c.side not in out:
            out[c.side] = 0
    return out


def shields(state: Encounter, c: Combatant) -> int:
    """The combatant's shield points now."""
    given = c.stats.shields
    return own(state).shields.get(c.id, 0 if given is None else given)


def position(c: Combatant) -> tuple[float, float] | None:
    """Where `c` stands on the grid, or None if it hasn't been placed."""
    if not c.position or "," not in c.position:
        return None
    x, y = c.position.split(",", 1)
    return float(x), float(y)


def distance(state: Encounter, a: tuple[float, float], b: tuple[float, float]) -> int:
    """Range in increments between two points: the larger axis on a physical grid, measured on an abstract one."""
    dx, dy = abs(a[0] - b[0]), abs(a[1] - b[1])
    if state.options.grid == "physical":
        return int(max(dx, dy))
    return int(math.floor(math.hypot(dx, dy) + 0.5))


def targeted(state: Encounter, attacker: str, target: str) -> bool:
    """True when `attacker` has targeted `target` this round (declared or resolved)."""
    if own(state).targeted.get(f"{attacker}>{target}") == state.round:
        return True
    for p in state.pending:  # noqa: SIM110  # a loop, not any(): asked for every enemy at every step of the policy
        if p.actor == attacker and target in p.targets and p.action in ("shoot", "melee"):
            return True
    return False


def range_between(state: Encounter, a: Combatant, b: Combatant, range_from: str = "own") -> int | None:
    """The range from `a` to its target `b` in increments, or None if it isn't known yet."""
    if state.options.grid == "none":
        ranges = own(state).ranges
        found = ranges.get(b.id if range_from == "theirs" else a.id)
        return None if found is None else int(found)
    pa, pb = position(a), position(b)  # where they stand now: a declared move counts once it resolves
    if pa is None or pb is None:
        return None
    return distance(state, pa, pb)


def planned_position(state: Encounter, c: Combatant) -> tuple[float, float] | None:
    """Where `c` will stand once its declared moves resolve."""
    pos = position(c)
    for p in state.pending:
        if p.actor == c.id and p.action == "move":
            pos = (float(p.params["x"]), float(p.params["y"]))
    return pos


def weapons(c: Combatant) -> tuple[Weapon, ...]:
    """The combatant's weapons (its typed stats')."""
    stats: Stats = c.stats
    return stats.weapons


def cheapest(c: Combatant) -> tuple[int | None, int | None]:
    """The fewest actions a shot and a melee attack cost `c` (None: it has no such weapon)."""
    stats: Stats = c.stats
    return stats.cheapest


def weapon(c: Combatant, name: str | None, melee: bool) -> Weapon | None:
    """The weapon `name` (or the first fit for melee/shooting) of `c`, or None."""
    stats: Stats = c.stats
    for w in stats.weapons:
        fit = bool(w.melee) if melee else w.range >= 1
        if fit and (name is None or w.name == name):
            return w
    return None


def near_death(c: Combatant) -> bool:
    """True when the combatant may take one standard action only."""
    if c.has(NEAR_DEATH):
        return True
    stats: Stats = c.stats
    return stats.hp - c.damage <= stats.near_death


def auto_target(state: Encounter, actor: Combatant) -> Combatant | None:
    """The text's automatic target: the enemy with the next lowest initiative check value, else the highest."""
    ranked = target_preference(state, actor)
    return ranked[0] if ranked else None


def target_preference(state: Encounter, actor: Combatant) -> list[Combatant]:
    """Enemies in the automatic schema's order: the next lowest initiative check value down, then the
    highest down (so the first is the text's target; the rest are who comes next when it can't be reached)."""
    side = actor.side
    enemies = [c for c in state.combatants.values() if c.defeated is None and not c.removed and c.side != side]
    if len(enemies) < 2:
        return enemies  # nothing to rank (asked at every step of the policy)
    rank = _ranks(state)
    n = len(rank)
    mine = actor.initiative if actor.initiative is not None else 0
    # one stable sort: those below `mine` first, each part by initiative down, then the order
    enemies.sort(key=lambda c: ((c.initiative or 0) >= mine, -(c.initiative or 0), rank.get(c.id, n)))
    return enemies


_LAST_ORDER: tuple[Any, dict[str, int]] = ((), {})


def _ranks(state: Encounter) -> dict[str, int]:
    """Each id's place in the acting order (its last, as `flat_order` lists it)."""
    # the order is set once a fight (or a round): the last one's places are kept with it, held
    # by the entry so its identity can't be reused; one read and one write of the global
    global _LAST_ORDER
    order, rank = _LAST_ORDER
    if order is not state.order:
        rank = {cid: i for i, cid in enumerate(state.flat_order())}
        _LAST_ORDER = (state.order, rank)
    return rank


def group_key(state: Encounter, c: Combatant) -> str:
    """A combatant's group: its `group` (as `side/group` when another side uses that name too), else its side."""
    if not c.group:
        return c.side
    if any(o.group == c.group and o.side != c.side for o in state.combatants.values()):
        return f"{c.side}/{c.group}"
    return c.group


def check_dice(expr: Any, what: str) -> None:
    """Refuse (as `what`) a dice expression the parser can't read."""
    try:
        parse_dice(str(expr))
    except DiceError as exc:
        raise Refused(what, str(exc)) from None
