"""Starflight's names and small helpers: conditions, grid directions, the timing options choose."""

from __future__ import annotations

from functools import cached_property
from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from combatlog.engine.timing import Timing
from combatlog.projections import Encounter

replace = msgspec.structs.replace


NO_RECOVERY = "no recovery"


NEAR_DEATH = "near death"


UNCONSCIOUS = "unconscious"


def number_text(v: float) -> str:
    """`v` as a coordinate is written: 3, 2.5, 0.71."""
    return str(int(v)) if float(v).is_integer() else f"{v:.2f}".rstrip("0")


DIRECTIONS = {1: (0, 1), 2: (1, 1), 3: (1, 0), 4: (1, -1), 5: (0, -1), 6: (-1, -1), 7: (-1, 0), 8: (-1, 1)}


DIAGONAL = 0.7071067811865476  # one increment along a diagonal, on an abstract grid


Mode = Literal["turn", "simultaneous"]


class Options(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, dict=True):
    """The encounter's options (each checked when the encounter is created)."""

    method: Annotated[Literal["standard", "simple"], Meta(description="standard rounds, or Simple Combat")] = "standard"
    scale: Annotated[Literal["character", "vehicle", "starship"], Meta(description="the scale of combat")] = "character"
    grid: Annotated[Literal["none", "physical", "abstract"], Meta(description="how ranges are kept")] = "none"
    ranges: Annotated[Literal["rolled", "given"], Meta(description="ranges rolled, or given by the game master")] = (
        "rolled"
    )
    movement: Annotated[
        Literal["initiative", "speed"], Meta(description="movement points: Initiative + 1, or speed")
    ] = "initiative"
    increment_m: (
        Annotated[int, Meta(gt=0, description="metres per range increment (speed-based movement)")]
        | Annotated[float, Meta(gt=0)]
    ) = 10
    timing: Annotated[
        Literal["turn", "simultaneous", "mixed"],
        Meta(
            description="all categories turn-based or simultaneous; mixed: movement and melee simultaneous, "
            "shooting turn-based (the text's example)"
        ),
    ] = "turn"
    movement_timing: Annotated[Mode | None, Meta(description="movement: turn or simultaneous (overrides timing)")] = (
        None
    )
    shooting_timing: Annotated[Mode | None, Meta(description="shooting: turn or simultaneous (overrides timing)")] = (
        None
    )
    melee_timing: Annotated[Mode | None, Meta(description="melee: turn or simultaneous (overrides timing)")] = None
    group_initiative: Annotated[bool, Meta(description="a group of like NPCs rolls once and acts together")] = False
    blast_hd: Annotated[
        Literal["auto", "bhd", "thd"], Meta(description="surprise-round defence against blast weapons")
    ] = "auto"
    victory: Annotated[
        Literal["csi", "ruling"],
        Meta(description="csi: go on until a side's CSI is 0; ruling: the game master rules at every round's end"),
    ] = "csi"
    simple_goals: Annotated[bool, Meta(description="Simple Combat: goals on 18 and 0")] = False
    simple_size_modifier: Annotated[bool, Meta(description="Simple Combat: the group size modifier")] = False
    simple_experience: Annotated[
        dict[str, Annotated[int, Meta(ge=0, le=5)]],
        Meta(description="Simple Combat: {group: experience bonus, at most 5}"),
    ] = {}
    simple_hits: Annotated[
        int, Meta(ge=1, description="Simple Combat: hits that incapacitate a PC without a hits stat")
    ] = 3

    @cached_property
    def timing_of(self) -> Timing:
        """The timing these options choose: turn, simultaneous or mixed, each category overridable."""
        preset = {
            "turn": ("turn",) * 3,
            "simultaneous": ("simultaneous",) * 3,
            "mixed": ("simultaneous", "turn", "simultaneous"),
        }[self.timing]
        given = (self.movement_timing, self.shooting_timing, self.melee_timing)
        per = {cat: mine or default for cat, mine, default in zip(("movement", "shooting", "melee"), given, preset)}
        return Timing(default="simultaneous" if self.timing == "simultaneous" else "turn", per_category=per)

    @cached_property
    def immediate(self) -> dict[str, bool]:
        """Whether an action of each category resolves as soon as it is declared (asked at every attack)."""
        return {category: self.timing_of.immediate(category) for category in ("movement", "shooting", "melee")}


class Weapon(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A weapon as the encounter file gives it."""

    name: Annotated[str, Meta(min_length=1)]
    damage: str | int  # dice (checked when the combatant is added)
    range: Annotated[int, Meta(ge=0)] = 0  # in increments; a ranged weapon has at least 1
    attack: int = 0
    melee: bool = False
    blast: bool = False
    full_round: bool = False


class Stats(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, dict=True):
    """A Starflight combatant as the encounter file gives it (the text leaves these numbers to
    other chapters: they are inputs)."""

    hp: Annotated[int, Meta(ge=1)]
    initiative: int
    hd: int
    strength: Annotated[int, Meta(ge=1)]
    fhd: int | None = None
    bhd: int | None = None
    thd: int | None = None
    attack: int = 0
    shields: Annotated[int, Meta(ge=0)] | None = None
    shield_regen: Annotated[int, Meta(ge=0)] = 0
    near_death: int = 0  # near death at this many hit points left or fewer
    unconscious_at: int = -1  # unconscious at this many hit points left or fewer
    hits: Annotated[int, Meta(ge=1)] | None = None
    speed: Annotated[int, Meta(ge=0)] | Annotated[float, Meta(ge=0)] = 0  # kph
    heal: str | None = None  # dice (checked when the combatant is added)
    weapons: tuple[Weapon, ...] = ()

    @cached_property
    def cheapest(self) -> tuple[int | None, int | None]:
        """The fewest actions a shot and a melee attack cost (None: no such weapon)."""
        ranged = [2 if w.full_round else 1 for w in self.weapons if w.range >= 1]
        melee = [2 if w.full_round else 1 for w in self.weapons if w.melee]
        return (min(ranged) if ranged else None, min(melee) if melee else None)

    # Derived once per combatant, like `cheapest`: the policy and the end check ask for
    # these at every step.

    @cached_property
    def reach(self) -> int:
        """The longest range of its weapons (0: none reaches past melee)."""
        return max([w.range for w in self.weapons] + [0])

    @cached_property
    def full_round(self) -> bool:
        """True when one of its weapons takes a full round (two actions)."""
        return any(w.full_round for w in self.weapons)

    @cached_property
    def has_melee(self) -> bool:
        """True when one of its weapons strikes in melee."""
        return any(w.melee for w in self.weapons)


class Goal(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """A Simple Combat group's goals: reached, lost, a choice due, the +1 bonuses taken."""

    primary: bool = False
    primary_lost: bool = msgspec.field(default=False, name="primary lost")
    choice_due: bool = False
    secondary: bool = False
    bonus: int = 0


class State(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """Starflight's own state in an encounter. Tables are keyed by combatant id, except `csi`
    (by side), `marching` (by side), `groups`, `results` and `goals` (by Simple Combat group)
    and `targeted` (by `attacker>target`)."""

    csi: dict[str, int] = {}  # the composite strength index now
    csi_initial: dict[str, int] | None = None  # ... as the fight began
    ranges: dict[str, int] = {}  # range to target, in increments, without a grid
    facing: dict[str, int] = {}  # 1-8 on the grid
    targeted: dict[str, int] = {}  # the round an attacker last fired at a target
    marching: dict[str, tuple[str, ...]] = {}  # a side's marching order, front to back
    shields: dict[str, int] = {}  # shield points left
    awaiting: str | None = None  # a ruling the game master owes before the fight goes on
    groups: dict[str, tuple[str, ...]] = {}  # Simple Combat: the groups that roll, and who is in each
    results: dict[str, int] = {}  # Simple Combat: each group's last result
    hits: dict[str, int] = {}  # Simple Combat: hits taken
    goals: dict[str, Goal] = {}


def own(state: Encounter) -> State:
    """Starflight's state in `state`."""
    return state.extra  # type: ignore[no-any-return]
