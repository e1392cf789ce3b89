"""`infinite-realms`: Infinite Realms Players Book, chapter four, "Combat" (action points).

Action points instead of turns: whoever has the most left acts next; the rules notes are
`docs/rules/infinite-realms.md`. The package: `model.py`, `events.py`, `reading.py`,
`effects.py`, `attack.py`, `criticals.py`, `movement.py`, `actions.py`, `policy.py`, `telling.py`, and this
file, the system itself.
"""

from __future__ import annotations

import math
from typing import Any

from combatlog.engine.dice import DiceError
from combatlog.engine.dice import parse as parse_dice
from combatlog.engine.errors import Refused
from combatlog.engine.order import ActionPointOrder
from combatlog.engine.protocol import ActionSpec, BoardView, Draft, RuleSystem
from combatlog.engine.rules.infinite_realms.actions import (
    AIM,
    ATTACK,
    DEFEND,
    FIRST_AID,
    KICK_A,
    MOVE_SPECS,
    PUNCH_A,
    PURSUE,
    STAND,
    check_defend,
    weapon_of,
)
from combatlog.engine.rules.infinite_realms.effects import rerank
from combatlog.engine.rules.infinite_realms.events import (
    EVENTS,
    DefenseBought,
    Disengaged,
    DistanceSet,
    Engaged,
    RoundReset,
)
from combatlog.engine.rules.infinite_realms.model import (
    BLEEDING,
    HALF_AP,
    MOVES,
    STUNNED,
    WOUNDED_25,
    WOUNDED_50,
    own,
)
from combatlog.engine.rules.infinite_realms.model import Options as IROptions
from combatlog.engine.rules.infinite_realms.model import State as IRState
from combatlog.engine.rules.infinite_realms.model import Stats as IRStats
from combatlog.engine.rules.infinite_realms.movement import engage, reach_bonus
from combatlog.engine.rules.infinite_realms.policy import policy
from combatlog.engine.rules.infinite_realms.reading import distance, factor
from combatlog.engine.rules.infinite_realms.telling import describe, narrate, summary
from combatlog.engine.timing import Timing, make_timing
from combatlog.events import CombatantDefeated, Command, ConditionApplied, ResourceSpent, ResourcesSet
from combatlog.projections import Combatant, Encounter, Pending

_AP_ORDER = ActionPointOrder("ap")  # configuration, never changed: one, asked for a few times a step


class InfiniteRealms(RuleSystem):
    """Infinite Realms, chapter four (see the module's docstring)."""

    name = "infinite-realms"
    # 2: a wounded attacker's damage factor on a critical's extra damage and on a critical
    # miss's wounds; a game master's change of points or reach re-ranks the order
    # 3: an unknown parameter is refused; a target gone before the action resolves says so in
    # the core's words
    version = "3"
    params_since = 3
    events = EVENTS
    required_stats = ("hp", "ap", "init", "defense")
    options_type = IROptions
    stats_type = IRStats
    state_type = IRState
    commands = {
        "distance": "set the distance between two combatants in yards (params a, b, yards)",
        "engage": "two or more combatants start fighting hand to hand (params combatants = ids)",
        "defend": "at the round's start, before anyone acts: a combatant spends AP on defense (actor; params ap)",
    }
    command_words = {"distance": ("a", "b", "yards"), "engage": ("*combatants",), "defend": ("actor", "ap")}

    def check_combatant(self, stats: dict[str, Any], who: str = "") -> IRStats:
        typed: IRStats = super().check_combatant(stats, who)
        for key in ("defense", "protection"):
            if getattr(typed, key) == {}:
                raise Refused(f"combatant {who}" if who else "combatant", f"$.{key}: give at least one entry")
        names = set()
        for i, w in enumerate(typed.weapons):
            if w.name in names or w.name in ("punch", "kick"):
                raise Refused(f"$.weapons[{i}]", f"the name {w.name!r} is taken")
            names.add(w.name)
            if isinstance(w.damage, str):
                try:
                    parse_dice(w.damage)
                except DiceError as exc:
                    raise Refused(f"$.weapons[{i}].damage", str(exc)) from None
            if w.kind != "melee" and not (
                w.short is not None and w.medium is not None and w.long is not None and w.short <= w.medium <= w.long
            ):
                raise Refused(f"$.weapons[{i}]", "a thrown or missile weapon needs short <= medium <= long, in yards")
        return typed

    def order(self, options: IROptions) -> ActionPointOrder:
        return _AP_ORDER

    def timing(self, options: IROptions) -> Timing:
        return _TURN

    def initiative(self, draft: Draft, combatant: Combatant, ids: tuple[str, ...]) -> int:
        init = combatant.stats.init
        return draft.roll(f"1d10{init:+d}" if init else "1d10", "AP tie-break (d10 + Init)", by=combatant.id).total

    def budget(self, state: Encounter, combatant: Combatant) -> dict[str, int]:
        if combatant.has(STUNNED):
            return {"ap": 0}
        ap = combatant.stats.ap * factor(combatant, "ap")
        if combatant.has(HALF_AP):
            ap /= 2
        return {"ap": int(ap)}

    def may_act(self, state: Encounter, combatant: Combatant) -> bool:
        # the base class's test in one frame (`combatant.active` inlined): asked for every
        # combatant whenever the next turn is looked for
        if combatant.defeated is not None or combatant.removed:
            return False
        return not (state.surprise_round and combatant.side in state.surprised)

    def idle(self, state: Encounter, combatant: Combatant) -> bool:
        if combatant.resources.get("ap", 0) >= 1:
            return False  # aiming costs 1 AP and is always offered: something is affordable
        return super().idle(state, combatant)

    def action(self, state: Encounter, actor: Combatant, name: str) -> ActionSpec:
        spec = _ALWAYS.get(name) if type(name) is str else None  # one look-up for the actions everyone has
        return spec if spec is not None else super().action(state, actor, name)

    def actions(self, state: Encounter, actor: Combatant) -> list[ActionSpec]:
        out = [ATTACK]
        if actor.stats.punch_ap is not None:
            out.append(PUNCH_A)
        if actor.stats.kick_ap is not None:
            out.append(KICK_A)
        out += [AIM, *MOVE_SPECS, DEFEND, STAND, PURSUE]
        if "first_aid" in actor.given_stats:
            out.append(FIRST_AID)
        return out

    def cost(self, state: Encounter, actor: Combatant, spec: ActionSpec, params: dict[str, Any]) -> dict[str, int]:
        if spec.name == "attack":
            w = weapon_of(state, actor, params)
            ap = w.ap if w else 1
            if params.get("rapid"):
                ap = math.ceil(ap / 2)
            return {"ap": ap}
        if spec.name in ("punch", "kick"):
            hand = actor.stats.punch_ap if spec.name == "punch" else actor.stats.kick_ap
            if hand is None:  # offered only to those with the stat
                raise Refused(f"{actor.name}: {spec.name}", f"no {spec.name}_ap stat", "give it in the stats")
            return {"ap": hand}
        if spec.name in MOVES or spec.name == "pursue":
            legs = actor.has("crippled right leg") or actor.has("crippled left leg")
            return {"ap": 2 if legs else 1}
        if spec.name == "defend":
            return {"ap": int(params.get("ap", 1)) if isinstance(params.get("ap", 1), int) else 1}
        if spec.name == "stand":  # 5 AP, or a whole round's AP for one who has fewer
            return {"ap": min(5, own(state).start_ap.get(actor.id, 5) or 5)}
        if spec.name == "first_aid":
            return {"ap": state.options.first_aid_ap}
        return dict(spec.cost)

    def round_started(self, draft: Draft) -> None:
        bonus = {
            cid: n
            for cid, n in own(draft.state).reach_bonus.items()
            if draft.state.combatants[cid].active and not draft.state.combatants[cid].has(STUNNED)
        }
        for cid in sorted(bonus):
            c = draft.state.combatants[cid]
            draft.emit(
                ResourcesSet(combatant=cid, resources={**c.resources, "ap": c.resources.get("ap", 0) + bonus[cid]})
            )
        state = draft.state
        draft.emit(RoundReset(start_ap={c.id: c.resources.get("ap", 0) for c in state.active()}, given=bonus))

    def round_ending(self, draft: Draft) -> None:
        state = draft.state
        for cid, since in sorted(own(state).bleeding.items()):
            c = state.combatants[cid]
            if since < 0 or not c.has(BLEEDING) or c.defeated == "dead":
                continue
            if (state.round - since) % 4 == 3:
                draft.damage(cid, 1, kind="bleeding", source="internal bleeding")

    def target_gone(self, draft: Draft, pending: Pending, target: Combatant) -> str | None:
        if self.since(draft.state, 3):
            return super().target_gone(draft, pending, target)
        # versions 1 and 2 (every action resolves in the step that declares it, at a target just
        # found standing, so no log of theirs says it): first aid had no check
        if pending.action == "first_aid":
            return None
        return f"{target.name} is {'' if pending.action == 'pursue' else 'already '}{target.defeated}"

    def after_damage(self, draft: Draft, target: str) -> None:
        c = draft.state.combatants[target]
        hp = c.stats.hp
        left = hp - c.damage
        if c.defeated == "dead":
            return
        if left < -hp:
            draft.emit(CombatantDefeated(combatant=target, how="dead"))
        elif c.defeated is not None:
            return
        elif left <= 0:
            draft.emit(CombatantDefeated(combatant=target, how="passed out"))
        elif left * 4 <= hp and not c.has(WOUNDED_25):
            draft.emit(ConditionApplied(target=target, condition=WOUNDED_25, source="hit points"))
        elif left * 2 <= hp and not c.has(WOUNDED_50) and not c.has(WOUNDED_25):
            draft.emit(ConditionApplied(target=target, condition=WOUNDED_50, source="hit points"))

    def command(self, draft: Draft, command: Command) -> None:
        state = draft.state
        p = command.params
        if command.kind == "distance":
            a, b, yards = str(p.get("a")), str(p.get("b")), p.get("yards")
            for cid in (a, b):
                if cid not in state.combatants:
                    raise Refused(f"distance {cid!r}", "no such combatant", "ids: " + ", ".join(state.combatants))
            if a == b:
                raise Refused("distance", "name two different combatants")
            if isinstance(yards, bool) or not isinstance(yards, int) or yards < 0:
                raise Refused(f"distance {a} {b} {yards!r}", "a whole number of yards, 0 or more")
            if yards == 0 and state.phase not in ("setup", "surprise"):
                engage(draft, (a, b))
            elif yards == 0:
                draft.emit(Engaged(combatants=(a, b), bonus=reach_bonus(state, (a, b))))
            else:
                if b in own(state).engaged.get(a, ()):
                    draft.emit(Disengaged(combatants=(a, b)))
                draft.emit(DistanceSet(a=a, b=b, yards=yards, how="given"))
            rerank(draft)
            return
        if command.kind == "defend":
            c = state.combatants.get(command.actor or "")
            if c is None or not c.active:
                raise Refused(
                    f"defend {command.actor!r}",
                    "no such combatant in the fight",
                    "ids: " + ", ".join(x.id for x in state.active()),
                )
            if state.phase not in ("declare", "resolve"):
                raise Refused("defend", "defense is bought once the round has begun")
            why = check_defend(state, c, (), dict(command.params))
            ap = command.params.get("ap", 1)
            if why is None and c.resources.get("ap", 0) < ap:
                why = f"{c.name} has {c.resources.get('ap', 0)} AP"
            if why:
                raise Refused(f"defend {c.id}", why)
            draft.emit(ResourceSpent(combatant=c.id, resource="ap", amount=ap))
            draft.emit(DefenseBought(combatant=c.id, ap=ap))
            rerank(draft)
            return
        if command.kind == "engage":
            ids = p.get("combatants")
            if not isinstance(ids, list) or len(ids) < 2 or any(i not in state.combatants for i in ids):
                raise Refused("engage", "name two or more combatants", "ids: " + ", ".join(state.combatants))
            if state.phase in ("setup", "surprise"):
                draft.emit(Engaged(combatants=tuple(ids), bonus=reach_bonus(state, tuple(ids))))
            else:
                engage(draft, tuple(ids))
            rerank(draft)
            return
        raise Refused(f"command {command.kind!r}", "unknown command")

    # the policy function itself, bound as the method (`policy(rules, state, actor)`): no wrapper's frame
    policy = policy

    # how it tells a fight (telling.py): the functions themselves, bound as the methods
    summary = summary
    narrate = narrate
    describe = describe

    def board(self, state: Encounter) -> BoardView | None:
        # no positions: the yards between each pair of foes still standing, as the rules read them
        mine = own(state)
        active = state.active()
        pairs = [
            (a.id, b.id, distance(state, a.id, b.id), b.id in mine.engaged.get(a.id, ()))
            for i, a in enumerate(active)
            for b in active[i + 1 :]
            if a.side != b.side
        ]
        return BoardView(kind="distances", distances=tuple(pairs)) if pairs else None


_TURN = make_timing("turn")


# the actions `actions` offers everyone (punch, kick and first aid depend on the stats), by name
_ALWAYS = {spec.name: spec for spec in (ATTACK, AIM, *MOVE_SPECS, DEFEND, STAND, PURSUE)}


INFINITE_REALMS = InfiniteRealms()
