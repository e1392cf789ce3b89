"""Private events: facts the log keeps whole but not everyone may read (a card drawn into a
hand, a secret roll, later a hidden combatant's move).

An event is private when it has a `private_to` field naming the combatant who owns it and a
`redacted()` method giving the event as others read it ("draws a card", not which). A
`Viewer` says who is looking: the game master sees everything; a side sees what its own
members own. Views for someone else (the transcript with `--viewer`, `show --as`, the web
players' view) pass every event through `redact`; replay and audit never do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec


class Viewer(msgspec.Struct, frozen=True, kw_only=True):
    """Who is looking: the game master (everything), or the members of `sides`."""

    gm: bool = False
    sides: frozenset[str] = frozenset()

    def may_see(self, owner: str, side_of: Callable[[str], str | None]) -> bool:
        """True when this viewer may read what `owner` keeps private."""
        return self.gm or side_of(owner) in self.sides


GM = Viewer(gm=True)
NOBODY = Viewer()  # a shared screen: no one's private events


def owner_of(event: Any) -> str | None:
    """The combatant a private event belongs to, or None for a public one."""
    owner = getattr(event, "private_to", None)
    return owner if isinstance(owner, str) else None


def redact(event: Any, viewer: Viewer, side_of: Callable[[str], str | None]) -> Any:
    """`event` as `viewer` may read it: whole, or redacted when it is someone else's secret."""
    owner = owner_of(event)
    if owner is None or viewer.may_see(owner, side_of):
        return event
    return event.redacted()


__all__ = ["GM", "NOBODY", "Viewer", "owner_of", "redact"]
