"""Infinite Realms' automatic combatant: attack an engaged foe with the first melee weapon it
can pay for, else shoot one in range, else run toward the nearest."""

from __future__ import annotations

from typing import Any

from combatlog.engine.rules.base import RuleSystem
from combatlog.engine.rules.infinite_realms.actions import MOVE_SPECS
from combatlog.engine.rules.infinite_realms.model import DOWN, stats_of
from combatlog.engine.rules.infinite_realms.reading import distance, engaged_with, weapon, weapons
from combatlog.events import Command
from combatlog.projections import Combatant, Encounter


def policy(rules: RuleSystem, state: Encounter, actor: Combatant) -> Command:
    """The command an automatic Infinite Realms combatant issues now."""
    end = Command(kind="end_turn", actor=actor.id, by="policy")
    ap = actor.resources.get("ap", 0)

    def act(action: str, target: str | None = None, **params: Any) -> Command:
        return Command(
            kind="act", actor=actor.id, action=action, targets=(target,) if target else (), params=params, by="policy"
        )

    if actor.has(DOWN):
        return act("stand") if ap >= 5 else end
    foes = [c for c in state.active() if c.side != actor.side]
    if not foes:
        return end
    engaged_ids = engaged_with(state, actor.id)
    close = [f for f in foes if f.id in engaged_ids]
    usable = [w for w in weapons(actor) if weapon(state, actor, w.name) is not None]
    if close:
        engaged = close[0].id
        for w in usable:
            if w.kind == "melee" and w.ap <= ap:
                return act("attack", engaged, weapon=w.name)
        punch_ap = stats_of(actor).punch_ap
        if punch_ap is not None and punch_ap <= ap:
            return act("punch", engaged)
        return end
    foes.sort(key=lambda f: distance(state, actor.id, f.id))  # stable: ties in the order they were added
    target = foes[0]
    d = distance(state, actor.id, target.id)
    for w in usable:
        if w.kind != "melee" and d <= (w.long or 0) and w.ap <= ap:
            return act("attack", target.id, weapon=w.name)
    move_cost = rules.cost(state, actor, MOVE_SPECS[0], {})["ap"]
    if ap >= move_cost:
        return act("run", toward=target.id)
    return end
