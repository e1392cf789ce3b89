"""Moving on the map: Move N over soft borders, Phase, Fly, Teleport, heights and falls,
Blocks, swimming, and climbing (see `docs/rules/triptycho.md`)."""

from __future__ import annotations

from collections import deque

from combatlog.engine.battlemap import Map, Step
from combatlog.engine.protocol import Draft
from combatlog.engine.rules.triptycho.events import BlockLowered, ClimbChanged
from combatlog.engine.rules.triptycho.model import Ways, bears, own, section_of
from combatlog.engine.rules.triptycho.sight import can_see
from combatlog.events import Moved
from combatlog.projections import Combatant, Encounter

DOWN_BLOCKERS = ("immobilized", "defenseless")


def block_holds(state: Encounter, blocker: Combatant) -> bool:
    """A Block stands while its blocker is in the fight and neither Immobilized nor Defenseless."""
    return blocker.active and not any(bears(state, blocker, x) for x in DOWN_BLOCKERS)


def blocked(state: Encounter, mover: Combatant, step: Step, kind: str) -> str | None:
    """Who stops `mover` crossing `step`, or None. Blocks never stop Phase, Fly or Teleport; a
    Block from one's own section stops an enemy leaving across it that the blocker can see; a
    Block at a distance stops everyone, both ways."""
    if kind != "move":
        return None
    mine = own(state)
    if not mine.blocks and not mine.distant:  # most of the time: no Block anywhere
        return None
    for cid, block in sorted(mine.blocks.items()):
        blocker = state.combatants[cid]
        if (
            block.section == step.a
            and block.toward == step.b
            and blocker.side != mover.side
            and block_holds(state, blocker)
            and can_see(state, blocker, mover, step.a)
        ):
            return blocker.name
    for d in mine.distant:
        if {d.a, d.b} == {step.a, step.b} and state.combatants[d.owner].side != mover.side:
            return f"{state.combatants[d.owner].name} (at a distance)"
    return None


def route(
    state: Encounter, mover: Combatant, to: str, n: int, kind: str, height: int
) -> tuple[tuple[Step, ...] | None, str]:
    """The path `mover` takes to `to` with a Move of `n` (`kind` move, phase, fly; `height`: the
    Move's Height value), fewest borders first; or (None, why not)."""
    ways: Ways = state.options.ways
    start = section_of(mover)
    aquatic = mover.stats.aquatic
    mine = own(state)
    if kind != "move" or (not mine.blocks and not mine.distant):
        # no Block can stop it (`blocked`): the way depends on the map alone, found once a map
        key = (start, to, n, kind, height, aquatic)
        found = ways.routes.get(key)
        if found is None:
            if len(ways.routes) >= 4096:  # a bound, for a big map
                ways.routes.clear()
            found = ways.routes[key] = _route(state, mover, ways, start, aquatic, to, n, kind, height)
        return found
    return _route(state, mover, ways, start, aquatic, to, n, kind, height)


def _route(
    state: Encounter, mover: Combatant, ways: Ways, start: str, aquatic: bool, to: str, n: int, kind: str, height: int
) -> tuple[tuple[Step, ...] | None, str]:
    board: Map = ways.board
    if to not in board.sections:
        return None, f"no section {to!r} (sections: {', '.join(board.sections)})"
    stopped: dict[str, str] = {}  # why a section next to the way couldn't be entered
    swam = False
    queue: deque[tuple[str, int, tuple[Step, ...]]] = deque([(start, 0, ())])
    best: dict[str, int] = {start: 0}
    while queue:
        here, used, path = queue.popleft()
        if here == to and path:
            return path, ""
        steps = board.neighbours(here)
        for there in ways.sorted_neighbours(here):
            step = steps[there]
            why = None
            if step.kind == "hard" and kind != "phase":
                why = f"a wall between {here} and {there} (only Phase crosses it)"
            elif step.height > 0 and kind == "move" and height < step.height:
                why = f"{there} is {step.height} higher than {here}: climb, or a Move with Height {step.height}"
            elif kind == "phase" and abs(step.height) > n:
                why = f"Phase {n} can't cross a height of {abs(step.height)}"
            elif (stopper := blocked(state, mover, step, kind)) is not None:
                why = f"{stopper} blocks the border from {here} to {there}"
            if why is not None:
                stopped.setdefault(there, why)
                continue
            cost = 1
            if n > 1 and not aquatic and board.sections[there].water:
                cost = 2  # a Move of more than one section loses 1 for each water section entered
                swam = True
            total = used + cost
            if total > n or best.get(there, n + 1) <= total:
                continue
            best[there] = total
            queue.append((there, total, (*path, step)))
    if to in stopped:
        return None, stopped[to]
    far = ways.distance(start, to)
    if swam and far is not None and far <= n:
        return None, f"{to} is beyond a Move {n} from {start}: each water section entered costs a section more"
    return None, f"{to} is beyond a Move {n} from {start}"


def teleport_problem(state: Encounter, mover: Combatant, to: str, n: int) -> str | None:
    board = state.options.board
    if to not in board.sections:
        return f"no section {to!r}"
    start = section_of(mover)
    # the fewest borders of any kind, and the change in height along that way
    seen: dict[str, tuple[int, int]] = {start: (0, 0)}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        for there, step in sorted(board.neighbours(here).items()):
            if there not in seen:
                seen[there] = (seen[here][0] + 1, seen[here][1] + step.height)
                queue.append(there)
    if to not in seen:
        return f"{to} can't be reached from {start}"
    far, rise = seen[to]
    if far > n:
        return f"{to} is {far} sections away; Teleport {n}"
    if abs(rise) > n:
        return f"{to} is {abs(rise)} higher or lower; Teleport {n} needs a range of that"
    return None


def travel(draft: Draft, mover: Combatant, to: str, n: int, kind: str, height: int = 0) -> str:
    """Move `mover` (already checked), falling where it drops without Fly; returns what happened."""
    state = draft.state
    start = section_of(mover)
    _leave(draft, mover)
    if kind == "teleport":
        draft.emit(Moved(combatant=mover.id, to=to, distance=0))
        return f"teleports from {start} to {to}"
    path, why = route(state, mover, to, n, kind, height)
    if path is None:  # checked before: the state can't have changed
        raise AssertionError(why)
    verb = {"move": "moves", "fly": "flies", "phase": "phases"}.get(kind, kind)
    said = [f"{verb} {start} -> " + " -> ".join(s.b for s in path)]
    draft.emit(Moved(combatant=mover.id, to=to, distance=len(path)))
    # a plain Move falls down a drop; a Move with a Height value at least the drop's doesn't
    drop = sum(-s.height for s in path if s.height < 0 and -s.height > height) if kind == "move" else 0
    if drop:
        said.append(fall(draft, mover.id, drop))
    return "; ".join(said)


def fall(draft: Draft, cid: str, height: int) -> str:
    """`cid` falls `height`: 1d4 per height (3d4 from a height-3 drop)."""
    roll = draft.roll(f"{height}d4", f"a fall of {height}", by=cid)
    draft.damage(cid, roll.total, kind="fall")
    return f"falls {height}: {roll.total} damage"


def _leave(draft: Draft, mover: Combatant) -> None:
    """Leaving a section lowers one's own Block, and ends a climb."""
    mine = own(draft.state)
    if mover.id in mine.blocks:
        draft.emit(BlockLowered(combatant=mover.id, reason="left the section"))
    if mover.id in mine.climbing:
        draft.emit(ClimbChanged(combatant=mover.id))


def climb(draft: Draft, mover: Combatant, to: str) -> str:
    """One Acrobatics check against the game master's toward `to`: tie or beat climbs Height 1."""
    state = draft.state
    board = state.options.board
    step = board.step(section_of(mover), to)
    assert step is not None
    done = own(state).climbing.get(mover.id)
    so_far = done.done if done is not None and done.toward == to else 0
    mine = draft.roll(f"1{mover.stats.acrobatics}", f"climbing toward {to}", by=mover.id)
    gm = draft.roll(f"1{state.options.gm_acrobatics}", "the game master's Acrobatics")
    if mine.total < gm.total:
        if so_far == 0:
            return f"fails to climb toward {to} ({mine.total} against {gm.total})"
        draft.emit(ClimbChanged(combatant=mover.id, toward=to, done=so_far))
        return f"makes no headway toward {to} ({mine.total} against {gm.total}); climbing, {so_far} of {step.height}"
    so_far += 1
    if so_far >= step.height:
        draft.emit(ClimbChanged(combatant=mover.id))
        draft.emit(Moved(combatant=mover.id, to=to, distance=1))
        return f"climbs up to {to} ({mine.total} against {gm.total})"
    draft.emit(ClimbChanged(combatant=mover.id, toward=to, done=so_far))
    return f"climbs {so_far} of {step.height} toward {to} ({mine.total} against {gm.total})"


def climb_problem(state: Encounter, mover: Combatant, to: str) -> str | None:
    board = state.options.board
    here = section_of(mover)
    step = board.step(here, to)
    if step is None:
        return f"{to} doesn't border {here}"
    if step.height <= 0:
        return f"{to} isn't higher than {here}: move there"
    if not step.climbable:
        return f"the border from {here} up to {to} can't be climbed"
    if step.kind == "hard":
        return f"a wall between {here} and {to}"
    climbing = own(state).climbing.get(mover.id)
    if climbing is not None and climbing.toward != to:
        return f"already climbing toward {climbing.toward}"
    return None
