"""Skirmish's actions: strike and shoot (1d20 + attack against defense), move, guard."""

from __future__ import annotations

from typing import Any

from combatlog.engine.protocol import ActionParam, ActionSpec, Draft
from combatlog.events import ConditionApplied, Moved
from combatlog.projections import Combatant, Encounter, Pending

AP_COST = {"strike": 3, "shoot": 4, "move": 1, "guard": 2}  # under the action-points order


def attack(draft: Draft, p: Pending) -> str:
    """1d20 + attack against the target's defense (+2 on guard); a hit deals the damage dice."""
    state = draft.state
    attacker = state.combatants[p.actor]
    target = state.combatants[p.targets[0]]
    mine = attacker.stats
    roll = draft.attack_roll(f"1d20+{mine.attack}", f"{p.action} at {target.id}", attacker.id, target.id)
    defense = target.stats.defense + (2 if target.has("guarded") else 0)
    if roll.total < defense:
        return f"miss ({roll.total} against {defense})"
    dmg = draft.roll(mine.damage, f"{p.action} damage to {target.id}", by=attacker.id)
    # a hit never heals: a roll below 0 (1d4-2, 1d4-1d6) deals 0 (version 2; a version-1 log
    # re-decides as it was recorded)
    amount = max(0, dmg.total) if draft.rules.since(draft.state, 2) else dmg.total
    draft.damage(target.id, amount, kind=p.action, source=attacker.id)
    return f"hit ({roll.total} against {defense}) for {amount}"


def move(draft: Draft, p: Pending) -> str:
    """Move to the position named by `to`."""
    to = str(p.params["to"])
    distance = p.params.get("distance", 1)
    draft.emit(Moved(combatant=p.actor, to=to, distance=distance if isinstance(distance, int) else 1))
    return f"moved to {to}"


def guard(draft: Draft, p: Pending) -> str:
    """+2 defense until the end of the next round."""
    draft.emit(ConditionApplied(target=p.actor, condition="guarded", duration=2, source=p.actor))
    return "on guard"


def needs_to(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    """Why a move can't be declared: it needs a destination."""
    return None if params.get("to") else "say where to: params to=<position>"


MOVE_PARAMS = (
    ActionParam("to", help="where to: the position moved to"),
    ActionParam("distance", "int", help="how far it is, as the log records it (default 1)"),
)

ACTIONS = (
    ActionSpec("strike", "melee", {"actions": 1}, attack, help="melee attack: 1d20+attack vs defense", params=()),
    ActionSpec("shoot", "shooting", {"actions": 1}, attack, help="ranged attack: 1d20+attack vs defense", params=()),
    ActionSpec(
        "move",
        "movement",
        {"actions": 1},
        move,
        targets="none",
        min_targets=0,
        max_targets=0,
        check=needs_to,
        help="move to params.to",
        params=MOVE_PARAMS,
    ),
    ActionSpec(
        "guard",
        None,
        {"actions": 1},
        guard,
        targets="self",
        min_targets=0,
        max_targets=0,
        help="+2 defense until the end of next round",
        params=(),
    ),
)
