"""What a player's seat may command: its own combatants, when the rules let them act, and
its own latest step's undo where the game master allows it.

A seat's command goes through the same `Session.execute` as the game master's, recorded
with `by="seat:ID"`; this module only says whether the seat may give it at all. The rules
(whose turn it is, what an action costs) are the engine's to refuse, as for anyone.
"""

from __future__ import annotations

import msgspec

from combatlog.engine.commands import Act, Contribute, EndTurn, TypedCommand, Undo, kind_of, read
from combatlog.engine.errors import Refused
from combatlog.events import Command
from combatlog.projections import Encounter, SeatEntry

SEAT_COMMANDS = (Act, EndTurn, Undo, Contribute)


def by_seat(seat: SeatEntry) -> str:
    """The `by` a seat's commands are recorded with."""
    return f"seat:{seat.id}"


def seat_command(
    state: Encounter, seat: SeatEntry, command: Command | TypedCommand, latest_by: str | None
) -> TypedCommand:
    """`command` as `seat` gives it (recorded `by` the seat), or Refused saying why the seat may
    not give it; `latest_by`: who gave the step an undo would undo now (None: nothing to undo)."""
    typed = command if isinstance(command, TypedCommand) else read(command)
    kind = kind_of(typed)
    yours = ", ".join(state.combatants[c].name for c in seat.combatants if c in state.combatants) or "none"
    if not isinstance(typed, SEAT_COMMANDS):
        raise Refused(kind, "a player's seat may act, end its turn, undo its own step or contribute to fair dice", "")
    if isinstance(typed, Undo):
        seating = state.seating
        if seating is None or not seating.undo:
            raise Refused("undo", "the game master keeps undo at this table", "ask the game master")
        if latest_by != by_seat(seat):
            raise Refused("undo", "the latest step isn't this seat's", "a seat undoes only its own latest step")
        return Undo(by=by_seat(seat))
    if isinstance(typed, Contribute):  # its own randomness in a fair encounter's dice, before the fight begins
        return Contribute(value=typed.value, by=by_seat(seat))
    actor = typed.actor
    if not actor or actor not in seat.combatants:
        who = state.combatants[actor].name if actor in state.combatants else (actor or "no one")
        raise Refused(f"{kind} for {who}", "not one of this seat's combatants", f"yours: {yours}")
    if state.combatants[actor].removed:
        raise Refused(f"{kind} for {state.combatants[actor].name}", "out of the fight")
    return msgspec.structs.replace(typed, by=by_seat(seat), amends=None, draws=None)
