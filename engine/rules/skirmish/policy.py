"""Skirmish's automatic combatant: strike the first enemy standing, else end the turn."""

from __future__ import annotations

from typing import TYPE_CHECKING

from combatlog.events import Command
from combatlog.projections import Combatant, Encounter

if TYPE_CHECKING:
    from combatlog.engine.protocol import RuleSystem


def policy(rules: RuleSystem, state: Encounter, actor: Combatant) -> Command:
    """The command `actor` issues now."""
    enemies = [c for c in state.active() if c.side != actor.side]
    affordable = {s.name for s in rules.affordable(state, actor)}
    if enemies and "strike" in affordable:
        return Command(kind="act", actor=actor.id, action="strike", targets=(enemies[0].id,), by="policy")
    return Command(kind="end_turn", actor=actor.id, by="policy")
