"""The round and turn procedure every rule system shares: starting rounds, handing out
turns, resolving what was declared, releasing held damage, and the end check.

`Draft.advance()` and `Draft.next_round()` call into here, so a rule system's own command
that resumes the fight never imports `decide`. The order strategy says, through its flags
(`Order` in `combatlog.engine.protocol`), whether budgets refill at each turn or once a round
and whether a turn is one action; the timing strategy says when actions resolve.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from combatlog.engine.protocol import Draft
from combatlog.events import (
    ActionResolved,
    DamageApplied,
    EncounterEnded,
    HeldDamageReleased,
    PassStarted,
    ResolutionStarted,
    ResourcesSet,
    RoundEnded,
    RoundStarted,
    TurnEnded,
    TurnStarted,
)

if TYPE_CHECKING:
    from combatlog.projections import Combatant, Pending

# The one stall rule: this many whole rounds in which nothing can change the fight make it a
# draw. The engine applies it to rounds a single step runs through with no one able to act;
# the automatic policy (`Session.play_out`) to rounds in which no one was hurt.
STALL_ROUNDS = 10


def stall_outcome(what: str) -> str:
    """The outcome recorded when the stall rule ends a fight (`what` says what didn't happen)."""
    return f"draw: {what} for {STALL_ROUNDS} rounds"


def start_round(draft: Draft, number: int, first: bool = False) -> None:
    """Start round `number`: initiative re-rolled if the order says so, budgets, the first turn."""
    rules = draft.rules
    order = draft.turn_order
    if not first:
        order.round_started(draft)  # initiative re-rolled for the round comes before it starts
    draft.emit(RoundStarted(round=number, surprise=number == 0))
    if not order.refills_each_turn:
        for c in draft.state.active():
            draft.emit(ResourcesSet(combatant=c.id, resources=rules.budget(draft.state, c)))
        order.after_action(draft)
    rules.round_started(draft)
    advance(draft)


def advance(draft: Draft) -> None:
    """Start the next turn; or end the round (resolving what waits) and start the next; or end."""
    rules = draft.rules
    order = draft.turn_order

    def may_act(c: Combatant) -> bool:
        return rules.may_act(draft.state, c)

    while True:
        state = draft.state
        if state.phase == "end":
            return
        if not state.pending:
            over = rules.outcome(state)
            if over is not None:
                draft.emit(EncounterEnded(outcome=over[0], winner=over[1]))
                return
        if state.acting:
            return
        if rules.waiting(state):
            return  # the game master rules before the fight goes on
        actors = order.next_actors(state, may_act)
        if actors:
            if order.refills_each_turn:
                for cid in actors:
                    draft.emit(
                        ResourcesSet(combatant=cid, resources=rules.budget(draft.state, draft.state.combatants[cid]))
                    )
            draft.emit(TurnStarted(actors=actors, declaring=not draft.timing.all_immediate))
            rules.turn_started(draft, actors)
            state = draft.state
            idle = tuple([a for a in state.acting if rules.idle(state, state.combatants[a])])
            if idle:
                rules.turn_ending(draft, idle, {})
                draft.emit(TurnEnded(actors=idle))
            continue
        if not end_round(draft):
            continue  # another pass of the round began
        over = rules.outcome(draft.state)
        if over is not None:
            draft.emit(EncounterEnded(outcome=over[0], winner=over[1]))
            return
        if rules.waiting(draft.state):
            return
        draft.rounds_started += 1
        if draft.rounds_started > STALL_ROUNDS:
            # whole rounds went by in this one step with no one able to act: nothing will change
            draft.emit(EncounterEnded(outcome=stall_outcome("no one could act"), winner=None))
            return
        start_round(draft, draft.state.round + 1)
        return


def end_round(draft: Draft) -> bool:
    """Resolve what was declared (by category, then the order's resolution key) and release held
    damage; then start another pass of the round if the rule system says so (False), or end the
    round (True).

    Actions with equal resolution keys act together: under a timing that holds damage until
    the tier ends (`hold_until="tier"`), what one deals the other lands only once both resolved.
    """
    rules = draft.rules
    state = draft.state
    timing = draft.timing
    order = draft.turn_order
    key = order.resolution_key(state)
    pending = sorted(state.pending, key=lambda p: (timing.category_rank(p.category), key(p)))
    by_tier = timing.hold_until == "tier"
    category: Any = object()
    tier: Any = object()
    for p in pending:
        if by_tier and key(p) != tier:
            release_held(draft, mid_round=True)
            tier = key(p)
        if p.category != category:
            category = p.category
            draft.emit(ResolutionStarted(category=category))
        draft.hold_damage = timing.hold_damage
        resolve(draft, p)
        draft.hold_damage = False
    if rules.another_pass(draft.state):
        release_held(draft, mid_round=True)
        draft.emit(PassStarted(number=draft.state.action_pass + 1))
        order.pass_started(draft)
        return False
    rules.round_ending(draft)
    release_held(draft)
    draft.emit(RoundEnded(round=draft.state.round))
    rules.round_ended(draft)
    return True


def release_held(draft: Draft, mid_round: bool = False) -> None:
    """Count the damage held so far, then the rule system's thresholds for each target hit.

    Mid-round (a tier or a pass resolved) the held list is emptied first, by an event; at the
    round's end RoundEnded empties it.
    """
    held = draft.state.held
    if not held:
        return
    if mid_round:
        draft.emit(HeldDamageReleased())
    for h in held:
        draft.emit(DamageApplied(target=h.target, amount=h.amount, location=h.location, kind=h.kind, source=h.source))
    for target in dict.fromkeys(h.target for h in held):
        draft.rules.after_damage(draft, target)


def resolve(draft: Draft, pending: Pending) -> None:
    """Resolve one declared action (lost if its actor is out of the fight by now)."""
    state = draft.state
    actor = state.combatants[pending.actor]
    if not actor.active:
        draft.emit(ActionResolved(id=pending.id, outcome=f"lost: {actor.name} is {actor.defeated or 'gone'}"))
        return
    spec = draft.rules.action(state, actor, pending.action)
    outcome = spec.resolve(draft, pending)
    draft.emit(ActionResolved(id=pending.id, outcome=outcome))
