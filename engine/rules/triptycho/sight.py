"""Illumination and senses: who can see whom, and who can't see in their own section."""

from __future__ import annotations

from combatlog.engine.rules.triptycho.model import Stats, section_of, stands_in
from combatlog.projections import Combatant, Encounter


def seen_as(stats: Stats, light: str) -> str:
    """How an entity with these senses sees a section of `light`: Darkvision sees shadowy and
    dark as lit; Low-light Vision shadowy as lit; Light Sensitivity lit as shadowy; both of the
    last two swap lit and shadowy."""
    if stats.darkvision:
        return "lit"
    if stats.light_sensitive and stats.low_light:
        return {"lit": "shadowy", "shadowy": "lit"}.get(light, light)
    if stats.light_sensitive:
        return "shadowy" if light == "lit" else light
    if stats.low_light:
        return "lit" if light == "shadowy" else light
    return light


def can_see(state: Encounter, observer: Combatant, target: Combatant, where: str | None = None) -> bool:
    """True when `observer` sees `target` (in section `where`, for a large one: the attack's
    section): lit is seen from anywhere; shadowy only from inside; dark not even from inside."""
    if observer.id == target.id:
        return True
    board = state.options.board
    section = where or section_of(target)
    light = seen_as(observer.stats, board.sections[section].light)
    if light == "lit":
        return True
    if light == "shadowy":
        return stands_in(observer, section)
    return False


def hindered(state: Encounter, c: Combatant, where: str | None = None) -> bool:
    """True when `c` can't see in its own section (Hindered); `where`: the one of a large
    entity's sections that counts (the attacked one), else its first."""
    board = state.options.board
    return seen_as(c.stats, board.sections[where or section_of(c)].light) == "dark"


def swimming(state: Encounter, c: Combatant) -> bool:
    """True when `c` must swim where it stands (a water section, and it isn't Aquatic)."""
    board = state.options.board
    return board.sections[section_of(c)].water and not c.stats.aquatic
