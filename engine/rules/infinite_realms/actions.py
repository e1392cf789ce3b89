"""What an Infinite Realms combatant can do with its action points: attack, punch, kick, aim,
move, defend, stand, first aid, pursue."""

from __future__ import annotations

from typing import Any

from combatlog.engine.protocol import ActionParam, ActionSpec, Draft
from combatlog.engine.rules.infinite_realms.attack import strike
from combatlog.engine.rules.infinite_realms.events import Aimed, BleedingStarted, DefenseBought
from combatlog.engine.rules.infinite_realms.model import (
    AIM_MAX,
    BLEEDING,
    DOWN,
    KICK,
    MOVES,
    PUNCH,
    Weapon,
    own,
)
from combatlog.engine.rules.infinite_realms.movement import check_move, check_pursue, move, pursue
from combatlog.engine.rules.infinite_realms.reading import distance, engaged_with, weapon, weapons
from combatlog.events import ConditionRemoved
from combatlog.projections import Combatant, Encounter, Pending


def weapon_of(state: Encounter, actor: Combatant, p: dict[str, Any]) -> Weapon | None:
    """The weapon the action's params name (`weapon=`), or the actor's first unbroken one; None without one."""
    return weapon(state, actor, p.get("weapon"))


def _attack(draft: Draft, p: Pending) -> str:
    state = draft.state
    actor = state.combatants[p.actor]
    w = PUNCH if p.action == "punch" else KICK if p.action == "kick" else weapon_of(state, actor, p.params)
    if w is None:
        return "no weapon"
    return strike(draft, actor.id, p.targets[0], w)


def _check_attack(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    w = weapon_of(state, actor, params)
    if w is None:
        have = ", ".join(x.name for x in weapons(actor)) or "none"
        return f"no usable weapon {params.get('weapon', '')!r} (weapons: {have}; broken ones can't be used)"
    target = targets[0]
    kind = w.kind
    if kind == "melee":
        # `target in engaged_with(...)`, without the list: engaged with the actor and in the fight
        if target not in own(state).engaged.get(actor.id, ()) or not state.combatants[target].active:
            d = distance(state, actor.id, target)
            return f"{state.combatants[target].name} is {d} yards away; melee needs engaging first (move toward them)"
    else:
        d = distance(state, actor.id, target)
        if d > (w.long or 0):
            return f"{state.combatants[target].name} is {d} yards away, beyond the {w.name}'s long range {w.long or 0}"
    if params.get("rapid"):
        if kind != "missile":
            return "rapid fire is for missile weapons"
        rush = own(state).rushing.get(target)
        if not rush or rush.target != actor.id or rush.round != state.round:
            return f"rapid fire is against a combatant rushing you; {state.combatants[target].name} isn't"
    return None


def _check_hand(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    return _limb_problem(actor) or _reach_problem(state, actor, targets)


def _check_kick(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    if actor.has("crippled right leg") or actor.has("crippled left leg"):
        return f"{actor.name} can't kick with a crippled leg"
    return _reach_problem(state, actor, targets)


def _limb_problem(actor: Combatant) -> str | None:
    if actor.has("crippled right arm") and actor.has("crippled left arm"):
        return f"{actor.name} can't punch with both arms crippled"
    return None


def _reach_problem(state: Encounter, actor: Combatant, targets: tuple[str, ...]) -> str | None:
    if targets[0] not in engaged_with(state, actor.id):
        return f"{state.combatants[targets[0]].name} isn't within reach; engage first (move toward them)"
    return None


def _aim(draft: Draft, p: Pending) -> str:
    me = draft.state.combatants[p.actor]
    aim = own(draft.state).aim.get(me.id, 0) + 1
    draft.emit(Aimed(combatant=me.id, aim=aim, reason="aiming"))
    return f"aims (+{5 * aim})"


def _check_aim(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    w = weapon_of(state, actor, params)
    kind = w.kind if w else "melee"
    now = own(state).aim.get(actor.id, 0)
    if now >= AIM_MAX.get(kind, 2):
        return f"aiming is at most {AIM_MAX.get(kind, 2)} AP with a {kind} weapon"
    return None


def _defend(draft: Draft, p: Pending) -> str:
    ap = int(p.params.get("ap", 1))
    draft.emit(DefenseBought(combatant=p.actor, ap=ap))
    return f"defends: -{2 * ap} defense % this round"


def check_defend(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    """Why defense can't be bought now (a whole number of AP, at the round's start), or None."""
    ap = params.get("ap", 1)
    if isinstance(ap, bool) or not isinstance(ap, int) or ap < 1:
        return f"ap={ap!r}: spend a whole number of AP, at least 1"
    if not round_untouched(state):
        return "defense is bought at the start of the round, before anyone does anything else"
    return None


def round_untouched(state: Encounter) -> bool:
    """True while no one has spent AP this round on anything but defense."""
    start = own(state).start_ap
    if not start:  # before the first round
        return False
    bought = own(state).defense_ap
    return all(c.resources.get("ap", 0) + bought.get(c.id, 0) == start.get(c.id, 0) for c in state.active())


def _stand(draft: Draft, p: Pending) -> str:
    draft.emit(ConditionRemoved(target=p.actor, condition=DOWN, reason="stood up"))
    return "stands up"


def _check_stand(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    return None if actor.has(DOWN) else f"{actor.name} isn't down"


def _first_aid(draft: Draft, p: Pending) -> str:
    me = draft.state.combatants[p.actor]
    target = draft.state.combatants[p.targets[0]]
    skill = me.stats.first_aid
    roll = draft.roll("d%", f"first aid on {target.id} (need {skill} or less)", by=me.id).total
    if roll <= skill:
        draft.emit(ConditionRemoved(target=target.id, condition=BLEEDING, reason="first aid"))
        draft.emit(BleedingStarted(combatant=target.id, round=-1))
        return f"d% {roll} against {skill}: the bleeding stops"
    return f"d% {roll} against {skill}: no luck"


def _check_first_aid(
    state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]
) -> str | None:
    return None if state.combatants[targets[0]].has(BLEEDING) else f"{state.combatants[targets[0]].name} isn't bleeding"


def _usable(state: Encounter, actor: Combatant) -> tuple[str, ...]:
    broken = own(state).broken.get(actor.id, ())
    return tuple(w.name for w in weapons(actor) if w.name not in broken)


def _others(state: Encounter, actor: Combatant) -> tuple[str, ...]:
    return tuple(c.id for c in state.active() if c.id != actor.id)


WEAPON = ActionParam("weapon", help="the weapon (default: the first unbroken one)", offered=_usable)
MOVE_PARAMS = (
    ActionParam("toward", help="the combatant moved toward (engaging it when reached)", offered=_others),
    ActionParam("away_from", help="the combatant moved away from", offered=_others),
)


ATTACK = ActionSpec(
    "attack",
    "melee",
    {"ap": 0},
    _attack,
    check=_check_attack,
    help="attack with a weapon (params weapon, rapid=true for missiles against a rush)",
    params=(WEAPON, ActionParam("rapid", "bool", help="rapid fire: a missile weapon against a combatant rushing you")),
)


PUNCH_A = ActionSpec("punch", "melee", {"ap": 0}, _attack, check=_check_hand, help="punch (punch_ap AP)", params=())


KICK_A = ActionSpec("kick", "melee", {"ap": 0}, _attack, check=_check_kick, help="kick (kick_ap AP)", params=())


AIM = ActionSpec(
    "aim",
    None,
    {"ap": 1},
    _aim,
    targets="none",
    min_targets=0,
    max_targets=0,
    check=_check_aim,
    help="+5 offense for the next attack (params weapon; at most 2 melee, 3 thrown, 5 missile)",
    params=(WEAPON,),
)


MOVE_SPECS = [
    ActionSpec(
        name,
        "movement",
        {"ap": 1},
        move,
        targets="none",
        min_targets=0,
        max_targets=0,
        check=check_move,
        help=f"{yards} yards (params toward=ID or away_from=ID)",
        params=MOVE_PARAMS,
    )
    for name, yards in MOVES.items()
]


DEFEND = ActionSpec(
    "defend",
    None,
    {"ap": 1},
    _defend,
    targets="none",
    min_targets=0,
    max_targets=0,
    check=check_defend,
    help="at the round's start: -2 defense % per AP (params ap)",
    params=(ActionParam("ap", "int", help="the AP spent on defense (default 1)"),),
)


STAND = ActionSpec(
    "stand",
    None,
    {"ap": 5},
    _stand,
    targets="none",
    min_targets=0,
    max_targets=0,
    check=_check_stand,
    help="get up after a fall (5 AP)",
    params=(),
)


FIRST_AID = ActionSpec(
    "first_aid",
    None,
    {"ap": 5},
    _first_aid,
    targets="ally",
    check=_check_first_aid,
    help="stop internal bleeding (d% under first_aid)",
    params=(),
)


PURSUE = ActionSpec(
    "pursue",
    "movement",
    {"ap": 1},
    pursue,
    check=check_pursue,
    help="run after one who fled you this round: catch up, or they get away",
    params=(),
)
