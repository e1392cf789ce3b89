"""Triptycho's own events (cards drawn, played and discarded; blocks; incantation charges;
climbs) and their folds. A card drawn is private to its owner (`private_to`)."""

from __future__ import annotations

from msgspec.structs import replace

from combatlog.engine.rules.triptycho.model import Block, Climb, DistantBlock, own
from combatlog.engine.typed import put_row
from combatlog.events import Event
from combatlog.projections import Encounter
from combatlog.projections.fold import register_fold
from combatlog.projections.phases import LIVE, allow


class DeckShuffled(Event, frozen=True, tag="triptycho.DeckShuffled"):
    """An entity's draw pile made (or made again from its discards), in deck order; draws pick from it."""

    combatant: str
    pile: tuple[str, ...]


class CardDrawn(Event, frozen=True, tag="triptycho.CardDrawn"):
    """A card drawn into a hand: only its owner's side (and the game master) sees which."""

    combatant: str
    card: str
    private_to: str | None = None

    def redacted(self) -> CardDrawn:
        return replace(self, card="")


class CardPlayed(Event, frozen=True, tag="triptycho.CardPlayed"):
    """A card played from the hand (it goes to the discards)."""

    combatant: str
    card: str


class CardDiscarded(Event, frozen=True, tag="triptycho.CardDiscarded"):
    """A card discarded at the end of a turn."""

    combatant: str
    card: str


class BlockRaised(Event, frozen=True, tag="triptycho.BlockRaised"):
    """A Block on the border from the blocker's section toward `toward`."""

    combatant: str
    section: str
    toward: str


class BlockLowered(Event, frozen=True, tag="triptycho.BlockLowered"):
    combatant: str
    reason: str = ""


class DistantBlockRaised(Event, frozen=True, tag="triptycho.DistantBlockRaised"):
    """A Block at a distance on the border a|b, both ways, until the end of round `until`."""

    combatant: str
    a: str
    b: str
    until: int


class DistantBlockEnded(Event, frozen=True, tag="triptycho.DistantBlockEnded"):
    combatant: str
    a: str
    b: str


class IncantingChanged(Event, frozen=True, tag="triptycho.IncantingChanged"):
    """An entity begins (or stops) incanting; `enemy_in_section`: an enemy stood in its section
    as it began (version 2: no Range incantation on the charges this incantation builds)."""

    combatant: str
    incanting: bool
    reason: str = ""
    enemy_in_section: bool = False


class ChargesChanged(Event, frozen=True, tag="triptycho.ChargesChanged"):
    """An entity's incantation charges now; `at_start`: gained at the start of its turn."""

    combatant: str
    charges: int
    reason: str = ""
    at_start: bool = False
    round: int = 0


class ClimbChanged(Event, frozen=True, tag="triptycho.ClimbChanged"):
    """A climb toward `toward` with `done` of the height behind; `toward` None: no longer climbing."""

    combatant: str
    toward: str | None = None
    done: int = 0


EVENTS = (
    DeckShuffled,
    CardDrawn,
    CardPlayed,
    CardDiscarded,
    BlockRaised,
    BlockLowered,
    DistantBlockRaised,
    DistantBlockEnded,
    IncantingChanged,
    ChargesChanged,
    ClimbChanged,
)

allow("triptycho.DeckShuffled", "*")  # the starting hands are dealt as the fight begins
allow("triptycho.CardDrawn", "*")
for _name in (
    "CardPlayed",
    "CardDiscarded",
    "BlockRaised",
    "BlockLowered",
    "DistantBlockRaised",
    "DistantBlockEnded",
    "IncantingChanged",
    "ChargesChanged",
    "ClimbChanged",
):
    allow(f"triptycho.{_name}", LIVE)


@register_fold(DeckShuffled)
def _shuffled(state: Encounter, e: DeckShuffled) -> Encounter:
    state = put_row(state, "piles", e.combatant, e.pile)
    return put_row(state, "discards", e.combatant, None)


@register_fold(CardDrawn)
def _drawn(state: Encounter, e: CardDrawn) -> Encounter:
    mine = own(state)
    pile = list(mine.piles.get(e.combatant, ()))
    if e.card in pile:
        pile.remove(e.card)
    state = put_row(state, "piles", e.combatant, tuple(pile))
    return put_row(state, "hands", e.combatant, (*own(state).hands.get(e.combatant, ()), e.card))


def _from_hand(state: Encounter, cid: str, card: str) -> Encounter:
    hand = list(own(state).hands.get(cid, ()))
    if card in hand:
        hand.remove(card)
    state = put_row(state, "hands", cid, tuple(hand))
    return put_row(state, "discards", cid, (*own(state).discards.get(cid, ()), card))


@register_fold(CardPlayed)
def _played(state: Encounter, e: CardPlayed) -> Encounter:
    return _from_hand(state, e.combatant, e.card)


@register_fold(CardDiscarded)
def _discarded(state: Encounter, e: CardDiscarded) -> Encounter:
    return _from_hand(state, e.combatant, e.card)


@register_fold(BlockRaised)
def _block(state: Encounter, e: BlockRaised) -> Encounter:
    return put_row(state, "blocks", e.combatant, Block(e.section, e.toward))


@register_fold(BlockLowered)
def _lowered(state: Encounter, e: BlockLowered) -> Encounter:
    return put_row(state, "blocks", e.combatant, None)


@register_fold(DistantBlockRaised)
def _distant(state: Encounter, e: DistantBlockRaised) -> Encounter:
    mine = own(state)
    block = DistantBlock(owner=e.combatant, a=e.a, b=e.b, until=e.until)
    return replace(state, extra=replace(mine, distant=(*mine.distant, block)))


@register_fold(DistantBlockEnded)
def _distant_ended(state: Encounter, e: DistantBlockEnded) -> Encounter:
    mine = own(state)
    left = tuple(d for d in mine.distant if (d.owner, d.a, d.b) != (e.combatant, e.a, e.b))
    return replace(state, extra=replace(mine, distant=left))


@register_fold(IncantingChanged)
def _incanting(state: Encounter, e: IncantingChanged) -> Encounter:
    mine = own(state)
    cid = e.combatant
    rest = tuple(c for c in mine.incanting if c != cid)
    if not e.incanting:
        return replace(state, extra=replace(mine, incanting=rest))
    # beginning again with charges held goes on with the same incantation, which stays barred
    # if it was; beginning with none starts a new one, barred only by an enemy alongside now
    barred = e.enemy_in_section or (cid in mine.barred and mine.charges.get(cid, 0) > 0)
    if barred != (cid in mine.barred):
        others = tuple(c for c in mine.barred if c != cid)
        return replace(state, extra=replace(mine, incanting=(*rest, cid), barred=(*others, cid) if barred else others))
    return replace(state, extra=replace(mine, incanting=(*rest, cid)))


@register_fold(ChargesChanged)
def _charges(state: Encounter, e: ChargesChanged) -> Encounter:
    state = put_row(state, "charges", e.combatant, e.charges or None)
    return put_row(state, "charged_at", e.combatant, e.round if e.at_start else None)


@register_fold(ClimbChanged)
def _climb(state: Encounter, e: ClimbChanged) -> Encounter:
    return put_row(state, "climbing", e.combatant, None if e.toward is None else Climb(e.toward, e.done))
