"""Starflight's automatic combatant: the text's automatic target, melee at range zero, else a
weapon in range, else moving toward it."""

from __future__ import annotations

import math
from typing import Any

from combatlog.engine.rules.base import RuleSystem
from combatlog.engine.rules.starflight.model import Weapon
from combatlog.engine.rules.starflight.reading import (
    distance,
    planned_position,
    position,
    range_between,
    target_preference,
    targeted,
    weapons,
)
from combatlog.events import Command
from combatlog.projections import Combatant, Encounter


def _policy(rules: RuleSystem, state: Encounter, actor: Combatant) -> Command:
    """The automatic combatant: the text's target if it can be attacked (else the next in the same
    order that can): melee at range zero, else a weapon in range; else move toward the text's target
    (or step off its square to shoot); else end the turn."""
    end = Command(kind="end_turn", actor=actor.id, by="policy")
    preference = target_preference(state, actor)
    if not preference:
        return end
    can = {s.name for s in rules.affordable(state, actor)}
    left = actor.resources.get("actions", 0)
    timing = rules.timing(state.options)
    grid = state.options.get("grid", "none") != "none"

    def act(action: str, target: Combatant | None = None, **params: Any) -> Command:
        return Command(
            kind="act",
            actor=actor.id,
            action=action,
            targets=(target.id,) if target else (),
            params=params,
            by="policy",
        )

    def expected(target: Combatant, category: str, how: str = "own") -> int | None:
        """The range when an attack of `category` would resolve (after declared moves, if later)."""
        if grid and not timing.immediate(category) and not timing.immediate("movement"):
            here, there = planned_position(state, actor), planned_position(state, target)
            return None if here is None or there is None else distance(state, here, there)
        return range_between(state, actor, target, how)

    def fits(w: Weapon) -> bool:
        return (2 if w.full_round else 1) <= left

    for target in preference:
        hows = ["own"]
        if not grid and targeted(state, target.id, actor.id):
            hows.append("theirs")
        for how in sorted(hows, key=lambda h: range_between(state, actor, target, h) or 0):
            extra: dict[str, Any] = {"range_from": "theirs"} if how == "theirs" else {}
            if "melee" in can and expected(target, "melee", how) == 0:
                for w in weapons(actor):
                    if w.melee and fits(w):
                        return act("melee", target, weapon=w.name, **extra)
            r = expected(target, "shooting", how)
            if "shoot" in can and r is not None and r >= 1:
                for w in weapons(actor):
                    if w.range >= r and fits(w):
                        return act("shoot", target, weapon=w.name, **extra)
    target = preference[0]
    here, there = planned_position(state, actor), position(target)
    if "move" in can and here is not None and there is not None:
        planned = distance(state, here, there)
        reach = max([w.range for w in weapons(actor)] + [0])
        melee = any(w.melee for w in weapons(actor))
        if not weapons(actor):
            return end
        if planned == 0 and not melee:
            return act("move", x=_plain(here[0] + 1), y=_plain(here[1]))  # range zero is melee: step off to shoot
        need = planned if melee or not reach else planned - reach
        step = min(need, actor.resources.get("mp", 0))
        if step > 0:
            x, y = _towards(state, here, there, step)
            if (x, y) != here:
                return act("move", x=_plain(x), y=_plain(y))
    return end


def _plain(v: float) -> int | float:
    return int(v) if float(v).is_integer() else v


def _towards(state: Encounter, here: tuple[float, float], there: tuple[float, float], step: int) -> tuple[float, float]:
    dx, dy = there[0] - here[0], there[1] - here[1]
    if state.options.get("grid") == "physical":
        sx = max(-step, min(step, int(dx)))
        sy = max(-step, min(step, int(dy)))
        return here[0] + sx, here[1] + sy
    d = math.hypot(dx, dy)
    if d <= step:
        return there
    f = (step - 0.01) / d  # stay inside the allowance once rounded to hundredths
    return round(here[0] + dx * f, 2), round(here[1] + dy * f, 2)
