"""How Triptycho tells a fight: its own events as transcript lines, its own state under
`combatlog show`, and a declared action as prose (the system binds these as its hooks)."""

from __future__ import annotations

from typing import Any

from combatlog.engine.protocol import RuleSystem
from combatlog.engine.rules.triptycho.events import (
    BlockLowered,
    CardDiscarded,
    CardDrawn,
    CardPlayed,
    ChargesChanged,
    DeckShuffled,
    DistantBlockEnded,
    IncantingChanged,
)
from combatlog.engine.rules.triptycho.model import own, section_of
from combatlog.engine.words import counted
from combatlog.projections import Encounter, Pending


def summary(rules: RuleSystem, state: Encounter) -> list[str]:
    """Lines about Triptycho's own state, shown under the combatants (`combatlog show`)."""
    where: dict[str, list[str]] = {}
    for c in state.active():
        for part in (c.position or c.stats.section).split("+"):
            where.setdefault(part, []).append(c.id)
    lines = ["Map:"] + ["  " + line for line in state.options.board.draw(where)]
    mine = own(state)
    for cid, block in sorted(mine.blocks.items()):
        lines.append(f"{cid} blocks {block.section} -> {block.toward}")
    for d in mine.distant:
        lines.append(f"{d.owner} blocks {d.a}|{d.b} from afar, through round {d.until}")
    for cid, cards in sorted(mine.hands.items()):
        if state.combatants[cid].active:
            known = [card for card in cards if card]
            held = ", ".join(known) if len(known) == len(cards) else counted(len(cards), "card")
            lines.append(f"{cid} holds {held or 'no cards'}")
    for cid in mine.incanting:
        lines.append(f"{cid} is incanting")
    for cid, n in sorted(mine.charges.items()):
        lines.append(f"{cid} holds {counted(n, 'incantation charge')}")
    for cid, climb in sorted(mine.climbing.items()):
        lines.append(f"{cid} is climbing toward {climb.toward} ({climb.done} so far)")
    return lines


def narrate(rules: RuleSystem, state: Encounter, event: Any, dice: bool = False) -> str | None:
    """A transcript line for one of Triptycho's own events (None: say nothing); details indented."""
    t = type(event)
    name = state.combatants[event.combatant].name if hasattr(event, "combatant") else ""
    if t is CardDrawn:
        return f"  {name} draws {event.card}." if event.card else f"  {name} draws a card."
    if t is CardDiscarded:
        return f"  {name} discards {event.card}."
    if t is BlockLowered:
        return f"  {name} lowers the Block ({event.reason})." if event.reason != "lowered" else None
    if t is ChargesChanged and event.reason in ("hurt", "not incanting again by the turn's end"):
        return f"  {name} loses the incantation charges ({event.reason})."
    if t is ChargesChanged and event.at_start:
        return f"  {name} gains an incantation charge ({event.charges})."
    if t is IncantingChanged and not event.incanting and event.reason:
        return f"  {name} stops incanting ({event.reason})."
    if t is DistantBlockEnded:
        return f"  {name}'s Block on {event.a}|{event.b} ends."
    if t is CardPlayed or t is DeckShuffled:
        return None
    return None


def describe(rules: RuleSystem, state: Encounter, pending: Pending) -> str:
    """A line of prose for a declared Triptycho action (transcripts)."""
    actor = state.combatants[pending.actor].name
    p = pending.params
    if pending.action == "play":
        at = " at " + " and ".join(state.combatants[t].name for t in pending.targets) if pending.targets else ""
        return f"{actor}{at}"
    if pending.action in ("move", "climb"):
        return actor
    return actor + (f" ({section_of(state.combatants[pending.actor])})" if p.get("toward") else "")
