"""The automatic entity: climb on or attack with the best card it can play now; else incant
toward an Incantation card; else take its Move toward the nearest enemy; else end the turn."""

from __future__ import annotations

from typing import Any

from combatlog.engine.rules.base import RuleSystem
from combatlog.engine.rules.triptycho.model import options_of, own, section_of, stats_of
from combatlog.events import Command
from combatlog.projections import Combatant, Encounter


def _can(
    rules: RuleSystem, state: Encounter, actor: Combatant, action: str, targets: tuple[str, ...], **p: Any
) -> bool:
    spec = rules.action(state, actor, action)
    cost = rules.cost(state, actor, spec, p)
    if any(actor.resources.get(k, 0) < v for k, v in cost.items()):
        return False
    return spec.check is None or spec.check(state, actor, targets, p) is None


def policy(rules: RuleSystem, state: Encounter, actor: Combatant) -> Command:
    mine = own(state)

    def act(action: str, *targets: str, **params: Any) -> Command:
        played = params.get("card")
        extra = {"discard": d} if (d := _discard(state, actor, played)) else {}
        return Command(
            kind="act", actor=actor.id, action=action, targets=targets, params={**params, **extra}, by="policy"
        )

    climbing = mine.climbing.get(actor.id)
    if climbing is not None and _can(rules, state, actor, "climb", (), to=climbing.toward):
        return act("climb", to=climbing.toward)
    enemies = [c for c in state.active() if c.side != actor.side]
    cards = stats_of(actor).cards
    hand = mine.hands.get(actor.id, ())
    best: tuple[int, Command] | None = None
    for name in hand:
        card = cards[name]
        if card.hit is None:
            continue
        strength = int(card.hit[1:]) + int(card.damage[1:] if card.damage else "0") * card.dice
        if card.area is not None:
            for section in sorted({section_of(e) for e in enemies}):
                mates = [c for c in state.active() if section_of(c) == section and c.side == actor.side]
                if (card.area in ("all", "others") and mates) or card.area == "allies":
                    continue
                better = best is None or strength > best[0]
                if better and _can(rules, state, actor, "play", (), card=name, section=section):
                    best = (strength, act("play", card=name, section=section))
            continue
        for enemy in enemies:
            better = best is None or strength > best[0]
            if better and _can(rules, state, actor, "play", (enemy.id,), card=name):
                best = (strength, act("play", enemy.id, card=name))
    if best is not None:
        return best[1]
    wanted = [cards[n] for n in hand if cards[n].incantation is not None]
    if wanted and actor.id not in mine.incanting and _can(rules, state, actor, "incant", ()):
        return act("incant")
    if actor.resources.get("move", 0) and enemies and climbing is None:
        board = options_of(state).board
        here = section_of(actor)

        theirs = [section_of(e) for e in enemies]
        known: dict[str, int] = {}

        def nearest(section: str) -> int:  # asked twice a neighbour: each answered once
            found = known.get(section)
            if found is None:
                far = [board.distance(section, t) for t in theirs]
                found = known[section] = min((d for d in far if d is not None), default=99)
            return found

        now = nearest(here)
        for there in sorted(board.neighbours(here), key=lambda s: (nearest(s), s)):
            if nearest(there) < now and _can(rules, state, actor, "move", (), to=there):
                return act("move", to=there)
    chosen = _discard(state, actor, None)
    return Command(kind="end_turn", actor=actor.id, params={"discard": chosen} if chosen else {}, by="policy")


def _discard(state: Encounter, actor: Combatant, played: Any) -> str | None:
    """The card to let go at the turn's end: the weakest left, keeping an Incantation card while
    building charges for it."""
    mine = own(state)
    hand = list(mine.hands.get(actor.id, ()))
    if played in hand:
        hand.remove(played)
    if not hand:
        return None
    cards = stats_of(actor).cards
    building = actor.id in mine.incanting or mine.charges.get(actor.id, 0) > 0

    def worth(name: str) -> tuple[int, int]:
        card = cards[name]
        if card.incantation is not None:
            return (2 if building else 1, 0)
        power = (int(card.hit[1:]) if card.hit else 0) + (int(card.damage[1:]) * card.dice if card.damage else 0)
        return (1 if card.hit else 0, power)

    return min(hand, key=lambda n: (worth(n), hand.index(n)))
