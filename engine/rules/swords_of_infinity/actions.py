"""What a Swords of Infinity combatant can declare: two actions and a minor one a turn."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from combatlog.engine.protocol import ActionParam, ActionSpec, Draft
from combatlog.engine.rules.swords_of_infinity.attack import strike
from combatlog.engine.rules.swords_of_infinity.events import (
    Impairment,
    Maintained,
    Pinned,
    SpiritSpent,
    TurnMark,
    WeaponDropped,
)
from combatlog.engine.rules.swords_of_infinity.model import ATTACKED, RESISTED, Turn, Weapon, own
from combatlog.engine.rules.swords_of_infinity.movement import check_move, check_resisted, move, resisted
from combatlog.engine.rules.swords_of_infinity.reading import (
    composition,
    destroyed,
    feet,
    is_melee,
    level,
    penalty,
    since_v2,
    since_v3,
    skill,
    spirit_left,
    weapon,
)
from combatlog.events import ConditionApplied, ConditionRemoved
from combatlog.projections import Combatant, Encounter, Pending


def _attacked(draft: Draft, actor: str) -> None:
    """Version 2: the actor attacked this turn, so it can't hold a Retaliate too."""
    if since_v2(draft.state):
        me = draft.state.combatants[actor]
        if me.defeated is None and not me.removed and not me.has(ATTACKED):  # (`me.active`, inlined)
            draft.emit(ConditionApplied(target=actor, condition=ATTACKED, source=actor))


def _attack(draft: Draft, p: Pending) -> str:
    me = draft.state.combatants[p.actor]
    w = weapon(draft.state, me, p.params.get("weapon"))
    out = strike(draft, me.id, p.targets[0], w, p.params)
    if not is_melee(w):
        draft.emit(ConditionApplied(target=me.id, condition="vulnerable (ranged attack)", source=me.id))
    _attacked(draft, me.id)
    return out


def _forgone(state: Encounter, actor: Combatant) -> str | None:
    """Version 2: those who Retaliate "forgo an attack on their turn"."""
    if actor.conditions and since_v2(state) and actor.has("retaliating"):
        return f"{actor.name} holds a Retaliate this turn and forgoes its attack"
    return None


def _retaliate(draft: Draft, p: Pending) -> str:
    draft.emit(ConditionApplied(target=p.actor, condition="retaliating", source=p.actor))
    if since_v3(draft.state):  # the holder chooses among those who come close (`movement.walk`)
        return "holds an attack for an enemy coming within reach"
    return "holds an attack for the first enemy to come close"


def _check_retaliate(
    state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]
) -> str | None:
    if since_v2(state) and actor.has(ATTACKED):
        return f"{actor.name} attacked this turn: Retaliate forgoes the turn's attack, so it can't follow one"
    return None


def _check_attack(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    forgone = _forgone(state, actor)
    if forgone:
        return forgone
    get = params.get  # (asked for every attack declared: a dozen look-ups)
    defense = get("defense", "none")
    if defense not in ("none", "block", "dodge"):
        return f"defense={defense!r}: use none, block or dodge"
    target = state.combatants[targets[0]]
    named = get("weapon")
    w = weapon(state, actor, named)
    if named and w.name != named:
        return f"{actor.name} has no {named!r} in hand"
    bt = get("block_target")
    if bt is not None and bt not in composition(target):
        return f"block_target={bt!r}: {target.name}'s damage targets are {', '.join(composition(target))}"
    if get("critical") not in (None, "undefendable", "full", "narrative"):
        return "critical: undefendable, full or narrative"
    if get("critical_defense") not in (None, "counter", "narrative", "move"):
        return "critical_defense: counter, narrative or move"
    tech = get("technique")
    if tech is not None:
        if tech not in ("disrupt", "pin", "disarm", "trip", "knockback"):
            return "technique: disrupt, pin, disarm, trip or knockback"
        if tech == "disarm" and not get("ability"):
            return "a disarm takes a special ability (params ability=true)"
        if tech and get("ability"):
            return d_ok(state, actor, target, w)  # a special ability may use any weapon
        if tech == "pin" and not is_melee(w):
            return "a pin takes a melee or unarmed attack"
        if tech == "trip" and w.name != "unarmed":
            return "a trip without a special ability is an unarmed attack"
        if tech == "knockback" and not is_melee(w):
            return "a knockback takes an unarmed, melee or shield attack"
    why = d_ok(state, actor, target, w)
    if why:
        return why
    if "wall_ft" in params:
        wall = params["wall_ft"]
        if isinstance(wall, bool) or not isinstance(wall, int) or wall < 0:
            return f"wall_ft={wall!r}: a whole number of feet"
    mt = get("move_to")
    if mt is not None and not _square(mt):
        return f"move_to={mt!r}: a square, x,y"
    if params.get("charge") and not own(state).turn.get(actor.id, Turn()).start:
        return "a charge follows movement this turn"
    return None


def d_ok(state: Encounter, actor: Combatant, target: Combatant, w: Weapon) -> str | None:
    """Why `w` can't reach `target` from where `actor` stands (None: it can, or they aren't placed)."""
    d = feet(actor, target)
    if d is not None:
        reach = int(w.range if w.range is not None else w.reach)
        if d > reach:
            kind = "range" if w.range is not None else "reach"
            return f"{target.name} is {d} ft away, beyond the {w.name}'s {kind} of {reach} ft"
    return None


def _square(value: Any) -> bool:
    try:
        x, y = str(value).split(",")
        int(x), int(y)
        return True
    except ValueError:
        return False


def _dual(draft: Draft, p: Pending) -> str:
    me = draft.state.combatants[p.actor]
    dropped = own(draft.state).dropped.get(me.id, ())
    held = [w for w in me.stats.weapons if w.name not in dropped]
    first = weapon(draft.state, me, p.params.get("main") or held[0].name)
    second = weapon(draft.state, me, p.params.get("off") or held[1].name)
    targets = list(p.targets) + [p.targets[-1]] * (2 - len(p.targets))
    said = [f"{first.name}: " + strike(draft, me.id, targets[0], first, p.params)]
    if draft.state.combatants[me.id].active:
        other = draft.state.combatants[targets[1]]  # the first blow may have felled it
        gone = draft.rules.target_gone(draft, p, other) if not other.active else None
        blow = gone or strike(draft, me.id, other.id, second, p.params, offhand=True)
        said.append(f"{second.name} (off hand): {blow}")
    draft.emit(ConditionApplied(target=me.id, condition="vulnerable (dual wielding)", source=me.id))
    _attacked(draft, me.id)
    return "; ".join(said)


def _check_dual(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    forgone = _forgone(state, actor)
    if forgone:
        return forgone
    held = [w for w in actor.stats.weapons if w.name not in own(state).dropped.get(actor.id, ())]
    names = [
        params.get("main") or (held[0].name if held else None),
        params.get("off") or (held[1].name if len(held) > 1 else None),
    ]
    chosen = [w for n in names for w in held if w.name == n]
    if len(chosen) < 2 or names[0] == names[1] or any(w.two_handed for w in chosen):
        return f"{actor.name} needs two different one-handed weapons in hand (params main, off)"
    for w, t in zip(chosen, list(targets) + [targets[-1]] * (2 - len(targets))):
        why = _check_attack(state, actor, (t,), {**params, "weapon": w.name})
        if why:
            return f"{w.name}: {why}"
    return None


def _condition_action(name: str, text: str) -> Callable[[Draft, Pending], str]:
    def resolve(draft: Draft, p: Pending) -> str:
        draft.emit(ConditionApplied(target=p.actor, condition=name, source=p.actor))
        return text

    return resolve


def _check_fortify(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    return None if actor.stats.shield else f"{actor.name} has no shield to fortify with"


def _prone(draft: Draft, p: Pending) -> str:
    draft.emit(ConditionApplied(target=p.actor, condition="prone", source=p.actor))
    return "goes prone"


def _stand(draft: Draft, p: Pending) -> str:
    draft.emit(ConditionRemoved(target=p.actor, condition="prone", reason="stood up"))
    return "stands up"


def _check_stand(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    return None if actor.has("prone") else f"{actor.name} isn't prone"


def _stealth(draft: Draft, p: Pending) -> str:
    me = draft.state.combatants[p.actor]
    target = draft.state.combatants[p.targets[0]]
    stn = skill(me, "stealth") + penalty(draft.state, me)
    roll = draft.roll("d%", f"stealth (TN {stn})", by=me.id).total
    ptn = skill(target, "spot") + penalty(draft.state, target) + 10 * max(0, target.stats.size * -1)
    spot = draft.roll("d%", f"spot (TN {ptn})", by=target.id).total
    if roll <= stn and (spot > ptn or roll <= spot):  # an opposed check: the lower roll wins, as in the dodge
        draft.emit(ConditionApplied(target=target.id, condition=f"unaware of {me.id}", source=me.id))
        return f"stealth {roll} against {stn}, spot {spot} against {ptn}: {target.name} is unaware of {me.name}"
    return f"stealth {roll} against {stn}, spot {spot} against {ptn}: noticed"


def _first_aid(draft: Draft, p: Pending) -> str:
    me = draft.state.combatants[p.actor]
    patient = draft.state.combatants[p.targets[0]]
    where = str(p.params.get("target", ""))
    tn = me.stats.intelligence + skill(me, "first_aid") + penalty(draft.state, me)
    roll = draft.roll("d%", f"first aid on {patient.id}'s {where} (TN {tn})", by=me.id).total
    if roll <= tn:
        draft.emit(Impairment(combatant=patient.id, target=where, what="aided", level=1))
        return f"{roll} against {tn}: the {where} is treated one level better"
    return f"{roll} against {tn}: no help"


def _check_first_aid(
    state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]
) -> str | None:
    patient = state.combatants[targets[0]]
    where = params.get("target")
    if where not in patient.wounds or level(state, patient, str(where)) == 0:
        hurt = [t for t in patient.wounds if level(state, patient, t)] or ["none"]
        return f"name a wounded or disabled damage target: target=... ({', '.join(hurt)})"
    if destroyed(patient, str(where)):
        return f"the {where} is destroyed"
    if "aided" in own(state).impairment.get(patient.id, {}).get(str(where), {}):
        return f"the {where} has been treated already (until it is hurt again)"
    return None


def _escape(draft: Draft, p: Pending) -> str:
    draft.emit(SpiritSpent(combatant=p.actor, amount=1, reason="escaping a pin"))
    draft.emit(Pinned(combatant=p.actor, by=None))
    return "escapes the pin"


def _check_escape(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    if actor.id not in own(state).pins:
        return f"{actor.name} isn't pinned"
    if spirit_left(state, actor) < 1:
        return "escaping takes a point of spirit, and none is left"
    return None


def _maintain(draft: Draft, p: Pending) -> str:
    draft.emit(Pinned(combatant=p.targets[0], by=p.actor, round=draft.state.round))
    return "keeps the pin"


def _check_maintain(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    pin = own(state).pins.get(targets[0])
    return None if pin and pin.by == actor.id else f"{actor.name} isn't pinning {state.combatants[targets[0]].name}"


def _cast(draft: Draft, p: Pending) -> str:
    spell = str(p.params.get("spell", "a spell"))
    draft.emit(ConditionApplied(target=p.actor, condition="vulnerable (casting)", source=p.actor))
    if p.params.get("maintain"):
        draft.emit(Maintained(combatant=p.actor, spell=spell))
    return f"casts {spell}" + (" and keeps it up" if p.params.get("maintain") else "")


def _check_cast(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    return f"{actor.name} is disrupted: no spells this round" if actor.has("disrupted") else None


def _pick_up(draft: Draft, p: Pending) -> str:
    w = str(p.params.get("weapon"))
    draft.emit(WeaponDropped(combatant=p.actor, weapon=w, back=True))
    return f"picks up the {w}"


def _check_pick_up(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    dropped = own(state).dropped.get(actor.id, ())
    return None if params.get("weapon") in dropped else f"nothing of {actor.name}'s dropped: {list(dropped) or 'none'}"


def _drop(draft: Draft, p: Pending) -> str:
    w = weapon(draft.state, draft.state.combatants[p.actor], p.params.get("weapon"))
    if w.name == "unarmed":
        return "has nothing to drop"
    draft.emit(WeaponDropped(combatant=p.actor, weapon=w.name, lands="at its feet"))
    return f"drops the {w.name}"


def _notice(draft: Draft, p: Pending) -> str:
    me = draft.state.combatants[p.actor]
    tn = me.stats.awareness + penalty(draft.state, me) + 10 * max(0, -me.stats.size)
    roll = draft.roll("d%", f"awareness (TN {tn})", by=me.id).total
    return f"awareness {roll} against {tn}: " + ("notices" if roll <= tn else "notices nothing")


def _say(text: str) -> Callable[[Draft, Pending], str]:
    def resolve(draft: Draft, p: Pending) -> str:
        return str(p.params.get("text", text))

    return resolve


def _no_target(
    name: str,
    resolve: Callable[[Draft, Pending], str],
    cost: dict[str, int],
    check: Callable[[Encounter, Combatant, tuple[str, ...], dict[str, Any]], str | None] | None = None,
    help: str = "",
    category: str | None = None,
    params: tuple[ActionParam, ...] = (),
) -> ActionSpec:
    return ActionSpec(
        name,
        category,
        cost,
        resolve,
        targets="none",
        min_targets=0,
        max_targets=0,
        check=check,
        help=help,
        params=params,
    )


ONE, MINOR = {"actions": 1}, {"minor": 1}


# --- parameters, and what a form offers for them ------------------------------------


def _held(state: Encounter, actor: Combatant) -> tuple[str, ...]:
    dropped = own(state).dropped.get(actor.id, ())
    return tuple(w.name for w in actor.stats.weapons if w.name not in dropped)


def _one_handed(state: Encounter, actor: Combatant) -> tuple[str, ...]:
    dropped = own(state).dropped.get(actor.id, ())
    return tuple(w.name for w in actor.stats.weapons if w.name not in dropped and not w.two_handed)


def _dropped(state: Encounter, actor: Combatant) -> tuple[str, ...]:
    return tuple(own(state).dropped.get(actor.id, ()))


# what a blow reads (`attack.strike`): the target's defense, criticals, techniques
STRIKE = (
    ActionParam("defense", choices=("none", "block", "dodge"), help="how the target defends (default none)"),
    ActionParam("block_target", help="the damage target a block, or an untargeted attack, puts the blow on"),
    ActionParam("critical", choices=("undefendable", "full", "narrative"), help="the attacker's choice on a critical"),
    ActionParam(
        "critical_defense", choices=("counter", "narrative", "move"), help="the defender's choice on a critical defense"
    ),
    ActionParam("move_to", help="a critical defense's move: the square moved to, x,y"),
    ActionParam("area", "bool", help="an untargeted attack: the defender places it and may resist it whole"),
    ActionParam("technique", choices=("disrupt", "pin", "disarm", "trip", "knockback"), help="a technique"),
    ActionParam("ability", "bool", help="the technique is a special ability's: it deals damage too"),
    ActionParam("lands", help="a disarm: where the weapon lands"),
    ActionParam("wall_ft", "int", help="a knockback: the feet to an obstacle"),
    ActionParam("hits", help="a knockback into an obstacle: the damage target hurt (default torso)"),
    ActionParam("charge", "bool", help="a charge, after moving this turn: the feet run add to the power"),
)
# where a move goes, and how the mover meets a Retaliate on the way
MOVING = (
    ActionParam("x", "int", help="the square moved to (or toward): x"),
    ActionParam("y", "int", help="the square moved to (or toward): y"),
    ActionParam("through", "bool", help="keeps moving past a Retaliate (vulnerable)"),
    ActionParam(
        "defense", choices=("block", "dodge", "none"), help="the defense against a Retaliate (default: its best)"
    ),
)
TEXT = (ActionParam("text", help="what is said or done, for the log"),)


ACTIONS = [
    ActionSpec(
        "attack",
        "melee",
        ONE,
        _attack,
        check=_check_attack,
        help="attack (params weapon, defense, block_target, critical, critical_defense, area, technique, charge)",
        params=(ActionParam("weapon", help="the weapon in hand (default: the first)", offered=_held), *STRIKE),
    ),
    ActionSpec(
        "dual_attack",
        "melee",
        ONE,
        _dual,
        max_targets=2,
        check=_check_dual,
        help="an attack with each of two one-handed weapons (params main, off); vulnerable until next turn",
        params=(
            ActionParam("main", help="the main hand's weapon (default: the first in hand)", offered=_one_handed),
            ActionParam("off", help="the off hand's weapon (default: the second in hand)", offered=_one_handed),
            *STRIKE,
        ),
    ),
    _no_target(
        "move", move, ONE, check_move, "walk up to the combatant's move (params x, y, through)", "movement", MOVING
    ),
    *[
        _no_target(k, resisted, ONE, check_resisted, f"{k}: a Power check (params x, y)", "movement", MOVING)
        for k in RESISTED
    ],
    _no_target(
        "retreat",
        _condition_action("retreat", "retreats (until its next turn)"),
        ONE,
        help="a step back from the first attack; lifts casting, shooting and rough-terrain vulnerability",
    ),
    _no_target(
        "fortify",
        _condition_action("fortify", "fortifies behind its shield"),
        ONE,
        _check_fortify,
        help="cover from the shield, until the next turn or a move",
    ),
    _no_target(
        "retaliate",
        _retaliate,
        ONE,
        _check_retaliate,
        "hold an attack for an enemy coming within reach, chosen then (forgoes the turn's attack)",
    ),
    _no_target("prone", _prone, ONE, help="get down: cover against ranged attacks, vulnerable to melee"),
    _no_target("stand", _stand, ONE, _check_stand, help="get up from prone"),
    ActionSpec(
        "stealth", None, ONE, _stealth, help="stealth against the target's spot: it becomes unaware of you", params=()
    ),
    ActionSpec(
        "first_aid",
        None,
        ONE,
        _first_aid,
        targets="ally",
        check=_check_first_aid,
        help="treat a damage target one level better (params target)",
        params=(ActionParam("target", help="the patient's damage target treated (a wounded or disabled one)"),),
    ),
    _no_target("escape", _escape, ONE, _check_escape, "break a pin: an action and a point of spirit"),
    ActionSpec(
        "maintain_pin", None, ONE, _maintain, check=_check_maintain, help="keep a pin for this round", params=()
    ),
    _no_target(
        "cast",
        _cast,
        ONE,
        _check_cast,
        "cast a spell (params spell, maintain); vulnerable until next turn",
        params=(
            ActionParam("spell", help="the spell cast"),
            ActionParam("maintain", "bool", help="the spell is kept up"),
        ),
    ),
    _no_target("use_item", _say("uses an item"), ONE, help="use an item (params text)", params=TEXT),
    _no_target(
        "pick_up",
        _pick_up,
        ONE,
        _check_pick_up,
        "pick up a dropped weapon (params weapon)",
        params=(ActionParam("weapon", help="the dropped weapon picked up", offered=_dropped),),
    ),
    _no_target("speak", _say("speaks"), MINOR, help="a minor action: social interaction (params text)", params=TEXT),
    _no_target(
        "drop",
        _drop,
        MINOR,
        help="a minor action: drop a held item (params weapon)",
        params=(ActionParam("weapon", help="the weapon dropped (default: the first in hand)", offered=_held),),
    ),
    _no_target("notice", _notice, MINOR, help="a minor action: an Awareness check to notice something"),
]


def _marking(spec: ActionSpec) -> ActionSpec:
    """Every full action records itself as the actor's last (so only back-to-back resisted moves tire)."""
    if spec.name in RESISTED or "actions" not in spec.cost:
        return spec
    inner = spec.resolve

    def resolve(draft: Draft, p: Pending) -> str:
        out = inner(draft, p)
        if draft.state.combatants[p.actor].active:
            draft.emit(TurnMark(combatant=p.actor, last=spec.name))
        return out

    return dataclasses.replace(spec, resolve=resolve)


ACTIONS = [_marking(a) for a in ACTIONS]


_BY_NAME = {a.name: a for a in ACTIONS}


MAJOR_WHILE_PINNED = ("escape",)
