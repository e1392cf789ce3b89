"""What a Straalara combatant can declare, with its stance and defense: attack, defend, move, task.

Every declaration carries the stance for the turn (`stance`: offense, partial, defense;
the first declaration of the turn sets it, later ones keep it) and the defense used
against attacks this turn (`defense`: block, parry, dodge, spell or none). A Dazed
combatant's next action is lost.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from combatlog.engine.protocol import ActionParam, ActionSpec, RuleSystem, weapon_names
from combatlog.engine.rules.straalara.attack import attack, pool
from combatlog.engine.rules.straalara.events import EffectLanded, EffectScheduled, StanceDeclared
from combatlog.engine.rules.straalara.model import (
    STANCE_DEFENSES,
    STANCE_DEFENSES_V2,
    Declared,
    Stats,
)
from combatlog.events import ConditionRemoved, Moved, ResourcesSet
from combatlog.projections import Combatant, Encounter, Pending

if TYPE_CHECKING:
    from combatlog.engine.protocol import Draft

STANCES = ("offense", "partial", "defense")
DEFENSES = ("block", "parry", "dodge", "spell", "none")


def declared_now(state: Encounter, cid: str) -> Declared | None:
    """What `cid` declared this turn (stance and defense), or None."""
    d = state.extra.declared.get(cid)  # `own(state)`, without its frame: asked several times a step
    return d if d is not None and d.round == state.round else None


def stance_now(state: Encounter, cid: str) -> str | None:
    """The stance `cid` declared this turn, or None."""
    d = state.extra.declared.get(cid)
    return d.stance if d is not None and d.round == state.round else None


def since_v3(state: Encounter) -> bool:
    """Version 3 or later of the rules: the stances' defenses as the text lists them."""
    return RuleSystem.since(state, 3)


def best_defense(state: Encounter, actor: Combatant, stance: str) -> str:
    """The defense with the biggest pool `stance` allows `actor` (the default when none is declared)."""
    mine: Stats = actor.stats
    return (mine.best_defenses_v3 if since_v3(state) else mine.best_defenses)[stance]


def given_stance(state: Encounter, actor: Combatant, params: dict[str, Any]) -> tuple[str, str]:
    """(stance, defense) a turn's first declaration carries: as given, or the defaults."""
    stance = str(params.get("stance", "partial"))
    defense = params.get("defense")
    return stance, str(defense) if defense is not None else best_defense(state, actor, stance)


def check_stance(
    rules: RuleSystem, state: Encounter, actor: Combatant, params: dict[str, Any], attacking: bool
) -> str | None:
    """Why this declaration's stance, defense or second action can't be, or None."""
    stance = params.get("stance")
    if stance is not None and stance not in STANCES:
        return f"stance {stance!r}: use offense, partial or defense"
    defense = params.get("defense")
    if defense is not None and defense not in DEFENSES:
        return f"defense {defense!r}: use block, parry, dodge, spell or none"
    now: str
    guard: str
    earlier = declared_now(state, actor.id)
    if earlier is not None:
        if stance is not None and stance != earlier.stance:
            return f"the {earlier.stance} stance holds for the whole turn"
        if defense is not None and defense != earlier.defense:
            return f"the defense declared this turn ({earlier.defense}) holds for the whole turn"
        now, guard = earlier.stance, earlier.defense
    else:
        now, guard = given_stance(state, actor, params)
    if since_v3(state):
        if now == "defense" and attacking:
            return "the Defense stance may not attack; it adds 4 dice to soak, parry and dodge rolls"
        if guard not in STANCE_DEFENSES[now]:
            return f"the Offense stance can only soak or parry, not {guard}: defense=parry, or none (soak alone)"
    else:
        if now == "defense" and attacking:
            return "the Defense stance may not attack; it adds 4 dice to every soak, parry, block and dodge"
        if guard not in STANCE_DEFENSES_V2[now]:
            return "the Offense stance may only soak or parry (or block), never dodge"
    if (
        now != "offense"  # asked first: the cheapest test, and most declarations aren't a second one
        and state.pending
        and state.options.passes == "interleaved"
        and any(p.actor == actor.id for p in state.pending)
    ):
        return "only the Offense stance acts twice a turn"
    return None


def _check_attack(
    state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any], rules: RuleSystem
) -> str | None:
    mine = actor.stats
    if not mine.weapons:
        return f"{actor.name} has no weapon (give weapons in the stats, e.g. fists of kind brawl)"
    name = params.get("weapon")
    if name is not None and str(name) not in mine.armed:  # `mine.weapon(str(name)) is None`
        return f"no weapon {name!r}; weapons: {', '.join(w.name for w in mine.weapons)}"
    return check_stance(rules, state, actor, params, attacking=True)


def lost_if_dazed(draft: Draft, p: Pending) -> str | None:
    """A Dazed actor's action is lost (and the daze with it), whatever the action: the outcome,
    or None when not Dazed (`Straalara.action_lost`, asked before every action resolves)."""
    actor = draft.state.combatants[p.actor]
    if not actor.has("dazed"):
        return None
    draft.emit(ConditionRemoved(target=actor.id, condition="dazed", reason="the action is lost"))
    return f"lost: {actor.name} is Dazed"


def _defend(draft: Draft, p: Pending) -> str:
    return "defends"


def _move(draft: Draft, p: Pending) -> str:
    draft.emit(Moved(combatant=p.actor, to=str(p.params["move_to"]), distance=0))
    return f"moves to {p.params['move_to']}"


def _task(draft: Draft, p: Pending) -> str:
    """A non-attack action: its pool against its difficulty; net successes take effect (now, or at
    the end of this turn or of a later one, for a delayed or extended action)."""
    state = draft.state
    actor = state.combatants[p.actor]
    opts = state.options
    dice = int(p.params.get("pool", 0)) + opts.wound_penalty(actor.damage)
    difficulty = int(p.params.get("difficulty", opts.difficulty))
    net, botch = pool(draft, dice, difficulty, f"{p.params.get('effect', 'task')}", actor.id, cancel=True)
    if net == 0:
        return "a botch: it fails" if botch else "no successes: it fails"
    text = str(p.params.get("effect", "it succeeds"))
    turns = int(p.params.get("turns", 1))
    if p.params.get("at_end_of_turn") or turns > 1:
        due = state.round + turns - 1
        draft.emit(EffectScheduled(actor=actor.id, round=due, text=text))
        return f"{net} net successes: takes effect at the end of turn {due}"
    draft.emit(EffectLanded(actor=actor.id, text=text))
    return f"{net} net successes: {text}"


def _check_task(
    state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any], rules: RuleSystem
) -> str | None:
    for key in ("pool", "difficulty", "turns"):
        value = params.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            return f"{key} must be a whole number, not {value!r}"
    if not isinstance(params.get("pool"), int):
        return "give the task's dice pool: pool=N (Attribute + Ability)"
    return check_stance(rules, state, actor, params, attacking=False)


def _check_move(
    state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any], rules: RuleSystem
) -> str | None:
    if not params.get("move_to"):
        return "say where to: move_to=<place> (up to the full walk speed; an attack can move too)"
    return check_stance(rules, state, actor, params, attacking=False)


def _check_defend(
    state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any], rules: RuleSystem
) -> str | None:
    return check_stance(rules, state, actor, params, attacking=False)


# every declaration carries the turn's stance and defense (the turn's first sets them)
STANCE = (
    ActionParam("stance", choices=STANCES, help="the stance for the turn (default partial)"),
    ActionParam("defense", choices=DEFENSES, help="the defense against attacks this turn (default: the best)"),
)
ATTACK_PARAMS = (
    ActionParam("weapon", help="the weapon (default: the first)", offered=weapon_names),
    *STANCE,
    ActionParam("move_to", help="where the attacker moves as it attacks"),
    ActionParam("modifier", "int", help="added to the attack's difficulty (which stays within 2-10)"),
    ActionParam("unseen", "bool", help="the target can't sense it coming: no dodge"),
)
MOVE_PARAMS = (ActionParam("move_to", help="where to, up to the full walk speed"), *STANCE)
TASK_PARAMS = (
    ActionParam("pool", "int", help="the dice pool: Attribute + Ability"),
    ActionParam("difficulty", "int", help="the difficulty (default: the encounter's)"),
    ActionParam("effect", help="what it does when it succeeds"),
    ActionParam("at_end_of_turn", "bool", help="a delayed action: takes effect at the end of the turn"),
    ActionParam("turns", "int", help="an extended action: takes effect at the end of this many turns"),
    *STANCE,
)


def actions(rules: RuleSystem) -> list[ActionSpec]:
    """Straalara's actions, their checks bound to `rules`."""

    def bound(check: Any) -> Any:
        return partial(check, rules=rules)  # the check with `rules` given, in no frame of its own

    one = {"actions": 1}
    return [
        ActionSpec(
            "attack",
            None,
            one,
            attack,
            check=bound(_check_attack),
            help="an attack with a weapon (params weapon, stance, defense, move_to, modifier, unseen)",
            params=ATTACK_PARAMS,
        ),
        ActionSpec(
            "defend",
            None,
            one,
            _defend,
            targets="none",
            min_targets=0,
            max_targets=0,
            check=bound(_check_defend),
            help="no attack: stance and defense only (params stance, defense)",
            params=STANCE,
        ),
        ActionSpec(
            "move",
            None,
            one,
            _move,
            targets="none",
            min_targets=0,
            max_targets=0,
            check=bound(_check_move),
            help="move up to the full walk speed (params move_to, stance, defense)",
            params=MOVE_PARAMS,
        ),
        ActionSpec(
            "task",
            None,
            one,
            _task,
            targets="none",
            min_targets=0,
            max_targets=0,
            check=bound(_check_task),
            help="a non-attack action (params pool, difficulty, effect, at_end_of_turn, turns)",
            params=TASK_PARAMS,
        ),
    ]


def declared(draft: Draft, p: Pending) -> None:
    """The first declaration of a turn records the stance and defense; under `interleaved` an Offense
    stance gets its second action then."""
    state = draft.state
    if stance_now(state, p.actor) is not None:
        return
    stance, defense = given_stance(state, state.combatants[p.actor], p.params)
    draft.emit(StanceDeclared(combatant=p.actor, round=state.round, stance=stance, defense=defense))
    if stance == "offense" and state.options.passes == "interleaved":
        draft.emit(ResourcesSet(combatant=p.actor, resources={"actions": 1}))
