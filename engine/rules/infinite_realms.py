"""`infinite-realms`: Infinite Realms Players Book, chapter four, "Combat" (action points).

There are no turns. Every round (15 seconds) each combatant starts with its full AP; the
one with the most AP left acts, pays, and the order is recomputed, until no one can or
will act (the engine's action-point order). AP ties go to the higher 1d10 + `init`,
rolled every round.

- **Engaging.** When two combatants close to fighting distance (a move that reaches 0
  yards, or the game master's `engage A B`), each gets +1 AP for every 2 feet of its
  melee weapon's `reach` over the shortest reach in that engagement, this round only.
- **Movement.** `run` 10 yards, `dodge_run` (run and dodge) 6 yards, `walk` 3 yards, 1 AP
  each (2 with a crippled leg), toward or away from a combatant. Distances are kept per
  pair, in yards (`distance A B N`; enemies start `start_distance` apart). Moving away
  from an engaged enemy who isn't fighting anyone else gives that enemy a free attack,
  against base defense, or against `dodge` when running and dodging. `pursue` (1 AP):
  the enemy's running roll; success re-engages, failure lets the fleeing one get away.
- **Attacks.** `attack` with a weapon costs its `ap` ("AP Used"); `aim` is +5 offense per
  AP (at most 2 melee, 3 thrown, 5 missile), lost if the aimer is hit first. The d%
  roll must be at or under offense % minus defense % (with the charts' changes); the
  margin gives the damage (0-10: 25%, 11-20: 50%, 21-30: 75%, 31+: 100% of the weapon's
  `damage`), less the target's `protection` for the damage `type`. Offensive modifiers:
  the target stunned +15, down +20, prone +30, surprised +20. Thrown and missile weapons:
  short range (up to `short` yards) 125% damage, long range (beyond `medium`) offense
  -20, nothing beyond `long`. `rapid=true`: a missile weapon at half the AP against a
  combatant rushing the shooter this round. `punch` and `kick`: AP from `punch_ap` and
  `kick_ap` (the AP chart is in chapter one: an input), offense `adjusted_pd`, damage 5%
  and 10% of `ps`, critical 3% and 5%, crushing; a kicker defends at 3/4 of base defense.
- **Defense.** `defend ap=N` at the start of the round (before the combatant's first
  action): -2 defense % per AP for the whole round. Defense is the `defense` rating
  (a number, or a table by attack kind: the lowest of the kinds the defender uses this
  round). The defensive chart: attacked with a bow by one unaware (+10), a bow or sling
  (+4), a thrown weapon (+2), a flail (+4); against thrown and missile weapons cover
  (conditions `cover 50`, `cover 75`, `cover 90`: -10, -15, -25) and light (option `light`:
  overcast -5, night or fog -25, pitch black -50).
- **Damage.** At 50% HP or less: AP and damage 75%, offense -10, defense +10; at 25%: 50%,
  -20, +20; at 0 HP the combatant passes out for the rest of the combat; below -HP dead.
- **Critical hits.** A hit rolled at or under the weapon's `critical`: the damage applies,
  then a re-roll; a second hit is a critical by its margin (the chart: extra 25-100%
  damage that armour doesn't reduce, half AP for a round, stunned (0 AP) for one or two
  rounds, internal bleeding (1 HP every 4 rounds until `first_aid`), passing out, a
  crippled extremity (1d10: arms, legs, castration), death).
- **Critical misses.** A miss at or above the threshold, then a re-roll; a second miss is a
  critical miss by its margin (falling, 5 AP to `stand`; stunned; wounds on oneself; a
  non-quality or any weapon broken; a wound and a critical hit on oneself).

Readings where the text is silent or says two things:

- Option `critical_miss`: "chapter" (default: the Critical Misses section, 96 or more, 91
  with a flail) or "attacks" (the attack sections: 91 or more, 81 with a flail; 96 for
  punches and kicks).
- Option `defense_changes`: the text subtracts defense % from offense %, yet says buying
  defense, cover and darkness *lower* defense % and wounds and unaware targets *raise* it.
  "protect" (default) reads every listed change as a change in the attacker's chance
  (buying defense and cover make a hit harder; wounds make it easier); "literal" adds
  them to the defense % that is subtracted.
- "For a round" (stunned, half AP): the rest of this round and the next round(s).
  Wound and crippling factors take the lowest that applies. AP factors apply from the
  next round's refill; damage factors at once. Percent damage rounds half up.
- "Extra N% hit" and "N% wound on self" are N% of the weapon's damage roll; a wound on
  oneself is reduced by one's own protection, a critical's extra damage is not.
- Pursuit: a d% roll at or under the pursuer's `running` minus the fleeing one's
  `running` plus `pursuit_base` (default 50). A fleeing combatant who gets away is out of
  the fight ("got away"). Moving "by" an enemy isn't modelled (distances are per pair).
- First aid costs `first_aid_ap` AP (default 5; the text leaves it to the next chapter)
  and succeeds on d% at or under the healer's `first_aid` skill; it reaches allies still in
  the fight (one who passed out can't be treated in this combat).
- A critical hit is a hit whose *roll* is at or under the weapon's `critical` (the Critical
  Hits section; the attack sections say "made by", which the chart's margins already use).
- Free attacks use the enemy's first melee weapon (a punch if it has none) against the
  defender's base defense rating (its lowest, as no attack is chosen for it; or dodge), with
  the defense bought this round (the text: bought defense lasts "for the entire round") and
  the wound shift, and no critical miss; a stunned or fallen enemy gets none.
- Version 2 of these rules (encounters created from then on; older logs re-decide as
  recorded): a wounded or crippled attacker's damage factor applies to a critical hit's
  extra damage and to the wounds a critical miss deals him, as to a normal hit; a game
  master's command that changes someone's points or reach (`defend ACTOR N`, `engage`,
  `distance`) ranks the order again and hands the turn to whoever leads.
- Defense is bought only while no one has spent AP this round except on defense: by the
  acting combatant (`defend` action) or for anyone (`defend ACTOR N` command).
- Reach is compared between the two who engage (their first melee weapons), and the bonus
  is given once a round (the largest). Moving toward or away from an ally engages no one.
- Getting up costs 5 AP, or a whole round's AP for one who has fewer.
- Equal AP and equal d10 + Init: the combatant added first acts first.
- With a surprise ruling, round 0 is a surprise round the surprised side sits out, and
  attacks on it get the chart's +20.

Combatant stats: `hp`, `ap`, `init`, `defense` (required); `offense`, `dodge`, `protection`
(a number or {type: n}), `ps`, `adjusted_pd`, `punch_ap`, `kick_ap`, `running`,
`first_aid`, and `weapons`: a list of {name, kind (melee, thrown, missile), ap, offense,
damage (dice or a number), critical, reach (feet), short, medium, long (yards), type,
flail, bow, sling, quality}.
"""

from __future__ import annotations

import math
from typing import Any

import msgspec

from combatlog.engine.dice import DiceError, parse as parse_dice
from combatlog.engine.draft import Draft
from combatlog.engine.errors import Refused
from combatlog.engine.order import ActionPointOrder
from combatlog.engine.rules.base import ActionSpec, OptionSpec, RuleSystem
from combatlog.engine.timing import Timing, make_timing
from combatlog.events import (
    CombatantDefeated,
    Command,
    ConditionApplied,
    ConditionRemoved,
    Event,
    ResourceSpent,
    ResourcesSet,
    TurnEnded,
)
from combatlog.projections import Combatant, Encounter, Pending
from combatlog.projections.fold import put_extra, register_fold
from combatlog.projections.phases import LIVE, allow

replace = msgspec.structs.replace

STUNNED, DOWN, PRONE, SURPRISED, UNAWARE = "stunned", "down", "prone", "surprised", "unaware"
HALF_AP = "half AP"
BLEEDING = "internal bleeding"
WOUNDED_50, WOUNDED_25 = "wounded (50%)", "wounded (25%)"
CRIPPLED = {"right arm": "crippled right arm", "left arm": "crippled left arm", "right leg": "crippled right leg",
            "left leg": "crippled left leg", "castration": "castrated"}
MOVES = {"run": 10, "dodge_run": 6, "walk": 3}
AIM_MAX = {"melee": 2, "thrown": 3, "missile": 5}
OFFENSE_MODS = {STUNNED: 15, DOWN: 20, PRONE: 30, SURPRISED: 20}
COVER = {"cover 50": -10, "cover 75": -15, "cover 90": -25}
LIGHT = {"day": 0, "overcast": -5, "night": -25, "fog": -25, "pitch black": -50}
PUNCH = {"name": "punch", "kind": "melee", "damage_ps": 5, "critical": 3, "type": "crushing", "hand": True}
KICK = {"name": "kick", "kind": "melee", "damage_ps": 10, "critical": 5, "type": "crushing", "hand": True}


# --- events of this system ------------------------------------------------------------


class RoundReset(Event):
    """A new round: each combatant's starting AP (and reach bonus given with it); defense bought, aim
    and attack kinds cleared."""

    start_ap: dict[str, int]
    given: dict[str, int] = {}


class Engaged(Event):
    """Two combatants close to fight; the AP each gains for its weapon's longer reach."""

    combatants: tuple[str, ...]
    bonus: dict[str, int] = {}


class Disengaged(Event):
    """Two combatants are no longer fighting each other."""

    combatants: tuple[str, ...]


class DistanceSet(Event):
    """The distance between two combatants, in yards."""

    a: str
    b: str
    yards: int
    how: str = "given"


class Aimed(Event):
    """A combatant's aim now stands at `aim` AP (+5 offense each); 0: lost or used."""

    combatant: str
    aim: int
    reason: str = ""


class DefenseBought(Event):
    """AP spent on defense at the start of the round (-2 defense % each, for the round)."""

    combatant: str
    ap: int


class Using(Event):
    """A combatant attacked with this kind of attack this round (its defense is the lowest of them)."""

    combatant: str
    kind: str


class WeaponBroken(Event):
    """A weapon broke."""

    combatant: str
    weapon: str


class BleedingStarted(Event):
    """Internal bleeding: 1 HP lost every 4 rounds until first aid."""

    combatant: str
    round: int


class Fled(Event):
    """A combatant moved away from an enemy this round (who may pursue)."""

    combatant: str
    enemy: str
    round: int


class Rushing(Event):
    """A combatant ran at another this round (who may answer with rapid fire)."""

    combatant: str
    target: str
    round: int


EVENTS = (RoundReset, Engaged, Disengaged, DistanceSet, Aimed, DefenseBought, Using, WeaponBroken,
          BleedingStarted, Fled, Rushing)
for _cls in EVENTS:
    allow(_cls.__name__, LIVE)


def pair(a: str, b: str) -> str:
    """The key of a pair of combatants (order doesn't matter)."""
    return f"{a}|{b}" if a < b else f"{b}|{a}"


@register_fold(RoundReset)
def _fold_reset(state: Encounter, e: RoundReset) -> Encounter:
    extra = dict(state.extra)
    for key in ("defense_ap", "using", "aim", "reach_bonus", "reach_given", "acted"):
        extra.pop(key, None)
    extra["start_ap"] = dict(e.start_ap)
    if e.given:
        extra["reach_given"] = dict(e.given)
    return replace(state, extra=extra)


@register_fold(Engaged)
def _fold_engaged(state: Encounter, e: Engaged) -> Encounter:
    engaged = dict(state.extra.get("engaged", {}))
    for a in e.combatants:
        mine = set(engaged.get(a, ()))
        mine.update(b for b in e.combatants if b != a)
        engaged[a] = sorted(mine)
    extra = dict(state.extra)
    extra["engaged"] = engaged
    distance = dict(extra.get("distance", {}))
    for a in e.combatants:
        for b in e.combatants:
            if a < b:
                distance[pair(a, b)] = 0
    extra["distance"] = distance
    if state.phase in ("setup", "surprise") and e.bonus:
        pending = dict(extra.get("reach_bonus", {}))
        for cid, n in e.bonus.items():
            pending[cid] = max(pending.get(cid, 0), n)
        extra["reach_bonus"] = pending  # engaged before the fight: added to the first round's AP
    elif e.bonus:
        given = dict(extra.get("reach_given", {}))
        for cid, n in e.bonus.items():
            given[cid] = int(given.get(cid, 0)) + n  # the bonus given this round, so far
        extra["reach_given"] = given
    return replace(state, extra=extra)


@register_fold(Disengaged)
def _fold_disengaged(state: Encounter, e: Disengaged) -> Encounter:
    engaged = dict(state.extra.get("engaged", {}))
    for a in e.combatants:
        left = [b for b in engaged.get(a, ()) if b not in e.combatants]
        if left:
            engaged[a] = left
        else:
            engaged.pop(a, None)
    extra = dict(state.extra)
    extra["engaged"] = engaged
    return replace(state, extra=extra)


@register_fold(DistanceSet)
def _fold_distance(state: Encounter, e: DistanceSet) -> Encounter:
    return put_extra(state, "distance", pair(e.a, e.b), e.yards)


@register_fold(Aimed)
def _fold_aimed(state: Encounter, e: Aimed) -> Encounter:
    return put_extra(state, "aim", e.combatant, e.aim or None)


@register_fold(DefenseBought)
def _fold_defense(state: Encounter, e: DefenseBought) -> Encounter:
    return put_extra(state, "defense_ap", e.combatant, int(state.extra.get("defense_ap", {}).get(e.combatant, 0)) + e.ap)


@register_fold(Using)
def _fold_using(state: Encounter, e: Using) -> Encounter:
    kinds = list(state.extra.get("using", {}).get(e.combatant, ()))
    if e.kind not in kinds:
        kinds.append(e.kind)
    return put_extra(state, "using", e.combatant, kinds)


@register_fold(WeaponBroken)
def _fold_broken(state: Encounter, e: WeaponBroken) -> Encounter:
    broken = list(state.extra.get("broken", {}).get(e.combatant, ()))
    return put_extra(state, "broken", e.combatant, broken + [e.weapon])


@register_fold(BleedingStarted)
def _fold_bleeding(state: Encounter, e: BleedingStarted) -> Encounter:
    return put_extra(state, "bleeding", e.combatant, e.round)


@register_fold(Fled)
def _fold_fled(state: Encounter, e: Fled) -> Encounter:
    return put_extra(state, "fled", f"{e.combatant}>{e.enemy}", e.round)


@register_fold(Rushing)
def _fold_rushing(state: Encounter, e: Rushing) -> Encounter:
    return put_extra(state, "rushing", e.combatant, [e.target, e.round])


# --- reading the state ----------------------------------------------------------------


def distance(state: Encounter, a: str, b: str) -> int:
    """Yards between two combatants (enemies start `start_distance` apart, allies 0)."""
    d = state.extra.get("distance", {}).get(pair(a, b))
    if d is not None:
        return int(d)
    ca, cb = state.combatants[a], state.combatants[b]
    return int(state.options.get("start_distance", 20)) if ca.side != cb.side else 0


def engaged_with(state: Encounter, a: str) -> list[str]:
    """The active combatants `a` is fighting hand to hand."""
    return [b for b in state.extra.get("engaged", {}).get(a, ()) if state.combatants[b].active]


def weapons(c: Combatant) -> list[dict[str, Any]]:
    """The combatant's weapons as given in its stats."""
    return [w for w in c.stats.get("weapons", ()) if isinstance(w, dict)]


def weapon(state: Encounter, c: Combatant, name: str | None) -> dict[str, Any] | None:
    """The weapon `name` of `c` (its first unbroken one if None), or None."""
    broken = state.extra.get("broken", {}).get(c.id, ())
    for w in weapons(c):
        if w["name"] in broken:
            continue
        if name is None or w["name"] == name:
            return w
    return None


def reach(state: Encounter, c: Combatant) -> int:
    """The reach in feet of `c`'s first melee weapon (0 bare-handed)."""
    broken = state.extra.get("broken", {}).get(c.id, ())
    for w in weapons(c):
        if w.get("kind", "melee") == "melee" and w["name"] not in broken:
            return int(w.get("reach", 0))
    return 0


def factor(c: Combatant, what: str) -> float:
    """The lowest of the wound and crippling factors on `what` (ap, damage, offense, defense)."""
    f = 1.0
    if c.has(WOUNDED_25):
        f = min(f, 0.5) if what in ("ap", "damage") else f
    elif c.has(WOUNDED_50):
        f = min(f, 0.75) if what in ("ap", "damage") else f
    for name in ("crippled right arm", "crippled left arm", "crippled right leg", "crippled left leg"):
        if c.has(name):
            f = min(f, 0.5)
    if c.has("castrated"):
        f = min(f, 0.75)
    return f


def wound_shift(c: Combatant) -> int:
    """Offense drops (and defense % rises) by this much for wounds: 10 at 50% HP, 20 at 25%."""
    return 20 if c.has(WOUNDED_25) else 10 if c.has(WOUNDED_50) else 0


def base_defense(state: Encounter, c: Combatant) -> int:
    """The defense rating for the attacks `c` uses this round (the lowest of them)."""
    d = c.stats["defense"]
    if isinstance(d, dict):
        kinds = state.extra.get("using", {}).get(c.id) or [_first_kind(c)]
        value = min(int(d.get(k, min(d.values()))) for k in kinds)
    else:
        value = int(d)
    if "kick" in state.extra.get("using", {}).get(c.id, ()):
        value = value * 3 // 4
    return int(value * factor(c, "defense"))


def _first_kind(c: Combatant) -> str:
    ws = weapons(c)
    return str(ws[0].get("kind", "melee")) if ws else "punch"


def damage_of(draft: Draft, attacker: Combatant, w: dict[str, Any], purpose: str) -> int:
    """The weapon's full damage: its dice rolled, a number, or a percentage of PS (punch, kick)."""
    if "damage_ps" in w:
        return _half_up(int(attacker.stats.get("ps", 0)) * w["damage_ps"] / 100)
    dmg = w.get("damage", 0)
    if isinstance(dmg, int):
        return dmg
    return draft.roll(str(dmg), purpose, by=attacker.id).total


def _half_up(x: float) -> int:
    return int(math.floor(x + 0.5))


def damage_percent(made_by: int) -> int:
    """The damage chart: percent damage by how much the roll was made by."""
    if made_by <= 10:
        return 25
    if made_by <= 20:
        return 50
    if made_by <= 30:
        return 75
    return 100


def protection(c: Combatant, kind: str | None) -> int:
    p = c.stats.get("protection", 0)
    if isinstance(p, dict):
        return int(p.get(kind or "", p.get("default", 0)))
    return int(p)


# --- attacks --------------------------------------------------------------------------


def target_number(state: Encounter, attacker: Combatant, target: Combatant, w: dict[str, Any],
                  free: bool = False, dodge: bool = False) -> tuple[int, list[str]]:
    """The number the d% roll must not exceed, and what went into it."""
    kind = w.get("kind", "melee")
    why = []
    if w.get("hand"):
        offense = int(attacker.stats.get("adjusted_pd", attacker.stats.get("offense", 0)))
    else:
        offense = int(w.get("offense", attacker.stats.get("offense", 0)))
    offense = int(offense * factor(attacker, "offense")) - wound_shift(attacker)
    aim = 0 if free else min(int(state.extra.get("aim", {}).get(attacker.id, 0)), AIM_MAX.get(kind, 2))
    offense += 5 * aim
    if aim:
        why.append(f"aim +{5 * aim}")
    for cond, bonus in OFFENSE_MODS.items():
        if target.has(cond) or (cond == SURPRISED and state.surprise_round and target.side in state.surprised):
            offense += bonus
            why.append(f"{cond} +{bonus}")
    if kind in ("thrown", "missile"):
        d = distance(state, attacker.id, target.id)
        if d > int(w.get("medium", w.get("long", 0))):
            offense -= 20
            why.append("long range -20")
    if dodge:
        defense = int(target.stats.get("dodge", target.stats["defense"] if not isinstance(target.stats["defense"], dict)
                                        else min(target.stats["defense"].values())))
        why.append("against dodge")
    elif free:
        d0 = target.stats["defense"]
        defense = int(d0) if not isinstance(d0, dict) else min(int(v) for v in d0.values())
    else:
        defense = base_defense(state, target)
    changes = -2 * int(state.extra.get("defense_ap", {}).get(target.id, 0)) + wound_shift(target)
    if (w.get("bow") or w.get("sling")) and target.has(UNAWARE) and w.get("bow"):
        changes += 10
        why.append("unaware of the bow")
    elif w.get("bow") or w.get("sling"):
        changes += 4
    elif kind == "thrown":
        changes += 2
    if w.get("flail"):
        changes += 4
    if kind in ("thrown", "missile"):
        for cond, value in COVER.items():
            if target.has(cond):
                changes += value
                why.append(cond)
        light = LIGHT.get(str(state.options.get("light", "day")), 0)
        if light:
            changes += light
            why.append(str(state.options.get("light")))
    if state.options.get("defense_changes", "protect") == "literal":
        return offense - (defense + changes), why
    return offense - defense + changes, why


def critical_miss_at(state: Encounter, w: dict[str, Any]) -> int:
    """The lowest roll that may be a critical miss with weapon `w`."""
    if state.options.get("critical_miss", "chapter") == "attacks":
        if w.get("hand"):
            return 96
        return 81 if w.get("flail") else 91
    return 91 if w.get("flail") else 96


def strike(draft: Draft, attacker_id: str, target_id: str, w: dict[str, Any], *, free: bool = False,
           dodge: bool = False) -> str:
    """One attack roll with everything that follows; returns the outcome."""
    state = draft.state
    attacker = state.combatants[attacker_id]
    target = state.combatants[target_id]
    if not target.active:
        return f"{target.name} is already {target.defeated}"
    kind = w.get("kind", "melee")
    if not free:
        aim = int(state.extra.get("aim", {}).get(attacker.id, 0))
        if aim:
            draft.emit(Aimed(combatant=attacker.id, aim=0, reason="used"))
        draft.emit(Using(combatant=attacker.id, kind="kick" if w["name"] == "kick" and w.get("hand") else
                         "punch" if w.get("hand") else kind))
    number, why = target_number(state, attacker, target, w, free=free, dodge=dodge)
    roll = draft.roll("d%", f"{w['name']} at {target.id} (need {number} or less)", by=attacker.id).total
    said = f"d% {roll} against {number}" + (f" ({', '.join(why)})" if why else "")
    if roll <= number:
        made_by = number - roll
        pct = damage_percent(made_by)
        base = damage_of(draft, attacker, w, f"{w['name']} damage")
        amount = base * pct / 100
        if kind in ("thrown", "missile") and distance(draft.state, attacker.id, target.id) <= int(w.get("short", -1)):
            amount *= 1.25
            said += ", short range"
        amount = _half_up(amount * factor(attacker, "damage"))
        taken = max(0, amount - protection(target, w.get("type")))
        if int(draft.state.extra.get("aim", {}).get(target.id, 0)):
            draft.emit(Aimed(combatant=target.id, aim=0, reason="hit before attacking"))
        said += f": a hit by {made_by}, {pct}% of {base} = {amount}"
        if taken != amount:
            said += f", {taken} through armour"
        _hurt(draft, target.id, taken, w.get("type"), attacker.id)
        if roll <= int(w.get("critical", 0)) and draft.state.combatants[target.id].defeated != "dead":
            again = draft.roll("d%", f"critical hit? {w['name']} at {target.id} (need {number} or less)",
                               by=attacker.id).total
            if again <= number:
                said += "; " + critical_hit(draft, target.id, number - again, base, attacker.id)
            else:
                said += f"; no critical ({again})"
        return said
    missed_by = roll - number
    said += f": a miss by {missed_by}"
    if roll >= critical_miss_at(state, w) and not free:
        again = draft.roll("d%", f"critical miss? {w['name']} (a miss above {number})", by=attacker.id).total
        if again > number:
            said += "; " + critical_miss(draft, attacker.id, w, again - number, number)
        else:
            said += f"; no critical miss ({again})"
    return said


def _rerank(draft: Draft) -> None:
    """After the game master changed someone's points or reach mid-round: the order is ranked
    again, and the turn goes to whoever leads now (as after an action; version 2 on)."""
    state = draft.state
    if state.phase not in ("declare", "resolve") or not draft.rules.since(state, 2):
        return
    draft.rules.order(state.options).after_action(draft)
    if draft.state.acting:
        draft.emit(TurnEnded(actors=draft.state.acting, yielded=True))
    draft.advance()


def _hurt(draft: Draft, target: str, amount: int, kind: str | None, source: str) -> None:
    if amount <= 0:
        return
    draft.damage(target, amount, kind=kind, source=source)
    if int(draft.state.extra.get("aim", {}).get(target, 0)):
        draft.emit(Aimed(combatant=target, aim=0, reason="hit before attacking"))


def _stun(draft: Draft, target: str, rounds: int, condition: str = STUNNED) -> None:
    """Stunned (0 AP) or at half AP: the rest of this round and the next `rounds` round(s)."""
    c = draft.state.combatants[target]
    now = max([x.remaining or 0 for x in c.conditions if x.name == condition] + [0])
    draft.emit(ConditionApplied(target=target, condition=condition, duration=max(now, rounds + 1), source="critical"))
    ap = c.resources.get("ap", 0)
    draft.emit(ResourcesSet(combatant=target, resources={**c.resources, "ap": 0 if condition == STUNNED else ap // 2}))


def _bleed(draft: Draft, target: str) -> None:
    if not draft.state.combatants[target].has(BLEEDING):
        draft.emit(ConditionApplied(target=target, condition=BLEEDING, source="critical"))
        draft.emit(BleedingStarted(combatant=target, round=draft.state.round))


CRITICAL_HITS = [(10, 25, "an extra 25% hit"), (20, 50, "an extra 50% hit"),
                 (30, 50, "an extra 50% hit and half AP for a round"), (35, 75, "an extra 75% hit, stunned a round"),
                 (40, 100, "an extra 100% hit, stunned a round"), (45, 100, "an extra 100% hit, stunned two rounds"),
                 (50, 0, "internal bleeding"), (55, 0, "internal bleeding, passes out"),
                 (65, 0, "a crippled extremity"), (10_000, 0, "dies")]


def critical_hit(draft: Draft, target: str, made_by: int, base: int, source: str) -> str:
    """The critical hit chart, by how much the second roll was made by."""
    band = next(i for i, (top, _, _) in enumerate(CRITICAL_HITS) if made_by <= top)
    _, pct, text = CRITICAL_HITS[band]
    said = f"critical hit by {made_by}: {text}"
    if pct:
        scale = 1.0
        if draft.rules.since(draft.state, 2) and source in draft.state.combatants:
            scale = factor(draft.state.combatants[source], "damage")  # a wounded attacker's factor
        extra = _half_up(base * pct / 100 * scale)
        said += f" ({extra})"
        if extra:
            draft.damage(target, extra, kind="critical", source=source)  # armour doesn't stop it
    if not draft.state.combatants[target].active and band != 9:
        return said
    if band == 2:
        _stun(draft, target, 1, HALF_AP)
    elif band in (3, 4):
        _stun(draft, target, 1)
    elif band == 5:
        _stun(draft, target, 2)
    elif band in (6, 7):
        _bleed(draft, target)
        if band == 7:
            draft.emit(CombatantDefeated(combatant=target, how="passed out"))
    elif band == 8:
        face = draft.roll("1d10", "crippled extremity", by=source).total
        limb = ["right arm", "right arm", "left arm", "left arm", "right leg", "right leg", "left leg", "left leg",
                "castration", "castration"][face - 1]
        draft.emit(ConditionApplied(target=target, condition=CRIPPLED[limb], source="critical"))
        _bleed(draft, target)
        said += f": {limb}"
    elif band == 9:
        draft.emit(CombatantDefeated(combatant=target, how="dead"))
    return said


CRITICAL_MISSES = [(20, "goes wild and falls down (5 AP to get up)"), (30, "whacks himself, stunned a round"),
                   (40, "a 25% wound on himself"), (45, "a non-quality weapon breaks"),
                   (50, "a 50% wound on himself, stunned a round"), (60, "a 100% wound on himself, stunned two rounds"),
                   (65, "the weapon breaks"), (10_000, "a 100% wound on himself and a critical hit on himself")]


def critical_miss(draft: Draft, attacker: str, w: dict[str, Any], missed_by: int, number: int) -> str:
    """The critical miss chart, by how much the second roll missed."""
    band = next(i for i, (top, _) in enumerate(CRITICAL_MISSES) if missed_by <= top)
    said = f"critical miss by {missed_by}: {CRITICAL_MISSES[band][1]}"
    me = draft.state.combatants[attacker]

    def wound(pct: int) -> int:
        base = damage_of(draft, me, w, f"{w['name']} wound on oneself")
        scale = factor(me, "damage") if draft.rules.since(draft.state, 2) else 1.0  # one's own wounded factor
        amount = max(0, _half_up(base * pct / 100 * scale) - protection(me, w.get("type")))
        _hurt(draft, attacker, amount, w.get("type"), attacker)
        return base

    if band == 0:
        draft.emit(ConditionApplied(target=attacker, condition=DOWN, source="critical miss"))
    elif band == 1:
        _stun(draft, attacker, 1)
    elif band == 2:
        wound(25)
    elif band == 3:
        if w.get("quality"):
            said += " (a quality weapon: it holds)"
        elif not w.get("hand"):
            draft.emit(WeaponBroken(combatant=attacker, weapon=w["name"]))
    elif band in (4, 5):
        wound(50 if band == 4 else 100)
        if draft.state.combatants[attacker].active:
            _stun(draft, attacker, 1 if band == 4 else 2)
    elif band == 6:
        if not w.get("hand"):
            draft.emit(WeaponBroken(combatant=attacker, weapon=w["name"]))
    else:
        base = wound(100)
        if draft.state.combatants[attacker].active:
            roll = draft.roll("d%", "critical hit on oneself", by=attacker).total
            if roll <= number:
                said += "; " + critical_hit(draft, attacker, number - roll, base, attacker)
    return said


# --- actions --------------------------------------------------------------------------


def _weapon_of(state: Encounter, actor: Combatant, p: dict[str, Any]) -> dict[str, Any] | None:
    return weapon(state, actor, p.get("weapon"))


def _attack(draft: Draft, p: Pending) -> str:
    state = draft.state
    actor = state.combatants[p.actor]
    w = PUNCH if p.action == "punch" else KICK if p.action == "kick" else _weapon_of(state, actor, p.params)
    if w is None:
        return "no weapon"
    return strike(draft, actor.id, p.targets[0], w)


def _check_attack(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    w = _weapon_of(state, actor, params)
    if w is None:
        have = ", ".join(x["name"] for x in weapons(actor)) or "none"
        return f"no usable weapon {params.get('weapon', '')!r} (weapons: {have}; broken ones can't be used)"
    target = targets[0]
    kind = w.get("kind", "melee")
    d = distance(state, actor.id, target)
    if kind == "melee":
        if target not in engaged_with(state, actor.id):
            return f"{state.combatants[target].name} is {d} yards away; melee needs engaging first (move toward them)"
    elif d > int(w.get("long", 0)):
        return f"{state.combatants[target].name} is {d} yards away, beyond the {w['name']}'s long range {w.get('long', 0)}"
    if params.get("rapid"):
        if kind != "missile":
            return "rapid fire is for missile weapons"
        rush = state.extra.get("rushing", {}).get(target)
        if not rush or rush[0] != actor.id or rush[1] != state.round:
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
    aim = int(draft.state.extra.get("aim", {}).get(me.id, 0)) + 1
    draft.emit(Aimed(combatant=me.id, aim=aim, reason="aiming"))
    return f"aims (+{5 * aim})"


def _check_aim(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    w = _weapon_of(state, actor, params)
    kind = w.get("kind", "melee") if w else "melee"
    now = int(state.extra.get("aim", {}).get(actor.id, 0))
    if now >= AIM_MAX.get(kind, 2):
        return f"aiming is at most {AIM_MAX.get(kind, 2)} AP with a {kind} weapon"
    return None


def _move(draft: Draft, p: Pending) -> str:
    state = draft.state
    me = state.combatants[p.actor]
    yards = MOVES[p.action]
    toward, away = p.params.get("toward"), p.params.get("away_from")
    if toward and state.combatants[toward].side == me.side:
        return f"moves up to {state.combatants[toward].name}"
    if away and state.combatants[away].side == me.side:
        return f"moves away from {state.combatants[away].name}"
    if toward:
        other = state.combatants[toward]
        d = distance(state, me.id, toward)
        left = max(0, d - yards)
        if p.action == "run":
            draft.emit(Rushing(combatant=me.id, target=toward, round=state.round))
        if left == 0 and toward not in engaged_with(state, me.id):
            if not other.active:
                draft.emit(DistanceSet(a=me.id, b=toward, yards=0, how="moved"))
                return f"reaches {other.name}"
            _engage(draft, (me.id, toward))
            return f"closes {d} yards and engages {other.name}"
        draft.emit(DistanceSet(a=me.id, b=toward, yards=left, how="moved"))
        return f"moves {min(d, yards)} yards toward {other.name} ({left} left)"
    other = state.combatants[away]
    said = []
    fled = away in engaged_with(state, me.id)
    if fled:
        fighting_others = [x for x in engaged_with(state, away) if x != me.id]
        able = other.active and not other.has(STUNNED) and not other.has(DOWN)
        if not fighting_others and able:
            w = melee_weapon(state, other)
            said.append(f"{other.name}'s free attack: " + strike(draft, away, me.id, w, free=True,
                                                                 dodge=p.action == "dodge_run"))
        draft.emit(Disengaged(combatants=(me.id, away)))
    if draft.state.combatants[me.id].active:
        d = distance(draft.state, me.id, away)
        draft.emit(DistanceSet(a=me.id, b=away, yards=d + yards, how="moved"))
        if fled:
            draft.emit(Fled(combatant=me.id, enemy=away, round=state.round))
        said.append(f"moves {yards} yards away from {other.name}")
    return "; ".join(said)


def melee_weapon(state: Encounter, c: Combatant) -> dict[str, Any]:
    """The first unbroken melee weapon of `c`, else a punch."""
    broken = state.extra.get("broken", {}).get(c.id, ())
    for w in weapons(c):
        if w.get("kind", "melee") == "melee" and w["name"] not in broken:
            return w
    return PUNCH


def _check_move(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    toward, away = params.get("toward"), params.get("away_from")
    if bool(toward) == bool(away):
        return "say toward=ID or away_from=ID"
    other = toward or away
    if other not in state.combatants or other == actor.id:
        return f"no other combatant {other!r}; ids: {', '.join(state.combatants)}"
    if actor.has(DOWN):
        return f"{actor.name} is down; stand up first (5 AP)"
    return None


def _defend(draft: Draft, p: Pending) -> str:
    ap = int(p.params.get("ap", 1))
    draft.emit(DefenseBought(combatant=p.actor, ap=ap))
    return f"defends: -{2 * ap} defense % this round"


def _check_defend(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    ap = params.get("ap", 1)
    if isinstance(ap, bool) or not isinstance(ap, int) or ap < 1:
        return f"ap={ap!r}: spend a whole number of AP, at least 1"
    if not round_untouched(state):
        return "defense is bought at the start of the round, before anyone does anything else"
    return None


def round_untouched(state: Encounter) -> bool:
    """True while no one has spent AP this round on anything but defense."""
    start = state.extra.get("start_ap")
    if start is None:
        return False
    bought = state.extra.get("defense_ap", {})
    return all(c.resources.get("ap", 0) + int(bought.get(c.id, 0)) == start.get(c.id, 0) for c in state.active())


def _stand(draft: Draft, p: Pending) -> str:
    draft.emit(ConditionRemoved(target=p.actor, condition=DOWN, reason="stood up"))
    return "stands up"


def _check_stand(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    return None if actor.has(DOWN) else f"{actor.name} isn't down"


def _first_aid(draft: Draft, p: Pending) -> str:
    me = draft.state.combatants[p.actor]
    target = draft.state.combatants[p.targets[0]]
    skill = int(me.stats.get("first_aid", 0))
    roll = draft.roll("d%", f"first aid on {target.id} (need {skill} or less)", by=me.id).total
    if roll <= skill:
        draft.emit(ConditionRemoved(target=target.id, condition=BLEEDING, reason="first aid"))
        draft.emit(BleedingStarted(combatant=target.id, round=-1))
        return f"d% {roll} against {skill}: the bleeding stops"
    return f"d% {roll} against {skill}: no luck"


def _check_first_aid(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    return None if state.combatants[targets[0]].has(BLEEDING) else f"{state.combatants[targets[0]].name} isn't bleeding"


def _pursue(draft: Draft, p: Pending) -> str:
    state = draft.state
    me = state.combatants[p.actor]
    target = state.combatants[p.targets[0]]
    if not target.active:
        return f"{target.name} is {target.defeated}"
    need = int(me.stats.get("running", 0)) - int(target.stats.get("running", 0)) + int(
        state.options.get("pursuit_base", 50))
    roll = draft.roll("d%", f"running after {target.id} (need {need} or less)", by=me.id).total
    if roll <= need:
        _engage(draft, (me.id, target.id))
        return f"d% {roll} against {need}: catches up with {target.name}"
    draft.emit(CombatantDefeated(combatant=target.id, how="got away"))
    return f"d% {roll} against {need}: {target.name} gets away"


def _check_pursue(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    if state.extra.get("fled", {}).get(f"{targets[0]}>{actor.id}") != state.round:
        return f"{state.combatants[targets[0]].name} hasn't fled from {actor.name} this round"
    return None


def _reach_bonus(state: Encounter, ids: tuple[str, ...]) -> dict[str, int]:
    """+1 AP per 2 feet of reach over the shortest weapon in the engagement."""
    reaches = {cid: reach(state, state.combatants[cid]) for cid in ids}
    shortest = min(reaches.values())
    return {cid: (r - shortest) // 2 for cid, r in reaches.items() if (r - shortest) // 2 > 0}


def _engage(draft: Draft, ids: tuple[str, ...]) -> None:
    """Engage now: the reach bonus is added to this round's AP, once a round (the largest one)."""
    state = draft.state
    given = state.extra.get("reach_given", {})
    bonus = {cid: n - int(given.get(cid, 0)) for cid, n in _reach_bonus(state, ids).items()
             if n > int(given.get(cid, 0)) and not state.combatants[cid].has(STUNNED)}
    draft.emit(Engaged(combatants=tuple(ids), bonus=bonus))
    for cid, extra in bonus.items():
        c = draft.state.combatants[cid]
        draft.emit(ResourcesSet(combatant=cid, resources={**c.resources, "ap": c.resources.get("ap", 0) + extra}))


ATTACK = ActionSpec("attack", "melee", {"ap": 0}, _attack, check=_check_attack,
                    help="attack with a weapon (params weapon, rapid=true for missiles against a rush)")
PUNCH_A = ActionSpec("punch", "melee", {"ap": 0}, _attack, check=_check_hand, help="punch (punch_ap AP)")
KICK_A = ActionSpec("kick", "melee", {"ap": 0}, _attack, check=_check_kick, help="kick (kick_ap AP)")
AIM = ActionSpec("aim", None, {"ap": 1}, _aim, targets="none", min_targets=0, max_targets=0, check=_check_aim,
                 help="+5 offense for the next attack (params weapon; at most 2 melee, 3 thrown, 5 missile)")
MOVE_SPECS = [ActionSpec(name, "movement", {"ap": 1}, _move, targets="none", min_targets=0, max_targets=0,
                         check=_check_move, help=f"{yards} yards (params toward=ID or away_from=ID)")
              for name, yards in MOVES.items()]
DEFEND = ActionSpec("defend", None, {"ap": 1}, _defend, targets="none", min_targets=0, max_targets=0,
                    check=_check_defend, help="at the round's start: -2 defense % per AP (params ap)")
STAND = ActionSpec("stand", None, {"ap": 5}, _stand, targets="none", min_targets=0, max_targets=0,
                   check=_check_stand, help="get up after a fall (5 AP)")
FIRST_AID = ActionSpec("first_aid", None, {"ap": 5}, _first_aid, targets="ally", check=_check_first_aid,
                       help="stop internal bleeding (d% under first_aid)")
PURSUE = ActionSpec("pursue", "movement", {"ap": 1}, _pursue, check=_check_pursue,
                    help="run after one who fled you this round: catch up, or they get away")


class InfiniteRealms(RuleSystem):
    """Infinite Realms, chapter four (see the module's docstring)."""

    name = "infinite-realms"
    # 2: a wounded attacker's damage factor on a critical's extra damage and on a critical
    # miss's wounds; a game master's change of points or reach re-ranks the order
    version = "2"
    events = EVENTS
    required_stats = ("hp", "ap", "init", "defense")
    option_specs = {
        "critical_miss": OptionSpec("chapter", ("chapter", "attacks"),
                                    "chapter: 96+ (91+ flail); attacks: 91+ (81+ flail), 96+ hand to hand"),
        "defense_changes": OptionSpec("protect", ("protect", "literal"),
                                      "protect: bought defense and cover make a hit harder; literal: as printed"),
        "light": OptionSpec("day", tuple(LIGHT), "light and weather, against thrown and missile weapons"),
        "start_distance": OptionSpec(20, None, "yards between enemies when no distance is given"),
        "first_aid_ap": OptionSpec(5, None, "AP that first aid costs"),
        "pursuit_base": OptionSpec(50, None, "pursuit: running - their running + this"),
    }
    commands = {
        "distance": "set the distance between two combatants in yards (params a, b, yards)",
        "engage": "two or more combatants start fighting hand to hand (params combatants = ids)",
        "defend": "at the round's start, before anyone acts: a combatant spends AP on defense (actor; params ap)",
    }
    command_words = {"distance": ("a", "b", "yards"), "engage": ("*combatants",), "defend": ("actor", "ap")}

    def options(self, given: dict[str, Any]) -> dict[str, Any]:
        out = super().options(given)
        for key in ("start_distance", "first_aid_ap", "pursuit_base"):
            v = out[key]
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise Refused(f"option {key}={v!r}", "not a whole number of at least 0")
        return out

    def check_combatant(self, stats: dict[str, Any], who: str = "") -> dict[str, Any]:
        stats = super().check_combatant(stats)
        for key in ("hp", "ap", "init", "offense", "dodge", "ps", "adjusted_pd", "punch_ap", "kick_ap", "running",
                    "first_aid"):
            if key in stats and (isinstance(stats[key], bool) or not isinstance(stats[key], int)):
                raise Refused(f"stat {key}={stats[key]!r}", "not a whole number")
        if stats["hp"] < 1:
            raise Refused("stat hp", "at least 1")
        for key in ("defense", "protection"):
            v = stats.get(key, 0)
            if isinstance(v, dict):
                if not v or not all(isinstance(x, int) and not isinstance(x, bool) for x in v.values()):
                    raise Refused(f"stat {key}", "give whole numbers by attack kind or damage type")
            elif isinstance(v, bool) or not isinstance(v, int):
                raise Refused(f"stat {key}={v!r}", "a whole number, or a table of them")
        ws = stats.get("weapons", [])
        if not isinstance(ws, list):
            raise Refused("stat weapons", "give a list of weapons")
        names = set()
        for i, w in enumerate(ws):
            if not isinstance(w, dict) or not w.get("name"):
                raise Refused(f"weapons[{i}]", "a weapon needs a name")
            if w["name"] in names or w["name"] in ("punch", "kick"):
                raise Refused(f"weapons[{i}]", f"the name {w['name']!r} is taken")
            names.add(w["name"])
            if w.get("kind", "melee") not in ("melee", "thrown", "missile"):
                raise Refused(f"weapons[{i}].kind", "melee, thrown or missile")
            if not isinstance(w.get("ap"), int) or w["ap"] < 1:
                raise Refused(f"weapons[{i}].ap", "the AP the attack uses, a whole number of at least 1")
            dmg = w.get("damage", 0)
            if not isinstance(dmg, int):
                try:
                    parse_dice(str(dmg))
                except DiceError as exc:
                    raise Refused(f"weapons[{i}].damage", str(exc)) from None
            for key in ("reach", "critical", "offense", "short", "medium", "long"):
                if key in w and (isinstance(w[key], bool) or not isinstance(w[key], int)):
                    raise Refused(f"weapons[{i}].{key}={w[key]!r}", "not a whole number")
            if w.get("kind", "melee") != "melee":
                ranges = [w.get(k) for k in ("short", "medium", "long")]
                if not all(isinstance(r, int) for r in ranges) or not ranges[0] <= ranges[1] <= ranges[2]:
                    raise Refused(f"weapons[{i}]", "a thrown or missile weapon needs short <= medium <= long, in yards")
        return stats

    def order(self, options: dict[str, Any]) -> ActionPointOrder:
        return ActionPointOrder("ap")

    def timing(self, options: dict[str, Any]) -> Timing:
        return _TURN

    def initiative(self, draft: Draft, combatant: Combatant, ids: tuple[str, ...]) -> int:
        init = int(combatant.stats.get("init", 0))
        return draft.roll(f"1d10{init:+d}" if init else "1d10", "AP tie-break (d10 + Init)", by=combatant.id).total

    def budget(self, state: Encounter, combatant: Combatant) -> dict[str, int]:
        if combatant.has(STUNNED):
            return {"ap": 0}
        ap = int(combatant.stats["ap"]) * factor(combatant, "ap")
        if combatant.has(HALF_AP):
            ap /= 2
        return {"ap": int(ap)}

    def actions(self, state: Encounter, actor: Combatant) -> list[ActionSpec]:
        out = [ATTACK]
        if "punch_ap" in actor.stats:
            out.append(PUNCH_A)
        if "kick_ap" in actor.stats:
            out.append(KICK_A)
        out += [AIM, *MOVE_SPECS, DEFEND, STAND, PURSUE]
        if "first_aid" in actor.stats:
            out.append(FIRST_AID)
        return out

    def cost(self, state: Encounter, actor: Combatant, spec: ActionSpec, params: dict[str, Any]) -> dict[str, int]:
        if spec.name == "attack":
            w = _weapon_of(state, actor, params)
            ap = int(w["ap"]) if w else 1
            if params.get("rapid"):
                ap = math.ceil(ap / 2)
            return {"ap": ap}
        if spec.name == "punch":
            return {"ap": int(actor.stats["punch_ap"])}
        if spec.name == "kick":
            return {"ap": int(actor.stats["kick_ap"])}
        if spec.name in MOVES or spec.name == "pursue":
            legs = actor.has("crippled right leg") or actor.has("crippled left leg")
            return {"ap": 2 if legs else 1}
        if spec.name == "defend":
            return {"ap": int(params.get("ap", 1)) if isinstance(params.get("ap", 1), int) else 1}
        if spec.name == "stand":  # 5 AP, or a whole round's AP for one who has fewer
            return {"ap": min(5, int(state.extra.get("start_ap", {}).get(actor.id, 5)) or 5)}
        if spec.name == "first_aid":
            return {"ap": int(state.options.get("first_aid_ap", 5))}
        return dict(spec.cost)

    def round_started(self, draft: Draft) -> None:
        bonus = {cid: n for cid, n in draft.state.extra.get("reach_bonus", {}).items()
                 if draft.state.combatants[cid].active and not draft.state.combatants[cid].has(STUNNED)}
        for cid in sorted(bonus):
            c = draft.state.combatants[cid]
            draft.emit(ResourcesSet(combatant=cid, resources={**c.resources, "ap": c.resources.get("ap", 0) + bonus[cid]}))
        state = draft.state
        draft.emit(RoundReset(start_ap={c.id: c.resources.get("ap", 0) for c in state.active()}, given=bonus))

    def round_ending(self, draft: Draft) -> None:
        state = draft.state
        for cid, since in sorted(state.extra.get("bleeding", {}).items()):
            c = state.combatants[cid]
            if since < 0 or not c.has(BLEEDING) or c.defeated == "dead":
                continue
            if (state.round - since) % 4 == 3:
                draft.damage(cid, 1, kind="bleeding", source="internal bleeding")

    def after_damage(self, draft: Draft, target: str) -> None:
        c = draft.state.combatants[target]
        hp = int(c.stats["hp"])
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
            a, b, yards = p.get("a"), p.get("b"), p.get("yards")
            for cid in (a, b):
                if cid not in state.combatants:
                    raise Refused(f"distance {cid!r}", "no such combatant", "ids: " + ", ".join(state.combatants))
            if a == b:
                raise Refused("distance", "name two different combatants")
            if isinstance(yards, bool) or not isinstance(yards, int) or yards < 0:
                raise Refused(f"distance {a} {b} {yards!r}", "a whole number of yards, 0 or more")
            if yards == 0 and state.phase not in ("setup", "surprise"):
                _engage(draft, (a, b))
            elif yards == 0:
                draft.emit(Engaged(combatants=(a, b), bonus=_reach_bonus(state, (a, b))))
            else:
                if b in state.extra.get("engaged", {}).get(a, ()):
                    draft.emit(Disengaged(combatants=(a, b)))
                draft.emit(DistanceSet(a=a, b=b, yards=yards, how="given"))
            _rerank(draft)
            return
        if command.kind == "defend":
            c = state.combatants.get(command.actor or "")
            if c is None or not c.active:
                raise Refused(f"defend {command.actor!r}", "no such combatant in the fight",
                              "ids: " + ", ".join(x.id for x in state.active()))
            if state.phase not in ("declare", "resolve"):
                raise Refused("defend", "defense is bought once the round has begun")
            why = _check_defend(state, c, (), dict(command.params))
            ap = command.params.get("ap", 1)
            if why is None and c.resources.get("ap", 0) < ap:
                why = f"{c.name} has {c.resources.get('ap', 0)} AP"
            if why:
                raise Refused(f"defend {c.id}", why)
            draft.emit(ResourceSpent(combatant=c.id, resource="ap", amount=ap))
            draft.emit(DefenseBought(combatant=c.id, ap=ap))
            _rerank(draft)
            return
        if command.kind == "engage":
            ids = p.get("combatants")
            if not isinstance(ids, list) or len(ids) < 2 or any(i not in state.combatants for i in ids):
                raise Refused("engage", "name two or more combatants", "ids: " + ", ".join(state.combatants))
            if state.phase in ("setup", "surprise"):
                draft.emit(Engaged(combatants=tuple(ids), bonus=_reach_bonus(state, tuple(ids))))
            else:
                _engage(draft, tuple(ids))
            _rerank(draft)
            return
        raise Refused(f"command {command.kind!r}", "unknown command")

    def policy(self, state: Encounter, actor: Combatant) -> Command:
        end = Command(kind="end_turn", actor=actor.id, by="policy")
        ap = actor.resources.get("ap", 0)

        def act(action: str, target: str | None = None, **params: Any) -> Command:
            return Command(kind="act", actor=actor.id, action=action, targets=(target,) if target else (),
                           params=params, by="policy")

        if actor.has(DOWN):
            return act("stand") if ap >= 5 else end
        foes = [c for c in state.active() if c.side != actor.side]
        if not foes:
            return end
        close = [f for f in foes if f.id in engaged_with(state, actor.id)]
        usable = [w for w in weapons(actor) if weapon(state, actor, w["name"]) is not None]
        if close:
            target = close[0].id
            for w in usable:
                if w.get("kind", "melee") == "melee" and int(w["ap"]) <= ap:
                    return act("attack", target, weapon=w["name"])
            if "punch_ap" in actor.stats and int(actor.stats["punch_ap"]) <= ap:
                return act("punch", target)
            return end
        foes.sort(key=lambda f: (distance(state, actor.id, f.id), list(state.combatants).index(f.id)))
        target = foes[0]
        d = distance(state, actor.id, target.id)
        for w in usable:
            if w.get("kind", "melee") != "melee" and d <= int(w.get("long", 0)) and int(w["ap"]) <= ap:
                return act("attack", target.id, weapon=w["name"])
        move_cost = self.cost(state, actor, MOVE_SPECS[0], {})["ap"]
        if ap >= move_cost:
            return act("run", toward=target.id)
        return end

    def describe(self, state: Encounter, pending: Pending) -> str:
        actor = state.combatants[pending.actor]
        ap = actor.resources.get("ap", 0)
        who = f"{actor.name} ({ap} AP)"
        if pending.action == "attack":
            w = _weapon_of(state, actor, pending.params)
            return f"{who} attacks {state.combatants[pending.targets[0]].name} with the {w['name'] if w else 'weapon'}"
        if pending.action in ("punch", "kick"):
            return f"{who} {pending.action}s {state.combatants[pending.targets[0]].name}"
        if pending.action in MOVES:
            how = {"run": "runs", "dodge_run": "runs and dodges", "walk": "walks"}[pending.action]
            toward = pending.params.get("toward")
            other = state.combatants[toward or pending.params.get("away_from")].name
            return f"{who} {how} {'toward' if toward else 'away from'} {other}"
        return super().describe(state, pending)

    def narrate(self, state: Encounter, event: Any, dice: bool = False) -> str | None:
        name = lambda cid: state.combatants[cid].name if cid in state.combatants else cid  # noqa: E731
        t = type(event)
        if t is Engaged:
            bonus = "; ".join(f"{name(c)} +{n} AP for reach" for c, n in event.bonus.items())
            return f"  {' and '.join(name(c) for c in event.combatants)} engage" + (f" ({bonus})." if bonus else ".")
        if t is DistanceSet and event.how == "given":
            return f"  {name(event.a)} and {name(event.b)} are {event.yards} yards apart."
        if t is DefenseBought:
            return f"  {name(event.combatant)} spends {event.ap} AP on defense."
        if t is WeaponBroken:
            return f"  {name(event.combatant)}'s {event.weapon} breaks."
        if t is Aimed and event.reason == "hit before attacking":
            return f"  {name(event.combatant)} loses the aim."
        return None

    def summary(self, state: Encounter) -> list[str]:
        out = []
        engaged = {tuple(sorted((a, b))) for a, bs in state.extra.get("engaged", {}).items() for b in bs}
        if engaged:
            out.append("Engaged: " + ", ".join(f"{a}-{b}" for a, b in sorted(engaged)))
        ap = [f"{c.id} {c.resources.get('ap', 0)}" for c in state.active()]
        if ap:
            out.append("AP left: " + ", ".join(ap))
        return out


_TURN = make_timing("turn")

INFINITE_REALMS = InfiniteRealms()

from combatlog.engine import rules as _registry  # noqa: E402

_registry.register(INFINITE_REALMS)
