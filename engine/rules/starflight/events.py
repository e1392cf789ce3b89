"""Starflight's own events (the composite strength index, ranges, placement, targets, marching
order, shields, waiting for the game master, Simple Combat) and their folds."""

from __future__ import annotations

from combatlog.engine.rules.starflight.model import _num, replace
from combatlog.events import Event
from combatlog.projections import Encounter
from combatlog.projections.fold import put_extra, register_fold
from combatlog.projections.phases import INITIATIVE, LIVE, SETUP, SURPRISE, allow


class StrengthTotalled(Event, frozen=True):
    """Each side's composite strength index (the sum of its active combatants' strength)."""

    csi: dict[str, int]
    reason: str = ""


class RangeSet(Event, frozen=True):
    """Without a grid: a combatant's range to its target, rolled for the round or given."""

    combatant: str
    range: int
    how: str = "rolled"


class Placed(Event, frozen=True):
    """On a grid: where a combatant stands (increments from the centre) and which way it faces (1-8)."""

    combatant: str
    x: float
    y: float
    facing: int | None = None
    how: str = "given"


class TargetChosen(Event, frozen=True):
    """A combatant attacked a target this round (the target may answer at the attacker's range)."""

    actor: str
    target: str
    round: int


class MarchingOrder(Event, frozen=True):
    """A side's marching order (formation), front to back."""

    side: str
    order: tuple[str, ...]


class ShieldsSet(Event, frozen=True):
    """A combatant's shields now stand at `shields` points."""

    combatant: str
    shields: int
    reason: str = ""


class Awaiting(Event, frozen=True):
    """The fight waits for the game master (a ruling or a choice); None: it goes on."""

    topic: str | None = None


class SimpleCombatStarted(Event, frozen=True):
    """Simple Combat: the groups that roll, and who is in each."""

    groups: dict[str, tuple[str, ...]]


class GroupsRanked(Event, frozen=True):
    """Simple Combat: each group's result (natural 2d10 + modifiers) and the losses it gives."""

    results: dict[str, int]
    modifiers: dict[str, int]
    losses: dict[str, int]


class HitsTaken(Event, frozen=True):
    """Simple Combat: a PC took hits (one per hostile group that rolled higher)."""

    combatant: str
    hits: int


class GoalEvent(Event, frozen=True):
    """Simple Combat goals: primary reached, primary lost, a choice due, or the choice made."""

    group: str
    what: str  # primary | primary lost | choice due | secondary | bonus
    roll: int | None = None


EVENTS = (
    StrengthTotalled,
    RangeSet,
    Placed,
    TargetChosen,
    MarchingOrder,
    ShieldsSet,
    Awaiting,
    SimpleCombatStarted,
    GroupsRanked,
    HitsTaken,
    GoalEvent,
)


allow("SimpleCombatStarted", [SETUP, SURPRISE], INITIATIVE)


for _cls in EVENTS:
    allow(_cls.__name__, LIVE)


@register_fold(StrengthTotalled)
def _fold_csi(state: Encounter, e: StrengthTotalled) -> Encounter:
    extra = dict(state.extra)
    extra["csi"] = dict(e.csi)
    extra.setdefault("csi_initial", dict(e.csi))
    return replace(state, extra=extra)


@register_fold(RangeSet)
def _fold_range(state: Encounter, e: RangeSet) -> Encounter:
    return put_extra(state, "ranges", e.combatant, e.range)


@register_fold(Placed)
def _fold_placed(state: Encounter, e: Placed) -> Encounter:
    c = state.combatant(e.combatant)
    combatants = dict(state.combatants)
    combatants[c.id] = replace(c, position=f"{_num(e.x)},{_num(e.y)}")
    state = replace(state, combatants=combatants)
    return put_extra(state, "facing", c.id, e.facing)


@register_fold(TargetChosen)
def _fold_target(state: Encounter, e: TargetChosen) -> Encounter:
    return put_extra(state, "targeted", f"{e.actor}>{e.target}", e.round)


@register_fold(MarchingOrder)
def _fold_marching(state: Encounter, e: MarchingOrder) -> Encounter:
    return put_extra(state, "marching", e.side, list(e.order))


@register_fold(ShieldsSet)
def _fold_shields(state: Encounter, e: ShieldsSet) -> Encounter:
    return put_extra(state, "shields", e.combatant, e.shields)


@register_fold(Awaiting)
def _fold_awaiting(state: Encounter, e: Awaiting) -> Encounter:
    extra = dict(state.extra)
    if e.topic is None:
        extra.pop("awaiting", None)
    else:
        extra["awaiting"] = e.topic
    return replace(state, extra=extra)


@register_fold(SimpleCombatStarted)
def _fold_simple(state: Encounter, e: SimpleCombatStarted) -> Encounter:
    extra = dict(state.extra)
    extra["groups"] = {k: list(v) for k, v in e.groups.items()}
    return replace(state, extra=extra)


@register_fold(GroupsRanked)
def _fold_ranked(state: Encounter, e: GroupsRanked) -> Encounter:
    extra = dict(state.extra)
    extra["results"] = dict(e.results)
    return replace(state, extra=extra)


@register_fold(HitsTaken)
def _fold_hits(state: Encounter, e: HitsTaken) -> Encounter:
    return put_extra(state, "hits", e.combatant, int(state.extra.get("hits", {}).get(e.combatant, 0)) + e.hits)


@register_fold(GoalEvent)
def _fold_goal(state: Encounter, e: GoalEvent) -> Encounter:
    goals = dict(state.extra.get("goals", {}))
    mine = dict(goals.get(e.group, {}))
    if e.what == "bonus":
        mine["bonus"] = int(mine.get("bonus", 0)) + 1
    elif e.what == "choice due":
        mine["choice_due"] = True
    else:
        mine[e.what] = True
    if e.what in ("bonus", "secondary"):
        mine.pop("choice_due", None)
    goals[e.group] = mine
    extra = dict(state.extra)
    extra["goals"] = goals
    return replace(state, extra=extra)
