"""Swords of Infinity's names and tables, and its typed stats, validated once when a combatant
is added (`Stats`: a bad stat is refused naming the combatant and the path)."""

from __future__ import annotations

from functools import cached_property
from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from combatlog.projections import Encounter

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


class Stats(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, dict=True):
    """A Swords of Infinity combatant as the encounter file gives it (`dict=True`: room for the
    derived values below, worked out once per combatant)."""

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

    # Derived once per combatant (the fold makes the typed model once, when it is added):
    # every attack, check and turn asks for them.

    @cached_property
    def cap(self) -> int:
        """Where a damage target's count stops (and it is destroyed): 100, or twice Vitality if more."""
        return max(100, 2 * self.vitality)

    @cached_property
    def disabled_at(self) -> int:
        """The least damage that Disables a target: above twice Vitality, or at the cap when that is the cap."""
        v2 = 2 * self.vitality
        return v2 if v2 >= self.cap else v2 + 1

    @cached_property
    def parts(self) -> dict[str, tuple[int, int]]:
        """The damage targets and their d% digits (`composition`: the human one unless given)."""
        return dict(self.composition) if self.composition else HUMAN

    @cached_property
    def spirit_max(self) -> int:
        """Spirit to spend, before any is spent (the limit, if lower)."""
        return min(self.spirit, self.spirit if self.spirit_limit is None else self.spirit_limit)

    @cached_property
    def unarmed(self) -> Weapon:
        """Bare hands: class 0, Strength power."""
        return msgspec.structs.replace(_UNARMED, power=self.strength)

    @cached_property
    def in_hand(self) -> dict[str | None, Weapon]:
        """`weapon(name)` with nothing dropped, by name (None: the first weapon, else bare hands)."""
        out: dict[str | None, Weapon] = {None: self.weapons[0] if self.weapons else self.unarmed}
        for w in self.weapons:
            out.setdefault(w.name, w)
        return out

    @cached_property
    def best_armored(self) -> str | None:
        """The damage target with the most armour (the first of equals by name), None without armour."""
        armor = self.armor
        return max(sorted(armor), key=lambda t: armor[t]) if armor else None


_UNARMED = Weapon(name="unarmed")


replace = msgspec.structs.replace


HUMAN = {
    "left leg": (1, 1),
    "right leg": (2, 2),
    "torso": (3, 6),
    "left arm": (7, 7),
    "right arm": (8, 8),
    "head": (9, 10),
}


VITAL = ("head", "torso")


SIZE_SPACE = {
    -5: ("1/32", "1/128"),
    -4: ("1/16", "1/64"),
    -3: ("1/4", "1/16"),
    -2: ("1/2", "1/8"),
    -1: ("1", "1/6"),
    0: ("1", "1/4"),
    1: ("1", "1/2"),
    2: ("4", "1"),
    3: ("9", "4"),
    4: ("16", "8"),
    5: ("25", "16"),
}  # size: (active space, occupied space) in squares


RESISTED = {"sprint": 1, "jump": 10, "climb": 50, "swim": 5}  # points of power per square


ATTACKED = "attacked this turn"  # version 2: an attack forgoes Retaliate for the rest of the turn


UNTIL_NEXT_TURN = (
    ATTACKED,
    "retreat",
    "fortify",
    "retaliating",
    "vulnerable (casting)",
    "vulnerable (ranged attack)",
    "vulnerable (dual wielding)",
    "vulnerable (kept moving)",
    "vulnerable (climbing)",
    "vulnerable (swimming)",
    "vulnerable (forced out of fortify)",
)


LIFTED_BY_RETREAT = ("vulnerable (casting)", "vulnerable (ranged attack)", "rough terrain")


class Options(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The encounter's options."""

    failed_initiative: Annotated[Literal["last", "roll"], Meta(description="where a failed initiative roll ranks")] = (
        "last"
    )
    vital_destroyed: Annotated[
        Literal["dies", "ruling"], Meta(description="a destroyed head or torso kills, or the Storyteller rules")
    ] = "dies"
    offhand_penalty: Annotated[
        int, Meta(ge=0, description="the off hand's skill penalty when dual wielding (a tier lesser)")
    ] = 10


class Pin(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """Who holds a combatant pinned, and since which round (kept as `[by, round]`)."""

    by: str
    round: int


class Turn(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """Where a combatant stood when its turn began, and its last action (for charges and tiring moves)."""

    start: str | None = None
    last: str | None = None


class Offer(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """A Retaliate waiting for its holder's choice (version 3): `mover` came within
    `retaliator`'s reach on a move from `origin` toward `to`, with `feet` of its distance left;
    `through`: the mover goes on after a Retaliate's attack (else it stops where it is);
    `defense`: how its move said it defends; `asked`: those already asked on this move."""

    retaliator: str
    mover: str
    to: str
    origin: str = ""
    feet: int = 0
    through: bool = False
    defense: str | None = None
    asked: tuple[str, ...] = ()


class State(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """Swords of Infinity's own state in an encounter; every table is keyed by combatant id."""

    spirit_spent: dict[str, int] = {}  # Spirit spent so far
    impairment: dict[str, dict[str, dict[str, int]]] = {}  # -> damage target -> "ignored"/"aided"/... -> level
    pins: dict[str, Pin] = {}  # the pinned -> the pin
    dropped: dict[str, tuple[str, ...]] = {}  # weapons out of hand
    turn: dict[str, Turn] = {}
    retreated: dict[str, int] = {}  # the round of the last retreating step
    maintained: dict[str, tuple[str, ...]] = {}  # spells kept up
    offer: Offer | None = None  # a Retaliate waiting for its holder's choice: the fight waits


def own(state: Encounter) -> State:
    """Swords of Infinity's state in `state`."""
    return state.extra  # type: ignore[no-any-return]
