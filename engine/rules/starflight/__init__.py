"""`starflight`: Starflight RPG 9.1, "General Combat Rules".

The general procedure the engine's phases come from: surprise, initiative (2d10 + Initiative),
ranges, declare and resolve, the composite strength index at the round's end, timing per
category, and Simple Combat. The rules notes are `docs/rules/starflight.md`. The package:
`model.py`, `events.py`, `reading.py`, `placement.py`, `actions.py`, `simple_combat.py`,
`order.py`, `commands.py`, `policy.py`, `telling.py`, and this file, the system itself:
`Starflight`, and `StarflightSimple`, the variant an encounter created with `method = "simple"`
plays with (`Starflight.variant`), overriding only what Simple Combat does differently.
"""

from __future__ import annotations

from typing import Any

from combatlog.engine.errors import Refused
from combatlog.engine.order import RankedOrder
from combatlog.engine.protocol import ActionSpec, BoardView, Draft, RuleSystem, grid_problem
from combatlog.engine.rules.starflight.actions import HEAL, MELEE, MOVE, SHOOT, move_distance
from combatlog.engine.rules.starflight.commands import conclude, marching_cmd, place_cmd, range_cmd
from combatlog.engine.rules.starflight.events import (
    EVENTS,
    Awaiting,
    RangeSet,
    ShieldsSet,
    StrengthTotalled,
)
from combatlog.engine.rules.starflight.model import NEAR_DEATH, NO_RECOVERY, UNCONSCIOUS, own
from combatlog.engine.rules.starflight.model import Options as SFOptions
from combatlog.engine.rules.starflight.model import State as SFState
from combatlog.engine.rules.starflight.model import Stats as SFStats
from combatlog.engine.rules.starflight.order import SimpleOrder, StarflightOrder
from combatlog.engine.rules.starflight.placement import place_all
from combatlog.engine.rules.starflight.policy import policy
from combatlog.engine.rules.starflight.reading import (
    cheapest,
    check_dice,
    csi,
    near_death,
    shields,
    weapon,
)
from combatlog.engine.rules.starflight.simple_combat import exchange, goal, not_simple
from combatlog.engine.rules.starflight.telling import describe, narrate, summary
from combatlog.engine.timing import Timing
from combatlog.events import CombatantDefeated, Command, ConditionApplied, ConditionRemoved
from combatlog.projections import Combatant, Encounter, Pending

_MODES = ("turn", "simultaneous")


_BY_NAME = {spec.name: spec for spec in (SHOOT, MELEE, MOVE, HEAL)}


_SIMPLE = SimpleOrder()
_ORDERS = {
    group: StarflightOrder(ties=("pc_first", "rolloff:1d10z"), group_initiative=group) for group in (False, True)
}


class Starflight(RuleSystem):
    """Starflight RPG, chapter 9.1 (see the module's docstring)."""

    name = "starflight"
    # 2: a group rolling once acts simultaneously (its tier's damage held to its turn's end), an
    # unknown parameter is refused, and a target gone before the action resolves says so in the
    # core's words
    version = "2"
    tiers_since = 2
    params_since = 2
    events = EVENTS
    required_stats = ("hp", "initiative", "hd", "strength")
    options_type = SFOptions
    stats_type = SFStats
    state_type = SFState
    commands = {
        "place": "place a combatant on the grid (actor; params x, y, facing 1-8)",
        "range": "give a combatant's range to its target without a grid (actor; params range; none: roll 2d10)",
        "marching": "record a side's marching order (params side, order = ids front to back)",
        "conclude": "resolve combat (params decision = continue | victory | draw, winner = side)",
        "exchange": "Simple Combat: every group rolls 2d10 and the losses fall",
        "goal": "Simple Combat: a group that rolled 18 chooses (params group, choice = secondary | bonus)",
    }

    command_words = {
        "place": ("actor", "x", "y", "facing"),
        "range": ("actor", "range"),
        "marching": ("side", "*order"),
        "conclude": ("decision", "winner"),
        "exchange": (),
        "goal": ("group", "choice"),
    }

    # --- options and combatants ---

    def options(self, given: dict[str, Any]) -> dict[str, Any]:
        out = super().options(given)
        if out["scale"] == "starship" and out["movement"] == "speed":
            raise Refused(
                "option movement='speed'",
                "starship-scale combat uses initiative-based movement only",
                "use movement='initiative'",
            )
        return out

    def check_combatant(self, stats: dict[str, Any], who: str = "") -> SFStats:
        typed: SFStats = super().check_combatant(stats, who)
        if typed.heal is not None:
            check_dice(typed.heal, "stat heal")
        names = set()
        for i, w in enumerate(typed.weapons):
            if w.name in names:
                raise Refused(f"$.weapons[{i}]", f"two weapons named {w.name!r}")
            names.add(w.name)
            check_dice(w.damage, f"weapons[{i}].damage")
            if not w.melee and w.range < 1:
                raise Refused(f"$.weapons[{i}]", "a weapon needs range >= 1 (shooting) or melee = true")
        return typed

    # --- order and timing ---

    def variant(self, options: SFOptions) -> RuleSystem:
        return STARFLIGHT_SIMPLE if options.method == "simple" else self

    def order(self, options: SFOptions) -> RankedOrder:
        # orders are configuration, never changed: one of each kind, asked for a few times a step
        return _ORDERS[options.group_initiative]

    def timing(self, options: SFOptions) -> Timing:
        return options.timing_of

    def initiative(self, draft: Draft, combatant: Combatant, ids: tuple[str, ...]) -> int:
        init = combatant.stats.initiative
        expr = f"2d10z{init:+d}" if init else "2d10z"
        return draft.roll(expr, "initiative check", by=combatant.id).total

    def surprise(self, state: Encounter, sides: tuple[str, ...]) -> tuple[str, ...]:
        if set(sides) >= set(state.sides()):
            return ()  # everyone surprised: the surprises cancel
        return tuple(sides)

    # --- turns ---

    def movement_points(self, state: Encounter, c: Combatant) -> int:
        """Movement points a round: Initiative + 1, or speed (kph x 5/3 m) over the increment's metres."""
        stats: SFStats = c.stats
        if state.options.movement == "speed":
            metres = float(stats.speed) * 5 / 3
            return int(metres // state.options.increment_m)
        return max(0, stats.initiative + 1)

    def place_problem(self, state: Encounter, to: str) -> str | None:
        return grid_problem(to)  # positions are squares of an x,y grid

    def board(self, state: Encounter) -> BoardView | None:
        if state.options.grid != "none":
            return BoardView(kind="grid")
        ranges = sorted(set(own(state).ranges.values()))
        return BoardView(kind="bands", bands=tuple(str(r) for r in ranges)) if ranges else None

    def place_of(self, state: Encounter, c: Combatant) -> str | None:
        if state.options.grid != "none":
            return c.position
        r = own(state).ranges.get(c.id)
        return None if r is None else str(r)  # its range band to its target

    def budget(self, state: Encounter, combatant: Combatant) -> dict[str, int]:
        if combatant.has(UNCONSCIOUS):
            return {"actions": 0}
        out = {"actions": 1 if near_death(combatant) else 2}
        if state.options.grid != "none":
            out["mp"] = self.movement_points(state, combatant)
        return out

    def may_act(self, state: Encounter, combatant: Combatant) -> bool:
        return super().may_act(state, combatant) and not combatant.has(UNCONSCIOUS)

    def actions(self, state: Encounter, actor: Combatant) -> list[ActionSpec]:
        out = []
        ranged, melee = cheapest(actor)
        if ranged is not None:
            out.append(SHOOT)
        if melee is not None:
            out.append(MELEE)
        out.append(MOVE)  # refused with a reason when there is no grid
        if actor.stats.heal is not None:
            out.append(HEAL)
        return out

    def action(self, state: Encounter, actor: Combatant, name: str) -> ActionSpec:
        # `actions` without building its list: asked twice an action (declared, resolved)
        spec = _BY_NAME.get(name)
        if spec is MOVE:
            return MOVE
        if spec is SHOOT or spec is MELEE:
            if actor.stats.cheapest[spec is MELEE] is not None:
                return spec
        elif spec is HEAL and actor.stats.heal is not None:
            return HEAL
        return super().action(state, actor, name)  # refused, listing the known ones

    def cost(self, state: Encounter, actor: Combatant, spec: ActionSpec, params: dict[str, Any]) -> dict[str, int]:
        if spec.name in ("shoot", "melee"):
            if not actor.stats.full_round:
                return {"actions": 1}  # whichever weapon it names: no full-round one to look for
            w = weapon(actor, params.get("weapon"), spec.name == "melee")
            return {"actions": 2 if w is not None and w.full_round else 1}
        if spec.name == "move":
            return {"actions": 1, "mp": max(1, move_distance(state, actor, params))}
        return dict(spec.cost)

    def affordable(self, state: Encounter, actor: Combatant) -> list[ActionSpec]:
        # `actions` filtered by what is left, in its order, without building it first
        left = actor.resources.get("actions", 0)
        if left < 1:
            return []  # every action costs one at least
        ranged, melee = actor.stats.cheapest
        out = []
        if ranged is not None and left >= ranged:
            out.append(SHOOT)
        if melee is not None and left >= melee:
            out.append(MELEE)
        if actor.resources.get("mp", 0) >= 1:
            out.append(MOVE)
        if actor.stats.heal is not None:
            out.append(HEAL)
        return out

    def target_gone(self, draft: Draft, pending: Pending, target: Combatant) -> str | None:
        if self.since(draft.state, 2):
            return super().target_gone(draft, pending, target)
        already = "" if pending.action == "heal" else "already "  # version 1's two wordings
        return f"{target.name} is {already}{target.defeated or 'gone'}"

    def round_started(self, draft: Draft) -> None:
        state = draft.state
        grid = state.options.grid
        if grid == "none":
            if state.options.ranges == "rolled":
                for cid in state.flat_order():
                    c = draft.state.combatants[cid]
                    if c.active:
                        r = draft.roll("2d10z", "range to target", by=cid).total
                        draft.emit(RangeSet(combatant=cid, range=r, how="rolled"))
            return
        if state.options.ranges == "rolled":
            place_all(draft)

    def round_ending(self, draft: Draft) -> None:
        for c in draft.state.active():
            stats = c.stats
            regen = stats.shield_regen
            if regen <= 0:
                continue  # most have no shields to regenerate
            top = stats.shields or 0
            now = shields(draft.state, c)
            if now < top and not c.has(NO_RECOVERY):
                draft.emit(ShieldsSet(combatant=c.id, shields=min(top, now + regen), reason="regenerated"))

    def round_ended(self, draft: Draft) -> None:
        state = draft.state
        draft.emit(StrengthTotalled(csi=csi(state), reason=f"end of round {state.round}"))
        if state.options.victory == "ruling" and not state.surprise_round and self.outcome(draft.state) is None:
            draft.emit(Awaiting(topic="resolve combat"))

    def waiting(self, state: Encounter) -> bool:
        return own(state).awaiting is not None

    def idle(self, state: Encounter, combatant: Combatant) -> bool:
        return not self.affordable(state, combatant)

    # --- damage and the end ---

    def after_damage(self, draft: Draft, target: str) -> None:
        c = draft.state.combatants[target]
        if c.defeated is not None:
            return
        stats = c.stats
        left = stats.hp - c.damage
        if left <= stats.unconscious_at:
            draft.emit(CombatantDefeated(combatant=target, how=UNCONSCIOUS))
        elif left <= stats.near_death:
            if not c.has(NEAR_DEATH):
                draft.emit(ConditionApplied(target=target, condition=NEAR_DEATH, source="hit points"))
        elif c.has(NEAR_DEATH):
            draft.emit(ConditionRemoved(target=target, condition=NEAR_DEATH, reason="healed"))

    def outcome(self, state: Encounter) -> tuple[str, str | None] | None:
        # Asked after every action, so one pass that stops as soon as the answer is known: two
        # sides standing, someone armed. Strength is at least 1 (checked when a combatant is
        # added), so a side's CSI is 0 exactly when no one of it stands.
        first = None  # the first side seen standing
        two = armed = False
        for c in state.combatants.values():
            if c.defeated is None and not c.removed:
                if not armed and c.stats.weapons:
                    armed = True
                if first is None:
                    first = c.side
                elif c.side != first:
                    two = True
                if armed and two:
                    return None
        if not armed and state.phase != "setup":
            return ("draw: no one left standing has a weapon", None)
        return None if two else csi_outcome(state, first)

    # --- commands of this system ---

    def command(self, draft: Draft, command: Command) -> None:
        handler = {
            "place": place_cmd,
            "range": range_cmd,
            "marching": marching_cmd,
            "conclude": conclude,
            "exchange": not_simple,
            "goal": goal,  # no choice is ever due: refused, saying when one comes
        }.get(command.kind)
        if handler is None:
            raise Refused(f"command {command.kind!r}", "unknown command")
        handler(draft, command)

    def policy(self, state: Encounter, actor: Combatant) -> Command:
        return policy(self, state, actor)

    def ruling_policy(self, state: Encounter) -> Command | None:
        if own(state).awaiting == "resolve combat":
            return Command(kind="conclude", params={"decision": "continue"}, by="policy")
        return None

    # how it tells a fight (telling.py): the functions themselves, bound as the methods
    summary = summary
    narrate = narrate
    describe = describe


def csi_outcome(state: Encounter, first: str | None) -> tuple[str, str | None]:
    """How the fight ends when `first` is the one side left standing (None: no one is): by the
    composite strength index, which is 0 for every other side."""
    if first is None:
        return ("draw: every side's CSI is 0", None)
    sides = dict.fromkeys(c.side for c in state.combatants.values() if not c.removed)  # as `csi` orders them
    lost = ", ".join(s for s in sides if s != first)
    return (f"victory: the CSI of {lost} is 0", first)


class StarflightSimple(Starflight):
    """Simple Combat (option `method = "simple"`): no surprise round, no ranges and no actions;
    every group rolls once an exchange (`exchange`, in `simple_combat.py`), for everyone at once,
    and the losses fall by the differences. What isn't here is Starflight's."""

    def order(self, options: SFOptions) -> RankedOrder:
        return _SIMPLE  # everyone in one tier: an exchange is one command

    def surprise(self, state: Encounter, sides: tuple[str, ...]) -> tuple[str, ...]:
        return ()

    def budget(self, state: Encounter, combatant: Combatant) -> dict[str, int]:
        return {"actions": 1}

    def may_act(self, state: Encounter, combatant: Combatant) -> bool:
        return combatant.active

    def actions(self, state: Encounter, actor: Combatant) -> list[ActionSpec]:
        return []

    def action(self, state: Encounter, actor: Combatant, name: str) -> ActionSpec:
        return RuleSystem.action(self, state, actor, name)  # refused: there are none

    def affordable(self, state: Encounter, actor: Combatant) -> list[ActionSpec]:
        return []

    def round_started(self, draft: Draft) -> None:
        """No ranges to roll and no one to place: the groups' rolls are all there is."""

    def idle(self, state: Encounter, combatant: Combatant) -> bool:
        return False  # an exchange is one command for everyone

    def outcome(self, state: Encounter) -> tuple[str, str | None] | None:
        # by the CSI alone: a group without weapons still rolls
        first = None
        for c in state.combatants.values():
            if c.defeated is None and not c.removed:
                if first is None:
                    first = c.side
                elif c.side != first:
                    return None
        return csi_outcome(state, first)

    def command(self, draft: Draft, command: Command) -> None:
        if command.kind == "exchange":
            exchange(draft, command)
        else:
            super().command(draft, command)

    def policy(self, state: Encounter, actor: Combatant) -> Command:
        due = [g for g, v in own(state).goals.items() if v.choice_due]
        if due:
            return Command(kind="goal", params={"group": due[0], "choice": "bonus"}, by="policy")
        return Command(kind="exchange", by="policy")


STARFLIGHT = Starflight()
STARFLIGHT_SIMPLE = StarflightSimple()
