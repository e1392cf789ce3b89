"""What an entity can do on its turn: the free Move (or a climb, or a fall), a Block in the
Strategy phase, playing a card (an attack, a Move it grants, a Block at a distance), and
incanting in the Action phase (see `docs/rules/triptycho.md`)."""

from __future__ import annotations

from typing import Any

from combatlog.engine.battlemap import Step
from combatlog.engine.protocol import ActionSpec, Draft
from combatlog.engine.rules.triptycho.events import (
    BlockLowered,
    BlockRaised,
    CardPlayed,
    ChargesChanged,
    ClimbChanged,
    DistantBlockRaised,
    IncantingChanged,
)
from combatlog.engine.rules.triptycho.model import (
    Card,
    Ways,
    options_of,
    own,
    section_of,
    stands_in,
    stats_of,
    step_die,
)
from combatlog.engine.rules.triptycho.movement import (
    block_holds,
    climb,
    climb_problem,
    fall,
    route,
    teleport_problem,
    travel,
)
from combatlog.engine.rules.triptycho.sight import can_see, hindered, swimming
from combatlog.projections import Combatant, Encounter, Pending

SWIM_WEAPONS = ("dagger", "spear")  # ignore swimming's Hit and Damage penalty


def card_of(state: Encounter, actor: Combatant, params: dict[str, Any]) -> tuple[Card | None, str | None]:
    name = params.get("card")
    if not isinstance(name, str) or not name:
        hand = own(state).hands.get(actor.id, ())
        return None, f"name the card: card=NAME (in hand: {', '.join(hand) or 'nothing'})"
    card = stats_of(actor).cards.get(name)
    if card is None or name not in own(state).hands.get(actor.id, ()):
        hand = own(state).hands.get(actor.id, ())
        return None, f"{name!r} isn't in {actor.name}'s hand (in hand: {', '.join(hand) or 'nothing'})"
    return card, None


def enemy_in(state: Encounter, actor: Combatant, section: str) -> bool:
    """True when an active enemy of `actor` stands in `section` (stopping at the first)."""
    side = actor.side
    for c in state.combatants.values():
        if c.defeated is None and not c.removed and c.side != side and stands_in(c, section):  # c.active
            return True
    return False


def charged_play(state: Encounter, actor: Combatant, card: Card) -> bool:
    """An Incantation card played on the charges gained at the start of this turn costs no phase."""
    return card.incantation is not None and own(state).charged_at.get(actor.id) == state.round


# --- checks --------------------------------------------------------------------------


def _check_move(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    if actor.id in own(state).climbing:
        return "climbing: climb on, or fall"
    to = params.get("to")
    if not isinstance(to, str):
        return "say where: to=SECTION"
    return route(state, actor, to, 1, "move", 0)[1] or None


def _check_climb(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    to = params.get("to")
    if not isinstance(to, str):
        return "say toward which section: to=SECTION"
    return climb_problem(state, actor, to)


def _check_fall(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    return None if actor.id in own(state).climbing else f"{actor.name} isn't climbing"


def turn_stage(actor: Combatant) -> str:
    """Where `actor`'s turn stands among its card phases (`TURN`): the Strategy phase until it
    is spent or the Action phase is, then the Action phase, then only the discard is left."""
    if actor.resources.get("strategy", 0) and actor.resources.get("action", 0):
        return "strategy"
    if actor.resources.get("action", 0):
        return "action"
    return "discard"


def _strategy_problem(actor: Combatant) -> str | None:
    if turn_stage(actor) != "strategy":
        return "the Strategy phase is over (it comes before the Action phase)"
    return None


def _check_block(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    why = _strategy_problem(actor)
    if why:
        return why
    toward = params.get("toward")
    here = section_of(actor)
    board = options_of(state).board
    if not isinstance(toward, str) or board.step(here, toward) is None:
        near = ", ".join(board.neighbours(here)) or "none"
        return f"block the border toward an adjacent section: toward=SECTION ({near})"
    return None


def _check_lower(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    return None if actor.id in own(state).blocks else f"{actor.name} holds no Block"


def _check_incant(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    if actor.id in own(state).climbing:
        return "a climbing entity can't incant"
    if actor.id in own(state).incanting:
        return f"{actor.name} is incanting already"
    name = params.get("card")
    if name is not None:  # the incantation it means to play: Range's enemy check happens now
        card = stats_of(actor).cards.get(str(name))
        if card is None or card.incantation is None:
            return f"{name!r} isn't an Incantation card of {actor.name}'s"
        if card.range is not None and enemy_in(state, actor, section_of(actor)):
            return "an enemy in the section: no Range incantation may begin"
    return None


def _check_play(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    card, why = card_of(state, actor, params)
    if card is None:
        return why
    why = card_problem(state, actor, card, params)
    if why is not None or not aims(card):
        return why
    return aim(state, actor, card, targets, params)[1]


def aims(card: Card) -> bool:
    """True when playing `card` is an attack whose targets are checked (`aim`): a card with
    a Hit die that neither moves nor blocks at a distance."""
    return card.hit is not None and not card.move and not card.block


def card_problem(state: Encounter, actor: Combatant, card: Card, params: dict[str, Any]) -> str | None:
    """Why `card` (in `actor`'s hand) can't be played now, whomever it aims at; for a card
    that `aims`, `aim` then says whether it reaches its targets."""
    if card.phase == "strategy":
        why = _strategy_problem(actor)
        if why:
            return f"{card.name}: {why}"
    mine = own(state)
    if card.incantation is not None:
        have = mine.charges.get(actor.id, 0)
        if have < card.incantation:
            return f"{card.name} needs {card.incantation} incantation charge(s); {actor.name} has {have}"
    if card.move:
        to = params.get("to")
        if not isinstance(to, str):
            return f"{card.name} moves: say where, to=SECTION"
        if card.movement == "teleport":
            return teleport_problem(state, actor, to, card.move)
        return route(state, actor, to, card.move, card.movement, card.height)[1] or None
    if card.block:
        a, b = params.get("a"), params.get("b")
        board = options_of(state).board
        if not isinstance(a, str) or not isinstance(b, str) or board.step(a, b) is None:
            return f"{card.name} blocks a border at a distance: a=SECTION b=SECTION (two that border)"
        return None
    return None  # no Hit die: an effect the game master applies


def aim(
    state: Encounter, actor: Combatant, card: Card, targets: tuple[str, ...], params: dict[str, Any]
) -> tuple[list[tuple[Combatant, tuple[Step, ...]]], str | None]:
    """Whom an attack card hits, with the path each shot takes; or why it can't be played."""
    ways = options_of(state).ways
    here = section_of(actor)
    if card.range is not None and enemy_in(state, actor, here):
        charged = charged_play(state, actor, card) or (
            card.incantation is not None and own(state).charges.get(actor.id, 0) >= card.incantation
        )
        if not charged:
            return [], "an enemy in the section: a Range action can't be made (Thrown and Reach can)"
    if card.area is not None:
        section = params.get("section", here if not card.ranged and not card.reach else None)
        if not isinstance(section, str) or section not in ways.board.sections:
            return [], f"{card.name} is an area attack: say which section, section=SECTION"
        path = _path(ways, here, section, card)
        if path is None:
            return [], f"{section} is out of {card.name}'s reach from {here}"
        hit = []
        for c in state.active():
            if not stands_in(c, section):
                continue
            if card.area == "enemies" and c.side == actor.side:
                continue
            if card.area == "allies" and c.side != actor.side:
                continue
            if card.area == "others" and c.id == actor.id:
                continue
            climb = own(state).climbing.get(c.id)
            if climb is not None and card.reach_of < climb.done:
                continue  # a climber is hit only by an area attack whose range reaches its height
            hit.append((c, path))
        return hit, None
    if len(targets) != 1:
        return [], f"{card.name} takes one target"
    target = state.combatants[targets[0]]
    there = section_of(target)
    if card.ranged and ways.board.sections[there].underwater:
        return [], f"{target.name} is underwater: ranged attacks can't reach"
    path = _path(ways, here, there, card)
    if path is None:
        if not card.ranged and not card.reach:
            return [], f"{card.name} is melee: {target.name} isn't in {here}"
        return [], _out_of_reach(state, here, there, card, target.name)
    chosen = params.get("intercepted_by")
    if chosen is not None:
        blocker = state.combatants.get(str(chosen))
        if blocker is None or not _may_intercept(state, blocker, path, card):
            return [], f"{chosen} holds no Block on a border this shot crosses, in its own section"
        return [(blocker, path)], None
    return [(target, path)], None


def _out_of_reach(state: Encounter, here: str, there: str, card: Card, who: str) -> str:
    """Why a shot from `here` can't reach `there`: too far, too high or low, or hidden."""
    board = options_of(state).board
    far = board.distance(here, there)
    reach = card.reach_of
    if far is None or far > reach:
        return f"{who} in {there} is {far if far is not None else 'no'} soft borders away; {card.name} reaches {reach}"
    paths = list(board.paths(here, there, reach))
    if paths and all(abs(board.rise(p)) > reach for p in paths):
        least = min(abs(board.rise(p)) for p in paths)
        return f"{who} in {there} is {least} higher or lower; {card.name}'s range {reach} doesn't cover it"
    return f"the terrain hides {who} in {there} from {here} (the ground rises, then falls, on the way)"


def _path(ways: Ways, here: str, there: str, card: Card) -> tuple[Step, ...] | None:
    if here == there:
        return ()
    if card.ranged:
        return ways.line_of_fire(here, there, card.reach_of)
    if card.reach:  # melee that may cross borders (heights too)
        return ways.first_path(here, there, card.reach)
    return None  # melee: the occupied section only, never across a height


def _may_intercept(state: Encounter, blocker: Combatant, path: tuple[Step, ...], card: Card) -> bool:
    if not card.ranged or card.area is not None:
        return False
    block = own(state).blocks.get(blocker.id)
    if block is None or not block_holds(state, blocker) or section_of(blocker) != block.section:
        return False
    return any({block.section, block.toward} == {s.a, s.b} for s in path)


# --- resolution ----------------------------------------------------------------------


def _move(draft: Draft, p: Pending) -> str:
    return travel(draft, draft.state.combatants[p.actor], str(p.params["to"]), 1, "move")


def _climb(draft: Draft, p: Pending) -> str:
    return climb(draft, draft.state.combatants[p.actor], str(p.params["to"]))


def _fall(draft: Draft, p: Pending) -> str:
    climbing = own(draft.state).climbing[p.actor]
    draft.emit(ClimbChanged(combatant=p.actor))
    return "lets go: " + fall(draft, p.actor, climbing.done) if climbing.done else "lets go of the climb"


def _block(draft: Draft, p: Pending) -> str:
    here = section_of(draft.state.combatants[p.actor])
    toward = str(p.params["toward"])
    draft.emit(BlockRaised(combatant=p.actor, section=here, toward=toward))
    return f"blocks the border from {here} to {toward}"


def _lower(draft: Draft, p: Pending) -> str:
    draft.emit(BlockLowered(combatant=p.actor, reason="lowered"))
    return "lowers the Block"


def _incant(draft: Draft, p: Pending) -> str:
    draft.emit(IncantingChanged(combatant=p.actor, incanting=True))
    return "begins incanting"


def _play(draft: Draft, p: Pending) -> str:
    state = draft.state
    actor = state.combatants[p.actor]
    card = stats_of(actor).cards[str(p.params["card"])]
    aimed = aim(state, actor, card, p.targets, p.params)[0] if card.hit is not None else []
    draft.emit(CardPlayed(combatant=actor.id, card=card.name))
    said = [f"plays {card.name}"]
    if card.incantation is not None:
        draft.emit(ChargesChanged(combatant=actor.id, charges=0, reason=f"spent on {card.name}"))
        if actor.id in own(draft.state).incanting:
            draft.emit(IncantingChanged(combatant=actor.id, incanting=False))
    if card.move:
        said.append(travel(draft, actor, str(p.params["to"]), card.move, card.movement, card.height))
    if card.block:
        a, b = str(p.params["a"]), str(p.params["b"])
        until = state.round + card.block - 1
        draft.emit(DistantBlockRaised(combatant=actor.id, a=a, b=b, until=until))
        said.append(f"blocks the border {a}|{b} from afar, through round {until}")
    for target, path in aimed:
        said.append(attack(draft, actor, card, draft.state.combatants[target.id], path))
    if card.effect:
        said.append(card.effect)
    return "; ".join(said)


def attack(draft: Draft, actor: Combatant, card: Card, target: Combatant, path: tuple[Step, ...]) -> str:
    """The card's Hit die against the target's Miss die (a tie goes to the attacker), then Damage."""
    state = draft.state
    opts = options_of(state)
    mine = own(state)
    if card.ranged and card.area is None:
        for d in mine.distant:
            if any({d.a, d.b} == {s.a, s.b} for s in path):
                return f"{target.name}: the shot crosses {d.a}|{d.b}, blocked from afar: a miss"
    where = section_of(target)
    hit_down, miss_down, why = 0, 0, []
    if not can_see(state, actor, target, where) or actor.has("debilitated") or actor.id in mine.climbing:
        hit_down += 1
        why.append("Debilitated")
    if not can_see(state, target, actor) or target.has("vulnerable") or target.id in mine.climbing:
        miss_down += 1
        why.append("Vulnerable")
    if hindered(state, actor) or actor.has("hindered"):
        hit_down += opts.hindered in ("hit", "both")
        why.append(f"{actor.name} Hindered")
    if hindered(state, target) or target.has("hindered"):
        miss_down += opts.hindered in ("miss", "both")
        why.append(f"{target.name} Hindered")
    swims = card.weapon is not None and card.weapon not in SWIM_WEAPONS and swimming(state, actor)
    if swims:
        hit_down += 1
        why.append("swimming")
    if stats_of(target).armoured and swimming(state, target):
        miss_down += 1
        why.append(f"{target.name} swimming")
    assert card.hit is not None
    hit_die = step_die(opts.ladder, card.hit, -hit_down)
    miss_die = step_die(opts.ladder, stats_of(target).miss, -miss_down)
    hit = draft.roll(f"1{hit_die}", f"{card.name}: Hit", by=actor.id)
    miss = draft.roll(f"1{miss_die}", f"{target.name}: Miss", by=target.id)
    shown = f"{target.name}: Hit {hit.total} ({hit_die}) against Miss {miss.total} ({miss_die})"
    if why:
        shown += f" [{', '.join(why)}]"
    if hit.total < miss.total:
        return shown + ", a miss"
    if card.damage is None:
        return shown + ", a hit"
    damage_die = step_die(opts.ladder, card.damage, -1 if swims else 0)
    damage = draft.roll(f"{card.dice}{damage_die}", f"{card.name}: Damage", by=actor.id)
    draft.damage(target.id, damage.total, source=actor.id)
    return shown + f", a hit for {damage.total}"


def _none(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    return None


ACTIONS = (
    ActionSpec(
        "move",
        "movement",
        {"move": 1},
        _move,
        targets="none",
        min_targets=0,
        max_targets=0,
        check=_check_move,
        help="the turn's Move 1 over a soft border (to=SECTION); free, once",
    ),
    ActionSpec(
        "climb",
        "movement",
        {"move": 1},
        _climb,
        targets="none",
        min_targets=0,
        max_targets=0,
        check=_check_climb,
        help="an Acrobatics check climbing a height toward to=SECTION (the turn's Move)",
    ),
    ActionSpec(
        "fall",
        "movement",
        {"move": 1},
        _fall,
        targets="none",
        min_targets=0,
        max_targets=0,
        check=_check_fall,
        help="let go of a climb, falling what has been climbed (the turn's Move)",
    ),
    ActionSpec(
        "block",
        None,
        {"strategy": 1},
        _block,
        targets="none",
        min_targets=0,
        max_targets=0,
        check=_check_block,
        help="Strategy phase: block enemies leaving toward=SECTION",
    ),
    ActionSpec(
        "lower",
        None,
        {},
        _lower,
        targets="none",
        min_targets=0,
        max_targets=0,
        check=_check_lower,
        help="lower one's Block (free)",
    ),
    ActionSpec(
        "incant",
        None,
        {"action": 1},
        _incant,
        targets="none",
        min_targets=0,
        max_targets=0,
        check=_check_incant,
        help="Action phase: begin incanting (card=NAME: the one meant, checked for Range)",
    ),
    ActionSpec(
        "play",
        None,
        {"action": 1},
        _play,
        targets="any",
        min_targets=0,
        max_targets=1,
        check=_check_play,
        help="play card=NAME (a target; section=S for an area; to=S for a Move card)",
    ),
)
SPECS = {spec.name: spec for spec in ACTIONS}  # by name: the same actions whatever the state
