"""Skirmish's typed models: a combatant's stats and the encounter's options."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from combatlog.engine.typed import DiceExpr


class Stats(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A skirmish combatant as the encounter file gives it."""

    hp: Annotated[int, Meta(ge=1, description="hit points: down when damage reaches them")]
    init: int = 0
    attack: int = 0
    defense: int = 10
    damage: DiceExpr = DiceExpr("1d6")
    ap: Annotated[int, Meta(ge=0)] = 6  # action points, under the action-points order


class Options(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The encounter's options."""

    order: Annotated[Literal["ranked", "reverse", "action-points"], Meta(description="who acts when")] = "ranked"
    timing: Annotated[Literal["turn", "simultaneous", "mixed"], Meta(description="when actions resolve")] = "turn"
    ties: Annotated[Literal["standard", "simultaneous"], Meta(description="initiative ties")] = "standard"
    group_initiative: Annotated[bool, Meta(description="NPC groups roll once")] = False
    initiative_every_round: Annotated[bool, Meta(description="re-roll initiative each round")] = False
