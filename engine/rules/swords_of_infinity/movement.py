"""Moving: walking, resisted movement (sprint, jump, climb, swim) and the Retaliates a move
meets (version 3: square by square, each holder choosing whether to attack the mover)."""

from __future__ import annotations

from typing import Any

from combatlog.engine.protocol import Draft
from combatlog.engine.rules.swords_of_infinity.attack import strike
from combatlog.engine.rules.swords_of_infinity.events import (
    RetaliationChosen,
    RetaliationOffered,
    SpiritSpent,
    TurnMark,
)
from combatlog.engine.rules.swords_of_infinity.model import RESISTED, Offer, Turn, Weapon, own
from combatlog.engine.rules.swords_of_infinity.numbers import moved_squares, power_of
from combatlog.engine.rules.swords_of_infinity.reading import (
    at,
    feet,
    is_melee,
    penalty,
    since_v2,
    since_v3,
    skill,
    spirit_left,
    weapon,
)
from combatlog.events import ConditionApplied, ConditionRemoved, Moved
from combatlog.projections import Combatant, Encounter, Pending


def move(draft: Draft, p: Pending) -> str:
    """Resolve a walk to x,y (with the attacks of those it passes); returns the outcome."""
    me = draft.state.combatants[p.actor]
    to = f"{int(p.params['x'])},{int(p.params['y'])}"
    if me.has("fortify"):
        draft.emit(ConditionRemoved(target=me.id, condition="fortify", reason="moved"))
    feet_moved = 5 * _squares(me, int(p.params["x"]), int(p.params["y"]))
    if since_v3(draft.state):
        said, stopped = walk(draft, me.id, (int(p.params["x"]), int(p.params["y"])), feet_moved, p.params)
        return ("moves toward " if stopped else "moves to ") + to + said
    draft.emit(Moved(combatant=me.id, to=to, distance=feet_moved))
    return f"moves to {to}" + _retaliations(draft, me.id, bool(p.params.get("through")), p.params)


def _squares(c: Combatant, x: int, y: int) -> int:
    here = at(c)
    return 0 if here is None else max(abs(x - here[0]), abs(y - here[1]))


def retaliation_defense(mover: Combatant, params: dict[str, Any]) -> str:
    """How the mover defends against a Retaliate: as its move says (`defense`), else as any
    defender would (a block if it has the skill, else a dodge, else none)."""
    said = params.get("defense")
    if said in ("block", "dodge", "none"):
        return str(said)
    return "block" if "block" in mover.given_stats else "dodge" if "dodge" in mover.given_stats else "none"


def _line(a: tuple[int, int], b: tuple[int, int]) -> list[tuple[int, int]]:
    """The squares a move from `a` to `b` crosses in a straight line, one a step, `b` included
    and `a` not: each the square nearest the line (halves rounded up). A reading: the text
    draws no paths, and a move is given by where it ends."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = max(abs(dx), abs(dy))
    return [(a[0] + (2 * dx * i + n) // (2 * n), a[1] + (2 * dy * i + n) // (2 * n)) for i in range(1, n + 1)]


def _square(text: str) -> tuple[int, int]:
    x, _, y = text.partition(",")
    return int(float(x)), int(float(y))


def _threatens(c: Combatant, w: Weapon, square: tuple[int, int]) -> bool:
    """True when `square` is within the melee reach of `c`'s weapon `w`."""
    here = at(c)
    return here is not None and 5 * max(abs(here[0] - square[0]), abs(here[1] - square[1])) <= w.reach


def walk(
    draft: Draft,
    mover: str,
    to: tuple[int, int],
    distance: int,
    params: dict[str, Any],
    origin: tuple[int, int] | None = None,
    asked: tuple[str, ...] = (),
    here_too: bool = False,
) -> tuple[str, bool]:
    """Version 3: move `mover` to `to` square by square (`distance`: the feet the move counts).

    A retaliating enemy "attack[s] one enemy that comes within the character's melee range":
    the first square of the way within the reach of a retaliating enemy who didn't reach the
    move's start (`origin`, default where the mover stands) stops the mover there, and the fight
    waits for that enemy's choice (`RetaliationOffered`); so a mover passing by is caught too.
    `asked`: those already asked on this move; `here_too`: the square the mover stands on is
    looked at first (a move going on after a choice). Returns (what is said, stopped)."""
    state = draft.state
    m = state.combatants[mover]
    here = at(m)
    if here is None:  # not placed: nowhere to meet anyone on the way
        draft.emit(Moved(combatant=mover, to=f"{to[0]},{to[1]}", distance=distance))
        return "", False
    start = here if origin is None else origin
    watching = []
    for c in state.combatants.values():
        if c.side == m.side or c.id in asked or not c.active or not c.has("retaliating"):
            continue
        w = weapon(state, c, None)
        if is_melee(w) and at(c) is not None and not _threatens(c, w, start):
            watching.append((c, w))
    ahead = _line(here, to)
    if watching:
        for k, square in enumerate([here, *ahead] if here_too else ahead):
            steps = k if here_too else k + 1  # squares moved so far
            for c, w in watching:
                if not _threatens(c, w, square):
                    continue
                part = distance * steps // len(ahead) if ahead else 0
                if steps:
                    draft.emit(Moved(combatant=mover, to=f"{square[0]},{square[1]}", distance=part))
                draft.emit(
                    RetaliationOffered(
                        retaliator=c.id,
                        mover=mover,
                        to=f"{to[0]},{to[1]}",
                        origin=f"{start[0]},{start[1]}",
                        feet=distance - part,
                        through=bool(params.get("through")),
                        defense=None if params.get("defense") is None else str(params["defense"]),
                        asked=(*asked, c.id),
                    )
                )
                if square == to:
                    return f"; within {c.name}'s reach: {c.name} may retaliate", False
                where = f"{square[0]},{square[1]}"
                return f"; stops at {where}, within {c.name}'s reach: {c.name} may retaliate", True
    if ahead or not here_too:
        draft.emit(Moved(combatant=mover, to=f"{to[0]},{to[1]}", distance=distance))
    return "", False


def offer_live(state: Encounter, offer: Offer) -> bool:
    """True while the Retaliate waiting may still strike: its holder and the mover in the fight,
    and the holder still retaliating."""
    r, m = state.combatants.get(offer.retaliator), state.combatants.get(offer.mover)
    return r is not None and m is not None and r.active and m.active and r.has("retaliating")


def answer(draft: Draft, offer: Offer, choice: str) -> str:
    """Version 3: the waiting Retaliate's holder chose `attack` (the mover defends as its move
    said; then it goes on, Vulnerable, or stops where it stands) or `hold` (the move goes on);
    the move then meets whoever else it comes within reach of. Returns what happened."""
    mover = offer.mover
    to, feet_left = _square(offer.to), offer.feet
    params = {"through": offer.through, "defense": offer.defense}
    if choice == "attack":
        r = draft.state.combatants[offer.retaliator]
        draft.emit(ConditionRemoved(target=r.id, condition="retaliating", reason="used"))
        how = {"defense": retaliation_defense(draft.state.combatants[mover], params)}
        said = f"{r.name} retaliates: " + strike(draft, r.id, mover, weapon(draft.state, r, None), how, free=True)
        m = draft.state.combatants[mover]
        if m.active:
            said += f"; {m.name} moves on, vulnerable" if offer.through else f"; {m.name} stops"
        draft.emit(RetaliationChosen(retaliator=r.id, mover=mover, choice="attack", outcome=said))
        if not m.active:
            return said
        if offer.through:
            draft.emit(ConditionApplied(target=mover, condition="vulnerable (kept moving)", source=r.id))
        else:  # "or come to a stop within the first square threatened"
            here = at(m)
            if here is not None:
                to, feet_left = here, 0
    else:
        draft.emit(RetaliationChosen(retaliator=offer.retaliator, mover=mover, choice="hold"))
        said = f"{draft.state.combatants[offer.retaliator].name} holds the Retaliate"
        if not draft.state.combatants[mover].active:
            return said
    origin = _square(offer.origin) if offer.origin else None
    more, _ = walk(draft, mover, to, feet_left, params, origin, offer.asked, here_too=True)
    return said + more


def _retaliations(draft: Draft, mover: str, through: bool, params: dict[str, Any] | None = None) -> str:
    said = ""
    for c in list(draft.state.active()):
        m = draft.state.combatants[mover]
        if c.side == m.side or not c.has("retaliating") or not m.active:
            continue
        w = weapon(draft.state, c, None)
        d = feet(c, m)
        if d is not None and is_melee(w) and d <= w.reach:
            draft.emit(ConditionRemoved(target=c.id, condition="retaliating", reason="used"))
            # version 2: "whenever a combat participant is successfully attacked they get a chance
            # to defend themselves": the mover blocks or dodges the Retaliate
            how = {"defense": retaliation_defense(m, params or {})} if since_v2(draft.state) else {}
            said += f"; {c.name} retaliates: " + strike(draft, c.id, mover, w, how, free=True)
            if through and draft.state.combatants[mover].active:
                draft.emit(ConditionApplied(target=mover, condition="vulnerable (kept moving)", source=c.id))
                said += f"; {m.name} moves on, vulnerable"
    return said


def check_move(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    """Why the move can't be declared (x, y within the combatant's move, standing), or None."""
    try:
        x, y = int(params["x"]), int(params["y"])
    except (KeyError, TypeError, ValueError):
        return "say where: params x, y (squares)"
    if actor.has("prone"):
        return f"{actor.name} is prone; stand up first (one action)"
    if actor.position:
        squares = _squares(actor, x, y)
        most = actor.stats.move
        if squares > most:
            return f"{squares} squares is more than {actor.name}'s move of {most}"
    return None


def resisted(draft: Draft, p: Pending) -> str:
    """Resolve a resisted move (sprint, jump, climb, swim): endurance right after another, then a
    Power roll for the squares covered; returns the outcome."""
    state = draft.state
    me = state.combatants[p.actor]
    kind = p.action
    said = []
    last = own(state).turn.get(me.id, Turn()).last
    if last in RESISTED:
        etn = skill(me, "endurance") + penalty(state, me)
        roll = draft.roll("d%", f"endurance after {last} (TN {etn})", by=me.id).total
        if roll <= etn:
            said.append(f"endurance {roll} against {etn}")
        elif spirit_left(draft.state, me) > 0:
            draft.emit(SpiritSpent(combatant=me.id, amount=1, reason="tired by resisted movement"))
            said.append(f"endurance {roll} against {etn} fails: 1 spirit")
        else:
            said.append(f"endurance {roll} against {etn} fails (no spirit left)")
    tn = skill(me, kind) + penalty(draft.state, me)
    roll = draft.roll("d%", f"{kind} (Power, TN {tn})", by=me.id).total
    power = power_of(roll, tn)
    squares = moved_squares(kind, power, me.stats.move, me.has("rough terrain"))
    here = at(me)
    tx, ty = int(p.params["x"]), int(p.params["y"])
    if here is None:
        to = (tx, ty)
    else:
        dist = max(abs(tx - here[0]), abs(ty - here[1]))
        f = min(1.0, squares / dist) if dist else 0.0
        to = (here[0] + int(round((tx - here[0]) * f)), here[1] + int(round((ty - here[1]) * f)))
    v3 = since_v3(state)
    if not v3:  # version 3 walks there at the end, square by square
        draft.emit(Moved(combatant=me.id, to=f"{to[0]},{to[1]}", distance=5 * squares))
    draft.emit(TurnMark(combatant=me.id, last=kind))
    if kind == "climb" or (kind == "swim" and not me.stats.swim_speed):
        draft.emit(
            ConditionApplied(
                target=me.id, condition=f"vulnerable ({'climbing' if kind == 'climb' else 'swimming'})", source=me.id
            )
        )
    if me.has("fortify"):
        draft.emit(ConditionRemoved(target=me.id, condition="fortify", reason="moved"))
    said.append(f"{kind} {roll} against {tn}: power {power}, {squares} squares, to {to[0]},{to[1]}")
    if v3:
        return "; ".join(said) + walk(draft, me.id, to, 5 * squares, p.params)[0]
    return "; ".join(said) + _retaliations(draft, me.id, bool(p.params.get("through")), p.params)


def check_resisted(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    """Why the resisted move can't be declared (x, y given, standing), or None."""
    try:
        int(params["x"]), int(params["y"])
    except (KeyError, TypeError, ValueError):
        return "say toward where: params x, y (squares)"
    if actor.has("prone"):
        return f"{actor.name} is prone; stand up first (one action)"
    return None
