"""Straalara's automatic combatant: Offense while hardly hurt, Partial Defense once wounded; the
weapon with the biggest pool at the most hurt enemy; the best defense its stance allows."""

from __future__ import annotations

from typing import TYPE_CHECKING

from combatlog.engine.rules.straalara.actions import best_defense, stance_now
from combatlog.events import Command
from combatlog.projections import Combatant, Encounter

if TYPE_CHECKING:
    from combatlog.engine.protocol import RuleSystem


def policy(rules: RuleSystem, state: Encounter, actor: Combatant) -> Command:
    """The command `actor` issues now."""
    mine = actor.stats
    stance = stance_now(state, actor.id)
    params: dict[str, object] = {}
    if stance is None:
        stance = "offense" if state.options.wound_penalty(actor.damage) >= -1 else "partial"
        params = {"stance": stance, "defense": best_defense(state, actor, stance)}
    # the most hurt enemy, the first of equals in the roster's order (one pass, no list made)
    side = actor.side
    target: Combatant | None = None
    for c in state.combatants.values():
        if c.side != side and c.defeated is None and not c.removed and (target is None or c.damage > target.damage):
            target = c
    weapon = mine.best_weapon  # the biggest attack pool plus damage dice, worked out once per stats
    if target is None or weapon is None or stance == "defense":
        return Command(kind="act", actor=actor.id, action="defend", params=params, by="policy")
    params["weapon"] = weapon.name
    return Command(kind="act", actor=actor.id, action="attack", targets=(target.id,), params=params, by="policy")
