"""Infinite Realms' automatic combatant: attack an engaged foe with the first melee weapon it
can pay for, else shoot one in range, else run toward the nearest."""

from __future__ import annotations

from combatlog.engine.protocol import RuleSystem
from combatlog.engine.rules.infinite_realms.actions import MOVE_SPECS
from combatlog.engine.rules.infinite_realms.model import DOWN, own
from combatlog.engine.rules.infinite_realms.reading import weapons
from combatlog.events import Command
from combatlog.projections import Combatant, Encounter


def policy(rules: RuleSystem, state: Encounter, actor: Combatant) -> Command:
    """The command an automatic Infinite Realms combatant issues now."""
    me = actor.id
    ap = actor.resources.get("ap", 0)
    if actor.conditions and actor.has(DOWN):
        if ap >= 5:
            return Command(kind="act", actor=me, action="stand", by="policy")
        return Command(kind="end_turn", actor=me, by="policy")
    side = actor.side
    foes = [c for c in state.combatants.values() if c.defeated is None and not c.removed and c.side != side]
    if not foes:
        return Command(kind="end_turn", actor=me, by="policy")
    broken = own(state).broken.get(me)
    # the weapons in hand (`weapon(state, actor, w.name)` finds one: a weapon breaks by its name)
    usable = weapons(actor) if not broken else [w for w in weapons(actor) if w.name not in broken]
    mine = own(state)
    engaged_ids = mine.engaged.get(me, ())
    close = None
    for f in foes:  # the first engaged, in the roster's order
        if f.id in engaged_ids:
            close = f.id
            break
    if close is not None:
        for w in usable:
            if w.kind == "melee" and w.ap <= ap:
                return Command(
                    kind="act", actor=me, action="attack", targets=(close,), params={"weapon": w.name}, by="policy"
                )
        punch_ap = actor.stats.punch_ap
        if punch_ap is not None and punch_ap <= ap:
            return Command(kind="act", actor=me, action="punch", targets=(close,), by="policy")
        return Command(kind="end_turn", actor=me, by="policy")
    # the nearest foe (the first added of equals): `distance`, inlined (every foe, every turn out of reach)
    yards, start = mine.distance.get, state.options.start_distance  # foes start this far apart
    target, d = foes[0], 0
    for i, f in enumerate(foes):
        fd = yards(f"{me}|{f.id}" if me < f.id else f"{f.id}|{me}")
        fd = start if fd is None else int(fd)
        if i == 0 or fd < d:
            target, d = f, fd
    for w in usable:
        if w.kind != "melee" and d <= (w.long or 0) and w.ap <= ap:
            return Command(
                kind="act", actor=me, action="attack", targets=(target.id,), params={"weapon": w.name}, by="policy"
            )
    move_cost = rules.cost(state, actor, MOVE_SPECS[0], {})["ap"]
    if ap >= move_cost:
        return Command(kind="act", actor=me, action="run", params={"toward": target.id}, by="policy")
    return Command(kind="end_turn", actor=me, by="policy")
