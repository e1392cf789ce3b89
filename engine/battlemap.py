"""A battle map of sections: a graph, not a grid (Triptycho's, and any system's that wants one).

Sections are regions with an illumination (`lit`, `shadowy`, `dark`) and water (`water`: one
swims there; `underwater`: ranged attacks can't reach in). Borders join two sections: `soft`
(crossed by a Move) or `hard` (a wall: only Phase crosses it), with a signed `height` from
`a` to `b` (a rise of 2 going a -> b is a drop of 2 going b -> a) and whether it can be
climbed. An entity stands in one section (its `position`); a large one may stand in several
(`a+b`), at the game master's discretion.

Distance is the fewest soft borders crossed. A line of fire is a path of borders; the total
change in height along it must be within the action's range, and the terrain must not hide
the target: walking the path, the shot is blocked when the ground rises after it has
fallen below the line, or falls after it has risen — read from the text's four examples
(+1, +2: range 3; -6, +6: range 2; +1, -2: blocked; -2, -1: range 3): a path that goes up
and then down again passes over a crest that hides the far side. (See
`docs/rules/triptycho.md`.)
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from combatlog.engine.errors import Refused
from combatlog.engine.typed import convert

Id = Annotated[str, Meta(min_length=1, max_length=64)]


class Section(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One section of the map."""

    id: Id
    name: str = ""
    light: Literal["lit", "shadowy", "dark"] = "lit"
    water: bool = False  # one swims here
    underwater: bool = False  # ranged attacks can't reach a target here


class Border(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A border between sections `a` and `b`; `height` is the rise going from `a` to `b`."""

    a: Id
    b: Id
    kind: Literal["soft", "hard"] = "soft"
    height: int = 0
    climbable: bool = True
    straight: bool = True  # False: no straight line crosses it from the other border of the path (the map's say)


class MapSpec(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The map as an encounter file gives it."""

    sections: list[Section]
    borders: list[Border] = []


class Step(msgspec.Struct, frozen=True):
    """Crossing one border: from `a` to `b`, rising `height` (negative: a drop)."""

    a: str
    b: str
    kind: str
    height: int
    climbable: bool


class Map:
    """A validated battle map: sections, borders, and the questions a system asks of them."""

    def __init__(self, spec: MapSpec) -> None:
        self.spec = spec
        self.sections: dict[str, Section] = {}
        for s in spec.sections:
            if s.id in self.sections:
                raise Refused(f"map: section {s.id!r}", "declared twice", "give each section once")
            if "+" in s.id:
                raise Refused(
                    f"map: section {s.id!r}", "a section id has no '+'", "'+' joins the sections of a large entity"
                )
            self.sections[s.id] = s
        self._steps: dict[str, dict[str, Step]] = {sid: {} for sid in self.sections}
        straight: dict[frozenset[str], bool] = {}  # each border's `straight`, as first declared
        for i, border in enumerate(spec.borders):
            where = f"map: borders[{i}] ({border.a}|{border.b})"
            for end in (border.a, border.b):
                if end not in self.sections:
                    known = ", ".join(self.sections) or "none"
                    raise Refused(where, f"no section {end!r}", f"sections: {known}")
            if border.a == border.b:
                raise Refused(where, "a border joins two different sections", "give a and b as two sections")
            there = Step(border.a, border.b, border.kind, border.height, border.climbable)
            back = Step(border.b, border.a, border.kind, -border.height, border.climbable)
            pair = frozenset((border.a, border.b))
            if straight.setdefault(pair, border.straight) != border.straight:
                raise Refused(
                    where,
                    f"declared again differently (straight = {str(border.straight).lower()}, but "
                    f"{str(straight[pair]).lower()} before)",
                    "declare each border once",
                )
            old = self._steps[border.a].get(border.b)
            if old is not None:
                if (old.kind, old.height, old.climbable) != (there.kind, there.height, there.climbable):
                    raise Refused(
                        where,
                        f"declared again differently (height {border.height} from {border.a}, "
                        f"but {old.height} before: the height from {border.b} back is its negative)",
                        "declare each border once",
                    )
                continue
            self._steps[border.a][border.b] = there
            self._steps[border.b][border.a] = back
        self._unstraight = {
            frozenset((b.a, b.b)) for b in spec.borders if not b.straight
        }  # borders the map says a straight line can't continue through

    @classmethod
    def load(cls, raw: Any, what: str = "map") -> Map:
        """A map from an encounter file's `[map]` table; raises Refused naming the key."""
        return cls(convert(raw, MapSpec, what))

    # --- structure -----------------------------------------------------------------------

    def neighbours(self, section: str) -> dict[str, Step]:
        """The borders out of `section`, by the section across."""
        return self._steps[section]

    def step(self, a: str, b: str) -> Step | None:
        return self._steps.get(a, {}).get(b)

    @staticmethod
    def parts(position: str | None) -> tuple[str, ...]:
        """The sections a position covers (`a+b`: a large entity in two)."""
        return tuple(position.split("+")) if position else ()

    # --- distance and paths ------------------------------------------------------------

    def distance(self, a: str, b: str) -> int | None:
        """The fewest soft borders crossed from `a` to `b` (None: no way over soft borders)."""
        if a == b:
            return 0
        seen = {a: 0}
        queue = deque([a])
        while queue:
            here = queue.popleft()
            for there, step in self._steps[here].items():
                if step.kind == "soft" and there not in seen:
                    seen[there] = seen[here] + 1
                    if there == b:
                        return seen[there]
                    queue.append(there)
        return None

    def paths(self, a: str, b: str, longest: int) -> Iterator[tuple[Step, ...]]:
        """Every simple path of soft borders from `a` to `b` crossing at most `longest`, shortest first."""
        if a == b:
            yield ()
            return
        frontier: list[tuple[str, tuple[Step, ...]]] = [(a, ())]
        for _ in range(longest):
            nxt: list[tuple[str, tuple[Step, ...]]] = []
            for here, path in frontier:
                visited = {a, *(s.b for s in path)}
                for there in sorted(self._steps[here]):
                    step = self._steps[here][there]
                    if step.kind != "soft" or there in visited:
                        continue
                    if path and frozenset((path[-1].a, path[-1].b)) in self._unstraight:
                        continue
                    if there == b:
                        yield (*path, step)
                    else:
                        nxt.append((there, (*path, step)))
            frontier = nxt

    @staticmethod
    def rise(path: tuple[Step, ...]) -> int:
        """The total change in height along a path (the destination's height above the origin)."""
        return sum(s.height for s in path)

    @staticmethod
    def hidden(path: tuple[Step, ...]) -> bool:
        """True when the terrain along `path` hides its far end: the ground turns from rising to
        falling (a crest), reading the text's examples: +1, -2 is blocked; -6, +6 and -2, -1 are not."""
        rose = False
        for s in path:
            if s.height > 0:
                rose = True
            elif s.height < 0 and rose:
                return True
        return False

    def line_of_fire(self, a: str, b: str, reach: int) -> tuple[Step, ...] | None:
        """A path from `a` to `b` a shot of range `reach` can take: no more soft borders than
        `reach`, the total change in height within `reach`, not hidden; None when there is none."""
        for path in self.paths(a, b, reach):
            if abs(self.rise(path)) <= reach and not self.hidden(path):
                return path
        return None

    # --- drawing -------------------------------------------------------------------------

    def draw(self, where: dict[str, list[str]]) -> list[str]:
        """The map as text: each section (light, water, who stands there), then its borders."""
        lines = []
        for sid, s in self.sections.items():
            marks = [s.light] + (["underwater"] if s.underwater else ["water"] if s.water else [])
            who = ", ".join(where.get(sid, [])) or "-"
            title = f"{sid} ({s.name})" if s.name else sid
            lines.append(f"[{title}] {' '.join(marks)}: {who}")
            for there, step in sorted(self._steps[sid].items()):
                wall = "==" if step.kind == "hard" else "--"
                rise = f" {step.height:+d}" if step.height else ""
                climb = "" if step.climbable or not step.height else " (no climbing)"
                lines.append(f"    {wall} {there}{rise}{climb}")
        return lines


__all__ = ["Border", "Map", "MapSpec", "Section", "Step"]
