"""Starflight's own events (the composite strength index, ranges, placement, targets, marching
order, shields, waiting for the game master, Simple Combat) and their folds."""

from __future__ import annotations

from combatlog.engine.rules.starflight.model import Goal, number_text, own, replace
from combatlog.engine.typed import put_row
from combatlog.events import Event
from combatlog.projections import Encounter
from combatlog.projections.fold import register_fold
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
    mine = own(state)
    first = mine.csi_initial if mine.csi_initial is not None else dict(e.csi)
    return replace(state, extra=replace(mine, csi=dict(e.csi), csi_initial=first))


@register_fold(RangeSet)
def _fold_range(state: Encounter, e: RangeSet) -> Encounter:
    return put_row(state, "ranges", e.combatant, e.range)


@register_fold(Placed)
def _fold_placed(state: Encounter, e: Placed) -> Encounter:
    c = state.combatant(e.combatant)
    combatants = dict(state.combatants)
    combatants[c.id] = replace(c, position=f"{number_text(e.x)},{number_text(e.y)}")
    state = replace(state, combatants=combatants)
    return put_row(state, "facing", c.id, e.facing)


@register_fold(TargetChosen)
def _fold_target(state: Encounter, e: TargetChosen) -> Encounter:
    return put_row(state, "targeted", f"{e.actor}>{e.target}", e.round)


@register_fold(MarchingOrder)
def _fold_marching(state: Encounter, e: MarchingOrder) -> Encounter:
    return put_row(state, "marching", e.side, tuple(e.order))


@register_fold(ShieldsSet)
def _fold_shields(state: Encounter, e: ShieldsSet) -> Encounter:
    return put_row(state, "shields", e.combatant, e.shields)


@register_fold(Awaiting)
def _fold_awaiting(state: Encounter, e: Awaiting) -> Encounter:
    return replace(state, extra=replace(own(state), awaiting=e.topic))


@register_fold(SimpleCombatStarted)
def _fold_simple(state: Encounter, e: SimpleCombatStarted) -> Encounter:
    return replace(state, extra=replace(own(state), groups={k: tuple(v) for k, v in e.groups.items()}))


@register_fold(GroupsRanked)
def _fold_ranked(state: Encounter, e: GroupsRanked) -> Encounter:
    return replace(state, extra=replace(own(state), results=dict(e.results)))


@register_fold(HitsTaken)
def _fold_hits(state: Encounter, e: HitsTaken) -> Encounter:
    return put_row(state, "hits", e.combatant, own(state).hits.get(e.combatant, 0) + e.hits)


@register_fold(GoalEvent)
def _fold_goal(state: Encounter, e: GoalEvent) -> Encounter:
    goal = own(state).goals.get(e.group, Goal())
    if e.what == "bonus":
        goal = replace(goal, bonus=goal.bonus + 1, choice_due=False)
    elif e.what == "choice due":
        goal = replace(goal, choice_due=True)
    elif e.what == "secondary":
        goal = replace(goal, secondary=True, choice_due=False)
    elif e.what == "primary":
        goal = replace(goal, primary=True)
    elif e.what == "primary lost":
        goal = replace(goal, primary_lost=True)
    return put_row(state, "goals", e.group, goal)
