"""Placing combatants on a grid: directions rolled on a d8, offsets, facing, marching order."""

from __future__ import annotations

from combatlog.engine.protocol import Draft
from combatlog.engine.rules.starflight.events import Placed
from combatlog.engine.rules.starflight.model import DIAGONAL, DIRECTIONS, own
from combatlog.engine.rules.starflight.reading import group_key, position
from combatlog.projections import Encounter


def _direction(draft: Draft, by: str, purpose: str) -> int:
    """A direction die: 1-8 clockwise from ahead; 9 a random direction (1d8); 0 roll again."""
    while True:
        d = draft.roll("1d10z", f"{purpose}: direction", by=by).total
        if d == 9:
            return draft.roll("1d8", f"{purpose}: random direction", by=by).total
        if d != 0:
            return d


def _offset(state: Encounter, origin: tuple[float, float], direction: int, increments: int) -> tuple[float, float]:
    dx, dy = DIRECTIONS[direction]
    if state.options.grid == "abstract" and dx and dy:
        step = round(increments * DIAGONAL, 2)
        return origin[0] + dx * step, origin[1] + dy * step
    return origin[0] + dx * increments, origin[1] + dy * increments


def _facing_towards(direction: int) -> int:
    return (direction + 3) % 8 + 1


def place_all(draft: Draft) -> None:
    """The text's placement by die, for every combatant not placed yet."""
    state = draft.state
    order = [cid for cid in state.flat_order() if state.combatants[cid].active]
    if not order or all(position(state.combatants[c]) is not None for c in order):
        return

    def put(cid: str, xy: tuple[float, float], facing: int, how: str) -> None:
        draft.emit(Placed(combatant=cid, x=xy[0], y=xy[1], facing=facing, how=how))

    leader = order[0]
    if position(draft.state.combatants[leader]) is None:
        put(leader, (0.0, 0.0), 1, "centre")
    lead_pos = position(draft.state.combatants[leader])
    assert lead_pos is not None

    def key(cid: str) -> str:
        return group_key(draft.state, draft.state.combatants[cid])

    heads: dict[str, str] = {}
    for cid in order:
        heads.setdefault(key(cid), cid)
    side_origin: dict[str, str] = {state.combatants[leader].side: leader}
    facing_of: dict[str, int] = {}
    for group, head in heads.items():
        c = draft.state.combatants[head]
        if position(c) is not None:
            side_origin.setdefault(c.side, head)
            facing_of[group] = own(draft.state).facing.get(head) or 1
            continue
        origin = side_origin.get(c.side)
        if origin is None:
            while True:  # the first of an opposing side: 2d10, one die the direction, the other the range
                roll = draft.roll("2d10z", "placement: direction and range", by=head)
                d, r = roll.faces
                if d != 0:
                    break
            if d == 9:
                d = draft.roll("1d8", "placement: random direction", by=head).total
            put(head, _offset(state, lead_pos, d, r), _facing_towards(d), "rolled")
            side_origin[c.side] = head
            facing_of[group] = _facing_towards(d)
        else:
            d = _direction(draft, head, "placement")
            r = draft.roll("1d5", "placement: range", by=head).total
            origin_pos = position(draft.state.combatants[origin])
            assert origin_pos is not None
            f = own(draft.state).facing.get(origin) or 1
            put(head, _offset(state, origin_pos, d, r), f, "rolled")
            facing_of[group] = f
    for cid in order:
        c = draft.state.combatants[cid]
        if position(c) is not None:
            continue
        head = heads[key(cid)]
        d = _direction(draft, cid, "placement")
        r = draft.roll("1d5", "placement: range", by=cid).total
        origin_pos = position(draft.state.combatants[head])
        assert origin_pos is not None
        put(cid, _offset(state, origin_pos, d, r), facing_of.get(key(cid), 1), "rolled")
