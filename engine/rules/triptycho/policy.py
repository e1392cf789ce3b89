"""The automatic entity: climb on or attack with the best card it can play now; else incant
toward an Incantation card; else take its Move toward the nearest enemy (from version 2 never
down a drop: a fall hurts, and staying put doesn't; and climbing toward one above when there is
no way to walk); else end the turn."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from combatlog.engine.protocol import ActionSpec, RuleSystem
from combatlog.engine.rules.triptycho.actions import SPECS, aim, aims, card_problem, charged_play, enemy_in
from combatlog.engine.rules.triptycho.model import own, section_of
from combatlog.events import Command
from combatlog.projections import Combatant, Encounter

_CLIMB, _INCANT, _MOVE = SPECS["climb"], SPECS["incant"], SPECS["move"]


def _can(state: Encounter, actor: Combatant, spec: ActionSpec, params: dict[str, Any]) -> bool:
    """True when `actor` may take `spec` (not "play": its cost is the card's) with no targets."""
    have = actor.resources.get
    for k, v in spec.cost.items():
        if have(k, 0) < v:
            return False
    return spec.check is None or spec.check(state, actor, (), params) is None


def _command(state: Encounter, actor: Combatant, action: str, targets: tuple[str, ...], **params: Any) -> Command:
    played = params.get("card")
    extra = {"discard": d} if (d := _discard(state, actor, played)) else {}
    return Command(kind="act", actor=actor.id, action=action, targets=targets, params={**params, **extra}, by="policy")


def policy(rules: RuleSystem, state: Encounter, actor: Combatant) -> Command:
    mine = own(state)
    climbing = mine.climbing.get(actor.id)
    if climbing is not None and _can(state, actor, _CLIMB, {"to": climbing.toward}):
        return _command(state, actor, "climb", (), to=climbing.toward)
    active = state.active()
    enemies = [c for c in active if c.side != actor.side]
    stats = actor.stats
    cards = stats.cards
    hand = mine.hands.get(actor.id, ())
    # the strongest attack playable now (the first of equals): its strength, target, section
    best: tuple[int, str, str] | None = None
    for name in hand:
        card = cards[name]
        if card.hit is None:
            continue
        strength = stats.strength[name]
        if best is not None and strength <= best[0]:
            continue  # only a stronger card replaces the one found
        # what playing it costs and needs whomever it aims at (`Triptycho.cost`, `_check_play`),
        # asked once a card; then each target (or section) in turn, the first that can be hit
        if not charged_play(state, actor, card) and actor.resources.get(card.phase, 0) < 1:
            continue
        if card_problem(state, actor, card, {"card": name}) is not None:
            continue
        attacks = aims(card)
        if card.area is not None:
            if card.area == "allies":
                continue
            spares_mates = card.area in ("all", "others")
            for section in sorted({section_of(e) for e in enemies}):
                if spares_mates and any(section_of(c) == section and c.side == actor.side for c in active):
                    continue
                if not attacks or aim(state, actor, card, (), {"card": name, "section": section})[1] is None:
                    best = (strength, name, section)
                    break
            continue
        params = {"card": name}
        for enemy in enemies:
            if not attacks or aim(state, actor, card, (enemy.id,), params)[1] is None:
                best = (strength, name, enemy.id)
                break
    if best is not None:
        _, name, at = best
        if cards[name].area is not None:
            return _command(state, actor, "play", (), card=name, section=at)
        return _command(state, actor, "play", (at,), card=name)
    wanted = any(cards[n].incantation is not None for n in hand)
    if wanted and rules.since(state, 2):
        # an incantation begun with an enemy alongside can't pay for a Range card; one kept
        # (charges held) is as its beginning decided
        if mine.charges.get(actor.id, 0) > 0:
            barred = actor.id in mine.barred
        else:
            barred = enemy_in(state, actor, section_of(actor))
        wanted = any(cards[n].incantation is not None and (cards[n].range is None or not barred) for n in hand)
    if wanted and actor.id not in mine.incanting and _can(state, actor, _INCANT, {}):
        return _command(state, actor, "incant", ())
    if actor.resources.get("move", 0) and enemies and climbing is None:
        # the first neighbour nearer the nearest enemy (nearest first) it can move to; from
        # version 2 never down a drop (a fall: 1d4 a height, 2d4 off the cistern's stair) while
        # staying put is open to it: it waits for them, or its cards reach them
        theirs = frozenset([section_of(e) for e in enemies])
        here = section_of(actor)
        options = state.options
        careful = rules.since(state, 2)
        nearer = options.ways.closer(here, theirs)
        for there in nearer:
            if careful and _drop(options.board, here, there):
                continue
            if _can(state, actor, _MOVE, {"to": there}):
                return _command(state, actor, "move", (), to=there)
        if careful:  # none it can walk to: climb toward one above (a failed climb costs nothing)
            for there in nearer:
                if _can(state, actor, _CLIMB, {"to": there}):
                    return _command(state, actor, "climb", (), to=there)
    chosen = _discard(state, actor, None)
    return Command(kind="end_turn", actor=actor.id, params={"discard": chosen} if chosen else {}, by="policy")


def _drop(board: Any, here: str, there: str) -> bool:
    """True when a plain Move from `here` to the neighbouring `there` falls (a border down)."""
    step = board.step(here, there)
    return step is not None and step.height < 0


def _discard(state: Encounter, actor: Combatant, played: Any) -> str | None:
    """The card to let go at the turn's end: the weakest left (the first of equals), keeping an
    Incantation card while building charges for it."""
    mine = own(state)
    hand: Sequence[str] = mine.hands.get(actor.id, ())
    if played in hand:
        hand = list(hand)
        hand.remove(played)
    if len(hand) < 2:
        return hand[0] if hand else None  # most hands hold a card or two: nothing to weigh
    stats = actor.stats
    cards, worths = stats.cards, stats.worth
    building = actor.id in mine.incanting or mine.charges.get(actor.id, 0) > 0
    incanted = (2 if building else 1, 0)

    def worth(name: str) -> tuple[int, int]:
        return incanted if cards[name].incantation is not None else worths[name]

    return min(hand, key=worth)  # min keeps the first of equal keys
