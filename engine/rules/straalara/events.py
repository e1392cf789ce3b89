"""Straalara's own events (tags prefixed `straalara.`), the phases they may come in, and their folds."""

from __future__ import annotations

from msgspec.structs import replace

from combatlog.engine.rules.straalara.model import Declared, Effect, State
from combatlog.events import Event
from combatlog.projections import Encounter, allow, register_fold
from combatlog.projections.phases import DECLARE, LIVE, RESOLVE


class StanceDeclared(Event, tag="straalara.StanceDeclared", frozen=True):
    """A combatant declared its stance for the turn, and the defense it uses against attacks."""

    combatant: str
    round: int
    stance: str
    defense: str


class Botched(Event, tag="straalara.Botched", frozen=True):
    """An attack botched (no successes, at least one 1): the game master rules what goes wrong."""

    actor: str
    weapon: str


class BotchRuled(Event, tag="straalara.BotchRuled", frozen=True):
    """The game master ruled the botch's adverse effect (the GmRuling before it says what)."""

    actor: str


class DazingBlow(Event, tag="straalara.DazingBlow", frozen=True):
    """An attack's damage exceeds the target's Stamina: it is Dazed once the damage counts."""

    target: str
    attacker: str


class Dazed(Event, tag="straalara.Dazed", frozen=True):
    """The dazing blow's damage counted: the target is Dazed (the ConditionApplied after it)."""

    target: str


class EffectScheduled(Event, tag="straalara.EffectScheduled", frozen=True):
    """An extended or delayed action succeeded; its effect lands at the end of turn `round`."""

    actor: str
    round: int
    text: str


class EffectLanded(Event, tag="straalara.EffectLanded", frozen=True):
    """An action's effect took effect (at once, or at the end of the turn)."""

    actor: str
    text: str


EVENTS: tuple[type[Event], ...] = (
    StanceDeclared,
    Botched,
    BotchRuled,
    DazingBlow,
    Dazed,
    EffectScheduled,
    EffectLanded,
)

allow("straalara.StanceDeclared", [DECLARE, RESOLVE])
allow("straalara.Botched", [DECLARE, RESOLVE])
allow("straalara.BotchRuled", LIVE)
allow("straalara.DazingBlow", [DECLARE, RESOLVE])
allow("straalara.Dazed", [DECLARE, RESOLVE])
allow("straalara.EffectScheduled", [DECLARE, RESOLVE])
allow("straalara.EffectLanded", [DECLARE, RESOLVE])


def own(state: Encounter) -> State:
    """Straalara's state in `state`."""
    return state.extra  # type: ignore[no-any-return]


@register_fold(StanceDeclared)
def _stance(state: Encounter, e: StanceDeclared) -> Encounter:
    mine = own(state)
    declared = {**mine.declared, e.combatant: Declared(round=e.round, stance=e.stance, defense=e.defense)}  # type: ignore[arg-type]
    return replace(state, extra=replace(mine, declared=declared))


@register_fold(Botched)
def _botched(state: Encounter, e: Botched) -> Encounter:
    return replace(state, extra=replace(own(state), botch=e.actor))


@register_fold(BotchRuled)
def _botch_ruled(state: Encounter, e: BotchRuled) -> Encounter:
    return replace(state, extra=replace(own(state), botch=None))


@register_fold(DazingBlow)
def _dazing(state: Encounter, e: DazingBlow) -> Encounter:
    mine = own(state)
    return replace(state, extra=replace(mine, dazing={**mine.dazing, e.target: e.attacker}))


@register_fold(Dazed)
def _dazed(state: Encounter, e: Dazed) -> Encounter:
    mine = own(state)
    dazing = dict(mine.dazing)
    dazing.pop(e.target, None)
    return replace(state, extra=replace(mine, dazing=dazing))


@register_fold(EffectScheduled)
def _scheduled(state: Encounter, e: EffectScheduled) -> Encounter:
    mine = own(state)
    return replace(
        state, extra=replace(mine, effects=(*mine.effects, Effect(round=e.round, actor=e.actor, text=e.text)))
    )


@register_fold(EffectLanded)
def _landed(state: Encounter, e: EffectLanded) -> Encounter:
    mine = own(state)
    effects = list(mine.effects)
    for i, x in enumerate(effects):
        if x.actor == e.actor and x.text == e.text and x.round <= state.round:
            del effects[i]  # a scheduled effect landing (an immediate one was never scheduled)
            break
    return replace(state, extra=replace(mine, effects=tuple(effects)))
