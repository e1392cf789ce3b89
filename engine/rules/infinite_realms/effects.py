"""Effects several mechanics share: hurting (and losing aim), stunning, bleeding, and ranking
the order again after the game master changes someone's points."""

from __future__ import annotations

from combatlog.engine.protocol import Draft
from combatlog.engine.rules.infinite_realms.events import Aimed, BleedingStarted
from combatlog.engine.rules.infinite_realms.model import BLEEDING, STUNNED, own
from combatlog.events import ConditionApplied, ResourcesSet, TurnEnded


def rerank(draft: Draft) -> None:
    """After the game master changed someone's points or reach mid-round: the order is ranked
    again, and the turn goes to whoever leads now (as after an action; version 2 on)."""
    state = draft.state
    if state.phase not in ("declare", "resolve") or not draft.rules.since(state, 2):
        return
    draft.turn_order.after_action(draft)
    if draft.state.acting:
        draft.emit(TurnEnded(actors=draft.state.acting, yielded=True))
    draft.advance()


def hurt(draft: Draft, target: str, amount: int, kind: str | None, source: str) -> None:
    """Damage `target` by `amount` (nothing when 0 or less); a hit spoils its aim."""
    if amount <= 0:
        return
    draft.damage(target, amount, kind=kind, source=source)
    if own(draft.state).aim.get(target, 0):
        draft.emit(Aimed(combatant=target, aim=0, reason="hit before attacking"))


def stun(draft: Draft, target: str, rounds: int, condition: str = STUNNED) -> None:
    """Stunned (0 AP) or at half AP: the rest of this round and the next `rounds` round(s)."""
    c = draft.state.combatants[target]
    now = max([x.remaining or 0 for x in c.conditions if x.name == condition] + [0])
    draft.emit(ConditionApplied(target=target, condition=condition, duration=max(now, rounds + 1), source="critical"))
    ap = c.resources.get("ap", 0)
    draft.emit(ResourcesSet(combatant=target, resources={**c.resources, "ap": 0 if condition == STUNNED else ap // 2}))


def bleed(draft: Draft, target: str) -> None:
    """Start `target` bleeding (once: a bleeding combatant bleeds no faster)."""
    if not draft.state.combatants[target].has(BLEEDING):
        draft.emit(ConditionApplied(target=target, condition=BLEEDING, source="critical"))
        draft.emit(BleedingStarted(combatant=target, round=draft.state.round))
