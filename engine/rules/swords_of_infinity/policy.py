"""Swords of Infinity's automatic combatant: close on the first foe, then attack it with a full
critical and counter, telling the defender to block (at its best-armoured target) or dodge."""

from __future__ import annotations

from typing import Any

from combatlog.engine.protocol import RuleSystem
from combatlog.engine.rules.swords_of_infinity.model import own
from combatlog.engine.rules.swords_of_infinity.movement import offer_live
from combatlog.engine.rules.swords_of_infinity.reading import at, feet, since_v3, spirit_left, weapon
from combatlog.events import Command
from combatlog.projections import Combatant, Encounter


def retaliation_choice(state: Encounter) -> Command | None:
    """The automatic choice of a Retaliate that waits (None: none waits): attack the enemy that
    came within reach, the first to come (or hold, once it can't: the move goes on)."""
    offer = own(state).offer
    if offer is None:
        return None
    choice = "attack" if offer_live(state, offer) else "hold"
    return Command(kind="retaliation", actor=offer.retaliator, params={"choice": choice}, by="policy")


def policy(rules: RuleSystem, state: Encounter, actor: Combatant) -> Command:
    """The command an automatic Swords of Infinity combatant issues now (a waiting Retaliate's
    choice first: nothing else can be done until it is made)."""
    waiting = retaliation_choice(state)
    if waiting is not None:
        return waiting
    me = actor.id
    if actor.resources.get("actions", 0) < 1:
        return Command(kind="end_turn", actor=me, by="policy")
    if me in own(state).pins:
        if spirit_left(state, actor) >= 1:
            return Command(kind="act", actor=me, action="escape", by="policy")
        return Command(kind="end_turn", actor=me, by="policy")
    if actor.conditions and actor.has("prone"):
        return Command(kind="act", actor=me, action="stand", by="policy")
    side = actor.side
    for target in state.combatants.values():  # the first foe standing, in the order they were added
        if target.defeated is None and not target.removed and target.side != side:
            break
    else:
        return Command(kind="end_turn", actor=me, by="policy")
    w = weapon(state, actor, None)
    d = feet(actor, target)
    if d is not None and d > int(w.range if w.range is not None else w.reach):
        here, there = at(actor), at(target)
        if here is None or there is None:
            return Command(kind="end_turn", actor=me, by="policy")
        step = actor.stats.move
        dx, dy = there[0] - here[0], there[1] - here[1]
        x = here[0] + max(-step, min(step, dx - (dx > 0) + (dx < 0)))
        y = here[1] + max(-step, min(step, dy - (dy > 0) + (dy < 0)))
        return Command(kind="act", actor=me, action="move", params={"x": x, "y": y}, by="policy")
    if actor.conditions and actor.has("retaliating") and since_v3(state):
        # a Retaliate held forgoes the turn's attack: the attack waits for an enemy coming close
        return Command(kind="end_turn", actor=me, by="policy")
    given = target.given_stats
    defense = "block" if "block" in given else "dodge" if "dodge" in given else "none"
    params: dict[str, Any] = {"defense": defense, "critical": "full", "critical_defense": "counter"}
    if defense == "block":  # the defender sends a blocked blow to its best-armoured target
        best = target.stats.best_armored
        if best is not None:
            params["block_target"] = best
    if w.name != "unarmed":
        params["weapon"] = w.name
    return Command(kind="act", actor=me, action="attack", targets=(target.id,), params=params, by="policy")
