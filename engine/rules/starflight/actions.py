"""What a Starflight combatant can declare: shoot, melee, move, heal; two standard actions or one
full-round action, hit difficulties, ranges and blast weapons."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from combatlog.engine.protocol import ActionParam, ActionSpec, Draft
from combatlog.engine.rules.starflight.events import Placed, ShieldsSet, TargetChosen
from combatlog.engine.rules.starflight.model import NO_RECOVERY, Weapon, number_text, own
from combatlog.engine.rules.starflight.reading import position, range_between, shields, targeted, weapon, weapons
from combatlog.events import ConditionApplied
from combatlog.projections import Combatant, Encounter, Pending


def _hd(state: Encounter, target: Combatant, w: Weapon) -> tuple[str, int]:
    """Which hit difficulty the target defends with, and its value."""
    stats = target.stats
    if state.surprise_round:
        if w.blast:
            which = state.options.blast_hd
            if which == "auto":
                which = "thd" if state.options.scale == "character" else "bhd"
            value = stats.thd if which == "thd" else stats.bhd
            return which.upper(), stats.hd if value is None else value
        return "FHD", stats.hd if stats.fhd is None else stats.fhd
    return "HD", stats.hd


def _attack(draft: Draft, p: Pending) -> str:
    state = draft.state
    actor = state.combatants[p.actor]
    target = state.combatants[p.targets[0]]
    melee = p.action == "melee"
    w = weapon(actor, p.params.get("weapon"), melee)
    if w is None:
        return "no weapon for that"
    r = range_between(state, actor, target, str(p.params.get("range_from", "own")))
    why = _range_problem(r, w, melee, target)
    if why:
        return f"no attack: {why}"
    draft.emit(TargetChosen(actor=actor.id, target=target.id, round=state.round))
    bonus = actor.stats.attack + w.attack
    hd_name, hd = _hd(state, target, w)
    roll = draft.roll(f"2d10z{bonus:+d}" if bonus else "2d10z", f"{p.action} at {target.id} with {w.name}", by=actor.id)
    if roll.total < hd:
        return f"{roll.total} against {hd_name} {hd}, a miss"
    dmg = draft.roll(str(w.damage), f"{w.name} damage to {target.id}", by=actor.id)
    amount = max(0, dmg.total)
    have = shields(draft.state, target)
    absorbed = min(amount, have)
    if absorbed:
        draft.emit(ShieldsSet(combatant=target.id, shields=have - absorbed, reason=f"absorbed {absorbed}"))
    if draft.state.surprise_round and amount and not target.has(NO_RECOVERY):
        draft.emit(ConditionApplied(target=target.id, condition=NO_RECOVERY, duration=1, source=actor.id))
    if amount - absorbed:
        draft.damage(target.id, amount - absorbed, kind=w.name, source=actor.id)
    shield_note = f" (shields absorb {absorbed})" if absorbed else ""
    return f"{roll.total} against {hd_name} {hd}, a hit; {dmg.expression} = {dmg.total} damage{shield_note}"


def _range_problem(r: int | None, w: Weapon, melee: bool, target: Combatant) -> str | None:
    if r is None:
        return f"no range to {target.name} is known yet (place the combatants or give a range)"
    if melee:
        return None if r == 0 else f"{target.name} is at range {r}; melee is at range zero"
    if r == 0:
        return f"{target.name} is at range zero; that is melee"
    if r > w.range:
        return f"{target.name} is at range {r}, beyond the {w.name}'s {w.range}"
    return None


def _check_attack(melee: bool) -> Callable[[Encounter, Combatant, tuple[str, ...], dict[str, Any]], str | None]:
    category = "melee" if melee else "shooting"

    def check(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
        name = params.get("weapon")
        w = weapon(actor, name, melee)
        if w is None:
            kind = "melee" if melee else "ranged"
            have = ", ".join(x.name for x in weapons(actor)) or "none"
            return f"no {kind} weapon{' ' + repr(name) if name else ''} (weapons: {have})"
        rf = params.get("range_from", "own")
        if rf not in ("own", "theirs"):
            return f"range_from={rf!r}: use own or theirs"
        target = state.combatants[targets[0]]
        if rf == "theirs":
            if state.options.grid != "none":
                return "range_from=theirs is for fights without a grid"
            if not targeted(state, target.id, actor.id):
                return f"{target.name} hasn't targeted {actor.name} this round; use your own range"
        if state.options.immediate[category]:
            return _range_problem(range_between(state, actor, target, str(rf)), w, melee, target)
        return None

    return check


def _move(draft: Draft, p: Pending) -> str:
    state = draft.state
    actor = state.combatants[p.actor]
    x, y = float(p.params["x"]), float(p.params["y"])
    facing = p.params.get("facing", own(state).facing.get(actor.id))
    draft.emit(Placed(combatant=actor.id, x=x, y=y, facing=facing, how="moved"))
    return f"moves to {number_text(x)},{number_text(y)}"


def move_distance(state: Encounter, actor: Combatant, params: dict[str, Any]) -> int:
    """How far, in increments, the move in `params` takes `actor` (from the end of a move it already declared)."""
    start = None
    for p in state.pending:
        if p.actor == actor.id and p.action == "move":
            start = (float(p.params["x"]), float(p.params["y"]))
    start = start or position(actor)
    if start is None or "x" not in params or "y" not in params:
        return 1
    d = math.hypot(float(params["x"]) - start[0], float(params["y"]) - start[1])
    if state.options.grid == "physical":
        return int(max(abs(float(params["x"]) - start[0]), abs(float(params["y"]) - start[1])))
    return int(math.ceil(d - 1e-9))


def _check_move(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    if state.options.grid == "none":
        return "without a grid there is no movement (ranges are rolled every round)"
    if position(actor) is None:
        return f"{actor.name} hasn't been placed yet"
    try:
        x, y = float(params["x"]), float(params["y"])
    except (KeyError, TypeError, ValueError):
        return "say where to: params x=<increments> y=<increments>"
    if state.options.grid == "physical" and not (x.is_integer() and y.is_integer()):
        return "on a physical grid a square is whole numbers x, y"
    facing = params.get("facing")
    if facing is not None and not is_facing(facing):
        return f"facing={facing!r}: use 1-8 (1 ahead, clockwise in 45-degree steps)"
    return None


def is_facing(value: Any) -> bool:
    """True for a facing: a whole number from 1 to 8."""
    return type(value) is int and 1 <= value <= 8


def _heal(draft: Draft, p: Pending) -> str:
    state = draft.state
    actor = state.combatants[p.actor]
    target = state.combatants[p.targets[0]]
    if target.has(NO_RECOVERY):
        return f"{target.name} can't be healed this round (damaged in the surprise round)"
    roll = draft.roll(str(actor.stats.heal), f"healing {target.id}", by=actor.id)
    amount = min(max(0, roll.total), target.damage)
    if amount:
        draft.damage(target.id, -amount, kind="healing", source=actor.id)
    return f"heals {target.name} for {amount}"


def _check_heal(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    if actor.has(NO_RECOVERY):
        return f"{actor.name} was damaged in the surprise round and can't heal this round"
    if state.combatants[targets[0]].has(NO_RECOVERY):
        return f"{state.combatants[targets[0]].name} was damaged in the surprise round and can't be healed this round"
    return None


def _ranged(state: Encounter, actor: Combatant) -> tuple[str, ...]:
    return tuple(w.name for w in weapons(actor) if w.range >= 1)


def _melee(state: Encounter, actor: Combatant) -> tuple[str, ...]:
    return tuple(w.name for w in weapons(actor) if w.melee)


RANGE_FROM = ActionParam(
    "range_from",
    choices=("own", "theirs"),
    help="without a grid: theirs uses the range the target rolled when it targeted this one",
)


SHOOT = ActionSpec(
    "shoot",
    "shooting",
    {"actions": 1},
    _attack,
    check=_check_attack(False),
    help="fire a ranged weapon (params weapon, range_from=own|theirs): 2d10+attack vs HD",
    params=(
        ActionParam("weapon", help="the weapon fired (default: the first ranged one)", offered=_ranged),
        RANGE_FROM,
    ),
)


MELEE = ActionSpec(
    "melee",
    "melee",
    {"actions": 1},
    _attack,
    check=_check_attack(True),
    help="strike at range zero (params weapon): 2d10+attack vs HD",
    params=(ActionParam("weapon", help="the weapon (default: the first melee one)", offered=_melee), RANGE_FROM),
)


MOVE = ActionSpec(
    "move",
    "movement",
    {"actions": 1},
    _move,
    targets="none",
    min_targets=0,
    max_targets=0,
    check=_check_move,
    help="move on the grid (params x, y, facing 1-8), paying movement points",
    params=(
        ActionParam("x", "number", help="where to, across the grid, in increments"),
        ActionParam("y", "number", help="where to, along the grid, in increments"),
        ActionParam(
            "facing", "int", tuple(range(1, 9)), help="the facing after the move: 1 ahead, clockwise by 45 degrees"
        ),
    ),
)


HEAL = ActionSpec(
    "heal",
    None,
    {"actions": 1},
    _heal,
    targets="ally",
    check=_check_heal,
    help="restore an ally's hit points with the healer's heal dice",
    params=(),
)
