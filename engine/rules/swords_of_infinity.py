"""`swords-of-infinity`: Swords of Infinity, "Combat" — Tactical Time, as the chapter gives it.

**Rolls.** A Success check succeeds on d% at or under its target number (TN). A Power check
is a d% roll at or under its TN, and its power is the roll itself (higher is better; a
failed check has no power). A power contest is won by the higher power (the defender must
be higher). A roll at or under a tenth of its TN is critical (the chapter doesn't say which
rolls are: our reading). Every Power and Success check takes -10 per Wounded damage target.

**Tactical Time.** Initiative is a Power roll, TN `dexterity` + `awareness`, in descending
order; option `failed_initiative`: "last" (default: failures act after every success,
lowest roll first) or "roll" (a failure counts as its roll). Ties: higher `awareness`, then
d% roll-offs. Each turn (6 seconds) has two actions and one minor action, one action fewer
per Disabled damage target. Full actions: `attack`, `cast`, `move`, `use_item`, `pick_up`,
and the rest below; minor: `speak`, `drop`, `notice`.

**Space and movement.** 5-ft squares (positions `x,y`; the game master places with
`override move`); `SIZE_SPACE` is the size table (active and occupied space). `move` (one
action) walks up to `move` squares (7 at size 0). `sprint`, `jump`, `climb`, `swim` are
Power checks on the combatant's `skills` TN, moving 1 square per 1, 10, 50 and 5 points of
power toward `x,y` (a sprint never less than a walk; rough terrain halves it). A resisted
move right after another (the actor's previous full action, this turn or the last) needs an
Endurance success check (`skills.endurance`) or costs 1 spirit.
Climbing, swimming (without `swim_speed`) and rough terrain make the mover Vulnerable.

**Attacks** (`attack`, one action; the table's choices travel with the command: the
defender's `defense=none|block|dodge`, `block_target`, `critical_defense`, and the
attacker's `critical`). The hit is a Dexterity success check: TN `dexterity` + the weapon's
`skill` + its `weight` modifier, -1 per 5 ft to the target with a ranged weapon (-5 when it
isn't made to be thrown, `improvised`), +10 per size category the attacker is smaller. A
hit's location is the d% roll's ones digit (0 = 10) on the target's `composition` (a human
by default: legs 1-2, torso 3-6, arms 7-8, head 9-10). `area=true` is untargeted: the
defender names the damage target (`block_target`), can't dodge, and escapes all damage by
beating the power with a Physical Resistance power check (`physical_resistance`, +10 per
size category larger than the attacker, +10 per covered damage target). Melee reaches the
weapon's `reach` (5 ft). Critical hit, the attacker's choice: `undefendable` (only a
critical defense stops it), `full` (power = its TN), `narrative` (a narrative effect on the
target until the attacker's next turn: a round).

**Defense.** Block: success check TN `awareness` + `block` (+10 per size category smaller,
+10 per covered damage target); the attack becomes untargeted, lands on `block_target`, and
the shield's (else the weapon's) `size_class` adds to that target's armour. Dodge (targeted
attacks only): the roll must be at or under the attacker's hit roll and TN `dexterity` +
`dodge` (same bonuses). Armour: damage less 10 per `armor` class of the damage target.
Critical defense, the defender's choice: `counter` (an attack back at no action cost, if
its weapon reaches; the attacker gets no defense against it),
`narrative`, or `move` (to `move_to`, up to its move, free). A Vulnerable defender pays one
spirit per stack to block or dodge, within its `spirit_limit` for the encounter; one who
can't pay can't defend. `retreat` and `fortify` (defensive actions) last until the actor's
next turn: Retreat steps 5 ft away from the first attack of the round before it resolves and
lifts the Vulnerability of casting, shooting and rough terrain; Fortify (with a shield)
gives cover on as many damage targets as the shield's class, lost on moving (and a forced
move makes the fortified Vulnerable).

**Damage.** Power from a Power check on the weapon's `power` (+10 per size category larger,
+ the feet charged in a straight line this turn with `charge=true`), less armour. Each damage
target keeps its own damage, capped at the larger of 100 and twice `vitality`. Above
`vitality`: Wounded; above twice: Disabled; above both 100 and twice: Destroyed (a destroyed
head or torso kills; option `vital_destroyed`, "dies" or "ruling"). The cap stops the count
where Destroyed begins, so a target that reaches its cap is Destroyed (and Disabled, when
twice `vitality` is the cap). A Disabled head knocks
out. On becoming Wounded or Disabled a Resist Impairment success check
(`skills.resist_impairment`) ignores that target's worst penalty until it is hurt again
(not for destroyed targets); a knocked-out combatant who makes it stays up. Version 2: damage
that ends the ignoring of a level it keeps brings a new check (the text allows one
"whenever a combatant would take damage that ... Disables them"). `first_aid`
(one action, TN `intelligence` + `skills.first_aid`) treats a target one level better.
`recover` (a command, also after the encounter): a Power check on Physical Resistance heals
its tens digit on every injured target after a day of rest (`rested=true`), else on one.

**Advanced combat.** Vulnerability stacks: each source counts one (climbing, swimming,
encumbered (condition), casting*, ranged attack*, rough terrain*, prone against melee,
pinned, unaware of the attacker, dual wielding, moving on past a Retaliate; * lifted by
Retreat), plus the attacker's Exploit (its weapon's `exploit` and 1 per size below 0) when
there is at least one. Cover (condition `cover N`): +10 per covered damage target. `prone`
and `stand` (one action each): prone is cover on three targets against ranged attacks and
Vulnerable to melee. `dual_attack`: one attack with each of two one-handed weapons (the
off-hand's skill less option `offhand_penalty`), Vulnerable until the next turn. `stealth`:
success check (`skills.stealth`) against the target's `skills.spot`: the target is unaware
of the actor (Vulnerable to it) until attacked by it. `retaliate`: the next enemy whose move
ends within reach takes an attack at once (distances are checked where moves end, so passing
by is not caught); moving on past it (`through=true`) makes it
Vulnerable. Version 2: the mover defends against the Retaliate as its move says
(`defense=block|dodge|none`), or, not saying, as any defender would (a block if it has the
skill, else a dodge, else none); and Retaliate forgoes the turn's attack: an attack is refused
while a Retaliate is held, and a Retaliate after an attack that turn. Techniques (`technique=` on an attack; the power is contested by Physical
Resistance; without a special ability the attack deals no damage, with one, `ability=true`,
it deals its damage too; Disarm takes a special ability, the others may be tried without): `disrupt` (no spells for a full round; maintained spells end), `pin`
(melee or unarmed; no major action but `escape`, one action and one spirit; kept by
`maintain_pin` each round, it lapses at the end of a round in which the pinner didn't keep it), `disarm` (the weapon drops where the game master says:
param `lands`), `trip` (unarmed: prone), `knockback` (unarmed, melee or shield: pushed its
power in feet, taking the distance not travelled when it meets an obstacle `wall_ft` away).

Combatant stats: `vitality`, `dexterity`, `awareness` (required); `intelligence`, `strength`,
`block`, `dodge`, `physical_resistance`, `size` (0), `move` (7), `swim_speed`, `spirit`,
`spirit_limit`, `armor` ({damage target: class}), `shield` ({name, size_class}),
`composition` ({damage target: [low, high]}), `skills` ({sprint, jump, climb, swim,
endurance, resist_impairment, first_aid, stealth, spot}), `weapons` (list of {name, skill,
weight, power, reach, range, improvised, exploit, size_class, two_handed}).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import msgspec

from combatlog.engine.draft import Draft
from combatlog.engine.errors import Refused
from combatlog.engine.order import RankedOrder
from combatlog.engine.rules.base import ActionSpec, OptionSpec, RuleSystem
from combatlog.engine.rules.swords_of_infinity_model import Stats as SoIStats
from combatlog.engine.timing import Timing, make_timing
from combatlog.events import (
    CombatantDefeated,
    DamageApplied,
    Command,
    ConditionApplied,
    ConditionRemoved,
    Event,
    GmRuling,
    Moved,
)
from combatlog.projections import Combatant, Encounter, Pending
from combatlog.projections.fold import put_extra, register_fold
from combatlog.projections.phases import LIVE, allow

replace = msgspec.structs.replace

HUMAN = {"left leg": (1, 1), "right leg": (2, 2), "torso": (3, 6), "left arm": (7, 7), "right arm": (8, 8),
         "head": (9, 10)}
VITAL = ("head", "torso")
SIZE_SPACE = {-5: ("1/32", "1/128"), -4: ("1/16", "1/64"), -3: ("1/4", "1/16"), -2: ("1/2", "1/8"),
              -1: ("1", "1/6"), 0: ("1", "1/4"), 1: ("1", "1/2"), 2: ("4", "1"), 3: ("9", "4"), 4: ("16", "8"),
              5: ("25", "16")}  # size: (active space, occupied space) in squares
RESISTED = {"sprint": 1, "jump": 10, "climb": 50, "swim": 5}  # points of power per square
ATTACKED = "attacked this turn"  # version 2: an attack forgoes Retaliate for the rest of the turn
UNTIL_NEXT_TURN = (ATTACKED, "retreat", "fortify", "retaliating", "vulnerable (casting)", "vulnerable (ranged attack)",
                   "vulnerable (dual wielding)", "vulnerable (kept moving)", "vulnerable (climbing)",
                   "vulnerable (swimming)", "vulnerable (forced out of fortify)")
LIFTED_BY_RETREAT = ("vulnerable (casting)", "vulnerable (ranged attack)", "rough terrain")


# --- events of this system ------------------------------------------------------------


class SpiritSpent(Event):
    """Spirit spent (to defend while Vulnerable, to escape a pin, after tiring resisted movement)."""

    combatant: str
    amount: int
    reason: str = ""


class Impairment(Event):
    """A damage target's penalty changes: `ignored` (Resist Impairment), `aided` (first aid) or `cleared`."""

    combatant: str
    target: str
    what: str
    level: int = 0


class Pinned(Event):
    """A pin on `combatant` by `by`, kept this round; `by` None: released."""

    combatant: str
    by: str | None = None
    round: int = 0


class WeaponDropped(Event):
    """A weapon leaves its holder's hand (`lands`: where, as the game master says); picked up: `back`."""

    combatant: str
    weapon: str
    lands: str = ""
    back: bool = False


class Recovered(Event):
    """Damage healed over a day of recovery, by damage target."""

    combatant: str
    healed: dict[str, int]


class TurnMark(Event):
    """Where a combatant stood when its turn began, and its last action (for charges and tiring moves)."""

    combatant: str
    start: str | None = None
    last: str | None = None


class Maintained(Event):
    """A spell kept up by its caster; `ended`: it stops."""

    combatant: str
    spell: str
    ended: bool = False


class Retreated(Event):
    """A retreating combatant took its 5-ft step this round."""

    combatant: str
    round: int


EVENTS = (SpiritSpent, Impairment, Pinned, WeaponDropped, Recovered, TurnMark, Maintained, Retreated)
allow("Recovered", "*")
for _cls in EVENTS:
    allow(_cls.__name__, LIVE)


@register_fold(SpiritSpent)
def _fold_spirit(state: Encounter, e: SpiritSpent) -> Encounter:
    return put_extra(state, "spirit_spent", e.combatant, int(state.extra.get("spirit_spent", {}).get(e.combatant, 0))
                + e.amount)


@register_fold(Impairment)
def _fold_impairment(state: Encounter, e: Impairment) -> Encounter:
    mine = dict(state.extra.get("impairment", {}).get(e.combatant, {}))
    entry = dict(mine.get(e.target, {}))
    if e.what == "cleared":  # hurt again: Resist Impairment and first aid no longer hold
        entry.pop("ignored", None)
        entry.pop("aided", None)
    else:
        entry[e.what] = e.level
    mine[e.target] = entry
    return put_extra(state, "impairment", e.combatant, mine)


@register_fold(Pinned)
def _fold_pinned(state: Encounter, e: Pinned) -> Encounter:
    return put_extra(state, "pins", e.combatant, None if e.by is None else [e.by, e.round])


@register_fold(WeaponDropped)
def _fold_dropped(state: Encounter, e: WeaponDropped) -> Encounter:
    dropped = list(state.extra.get("dropped", {}).get(e.combatant, ()))
    if e.back:
        dropped = [w for w in dropped if w != e.weapon]
    elif e.weapon not in dropped:
        dropped.append(e.weapon)
    return put_extra(state, "dropped", e.combatant, dropped or None)


@register_fold(Recovered)
def _fold_recovered(state: Encounter, e: Recovered) -> Encounter:
    c = state.combatant(e.combatant)
    wounds = dict(c.wounds)
    total = 0
    for where, n in e.healed.items():
        take = min(n, wounds.get(where, 0))
        wounds[where] = wounds.get(where, 0) - take
        total += take
    wounds = {k: v for k, v in wounds.items() if v > 0}
    combatants = dict(state.combatants)
    combatants[c.id] = replace(c, wounds=wounds, damage=c.damage - total)
    return replace(state, combatants=combatants)


@register_fold(TurnMark)
def _fold_turnmark(state: Encounter, e: TurnMark) -> Encounter:
    mine = dict(state.extra.get("turn", {}).get(e.combatant, {}))
    if e.start is not None:
        mine["start"] = e.start
    if e.last is not None:
        mine["last"] = e.last
    return put_extra(state, "turn", e.combatant, mine)


@register_fold(Retreated)
def _fold_retreated(state: Encounter, e: Retreated) -> Encounter:
    return put_extra(state, "retreated", e.combatant, e.round)


@register_fold(Maintained)
def _fold_maintained(state: Encounter, e: Maintained) -> Encounter:
    spells = [s for s in state.extra.get("maintained", {}).get(e.combatant, ()) if s != e.spell]
    if not e.ended:
        spells.append(e.spell)
    return put_extra(state, "maintained", e.combatant, spells or None)


# --- the numbers the text's examples give ---------------------------------------------


def power_of(roll: int, tn: int) -> int:
    """A Power check's power: the roll when it is at or under the TN, else 0."""
    return roll if roll <= tn else 0


def critical(roll: int, tn: int) -> bool:
    """A roll at or under a tenth of its TN is critical (our reading)."""
    return roll <= tn // 10


def block_damage(power: int, armor_class: int, shield_class: int) -> int:
    """Damage through a block: power less 10 per class of armour and the blocking shield (Bjoric's block)."""
    return max(0, power - 10 * (armor_class + shield_class))


def dodged(defense_roll: int, attack_roll: int, tn: int) -> bool:
    """A dodge succeeds at or under both the attacker's hit roll and one's own TN (Parthenia's dodge)."""
    return defense_roll <= attack_roll and defense_roll <= tn


def knockback_damage(knockback_feet: int, obstacle_feet: int | None) -> int:
    """Damage from hitting an obstacle: the distance not travelled (30 ft towards a wall 10 ft away: 20)."""
    if obstacle_feet is None:
        return 0
    return max(0, knockback_feet - obstacle_feet)


def exploit_stacks(weapon_exploit: int, attacker_size: int, target_vulnerable: bool) -> int:
    """Vulnerability stacks one Vulnerable source gives an attack with Exploit (the weapon's, 1 per size below 0)."""
    if not target_vulnerable:
        return 0
    return 1 + weapon_exploit + max(0, -attacker_size)


def location(roll: int, composition_: dict[str, Any]) -> str:
    """The damage target the d% roll's ones digit (0 = 10) falls on."""
    digit = roll % 10 or 10
    for name, (lo, hi) in composition_.items():
        if lo <= digit <= hi:
            return name
    return next(iter(composition_))


def moved_squares(kind: str, power: int, walk: int, rough: bool) -> int:
    """Squares a resisted move covers for its power (a sprint never less than a walk; rough terrain halves it)."""
    squares = power // RESISTED[kind]
    if kind == "sprint":
        if rough:
            squares //= 2
        squares = max(squares, walk)
    return squares


# --- reading the state ----------------------------------------------------------------


def composition(c: Combatant) -> dict[str, Any]:
    comp = c.stats.get("composition")
    return {k: tuple(v) for k, v in comp.items()} if isinstance(comp, dict) and comp else HUMAN


def cap(c: Combatant) -> int:
    return max(100, 2 * int(c.stats["vitality"]))


def raw_level(c: Combatant, d: int) -> int:
    """0 whole, 1 Wounded (above Vitality), 2 Disabled (above twice Vitality, or at the cap when that is the cap)."""
    v = int(c.stats["vitality"])
    if d > 2 * v or (d >= cap(c) and 2 * v >= cap(c)):
        return 2
    return 1 if d > v else 0


def level(state: Encounter, c: Combatant, where: str) -> int:
    """A damage target's effective level: 0 whole, 1 Wounded, 2 Disabled (after first aid and Resist Impairment)."""
    d = c.wounds.get(where, 0)
    raw = raw_level(c, d)
    entry = state.extra.get("impairment", {}).get(c.id, {}).get(where, {})
    if raw and "ignored" in entry and entry["ignored"] == raw:
        raw -= 1  # only the worst penalty is ignored
    if raw and "aided" in entry:
        raw = max(0, raw - 1)
    return raw


def destroyed(c: Combatant, where: str) -> bool:
    """Beyond 100 and twice Vitality: the count stops at the cap, so a target that reaches it is destroyed."""
    return c.wounds.get(where, 0) >= cap(c)


def wounded_targets(state: Encounter, c: Combatant) -> list[str]:
    return [t for t in c.wounds if level(state, c, t) >= 1]


def disabled_targets(state: Encounter, c: Combatant) -> list[str]:
    return [t for t in c.wounds if level(state, c, t) >= 2]


def penalty(state: Encounter, c: Combatant) -> int:
    """-10 to every Power and Success check per Wounded damage target."""
    return -10 * len(wounded_targets(state, c))


def skill(c: Combatant, name: str) -> int:
    return int((c.stats.get("skills") or {}).get(name, 0))


def spirit_left(state: Encounter, c: Combatant) -> int:
    spent = int(state.extra.get("spirit_spent", {}).get(c.id, 0))
    return min(int(c.stats.get("spirit", 0)), int(c.stats.get("spirit_limit", c.stats.get("spirit", 0)))) - spent


UNARMED = {"name": "unarmed", "skill": 0, "weight": 0, "size_class": 0}


def weapon(state: Encounter, c: Combatant, name: str | None) -> dict[str, Any]:
    """The weapon `name` of `c` (its first one in hand if None); unarmed (class 0, Strength power) otherwise."""
    dropped = state.extra.get("dropped", {}).get(c.id, ())
    for w in c.stats.get("weapons", ()):
        if isinstance(w, dict) and w.get("name") not in dropped and (name is None or w.get("name") == name):
            return w
    return {**UNARMED, "power": int(c.stats.get("strength", 0))}


def at(c: Combatant) -> tuple[int, int] | None:
    if not c.position or "," not in c.position:
        return None
    x, y = c.position.split(",", 1)
    return int(float(x)), int(float(y))


def feet(a: Combatant, b: Combatant) -> int | None:
    """Distance in feet on the 5-ft grid (None when either isn't placed)."""
    pa, pb = at(a), at(b)
    if pa is None or pb is None:
        return None
    return 5 * max(abs(pa[0] - pb[0]), abs(pa[1] - pb[1]))


def cover(c: Combatant, ranged: bool = False) -> int:
    """Damage targets covered: a `cover N` condition, a fortifying shield's class, prone against ranged attacks."""
    n = 0
    for cond in c.conditions:
        if cond.name.startswith("cover "):
            try:
                n = max(n, int(cond.name.split()[1]))
            except ValueError:
                pass
    if c.has("fortify"):
        n = max(n, int((c.stats.get("shield") or {}).get("size_class", 0)))
    if ranged and c.has("prone"):
        n = max(n, 3)
    return n


def vulnerability(state: Encounter, target: Combatant, attacker: Combatant | None, melee: bool) -> int:
    """The target's Vulnerable stacks against this attacker (before Exploit)."""
    n = 0
    retreat = target.has("retreat")
    for cond in target.conditions:
        name = cond.name
        if name.startswith("vulnerable") or name == "rough terrain" or name == "encumbered":
            if retreat and name in LIFTED_BY_RETREAT:
                continue
            n += 1
    if melee and target.has("prone"):
        n += 1
    if target.id in state.extra.get("pins", {}):
        n += 1
    if attacker is not None and target.has(f"unaware of {attacker.id}"):
        n += 1
    return n


def exploit(attacker: Combatant, w: dict[str, Any], melee: bool) -> int:
    """Exploit: the weapon's, and 1 per size category below 0 for a small creature attacking in melee."""
    return int(w.get("exploit", 0)) + (max(0, -int(attacker.stats.get("size", 0))) if melee else 0)


def is_melee(w: dict[str, Any]) -> bool:
    return "range" not in w


# --- the attack -----------------------------------------------------------------------


def strike(draft: Draft, attacker_id: str, target_id: str, w: dict[str, Any], params: dict[str, Any],
           free: bool = False, offhand: bool = False) -> str:
    """One attack: hit, defense, then damage or a technique; returns what happened."""
    state = draft.state
    attacker = state.combatants[attacker_id]
    target = state.combatants[target_id]
    if not target.active:
        return f"{target.name} is already {target.defeated}"
    melee = is_melee(w)
    said: list[str] = []
    # Retreat: a 5-ft step away from the first attack of the round, before it resolves
    if target.has("retreat") and state.extra.get("retreated", {}).get(target.id) != state.round:
        pa, pt = at(attacker), at(target)
        if pt is not None:
            dx = 0 if pa is None else (pt[0] > pa[0]) - (pt[0] < pa[0])
            dy = 0 if pa is None else (pt[1] > pa[1]) - (pt[1] < pa[1])
            if (dx, dy) == (0, 0):
                dx = 1
            draft.emit(Moved(combatant=target.id, to=f"{pt[0] + dx},{pt[1] + dy}", distance=5))
        draft.emit(Retreated(combatant=target.id, round=state.round))
        state = draft.state
        target = state.combatants[target_id]
        said.append(f"{target.name} retreats a step")
        d = feet(attacker, target)
        if melee and d is not None and d > int(w.get("reach", 5)):
            return "; ".join(said + ["out of reach"])
    size_gap = int(target.stats.get("size", 0)) - int(attacker.stats.get("size", 0))
    tn = (int(attacker.stats["dexterity"]) + int(w.get("skill", 0)) + int(w.get("weight", 0))
          + penalty(state, attacker) + 10 * max(0, size_gap))
    if offhand:
        tn -= int(state.options.get("offhand_penalty", 10))
    d = feet(attacker, target)
    if d is not None and not melee:
        tn -= (5 if w.get("improvised") else 1) * (d // 5)
    hit = draft.roll("d%", f"{w['name']} at {target.id} (hit TN {tn})", by=attacker.id).total
    if hit > tn:
        return "; ".join(said + [f"hit roll {hit} against {tn}: a miss"])
    said.append(f"hit roll {hit} against {tn}: a hit")
    crit = critical(hit, tn)
    choice = params.get("critical") if crit else None
    if crit:
        said[-1] += f" (critical: {choice or 'no choice'})"
    area = bool(params.get("area"))
    where = str(params.get("block_target")) if area and params.get("block_target") else location(hit, composition(target))
    shield_class = 0
    blocked = False
    # the defense
    defense = params.get("defense", "none")
    if target.has(f"unaware of {attacker.id}"):
        draft.emit(ConditionRemoved(target=target.id, condition=f"unaware of {attacker.id}", reason="attacked"))
    if defense == "dodge" and area:
        said.append("an untargeted attack can't be dodged")
        defense = "none"
    if defense in ("block", "dodge"):
        stacks = vulnerability(draft.state, target, attacker, melee)
        if stacks:
            stacks += exploit(attacker, w, melee)
        if stacks > spirit_left(draft.state, target):
            said.append(f"{target.name} is too vulnerable to defend ({stacks} spirit needed)")
            defense = "none"
        elif stacks:
            draft.emit(SpiritSpent(combatant=target.id, amount=stacks, reason=f"defending while vulnerable x{stacks}"))
    if defense in ("block", "dodge"):
        bonus = 10 * max(0, -size_gap) + 10 * cover(target, not melee) + penalty(draft.state, target)
        if defense == "dodge":
            dtn = int(target.stats["dexterity"]) + int(target.stats.get("dodge", 0)) + bonus
            roll = draft.roll("d%", f"dodge (TN {dtn}, at or under {hit})", by=target.id).total
            ok = dodged(roll, hit, dtn) and (choice != "undefendable" or critical(roll, dtn))
            said.append(f"dodge {roll} against {dtn} and {hit}: " + ("dodged" if ok else "fails"))
            if ok:
                return "; ".join(said + _critical_defense(draft, target.id, attacker.id, roll, dtn, params))
        else:
            btn = int(target.stats["awareness"]) + int(target.stats.get("block", 0)) + bonus
            roll = draft.roll("d%", f"block (TN {btn})", by=target.id).total
            ok = roll <= btn and (choice != "undefendable" or critical(roll, btn))
            if ok:
                where = str(params.get("block_target") or where)
                shield = target.stats.get("shield") or weapon(draft.state, target, None)
                shield_class = int(shield.get("size_class", 0))
                said.append(f"block {roll} against {btn}: the {where} takes it")
                said += _critical_defense(draft, target.id, attacker.id, roll, btn, params)
                area = True  # a blocked attack is untargeted
                blocked = True
            else:
                said.append(f"block {roll} against {btn}: fails")
    if not draft.state.combatants[attacker.id].active or not draft.state.combatants[target.id].active:
        return "; ".join(said)
    # the power
    ptn = int(w.get("power", 0)) + penalty(draft.state, attacker) + 10 * max(0, -size_gap)
    if choice == "full":
        power = max(0, ptn)
        said.append(f"full power {power}")
    else:
        roll = draft.roll("d%", f"{w['name']} power (TN {ptn})", by=attacker.id).total
        power = power_of(roll, ptn)
        said.append(f"power {roll} against {ptn}" + ("" if power else ": no power"))
    if power and params.get("charge"):
        run = _straight_feet(draft.state, attacker)
        power += run
        said.append(f"+{run} for the charge")
    if choice == "narrative":
        draft.emit(ConditionApplied(target=target.id, condition=f"narrative effect from {attacker.id}", source=attacker.id))
    technique = params.get("technique")
    if technique:
        said.append(_technique(draft, attacker.id, target.id, technique, power, params))
        if not params.get("ability"):  # without a special ability a technique deals no damage
            return "; ".join(said)
    if area and params.get("area") and not blocked:  # blocking stands in lieu of Physical Resistance
        prt = (int(target.stats.get("physical_resistance", 0)) + penalty(draft.state, target)
               + 10 * max(0, size_gap) + 10 * cover(target, not melee))
        roll = draft.roll("d%", f"physical resistance (TN {prt}) against power {power}", by=target.id).total
        if power_of(roll, prt) > power:
            return "; ".join(said + [f"physical resistance {roll} against {prt}: no damage"])
        said.append(f"physical resistance {roll} against {prt}: fails")
    target = draft.state.combatants[target.id]
    armor = int((target.stats.get("armor") or {}).get(where, 0))
    dmg = block_damage(power, armor, shield_class)
    dmg = min(dmg, cap(target) - target.wounds.get(where, 0))
    if dmg > 0:
        draft.damage(target.id, dmg, location=where, kind=w["name"], source=attacker.id)
    said.append(f"{dmg} damage to the {where}" + (f" (armour {armor + shield_class})" if armor + shield_class else ""))
    return "; ".join(said)


def _straight_feet(state: Encounter, c: Combatant) -> int:
    start = state.extra.get("turn", {}).get(c.id, {}).get("start")
    here = at(c)
    if not start or here is None:
        return 0
    sx, sy = (int(float(v)) for v in start.split(","))
    return 5 * max(abs(here[0] - sx), abs(here[1] - sy))


def _critical_defense(draft: Draft, defender: str, attacker: str, roll: int, tn: int, params: dict[str, Any]) -> list[str]:
    if not critical(roll, tn):
        return []
    choice = params.get("critical_defense")
    if choice == "counter":
        d_ = draft.state.combatants[defender]
        w = weapon(draft.state, d_, None)
        d = feet(d_, draft.state.combatants[attacker])
        if d is not None and d > int(w.get("range", w.get("reach", 5))):
            return [f"a critical defense, but the {w['name']} can't reach {d} ft for a counter-attack"]
        return ["a critical defense: a counter-attack: " + strike(draft, defender, attacker, w, {}, free=True)]
    if choice == "narrative":
        draft.emit(ConditionApplied(target=attacker, condition=f"narrative effect from {defender}", source=defender))
        return ["a critical defense: a narrative effect"]
    if choice == "move" and params.get("move_to"):
        draft.emit(Moved(combatant=defender, to=str(params["move_to"])))
        return [f"a critical defense: moves to {params['move_to']}"]
    return ["a critical defense"]


def _technique(draft: Draft, attacker: str, target: str, technique: str, power: int, params: dict[str, Any]) -> str:
    state = draft.state
    t = state.combatants[target]
    a = state.combatants[attacker]
    prt = (int(t.stats.get("physical_resistance", 0)) + penalty(state, t)
           + 10 * max(0, int(t.stats.get("size", 0)) - int(a.stats.get("size", 0))))
    roll = draft.roll("d%", f"physical resistance (TN {prt}) against {technique} {power}", by=target).total
    if power_of(roll, prt) > power or not power:
        return f"{technique}: resisted ({roll} against {prt})"
    said = f"{technique}: not resisted ({roll} against {prt})"
    if technique == "disrupt":
        draft.emit(ConditionApplied(target=target, condition="disrupted", duration=2, source=attacker))
        for spell in state.extra.get("maintained", {}).get(target, ()):
            draft.emit(Maintained(combatant=target, spell=spell, ended=True))
        return said + ": no spells for a full round"
    if technique == "pin":
        draft.emit(Pinned(combatant=target, by=attacker, round=state.round))
        return said + ": pinned"
    if technique == "disarm":
        w = weapon(state, t, None)
        if w["name"] == "unarmed":
            return said + ": nothing to disarm"
        lands = str(params.get("lands", ""))
        draft.emit(GmRuling(topic="disarm", decision=lands or "where it falls", text=f"{t.name}'s {w['name']}"))
        draft.emit(WeaponDropped(combatant=target, weapon=w["name"], lands=lands))
        return said + f": the {w['name']} drops" + (f" ({lands})" if lands else "")
    if technique == "trip":
        draft.emit(ConditionApplied(target=target, condition="prone", source=attacker))
        return said + ": prone"
    if technique == "knockback":
        wall = params.get("wall_ft")
        moved = power if wall is None else min(power, int(wall))
        pa, pt = at(a), at(t)
        if pa is not None and pt is not None:
            dx, dy = (pt[0] > pa[0]) - (pt[0] < pa[0]), (pt[1] > pa[1]) - (pt[1] < pa[1])
            if (dx, dy) == (0, 0):
                dx = 1
            n = moved // 5
            draft.emit(Moved(combatant=target, to=f"{pt[0] + dx * n},{pt[1] + dy * n}", distance=moved))
        if t.has("fortify"):
            draft.emit(ConditionRemoved(target=target, condition="fortify", reason="forced to move"))
            draft.emit(ConditionApplied(target=target, condition="vulnerable (forced out of fortify)", source=attacker))
        hurt = knockback_damage(power, None if wall is None else int(wall))
        if hurt:
            hits = str(params.get("hits", "torso"))
            where = hits if hits in composition(t) else next(iter(composition(t)))
            dmg = min(hurt, cap(t) - t.wounds.get(where, 0))  # a collision isn't a blow: no armour (our reading)
            if dmg > 0:
                draft.damage(target, dmg, location=where, kind="knockback", source=attacker)
            return said + f": thrown {power} ft, into an obstacle at {wall} ft: {dmg} damage to the {where}"
        return said + f": thrown {moved} ft"
    return said


# --- actions --------------------------------------------------------------------------


def _v2(state: Encounter) -> bool:
    return RuleSystem.since(state, 2)


def _attacked(draft: Draft, actor: str) -> None:
    """Version 2: the actor attacked this turn, so it can't hold a Retaliate too."""
    if _v2(draft.state) and draft.state.combatants[actor].active and not draft.state.combatants[actor].has(ATTACKED):
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
    if _v2(state) and actor.has("retaliating"):
        return f"{actor.name} holds a Retaliate this turn and forgoes its attack"
    return None


def _check_retaliate(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    if _v2(state) and actor.has(ATTACKED):
        return f"{actor.name} attacked this turn: Retaliate forgoes the turn's attack, so it can't follow one"
    return None


def _check_attack(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    forgone = _forgone(state, actor)
    if forgone:
        return forgone
    defense = params.get("defense", "none")
    if defense not in ("none", "block", "dodge"):
        return f"defense={defense!r}: use none, block or dodge"
    target = state.combatants[targets[0]]
    w = weapon(state, actor, params.get("weapon"))
    if params.get("weapon") and w["name"] != params["weapon"]:
        return f"{actor.name} has no {params['weapon']!r} in hand"
    bt = params.get("block_target")
    if bt is not None and bt not in composition(target):
        return f"block_target={bt!r}: {target.name}'s damage targets are {', '.join(composition(target))}"
    if params.get("critical") not in (None, "undefendable", "full", "narrative"):
        return "critical: undefendable, full or narrative"
    if params.get("critical_defense") not in (None, "counter", "narrative", "move"):
        return "critical_defense: counter, narrative or move"
    tech = params.get("technique")
    if tech not in (None, "disrupt", "pin", "disarm", "trip", "knockback"):
        return "technique: disrupt, pin, disarm, trip or knockback"
    if tech == "disarm" and not params.get("ability"):
        return "a disarm takes a special ability (params ability=true)"
    if tech and params.get("ability"):
        return d_ok(state, actor, target, w)  # a special ability may use any weapon
    if tech == "pin" and not is_melee(w):
        return "a pin takes a melee or unarmed attack"
    if tech == "trip" and w["name"] != "unarmed":
        return "a trip without a special ability is an unarmed attack"
    if tech == "knockback" and not is_melee(w):
        return "a knockback takes an unarmed, melee or shield attack"
    why = d_ok(state, actor, target, w)
    if why:
        return why
    for key in ("wall_ft",):
        if key in params and (isinstance(params[key], bool) or not isinstance(params[key], int) or params[key] < 0):
            return f"{key}={params[key]!r}: a whole number of feet"
    mt = params.get("move_to")
    if mt is not None and not _square(mt):
        return f"move_to={mt!r}: a square, x,y"
    if params.get("charge") and not state.extra.get("turn", {}).get(actor.id, {}).get("start"):
        return "a charge follows movement this turn"
    return None


def d_ok(state: Encounter, actor: Combatant, target: Combatant, w: dict[str, Any]) -> str | None:
    """Why `w` can't reach `target` from where `actor` stands (None: it can, or they aren't placed)."""
    d = feet(actor, target)
    if d is not None:
        reach = int(w.get("range", w.get("reach", 5)))
        if d > reach:
            kind = "range" if "range" in w else "reach"
            return f"{target.name} is {d} ft away, beyond the {w['name']}'s {kind} of {reach} ft"
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
    dropped = draft.state.extra.get("dropped", {}).get(me.id, ())
    held = [w for w in me.stats.get("weapons", ()) if isinstance(w, dict) and w.get("name") not in dropped]
    first = weapon(draft.state, me, p.params.get("main") or held[0]["name"])
    second = weapon(draft.state, me, p.params.get("off") or held[1]["name"])
    targets = list(p.targets) + [p.targets[-1]] * (2 - len(p.targets))
    said = [f"{first['name']}: " + strike(draft, me.id, targets[0], first, p.params)]
    if draft.state.combatants[me.id].active:
        said.append(f"{second['name']} (off hand): " + strike(draft, me.id, targets[1], second, p.params, offhand=True))
    draft.emit(ConditionApplied(target=me.id, condition="vulnerable (dual wielding)", source=me.id))
    _attacked(draft, me.id)
    return "; ".join(said)


def _check_dual(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    forgone = _forgone(state, actor)
    if forgone:
        return forgone
    held = [w for w in actor.stats.get("weapons", ()) if isinstance(w, dict)
            and w.get("name") not in state.extra.get("dropped", {}).get(actor.id, ())]
    names = [params.get("main") or (held[0]["name"] if held else None),
             params.get("off") or (held[1]["name"] if len(held) > 1 else None)]
    chosen = [w for n in names for w in held if w["name"] == n]
    if len(chosen) < 2 or names[0] == names[1] or any(w.get("two_handed") for w in chosen):
        return f"{actor.name} needs two different one-handed weapons in hand (params main, off)"
    for w, t in zip(chosen, list(targets) + [targets[-1]] * (2 - len(targets))):
        why = _check_attack(state, actor, (t,), {**params, "weapon": w["name"]})
        if why:
            return f"{w['name']}: {why}"
    return None


def _move(draft: Draft, p: Pending) -> str:
    me = draft.state.combatants[p.actor]
    to = f"{int(p.params['x'])},{int(p.params['y'])}"
    if me.has("fortify"):
        draft.emit(ConditionRemoved(target=me.id, condition="fortify", reason="moved"))
    draft.emit(Moved(combatant=me.id, to=to, distance=5 * _squares(me, int(p.params["x"]), int(p.params["y"]))))
    return f"moves to {to}" + _retaliations(draft, me.id, bool(p.params.get("through")), p.params)


def _squares(c: Combatant, x: int, y: int) -> int:
    here = at(c)
    return 0 if here is None else max(abs(x - here[0]), abs(y - here[1]))


def retaliation_defense(mover: Combatant, params: dict[str, Any]) -> str:
    """How the mover defends against a Retaliate: as its move says (`defense`), else as any
    defender would (a block if it has the skill, else a dodge, else none)."""
    said = params.get("defense")
    if said in ("block", "dodge", "none"):
        return str(said)
    return "block" if "block" in mover.stats else "dodge" if "dodge" in mover.stats else "none"


def _retaliations(draft: Draft, mover: str, through: bool, params: dict[str, Any] | None = None) -> str:
    said = ""
    for c in list(draft.state.active()):
        m = draft.state.combatants[mover]
        if c.side == m.side or not c.has("retaliating") or not m.active:
            continue
        w = weapon(draft.state, c, None)
        d = feet(c, m)
        if d is not None and is_melee(w) and d <= int(w.get("reach", 5)):
            draft.emit(ConditionRemoved(target=c.id, condition="retaliating", reason="used"))
            # version 2: "whenever a combat participant is successfully attacked they get a chance
            # to defend themselves": the mover blocks or dodges the Retaliate
            how = {"defense": retaliation_defense(m, params or {})} if _v2(draft.state) else {}
            said += f"; {c.name} retaliates: " + strike(draft, c.id, mover, w, how, free=True)
            if through and draft.state.combatants[mover].active:
                draft.emit(ConditionApplied(target=mover, condition="vulnerable (kept moving)", source=c.id))
                said += f"; {m.name} moves on, vulnerable"
    return said


def _check_move(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    try:
        x, y = int(params["x"]), int(params["y"])
    except (KeyError, TypeError, ValueError):
        return "say where: params x, y (squares)"
    if actor.has("prone"):
        return f"{actor.name} is prone; stand up first (one action)"
    if actor.position:
        squares = _squares(actor, x, y)
        most = int(actor.stats.get("move", 7))
        if squares > most:
            return f"{squares} squares is more than {actor.name}'s move of {most}"
    return None


def _resisted(draft: Draft, p: Pending) -> str:
    state = draft.state
    me = state.combatants[p.actor]
    kind = p.action
    said = []
    last = state.extra.get("turn", {}).get(me.id, {}).get("last")
    if last in RESISTED:
        etn = skill(me, "endurance") + penalty(state, me)
        roll = draft.roll("d%", f"endurance after {last} (TN {etn})", by=me.id).total
        if roll <= etn:
            said.append(f"endurance {roll} against {etn}")
        elif spirit_left(draft.state, me) > 0:
            draft.emit(SpiritSpent(combatant=me.id, amount=1, reason="tired by resisted movement"))
            said.append(f"endurance {roll} against {etn} fails: 1 spirit")
        else:
            said.append(f"endurance {roll} against {etn} fails (no spirit left)")
    tn = skill(me, kind) + penalty(draft.state, me)
    roll = draft.roll("d%", f"{kind} (Power, TN {tn})", by=me.id).total
    power = power_of(roll, tn)
    squares = moved_squares(kind, power, int(me.stats.get("move", 7)), me.has("rough terrain"))
    here = at(me)
    tx, ty = int(p.params["x"]), int(p.params["y"])
    if here is None:
        to = (tx, ty)
    else:
        dist = max(abs(tx - here[0]), abs(ty - here[1]))
        f = min(1.0, squares / dist) if dist else 0.0
        to = (here[0] + int(round((tx - here[0]) * f)), here[1] + int(round((ty - here[1]) * f)))
    draft.emit(Moved(combatant=me.id, to=f"{to[0]},{to[1]}", distance=5 * squares))
    draft.emit(TurnMark(combatant=me.id, last=kind))
    if kind == "climb" or (kind == "swim" and not me.stats.get("swim_speed")):
        draft.emit(ConditionApplied(target=me.id, condition=f"vulnerable ({'climbing' if kind == 'climb' else 'swimming'})",
                                    source=me.id))
    if me.has("fortify"):
        draft.emit(ConditionRemoved(target=me.id, condition="fortify", reason="moved"))
    said.append(f"{kind} {roll} against {tn}: power {power}, {squares} squares, to {to[0]},{to[1]}")
    return "; ".join(said) + _retaliations(draft, me.id, bool(p.params.get("through")), p.params)


def _check_resisted(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    try:
        int(params["x"]), int(params["y"])
    except (KeyError, TypeError, ValueError):
        return "say toward where: params x, y (squares)"
    if actor.has("prone"):
        return f"{actor.name} is prone; stand up first (one action)"
    return None


def _condition_action(name: str, text: str):
    def resolve(draft: Draft, p: Pending) -> str:
        draft.emit(ConditionApplied(target=p.actor, condition=name, source=p.actor))
        return text
    return resolve


def _check_fortify(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    return None if actor.stats.get("shield") else f"{actor.name} has no shield to fortify with"


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
    ptn = skill(target, "spot") + penalty(draft.state, target) + 10 * max(0, int(target.stats.get("size", 0)) * -1)
    spot = draft.roll("d%", f"spot (TN {ptn})", by=target.id).total
    if roll <= stn and (spot > ptn or roll <= spot):  # an opposed check: the lower roll wins, as in the dodge
        draft.emit(ConditionApplied(target=target.id, condition=f"unaware of {me.id}", source=me.id))
        return f"stealth {roll} against {stn}, spot {spot} against {ptn}: {target.name} is unaware of {me.name}"
    return f"stealth {roll} against {stn}, spot {spot} against {ptn}: noticed"


def _first_aid(draft: Draft, p: Pending) -> str:
    me = draft.state.combatants[p.actor]
    patient = draft.state.combatants[p.targets[0]]
    where = str(p.params.get("target", ""))
    tn = int(me.stats.get("intelligence", 0)) + skill(me, "first_aid") + penalty(draft.state, me)
    roll = draft.roll("d%", f"first aid on {patient.id}'s {where} (TN {tn})", by=me.id).total
    if roll <= tn:
        draft.emit(Impairment(combatant=patient.id, target=where, what="aided", level=1))
        return f"{roll} against {tn}: the {where} is treated one level better"
    return f"{roll} against {tn}: no help"


def _check_first_aid(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    patient = state.combatants[targets[0]]
    where = params.get("target")
    if where not in patient.wounds or level(state, patient, str(where)) == 0:
        hurt = [t for t in patient.wounds if level(state, patient, t)] or ["none"]
        return f"name a wounded or disabled damage target: target=... ({', '.join(hurt)})"
    if destroyed(patient, str(where)):
        return f"the {where} is destroyed"
    if "aided" in state.extra.get("impairment", {}).get(patient.id, {}).get(str(where), {}):
        return f"the {where} has been treated already (until it is hurt again)"
    return None


def _escape(draft: Draft, p: Pending) -> str:
    draft.emit(SpiritSpent(combatant=p.actor, amount=1, reason="escaping a pin"))
    draft.emit(Pinned(combatant=p.actor, by=None))
    return "escapes the pin"


def _check_escape(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    if actor.id not in state.extra.get("pins", {}):
        return f"{actor.name} isn't pinned"
    if spirit_left(state, actor) < 1:
        return "escaping takes a point of spirit, and none is left"
    return None


def _maintain(draft: Draft, p: Pending) -> str:
    draft.emit(Pinned(combatant=p.targets[0], by=p.actor, round=draft.state.round))
    return "keeps the pin"


def _check_maintain(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    pin = state.extra.get("pins", {}).get(targets[0])
    return None if pin and pin[0] == actor.id else f"{actor.name} isn't pinning {state.combatants[targets[0]].name}"


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
    dropped = state.extra.get("dropped", {}).get(actor.id, ())
    return None if params.get("weapon") in dropped else f"nothing of {actor.name}'s dropped: {list(dropped) or 'none'}"


def _drop(draft: Draft, p: Pending) -> str:
    w = weapon(draft.state, draft.state.combatants[p.actor], p.params.get("weapon"))
    if w["name"] == "unarmed":
        return "has nothing to drop"
    draft.emit(WeaponDropped(combatant=p.actor, weapon=w["name"], lands="at its feet"))
    return f"drops the {w['name']}"


def _notice(draft: Draft, p: Pending) -> str:
    me = draft.state.combatants[p.actor]
    tn = int(me.stats["awareness"]) + penalty(draft.state, me) + 10 * max(0, -int(me.stats.get("size", 0)))
    roll = draft.roll("d%", f"awareness (TN {tn})", by=me.id).total
    return f"awareness {roll} against {tn}: " + ("notices" if roll <= tn else "notices nothing")


def _say(text: str):
    def resolve(draft: Draft, p: Pending) -> str:
        return str(p.params.get("text", text))
    return resolve


def _no_target(name, resolve, cost, check=None, help="", category=None):
    return ActionSpec(name, category, cost, resolve, targets="none", min_targets=0, max_targets=0, check=check,
                      help=help)


ONE, MINOR = {"actions": 1}, {"minor": 1}
ACTIONS = [
    ActionSpec("attack", "melee", ONE, _attack, check=_check_attack,
               help="attack (params weapon, defense, block_target, critical, critical_defense, area, technique, charge)"),
    ActionSpec("dual_attack", "melee", ONE, _dual, max_targets=2, check=_check_dual,
               help="an attack with each of two one-handed weapons (params main, off); vulnerable until next turn"),
    _no_target("move", _move, ONE, _check_move, "walk up to the combatant's move (params x, y, through)", "movement"),
    *[_no_target(k, _resisted, ONE, _check_resisted, f"{k}: a Power check (params x, y)", "movement")
      for k in RESISTED],
    _no_target("retreat", _condition_action("retreat", "retreats (until its next turn)"), ONE,
               help="a step back from the first attack; lifts casting, shooting and rough-terrain vulnerability"),
    _no_target("fortify", _condition_action("fortify", "fortifies behind its shield"), ONE, _check_fortify,
               help="cover from the shield, until the next turn or a move"),
    _no_target("retaliate", _condition_action("retaliating", "holds an attack for the first enemy to come close"),
               ONE, _check_retaliate, "attack the next enemy whose move ends within reach (forgoes the turn's attack)"),
    _no_target("prone", _prone, ONE, help="get down: cover against ranged attacks, vulnerable to melee"),
    _no_target("stand", _stand, ONE, _check_stand, help="get up from prone"),
    ActionSpec("stealth", None, ONE, _stealth, help="stealth against the target's spot: it becomes unaware of you"),
    ActionSpec("first_aid", None, ONE, _first_aid, targets="ally", check=_check_first_aid,
               help="treat a damage target one level better (params target)"),
    _no_target("escape", _escape, ONE, _check_escape, "break a pin: an action and a point of spirit"),
    ActionSpec("maintain_pin", None, ONE, _maintain, check=_check_maintain, help="keep a pin for this round"),
    _no_target("cast", _cast, ONE, _check_cast, "cast a spell (params spell, maintain); vulnerable until next turn"),
    _no_target("use_item", _say("uses an item"), ONE, help="use an item (params text)"),
    _no_target("pick_up", _pick_up, ONE, _check_pick_up, "pick up a dropped weapon (params weapon)"),
    _no_target("speak", _say("speaks"), MINOR, help="a minor action: social interaction (params text)"),
    _no_target("drop", _drop, MINOR, help="a minor action: drop a held item (params weapon)"),
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


class SwordsOfInfinity(RuleSystem):
    """Swords of Infinity, Tactical Time (see the module's docstring)."""

    name = "swords-of-infinity"
    stats_type = SoIStats
    # 2: a Retaliate's target defends; Retaliate forgoes the turn's attack; a target whose
    # impairment was ignored checks Resist Impairment again when it is damaged again
    version = "2"
    events = EVENTS
    required_stats = ("vitality", "dexterity", "awareness")
    option_specs = {
        "failed_initiative": OptionSpec("last", ("last", "roll"), "where a failed initiative roll ranks"),
        "vital_destroyed": OptionSpec("dies", ("dies", "ruling"), "a destroyed head or torso kills, or the "
                                                                   "Storyteller rules"),
        "offhand_penalty": OptionSpec(10, None, "the off hand's skill penalty when dual wielding (a tier lesser)"),
    }
    commands = {"recover": "a day's recovery (actor; params rested = true|false, target = a damage target)"}
    command_words = {"recover": ("actor", "target")}
    after_end = ("recover",)

    def options(self, given: dict[str, Any]) -> dict[str, Any]:
        out = super().options(given)
        v = out["offhand_penalty"]
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise Refused(f"option offhand_penalty={v!r}", "a whole number, 0 or more")
        return out

    def check_combatant(self, stats: dict[str, Any], who: str = "") -> dict[str, Any]:
        """The stats as given, checked against the typed model (`swords_of_infinity_model.Stats`)."""
        stats = super().check_combatant(stats, who)
        comp = stats.get("composition")
        if comp is not None and (not comp or not all(1 <= v[0] <= v[1] <= 10 for v in comp.values())):
            raise Refused(f"combatant {who}" if who else "combatant",
                          "$.composition: give {damage target: [low, high]} within 1-10")
        return stats

    def order(self, options: dict[str, Any]) -> RankedOrder:
        return _ORDER

    def timing(self, options: dict[str, Any]) -> Timing:
        return _TURN

    def initiative(self, draft: Draft, combatant: Combatant, ids: tuple[str, ...]) -> int:
        tn = int(combatant.stats["dexterity"]) + int(combatant.stats["awareness"]) + penalty(draft.state, combatant)
        roll = draft.roll("d%", f"initiative (Power, TN {tn})", by=combatant.id).total
        if roll <= tn or draft.state.options.get("failed_initiative") == "roll":
            return roll
        return -roll  # after every success; among failures the lowest roll first

    def budget(self, state: Encounter, combatant: Combatant) -> dict[str, int]:
        return {"actions": max(0, 2 - len(disabled_targets(state, combatant))), "minor": 1}

    def actions(self, state: Encounter, actor: Combatant) -> list[ActionSpec]:
        return ACTIONS

    def action(self, state: Encounter, actor: Combatant, name: str) -> ActionSpec:
        spec = super().action(state, actor, name)
        if actor.id in state.extra.get("pins", {}) and spec.cost.get("actions") and name not in MAJOR_WHILE_PINNED:
            raise Refused(f"{actor.name}: {name}", "pinned: no major action but escape", "escape, or a minor action")
        return spec

    def affordable(self, state: Encounter, actor: Combatant) -> list[ActionSpec]:
        acts, minor = actor.resources.get("actions", 0), actor.resources.get("minor", 0)
        return [a for a in ACTIONS if (acts >= 1 if "actions" in a.cost else minor >= 1)]

    def idle(self, state: Encounter, combatant: Combatant) -> bool:
        return combatant.resources.get("actions", 0) < 1  # a minor action alone doesn't hold a turn open

    def turn_started(self, draft: Draft, actors: tuple[str, ...]) -> None:
        for cid in actors:
            c = draft.state.combatants[cid]
            for name in UNTIL_NEXT_TURN:
                if c.has(name):
                    draft.emit(ConditionRemoved(target=cid, condition=name, reason="its next turn"))
            for other in draft.state.combatants.values():  # a narrative effect lasts a round: to its source's turn
                effect = f"narrative effect from {cid}"
                if other.has(effect):
                    draft.emit(ConditionRemoved(target=other.id, condition=effect, reason="a round has passed"))
            draft.emit(TurnMark(combatant=cid, start=c.position or ""))

    def round_ending(self, draft: Draft) -> None:
        for cid, (by, rnd) in sorted(draft.state.extra.get("pins", {}).items()):
            pinner = draft.state.combatants.get(by)
            if rnd < draft.state.round or pinner is None or not pinner.active:
                draft.emit(Pinned(combatant=cid, by=None))

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
            entry = state.extra.get("impairment", {}).get(target, {}).get(where, {})
            if "ignored" in entry:
                was_ignored.add(where)
            if "ignored" in entry or "aided" in entry:
                draft.emit(Impairment(combatant=target, target=where, what="cleared"))
        for where in changed:
            if destroyed(c, where):
                if where in VITAL and state.options.get("vital_destroyed") == "dies":
                    draft.emit(CombatantDefeated(combatant=target, how=f"dead (the {where} destroyed)"))
                    return
                continue
            raw = raw_level(c, c.wounds[where])
            before = raw_level(c, seen.get(where, 0))
            tn = skill(c, "resist_impairment") + penalty(draft.state, c)
            # a new check whenever the damage Wounds or Disables the target; version 2: also when
            # damage ends the ignoring of a level it keeps ("until that Damage Target takes damage again")
            again = _v2(draft.state) and where in was_ignored and raw >= 1
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

    def command(self, draft: Draft, command: Command) -> None:
        if command.kind != "recover":
            raise Refused(f"command {command.kind!r}", "unknown command")
        c = draft.state.combatants.get(command.actor or "")
        if c is None:
            raise Refused(f"recover {command.actor!r}", "no such combatant", "ids: " + ", ".join(draft.state.combatants))
        if c.defeated and c.defeated.startswith("dead"):
            raise Refused(f"recover {c.id}", "the dead don't recover")
        hurt = [t for t, d in c.wounds.items() if d > 0 and not destroyed(c, t)]
        if not hurt:
            raise Refused(f"recover {c.id}", "nothing to heal")
        rested = bool(command.params.get("rested"))
        where = command.params.get("target")
        if not rested and where not in hurt:
            raise Refused(f"recover {c.id}", "without a day of rest one damage target heals: name it",
                          f"target=... ({', '.join(hurt)})")
        tn = int(c.stats.get("physical_resistance", 0))
        roll = draft.roll("d%", f"recovery (Power on Physical Resistance, TN {tn})", by=c.id).total
        points = power_of(roll, tn) // 10 % 10
        draft.emit(Recovered(combatant=c.id, healed={t: points for t in (hurt if rested else [where])}))

    def policy(self, state: Encounter, actor: Combatant) -> Command:
        end = Command(kind="end_turn", actor=actor.id, by="policy")
        if actor.resources.get("actions", 0) < 1:
            return end
        if actor.id in state.extra.get("pins", {}):
            if spirit_left(state, actor) >= 1:
                return Command(kind="act", actor=actor.id, action="escape", by="policy")
            return end
        if actor.has("prone"):
            return Command(kind="act", actor=actor.id, action="stand", by="policy")
        foes = [c for c in state.active() if c.side != actor.side]
        if not foes:
            return end
        target = foes[0]
        w = weapon(state, actor, None)
        d = feet(actor, target)
        if d is not None and d > int(w.get("range", w.get("reach", 5))):
            here, there = at(actor), at(target)
            if here is None or there is None:
                return end
            step = int(actor.stats.get("move", 7))
            dx, dy = there[0] - here[0], there[1] - here[1]
            x = here[0] + max(-step, min(step, dx - (dx > 0) + (dx < 0)))
            y = here[1] + max(-step, min(step, dy - (dy > 0) + (dy < 0)))
            return Command(kind="act", actor=actor.id, action="move", params={"x": x, "y": y}, by="policy")
        defense = "block" if "block" in target.stats else "dodge" if "dodge" in target.stats else "none"
        params: dict[str, Any] = {"defense": defense, "critical": "full", "critical_defense": "counter"}
        armor = target.stats.get("armor") or {}
        if defense == "block" and armor:  # the defender sends a blocked blow to its best-armoured target
            params["block_target"] = max(sorted(armor), key=lambda t: armor[t])
        if w["name"] != "unarmed":
            params["weapon"] = w["name"]
        return Command(kind="act", actor=actor.id, action="attack", targets=(target.id,), params=params, by="policy")

    def describe(self, state: Encounter, pending: Pending) -> str:
        actor = state.combatants[pending.actor]
        if pending.action == "attack":
            w = weapon(state, actor, pending.params.get("weapon"))
            tech = pending.params.get("technique")
            how = f" ({tech})" if tech else ""
            return f"{actor.name} attacks {state.combatants[pending.targets[0]].name} with the {w['name']}{how}"
        return super().describe(state, pending)

    def narrate(self, state: Encounter, event: Any, dice: bool = False) -> str | None:
        name = lambda cid: state.combatants[cid].name if cid in state.combatants else cid  # noqa: E731
        t = type(event)
        if t is SpiritSpent:
            return f"  {name(event.combatant)} spends {event.amount} spirit ({event.reason})."
        if t is Impairment and event.what == "ignored":
            return f"  {name(event.combatant)} resists the impairment of the {event.target}."
        if t is Pinned and event.by is None:
            return f"  {name(event.combatant)} is no longer pinned."
        if t is Recovered:
            return f"{name(event.combatant)} recovers: " + ", ".join(f"{k} {v}" for k, v in event.healed.items()) + "."
        return None

    def summary(self, state: Encounter) -> list[str]:
        out = []
        for c in state.active():
            hurt = [f"{t} {d}" + {1: " (wounded)", 2: " (disabled)"}.get(level(state, c, t), "")
                    for t, d in c.wounds.items() if d]
            if hurt:
                out.append(f"{c.id}: " + ", ".join(hurt))
        return out


_TURN = make_timing("turn")
_ORDER = RankedOrder(ties=("higher:awareness", "rolloff:d%"))

SWORDS_OF_INFINITY = SwordsOfInfinity()

from combatlog.engine import rules as _registry  # noqa: E402

_registry.register(SWORDS_OF_INFINITY)
