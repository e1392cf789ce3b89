"""What an entity can do on its turn: the free Move (or a climb, or a fall), a Block in the
Strategy phase, playing a card (an attack, a Move it grants, a Block at a distance), and
incanting in the Action phase (see `docs/rules/triptycho.md`)."""

from __future__ import annotations

from typing import Any

from combatlog.engine.battlemap import Step
from combatlog.engine.protocol import ActionParam, ActionSpec, Draft, RuleSystem
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
    bears,
    own,
    section_of,
    sections_of,
    stands_in,
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
    card = actor.stats.cards.get(name)
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
    board = state.options.board
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
        card = actor.stats.cards.get(str(name))
        if card is None or card.incantation is None:
            return f"{name!r} isn't an Incantation card of {actor.name}'s"
        if card.range is None:
            return None
        if RuleSystem.since(state, 2) and own(state).charges.get(actor.id, 0):
            # going on with the incantation held: its beginning decided, whoever stands here now
            if actor.id in own(state).barred:
                return (
                    f"{actor.name} began incanting with an enemy in the section: "
                    f"no Range incantation on these charges ({card.name} has Range)"
                )
            return None
        if enemy_in(state, actor, section_of(actor)):
            return "an enemy in the section: no Range incantation may begin"
    return None


def _check_play(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    card, why = card_of(state, actor, params)
    if card is None:
        return why
    why = card_problem(state, actor, card, params)
    if why is not None:
        return why
    if not aims(card):
        if "section" in params and RuleSystem.since(state, 2):  # version 1 let it go unread
            return f"{card.name} isn't an attack: section=SECTION names where an attack occurs"
        return None
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
        board = state.options.board
        if not isinstance(a, str) or not isinstance(b, str) or board.step(a, b) is None:
            return f"{card.name} blocks a border at a distance: a=SECTION b=SECTION (two that border)"
        return None
    return None  # no Hit die: an effect the game master applies


def aim(
    state: Encounter, actor: Combatant, card: Card, targets: tuple[str, ...], params: dict[str, Any]
) -> tuple[list[tuple[Combatant, tuple[Step, ...], str]], str | None]:
    """Whom an attack card hits, with the path each shot takes and the section the attack
    occurs in (where a large target's light is read); or why it can't be played."""
    ways = state.options.ways
    here = section_of(actor)
    if not card.ranged and not card.reach and RuleSystem.since(state, 3):
        here, why = _melee_from(state, actor, card, targets, params.get("section"))
        if why is not None:
            return [], why
    if card.range is not None and card.incantation is not None and RuleSystem.since(state, 2):
        # "only check for enemies in the occupied section when beginning the incantation"
        if actor.id in own(state).barred:
            return [], (
                f"{actor.name} began incanting with an enemy in the section: "
                "no Range incantation on these charges (Thrown and Reach can)"
            )
    elif card.range is not None and enemy_in(state, actor, here):
        charged = charged_play(state, actor, card) or (
            card.incantation is not None and own(state).charges.get(actor.id, 0) >= card.incantation
        )
        if not charged:
            return [], "an enemy in the section: a Range action can't be made (Thrown and Reach can)"
    if card.area is not None:
        section = params.get("section", here if not card.ranged and not card.reach else None)
        if targets and RuleSystem.since(state, 3):
            # version 3: "targets all entities in a section instead of a single entity": a target
            # named points at its section, and one the struck section doesn't hold is refused
            target = state.combatants[targets[0]]
            if "section" not in params and (card.ranged or card.reach):
                far = {s: ways.nearest(here, frozenset((s,))) for s in sections_of(target)}
                section = min(far, key=far.__getitem__)  # the nearest of its sections (the first of equals)
            if isinstance(section, str) and not stands_in(target, section):
                return [], (
                    f"{card.name} strikes everyone in {section}, and {target.name} stands in "
                    f"{', '.join(sections_of(target))}: name no target, or the section to strike (section=SECTION)"
                )
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
            hit.append((c, path, section))
        return hit, None
    if len(targets) != 1:
        return [], f"{card.name} takes one target"
    target = state.combatants[targets[0]]
    if RuleSystem.since(state, 2):
        there, path, why = _occurs_in(state, here, card, target, params.get("section"))
        if why is not None:
            return [], why
    else:  # version 1: a large target's first section, and section= unread
        there = section_of(target)
        path, why = _shot(state, here, there, card, target)
        if why is not None:
            return [], why
    assert path is not None
    chosen = params.get("intercepted_by")
    if chosen is not None:
        blocker = state.combatants.get(str(chosen))
        if blocker is None or not _may_intercept(state, blocker, path, card):
            return [], f"{chosen} holds no Block on a border this shot crosses, in its own section"
        return [(blocker, path, section_of(blocker))], None
    return [(target, path, there)], None


def _melee_from(
    state: Encounter, actor: Combatant, card: Card, targets: tuple[str, ...], named: Any
) -> tuple[str, str | None]:
    """The section a melee card is played in (version 3), or why it can't be: "Such Actions
    can only target entities in your occupied section", and a large attacker occupies each of
    its sections. The section named (section=), if it stands there; else the first of its
    sections its target stands in."""
    sections = sections_of(actor)
    if len(sections) == 1:  # most stand in one section: `aim` asks as ever
        return sections[0], None
    target = state.combatants.get(targets[0]) if len(targets) == 1 else None  # an area card's: where it points
    if named is not None:
        if isinstance(named, str) and named in sections:
            return named, None
        if target is not None and not (isinstance(named, str) and stands_in(target, named)):
            return sections[0], None  # `_occurs_in` says the target isn't there
        return sections[0], f"{card.name} is melee: it strikes in {' or '.join(sections)} only, not {named}"
    if target is not None:
        for s in sections:
            if stands_in(target, s):
                return s, None
        return sections[0], f"{card.name} is melee: {target.name} isn't in {' or '.join(sections)}"
    return sections[0], None


def _shot(
    state: Encounter, here: str, there: str, card: Card, target: Combatant
) -> tuple[tuple[Step, ...] | None, str | None]:
    """The path `card` takes from `here` to `target` in section `there`; or why it can't."""
    ways = state.options.ways
    if card.ranged and ways.board.sections[there].underwater:
        return None, f"{target.name} is underwater: ranged attacks can't reach"
    path = _path(ways, here, there, card)
    if path is None:
        if not card.ranged and not card.reach:
            return None, f"{card.name} is melee: {target.name} isn't in {here}"
        return None, _out_of_reach(state, here, there, card, target.name)
    return path, None


def _occurs_in(
    state: Encounter, here: str, card: Card, target: Combatant, named: Any
) -> tuple[str, tuple[Step, ...] | None, str | None]:
    """Where a single-target attack from `here` on `target` occurs, with the shot's path; or
    why it can't be made. A large target is attacked in one of its sections: `named` (the
    play's section=) if given, else the nearest the card reaches (the first listed of equals);
    a melee attack, in the attacker's own section."""
    sections = sections_of(target)
    if named is not None:
        if not isinstance(named, str) or named not in sections:
            return "", None, f"{target.name} isn't in {named} (it stands in {', '.join(sections)}): section=SECTION"
        if named != here and not card.ranged and not card.reach:
            return "", None, f"{card.name} is melee: it strikes in {here} only, not {named}"
        sections = (named,)
    elif len(sections) > 1:
        ways = state.options.ways
        far = {s: ways.nearest(here, frozenset((s,))) for s in sections}  # 99: unreachable
        sections = tuple(sorted(sections, key=far.__getitem__))  # stable: the first listed of equals
    first_why: str | None = None
    for there in sections:
        path, why = _shot(state, here, there, card, target)
        if why is None:
            return there, path, None
        first_why = first_why or why
    return "", None, first_why


def _out_of_reach(state: Encounter, here: str, there: str, card: Card, who: str) -> str:
    """Why a shot from `here` can't reach `there`: too far, too high or low, or hidden."""
    board = state.options.board
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
    state = draft.state
    actor = state.combatants[p.actor]
    # version 2: an enemy alongside as the incantation begins bars Range cards from its charges,
    # however it began (`card=NAME` refuses such a card at once). Incanting again with charges
    # held goes on with the same incantation: its beginning decided, whoever stands here now
    if RuleSystem.since(state, 2):
        held = own(state).charges.get(actor.id, 0)
        if held:
            draft.emit(IncantingChanged(combatant=p.actor, incanting=True))
            said = f"incants again, keeping {held} charge(s)"
            if actor.id in own(state).barred:
                return said + ": no Range incantation on them (begun with an enemy alongside)"
            return said
        if enemy_in(state, actor, section_of(actor)):
            draft.emit(IncantingChanged(combatant=p.actor, incanting=True, enemy_in_section=True))
            return "begins incanting, an enemy alongside: no Range incantation on these charges"
    draft.emit(IncantingChanged(combatant=p.actor, incanting=True))
    return "begins incanting"


def _play(draft: Draft, p: Pending) -> str:
    state = draft.state
    actor = state.combatants[p.actor]
    card = actor.stats.cards[str(p.params["card"])]
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
    # an attack occurs in the section `aim` found: an area attack's, whoever stands there; a
    # single-target attack's, one of its target's sections
    for target, path, where in aimed:
        said.append(attack(draft, actor, card, draft.state.combatants[target.id], path, where))
    if card.effect:
        said.append(card.effect)
    return "; ".join(said)


def attack(
    draft: Draft, actor: Combatant, card: Card, target: Combatant, path: tuple[Step, ...], occurs_in: str
) -> str:
    """The card's Hit die against the target's Miss die (a tie goes to the attacker), then Damage.
    `occurs_in`: the section the attack occurs in (`aim`'s)."""
    state = draft.state
    opts = state.options
    mine = own(state)
    if card.ranged and card.area is None:
        for d in mine.distant:
            if any({d.a, d.b} == {s.a, s.b} for s in path):
                return f"{target.name}: the shot crosses {d.a}|{d.b}, blocked from afar: a miss"
    # "If an entity occupies multiple sections with different illumination, only consider the
    # section in which the attack occurs": version 2 reads a large target's light (and whether
    # it can see there) in the section the attack occurs in; version 1 read its first section
    attacked_in = occurs_in if RuleSystem.since(state, 2) else None
    where = attacked_in or section_of(target)
    # version 3: a large attacker's too, where it stands in that section (its melee strikes
    # there); else, as before, its first section
    attacks_in = occurs_in if RuleSystem.since(state, 3) and stands_in(actor, occurs_in) else None
    hit_down, miss_down, why = 0, 0, []
    if not can_see(state, actor, target, where) or bears(state, actor, "debilitated") or actor.id in mine.climbing:
        hit_down += 1
        why.append("Debilitated")
    seen = can_see(state, target, actor, attacks_in)
    if not seen or bears(state, target, "vulnerable") or target.id in mine.climbing:
        miss_down += 1
        why.append("Vulnerable")
    if hindered(state, actor, attacks_in) or bears(state, actor, "hindered"):
        hit_down += opts.hindered in ("hit", "both")
        why.append(f"{actor.name} Hindered")
    if hindered(state, target, attacked_in) or bears(state, target, "hindered"):
        miss_down += opts.hindered in ("miss", "both")
        why.append(f"{target.name} Hindered")
    swims = card.weapon is not None and card.weapon not in SWIM_WEAPONS and swimming(state, actor)
    if swims:
        hit_down += 1
        why.append("swimming")
    if target.stats.armoured and swimming(state, target):
        miss_down += 1
        why.append(f"{target.name} swimming")
    assert card.hit is not None
    hit_die = step_die(opts.ladder, card.hit, -hit_down)
    miss_die = step_die(opts.ladder, target.stats.miss, -miss_down)
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


# --- parameters, and what a form offers for them ------------------------------------


def _hand(state: Encounter, actor: Combatant) -> tuple[str, ...]:
    return tuple(dict.fromkeys(own(state).hands.get(actor.id, ())))


def _incantations(state: Encounter, actor: Combatant) -> tuple[str, ...]:
    cards = actor.stats.cards
    return tuple(c for c in _hand(state, actor) if cards[c].incantation is not None)


def _sections(state: Encounter, actor: Combatant) -> tuple[str, ...]:
    return tuple(state.options.board.sections)


def _neighbours(state: Encounter, actor: Combatant) -> tuple[str, ...]:
    return tuple(state.options.board.neighbours(section_of(actor)))


def _blockers(state: Encounter, actor: Combatant) -> tuple[str, ...]:
    return tuple(sorted(own(state).blocks))


# every action may end the turn (nothing left to do), and the turn's end discards a card
DISCARD = ActionParam("discard", help="the card let go if this ends the turn (default: the oldest)", offered=_hand)
TO = ActionParam("to", help="the section moved to", offered=_sections)


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
        params=(TO, DISCARD),
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
        params=(ActionParam("to", help="the section climbed toward", offered=_sections), DISCARD),
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
        params=(DISCARD,),
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
        params=(
            ActionParam("toward", help="the adjacent section whose border is blocked", offered=_neighbours),
            DISCARD,
        ),
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
        params=(DISCARD,),
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
        params=(
            ActionParam("card", help="the Incantation card meant (Range is checked now)", offered=_incantations),
            DISCARD,
        ),
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
        help="play card=NAME (a target; section=S for an area, or a large target's; to=S for a Move card)",
        params=(
            ActionParam("card", help="the card played, from the hand", offered=_hand),
            ActionParam("section", help="the section attacked (an area's, or a large target's)", offered=_sections),
            ActionParam("to", help="where a Move card goes", offered=_sections),
            ActionParam("a", help="a border blocked from afar: one section", offered=_sections),
            ActionParam("b", help="a border blocked from afar: the other section", offered=_sections),
            ActionParam(
                "intercepted_by", help="who takes a shot, holding a Block on a border it crosses", offered=_blockers
            ),
            DISCARD,
        ),
    ),
)
SPECS = {spec.name: spec for spec in ACTIONS}  # by name: the same actions whatever the state
