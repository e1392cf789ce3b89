"""`skirmish`: the small system that exercises every order and timing strategy, and the
template a new rule system copies (`docs/writing-a-rule-system.md` walks through it; the
rules are in `docs/rules/skirmish.md`).

The package has the layout every system has: `model.py` (typed stats and options),
`events.py` (its own events and folds: none here), `actions.py` (what can be declared and
how it resolves), `policy.py` (the automatic combatant), `telling.py` (how it tells a fight:
transcript lines, `show` lines, a declared action as prose), and this file, the system itself.
"""

from __future__ import annotations

from typing import Any

from combatlog.engine.order import make_order
from combatlog.engine.protocol import ActionSpec, Draft, Order, RuleSystem
from combatlog.engine.rules.skirmish.actions import ACTIONS, AP_COST
from combatlog.engine.rules.skirmish.events import EVENTS
from combatlog.engine.rules.skirmish.model import Options, Stats
from combatlog.engine.rules.skirmish.policy import policy
from combatlog.engine.rules.skirmish.telling import describe
from combatlog.engine.timing import Timing, make_timing
from combatlog.events import CombatantDefeated, Command
from combatlog.projections import Combatant, Encounter, Pending

_ORDERS: dict[tuple[Any, ...], Order] = {}  # by the options that make them
_TIMINGS: dict[Any, Timing] = {}


class Skirmish(RuleSystem):
    """The test system (see `docs/rules/skirmish.md`)."""

    name = "skirmish"
    # 2: a hit never heals (damage below 0 deals 0); 3: a tier acts together, an unknown
    # parameter is refused, and a target gone by the time an action resolves says so in the
    # core's words
    version = "3"
    tiers_since = 3  # tied combatants (ties = "simultaneous") and a group rolling once hold their damage
    params_since = 3
    api = 5  # the plugin API it is written for (a copy of this template keeps it)
    events = EVENTS
    stats_type = Stats
    options_type = Options

    def order(self, options: Options) -> Order:
        kind = options.order
        key: tuple[Any, bool, bool, bool] = (
            kind,
            options.ties == "standard",
            options.group_initiative,
            options.initiative_every_round,
        )
        order = _ORDERS.get(key)
        if order is not None:  # one of each: configuration, never changed, asked a few times a step
            return order
        if kind == "action-points":
            order = make_order(kind)
        else:
            order = make_order(
                kind,
                ties=("pc_first", "rolloff:1d20") if key[1] else ("simultaneous",),
                group_initiative=key[2],
                every_round=key[3],
            )
        _ORDERS[key] = order
        return order

    def timing(self, options: Options) -> Timing:
        kind = options.timing
        timing = _TIMINGS.get(kind)
        if timing is None:
            if kind == "mixed":
                per = {"movement": "turn", "shooting": "simultaneous", "melee": "simultaneous"}
                timing = make_timing("mixed", per)
            else:
                timing = make_timing(kind)
            _TIMINGS[kind] = timing
        return timing

    def initiative(self, draft: Draft, combatant: Combatant, ids: tuple[str, ...]) -> int:
        return draft.roll(f"1d20+{combatant.stats.init}", "initiative", by=combatant.id).total

    def budget(self, state: Encounter, combatant: Combatant) -> dict[str, int]:
        if state.options.order == "action-points":
            return {"ap": combatant.stats.ap}
        return {"actions": 1}

    def actions(self, state: Encounter, actor: Combatant) -> list[ActionSpec]:
        return list(ACTIONS)

    def cost(self, state: Encounter, actor: Combatant, spec: ActionSpec, params: dict[str, Any]) -> dict[str, int]:
        if state.options.order == "action-points":
            return {"ap": AP_COST[spec.name]}
        return dict(spec.cost)

    def target_gone(self, draft: Draft, pending: Pending, target: Combatant) -> str | None:
        if self.since(draft.state, 3):
            return super().target_gone(draft, pending, target)
        return f"{target.name} is already down"  # versions 1 and 2, removed or defeated

    def after_damage(self, draft: Draft, target: str) -> None:
        c = draft.state.combatants[target]
        if c.defeated is None and c.damage >= c.stats.hp:
            draft.emit(CombatantDefeated(combatant=target, how="down"))

    # how it tells a fight (telling.py): the functions themselves, bound as the methods
    describe = describe

    def policy(self, state: Encounter, actor: Combatant) -> Command:
        return policy(self, state, actor)


SKIRMISH = Skirmish()
