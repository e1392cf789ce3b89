"""Straalara's turn order: initiative every turn, declared lowest first, resolved highest first.

Score = rating + 1d10, rating = Wits + Dexterity − the wound penalty. Ties: the higher
rating first; equal ratings too act simultaneously (one tier). A second action (Offense)
comes at max(score − 10, 0), ranked the same way: in a second pass of the round (option
`passes = "repeat"`), or among the first actions (`"interleaved"`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from combatlog.engine.order import ReverseDeclareOrder
from combatlog.events import InitiativeRolled, OrderSet
from combatlog.projections import Combatant, Encounter, Pending

if TYPE_CHECKING:
    from combatlog.engine.protocol import Draft


def second_score(score: int) -> int:
    """When an Offense combatant's second action comes: score − 10, or 0 if that is higher."""
    return max(score - 10, 0)


def rating_of(c: Combatant) -> int:
    """The initiative rating this turn's score was rolled on (Wits + Dexterity − wound penalty)."""
    return c.tiebreak[0] if c.tiebreak else 0


def tiers(entries: list[tuple[str, int, int]]) -> tuple[tuple[str, ...], ...]:
    """(id, score, rating) ranked highest score first, then highest rating; equal pairs share a tier."""
    ranked = sorted(entries, key=lambda e: (-e[1], -e[2]))
    out: list[tuple[str, ...]] = []
    last: tuple[int, int] | None = None
    for cid, score, rating in ranked:
        if (score, rating) == last:
            out[-1] = (*out[-1], cid)
        else:
            out.append((cid,))
            last = (score, rating)
    return tuple(out)


class StraalaraOrder(ReverseDeclareOrder):
    """Initiative rolled every turn; declared lowest first, resolved highest first (by slot)."""

    name = "straalara"

    def __init__(self, interleaved: bool = False) -> None:
        super().__init__(ties=("simultaneous",), every_round=True)
        self.interleaved = interleaved

    def roll(self, draft: Draft) -> None:
        state = draft.state
        # The initiative rating, Wits + Dexterity − the wound penalty ("subtract directly": below 0
        # when the penalty is larger; version 1 stopped it at 0), with the options and the rules'
        # version read once for everyone: initiative is rolled every turn. The rolls and
        # InitiativeRolled don't change the combatants' damage or stats, nor the options.
        opts = state.options
        floor = not draft.rules.since(state, 2)  # version 1 stopped the rating at 0
        entries = []
        for c in state.active():
            s = c.stats
            rating = s.wits + s.dexterity + opts.wound_penalty(c.damage)
            if floor and rating < 0:
                rating = 0
            score = rating + draft.roll("1d10", "initiative", by=c.id).total
            draft.emit(InitiativeRolled(combatants=(c.id,), value=score, tiebreak=(rating,)))
            entries.append((c.id, score, rating))
        draft.emit(OrderSet(tiers=tiers(entries), reason="initiative"))

    def pass_started(self, draft: Draft) -> None:
        """The second pass: the combatants with a second action, ranked by their second scores."""
        state = draft.state
        declared, round_ = state.extra.declared, state.round  # `stance_now`, inlined
        entries = []
        for c in state.active():
            d = declared.get(c.id)
            if d is not None and d.round == round_ and d.stance == "offense":
                entries.append((c.id, second_score(c.initiative or 0), rating_of(c)))
        draft.emit(OrderSet(tiers=tiers(entries), reason="second actions"))

    def resolution_key(self, state: Encounter) -> Callable[[Pending], Any]:
        """(−the slot's score, −rating): equal keys act together. The slot is the pass, or under
        `interleaved` the actor's first or second declaration this turn."""
        combatants = state.combatants

        def slot_key(p: Pending, slot: int) -> tuple[int, int]:
            c = combatants[p.actor]
            score = c.initiative or 0
            return (-(score if slot == 1 else second_score(score)), -rating_of(c))

        # each pending action's key worked out once (the turn procedure asks twice for each)
        keys: dict[str, tuple[int, int]] = {}
        if self.interleaved:
            seen: dict[str, int] = {}
            for p in state.pending:
                seen[p.actor] = slot = seen.get(p.actor, 0) + 1
                keys[p.id] = slot_key(p, slot)
        else:
            for p in state.pending:
                keys[p.id] = slot_key(p, state.action_pass)

        def key(p: Pending) -> tuple[int, int]:
            k = keys.get(p.id)  # an action not pending now (none is asked for): a first declaration's slot
            return k if k is not None else slot_key(p, 1 if self.interleaved else state.action_pass)

        return key

    def tier_key(self, state: Encounter) -> Callable[[Pending], Any]:
        """The resolution key itself: equal score and rating in the same slot are one tier."""
        return self.resolution_key(state)
