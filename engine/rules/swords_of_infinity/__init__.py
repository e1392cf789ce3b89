"""`swords-of-infinity`: Swords of Infinity, "Combat" (tactical time).

d% success and power rolls, two actions and a minor one a turn, damage targets with Wounded,
Disabled and Destroyed thresholds; the rules notes are `docs/rules/swords-of-infinity.md`.
The package: `model.py`, `events.py`, `numbers.py`, `reading.py`, `attack.py`, `movement.py`,
`actions.py`, `policy.py`, `telling.py`, and this file, the system itself.
"""

from __future__ import annotations

from typing import Any

from combatlog.engine.dicetree import excerpt
from combatlog.engine.errors import Refused
from combatlog.engine.order import RankedOrder
from combatlog.engine.protocol import ActionSpec, BoardView, Draft, RuleSystem, grid_problem
from combatlog.engine.rules.swords_of_infinity.actions import ACTIONS, MAJOR_WHILE_PINNED
from combatlog.engine.rules.swords_of_infinity.events import (
    EVENTS,
    Impairment,
    Pinned,
    Recovered,
    TurnMark,
)
from combatlog.engine.rules.swords_of_infinity.model import UNTIL_NEXT_TURN, VITAL, State, own
from combatlog.engine.rules.swords_of_infinity.model import Options as SoIOptions
from combatlog.engine.rules.swords_of_infinity.model import Stats as SoIStats
from combatlog.engine.rules.swords_of_infinity.movement import answer, offer_live
from combatlog.engine.rules.swords_of_infinity.numbers import power_of
from combatlog.engine.rules.swords_of_infinity.policy import policy, retaliation_choice
from combatlog.engine.rules.swords_of_infinity.reading import (
    destroyed,
    disabled_targets,
    level,
    penalty,
    raw_level,
    since_v2,
    skill,
)
from combatlog.engine.rules.swords_of_infinity.telling import describe, narrate, summary
from combatlog.engine.timing import Timing, make_timing
from combatlog.events import (
    CombatantDefeated,
    Command,
    ConditionApplied,
    ConditionRemoved,
    DamageApplied,
    TurnEnded,
)
from combatlog.projections import Combatant, Encounter, Pending


class SwordsOfInfinity(RuleSystem):
    """Swords of Infinity, Tactical Time (see the module's docstring)."""

    name = "swords-of-infinity"
    stats_type = SoIStats
    # 2: a Retaliate's target defends; Retaliate forgoes the turn's attack; a target whose
    # impairment was ignored checks Resist Impairment again when it is damaged again
    # 3: an unknown parameter is refused; a Retaliate's holder chooses whom to attack, among the
    # enemies that come within its reach, passing by or stopping there (the fight waits for the
    # choice: `retaliation`); a target gone (a dual attack's second blow at one the first felled)
    # says so in the core's words
    version = "3"
    params_since = 3
    events = EVENTS
    required_stats = ("vitality", "dexterity", "awareness")
    options_type = SoIOptions
    state_type = State
    commands = {
        "recover": "a day's recovery (actor; params rested = true|false, target = a damage target)",
        "retaliation": "a waiting Retaliate's choice: retaliation ACTOR attack (the enemy in reach now) or hold",
    }
    command_words = {"recover": ("actor", "target"), "retaliation": ("actor", "choice")}
    after_end = ("recover",)

    def check_combatant(self, stats: dict[str, Any], who: str = "") -> SoIStats:
        """The stats as given, checked against the typed model (`swords_of_infinity_model.Stats`)."""
        typed: SoIStats = super().check_combatant(stats, who)
        comp = typed.composition
        if comp is not None and (not comp or not all(1 <= v[0] <= v[1] <= 10 for v in comp.values())):
            raise Refused(
                f"combatant {who}" if who else "combatant",
                "$.composition: give {damage target: [low, high]} within 1-10",
            )
        return typed

    def order(self, options: SoIOptions) -> RankedOrder:
        return _ORDER

    def timing(self, options: SoIOptions) -> Timing:
        return _TURN

    def initiative_said(self, state: Encounter, c: Combatant) -> str | None:
        # a failed roll is kept as its negative, to sort after every success: said as rolled
        return f"{-c.initiative}, failed" if c.initiative is not None and c.initiative < 0 else None

    def initiative(self, draft: Draft, combatant: Combatant, ids: tuple[str, ...]) -> int:
        tn = combatant.stats.dexterity + combatant.stats.awareness + penalty(draft.state, combatant)
        roll = draft.roll("d%", f"initiative (Power, TN {tn})", by=combatant.id).total
        if roll <= tn or draft.state.options.failed_initiative == "roll":
            return roll
        return -roll  # after every success; among failures the lowest roll first

    def may_act(self, state: Encounter, combatant: Combatant) -> bool:
        # the base class's test in one frame (`combatant.active` inlined): asked for every
        # combatant whenever the next turn is looked for
        if combatant.defeated is not None or combatant.removed:
            return False
        return not (state.surprise_round and combatant.side in state.surprised)

    def place_problem(self, state: Encounter, to: str) -> str | None:
        return grid_problem(to)  # positions are squares of an x,y grid

    def board(self, state: Encounter) -> BoardView | None:
        return BoardView(kind="grid")

    def move_to(self, state: Encounter, actor: Combatant, place: str) -> Command | None:
        x, _, y = place.partition(",")
        return Command(kind="act", actor=actor.id, action="move", params={"x": int(x), "y": int(y)})

    def budget(self, state: Encounter, combatant: Combatant) -> dict[str, int]:
        if not combatant.wounds:
            return {"actions": 2, "minor": 1}  # nothing Disabled: asked at every turn's start
        return {"actions": max(0, 2 - len(disabled_targets(state, combatant))), "minor": 1}

    def actions(self, state: Encounter, actor: Combatant) -> list[ActionSpec]:
        return ACTIONS

    def action(self, state: Encounter, actor: Combatant, name: str) -> ActionSpec:
        spec = _BY_NAME.get(name) if type(name) is str else None  # one look-up; the base class refuses the rest
        if spec is None:
            spec = super().action(state, actor, name)
        mine = own(state)
        if actor.id in mine.pins and spec.cost.get("actions") and name not in MAJOR_WHILE_PINNED:
            raise Refused(f"{actor.name}: {name}", "pinned: no major action but escape", "escape, or a minor action")
        offer = mine.offer
        if offer is not None:  # (only version 3 makes one)
            holder, mover = state.combatants[offer.retaliator], state.combatants[offer.mover]
            raise Refused(
                f"{actor.name}: {name}",
                f"the fight waits for {holder.name}'s choice: {mover.name} came within its reach",
                f"retaliation {holder.id} attack, or retaliation {holder.id} hold",
            )
        return spec

    def affordable(self, state: Encounter, actor: Combatant) -> list[ActionSpec]:
        # every action costs one action or one minor action: the list for what is left, made once
        acts, minor = actor.resources.get("actions", 0), actor.resources.get("minor", 0)
        return list(_AFFORDABLE[acts >= 1, minor >= 1])

    def idle(self, state: Encounter, combatant: Combatant) -> bool:
        return combatant.resources.get("actions", 0) < 1  # a minor action alone doesn't hold a turn open

    def turn_started(self, draft: Draft, actors: tuple[str, ...]) -> None:
        for cid in actors:
            c = draft.state.combatants[cid]
            if c.conditions:  # (the conditions are looked at only when there are some)
                for name in UNTIL_NEXT_TURN:
                    if c.has(name):
                        draft.emit(ConditionRemoved(target=cid, condition=name, reason="its next turn"))
            effect = None
            for other in draft.state.combatants.values():  # a narrative effect lasts a round: to its source's turn
                if other.conditions:
                    if effect is None:
                        effect = f"narrative effect from {cid}"
                    if other.has(effect):
                        draft.emit(ConditionRemoved(target=other.id, condition=effect, reason="a round has passed"))
            draft.emit(TurnMark(combatant=cid, start=c.position or ""))

    def round_ending(self, draft: Draft) -> None:
        for cid, pin in sorted(own(draft.state).pins.items()):
            pinner = draft.state.combatants.get(pin.by)
            if pin.round < draft.state.round or pinner is None or not pinner.active:
                draft.emit(Pinned(combatant=cid, by=None))

    def target_gone(self, draft: Draft, pending: Pending, target: Combatant) -> str | None:
        if self.since(draft.state, 3):
            return super().target_gone(draft, pending, target)
        # versions 1 and 2: an attack's blow found the target gone (a dual attack's second blow,
        # at one the first felled; every action resolves in the step that declares it, at a
        # target just found standing); the other actions had no check
        if pending.action in ("attack", "dual_attack"):
            return f"{target.name} is already {target.defeated}"
        return None

    def after_damage(self, draft: Draft, target: str) -> None:
        state = draft.state
        c = state.combatants[target]
        if c.defeated is not None:
            return
        # the damage this hook hasn't looked at yet, in this step, by damage target
        done = getattr(draft, "soi_seen", 0)
        fresh: dict[str, int] = {}
        for e in draft.events[done:]:
            if isinstance(e, DamageApplied) and not e.held and e.target == target and e.location:
                fresh[e.location] = fresh.get(e.location, 0) + e.amount
        draft.soi_seen = len(draft.events)  # type: ignore[attr-defined]
        changed = sorted(fresh)
        seen = {t: c.wounds.get(t, 0) - n for t, n in fresh.items()}
        was_ignored = set()
        for where in changed:
            entry = own(state).impairment.get(target, {}).get(where, {})
            if "ignored" in entry:
                was_ignored.add(where)
            if "ignored" in entry or "aided" in entry:
                draft.emit(Impairment(combatant=target, target=where, what="cleared"))
        for where in changed:
            if destroyed(c, where):
                if where in VITAL and state.options.vital_destroyed == "dies":
                    draft.emit(CombatantDefeated(combatant=target, how=f"dead (the {where} destroyed)"))
                    return
                continue
            raw = raw_level(c, c.wounds[where])
            before = raw_level(c, seen.get(where, 0))
            tn = skill(c, "resist_impairment") + penalty(draft.state, c)
            # a new check whenever the damage Wounds or Disables the target; version 2: also when
            # damage ends the ignoring of a level it keeps ("until that Damage Target takes damage again")
            again = since_v2(draft.state) and where in was_ignored and raw >= 1
            if (raw > before or again) and tn >= 1:  # a check that can't succeed isn't rolled
                roll = draft.roll("d%", f"resist impairment: the {where} (TN {tn})", by=target).total
                if roll <= tn:
                    draft.emit(Impairment(combatant=target, target=where, what="ignored", level=raw))
        c = draft.state.combatants[target]
        if "head" in disabled_targets(draft.state, c):
            draft.emit(CombatantDefeated(combatant=target, how="unconscious"))
            return
        for where in changed:
            lv = level(draft.state, c, where)
            name = f"{where} disabled" if lv == 2 else f"{where} wounded" if lv == 1 else None
            if name and not c.has(name):
                draft.emit(ConditionApplied(target=target, condition=name, source="damage"))

    def waiting(self, state: Encounter) -> bool:
        return state.extra.offer is not None  # `own(state)` without its frame: asked at every turn

    def ruling_policy(self, state: Encounter) -> Command | None:
        return retaliation_choice(state)

    def _retaliation(self, draft: Draft, command: Command) -> None:
        """A waiting Retaliate's holder chooses: attack the mover now, or hold (version 3)."""
        state = draft.state
        offer = own(state).offer
        if offer is None:
            raise Refused(
                "retaliation", "no Retaliate waits for a choice", "one does when an enemy comes within a holder's reach"
            )
        holder, mover = state.combatants[offer.retaliator], state.combatants[offer.mover]
        usage = f"retaliation {holder.id} attack, or retaliation {holder.id} hold"
        if command.actor != holder.id:
            who = f"retaliation {command.actor or ''}".rstrip()
            raise Refused(who, f"it is {holder.name}'s Retaliate that waits", usage)
        choice = command.params.get("choice")
        if choice not in ("attack", "hold"):
            raise Refused(
                f"retaliation {holder.id} {excerpt(str(choice))}",
                f"choose attack ({mover.name}, in reach now) or hold (for another enemy)",
                usage,
            )
        if choice == "attack" and not offer_live(state, offer):
            raise Refused(
                f"retaliation {holder.id} attack",
                f"{holder.name} can't retaliate against {mover.name} now",
                f"retaliation {holder.id} hold lets the move go on",
            )
        answer(draft, offer, choice)
        # the mover's turn goes on, or ends as an action ends it (out of the fight, nothing left)
        state = draft.state
        if mover.id in state.acting and own(state).offer is None:
            me = state.combatants[mover.id]
            if not me.active or not self.affordable(state, me):
                self.turn_ending(draft, (mover.id,), {})
                if mover.id in draft.state.acting:
                    draft.emit(TurnEnded(actors=(mover.id,)))
        draft.advance()

    def command(self, draft: Draft, command: Command) -> None:
        if command.kind == "retaliation":
            self._retaliation(draft, command)
            return
        if command.kind != "recover":
            raise Refused(f"command {command.kind!r}", "unknown command")
        c = draft.state.combatants.get(command.actor or "")
        if c is None:
            raise Refused(
                f"recover {command.actor!r}", "no such combatant", "ids: " + ", ".join(draft.state.combatants)
            )
        if c.defeated and c.defeated.startswith("dead"):
            raise Refused(f"recover {c.id}", "the dead don't recover")
        hurt = [t for t, d in c.wounds.items() if d > 0 and not destroyed(c, t)]
        if not hurt:
            raise Refused(f"recover {c.id}", "nothing to heal")
        rested = bool(command.params.get("rested"))
        where = command.params.get("target")
        if not rested and where not in hurt:
            raise Refused(
                f"recover {c.id}",
                "without a day of rest one damage target heals: name it",
                f"target=... ({', '.join(hurt)})",
            )
        tn = c.stats.physical_resistance
        roll = draft.roll("d%", f"recovery (Power on Physical Resistance, TN {tn})", by=c.id).total
        points = power_of(roll, tn) // 10 % 10
        draft.emit(Recovered(combatant=c.id, healed={str(t): points for t in (hurt if rested else [where])}))

    # the policy function itself, bound as the method (`policy(rules, state, actor)`): no wrapper's frame
    policy = policy

    # how it tells a fight (telling.py): the functions themselves, bound as the methods
    summary = summary
    narrate = narrate
    describe = describe

    def health_level(self, state: Encounter, c: Combatant) -> str | None:
        """No single track: the worst of its damage targets (unhurt, hurt, wounded, disabled), or down."""
        if c.defeated is not None:
            return "down"
        worst = max((level(state, c, t) for t, d in c.wounds.items() if d), default=-1)
        return {-1: "unhurt", 0: "hurt", 1: "wounded"}.get(worst, "disabled")


_TURN = make_timing("turn")


_BY_NAME = {a.name: a for a in reversed(ACTIONS)}  # the first of a name, as the base class's look-up finds it


# the affordable actions by (an action left, a minor action left), in the order of ACTIONS
_AFFORDABLE = {
    (major, minor): [a for a in ACTIONS if (major if "actions" in a.cost else minor)]
    for major in (False, True)
    for minor in (False, True)
}


_ORDER = RankedOrder(ties=("higher:awareness", "rolloff:d%"))


SWORDS_OF_INFINITY = SwordsOfInfinity()
