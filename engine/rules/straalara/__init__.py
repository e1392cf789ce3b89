"""`straalara`: Straalara's combat turns (rules notes: `docs/rules/straalara.md`).

Initiative every turn (Wits + Dexterity − wound penalty + 1d10; ties by rating, then
simultaneous), stances and actions declared lowest score first and resolved highest
first, Offense's second action in a second pass at score − 10 (or interleaved), d10 pools
against 6 with 1s cancelling and botches ruled by the game master, damage and soak in
health levels, wound penalties, Dazed, and effects landing at the end of the turn.
"""

from __future__ import annotations

from functools import cached_property

from combatlog.engine.errors import Refused
from combatlog.engine.protocol import ActionSpec, Draft, Order, RuleSystem
from combatlog.engine.rules.straalara import actions as _actions
from combatlog.engine.rules.straalara.attack import after_damage, health_level
from combatlog.engine.rules.straalara.events import (
    EVENTS,
    BotchRuled,
    EffectLanded,
    own,
)
from combatlog.engine.rules.straalara.model import Options, State, Stats
from combatlog.engine.rules.straalara.order import StraalaraOrder
from combatlog.engine.rules.straalara.policy import policy
from combatlog.engine.rules.straalara.telling import describe, narrate, summary
from combatlog.engine.timing import Timing, make_timing
from combatlog.events import Command, ConditionRemoved, GmRuling, Moved, TurnEnded
from combatlog.projections import Combatant, Encounter, Pending

_ORDERS = {False: StraalaraOrder(interleaved=False), True: StraalaraOrder(interleaved=True)}
# every action resolves after everyone declared, one tier (equal score and rating) at a time;
# a tier's damage counts once the whole tier resolved
_TIMING = make_timing("simultaneous", hold_until="tier")


class Straalara(RuleSystem):
    """Straalara (see the module's docstring)."""

    name = "straalara"
    # 2: a wounded rating may go below 0; 3: an unknown parameter is refused, Offense defends
    # only by parry (or soak alone), and the Defense stance's 4 dice go to soak, parry and
    # dodge, not to a block or a spell; a target gone loses the attack whole, in the core's words
    version = "3"
    tiers_since = 1  # its order resolves tier by tier (score and rating) and always did
    params_since = 3
    events = EVENTS
    stats_type = Stats
    options_type = Options
    state_type = State
    commands = {"botch": "the game master's ruling on a botched attack's adverse effect: botch TEXT"}
    command_words = {"botch": ("...effect",)}

    def order(self, options: Options) -> Order:
        return _ORDERS[options.passes == "interleaved"]

    def timing(self, options: Options) -> Timing:
        return _TIMING

    def initiative(self, draft: Draft, combatant: Combatant, ids: tuple[str, ...]) -> int:
        raise NotImplementedError("Straalara's order rolls initiative itself")

    def budget(self, state: Encounter, combatant: Combatant) -> dict[str, int]:
        return {"actions": 1}

    def may_act(self, state: Encounter, combatant: Combatant) -> bool:
        # the base class's test (active, not surprised), then the pass's, in one frame: asked for
        # every combatant whenever the next turn is looked for
        if combatant.defeated is not None or combatant.removed:
            return False
        if state.surprise_round and combatant.side in state.surprised:
            return False
        return state.action_pass == 1 or _actions.stance_now(state, combatant.id) == "offense"

    def stance(self, state: Encounter, cid: str) -> str | None:
        """The stance `cid` declared this turn, or None."""
        return _actions.stance_now(state, cid)

    @cached_property
    def _specs(self) -> tuple[list[ActionSpec], dict[str, ActionSpec]]:
        """The actions in order, and by name (made once: their checks are bound to this system)."""
        specs = _actions.actions(self)
        by_name: dict[str, ActionSpec] = {}
        for spec in specs:
            by_name.setdefault(spec.name, spec)
        return specs, by_name

    def actions(self, state: Encounter, actor: Combatant) -> list[ActionSpec]:
        return list(self._specs[0])

    def action(self, state: Encounter, actor: Combatant, name: str) -> ActionSpec:
        spec = self._specs[1].get(name)  # one look-up; an unknown name is refused by the base class
        return spec if spec is not None else super().action(state, actor, name)

    def affordable(self, state: Encounter, actor: Combatant) -> list[ActionSpec]:
        # every action costs one action (`actions`, never `cost`d otherwise): all or none of them
        return list(self._specs[0]) if actor.resources.get("actions", 0) >= 1 else []

    def idle(self, state: Encounter, combatant: Combatant) -> bool:
        return combatant.resources.get("actions", 0) < 1  # nothing affordable (see `affordable`)

    def action_lost(self, draft: Draft, pending: Pending) -> str | None:
        return _actions.lost_if_dazed(draft, pending)

    def target_gone(self, draft: Draft, pending: Pending, target: Combatant) -> str | None:
        if self.since(draft.state, 3):
            return super().target_gone(draft, pending, target)
        to = pending.params.get("move_to")  # versions 1 and 2 moved first, then found no one to attack
        if to:
            draft.emit(Moved(combatant=pending.actor, to=str(to), distance=0))
        return f"no attack: {target.name} is already {target.defeated or 'gone'}"

    def declared(self, draft: Draft, pending: Pending) -> None:
        _actions.declared(draft, pending)

    def turn_started(self, draft: Draft, actors: tuple[str, ...]) -> None:
        for cid in actors:
            c = draft.state.combatants[cid]
            if c.has("dazed") and not any(p.actor == cid for p in draft.state.pending):
                draft.emit(ConditionRemoved(target=cid, condition="dazed", reason="the action is lost"))
                draft.emit(TurnEnded(actors=(cid,)))

    def another_pass(self, state: Encounter) -> bool:
        if state.action_pass != 1 or state.options.passes != "repeat":
            return False
        declared, round_ = own(state).declared, state.round  # `stance_now`, inlined: asked after every pass
        for c in state.combatants.values():
            if c.defeated is None and not c.removed:
                d = declared.get(c.id)
                if d is not None and d.round == round_ and d.stance == "offense":
                    return True
        return False

    def round_ending(self, draft: Draft) -> None:
        for effect in own(draft.state).effects:
            if effect.round <= draft.state.round:
                draft.emit(EffectLanded(actor=effect.actor, text=effect.text))

    def after_damage(self, draft: Draft, target: str) -> None:
        after_damage(draft, target)

    def waiting(self, state: Encounter) -> bool:
        return state.extra.botch is not None  # `own(state)` without its frame: asked at every turn

    def command(self, draft: Draft, command: Command) -> None:
        if command.kind != "botch":
            super().command(draft, command)
        actor = own(draft.state).botch
        if actor is None:
            raise Refused("botch", "no botch is waiting for a ruling")
        effect = str(command.params.get("effect", "")).strip()
        if not effect:
            raise Refused("botch", "say what goes wrong", "e.g. botch the bowstring breaks")
        draft.emit(GmRuling(topic="botch", decision=effect, text=f"{draft.state.combatants[actor].name}'s botch"))
        draft.emit(BotchRuled(actor=actor))
        draft.advance()

    # the policy function itself, bound as the method (`policy(rules, state, actor)`): no wrapper's frame
    policy = policy

    def ruling_policy(self, state: Encounter) -> Command | None:
        if own(state).botch is None:
            return None
        return Command(kind="botch", params={"effect": "nothing lasting: the moment passes"}, by="policy")

    def health(self, state: Encounter, c: Combatant) -> tuple[int, int] | None:
        levels = len(state.options.health_levels) + 1  # the track, then Incapacitated
        return (max(levels - c.damage, 0), levels)

    def health_level(self, state: Encounter, c: Combatant) -> str | None:
        """The health level the track names (bruised, hurt ... incapacitated), or down once defeated."""
        return "down" if c.defeated is not None else health_level(self, state, c).lower()

    # how it tells a fight (telling.py): the functions themselves, bound as the methods
    summary = summary
    narrate = narrate
    describe = describe


STRAALARA = Straalara()
