"""The round and turn procedure every rule system shares: starting rounds, handing out
turns, resolving what was declared, releasing held damage, and the end check.

A tier (combatants sharing a rank in the order) acts together where the rule system says so
(`RuleSystem.tiers_hold`): the damage dealt within it is held until the whole tier has acted,
then counts at once. Actions resolved as they are declared hold it until the tier's turn ends
(`resolve_declared`, `advance`); actions resolved after the declarations, under a timing that
holds damage until the tier ends, until the next tier's first action (`end_round`).

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
    from combatlog.projections import Combatant, Encounter, Pending

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
        if state.held and draft.timing.all_immediate and rules.tiers_hold(state):
            release_held(draft, mid_round=True)  # a tier's turn is over: what it dealt counts now
            continue
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

    Under a timing that holds damage until the tier ends (`hold_until="tier"`), actions of one
    tier act together: what one deals another lands only once the whole tier resolved. The tier
    is the order's `tier_key` where the rule system's tiers act together (`tiers_hold`); before
    that, the resolution key (under the ranked order each combatant's place: a tier of one).
    """
    rules = draft.rules
    state = draft.state
    timing = draft.timing
    order = draft.turn_order
    key = order.resolution_key(state)
    pending = sorted(state.pending, key=lambda p: (timing.category_rank(p.category), key(p)))
    by_tier = timing.hold_until == "tier"
    tier_of = order.tier_key(state) if by_tier and rules.tiers_hold(state) else key
    category: Any = object()
    tier: Any = object()
    for p in pending:
        if by_tier and tier_of(p) != tier:
            release_held(draft, mid_round=True)
            tier = tier_of(p)
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


def resolve_declared(draft: Draft, pending: Pending) -> None:
    """Resolve an action as soon as it is declared (turn-based timing). Taken in a turn its actor
    shares with others of its tier, where the rule system's tiers act together, its damage is
    held until the tier's turn ends (`advance` releases it then)."""
    draft.hold_damage = (
        draft.rules.tiers_hold(draft.state)
        and draft.timing.all_immediate
        and draft.timing.hold_damage
        and shares_turn(draft.state, pending.actor)
    )
    resolve(draft, pending)
    draft.hold_damage = False


def shares_turn(state: Encounter, actor: str) -> bool:
    """True when `actor` takes this turn together with another of its tier (one acting beside it,
    or one whose turn in it is over): a tier whose other members can't act is a tier of one."""
    for tier in state.order:
        if actor in tier:
            if len(tier) < 2:
                return False
            acting, acted = state.acting, state.acted
            return sum(1 for cid in tier if cid in acting or cid in acted) > 1
    return False


def resolve(draft: Draft, pending: Pending) -> None:
    """Resolve one declared action. It is lost if its actor is out of the fight by now, if the
    rule system says the actor loses it (`action_lost`), or if one of its targets is gone
    (`target_gone`: removed, or defeated unless the action's spec says `targets_down_ok`);
    otherwise its spec's `resolve` starts at the mechanics."""
    state = draft.state
    actor = state.combatants[pending.actor]
    if not actor.active:
        draft.emit(ActionResolved(id=pending.id, outcome=f"lost: {actor.name} is {actor.defeated or 'gone'}"))
        return
    rules = draft.rules
    spec = rules.action(state, actor, pending.action)
    outcome = rules.action_lost(draft, pending)
    if outcome is None:
        combatants = draft.state.combatants
        for tid in pending.targets:
            target = combatants[tid]
            if target.removed or (target.defeated is not None and not spec.targets_down_ok):
                outcome = rules.target_gone(draft, pending, target)
                break
        if outcome is None:
            outcome = spec.resolve(draft, pending)
    draft.emit(ActionResolved(id=pending.id, outcome=outcome))
