"""Straalara's automatic combatant: Offense while hardly hurt, Partial Defense once wounded; the
weapon with the biggest pool at the most hurt enemy; the best defense its stance allows."""

from __future__ import annotations

from typing import TYPE_CHECKING

from combatlog.engine.rules.straalara.actions import best_defense, stance_now
from combatlog.engine.rules.straalara.attack import attack_pool, wound_penalty
from combatlog.engine.rules.straalara.model import Stats
from combatlog.events import Command
from combatlog.projections import Combatant, Encounter

if TYPE_CHECKING:
    from combatlog.engine.rules.base import RuleSystem


def policy(rules: RuleSystem, state: Encounter, actor: Combatant) -> Command:
    """The command `actor` issues now."""
    mine: Stats = rules.stats(actor)
    enemies = [c for c in state.active() if c.side != actor.side]
    stance = stance_now(state, actor.id)
    if stance is None:
        stance = "offense" if wound_penalty(rules, state, actor) >= -1 else "partial"
    params: dict[str, object] = {}
    if stance_now(state, actor.id) is None:
        params = {"stance": stance, "defense": best_defense(mine, stance)}
    if not enemies or not mine.weapons or stance == "defense":
        return Command(kind="act", actor=actor.id, action="defend", params=params, by="policy")
    target = max(enemies, key=lambda c: (c.damage, -list(state.combatants).index(c.id)))
    weapon = max(mine.weapons, key=lambda w: (attack_pool(mine, w) + w.damage, -mine.weapons.index(w)))
    params["weapon"] = weapon.name
    return Command(kind="act", actor=actor.id, action="attack", targets=(target.id,), params=params, by="policy")
