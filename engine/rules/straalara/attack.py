"""Attack, defense, damage and soak: d10 pools against a difficulty, health levels, Dazed.

Pools: Attribute + Ability, less the wound penalty (dice), d10s against the difficulty (6
unless adjusted); each 1 cancels a success on attack and defense rolls; no successes is a
failure, and none with at least one 1 a botch. Defense successes subtract from the
attack's. Damage: the weapon's base dice plus the attack's net successes beyond the first
(thrown weapons: the base alone), against 6, 1s not cancelling; soak successes take
damage successes away; what is left is health levels lost.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from combatlog.engine.rules.straalara.events import Botched, Dazed, DazingBlow, own
from combatlog.engine.rules.straalara.model import (
    DEFENSE_STANCE_DICE,
    DEFENSE_STANCE_ROLLS,
    Options,
    Weapon,
)
from combatlog.events import CombatantDefeated, ConditionApplied, Moved
from combatlog.projections import Combatant, Encounter, Pending

if TYPE_CHECKING:
    from combatlog.engine.protocol import Draft, RuleSystem

PAST = {"block": "blocked", "parry": "parried", "dodge": "dodged", "spell": "turned by a spell"}


def wound_penalty(rules: RuleSystem, state: Encounter, c: Combatant) -> int:
    """The dice `c` loses to its wounds (0 or less): the penalty of the last health level lost."""
    options: Options = state.options
    return options.wound_penalty(c.damage)


def health_level(rules: RuleSystem, state: Encounter, c: Combatant) -> str:
    """The name of `c`'s health level: Healthy, a level of the track, or Incapacitated."""
    track = state.options.health_levels
    if c.damage <= 0:
        return "Healthy"
    if c.damage > len(track):
        return "Incapacitated"
    return str(track[c.damage - 1].name)


def pool(draft: Draft, dice: int, difficulty: int, purpose: str, by: str, cancel: bool) -> tuple[int, bool]:
    """Roll `dice` d10s against `difficulty`: (net successes, botch). No dice: (0, False), nothing rolled."""
    if dice <= 0:
        return 0, False
    rolled = draft.roll(f"{dice}d10>={difficulty}c" if cancel else f"{dice}d10>={difficulty}", purpose, by=by)
    return rolled.total, rolled.botch


def difficulty_of(rules: RuleSystem, state: Encounter, w: Weapon, params: dict[str, Any]) -> int:
    """The attack's difficulty: the weapon's (or the encounter's base), adjusted by `modifier`, within 2-10."""
    base = w.difficulty if w.difficulty is not None else state.options.difficulty
    modifier = params.get("modifier")
    d = base + modifier if isinstance(modifier, int) else base
    return 2 if d < 2 else 10 if d > 10 else d  # min(max(d, 2), 10), without the two calls


def attack(draft: Draft, p: Pending) -> str:
    """Resolve an attack: hit, the target's defense, damage, soak, health levels lost."""
    state = draft.state
    opts = state.options  # read once: every roll below asks for something of the options
    combatants = state.combatants
    actor = combatants[p.actor]
    target = combatants[p.targets[0]]
    mine = actor.stats
    params = p.params
    name = params.get("weapon")
    armed = mine.armed.get(None if name is None else str(name))  # as the check reads it: `weapon=3` names "3"
    assert armed is not None  # checked when declared
    weapon, attack_dice = armed
    to = params.get("move_to")
    if to:
        draft.emit(Moved(combatant=actor.id, to=str(to), distance=0))
    difficulty = difficulty_of(draft.rules, state, weapon, params)
    dice = attack_dice + opts.wound_penalty(actor.damage)
    net, botch = pool(draft, dice, difficulty, f"{weapon.name} at {target.id}", actor.id, cancel=True)
    if botch:
        draft.emit(Botched(actor=actor.id, weapon=weapon.name))
        return "a botch: the attack fails, and the game master rules what goes wrong"
    if net == 0:
        return f"a miss: no successes at difficulty {difficulty}"
    theirs = target.stats
    declared = own(state).declared.get(target.id)
    if declared is not None and declared.round == state.round:
        stance, defense = declared.stance, declared.defense
    else:
        stance, defense = "partial", "none"
    told = f"{net} success{'es' if net != 1 else ''}"
    if defense == "dodge" and params.get("unseen"):
        defense = "none"  # the game master ruled the defender can't sense it coming: no dodge
        told += " (unseen: no dodge)"
    if defense != "none":
        extra = 0
        # "Defense: ... gets a +4 dice to add to any Soak, Parry or Dodge rolls": version 3 gives
        # them to those (soak below); versions 1 and 2 gave them to a block and a spell too
        if stance == "defense" and (defense in DEFENSE_STANCE_ROLLS or not draft.rules.since(state, 3)):
            extra = DEFENSE_STANCE_DICE
        dice = theirs.defense_pool(defense) + opts.wound_penalty(target.damage) + extra
        saved, _ = pool(draft, dice, opts.difficulty, f"{defense} against {actor.id}", target.id, cancel=True)
        net -= saved
        told += f", {saved} {PAST[defense]}"
        if net <= 0:
            return f"{told}: no hit"
    base = weapon.damage + (0 if weapon.kind == "thrown" else net - 1)
    damage, _ = pool(draft, base, 6, f"{weapon.name} damage to {target.id}", actor.id, cancel=False)
    told += f"; damage {base} dice: {damage}"
    if damage == 0:
        return f"{told}: no damage"
    soak_dice = theirs.soak_dice + (DEFENSE_STANCE_DICE if stance == "defense" else 0)
    soaked, _ = pool(draft, soak_dice, 6, f"soak against {actor.id}", target.id, cancel=False)
    levels = max(damage - soaked, 0)
    told += f" − {soaked} soaked = {levels} health level{'s' if levels != 1 else ''}"
    if levels == 0:
        return told
    if levels > theirs.stamina and opts.dazed == "lose_next_action":
        draft.emit(DazingBlow(target=target.id, attacker=actor.id))
        told += f" (more than Stamina {theirs.stamina}: Dazed)"
    draft.damage(target.id, levels, kind=weapon.kind, source=actor.id)
    return told


def after_damage(draft: Draft, target: str) -> None:
    """Damage counted on `target`: Incapacitated past the track's last level; Dazed by a dazing blow."""
    state = draft.state
    c = state.combatants[target]
    settings = state.options
    if c.defeated is None and c.damage > len(settings.health_levels):
        draft.emit(
            CombatantDefeated(combatant=target, how="dead" if settings.incapacitated == "die" else "incapacitated")
        )
    attacker = own(draft.state).dazing.get(target)
    if attacker is not None:
        draft.emit(Dazed(target=target))
        if draft.state.combatants[target].active:
            draft.emit(ConditionApplied(target=target, condition="dazed", source=attacker))
