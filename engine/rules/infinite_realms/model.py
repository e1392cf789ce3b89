"""Infinite Realms' names and tables: conditions, movement and aim limits, cover, light, the hand weapons."""

from __future__ import annotations

from functools import cached_property
from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from combatlog.projections import Encounter

replace = msgspec.structs.replace


STUNNED, DOWN, PRONE, SURPRISED, UNAWARE = "stunned", "down", "prone", "surprised", "unaware"


HALF_AP = "half AP"


BLEEDING = "internal bleeding"


WOUNDED_50, WOUNDED_25 = "wounded (50%)", "wounded (25%)"


CRIPPLED = {
    "right arm": "crippled right arm",
    "left arm": "crippled left arm",
    "right leg": "crippled right leg",
    "left leg": "crippled left leg",
    "castration": "castrated",
}


MOVES = {"run": 10, "dodge_run": 6, "walk": 3}


AIM_MAX = {"melee": 2, "thrown": 3, "missile": 5}


OFFENSE_MODS = {STUNNED: 15, DOWN: 20, PRONE: 30, SURPRISED: 20}


COVER = {"cover 50": -10, "cover 75": -15, "cover 90": -25}


LIGHT = {"day": 0, "overcast": -5, "night": -25, "fog": -25, "pitch black": -50}


class Options(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The encounter's options."""

    critical_miss: Annotated[
        Literal["chapter", "attacks"],
        Meta(description="chapter: 96+ (91+ flail); attacks: 91+ (81+ flail), 96+ hand to hand"),
    ] = "chapter"
    defense_changes: Annotated[
        Literal["protect", "literal"],
        Meta(description="protect: bought defense and cover make a hit harder; literal: as printed"),
    ] = "protect"
    light: Annotated[
        Literal["day", "overcast", "night", "fog", "pitch black"],
        Meta(description="light and weather, against thrown and missile weapons"),
    ] = "day"
    start_distance: Annotated[int, Meta(ge=0, description="yards between enemies when no distance is given")] = 20
    first_aid_ap: Annotated[int, Meta(ge=0, description="AP that first aid costs")] = 5
    pursuit_base: Annotated[int, Meta(ge=0, description="pursuit: running - their running + this")] = 50


class Weapon(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A weapon as the encounter file gives it (the text's weapon tables are inputs)."""

    name: Annotated[str, Meta(min_length=1)]
    kind: Literal["melee", "thrown", "missile"] = "melee"
    ap: Annotated[int, Meta(ge=1, description="the AP the attack uses")]
    damage: int | str = 0  # a number, or a dice expression (checked when the combatant is added)
    damage_ps: int | None = None  # a percentage of PS (punch, kick)
    critical: int = 0
    reach: int = 0
    short: int | None = None
    medium: int | None = None
    long: int | None = None
    offense: int | None = None
    type: str | None = None
    bow: bool = False
    sling: bool = False
    flail: bool = False
    hand: bool = False
    quality: bool = False


class Stats(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, dict=True):
    """An Infinite Realms combatant as the encounter file gives it (`dict=True`: room for the
    derived values below, worked out once per combatant)."""

    hp: Annotated[int, Meta(ge=1)]
    ap: Annotated[int, Meta(ge=0)]
    init: int
    defense: int | dict[str, int]  # a number, or one by the kind of attack the defender uses
    offense: int = 0
    dodge: int | None = None
    ps: int = 0
    adjusted_pd: int | None = None
    punch_ap: int | None = None
    kick_ap: int | None = None
    running: int = 0
    first_aid: int = 0
    protection: int | dict[str, int] = 0  # a number, or one by damage type
    weapons: tuple[Weapon, ...] = ()

    # Derived once per combatant (the fold makes the typed model once, when it is added):
    # every attack and check asks for them.

    @cached_property
    def in_hand(self) -> dict[str | None, Weapon | None]:
        """`weapon(name)` with nothing broken, by name (None: the first weapon, None without one)."""
        out: dict[str | None, Weapon | None] = {None: self.weapons[0] if self.weapons else None}
        for w in self.weapons:
            out.setdefault(w.name, w)
        return out

    @cached_property
    def lowest_defense(self) -> int:
        """The defense rating, or the lowest of those by kind of attack."""
        d = self.defense
        return d if isinstance(d, int) else min(d.values())


# bare hands: their AP come from the combatant's punch_ap and kick_ap (0 here: never read)
PUNCH = Weapon(name="punch", ap=0, damage_ps=5, critical=3, type="crushing", hand=True)
KICK = Weapon(name="kick", ap=0, damage_ps=10, critical=5, type="crushing", hand=True)


class Rush(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """A rush under way: at whom, begun in which round (kept as `[target, round]`)."""

    target: str
    round: int


class State(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """Infinite Realms' own state in an encounter. Tables are keyed by combatant id, except
    `distance` (by `pair(a, b)`, `a|b` in sorted order) and `fled` (by `fleeing>enemy`)."""

    distance: dict[str, int] = {}  # yards between a pair
    engaged: dict[str, tuple[str, ...]] = {}  # who is engaged with whom (both ways)
    rushing: dict[str, Rush] = {}
    start_ap: dict[str, int] = {}  # this round's action points as it began
    reach_bonus: dict[str, int] = {}  # reach bonus from engaging before the fight, for round 1
    reach_given: dict[str, int] = {}  # reach bonus given this round, so far
    defense_ap: dict[str, int] = {}  # action points bought for defense this round
    aim: dict[str, int] = {}  # aim built up
    using: dict[str, tuple[str, ...]] = {}  # kinds of attack made this round (melee, missile, kick)
    broken: dict[str, tuple[str, ...]] = {}  # weapons broken by a critical miss
    bleeding: dict[str, int] = {}  # the round internal bleeding began
    fled: dict[str, int] = {}  # the round `fleeing` last left `enemy`'s reach


def own(state: Encounter) -> State:
    """Infinite Realms' state in `state`."""
    return state.extra  # type: ignore[no-any-return]
