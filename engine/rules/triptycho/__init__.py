"""`triptycho`: Triptycho's combat (Player's Guide chapter 4) — a battle map of sections and
turns of card phases (draw, Move, Strategy phase, Action phase, discard). The readings of
the text, and what is an input, are in `docs/rules/triptycho.md`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from msgspec.structs import replace

from combatlog.engine.battlemap import Map
from combatlog.engine.dicetree import excerpt
from combatlog.engine.errors import Refused
from combatlog.engine.order import RankedOrder
from combatlog.engine.protocol import ActionSpec, BoardView, Draft, Order, RuleSystem
from combatlog.engine.rules.triptycho.actions import ACTIONS, SPECS, charged_play
from combatlog.engine.rules.triptycho.events import (
    EVENTS,
    BlockLowered,
    CardDiscarded,
    CardDrawn,
    ChargesChanged,
    ClimbChanged,
    DeckShuffled,
    DistantBlockEnded,
    IncantingChanged,
)
from combatlog.engine.rules.triptycho.model import (
    Options,
    State,
    Stats,
    bears,
    own,
)
from combatlog.engine.rules.triptycho.movement import DOWN_BLOCKERS, fall
from combatlog.engine.rules.triptycho.policy import policy
from combatlog.engine.rules.triptycho.telling import describe, narrate, summary
from combatlog.engine.timing import Timing, make_timing
from combatlog.events import CombatantDefeated, Command, InitiativeRolled, Moved, OrderSet
from combatlog.projections import Combatant, Encounter, Pending

TURN = (
    "draw",
    "strategy",
    "action",
    "discard",
)  # a turn's card phases; the Move goes anywhere between draw and discard
BUDGET = {"move": 1, "strategy": 1, "action": 1}  # what a turn may spend: its Move, Strategy and Action phases


class TriptychoOrder(RankedOrder):
    """Turn order (not in the chapter): alternating (PCs and adversaries in turn, each in the
    file's order, PCs first), listed (the file's order), or rolled (1d20, ties rolled off)."""

    name = "triptycho"

    def __init__(self, how: str) -> None:
        super().__init__(ties=("rolloff:1d20",))
        self.how = how

    def roll(self, draft: Draft) -> None:
        state = draft.state
        if self.how == "rolled":
            super().roll(draft)
            return
        listed = [c.id for c in state.active()]
        if self.how == "alternating":
            pcs = [c.id for c in state.active() if c.kind == "pc"]
            others = [c.id for c in state.active() if c.kind != "pc"]
            listed = [cid for pair in zip(pcs, others) for cid in pair]
            longer = pcs if len(pcs) > len(others) else others
            listed += longer[min(len(pcs), len(others)) :]
        for i, cid in enumerate(listed):  # the place in the order, as an initiative (highest first)
            draft.emit(InitiativeRolled(combatants=(cid,), value=len(listed) - i))
        draft.emit(OrderSet(tiers=tuple((cid,) for cid in listed), reason=f"{self.how} order"))


_ORDERS: dict[str, TriptychoOrder] = {}
_COSTS = tuple((spec, tuple(spec.cost.items())) for spec in ACTIONS)  # what each action costs, with no params
_PLAY, _LOWER = SPECS["play"], SPECS["lower"]
assert ACTIONS[-1] is _PLAY
_TURN = make_timing("turn")


def _payable(state: Encounter, actor: Combatant) -> Iterator[ActionSpec]:
    """The actions `actor` can pay for at their specs' own costs (`RuleSystem.affordable`'s,
    with no params), in order, without a frame a cost: asked after every action and at every
    turn's start. Lowering a Block needs one."""
    have = actor.resources.get
    blocks = own(state).blocks
    for spec, cost in _COSTS:
        for k, v in cost:
            if have(k, 0) < v:
                break
        else:
            if spec is not _LOWER or actor.id in blocks:
                yield spec


class Triptycho(RuleSystem):
    """Triptycho (see `docs/rules/triptycho.md`)."""

    name = "triptycho"
    # 2: an unknown parameter is refused; a Range incantation is checked for enemies as the
    # incantation begins, however it began; a large entity's light is read in the section an
    # area attack names; a Block is lowered as its blocker becomes Immobilized or Defenseless;
    # a card played at a target gone before it resolves is lost, in the core's words; the
    # automatic entity never moves down a drop (a fall) while it may stay
    # 3: the starting hands are dealt as the fight's first round starts, the surprise round
    # too, to each entity not dealt yet, whoever moved before; a large attacker strikes in
    # melee in any of its sections, and its light is read in the section the attack occurs in
    version = "3"
    params_since = 2
    events = EVENTS
    stats_type = Stats
    options_type = Options
    state_type = State
    commands = {"acrobatics": "an opposed Acrobatics roll the game master calls for: acrobatics ACTOR [REASON...]"}
    command_words = {"acrobatics": ("actor", "...reason")}

    def options(self, given: dict[str, Any]) -> dict[str, Any]:
        if "map" not in given:
            raise Refused("options", "Triptycho is played on a battle map", "add a [map] table with [[map.sections]]")
        out = super().options(given)
        Map.load(out["map"])  # its sections and borders checked as a map too (ends, heights)
        return out

    def check_added(self, state: Encounter, stats: Stats, who: str) -> None:
        typed = stats
        opts = state.options
        board = opts.board
        for part in typed.section.split("+"):
            if part not in board.sections:
                sections = ", ".join(board.sections)
                raise Refused(f"combatant {who}: $.section", f"no section {part!r} on the map", sections)
        dice: list[tuple[str, str | None]] = [("miss", typed.miss), ("acrobatics", typed.acrobatics)]
        for i, card in enumerate(typed.deck):
            dice += [(f"deck[{i}].hit", card.hit), (f"deck[{i}].damage", card.damage)]
        for where, die in dice:
            if die is not None and die not in opts.ladder:
                raise Refused(f"combatant {who}: $.{where}", f"{die} isn't on the dice ladder", " ".join(opts.ladder))

    def order(self, options: Options) -> Order:
        how = options.order
        order = _ORDERS.get(how)
        if order is None:  # one of each kind: configuration, never changed, asked a few times a step
            order = _ORDERS[how] = TriptychoOrder(how)
        return order

    def timing(self, options: Options) -> Timing:
        return _TURN

    def surprise(self, state: Encounter, sides: tuple[str, ...]) -> tuple[str, ...]:
        # version 3, the general procedure the chapter leaves surprise to: "Both are surprised in
        # this case, and so the surprise rounds cancel each other out, and combat proceeds to
        # normal rounds"; version 2 played an empty surprise round
        if RuleSystem.since(state, 3) and set(sides) >= set(state.sides()):
            return ()
        return tuple(sides)

    def initiative(self, draft: Draft, combatant: Combatant, ids: tuple[str, ...]) -> int:
        return draft.roll("1d20", "turn order", by=combatant.id).total

    def budget(self, state: Encounter, combatant: Combatant) -> dict[str, int]:
        return dict(BUDGET)

    def actions(self, state: Encounter, actor: Combatant) -> list[ActionSpec]:
        return list(ACTIONS)

    def action(self, state: Encounter, actor: Combatant, name: str) -> ActionSpec:
        spec = SPECS.get(name)  # the same actions whatever the state: one look-up, asked twice a step
        return spec if spec is not None else super().action(state, actor, name)

    def cost(self, state: Encounter, actor: Combatant, spec: ActionSpec, params: dict[str, Any]) -> dict[str, int]:
        if spec.name == "play":
            name = params.get("card")
            if isinstance(name, str):
                card = actor.stats.cards.get(name)
                if card is not None:
                    if charged_play(state, actor, card):
                        return {}
                    return {card.phase: 1}
        return dict(spec.cost)

    def affordable(self, state: Encounter, actor: Combatant) -> list[ActionSpec]:
        out = list(_payable(state, actor))
        mine = own(state)
        if (not out or out[-1] is not _PLAY) and mine.charged_at.get(actor.id) == state.round:
            # an Incantation card on this turn's charges costs no phase (`charged_play`);
            # "play" is the last action, so it goes where the spec list has it
            cards = actor.stats.cards
            if any(cards[n].incantation is not None for n in mine.hands.get(actor.id, ())):
                out.append(_PLAY)
        return out

    def idle(self, state: Encounter, combatant: Combatant) -> bool:
        # `not self.affordable(...)`, stopping at the first action it can pay for (at a turn's
        # start, the first: its Move)
        for _ in _payable(state, combatant):
            return False
        return not self.affordable(state, combatant)  # nothing paid for, unless on this turn's charges

    # --- the turn's card phases --------------------------------------------------------

    def round_started(self, draft: Draft) -> None:
        state = draft.state
        if self.since(state, 3):
            # version 3: each entity not dealt yet takes its place (unless the game master
            # placed it) and is dealt its starting hand as a round starts: the first round,
            # the surprise round if there is one, so a move in it never stops the deal
            piles = own(state).piles
            for c in state.active():
                if c.id not in piles:
                    self._deal(draft, c, place=not c.position)
            return
        # version 2 and before: round 1 only, and only while no one has a position, so a move
        # in the surprise round (or a placing before it) meant no one was ever dealt a card
        if state.round != 1 or any(c.position for c in state.active()):
            return
        for c in state.active():
            self._deal(draft, c, place=True)

    def _deal(self, draft: Draft, c: Combatant, place: bool) -> None:
        """Take `c`'s position (if `place`), shuffle its deck and deal its starting hand."""
        board = draft.state.options.board
        for part in c.stats.section.split("+"):
            if part not in board.sections:
                raise Refused(f"combatant {c.id}: section {part!r}", "not on the map", ", ".join(board.sections))
        if place:
            draft.emit(Moved(combatant=c.id, to=c.stats.section))
        draft.emit(DeckShuffled(combatant=c.id, pile=tuple(card.name for card in c.stats.deck)))
        for _ in range(draft.state.options.starting_hand):
            self._draw(draft, c.id)

    def turn_started(self, draft: Draft, actors: tuple[str, ...]) -> None:
        for cid in actors:
            mine = own(draft.state)
            if cid in mine.incanting:  # still incanting: a charge, and the incanting is spent
                charges = mine.charges.get(cid, 0) + 1
                draft.emit(IncantingChanged(combatant=cid, incanting=False))
                draft.emit(
                    ChargesChanged(
                        combatant=cid, charges=charges, reason="incanted", at_start=True, round=draft.state.round
                    )
                )
            self._draw(draft, cid)

    def _draw(self, draft: Draft, cid: str) -> None:
        mine = own(draft.state)
        pile = mine.piles.get(cid, ())
        if not pile:
            back = mine.discards.get(cid, ())
            if not back:
                return  # nothing left to draw
            order = draft.state.combatants[cid].stats.deck_order  # each name's first place in the deck
            pile = tuple(sorted(back, key=order.__getitem__))
            draft.emit(DeckShuffled(combatant=cid, pile=pile))
        pick = draft.roll(f"1d{len(pile)}", "draws a card", by=cid, private=True).total if len(pile) > 1 else 1
        draft.emit(CardDrawn(combatant=cid, card=pile[pick - 1], private_to=cid))

    def turn_ending(self, draft: Draft, actors: tuple[str, ...], params: dict[str, Any]) -> None:
        for cid in actors:
            mine = own(draft.state)
            if mine.charges.get(cid) and cid not in mine.incanting:
                draft.emit(ChargesChanged(combatant=cid, charges=0, reason="not incanting again by the turn's end"))
            hand = own(draft.state).hands.get(cid, ())
            if hand and draft.state.combatants[cid].active:
                chosen = params.get("discard")
                card = chosen if isinstance(chosen, str) and chosen in hand else hand[0]
                draft.emit(CardDiscarded(combatant=cid, card=card))

    def round_ended(self, draft: Draft) -> None:
        state = draft.state
        for d in own(state).distant:
            if d.until <= state.round:
                draft.emit(DistantBlockEnded(combatant=d.owner, a=d.a, b=d.b))
        for cid in sorted(own(state).blocks):
            c = state.combatants[cid]
            if not c.active or any(bears(state, c, x) for x in DOWN_BLOCKERS):
                draft.emit(BlockLowered(combatant=cid, reason="immobilized, defenseless or down"))

    def after_condition(self, draft: Draft, target: str, condition: str) -> None:
        # version 2: "Blocks are automatically lowered if an entity becomes Immobilized or
        # Defenseless", as it does, whatever the case of the name given; version 1 lowered them
        # as the round ended
        if target in own(draft.state).blocks and self.since(draft.state, 2):
            name = condition.casefold()
            if name in DOWN_BLOCKERS:
                draft.emit(BlockLowered(combatant=target, reason=name))

    def target_gone(self, draft: Draft, pending: Pending, target: Combatant) -> str | None:
        if self.since(draft.state, 2):
            return super().target_gone(draft, pending, target)
        return None  # version 1 played the card all the same

    def after_damage(self, draft: Draft, target: str) -> None:
        c = draft.state.combatants[target]
        mine = own(draft.state)
        if target in mine.incanting:
            draft.emit(IncantingChanged(combatant=target, incanting=False, reason="hurt"))
        if mine.charges.get(target):
            draft.emit(ChargesChanged(combatant=target, charges=0, reason="hurt"))
        if c.defeated is None and c.damage >= c.stats.hp:
            draft.emit(CombatantDefeated(combatant=target, how="down"))
            if target in own(draft.state).blocks:
                draft.emit(BlockLowered(combatant=target, reason="down"))
            return
        climbing = own(draft.state).climbing.get(target)
        if climbing is not None:  # hurt while climbing: hold on, or fall
            mine_roll = draft.roll(f"1{c.stats.acrobatics}", "holding on, hurt while climbing", by=target)
            gm = draft.roll(f"1{draft.state.options.gm_acrobatics}", "the game master's Acrobatics")
            if mine_roll.total < gm.total:
                draft.emit(ClimbChanged(combatant=target))
                if climbing.done:
                    fall(draft, target, climbing.done)

    def command(self, draft: Draft, command: Command) -> None:
        if command.kind != "acrobatics":
            super().command(draft, command)
            return
        actor = draft.state.combatants.get(command.actor or "")
        if actor is None:
            raise Refused("acrobatics", "name the entity: acrobatics ACTOR", ", ".join(draft.state.combatants))
        reason = str(command.params.get("reason", "")) or "the terrain"
        mine = draft.roll(f"1{actor.stats.acrobatics}", f"Acrobatics: {reason}", by=actor.id)
        gm = draft.roll(f"1{draft.state.options.gm_acrobatics}", "the game master's Acrobatics")
        from combatlog.events import GmRuling

        won = mine.total >= gm.total
        draft.emit(
            GmRuling(
                topic="acrobatics",
                decision="succeeds" if won else "fails",
                text=f"{actor.name}, {reason}: {mine.total} against {gm.total} (a tie succeeds); "
                + ("" if won else "the game master rules what failing costs"),
            )
        )

    # --- views ------------------------------------------------------------------------

    def seen_by(self, state: Encounter, viewer: Any) -> Encounter:
        """Hands are private: another side sees how many cards, not which (an empty name each)."""
        if viewer.gm:
            return state
        mine = own(state)
        hands = {
            cid: cards if viewer.may_see(cid, lambda x: state.combatants[x].side) else ("",) * len(cards)
            for cid, cards in mine.hands.items()
        }
        piles = {cid: ("",) * len(cards) for cid, cards in mine.piles.items()}  # no one sees a pile's order
        # another's deck is in its stats, which the views give only to the game master and its seat
        return replace(state, extra=replace(mine, hands=hands, piles=piles))

    def board(self, state: Encounter) -> BoardView | None:
        spec = state.options.board.spec
        return BoardView(kind="sections", sections=tuple(spec.sections), borders=tuple(spec.borders))

    def move_to(self, state: Encounter, actor: Combatant, place: str) -> Command | None:
        return Command(kind="act", actor=actor.id, action="move", params={"to": place})

    def place_of(self, state: Encounter, c: Combatant) -> str | None:
        return c.position or c.stats.section  # where it stands, or where the file placed it

    def place_problem(self, state: Encounter, to: str) -> str | None:
        # a section of the map, or sections joined by '+' (a large entity's)
        sections = state.options.board.sections
        unknown = [part for part in to.split("+") if part not in sections]
        if unknown:
            return f"no section {excerpt(unknown[0])} on the map (sections: {', '.join(sections)})"
        return None

    def health(self, state: Encounter, c: Combatant) -> tuple[int, int] | None:
        hp = c.stats.hp
        return (max(hp - c.damage, 0), hp)

    # how it tells a fight (telling.py): the functions themselves, bound as the methods
    summary = summary
    narrate = narrate
    describe = describe

    def policy(self, state: Encounter, actor: Combatant) -> Command:
        return policy(self, state, actor)


TRIPTYCHO = Triptycho()
