"""Starflight's automatic combatant: the text's automatic target, melee at range zero, else a
weapon in range, else moving toward it."""

from __future__ import annotations

import math
from typing import Any

from combatlog.engine.protocol import RuleSystem
from combatlog.engine.rules.starflight.model import Weapon
from combatlog.engine.rules.starflight.reading import (
    distance,
    planned_position,
    position,
    range_between,
    target_preference,
    targeted,
)
from combatlog.events import Command
from combatlog.projections import Combatant, Encounter


def policy(rules: RuleSystem, state: Encounter, actor: Combatant) -> Command:
    """The automatic combatant: the text's target if it can be attacked (else the next in the same
    order that can): melee at range zero, else a weapon in range; else move toward the text's target
    (or step off its square to shoot); else end the turn."""
    # asked at every step of a simulated fight: each thing is read once, and what can't succeed
    # (an attack no action is left for) isn't tried
    preference = target_preference(state, actor)
    if not preference:
        return Command(kind="end_turn", actor=actor.id, by="policy")
    stats = actor.stats
    arms = stats.weapons
    # what `Starflight.affordable` allows, read without building its list
    left = actor.resources.get("actions", 0)
    ranged, close = stats.cheapest
    can_shoot = ranged is not None and left >= ranged
    can_melee = close is not None and left >= close
    can_move = left >= 1 and actor.resources.get("mp", 0) >= 1
    grid = state.options.grid != "none"
    if (can_shoot or can_melee) and not grid:
        # without a grid the own range is the same whatever the target: tried once
        mine = range_between(state, actor, preference[0], "own")
        pick = _pick(arms, left, can_melee, can_shoot, mine)
        for target in preference:
            if targeted(state, target.id, actor.id):
                theirs = range_between(state, actor, target, "theirs")
                if (theirs or 0) < (mine or 0):  # the shorter range first (the own range on a tie)
                    answer = _pick(arms, left, can_melee, can_shoot, theirs)
                    if answer is not None:
                        return _act(actor, answer[0], target, "theirs", weapon=answer[1])
                    if pick is not None:
                        return _act(actor, pick[0], target, "own", weapon=pick[1])
                    continue
                if pick is not None:
                    return _act(actor, pick[0], target, "own", weapon=pick[1])
                answer = _pick(arms, left, can_melee, can_shoot, theirs)
                if answer is not None:
                    return _act(actor, answer[0], target, "theirs", weapon=answer[1])
            elif pick is not None:
                return _act(actor, pick[0], target, "own", weapon=pick[1])
    elif can_shoot or can_melee:
        timing = rules.timing(state.options)
        # on a grid an attack that waits behind declared moves lands from where they lead
        moves_later = not timing.immediate("movement")
        melee_later = moves_later and not timing.immediate("melee")
        shooting_later = moves_later and not timing.immediate("shooting")
        for target in preference:
            if can_melee and _expected(state, actor, target, melee_later) == 0:
                for w in arms:
                    if w.melee and (2 if w.full_round else 1) <= left:
                        return _act(actor, "melee", target, "own", weapon=w.name)
            if can_shoot:
                r = _expected(state, actor, target, shooting_later)
                if r is not None and r >= 1:
                    for w in arms:
                        if w.range >= r and (2 if w.full_round else 1) <= left:
                            return _act(actor, "shoot", target, "own", weapon=w.name)
    if can_move:
        target = preference[0]
        here, there = planned_position(state, actor), position(target)
        if here is not None and there is not None:
            planned = distance(state, here, there)
            reach = stats.reach
            melee = stats.has_melee
            if not arms:
                return Command(kind="end_turn", actor=actor.id, by="policy")
            if planned == 0 and not melee:
                # range zero is melee: step off to shoot
                return _act(actor, "move", None, "own", x=_plain(here[0] + 1), y=_plain(here[1]))
            need = planned if melee or not reach else planned - reach
            step = min(need, actor.resources.get("mp", 0))
            if step > 0:
                x, y = _towards(state, here, there, step)
                if (x, y) != here:
                    return _act(actor, "move", None, "own", x=_plain(x), y=_plain(y))
    return Command(kind="end_turn", actor=actor.id, by="policy")


def _expected(state: Encounter, actor: Combatant, target: Combatant, later: bool) -> int | None:
    """On a grid, the range when an attack would resolve: after declared moves if it resolves `later`."""
    if later:
        here, there = planned_position(state, actor), planned_position(state, target)
        return None if here is None or there is None else distance(state, here, there)
    return range_between(state, actor, target)


def _pick(arms: tuple[Weapon, ...], left: int, melee: bool, shoot: bool, r: int | None) -> tuple[str, str] | None:
    """The attack at range `r`, as (action, weapon): melee at range zero, else the first weapon in
    range; None when none fits the actions left."""
    if melee and r == 0:
        for w in arms:
            if w.melee and (2 if w.full_round else 1) <= left:
                return ("melee", w.name)
    if shoot and r is not None and r >= 1:
        for w in arms:
            if w.range >= r and (2 if w.full_round else 1) <= left:
                return ("shoot", w.name)
    return None


def _act(actor: Combatant, action: str, target: Combatant | None, how: str, **params: Any) -> Command:
    if how == "theirs":
        params["range_from"] = "theirs"
    return Command(
        kind="act",
        actor=actor.id,
        action=action,
        targets=(target.id,) if target else (),
        params=params,
        by="policy",
    )


def _plain(v: float) -> int | float:
    return int(v) if float(v).is_integer() else v


def _towards(state: Encounter, here: tuple[float, float], there: tuple[float, float], step: int) -> tuple[float, float]:
    dx, dy = there[0] - here[0], there[1] - here[1]
    if state.options.grid == "physical":
        sx = max(-step, min(step, int(dx)))
        sy = max(-step, min(step, int(dy)))
        return here[0] + sx, here[1] + sy
    d = math.hypot(dx, dy)
    if d <= step:
        return there
    f = (step - 0.01) / d  # stay inside the allowance once rounded to hundredths
    return round(here[0] + dx * f, 2), round(here[1] + dy * f, 2)
