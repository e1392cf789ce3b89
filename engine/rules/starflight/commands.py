"""The game master's commands: place, range, marching order, conclude (the round-end ruling)."""

from __future__ import annotations

from combatlog.engine.errors import Refused
from combatlog.engine.protocol import Draft
from combatlog.engine.rules.starflight.actions import is_facing
from combatlog.engine.rules.starflight.events import Awaiting, MarchingOrder, Placed, RangeSet
from combatlog.engine.rules.starflight.model import own
from combatlog.events import Command, EncounterEnded, GmRuling
from combatlog.projections import Combatant


def _who(draft: Draft, command: Command, what: str) -> Combatant:
    cid = command.actor
    c = draft.state.combatants.get(cid or "")
    if c is None:
        raise Refused(f"{what} {cid!r}", "no such combatant", "ids: " + (", ".join(draft.state.combatants) or "none"))
    return c


def place_cmd(draft: Draft, command: Command) -> None:
    """Decide `place`: put a combatant at x,y of the grid (with a facing); refused without a grid."""
    state = draft.state
    if state.options.grid == "none":
        raise Refused("place", "this fight has no grid", "give ranges with: range ACTOR range=N")
    c = _who(draft, command, "place")
    p = command.params
    try:
        x, y = float(p["x"]), float(p["y"])
    except (KeyError, TypeError, ValueError):
        raise Refused(f"place {c.id}", "say where: params x=<increments> y=<increments>") from None
    if state.options.grid == "physical" and not (x.is_integer() and y.is_integer()):
        raise Refused(f"place {c.id}", "on a physical grid a square is whole numbers x, y")
    facing = p.get("facing")
    if facing is not None and not is_facing(facing):
        raise Refused(f"place {c.id}: facing={facing!r}", "use 1-8 (1 ahead, clockwise in 45-degree steps)")
    draft.emit(Placed(combatant=c.id, x=x, y=y, facing=facing, how="given"))


def range_cmd(draft: Draft, command: Command) -> None:
    """Decide `range`: a combatant's range to target, given or rolled; refused on a grid."""
    state = draft.state
    if state.options.grid != "none":
        raise Refused("range", "on a grid ranges come from positions", "place combatants with: place ACTOR x=.. y=..")
    c = _who(draft, command, "range")
    value = command.params.get("range")
    if value is None:
        rolled = draft.roll("2d10z", "range to target", by=c.id).total
        draft.emit(RangeSet(combatant=c.id, range=rolled, how="rolled"))
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise Refused(f"range {c.id}: {value!r}", "a range is a whole number of increments, 0 or more")
    draft.emit(RangeSet(combatant=c.id, range=value, how="given"))


def marching_cmd(draft: Draft, command: Command) -> None:
    """Decide `marching`: a side's marching order, every member once, front to back."""
    state = draft.state
    side = command.params.get("side")
    if side not in state.sides():
        raise Refused(f"marching {side!r}", "no such side", f"sides: {', '.join(state.sides())}")
    order = command.params.get("order")
    members = [c.id for c in state.combatants.values() if c.side == side and not c.removed]
    if not isinstance(order, list) or not all(isinstance(x, str) for x in order) or sorted(order) != sorted(members):
        raise Refused(
            f"marching {side}", "give every member of the side once, front to back", f"members: {', '.join(members)}"
        )
    draft.emit(MarchingOrder(side=side, order=tuple(order)))


def conclude(draft: Draft, command: Command) -> None:
    """Decide `conclude`: the game master's ruling when combat resolution is due (continue, victory, draw)."""
    state = draft.state
    if state.phase in ("setup", "surprise"):
        raise Refused("conclude", "the fight hasn't begun", "begin it first, or end it with: end")
    decision = command.params.get("decision")
    waiting = own(state).awaiting == "resolve combat"
    if decision == "continue":
        if not waiting:
            raise Refused("conclude continue", "the fight isn't waiting for a ruling; it goes on by itself")
        draft.emit(GmRuling(topic="resolve combat", decision="continue", text=str(command.params.get("text", ""))))
        draft.emit(Awaiting(topic=None))
        draft.next_round()
        return
    if decision not in ("victory", "draw"):
        raise Refused(f"conclude decision={decision!r}", "not a decision", "use continue, victory or draw")
    winner = command.params.get("winner")
    if decision == "victory" and winner not in state.sides():
        raise Refused(
            f"conclude victory: winner={winner!r}", "name the winning side", f"sides: {', '.join(state.sides())}"
        )
    if decision == "draw":
        winner = None
    draft.emit(
        GmRuling(
            topic="resolve combat",
            decision={"decision": decision, "winner": winner},
            text=str(command.params.get("text", "")),
        )
    )
    if waiting:
        draft.emit(Awaiting(topic=None))
    draft.emit(EncounterEnded(outcome=f"{decision} by the game master's ruling", winner=winner))
