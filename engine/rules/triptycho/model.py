"""Triptycho's typed models: an entity's stats and deck, the encounter's options (the map
among them), and the system's own state (hands, piles, blocks, incantations, climbs)."""

from __future__ import annotations

from functools import cached_property
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from combatlog.engine.battlemap import Map, MapSpec, Step
from combatlog.engine.protocol import RuleSystem
from combatlog.projections import Combatant, Encounter

Die = Annotated[str, Meta(pattern=r"^d[0-9]+$", description="a die of the ladder: d4, d6, ...")]
LADDER = ("d4", "d6", "d8", "d10", "d12")


class Card(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A card of an entity's deck, as the encounter file gives it."""

    name: Annotated[str, Meta(min_length=1)]
    phase: Literal["action", "strategy"] = "action"  # the phase of the turn it is played in
    range: Annotated[int, Meta(ge=0)] | None = None  # Range: a ranged action
    thrown: Annotated[int, Meta(ge=0)] | None = None  # Thrown: ranged, even with an enemy alongside
    reach: Annotated[int, Meta(ge=0)] | None = None  # Reach: melee that may cross borders
    area: Literal["all", "enemies", "allies", "others"] | None = None  # an Area Attack: whom in the section
    incantation: Annotated[int, Meta(ge=1)] | None = None  # the charges it needs
    hit: Die | None = None  # the Hit die of an attack
    damage: Die | None = None  # its Damage die
    dice: Annotated[int, Meta(ge=1, le=20)] = 1  # how many Damage dice
    weapon: str | None = None  # the weapon type it is played from (dagger and spear swim better)
    move: Annotated[int, Meta(ge=0)] = 0  # a Move N it grants (on top of the turn's own Move)
    movement: Literal["move", "phase", "fly", "teleport"] = "move"
    height: Annotated[int, Meta(ge=0)] = 0  # a Move with a Height value climbs borders up to it
    block: Annotated[int, Meta(ge=0)] = 0  # a Block at a distance: lasts this many rounds (0: not one)
    effect: str = ""  # what else it does, told as is (the game master applies it)

    @property
    def ranged(self) -> bool:
        return self.range is not None or self.thrown is not None

    @property
    def reach_of(self) -> int:
        """How many soft borders it may cross to a target: Range, Thrown or Reach, else 0."""
        return max(self.range or 0, self.thrown or 0, self.reach or 0)


class Stats(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, dict=True):
    """A Triptycho entity as the encounter file gives it (its Class card's numbers are inputs)."""

    hp: Annotated[int, Meta(ge=1, description="health: defeated when damage reaches it")]
    section: Annotated[str, Meta(min_length=1, description="the section it starts in (a+b: a large one in two)")]
    miss: Die = "d6"  # its Miss die (armour, shields, agility)
    armoured: bool = False  # its Miss die comes from armour or a shield (swimming lowers it)
    acrobatics: Die = "d6"
    low_light: bool = False  # Low-light Vision
    darkvision: bool = False
    light_sensitive: bool = False  # Light Sensitivity
    aquatic: bool = False
    deck: Annotated[list[Card], Meta(min_length=1)]

    @cached_property
    def cards(self) -> dict[str, Card]:
        return {c.name: c for c in self.deck}

    # derived once per combatant (the fold makes the model once, when it is added, then only read)

    @cached_property
    def deck_order(self) -> dict[str, int]:
        """Each card's place in the deck (the first, for a name given twice): a pile's order."""
        order: dict[str, int] = {}
        for i, card in enumerate(self.deck):
            order.setdefault(card.name, i)
        return order

    @cached_property
    def strength(self) -> dict[str, int]:
        """The automatic entity's measure of each attack card: its Hit die's faces plus its
        Damage dice's (0 for a card that doesn't attack)."""
        return {
            name: (int(c.hit[1:]) + int(c.damage[1:] if c.damage else "0") * c.dice) if c.hit is not None else 0
            for name, c in self.cards.items()
        }

    @cached_property
    def worth(self) -> dict[str, tuple[int, int]]:
        """How much the automatic entity keeps each card that isn't an Incantation card (the
        weakest is discarded): attacks above the rest, then by Hit and Damage faces."""
        out = {}
        for name, c in self.cards.items():
            power = (int(c.hit[1:]) if c.hit else 0) + (int(c.damage[1:]) * c.dice if c.damage else 0)
            out[name] = (1 if c.hit else 0, power)
        return out


class Options(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, dict=True):
    """The encounter's options; the map is given as the encounter file's `[map]` table."""

    map: MapSpec
    order: Annotated[
        Literal["alternating", "listed", "rolled"],
        Meta(description="turn order (not in the chapter): PCs and adversaries alternating, as listed, or 1d20"),
    ] = "alternating"
    ladder: Annotated[tuple[Die, ...], Meta(min_length=2, description="the dice levels, lowest first")] = LADDER
    starting_hand: Annotated[int, Meta(ge=0, le=20, description="cards dealt before the first turn")] = 2
    hindered: Annotated[
        Literal["hit", "miss", "both"], Meta(description="what Hindered lowers a level (Appendix A is not given)")
    ] = "hit"
    gm_acrobatics: Annotated[str, Meta(pattern=r"^d[0-9]+$", description="the game master's Acrobatics die")] = "d6"

    @cached_property
    def board(self) -> Map:
        return Map(self.map)

    @cached_property
    def ways(self) -> Ways:
        return Ways(self.board)


class Ways:
    """The questions a fight asks of its map again and again (distances, lines of fire, paths),
    each answered once per map: the map never changes, and the answers are immutable."""

    def __init__(self, board: Map) -> None:
        self.board = board
        self._distance: dict[tuple[str, str], int | None] = {}
        self._fire: dict[tuple[str, str, int], tuple[Step, ...] | None] = {}
        self._path: dict[tuple[str, str, int], tuple[Step, ...] | None] = {}
        self._sorted: dict[str, tuple[str, ...]] = {}
        self._closer: dict[tuple[str, frozenset[str]], tuple[str, ...]] = {}
        # `movement.route`'s answers when no Block can stop the Move, by (start, to, n, kind, height, aquatic)
        self.routes: dict[tuple[str, str, int, str, int, bool], tuple[tuple[Step, ...] | None, str]] = {}

    def distance(self, a: str, b: str) -> int | None:
        """`Map.distance`."""
        key = (a, b)
        if key in self._distance:
            return self._distance[key]
        far = self._distance[key] = self.board.distance(a, b)
        return far

    def line_of_fire(self, a: str, b: str, reach: int) -> tuple[Step, ...] | None:
        """`Map.line_of_fire`."""
        key = (a, b, reach)
        if key in self._fire:
            return self._fire[key]
        path = self._fire[key] = self.board.line_of_fire(a, b, reach)
        return path

    def first_path(self, a: str, b: str, longest: int) -> tuple[Step, ...] | None:
        """The first of `Map.paths` (None: none)."""
        key = (a, b, longest)
        if key in self._path:
            return self._path[key]
        path = self._path[key] = next(self.board.paths(a, b, longest), None)
        return path

    def nearest(self, section: str, targets: frozenset[str]) -> int:
        """The fewest soft borders from `section` to any of `targets` (99: none reachable)."""
        return min((d for t in targets if (d := self.distance(section, t)) is not None), default=99)

    def closer(self, here: str, targets: frozenset[str]) -> tuple[str, ...]:
        """The sections next to `here` nearer than it to the nearest of `targets`, nearest
        first (then by name)."""
        key = (here, targets)
        found = self._closer.get(key)
        if found is None:
            if len(self._closer) >= 4096:  # a bound, for a big map with many sets of targets
                self._closer.clear()
            now = self.nearest(here, targets)
            ahead = [(far, s) for s in self.board.neighbours(here) if (far := self.nearest(s, targets)) < now]
            found = self._closer[key] = tuple(s for _, s in sorted(ahead))
        return found

    def sorted_neighbours(self, section: str) -> tuple[str, ...]:
        """`sorted(Map.neighbours(section))`."""
        found = self._sorted.get(section)
        if found is None:
            found = self._sorted[section] = tuple(sorted(self.board.neighbours(section)))
        return found


class Block(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """A Block on the border from `section` (the blocker's) to `toward`."""

    section: str
    toward: str


class DistantBlock(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A Block at a distance on the border a|b, both ways, until the end of round `until`."""

    owner: str
    a: str
    b: str
    until: int


class Climb(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """A climb under way: toward `toward`, `done` of the border's height so far."""

    toward: str
    done: int


class State(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """Triptycho's own state in an encounter; tables keyed by entity id."""

    hands: dict[str, tuple[str, ...]] = {}  # cards held (private: views for others hide them)
    piles: dict[str, tuple[str, ...]] = {}  # cards left to draw, in deck order
    discards: dict[str, tuple[str, ...]] = {}
    blocks: dict[str, Block] = {}
    distant: tuple[DistantBlock, ...] = ()
    incanting: tuple[str, ...] = ()
    charges: dict[str, int] = {}
    charged_at: dict[str, int] = {}  # the round a charge was gained at the start of a turn
    # those whose incantation began with an enemy in their section: no Range card on its charges
    barred: tuple[str, ...] = ()
    climbing: dict[str, Climb] = {}


def own(state: Encounter) -> State:
    """Triptycho's state in `state`."""
    return state.extra  # type: ignore[no-any-return]


def section_of(c: Combatant) -> str:
    """The section an entity stands in (the first of a large one's)."""
    where = c.position or c.stats.section
    return where if "+" not in where else where.split("+")[0]  # most stand in one: no split


def sections_of(c: Combatant) -> tuple[str, ...]:
    return tuple((c.position or c.stats.section).split("+"))


def stands_in(c: Combatant, section: str) -> bool:
    """`section in sections_of(c)`, without making the tuple."""
    where = c.position or c.stats.section
    if "+" not in where:  # most stand in one section
        return where == section
    return section in where.split("+")


def bears(state: Encounter, c: Combatant, condition: str) -> bool:
    """True when `c` bears `condition` (a lowercase name). Version 2 reads a condition's name
    in any case ("Immobilized", as the text writes it, is `immobilized`); version 1 only as given."""
    if not c.conditions:  # most bear none
        return False
    if not RuleSystem.since(state, 2):
        return c.has(condition)
    return any(x.name.casefold() == condition for x in c.conditions)


def step_die(ladder: tuple[str, ...], die: str, levels: int) -> str:
    """`die` moved `levels` along the ladder (negative: down), never past either end; a die not
    on the ladder stays as it is."""
    if not levels or die not in ladder:  # most attacks move no die: as it is
        return die
    i = min(max(ladder.index(die) + levels, 0), len(ladder) - 1)
    return ladder[i]


def to_plain(value: Any) -> Any:
    return msgspec.to_builtins(value)
