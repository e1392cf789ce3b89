"""Swords of Infinity's typed stats: what a combatant may say, validated once when it is added.

The package split of the system (`engine/rules/swords_of_infinity/`) is still to come; the
model lives beside the module meanwhile, and the module validates through it.
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

Score = Annotated[int, Meta(ge=0, le=1000)]


class Weapon(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A weapon (or an improvised one) as the encounter file gives it."""

    name: Annotated[str, Meta(min_length=1)]
    skill: int = 0
    weight: int = 0
    power: int = 0
    reach: Annotated[int, Meta(ge=0)] = 5
    range: Annotated[int, Meta(ge=0)] | None = None
    exploit: Annotated[int, Meta(ge=0)] = 0
    size_class: int = 0
    improvised: bool = False
    two_handed: bool = False


class Shield(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    name: str = "shield"
    size_class: int = 0


class Stats(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A Swords of Infinity combatant as the encounter file gives it."""

    vitality: Annotated[int, Meta(ge=1)]
    dexterity: int
    awareness: int
    intelligence: int = 0
    strength: int = 0
    block: int = 0
    dodge: int = 0
    physical_resistance: int = 0
    size: Annotated[int, Meta(ge=-5, le=5)] = 0
    move: Annotated[int, Meta(ge=0)] = 7
    swim_speed: Annotated[int, Meta(ge=0)] | None = None
    spirit: Annotated[int, Meta(ge=0)] = 0
    spirit_limit: Annotated[int, Meta(ge=0)] | None = None
    composition: dict[str, tuple[int, int]] | None = None
    skills: dict[str, int] = {}
    armor: dict[str, int] = {}
    shield: Shield | None = None
    weapons: tuple[Weapon, ...] = ()
