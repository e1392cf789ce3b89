"""`skirmish`: the small test system that exercises every order and timing strategy.

Not a game of its own: the smallest rules that use everything the engine offers, for
tests, examples and as a template for a new system. Each combatant has `hp`, `init`,
`attack`, `defense`, `damage` (a dice expression) and, under action points, `ap`.

- Initiative: 1d20 + init. Ties (option `ties`): "standard" = PCs first, then 1d20
  roll-offs; "simultaneous" = tied combatants share a tier.
- Order (option `order`): ranked, reverse (declared lowest first, resolved highest first)
  or action-points (most points left acts next; strike 3, shoot 4, move 1, guard 2).
- Timing (option `timing`): turn, simultaneous, or mixed (movement turn-based, shooting
  and melee simultaneous).
- Actions: strike (melee) and shoot (shooting): 1d20 + attack against defense, a hit
  deals the damage dice; move (movement) to a named position; guard (+2 defense until the
  end of the next round). One action a turn (ranked orders).
- A combatant whose damage reaches hp is down. The fight ends when one side stands.
"""

from __future__ import annotations

from typing import Any

from combatlog.engine.draft import Draft
from combatlog.engine.order import ActionPointOrder, RankedOrder, make_order
from combatlog.engine.rules.base import ActionSpec, OptionSpec, RuleSystem
from combatlog.engine.timing import Timing, make_timing
from combatlog.events import Command, CombatantDefeated, ConditionApplied, Moved
from combatlog.projections import Combatant, Encounter, Pending

AP_COST = {"strike": 3, "shoot": 4, "move": 1, "guard": 2}


def _attack(draft: Draft, p: Pending) -> str:
    state = draft.state
    attacker = state.combatants[p.actor]
    target = state.combatants[p.targets[0]]
    if not target.active:
        return f"{target.name} is already down"
    roll = draft.roll(f"1d20+{int(attacker.stats.get('attack', 0))}", f"{p.action} at {target.id}", by=attacker.id)
    defense = int(target.stats.get("defense", 10)) + (2 if target.has("guarded") else 0)
    if roll.total < defense:
        return f"miss ({roll.total} against {defense})"
    dmg = draft.roll(str(attacker.stats.get("damage", "1d6")), f"{p.action} damage to {target.id}", by=attacker.id)
    draft.damage(target.id, dmg.total, kind=p.action, source=attacker.id)
    return f"hit ({roll.total} against {defense}) for {dmg.total}"


def _move(draft: Draft, p: Pending) -> str:
    to = str(p.params.get("to", "somewhere"))
    draft.emit(Moved(combatant=p.actor, to=to, distance=int(p.params.get("distance", 1))))
    return f"moved to {to}"


def _guard(draft: Draft, p: Pending) -> str:
    draft.emit(ConditionApplied(target=p.actor, condition="guarded", duration=2, source=p.actor))
    return "on guard"


def _needs_to(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    return None if params.get("to") else "say where to: params to=<position>"


ACTIONS = (
    ActionSpec("strike", "melee", {"actions": 1}, _attack, help="melee attack: 1d20+attack vs defense"),
    ActionSpec("shoot", "shooting", {"actions": 1}, _attack, help="ranged attack: 1d20+attack vs defense"),
    ActionSpec("move", "movement", {"actions": 1}, _move, targets="none", min_targets=0, max_targets=0,
               check=_needs_to, help="move to params.to"),
    ActionSpec("guard", None, {"actions": 1}, _guard, targets="self", min_targets=0, max_targets=0,
               help="+2 defense until the end of next round"),
)


class Skirmish(RuleSystem):
    """The test system (see the module's docstring)."""

    name = "skirmish"
    version = "1"
    required_stats = ("hp",)
    option_specs = {
        "order": OptionSpec("ranked", ("ranked", "reverse", "action-points"), "who acts when"),
        "timing": OptionSpec("turn", ("turn", "simultaneous", "mixed"), "when actions resolve"),
        "ties": OptionSpec("standard", ("standard", "simultaneous"), "initiative ties"),
        "group_initiative": OptionSpec(False, (False, True), "NPC groups roll once"),
        "initiative_every_round": OptionSpec(False, (False, True), "re-roll initiative each round"),
    }

    def order(self, options: dict[str, Any]) -> RankedOrder | ActionPointOrder:
        kind = options.get("order", "ranked")
        if kind == "action-points":
            return make_order(kind)
        ties = ("pc_first", "rolloff:1d20") if options.get("ties") == "standard" else ("simultaneous",)
        return make_order(kind, ties=ties, group_initiative=bool(options.get("group_initiative")),
                          every_round=bool(options.get("initiative_every_round")))

    def timing(self, options: dict[str, Any]) -> Timing:
        kind = options.get("timing", "turn")
        if kind == "mixed":
            return make_timing("mixed", {"movement": "turn", "shooting": "simultaneous", "melee": "simultaneous"})
        return make_timing(kind)

    def initiative(self, draft: Draft, combatant: Combatant, ids: tuple[str, ...]) -> int:
        return draft.roll(f"1d20+{int(combatant.stats.get('init', 0))}", "initiative", by=combatant.id).total

    def _ap(self, options: dict[str, Any]) -> bool:
        return options.get("order") == "action-points"

    def budget(self, state: Encounter, combatant: Combatant) -> dict[str, int]:
        if self._ap(state.options):
            return {"ap": int(combatant.stats.get("ap", 6))}
        return {"actions": 1}

    def actions(self, state: Encounter, actor: Combatant) -> list[ActionSpec]:
        return list(ACTIONS)

    def cost(self, state: Encounter, actor: Combatant, spec: ActionSpec, params: dict[str, Any]) -> dict[str, int]:
        if self._ap(state.options):
            return {"ap": AP_COST[spec.name]}
        return dict(spec.cost)

    def after_damage(self, draft: Draft, target: str) -> None:
        c = draft.state.combatants[target]
        if c.defeated is None and c.damage >= int(c.stats.get("hp", 1)):
            draft.emit(CombatantDefeated(combatant=target, how="down"))

    def policy(self, state: Encounter, actor: Combatant) -> Command:
        enemies = [c for c in state.active() if c.side != actor.side]
        affordable = {s.name for s in self.affordable(state, actor)}
        if enemies and "strike" in affordable:
            return Command(kind="act", actor=actor.id, action="strike", targets=(enemies[0].id,), by="policy")
        return Command(kind="end_turn", actor=actor.id, by="policy")


SKIRMISH = Skirmish()

from combatlog.engine import rules as _registry  # noqa: E402

_registry.register(SKIRMISH)
