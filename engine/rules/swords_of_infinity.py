"""`swords-of-infinity`: Swords of Infinity, "Combat" — the core of Tactical Time (in progress).

What this module covers so far:

- **Rolls.** A Success check succeeds on d% at or under its target number (TN). A Power
  check is a d% roll at or under its TN, and its power is the roll itself (higher is
  better, a failed check has no power).
- **Initiative.** A Power roll with TN = `dexterity` + `awareness`, in descending order of
  power. Option `failed_initiative`: "last" (default: a failed roll acts after every
  success, the failures by their roll, lowest first) or "roll" (a failed roll counts as
  its number). Ties: `awareness`, then d% roll-offs.
- **Turns.** Two actions and one minor action a turn (6 seconds), one action fewer for
  each Disabled damage target.
- **Attacks** (`attack`, one action; the defender's answer is part of the command, as the
  table decides it: `defense=none|block|dodge`, `block_target` for a block, and
  `critical` for the attacker's choice on a critical hit: `undefendable`, `full` or
  `narrative`). The hit is a Dexterity success check: TN = `dexterity` + the weapon's
  `skill` + its `weight` modifier, -1 per 5 ft of range (-5 for a weapon not made to be
  thrown), +10 per size category the attacker is smaller, -10 per Wounded damage target.
  Block: TN = `awareness` + `block` (+10 per size category the defender is smaller); a
  success makes the attack untargeted, sends it to `block_target` and adds the shield's
  (or weapon's) `size_class` to that target's armour class. Dodge (targeted attacks only):
  the roll must be at or under both the attacker's hit roll and TN = `dexterity` +
  `dodge`. Damage is a Power roll, TN = the weapon's `power` (+10 per size category the
  attacker is larger), less 10 per armour class on the damage target; the target is the
  d% hit roll's ones digit (0 = 10) on the defender's `composition` (a human's by default:
  legs 1-2, torso 3-6, arms 7-8, head 9-10).
- **Damage.** Each damage target keeps its own damage, capped at the larger of 100 and
  twice `vitality`. Above `vitality` it is Wounded (-10 to every Power and Success
  check, stacking); above twice `vitality`, Disabled (one action fewer a turn); above
  both 100 and twice `vitality`, Destroyed. A Disabled head knocks the combatant out; a
  Destroyed head or torso kills (the text leaves it to the Storyteller: option
  `vital_destroyed`, "dies" or "ruling").
- **Critical hits** (the chapter doesn't say which rolls are critical): a hit roll at or
  under a tenth of its TN; the attacker's choice comes with the command.
- **Knockback** (`knockback_damage`) and **Exploit** (`exploit_stacks`), as the text's
  examples give them.

Still to come (issue 5): sprint, jump, climb and swim; resisted movement and Endurance;
rough terrain; critical defense; Physical Resistance; Retreat and Fortify; Resist
Impairment; first aid and recovery; vulnerability paid in spirit; cover, prone, dual
wielding, stealth, charge, Retaliate and the techniques (Disrupt, Pin, Disarm, Trip,
Knockback as an action).

Combatant stats: `vitality`, `dexterity`, `awareness` (required); `block`, `dodge`,
`size` (default 0), `armor` ({damage target: class}), `shield` ({name, size_class}),
`composition` ({damage target: [low, high]}), `weapons`: a list of {name, skill, weight,
power, reach (feet, default 5), range (feet, for ranged weapons), improvised, exploit}.
"""

from __future__ import annotations

from typing import Any

from combatlog.engine.draft import Draft
from combatlog.engine.errors import Refused
from combatlog.engine.order import RankedOrder
from combatlog.engine.rules.base import ActionSpec, OptionSpec, RuleSystem
from combatlog.engine.timing import Timing, make_timing
from combatlog.events import CombatantDefeated, Command, ConditionApplied, Moved
from combatlog.projections import Combatant, Encounter, Pending

HUMAN = {"left leg": (1, 1), "right leg": (2, 2), "torso": (3, 6), "left arm": (7, 7), "right arm": (8, 8),
         "head": (9, 10)}
VITAL = ("head", "torso")


# --- the numbers the text's examples give ---------------------------------------------


def power_of(roll: int, tn: int) -> int:
    """A Power check's power: the roll when it is at or under the TN, else 0."""
    return roll if roll <= tn else 0


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
    """Vulnerability stacks an attack causes: 1, plus Exploit (the weapon's, and 1 per size below 0)."""
    if not target_vulnerable:
        return 0
    return 1 + weapon_exploit + max(0, -attacker_size)


def location(roll: int, composition: dict[str, Any]) -> str:
    """The damage target the d% roll's ones digit (0 = 10) falls on."""
    digit = roll % 10 or 10
    for name, (lo, hi) in composition.items():
        if lo <= digit <= hi:
            return name
    return next(iter(composition))


# --- reading the state ----------------------------------------------------------------


def composition(c: Combatant) -> dict[str, Any]:
    comp = c.stats.get("composition")
    return {k: tuple(v) for k, v in comp.items()} if isinstance(comp, dict) and comp else HUMAN


def cap(c: Combatant) -> int:
    return max(100, 2 * int(c.stats["vitality"]))


def wounded(c: Combatant) -> list[str]:
    v = int(c.stats["vitality"])
    return [t for t, d in c.wounds.items() if d > v]


def disabled(c: Combatant) -> list[str]:
    v = int(c.stats["vitality"])
    return [t for t, d in c.wounds.items() if d > 2 * v]


def penalty(c: Combatant) -> int:
    """-10 to every Power and Success check per Wounded damage target."""
    return -10 * len(wounded(c))


def weapon(c: Combatant, name: str | None) -> dict[str, Any]:
    for w in c.stats.get("weapons", ()):
        if isinstance(w, dict) and (name is None or w.get("name") == name):
            return w
    return {"name": "unarmed", "skill": 0, "weight": 0, "power": int(c.stats.get("strength", 0))}


def feet(a: Combatant, b: Combatant) -> int | None:
    """Distance in feet between two combatants on the 5-ft grid (None when either isn't placed)."""
    if not a.position or not b.position:
        return None
    ax, ay = (int(v) for v in a.position.split(","))
    bx, by = (int(v) for v in b.position.split(","))
    return 5 * max(abs(ax - bx), abs(ay - by))


# --- the attack -----------------------------------------------------------------------


def _attack(draft: Draft, p: Pending) -> str:
    state = draft.state
    attacker = state.combatants[p.actor]
    target = state.combatants[p.targets[0]]
    if not target.active:
        return f"{target.name} is already {target.defeated}"
    w = weapon(attacker, p.params.get("weapon"))
    size_gap = int(target.stats.get("size", 0)) - int(attacker.stats.get("size", 0))
    tn = int(attacker.stats["dexterity"]) + int(w.get("skill", 0)) + int(w.get("weight", 0)) + penalty(attacker)
    if size_gap > 0:
        tn += 10 * size_gap  # a smaller attacker
    d = feet(attacker, target)
    if d is not None and "range" in w:
        tn -= (5 if w.get("improvised") else 1) * (d // 5)
    hit = draft.roll("d%", f"{w['name']} at {target.id} (hit TN {tn})", by=attacker.id).total
    if hit > tn:
        return f"hit roll {hit} against {tn}: a miss"
    said = f"hit roll {hit} against {tn}: a hit"
    critical = hit <= tn // 10
    choice = p.params.get("critical") if critical else None
    if critical:
        said += f" (critical: {choice or 'no choice made'})"
    where = location(hit, composition(target))
    shield_class = 0
    defense = p.params.get("defense", "none")
    if defense != "none" and choice != "undefendable":
        if defense == "dodge":
            dtn = int(target.stats["dexterity"]) + int(target.stats.get("dodge", 0)) + penalty(target)
            dtn += 10 * max(0, -size_gap)
            roll = draft.roll("d%", f"dodge (TN {dtn}, at or under {hit})", by=target.id).total
            if dodged(roll, hit, dtn):
                return said + f"; dodge {roll} against {dtn} and {hit}: dodged"
            said += f"; dodge {roll} against {dtn} and {hit}: fails"
        elif defense == "block":
            btn = int(target.stats["awareness"]) + int(target.stats.get("block", 0)) + penalty(target)
            btn += 10 * max(0, -size_gap)
            roll = draft.roll("d%", f"block (TN {btn})", by=target.id).total
            if roll <= btn:
                where = str(p.params.get("block_target") or where)
                shield_class = int((target.stats.get("shield") or {}).get("size_class", 0))
                said += f"; block {roll} against {btn}: the {where} takes it"
            else:
                said += f"; block {roll} against {btn}: fails"
    ptn = int(w.get("power", 0)) + penalty(attacker) + 10 * max(0, -size_gap)
    if choice == "full":
        power = max(0, ptn)
        said += f"; full damage: power {power}"
    else:
        roll = draft.roll("d%", f"{w['name']} power (TN {ptn})", by=attacker.id).total
        power = power_of(roll, ptn)
        said += f"; power {roll} against {ptn}" + ("" if power else ": no power")
    armor = int((target.stats.get("armor") or {}).get(where, 0))
    dmg = block_damage(power, armor, shield_class)
    dmg = min(dmg, cap(target) - target.wounds.get(where, 0))
    if dmg > 0:
        draft.damage(target.id, dmg, location=where, kind=w["name"], source=attacker.id)
    return said + f"; {dmg} damage to the {where}" + (f" (armour {armor + shield_class})" if armor + shield_class else "")


def _check_attack(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    defense = params.get("defense", "none")
    if defense not in ("none", "block", "dodge"):
        return f"defense={defense!r}: use none, block or dodge"
    target = state.combatants[targets[0]]
    w = weapon(actor, params.get("weapon"))
    if defense == "block":
        bt = params.get("block_target")
        if bt is not None and bt not in composition(target):
            return f"block_target={bt!r}: {target.name}'s damage targets are {', '.join(composition(target))}"
    if params.get("critical") not in (None, "undefendable", "full", "narrative"):
        return "critical: undefendable, full or narrative"
    d = feet(actor, target)
    if d is not None:
        reach = int(w.get("range", w.get("reach", 5)))
        if "range" not in w and d > reach:
            return f"{target.name} is {d} ft away, beyond the {w['name']}'s reach of {reach} ft"
        if "range" in w and d > reach:
            return f"{target.name} is {d} ft away, beyond the {w['name']}'s range {reach}"
    if defense == "dodge" and params.get("area"):
        return "an untargeted attack can't be dodged"
    return None


def _move(draft: Draft, p: Pending) -> str:
    to = f"{int(p.params['x'])},{int(p.params['y'])}"
    draft.emit(Moved(combatant=p.actor, to=to))
    return f"moves to {to}"


def _check_move(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    try:
        x, y = int(params["x"]), int(params["y"])
    except (KeyError, TypeError, ValueError):
        return "say where: params x, y (squares)"
    if actor.position:
        ax, ay = (int(v) for v in actor.position.split(","))
        squares = max(abs(x - ax), abs(y - ay))
        most = int(actor.stats.get("move", 7))
        if squares > most:
            return f"{squares} squares is more than {actor.name}'s move of {most}"
    return None


def _speak(draft: Draft, p: Pending) -> str:
    return str(p.params.get("text", "speaks"))


ATTACK = ActionSpec("attack", "melee", {"actions": 1}, _attack, check=_check_attack,
                    help="attack (params weapon, defense=none|block|dodge, block_target, critical)")
MOVE = ActionSpec("move", "movement", {"actions": 1}, _move, targets="none", min_targets=0, max_targets=0,
                  check=_check_move, help="move up to the combatant's move (7 squares at size 0): params x, y")
SPEAK = ActionSpec("speak", None, {"minor": 1}, _speak, targets="none", min_targets=0, max_targets=0,
                   help="a minor action: speak, drop a held item, notice something (params text)")


class SoIOrder(RankedOrder):
    """Initiative by power, descending."""


class SwordsOfInfinity(RuleSystem):
    """Swords of Infinity, Tactical Time (see the module's docstring)."""

    name = "swords-of-infinity"
    version = "0"
    required_stats = ("vitality", "dexterity", "awareness")
    option_specs = {
        "failed_initiative": OptionSpec("last", ("last", "roll"), "where a failed initiative roll ranks"),
        "vital_destroyed": OptionSpec("dies", ("dies", "ruling"), "a destroyed head or torso kills, or the "
                                                                   "Storyteller rules"),
    }

    def check_combatant(self, stats: dict[str, Any]) -> dict[str, Any]:
        stats = super().check_combatant(stats)
        for key in ("vitality", "dexterity", "awareness", "block", "dodge", "size", "move", "strength"):
            if key in stats and (isinstance(stats[key], bool) or not isinstance(stats[key], int)):
                raise Refused(f"stat {key}={stats[key]!r}", "not a whole number")
        if stats["vitality"] < 1:
            raise Refused("stat vitality", "at least 1")
        comp = stats.get("composition")
        if comp is not None:
            if not isinstance(comp, dict) or not comp or not all(
                    isinstance(v, list) and len(v) == 2 and all(isinstance(x, int) for x in v) for v in comp.values()):
                raise Refused("stat composition", "give {damage target: [low, high]} over 1-10")
        return stats

    def order(self, options: dict[str, Any]) -> RankedOrder:
        return SoIOrder(ties=("higher:awareness", "rolloff:d%"))

    def timing(self, options: dict[str, Any]) -> Timing:
        return _TURN

    def initiative(self, draft: Draft, combatant: Combatant, ids: tuple[str, ...]) -> int:
        tn = int(combatant.stats["dexterity"]) + int(combatant.stats["awareness"]) + penalty(combatant)
        roll = draft.roll("d%", f"initiative (Power, TN {tn})", by=combatant.id).total
        if roll <= tn:
            return roll
        if draft.state.options.get("failed_initiative") == "roll":
            return roll
        return -roll  # after every success; among failures the lowest roll first

    def budget(self, state: Encounter, combatant: Combatant) -> dict[str, int]:
        return {"actions": max(0, 2 - len(disabled(combatant))), "minor": 1}

    def actions(self, state: Encounter, actor: Combatant) -> list[ActionSpec]:
        return [ATTACK, MOVE, SPEAK]

    def affordable(self, state: Encounter, actor: Combatant) -> list[ActionSpec]:
        out = [ATTACK, MOVE] if actor.resources.get("actions", 0) >= 1 else []
        return out + ([SPEAK] if actor.resources.get("minor", 0) >= 1 else [])

    def idle(self, state: Encounter, combatant: Combatant) -> bool:
        return combatant.resources.get("actions", 0) < 1  # a minor action alone doesn't hold a turn open

    def after_damage(self, draft: Draft, target: str) -> None:
        c = draft.state.combatants[target]
        if c.defeated is not None:
            return
        v = int(c.stats["vitality"])
        for where, dmg in sorted(c.wounds.items()):
            if dmg > 100 and dmg > 2 * v and where in VITAL and draft.state.options.get("vital_destroyed") == "dies":
                draft.emit(CombatantDefeated(combatant=target, how=f"dead (the {where} destroyed)"))
                return
        if "head" in disabled(c):
            draft.emit(CombatantDefeated(combatant=target, how="unconscious"))
            return
        for where in wounded(c):
            name = f"{where} disabled" if where in disabled(c) else f"{where} wounded"
            if not c.has(name):
                draft.emit(ConditionApplied(target=target, condition=name, source="damage"))

    def policy(self, state: Encounter, actor: Combatant) -> Command:
        foes = [c for c in state.active() if c.side != actor.side]
        if foes and actor.resources.get("actions", 0) >= 1:
            target = foes[0]
            defense = "block" if "block" in target.stats else "dodge" if "dodge" in target.stats else "none"
            params: dict[str, Any] = {"defense": defense, "critical": "full"}
            armor = target.stats.get("armor") or {}
            if defense == "block" and armor:  # the defender sends a blocked blow to its best-armoured target
                params["block_target"] = max(sorted(armor), key=lambda t: armor[t])
            return Command(kind="act", actor=actor.id, action="attack", targets=(target.id,), params=params,
                           by="policy")
        return Command(kind="end_turn", actor=actor.id, by="policy")

    def describe(self, state: Encounter, pending: Pending) -> str:
        actor = state.combatants[pending.actor]
        if pending.action == "attack":
            w = weapon(actor, pending.params.get("weapon"))
            return f"{actor.name} attacks {state.combatants[pending.targets[0]].name} with the {w['name']}"
        return super().describe(state, pending)


_TURN = make_timing("turn")

SWORDS_OF_INFINITY = SwordsOfInfinity()

from combatlog.engine import rules as _registry  # noqa: E402

_registry.register(SWORDS_OF_INFINITY)
