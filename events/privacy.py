"""Viewers and private events: who is looking, and the facts the log keeps whole but not
everyone may read (a card drawn into a hand, a secret roll).

A viewer is a value: the game master (everything), the table (the players' shared screen),
a seat (one player: the table's view and the private things of the combatants that player
controls), or a spectator of a finished fight. What each may see is decided in one place,
`combatlog.replays.views`; the types live here, in the lowest layer, so that a rule
system's hooks (`seen_by`) can read them.

An event is private when it has a `private_to` field naming the combatant who owns it and a
`redacted()` method giving the event as others read it ("draws a card", not which).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import msgspec


class Viewer(msgspec.Struct, frozen=True, kw_only=True, tag_field="viewer"):
    """Who is looking. The subclasses are the viewers there are; each is a value that can key
    a cache of views."""

    gm: ClassVar[bool] = False

    @property
    def name(self) -> str:
        """How the command line names this viewer (`gm`, `table`, `seat:bo,ayla`, `spectator`)."""
        return str(self.__struct_config__.tag)

    def controls(self, cid: str, side_of: Callable[[str], str | None]) -> bool:
        """True when `cid` is one of this viewer's own combatants (a seat's)."""
        return False

    def may_see(self, owner: str, side_of: Callable[[str], str | None]) -> bool:
        """True when this viewer may read what `owner` keeps private."""
        return self.gm or self.controls(owner, side_of)


class GameMaster(Viewer, frozen=True, kw_only=True, tag="gm"):
    """The game master: every event and every field, the seed too."""

    gm: ClassVar[bool] = True


class TableViewer(Viewer, frozen=True, kw_only=True, tag="table"):
    """The players' shared screen: what the game master lets the players see, nobody's secrets."""


class Seat(Viewer, frozen=True, kw_only=True, tag="seat"):
    """One player: the table's view, and the private things of the combatants this player
    controls (those named, and every member of the sides named)."""

    combatants: frozenset[str] = frozenset()
    sides: frozenset[str] = frozenset()

    @property
    def name(self) -> str:
        parts = sorted(self.combatants) + [f"side:{s}" for s in sorted(self.sides)]
        return "seat:" + ",".join(parts)

    def controls(self, cid: str, side_of: Callable[[str], str | None]) -> bool:
        return cid in self.combatants or (bool(self.sides) and side_of(cid) in self.sides)


class Spectator(Viewer, frozen=True, kw_only=True, tag="spectator"):
    """Someone watching a finished fight: every combatant, and the private things the rules
    reveal at the end; never the seed."""


GM = GameMaster()
TABLE = TableViewer()
NOBODY = TABLE  # a shared screen: no one's private events
SPECTATOR = Spectator()


def owner_of(event: Any) -> str | None:
    """The combatant a private event belongs to, or None for a public one."""
    owner = getattr(event, "private_to", None)
    return owner if isinstance(owner, str) else None


def redact(event: Any, viewer: Viewer, side_of: Callable[[str], str | None]) -> Any:
    """`event` as `viewer` may read its private part: whole, or redacted when it is someone
    else's secret. (Hidden combatants and the seed are `combatlog.replays.views`' to decide.)"""
    owner = owner_of(event)
    if owner is None or viewer.may_see(owner, side_of):
        return event
    return event.redacted()


__all__ = [
    "GM",
    "NOBODY",
    "SPECTATOR",
    "TABLE",
    "GameMaster",
    "Seat",
    "Spectator",
    "TableViewer",
    "Viewer",
    "owner_of",
    "redact",
]
