"""Infinite Realms' own events (engagement, distances, aim, bought defense, broken weapons,
bleeding, flight) and their folds."""

from __future__ import annotations

from combatlog.engine.rules.infinite_realms.model import Rush, own, replace
from combatlog.engine.typed import put_row
from combatlog.events import Event
from combatlog.projections import Encounter
from combatlog.projections.fold import register_fold
from combatlog.projections.phases import LIVE, allow


class RoundReset(Event, frozen=True):
    """A new round: each combatant's starting AP (and reach bonus given with it); defense bought, aim
    and attack kinds cleared."""

    start_ap: dict[str, int]
    given: dict[str, int] = {}


class Engaged(Event, frozen=True):
    """Two combatants close to fight; the AP each gains for its weapon's longer reach."""

    combatants: tuple[str, ...]
    bonus: dict[str, int] = {}


class Disengaged(Event, frozen=True):
    """Two combatants are no longer fighting each other."""

    combatants: tuple[str, ...]


class DistanceSet(Event, frozen=True):
    """The distance between two combatants, in yards."""

    a: str
    b: str
    yards: int
    how: str = "given"


class Aimed(Event, frozen=True):
    """A combatant's aim now stands at `aim` AP (+5 offense each); 0: lost or used."""

    combatant: str
    aim: int
    reason: str = ""


class DefenseBought(Event, frozen=True):
    """AP spent on defense at the start of the round (-2 defense % each, for the round)."""

    combatant: str
    ap: int


class Using(Event, frozen=True):
    """A combatant attacked with this kind of attack this round (its defense is the lowest of them)."""

    combatant: str
    kind: str


class WeaponBroken(Event, frozen=True):
    """A weapon broke."""

    combatant: str
    weapon: str


class BleedingStarted(Event, frozen=True):
    """Internal bleeding: 1 HP lost every 4 rounds until first aid."""

    combatant: str
    round: int


class Fled(Event, frozen=True):
    """A combatant moved away from an enemy this round (who may pursue)."""

    combatant: str
    enemy: str
    round: int


class Rushing(Event, frozen=True):
    """A combatant ran at another this round (who may answer with rapid fire)."""

    combatant: str
    target: str
    round: int


EVENTS = (
    RoundReset,
    Engaged,
    Disengaged,
    DistanceSet,
    Aimed,
    DefenseBought,
    Using,
    WeaponBroken,
    BleedingStarted,
    Fled,
    Rushing,
)


for _cls in EVENTS:
    allow(_cls.__name__, LIVE)


def pair(a: str, b: str) -> str:
    """The key of a pair of combatants (order doesn't matter)."""
    return f"{a}|{b}" if a < b else f"{b}|{a}"


@register_fold(RoundReset)
def _fold_reset(state: Encounter, e: RoundReset) -> Encounter:
    new = replace(
        own(state),
        defense_ap={},
        using={},
        aim={},
        reach_bonus={},
        reach_given=dict(e.given),
        start_ap=dict(e.start_ap),
    )
    return replace(state, extra=new)


@register_fold(Engaged)
def _fold_engaged(state: Encounter, e: Engaged) -> Encounter:
    mine = own(state)
    engaged = dict(mine.engaged)
    for a in e.combatants:
        others = set(engaged.get(a, ()))
        others.update(b for b in e.combatants if b != a)
        engaged[a] = tuple(sorted(others))
    distance = dict(mine.distance)
    for a in e.combatants:
        for b in e.combatants:
            if a < b:
                distance[pair(a, b)] = 0
    mine = replace(mine, engaged=engaged, distance=distance)
    if state.phase in ("setup", "surprise") and e.bonus:
        pending = dict(mine.reach_bonus)
        for cid, n in e.bonus.items():
            pending[cid] = max(pending.get(cid, 0), n)
        mine = replace(mine, reach_bonus=pending)  # engaged before the fight: added to the first round's AP
    elif e.bonus:
        given = dict(mine.reach_given)
        for cid, n in e.bonus.items():
            given[cid] = given.get(cid, 0) + n  # the bonus given this round, so far
        mine = replace(mine, reach_given=given)
    return replace(state, extra=mine)


@register_fold(Disengaged)
def _fold_disengaged(state: Encounter, e: Disengaged) -> Encounter:
    mine = own(state)
    engaged = dict(mine.engaged)
    for a in e.combatants:
        left = tuple(b for b in engaged.get(a, ()) if b not in e.combatants)
        if left:
            engaged[a] = left
        else:
            engaged.pop(a, None)
    return replace(state, extra=replace(mine, engaged=engaged))


@register_fold(DistanceSet)
def _fold_distance(state: Encounter, e: DistanceSet) -> Encounter:
    return put_row(state, "distance", pair(e.a, e.b), e.yards)


@register_fold(Aimed)
def _fold_aimed(state: Encounter, e: Aimed) -> Encounter:
    return put_row(state, "aim", e.combatant, e.aim or None)


@register_fold(DefenseBought)
def _fold_defense(state: Encounter, e: DefenseBought) -> Encounter:
    return put_row(state, "defense_ap", e.combatant, own(state).defense_ap.get(e.combatant, 0) + e.ap)


@register_fold(Using)
def _fold_using(state: Encounter, e: Using) -> Encounter:
    kinds = own(state).using.get(e.combatant, ())
    if e.kind not in kinds:
        kinds = (*kinds, e.kind)
    return put_row(state, "using", e.combatant, kinds)


@register_fold(WeaponBroken)
def _fold_broken(state: Encounter, e: WeaponBroken) -> Encounter:
    return put_row(state, "broken", e.combatant, (*own(state).broken.get(e.combatant, ()), e.weapon))


@register_fold(BleedingStarted)
def _fold_bleeding(state: Encounter, e: BleedingStarted) -> Encounter:
    return put_row(state, "bleeding", e.combatant, e.round)


@register_fold(Fled)
def _fold_fled(state: Encounter, e: Fled) -> Encounter:
    return put_row(state, "fled", f"{e.combatant}>{e.enemy}", e.round)


@register_fold(Rushing)
def _fold_rushing(state: Encounter, e: Rushing) -> Encounter:
    return put_row(state, "rushing", e.combatant, Rush(e.target, e.round))
