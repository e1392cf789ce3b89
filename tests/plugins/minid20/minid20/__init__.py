"""minid20: 1d20 initiative (ties to the higher dex), an attack against armour class that
doubles its damage dice on a natural 20, and a dodge that gives attackers disadvantage until
the dodger's next turn. Written from `combatlog.plugin` alone."""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

from combatlog.plugin import (
    LIVE,
    ActionSpec,
    CombatantDefeated,
    Command,
    ConditionApplied,
    ConditionRemoved,
    DiceExpr,
    Draft,
    Event,
    RuleSystem,
    allow,
    make_order,
    register_fold,
)


class Stats(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    hp: Annotated[int, Meta(ge=1)]
    ac: Annotated[int, Meta(ge=1)] = 10
    attack: int = 0
    dex: int = 0
    damage: DiceExpr = DiceExpr("1d6")


class CriticalHit(Event, frozen=True, tag="minid20.CriticalHit"):
    """A natural 20: the damage dice doubled."""

    attacker: str
    target: str


allow("minid20.CriticalHit", LIVE)


@register_fold(CriticalHit)
def _critical(state, e):
    return state  # a fact for the record: the damage it doubled is its own event


def _attack(draft: Draft, pending) -> str:
    me = draft.state.combatants[pending.actor]
    target = draft.state.combatants[pending.targets[0]]
    mine, theirs = draft.rules.stats(me), draft.rules.stats(target)
    dice = "2d20kl1" if target.has("dodging") else "1d20"
    roll = draft.roll(f"{dice}+{mine.attack}" if mine.attack else dice, f"attack on {target.id}", by=me.id)
    natural = roll.total - mine.attack
    if natural != 20 and roll.total < theirs.ac:
        return f"misses ({roll.total} against AC {theirs.ac})"
    count, _, sides = str(mine.damage).partition("d")
    expr = f"{int(count or 1) * (2 if natural == 20 else 1)}d{sides}"
    if natural == 20:
        draft.emit(CriticalHit(attacker=me.id, target=target.id))
    damage = draft.roll(expr, "damage", by=me.id)
    draft.damage(target.id, damage.total, source=me.id)
    return f"hits ({roll.total} against AC {theirs.ac}) for {damage.total}" + (", a critical" if natural == 20 else "")


def _dodge(draft: Draft, pending) -> str:
    draft.emit(ConditionApplied(target=pending.actor, condition="dodging", source=pending.actor))
    return "dodges"


ACTIONS = [
    ActionSpec("attack", "melee", {"actions": 1}, _attack, help="1d20 + attack against AC"),
    ActionSpec(
        "dodge",
        None,
        {"actions": 1},
        _dodge,
        targets="self",
        min_targets=0,
        max_targets=0,
        help="attackers roll with disadvantage until your next turn",
    ),
]


class MiniD20(RuleSystem):
    name = "minid20"
    version = "1"
    api = 4
    events = (CriticalHit,)
    stats_type = Stats
    examples = ("minid20:example.toml",)

    def order(self, options):
        return make_order("ranked", ties=("higher:dex", "rolloff:1d20"))

    def initiative(self, draft, combatant, ids):
        return draft.roll(f"1d20+{self.stats(combatant).dex}", "initiative", by=combatant.id).total

    def budget(self, state, combatant):
        return {"actions": 1}

    def actions(self, state, actor):
        return ACTIONS

    def turn_started(self, draft, actors):
        for cid in actors:  # a dodge lasts until the dodger's next turn
            if draft.state.combatants[cid].has("dodging"):
                draft.emit(ConditionRemoved(target=cid, condition="dodging", reason="its turn came"))

    def after_damage(self, draft, target):
        c = draft.state.combatants[target]
        if c.defeated is None and c.damage >= self.stats(c).hp:
            draft.emit(CombatantDefeated(combatant=target, how="down"))

    def policy(self, state, actor):
        foes = [c for c in state.active() if c.side != actor.side]
        me = self.stats(actor)
        if not foes:
            return Command(kind="end_turn", actor=actor.id, by="policy")
        if actor.damage * 2 >= me.hp and not actor.has("dodging") and state.round % 3 == 0:
            return Command(kind="act", actor=actor.id, action="dodge", by="policy")
        target = min(foes, key=lambda c: (self.stats(c).hp - c.damage, c.id))
        return Command(kind="act", actor=actor.id, action="attack", targets=(target.id,), by="policy")


MINID20 = MiniD20()
