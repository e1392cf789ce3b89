"""Swords of Infinity's own events (spirit spent, impairment, pins, dropped weapons, recovery,
turn marks, maintained spells, retreats) and their folds."""

from __future__ import annotations

from combatlog.engine.rules.swords_of_infinity.model import Offer, Pin, Turn, own, replace
from combatlog.engine.typed import put_row
from combatlog.events import Event
from combatlog.projections import Encounter
from combatlog.projections.fold import register_fold
from combatlog.projections.phases import LIVE, allow


class SpiritSpent(Event, frozen=True):
    """Spirit spent (to defend while Vulnerable, to escape a pin, after tiring resisted movement)."""

    combatant: str
    amount: int
    reason: str = ""


class Impairment(Event, frozen=True):
    """A damage target's penalty changes: `ignored` (Resist Impairment), `aided` (first aid) or `cleared`."""

    combatant: str
    target: str
    what: str
    level: int = 0


class Pinned(Event, frozen=True):
    """A pin on `combatant` by `by`, kept this round; `by` None: released."""

    combatant: str
    by: str | None = None
    round: int = 0


class WeaponDropped(Event, frozen=True):
    """A weapon leaves its holder's hand (`lands`: where, as the game master says); picked up: `back`."""

    combatant: str
    weapon: str
    lands: str = ""
    back: bool = False


class Recovered(Event, frozen=True):
    """Damage healed over a day of recovery, by damage target."""

    combatant: str
    healed: dict[str, int]


class TurnMark(Event, frozen=True):
    """Where a combatant stood when its turn began, and its last action (for charges and tiring moves)."""

    combatant: str
    start: str | None = None
    last: str | None = None


class Maintained(Event, frozen=True):
    """A spell kept up by its caster; `ended`: it stops."""

    combatant: str
    spell: str
    ended: bool = False


class Retreated(Event, frozen=True):
    """A retreating combatant took its 5-ft step this round."""

    combatant: str
    round: int


class RetaliationOffered(Event, frozen=True):
    """A mover came within the reach of an enemy holding a Retaliate (version 3): it stands
    there, and the fight waits for the enemy's choice (the fields of `model.Offer`)."""

    retaliator: str
    mover: str
    to: str
    origin: str = ""
    feet: int = 0
    through: bool = False
    defense: str | None = None
    asked: tuple[str, ...] = ()


class RetaliationChosen(Event, frozen=True):
    """The choice a waiting Retaliate's holder made: `attack` the mover (`outcome`: what the
    attack did), or `hold` it for another enemy; the mover's move goes on after it."""

    retaliator: str
    mover: str
    choice: str
    outcome: str = ""


EVENTS = (
    SpiritSpent,
    Impairment,
    Pinned,
    WeaponDropped,
    Recovered,
    TurnMark,
    Maintained,
    Retreated,
    RetaliationOffered,
    RetaliationChosen,
)


allow("Recovered", "*")


for _cls in EVENTS:
    allow(_cls.__name__, LIVE)


@register_fold(SpiritSpent)
def _fold_spirit(state: Encounter, e: SpiritSpent) -> Encounter:
    return put_row(state, "spirit_spent", e.combatant, own(state).spirit_spent.get(e.combatant, 0) + e.amount)


@register_fold(Impairment)
def _fold_impairment(state: Encounter, e: Impairment) -> Encounter:
    mine = dict(own(state).impairment.get(e.combatant, {}))
    entry = dict(mine.get(e.target, {}))
    if e.what == "cleared":  # hurt again: Resist Impairment and first aid no longer hold
        entry.pop("ignored", None)
        entry.pop("aided", None)
    else:
        entry[e.what] = e.level
    mine[e.target] = entry
    return put_row(state, "impairment", e.combatant, mine)


@register_fold(Pinned)
def _fold_pinned(state: Encounter, e: Pinned) -> Encounter:
    return put_row(state, "pins", e.combatant, None if e.by is None else Pin(e.by, e.round))


@register_fold(WeaponDropped)
def _fold_dropped(state: Encounter, e: WeaponDropped) -> Encounter:
    dropped = own(state).dropped.get(e.combatant, ())
    if e.back:
        dropped = tuple(w for w in dropped if w != e.weapon)
    elif e.weapon not in dropped:
        dropped = (*dropped, e.weapon)
    return put_row(state, "dropped", e.combatant, dropped or None)


@register_fold(Recovered)
def _fold_recovered(state: Encounter, e: Recovered) -> Encounter:
    c = state.combatant(e.combatant)
    wounds = dict(c.wounds)
    total = 0
    for where, n in e.healed.items():
        take = min(n, wounds.get(where, 0))
        wounds[where] = wounds.get(where, 0) - take
        total += take
    wounds = {k: v for k, v in wounds.items() if v > 0}
    combatants = dict(state.combatants)
    combatants[c.id] = replace(c, wounds=wounds, damage=c.damage - total)
    return replace(state, combatants=combatants)


@register_fold(TurnMark)
def _fold_turnmark(state: Encounter, e: TurnMark) -> Encounter:
    old = own(state).turn.get(e.combatant)
    start, last = e.start, e.last  # one new row with both, rather than a copy for each (folded every action)
    if old is not None:
        if start is None:
            start = old.start
        if last is None:
            last = old.last
    return put_row(state, "turn", e.combatant, Turn(start=start, last=last))


@register_fold(Retreated)
def _fold_retreated(state: Encounter, e: Retreated) -> Encounter:
    return put_row(state, "retreated", e.combatant, e.round)


@register_fold(RetaliationOffered)
def _fold_offered(state: Encounter, e: RetaliationOffered) -> Encounter:
    offer = Offer(
        retaliator=e.retaliator,
        mover=e.mover,
        to=e.to,
        origin=e.origin,
        feet=e.feet,
        through=e.through,
        defense=e.defense,
        asked=e.asked,
    )
    return replace(state, extra=replace(own(state), offer=offer))


@register_fold(RetaliationChosen)
def _fold_chosen(state: Encounter, e: RetaliationChosen) -> Encounter:
    return replace(state, extra=replace(own(state), offer=None))


@register_fold(Maintained)
def _fold_maintained(state: Encounter, e: Maintained) -> Encounter:
    spells = tuple(s for s in own(state).maintained.get(e.combatant, ()) if s != e.spell)
    if not e.ended:
        spells = (*spells, e.spell)
    return put_row(state, "maintained", e.combatant, spells or None)
