"""Swords of Infinity's automatic combatant: close on the first foe, then attack it with a full
critical and counter, telling the defender to block (at its best-armoured target) or dodge."""

from __future__ import annotations

from typing import Any

from combatlog.engine.rules.base import RuleSystem
from combatlog.engine.rules.swords_of_infinity.model import own, stats_of
from combatlog.engine.rules.swords_of_infinity.reading import at, feet, spirit_left, weapon
from combatlog.events import Command
from combatlog.projections import Combatant, Encounter


def policy(rules: RuleSystem, state: Encounter, actor: Combatant) -> Command:
    """The command an automatic Swords of Infinity combatant issues now."""
    end = Command(kind="end_turn", actor=actor.id, by="policy")
    if actor.resources.get("actions", 0) < 1:
        return end
    if actor.id in own(state).pins:
        if spirit_left(state, actor) >= 1:
            return Command(kind="act", actor=actor.id, action="escape", by="policy")
        return end
    if actor.has("prone"):
        return Command(kind="act", actor=actor.id, action="stand", by="policy")
    foes = [c for c in state.active() if c.side != actor.side]
    if not foes:
        return end
    target = foes[0]
    w = weapon(state, actor, None)
    d = feet(actor, target)
    if d is not None and d > int(w.range if w.range is not None else w.reach):
        here, there = at(actor), at(target)
        if here is None or there is None:
            return end
        step = stats_of(actor).move
        dx, dy = there[0] - here[0], there[1] - here[1]
        x = here[0] + max(-step, min(step, dx - (dx > 0) + (dx < 0)))
        y = here[1] + max(-step, min(step, dy - (dy > 0) + (dy < 0)))
        return Command(kind="act", actor=actor.id, action="move", params={"x": x, "y": y}, by="policy")
    defense = "block" if "block" in target.stats else "dodge" if "dodge" in target.stats else "none"
    params: dict[str, Any] = {"defense": defense, "critical": "full", "critical_defense": "counter"}
    armor = stats_of(target).armor
    if defense == "block" and armor:  # the defender sends a blocked blow to its best-armoured target
        params["block_target"] = max(sorted(armor), key=lambda t: armor[t])
    if w.name != "unarmed":
        params["weapon"] = w.name
    return Command(kind="act", actor=actor.id, action="attack", targets=(target.id,), params=params, by="policy")
