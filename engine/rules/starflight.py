"""`starflight`: the Starflight RPG's general combat procedure (chapter 9.1, "General Combat Rules").

The procedure, step by step, and how the engine runs it:

1. **Surprise.** The game master rules which sides are surprised (`surprise`, a ruling
   event). When every side is surprised the surprises cancel and the fight starts with
   round 1. Otherwise round 0 is the surprise round: only the sides not surprised act
   (two standard actions or one full-round action each); every target defends with its
   flat-footed hit difficulty `fhd`, or against a blast weapon with `bhd` or `thd`
   (option `blast_hd`); a combatant damaged in the surprise round can't regenerate
   shields, heal or be healed that round (condition `no recovery`).
2. **Initiative.** Each side's composite strength index (CSI: the sum of its combatants'
   `strength`) is totalled first (event StrengthTotalled). Each combatant rolls 2d10 +
   `initiative`; highest first. Ties: PCs before NPCs, then 1d10 roll-offs repeated until
   clear. With option `group_initiative`, a group of NPCs (same `group`) rolls once and
   acts simultaneously.
3. **Ranges** (options `grid` and `ranges`). With no grid, every combatant's range to its
   target is rolled, 2d10, at the start of every round; a combatant attacking someone who
   targeted it this round may use that attacker's range instead of its own (param
   `range_from=theirs`). On a physical grid, the placement procedure: the top of the
   order at the centre (0, 0) facing "ahead"; the highest opposing combatant 2d10 away
   (one die the direction, 1 = ahead, clockwise in 45-degree steps, 9 = a random
   direction (1d8), 0 = roll again; the other die the range in increments); every other
   group's leader and every other combatant 1d10 direction and 1d5 increments from its
   group's leader; anyone may share a square; range is the larger of the horizontal and
   vertical distance; eight facings. On an abstract grid the same placement, then ranges
   are measured (straight-line distance, rounded half up to whole increments). With
   `ranges = "given"` the game master places combatants (`place`) or gives ranges
   (`range`) instead; `range` with no value rolls one. `marching` records a side's
   marching order.
4. **Rounds.** Declarations in initiative order; `actions` = 2 a turn (a standard action
   costs 1, a full-round action 2), 1 when near death (no full-round actions), none when
   unconscious. Movement (grids only): `move` costs a standard action and movement
   points (`mp`), Initiative + 1 a round (option `movement = "initiative"`) or speed in
   kph x 5/3 metres a round over `increment_m` metres per increment (`"speed"`; not at
   starship scale). Timing per category: `movement_timing`, `shooting_timing`,
   `melee_timing`, each turn or simultaneous (or `timing` for all three at once);
   simultaneous actions resolve after every declaration, movement, then shooting, then
   melee, and their damage counts at the round's end.
5. **Resolve combat.** Each round's end totals every side's CSI again. A side at 0 has
   lost. Otherwise the fight goes on, or the game master concludes it (`conclude`
   victory SIDE | draw); with option `victory = "ruling"` every round's end waits for
   that ruling (`conclude continue` starts the next round).
6. **Automatic combatants** (the policy): target the enemy with the next lowest
   initiative check value, or the enemy with the highest if none is lower; melee at range
   0, else shoot with a weapon in range, else move closer, else end the turn.
7. **Simple Combat** (option `method = "simple"`): each `exchange` rolls 2d10 per group;
   each roll beats the lower hostile rolls; a losing group loses the highest hostile roll
   above it minus its own (16 / 13 / 9: the second loses 3, the third 7). A group with
   PCs loses its NPCs first; then each PC rolls 1d10, the low throw (ties re-rolled)
   takes one hit per hostile group that rolled higher. With option `simple_goals`, a
   natural 18 rolls again: more than the opposing combatants left reaches the primary
   goal (the fight ends), else the group chooses (`goal`) a secondary goal or +1 on its
   future rolls; a natural 0 rolls again, and a group with more combatants than that
   roll makes the primary goal unreachable. Option `simple_size_modifier`: +1 for a
   group larger than the smallest, +1 per further whole multiple (3x: +3); option
   `simple_experience` = {group: bonus}, at most +5.

Readings where the text is silent, or leaves numbers to chapters we don't have:

- Dice: the text reads a ten-sided die 0-9 (direction 1-8, 9 random, 0 roll again; Simple
  Combat's goals on 18 and 0, the highest and lowest 2d10), so every d10 here is `d10z`.
- Attacks (chapter 9.2 is not part of this text): 2d10 + the attacker's `attack` + the
  weapon's `attack` against the target's `hd` (FHD/BHD/THD as above) hits; a hit deals
  the weapon's `damage` dice, absorbed first by the target's current `shields`, then taken
  from `hp`. Shields absorb when the hit lands (simultaneous or not); the rest is damage.
  A weapon with `full_round = true` costs a full-round action. Shooting needs range 1 to
  the weapon's `range`; melee (range zero) needs a weapon with `melee = true`.
- Shields regenerate `shield_regen` points at every round's end, up to `shields`.
- Near death: remaining hp at or below `near_death` (default 0); unconscious (out of the
  fight) at or below `unconscious_at` (default -1). `heal` (a standard action, for a
  combatant with a `heal` dice stat) restores hp to an ally.
- `blast_hd = "auto"` uses THD at character scale and BHD at vehicle and starship scale.
- Simple Combat groups: a side with a PC is one group (its NPCs "joined them"); other
  combatants group by `group`, or by side. NPCs are incapacitated in the order they were
  added. Losses between a PC group and an NPC group follow the same difference rule. A
  PC is incapacitated after `hits` hits (option `simple_hits`, default 3). Goals look at
  the natural 2d10 (before modifiers). Simple Combat has no surprise round.

Combatant stats: `hp`, `initiative`, `hd`, `strength` (required); `fhd`, `bhd`, `thd`,
`attack`, `shields`, `shield_regen`, `near_death`, `unconscious_at`, `speed`, `heal`,
`hits`, and `weapons`: a list of {name, attack, damage, range, melee, blast, full_round}.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import msgspec


from combatlog.engine.dice import parse as parse_dice, DiceError
from combatlog.engine.draft import Draft
from combatlog.engine.errors import Refused
from combatlog.engine.order import RankedOrder
from combatlog.engine.rules.base import ActionSpec, OptionSpec, RuleSystem
from combatlog.engine.timing import Timing
from combatlog.events import (
    CombatantDefeated,
    Command,
    ConditionApplied,
    ConditionRemoved,
    EncounterEnded,
    Event,
    GmRuling,
    OrderSet,
    TurnEnded,
)
from combatlog.projections import Combatant, Encounter, Pending
from combatlog.projections.fold import put_extra, register_fold
from combatlog.projections.phases import INITIATIVE, LIVE, SETUP, SURPRISE, allow

replace = msgspec.structs.replace

NO_RECOVERY = "no recovery"
NEAR_DEATH = "near death"
UNCONSCIOUS = "unconscious"

# --- events of this system ------------------------------------------------------------


class StrengthTotalled(Event):
    """Each side's composite strength index (the sum of its active combatants' strength)."""

    csi: dict[str, int]
    reason: str = ""


class RangeSet(Event):
    """Without a grid: a combatant's range to its target, rolled for the round or given."""

    combatant: str
    range: int
    how: str = "rolled"


class Placed(Event):
    """On a grid: where a combatant stands (increments from the centre) and which way it faces (1-8)."""

    combatant: str
    x: float
    y: float
    facing: int | None = None
    how: str = "given"


class TargetChosen(Event):
    """A combatant attacked a target this round (the target may answer at the attacker's range)."""

    actor: str
    target: str
    round: int


class MarchingOrder(Event):
    """A side's marching order (formation), front to back."""

    side: str
    order: tuple[str, ...]


class ShieldsSet(Event):
    """A combatant's shields now stand at `shields` points."""

    combatant: str
    shields: int
    reason: str = ""


class Awaiting(Event):
    """The fight waits for the game master (a ruling or a choice); None: it goes on."""

    topic: str | None = None


class SimpleCombatStarted(Event):
    """Simple Combat: the groups that roll, and who is in each."""

    groups: dict[str, tuple[str, ...]]


class GroupsRanked(Event):
    """Simple Combat: each group's result (natural 2d10 + modifiers) and the losses it gives."""

    results: dict[str, int]
    modifiers: dict[str, int]
    losses: dict[str, int]


class HitsTaken(Event):
    """Simple Combat: a PC took hits (one per hostile group that rolled higher)."""

    combatant: str
    hits: int


class GoalEvent(Event):
    """Simple Combat goals: primary reached, primary lost, a choice due, or the choice made."""

    group: str
    what: str  # primary | primary lost | choice due | secondary | bonus
    roll: int | None = None


EVENTS = (StrengthTotalled, RangeSet, Placed, TargetChosen, MarchingOrder, ShieldsSet, Awaiting,
          SimpleCombatStarted, GroupsRanked, HitsTaken, GoalEvent)

allow("SimpleCombatStarted", [SETUP, SURPRISE], INITIATIVE)
for _cls in EVENTS:
    allow(_cls.__name__, LIVE)


@register_fold(StrengthTotalled)
def _fold_csi(state: Encounter, e: StrengthTotalled) -> Encounter:
    extra = dict(state.extra)
    extra["csi"] = dict(e.csi)
    extra.setdefault("csi_initial", dict(e.csi))
    return replace(state, extra=extra)


@register_fold(RangeSet)
def _fold_range(state: Encounter, e: RangeSet) -> Encounter:
    return put_extra(state, "ranges", e.combatant, e.range)


@register_fold(Placed)
def _fold_placed(state: Encounter, e: Placed) -> Encounter:
    c = state.combatant(e.combatant)
    combatants = dict(state.combatants)
    combatants[c.id] = replace(c, position=f"{_num(e.x)},{_num(e.y)}")
    state = replace(state, combatants=combatants)
    return put_extra(state, "facing", c.id, e.facing)


@register_fold(TargetChosen)
def _fold_target(state: Encounter, e: TargetChosen) -> Encounter:
    return put_extra(state, "targeted", f"{e.actor}>{e.target}", e.round)


@register_fold(MarchingOrder)
def _fold_marching(state: Encounter, e: MarchingOrder) -> Encounter:
    return put_extra(state, "marching", e.side, list(e.order))


@register_fold(ShieldsSet)
def _fold_shields(state: Encounter, e: ShieldsSet) -> Encounter:
    return put_extra(state, "shields", e.combatant, e.shields)


@register_fold(Awaiting)
def _fold_awaiting(state: Encounter, e: Awaiting) -> Encounter:
    extra = dict(state.extra)
    if e.topic is None:
        extra.pop("awaiting", None)
    else:
        extra["awaiting"] = e.topic
    return replace(state, extra=extra)


@register_fold(SimpleCombatStarted)
def _fold_simple(state: Encounter, e: SimpleCombatStarted) -> Encounter:
    extra = dict(state.extra)
    extra["groups"] = {k: list(v) for k, v in e.groups.items()}
    return replace(state, extra=extra)


@register_fold(GroupsRanked)
def _fold_ranked(state: Encounter, e: GroupsRanked) -> Encounter:
    extra = dict(state.extra)
    extra["results"] = dict(e.results)
    return replace(state, extra=extra)


@register_fold(HitsTaken)
def _fold_hits(state: Encounter, e: HitsTaken) -> Encounter:
    return put_extra(state, "hits", e.combatant, int(state.extra.get("hits", {}).get(e.combatant, 0)) + e.hits)


@register_fold(GoalEvent)
def _fold_goal(state: Encounter, e: GoalEvent) -> Encounter:
    goals = dict(state.extra.get("goals", {}))
    mine = dict(goals.get(e.group, {}))
    if e.what == "bonus":
        mine["bonus"] = int(mine.get("bonus", 0)) + 1
    elif e.what == "choice due":
        mine["choice_due"] = True
    else:
        mine[e.what] = True
    if e.what in ("bonus", "secondary"):
        mine.pop("choice_due", None)
    goals[e.group] = mine
    extra = dict(state.extra)
    extra["goals"] = goals
    return replace(state, extra=extra)


# --- reading the state ----------------------------------------------------------------


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:.2f}".rstrip("0")


def csi(state: Encounter) -> dict[str, int]:
    """Each side's composite strength index now: the strength of its combatants still fighting."""
    # one pass, sides in the order their first combatant was added (as Encounter.sides):
    # a step's end asks for it at least once, an audit a million times
    out: dict[str, int] = {}
    for c in state.combatants.values():
        if c.removed:
            continue
        if c.defeated is None:
            out[c.side] = out.get(c.side, 0) + int(c.stats.get("strength", 0))
        elif c.side not in out:
            out[c.side] = 0
    return out


def shields(state: Encounter, c: Combatant) -> int:
    """The combatant's shield points now."""
    return int(state.extra.get("shields", {}).get(c.id, c.stats.get("shields", 0)))


def position(c: Combatant) -> tuple[float, float] | None:
    """Where `c` stands on the grid, or None if it hasn't been placed."""
    if not c.position or "," not in c.position:
        return None
    x, y = c.position.split(",", 1)
    return float(x), float(y)


def distance(state: Encounter, a: tuple[float, float], b: tuple[float, float]) -> int:
    """Range in increments between two points: the larger axis on a physical grid, measured on an abstract one."""
    dx, dy = abs(a[0] - b[0]), abs(a[1] - b[1])
    if state.options.get("grid") == "physical":
        return int(max(dx, dy))
    return int(math.floor(math.hypot(dx, dy) + 0.5))


def targeted(state: Encounter, attacker: str, target: str) -> bool:
    """True when `attacker` has targeted `target` this round (declared or resolved)."""
    if state.extra.get("targeted", {}).get(f"{attacker}>{target}") == state.round:
        return True
    return any(p.actor == attacker and target in p.targets and p.action in ("shoot", "melee") for p in state.pending)


def range_between(state: Encounter, a: Combatant, b: Combatant, range_from: str = "own") -> int | None:
    """The range from `a` to its target `b` in increments, or None if it isn't known yet."""
    if state.options.get("grid", "none") == "none":
        ranges = state.extra.get("ranges", {})
        if range_from == "theirs":
            return ranges.get(b.id)
        return ranges.get(a.id)
    pa, pb = position(a), position(b)  # where they stand now: a declared move counts once it resolves
    if pa is None or pb is None:
        return None
    return distance(state, pa, pb)


def planned_position(state: Encounter, c: Combatant) -> tuple[float, float] | None:
    """Where `c` will stand once its declared moves resolve."""
    pos = position(c)
    for p in state.pending:
        if p.actor == c.id and p.action == "move":
            pos = (float(p.params["x"]), float(p.params["y"]))
    return pos


class _ByIdentity:
    """A small cache of values derived from mappings that are never changed once made (a
    combatant's stats, an encounter's options), keyed by the mapping itself."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.table: dict[int, tuple[Any, Any]] = {}

    def get(self, key: Any, make: Callable[[], Any]) -> Any:
        hit = self.table.get(id(key))
        if hit is not None and hit[0] is key:
            return hit[1]
        value = make()
        if len(self.table) > self.limit:
            self.table.clear()
        self.table[id(key)] = (key, value)  # holding `key` keeps its id from being reused
        return value


_WEAPONS = _ByIdentity(4096)
_CHEAPEST = _ByIdentity(4096)


def weapons(c: Combatant) -> list[dict[str, Any]]:
    """The combatant's weapons, as given in its stats (read once per stats mapping)."""
    return _WEAPONS.get(c.stats, lambda: [w for w in c.stats.get("weapons", ()) if isinstance(w, dict)])


def cheapest(c: Combatant) -> tuple[int | None, int | None]:
    """The fewest actions a shot and a melee attack cost `c` (None: it has no such weapon)."""

    def make() -> tuple[int | None, int | None]:
        ws = weapons(c)
        ranged = [2 if w.get("full_round") else 1 for w in ws if int(w.get("range", 0)) >= 1]
        melee = [2 if w.get("full_round") else 1 for w in ws if w.get("melee")]
        return (min(ranged) if ranged else None, min(melee) if melee else None)

    return _CHEAPEST.get(c.stats, make)


def weapon(c: Combatant, name: str | None, melee: bool) -> dict[str, Any] | None:
    """The weapon `name` (or the first fit for melee/shooting) of `c`, or None."""
    for w in weapons(c):
        fit = bool(w.get("melee")) if melee else int(w.get("range", 0)) >= 1
        if fit and (name is None or w.get("name") == name):
            return w
    return None


def near_death(c: Combatant) -> bool:
    """True when the combatant may take one standard action only."""
    return c.has(NEAR_DEATH) or int(c.stats["hp"]) - c.damage <= int(c.stats.get("near_death", 0))


def auto_target(state: Encounter, actor: Combatant) -> Combatant | None:
    """The text's automatic target: the enemy with the next lowest initiative check value, else the highest."""
    ranked = target_preference(state, actor)
    return ranked[0] if ranked else None


def target_preference(state: Encounter, actor: Combatant) -> list[Combatant]:
    """Enemies in the automatic schema's order: the next lowest initiative check value down, then the
    highest down (so the first is the text's target; the rest are who comes next when it can't be reached)."""
    rank = {cid: i for i, cid in enumerate(state.flat_order())}
    enemies = [c for c in state.active() if c.side != actor.side]
    mine = actor.initiative if actor.initiative is not None else 0
    enemies.sort(key=lambda c: (-(c.initiative or 0), rank.get(c.id, len(rank))))
    lower = [c for c in enemies if (c.initiative or 0) < mine]
    return lower + [c for c in enemies if c not in lower]


# --- actions --------------------------------------------------------------------------

DIRECTIONS = {1: (0, 1), 2: (1, 1), 3: (1, 0), 4: (1, -1), 5: (0, -1), 6: (-1, -1), 7: (-1, 0), 8: (-1, 1)}
_DIAG = 0.7071067811865476  # one increment along a diagonal, on an abstract grid


def _hd(state: Encounter, target: Combatant, w: dict[str, Any]) -> tuple[str, int]:
    """Which hit difficulty the target defends with, and its value."""
    stats = target.stats
    if state.surprise_round:
        if w.get("blast"):
            which = state.options.get("blast_hd", "auto")
            if which == "auto":
                which = "thd" if state.options.get("scale", "character") == "character" else "bhd"
            return which.upper(), int(stats.get(which, stats["hd"]))
        return "FHD", int(stats.get("fhd", stats["hd"]))
    return "HD", int(stats["hd"])


def _attack(draft: Draft, p: Pending) -> str:
    state = draft.state
    actor = state.combatants[p.actor]
    target = state.combatants[p.targets[0]]
    melee = p.action == "melee"
    if not target.active:
        return f"{target.name} is already {target.defeated or 'gone'}"
    w = weapon(actor, p.params.get("weapon"), melee)
    if w is None:
        return "no weapon for that"
    r = range_between(state, actor, target, str(p.params.get("range_from", "own")))
    why = _range_problem(r, w, melee, target)
    if why:
        return f"no attack: {why}"
    draft.emit(TargetChosen(actor=actor.id, target=target.id, round=state.round))
    bonus = int(actor.stats.get("attack", 0)) + int(w.get("attack", 0))
    hd_name, hd = _hd(state, target, w)
    roll = draft.roll(f"2d10z{bonus:+d}" if bonus else "2d10z", f"{p.action} at {target.id} with {w['name']}",
                      by=actor.id)
    if roll.total < hd:
        return f"{roll.total} against {hd_name} {hd}, a miss"
    dmg = draft.roll(str(w["damage"]), f"{w['name']} damage to {target.id}", by=actor.id)
    amount = max(0, dmg.total)
    absorbed = min(amount, shields(draft.state, target))
    if absorbed:
        draft.emit(ShieldsSet(combatant=target.id, shields=shields(draft.state, target) - absorbed,
                              reason=f"absorbed {absorbed}"))
    if draft.state.surprise_round and amount and not target.has(NO_RECOVERY):
        draft.emit(ConditionApplied(target=target.id, condition=NO_RECOVERY, duration=1, source=actor.id))
    if amount - absorbed:
        draft.damage(target.id, amount - absorbed, kind=w["name"], source=actor.id)
    shield_note = f" (shields absorb {absorbed})" if absorbed else ""
    return f"{roll.total} against {hd_name} {hd}, a hit; {dmg.expression} = {dmg.total} damage{shield_note}"


def _range_problem(r: int | None, w: dict[str, Any], melee: bool, target: Combatant) -> str | None:
    if r is None:
        return f"no range to {target.name} is known yet (place the combatants or give a range)"
    if melee:
        return None if r == 0 else f"{target.name} is at range {r}; melee is at range zero"
    if r == 0:
        return f"{target.name} is at range zero; that is melee"
    if r > int(w.get("range", 0)):
        return f"{target.name} is at range {r}, beyond the {w['name']}'s {int(w.get('range', 0))}"
    return None


def _check_attack(melee: bool):
    def check(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
        name = params.get("weapon")
        w = weapon(actor, name, melee)
        if w is None:
            kind = "melee" if melee else "ranged"
            have = ", ".join(str(x.get("name")) for x in weapons(actor)) or "none"
            return f"no {kind} weapon{' ' + repr(name) if name else ''} (weapons: {have})"
        rf = params.get("range_from", "own")
        if rf not in ("own", "theirs"):
            return f"range_from={rf!r}: use own or theirs"
        target = state.combatants[targets[0]]
        if rf == "theirs":
            if state.options.get("grid", "none") != "none":
                return "range_from=theirs is for fights without a grid"
            if not targeted(state, target.id, actor.id):
                return f"{target.name} hasn't targeted {actor.name} this round; use your own range"
        timing = STARFLIGHT.timing(state.options)
        if timing.immediate("melee" if melee else "shooting"):
            return _range_problem(range_between(state, actor, target, str(rf)), w, melee, target)
        return None

    return check


def _move(draft: Draft, p: Pending) -> str:
    state = draft.state
    actor = state.combatants[p.actor]
    x, y = float(p.params["x"]), float(p.params["y"])
    facing = p.params.get("facing", state.extra.get("facing", {}).get(actor.id))
    draft.emit(Placed(combatant=actor.id, x=x, y=y, facing=facing, how="moved"))
    return f"moves to {_num(x)},{_num(y)}"


def _move_distance(state: Encounter, actor: Combatant, params: dict[str, Any]) -> int:
    start = None
    for p in state.pending:
        if p.actor == actor.id and p.action == "move":
            start = (float(p.params["x"]), float(p.params["y"]))
    start = start or position(actor)
    if start is None or "x" not in params or "y" not in params:
        return 1
    d = math.hypot(float(params["x"]) - start[0], float(params["y"]) - start[1])
    if state.options.get("grid") == "physical":
        return int(max(abs(float(params["x"]) - start[0]), abs(float(params["y"]) - start[1])))
    return int(math.ceil(d - 1e-9))


def _check_move(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    if state.options.get("grid", "none") == "none":
        return "without a grid there is no movement (ranges are rolled every round)"
    if position(actor) is None:
        return f"{actor.name} hasn't been placed yet"
    try:
        x, y = float(params["x"]), float(params["y"])
    except (KeyError, TypeError, ValueError):
        return "say where to: params x=<increments> y=<increments>"
    if state.options.get("grid") == "physical" and not (x.is_integer() and y.is_integer()):
        return "on a physical grid a square is whole numbers x, y"
    facing = params.get("facing")
    if facing is not None and not _is_facing(facing):
        return f"facing={facing!r}: use 1-8 (1 ahead, clockwise in 45-degree steps)"
    return None


def _is_facing(value: Any) -> bool:
    return type(value) is int and 1 <= value <= 8


def _heal(draft: Draft, p: Pending) -> str:
    state = draft.state
    actor = state.combatants[p.actor]
    target = state.combatants[p.targets[0]]
    if not target.active:
        return f"{target.name} is {target.defeated or 'gone'}"
    if target.has(NO_RECOVERY):
        return f"{target.name} can't be healed this round (damaged in the surprise round)"
    roll = draft.roll(str(actor.stats["heal"]), f"healing {target.id}", by=actor.id)
    amount = min(max(0, roll.total), target.damage)
    if amount:
        draft.damage(target.id, -amount, kind="healing", source=actor.id)
    return f"heals {target.name} for {amount}"


def _check_heal(state: Encounter, actor: Combatant, targets: tuple[str, ...], params: dict[str, Any]) -> str | None:
    if actor.has(NO_RECOVERY):
        return f"{actor.name} was damaged in the surprise round and can't heal this round"
    if state.combatants[targets[0]].has(NO_RECOVERY):
        return f"{state.combatants[targets[0]].name} was damaged in the surprise round and can't be healed this round"
    return None


SHOOT = ActionSpec("shoot", "shooting", {"actions": 1}, _attack, check=_check_attack(False),
                   help="fire a ranged weapon (params weapon, range_from=own|theirs): 2d10+attack vs HD")
MELEE = ActionSpec("melee", "melee", {"actions": 1}, _attack, check=_check_attack(True),
                   help="strike at range zero (params weapon): 2d10+attack vs HD")
MOVE = ActionSpec("move", "movement", {"actions": 1}, _move, targets="none", min_targets=0, max_targets=0,
                  check=_check_move, help="move on the grid (params x, y, facing 1-8), paying movement points")
HEAL = ActionSpec("heal", None, {"actions": 1}, _heal, targets="ally", check=_check_heal,
                  help="restore an ally's hit points with the healer's heal dice")


# --- simple combat --------------------------------------------------------------------


def simple_groups(state: Encounter) -> dict[str, list[str]]:
    """Simple Combat's groups (name -> active ids): a side with a PC is one group; others by group or side."""
    pc_sides = {c.side for c in state.combatants.values() if c.kind == "pc" and not c.removed}
    groups: dict[str, list[str]] = {}
    for c in state.active():
        name = c.side if c.side in pc_sides else group_key(state, c)
        groups.setdefault(name, []).append(c.id)
    return groups


def group_key(state: Encounter, c: Combatant) -> str:
    """A combatant's group: its `group` (as `side/group` when another side uses that name too), else its side."""
    if not c.group:
        return c.side
    if any(o.group == c.group and o.side != c.side for o in state.combatants.values()):
        return f"{c.side}/{c.group}"
    return c.group


def _group_side(state: Encounter, ids: list[str]) -> str:
    return state.combatants[ids[0]].side


def size_modifiers(sizes: dict[str, int]) -> dict[str, int]:
    """+1 for a group larger than the smallest, +1 more per further whole multiple (3x: +3)."""
    if not sizes:
        return {}
    smallest = min(sizes.values())
    return {g: (n // smallest if n > smallest else 0) for g, n in sizes.items()}


def simple_losses(results: dict[str, int], side_of: dict[str, str]) -> dict[str, int]:
    """Each group's losses: the highest hostile result above it minus its own (cumulative down the chain)."""
    out = {}
    for g, mine in results.items():
        higher = [r for h, r in results.items() if side_of[h] != side_of[g] and r > mine]
        out[g] = max(higher) - mine if higher else 0
    return out


def _exchange(draft: Draft, command: Command) -> None:
    state = draft.state
    if state.options.get("method") != "simple":
        raise Refused("exchange", "this encounter isn't Simple Combat", "create it with option method=simple")
    if not state.acting:
        raise Refused("exchange", f"no exchange is under way (phase {state.phase})", "begin the fight first")
    due = [g for g, v in state.extra.get("goals", {}).items() if v.get("choice_due")]
    if due:
        raise Refused("exchange", f"{due[0]} rolled 18 and must choose first",
                      f"goal group={due[0]} choice=secondary|bonus")
    opts = state.options
    groups = simple_groups(state)
    side_of = {g: _group_side(state, ids) for g, ids in groups.items()}
    sizes = {g: len(ids) for g, ids in groups.items()}
    size_mod = size_modifiers(sizes) if opts.get("simple_size_modifier") else {g: 0 for g in groups}
    experience = dict(opts.get("simple_experience") or {})
    unknown = [g for g in experience if g not in groups and not any(g == state.combatants[i].group for i in
                                                                    (cid for ids in groups.values() for cid in ids))]
    if unknown:
        raise Refused(f"option simple_experience: {', '.join(map(str, unknown))}", "no such group",
                      f"groups: {', '.join(groups)}")
    goals = state.extra.get("goals", {})
    naturals: dict[str, int] = {}
    modifiers: dict[str, int] = {}
    for g in groups:
        naturals[g] = draft.roll("2d10z", f"simple combat: {g}", by=groups[g][0]).total
        modifiers[g] = size_mod.get(g, 0) + int(experience.get(g, 0)) + int(goals.get(g, {}).get("bonus", 0))
    primary: str | None = None
    if opts.get("simple_goals"):
        for g in groups:
            if naturals[g] == 18:
                again = draft.roll("2d10z", f"{g} rolled 18: the goal roll", by=groups[g][0]).total
                opposing = sum(n for h, n in sizes.items() if side_of[h] != side_of[g])
                if again > opposing and not goals.get(g, {}).get("primary lost"):
                    draft.emit(GoalEvent(group=g, what="primary", roll=again))
                    primary = primary or g
                else:
                    draft.emit(GoalEvent(group=g, what="choice due", roll=again))
            elif naturals[g] == 0:
                again = draft.roll("2d10z", f"{g} rolled 0: roll again", by=groups[g][0]).total
                if any(n > again for h, n in sizes.items() if h != g):
                    draft.emit(GoalEvent(group=g, what="primary lost", roll=again))
    results = {g: naturals[g] + modifiers[g] for g in groups}
    losses = simple_losses(results, side_of)
    draft.emit(GroupsRanked(results=results, modifiers=modifiers, losses=losses))
    for g, ids in groups.items():
        loss = losses[g]
        if not loss:
            continue
        npcs = [cid for cid in ids if draft.state.combatants[cid].kind == "npc"]
        pcs = [cid for cid in ids if draft.state.combatants[cid].kind == "pc"]
        for cid in npcs[:loss]:
            draft.emit(CombatantDefeated(combatant=cid, how="incapacitated"))
        if pcs and loss > len(npcs):
            _pc_hits(draft, pcs, sum(1 for h in groups if side_of[h] != side_of[g] and results[h] > results[g]))
    if primary is not None:
        draft.emit(EncounterEnded(outcome=f"primary goal reached by {primary}", winner=side_of[primary]))
        return
    over = STARFLIGHT.outcome(draft.state)
    if over is not None:  # the exchange settled it: no choice is left to make
        draft.emit(EncounterEnded(outcome=over[0], winner=over[1]))
        return
    if any(v.get("choice_due") for v in draft.state.extra.get("goals", {}).values()):
        draft.emit(Awaiting(topic="goal choice"))
        return
    draft.emit(TurnEnded(actors=draft.state.acting))
    draft.advance()


def _pc_hits(draft: Draft, pcs: list[str], hits: int) -> None:
    """Each PC rolls 1d10; the low throw (ties re-rolled) takes `hits` hits."""
    tied = list(pcs)
    while len(tied) > 1:
        throws = {cid: draft.roll("1d10z", "simple combat: who takes the hits", by=cid).total for cid in tied}
        low = min(throws.values())
        tied = [cid for cid in tied if throws[cid] == low]
    victim = draft.state.combatants[tied[0]]
    draft.emit(HitsTaken(combatant=victim.id, hits=hits))
    limit = int(victim.stats.get("hits", draft.state.options.get("simple_hits", 3)))
    if int(draft.state.extra.get("hits", {}).get(victim.id, 0)) >= limit:
        draft.emit(CombatantDefeated(combatant=victim.id, how="incapacitated"))


def _goal(draft: Draft, command: Command) -> None:
    state = draft.state
    g = str(command.params.get("group", ""))
    due = [k for k, v in state.extra.get("goals", {}).items() if v.get("choice_due")]
    if g not in due:
        raise Refused(f"goal {g!r}", "no choice is due for that group",
                      f"due: {', '.join(due)}" if due else "a choice comes after a group rolls 18")
    choice = command.params.get("choice")
    if choice not in ("secondary", "bonus"):
        raise Refused(f"goal {g}: choice={choice!r}", "not a choice", "choose secondary or bonus")
    draft.emit(GoalEvent(group=g, what=str(choice)))
    if any(v.get("choice_due") for v in draft.state.extra.get("goals", {}).values()):
        return
    draft.emit(Awaiting(topic=None))
    draft.emit(TurnEnded(actors=draft.state.acting))
    draft.advance()


class SimpleOrder(RankedOrder):
    """Simple Combat has no initiative: every group rolls in each exchange, all at once."""

    name = "simple"

    def roll(self, draft: Draft) -> None:
        state = draft.state
        draft.emit(StrengthTotalled(csi=csi(state), reason="initial"))
        groups = simple_groups(state)
        draft.emit(SimpleCombatStarted(groups={g: tuple(ids) for g, ids in groups.items()}))
        draft.emit(OrderSet(tiers=(tuple(c.id for c in state.active()),), reason="simple combat"))


class StarflightOrder(RankedOrder):
    """The initiative order, after the composite strength index is totalled."""

    def roll(self, draft: Draft) -> None:
        draft.emit(StrengthTotalled(csi=csi(draft.state), reason="initial"))
        super().roll(draft)


# --- the system -----------------------------------------------------------------------

_MODES = ("turn", "simultaneous")


class Starflight(RuleSystem):
    """Starflight RPG, chapter 9.1 (see the module's docstring)."""

    name = "starflight"
    version = "1"
    events = EVENTS
    required_stats = ("hp", "initiative", "hd", "strength")
    option_specs = {
        "method": OptionSpec("standard", ("standard", "simple"), "standard rounds, or Simple Combat"),
        "scale": OptionSpec("character", ("character", "vehicle", "starship"), "the scale of combat"),
        "grid": OptionSpec("none", ("none", "physical", "abstract"), "how ranges are kept"),
        "ranges": OptionSpec("rolled", ("rolled", "given"), "ranges rolled, or given by the game master"),
        "movement": OptionSpec("initiative", ("initiative", "speed"), "movement points: Initiative + 1, or speed"),
        "increment_m": OptionSpec(10, None, "metres per range increment (speed-based movement)"),
        "timing": OptionSpec("turn", ("turn", "simultaneous", "mixed"),
                             "all categories turn-based or simultaneous; mixed: movement and melee simultaneous, "
                             "shooting turn-based (the text's example)"),
        "movement_timing": OptionSpec(None, (None, *_MODES), "movement: turn or simultaneous (overrides timing)"),
        "shooting_timing": OptionSpec(None, (None, *_MODES), "shooting: turn or simultaneous (overrides timing)"),
        "melee_timing": OptionSpec(None, (None, *_MODES), "melee: turn or simultaneous (overrides timing)"),
        "group_initiative": OptionSpec(False, (False, True), "a group of like NPCs rolls once and acts together"),
        "blast_hd": OptionSpec("auto", ("auto", "bhd", "thd"), "surprise-round defence against blast weapons"),
        "victory": OptionSpec("csi", ("csi", "ruling"), "csi: go on until a side's CSI is 0; ruling: the game "
                                                        "master rules at every round's end"),
        "simple_goals": OptionSpec(False, (False, True), "Simple Combat: goals on 18 and 0"),
        "simple_size_modifier": OptionSpec(False, (False, True), "Simple Combat: the group size modifier"),
        "simple_experience": OptionSpec({}, None, "Simple Combat: {group: experience bonus, at most 5}"),
        "simple_hits": OptionSpec(3, None, "Simple Combat: hits that incapacitate a PC without a hits stat"),
    }
    commands = {
        "place": "place a combatant on the grid (actor; params x, y, facing 1-8)",
        "range": "give a combatant's range to its target without a grid (actor; params range; none: roll 2d10)",
        "marching": "record a side's marching order (params side, order = ids front to back)",
        "conclude": "resolve combat (params decision = continue | victory | draw, winner = side)",
        "exchange": "Simple Combat: every group rolls 2d10 and the losses fall",
        "goal": "Simple Combat: a group that rolled 18 chooses (params group, choice = secondary | bonus)",
    }

    command_words = {
        "place": ("actor", "x", "y", "facing"),
        "range": ("actor", "range"),
        "marching": ("side", "*order"),
        "conclude": ("decision", "winner"),
        "exchange": (),
        "goal": ("group", "choice"),
    }

    def __init__(self) -> None:
        self._orders = _ByIdentity(256)  # an encounter's options never change
        self._timings = _ByIdentity(256)

    # --- options and combatants ---

    def options(self, given: dict[str, Any]) -> dict[str, Any]:
        out = super().options(given)
        if out["scale"] == "starship" and out["movement"] == "speed":
            raise Refused("option movement='speed'", "starship-scale combat uses initiative-based movement only",
                          "use movement='initiative'")
        inc = out["increment_m"]
        if isinstance(inc, bool) or not isinstance(inc, (int, float)) or inc <= 0:
            raise Refused(f"option increment_m={inc!r}", "not a positive number of metres")
        exp = out["simple_experience"]
        if not isinstance(exp, dict) or any(isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 5
                                            for v in exp.values()):
            raise Refused(f"option simple_experience={exp!r}", "give {group: bonus} with bonuses 0 to 5",
                          "the text recommends at most +5")
        hits = out["simple_hits"]
        if isinstance(hits, bool) or not isinstance(hits, int) or hits < 1:
            raise Refused(f"option simple_hits={hits!r}", "not a whole number of hits of at least 1")
        return out

    def check_combatant(self, stats: dict[str, Any], who: str = "") -> dict[str, Any]:
        stats = super().check_combatant(stats)
        for key in ("hp", "initiative", "hd", "strength", "fhd", "bhd", "thd", "attack", "shields", "shield_regen",
                    "near_death", "unconscious_at", "hits"):
            if key in stats and (isinstance(stats[key], bool) or not isinstance(stats[key], int)):
                raise Refused(f"stat {key}={stats[key]!r}", "not a whole number")
        if stats["hp"] < 1 or stats["strength"] < 1:
            raise Refused("stats", "hp and strength must be at least 1")
        if "speed" in stats and (isinstance(stats["speed"], bool) or not isinstance(stats["speed"], (int, float))):
            raise Refused(f"stat speed={stats['speed']!r}", "not a number of kph")
        if "heal" in stats:
            _dice(stats["heal"], "stat heal")
        ws = stats.get("weapons", [])
        if not isinstance(ws, list):
            raise Refused("stat weapons", "give a list of {name, damage, range, attack, melee, blast, full_round}")
        names = set()
        for i, w in enumerate(ws):
            if not isinstance(w, dict) or not w.get("name") or "damage" not in w:
                raise Refused(f"weapons[{i}]", "a weapon needs at least a name and damage dice")
            if w["name"] in names:
                raise Refused(f"weapons[{i}]", f"two weapons named {w['name']!r}")
            names.add(w["name"])
            _dice(w["damage"], f"weapons[{i}].damage")
            for key in ("range", "attack"):
                if key in w and (isinstance(w[key], bool) or not isinstance(w[key], int)):
                    raise Refused(f"weapons[{i}].{key}={w[key]!r}", "not a whole number")
            if not w.get("melee") and int(w.get("range", 0)) < 1:
                raise Refused(f"weapons[{i}]", "a weapon needs range >= 1 (shooting) or melee = true")
        return stats

    # --- order and timing ---

    def order(self, options: dict[str, Any]) -> RankedOrder:
        return self._orders.get(options, lambda: self._make_order(options))

    def _make_order(self, options: dict[str, Any]) -> RankedOrder:
        if options.get("method") == "simple":
            return SimpleOrder()
        return StarflightOrder(ties=("pc_first", "rolloff:1d10z"), group_initiative=bool(options.get("group_initiative")))

    def timing(self, options: dict[str, Any]) -> Timing:
        return self._timings.get(options, lambda: self._make_timing(options))

    def _make_timing(self, options: dict[str, Any]) -> Timing:
        base = options.get("timing", "turn")
        preset = {"turn": ("turn",) * 3, "simultaneous": ("simultaneous",) * 3,
                  "mixed": ("simultaneous", "turn", "simultaneous")}[base]
        per = {}
        for cat, default in zip(("movement", "shooting", "melee"), preset):
            per[cat] = options.get(f"{cat}_timing") or default
        return Timing(default="simultaneous" if base == "simultaneous" else "turn", per_category=per)

    def initiative(self, draft: Draft, combatant: Combatant, ids: tuple[str, ...]) -> int:
        init = int(combatant.stats.get("initiative", 0))
        expr = f"2d10z{init:+d}" if init else "2d10z"
        return draft.roll(expr, "initiative check", by=combatant.id).total

    def surprise(self, state: Encounter, sides: tuple[str, ...]) -> tuple[str, ...]:
        if state.options.get("method") == "simple":
            return ()
        if set(sides) >= set(state.sides()):
            return ()  # everyone surprised: the surprises cancel
        return tuple(sides)

    # --- turns ---

    def movement_points(self, state: Encounter, c: Combatant) -> int:
        """Movement points a round: Initiative + 1, or speed (kph x 5/3 m) over the increment's metres."""
        if state.options.get("movement") == "speed":
            metres = float(c.stats.get("speed", 0)) * 5 / 3
            return int(metres // float(state.options.get("increment_m", 10)))
        return max(0, int(c.stats.get("initiative", 0)) + 1)

    def budget(self, state: Encounter, combatant: Combatant) -> dict[str, int]:
        if state.options.get("method") == "simple":
            return {"actions": 1}
        if combatant.has(UNCONSCIOUS):
            return {"actions": 0}
        out = {"actions": 1 if near_death(combatant) else 2}
        if state.options.get("grid", "none") != "none":
            out["mp"] = self.movement_points(state, combatant)
        return out

    def may_act(self, state: Encounter, combatant: Combatant) -> bool:
        if state.options.get("method") == "simple":
            return combatant.active
        return super().may_act(state, combatant) and not combatant.has(UNCONSCIOUS)

    def actions(self, state: Encounter, actor: Combatant) -> list[ActionSpec]:
        if state.options.get("method") == "simple":
            return []
        out = []
        ranged, melee = cheapest(actor)
        if ranged is not None:
            out.append(SHOOT)
        if melee is not None:
            out.append(MELEE)
        out.append(MOVE)  # refused with a reason when there is no grid
        if "heal" in actor.stats:
            out.append(HEAL)
        return out

    def cost(self, state: Encounter, actor: Combatant, spec: ActionSpec, params: dict[str, Any]) -> dict[str, int]:
        if spec.name in ("shoot", "melee"):
            w = weapon(actor, params.get("weapon"), spec.name == "melee")
            return {"actions": 2 if w is not None and w.get("full_round") else 1}
        if spec.name == "move":
            return {"actions": 1, "mp": max(1, _move_distance(state, actor, params))}
        return dict(spec.cost)

    def affordable(self, state: Encounter, actor: Combatant) -> list[ActionSpec]:
        left = actor.resources.get("actions", 0)
        ranged, melee = cheapest(actor)
        out = []
        for spec in self.actions(state, actor):
            if spec is SHOOT:
                ok = ranged is not None and left >= ranged
            elif spec is MELEE:
                ok = melee is not None and left >= melee
            elif spec is MOVE:
                ok = left >= 1 and actor.resources.get("mp", 0) >= 1
            else:
                ok = left >= 1
            if ok:
                out.append(spec)
        return out

    def round_started(self, draft: Draft) -> None:
        state = draft.state
        if state.options.get("method") == "simple":
            return
        grid = state.options.get("grid", "none")
        if grid == "none":
            if state.options.get("ranges", "rolled") == "rolled":
                for cid in state.flat_order():
                    c = draft.state.combatants[cid]
                    if c.active:
                        r = draft.roll("2d10z", "range to target", by=cid).total
                        draft.emit(RangeSet(combatant=cid, range=r, how="rolled"))
            return
        if state.options.get("ranges", "rolled") == "rolled":
            _place_all(draft)

    def round_ending(self, draft: Draft) -> None:
        for c in draft.state.active():
            regen = int(c.stats.get("shield_regen", 0))
            top = int(c.stats.get("shields", 0))
            now = shields(draft.state, c)
            if regen > 0 and now < top and not c.has(NO_RECOVERY):
                draft.emit(ShieldsSet(combatant=c.id, shields=min(top, now + regen), reason="regenerated"))

    def round_ended(self, draft: Draft) -> None:
        state = draft.state
        draft.emit(StrengthTotalled(csi=csi(state), reason=f"end of round {state.round}"))
        if state.options.get("victory") == "ruling" and not state.surprise_round and self.outcome(draft.state) is None:
            draft.emit(Awaiting(topic="resolve combat"))

    def waiting(self, state: Encounter) -> bool:
        return "awaiting" in state.extra

    def idle(self, state: Encounter, combatant: Combatant) -> bool:
        if state.options.get("method") == "simple":
            return False  # an exchange is one command for everyone
        return super().idle(state, combatant)

    # --- damage and the end ---

    def after_damage(self, draft: Draft, target: str) -> None:
        c = draft.state.combatants[target]
        if c.defeated is not None:
            return
        left = int(c.stats["hp"]) - c.damage
        if left <= int(c.stats.get("unconscious_at", -1)):
            draft.emit(CombatantDefeated(combatant=target, how=UNCONSCIOUS))
        elif left <= int(c.stats.get("near_death", 0)):
            if not c.has(NEAR_DEATH):
                draft.emit(ConditionApplied(target=target, condition=NEAR_DEATH, source="hit points"))
        elif c.has(NEAR_DEATH):
            draft.emit(ConditionRemoved(target=target, condition=NEAR_DEATH, reason="healed"))

    def outcome(self, state: Encounter) -> tuple[str, str | None] | None:
        if state.options.get("method") != "simple" and state.phase != "setup":
            for c in state.combatants.values():
                if c.defeated is None and not c.removed and weapons(c):
                    break
            else:
                return ("draw: no one left standing has a weapon", None)
        values = csi(state)
        standing = [s for s, v in values.items() if v > 0]
        if len(standing) == 1:
            lost = ", ".join(s for s, v in values.items() if v == 0)
            return (f"victory: the CSI of {lost} is 0", standing[0])
        if not standing:
            return ("draw: every side's CSI is 0", None)
        return None

    # --- commands of this system ---

    def command(self, draft: Draft, command: Command) -> None:
        handler = {"place": _place_cmd, "range": _range_cmd, "marching": _marching_cmd, "conclude": _conclude,
                   "exchange": _exchange, "goal": _goal}.get(command.kind)
        if handler is None:
            raise Refused(f"command {command.kind!r}", "unknown command")
        handler(draft, command)

    def policy(self, state: Encounter, actor: Combatant) -> Command:
        if state.options.get("method") == "simple":
            due = [g for g, v in state.extra.get("goals", {}).items() if v.get("choice_due")]
            if due:
                return Command(kind="goal", params={"group": due[0], "choice": "bonus"}, by="policy")
            return Command(kind="exchange", by="policy")
        return _policy(state, actor)

    def ruling_policy(self, state: Encounter) -> Command | None:
        if state.extra.get("awaiting") == "resolve combat":
            return Command(kind="conclude", params={"decision": "continue"}, by="policy")
        return None

    def summary(self, state: Encounter) -> list[str]:
        out = []
        now = csi(state)
        first = state.extra.get("csi_initial")
        out.append("CSI: " + ", ".join(f"{s} {v}" + (f" (of {first[s]})" if first and s in first else "")
                                       for s, v in now.items()))
        if state.options.get("grid", "none") == "none":
            ranges = state.extra.get("ranges", {})
            if ranges:
                out.append("Ranges to target: " + ", ".join(f"{cid} {r}" for cid, r in ranges.items()))
        else:
            placed = [f"{c.id} at {c.position}" for c in state.active() if c.position]
            if placed:
                out.append("Positions: " + ", ".join(placed))
        with_shields = [f"{c.id} {shields(state, c)}/{c.stats['shields']}" for c in state.active() if "shields" in c.stats]
        if with_shields:
            out.append("Shields: " + ", ".join(with_shields))
        if state.extra.get("awaiting"):
            out.append(f"Waiting for the game master: {state.extra['awaiting']} (conclude continue|victory SIDE|draw)"
                       if state.extra["awaiting"] == "resolve combat" else f"Waiting for: {state.extra['awaiting']}")
        return out

    def narrate(self, state: Encounter, event: Any, dice: bool = False) -> str | None:
        name = lambda cid: state.combatants[cid].name if cid in state.combatants else cid  # noqa: E731
        t = type(event)
        if t is StrengthTotalled:
            values = ", ".join(f"{s} {v}" for s, v in event.csi.items())
            return f"Composite strength ({event.reason or 'now'}): {values}."
        if t is RangeSet:
            return f"  {name(event.combatant)}: range to target {event.range} ({event.how})."
        if t is Placed:
            if event.how == "moved":
                return None  # the move's own line says where
            facing = f", facing {event.facing}" if event.facing else ""
            return f"  {name(event.combatant)} stands at {_num(event.x)},{_num(event.y)}{facing} ({event.how})."
        if t is ShieldsSet and event.reason == "regenerated":
            return f"  {name(event.combatant)}'s shields regenerate to {event.shields}."
        if t is MarchingOrder:
            return f"Marching order of {event.side}: {', '.join(name(c) for c in event.order)}."
        if t is Awaiting:
            return f"The game master rules: {event.topic}." if event.topic else None
        if t is SimpleCombatStarted:
            return "Simple Combat: " + "; ".join(
                f"{g} ({', '.join(name(c) for c in ids)})" for g, ids in event.groups.items()) + "."
        if t is GroupsRanked:
            rolls = ", ".join(f"{g} {r}" + (f" ({event.modifiers[g]:+d})" if event.modifiers.get(g) else "")
                              for g, r in sorted(event.results.items(), key=lambda x: -x[1]))
            lost = ", ".join(f"{g} {n}" for g, n in event.losses.items() if n)
            return f"Group rolls: {rolls}." + (f" Losses: {lost}." if lost else "")
        if t is HitsTaken:
            return f"  {name(event.combatant)} takes {event.hits} hit{'s' if event.hits != 1 else ''}."
        if t is GoalEvent:
            said = {"primary": "reaches its primary goal", "primary lost": "can no longer reach its primary goal",
                    "choice due": "rolled 18 and chooses: a secondary goal or +1", "secondary": "takes a secondary goal",
                    "bonus": "takes +1 on its future rolls"}
            return f"  {event.group} {said.get(event.what, event.what)}" + (
                f" (roll {event.roll})." if event.roll is not None else ".")
        return None

    def describe(self, state: Encounter, pending: Pending) -> str:
        actor = state.combatants[pending.actor]
        init = f" (initiative {actor.initiative})" if actor.initiative is not None else ""
        if pending.action in ("shoot", "melee"):
            target = state.combatants[pending.targets[0]]
            w = weapon(actor, pending.params.get("weapon"), pending.action == "melee")
            wname = w["name"] if w else "a weapon"
            verb = "fires" if pending.action == "shoot" else "strikes with"
            prep = "at" if pending.action == "shoot" else "at"
            return f"{actor.name}{init} {verb} the {wname} {prep} {target.name}"
        if pending.action == "move":
            return f"{actor.name}{init} moves to {_num(float(pending.params['x']))},{_num(float(pending.params['y']))}"
        if pending.action == "heal":
            return f"{actor.name}{init} tends to {state.combatants[pending.targets[0]].name}"
        return super().describe(state, pending)


def _dice(expr: Any, what: str) -> None:
    try:
        parse_dice(str(expr))
    except DiceError as exc:
        raise Refused(what, str(exc)) from None


# --- the game master's commands -------------------------------------------------------


def _who(draft: Draft, command: Command, what: str) -> Combatant:
    cid = command.actor
    c = draft.state.combatants.get(cid or "")
    if c is None:
        raise Refused(f"{what} {cid!r}", "no such combatant", "ids: " + (", ".join(draft.state.combatants) or "none"))
    return c


def _place_cmd(draft: Draft, command: Command) -> None:
    state = draft.state
    if state.options.get("grid", "none") == "none":
        raise Refused("place", "this fight has no grid", "give ranges with: range ACTOR range=N")
    c = _who(draft, command, "place")
    p = command.params
    try:
        x, y = float(p["x"]), float(p["y"])
    except (KeyError, TypeError, ValueError):
        raise Refused(f"place {c.id}", "say where: params x=<increments> y=<increments>") from None
    if state.options.get("grid") == "physical" and not (x.is_integer() and y.is_integer()):
        raise Refused(f"place {c.id}", "on a physical grid a square is whole numbers x, y")
    facing = p.get("facing")
    if facing is not None and not _is_facing(facing):
        raise Refused(f"place {c.id}: facing={facing!r}", "use 1-8 (1 ahead, clockwise in 45-degree steps)")
    draft.emit(Placed(combatant=c.id, x=x, y=y, facing=facing, how="given"))


def _range_cmd(draft: Draft, command: Command) -> None:
    state = draft.state
    if state.options.get("grid", "none") != "none":
        raise Refused("range", "on a grid ranges come from positions", "place combatants with: place ACTOR x=.. y=..")
    c = _who(draft, command, "range")
    value = command.params.get("range")
    if value is None:
        rolled = draft.roll("2d10z", "range to target", by=c.id).total
        draft.emit(RangeSet(combatant=c.id, range=rolled, how="rolled"))
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise Refused(f"range {c.id}: {value!r}", "a range is a whole number of increments, 0 or more")
    draft.emit(RangeSet(combatant=c.id, range=value, how="given"))


def _marching_cmd(draft: Draft, command: Command) -> None:
    state = draft.state
    side = command.params.get("side")
    if side not in state.sides():
        raise Refused(f"marching {side!r}", "no such side", f"sides: {', '.join(state.sides())}")
    order = command.params.get("order")
    members = [c.id for c in state.combatants.values() if c.side == side and not c.removed]
    if not isinstance(order, list) or not all(isinstance(x, str) for x in order) or sorted(order) != sorted(members):
        raise Refused(f"marching {side}", "give every member of the side once, front to back",
                      f"members: {', '.join(members)}")
    draft.emit(MarchingOrder(side=side, order=tuple(order)))


def _conclude(draft: Draft, command: Command) -> None:
    state = draft.state
    if state.phase in ("setup", "surprise"):
        raise Refused("conclude", "the fight hasn't begun", "begin it first, or end it with: end")
    decision = command.params.get("decision")
    waiting = state.extra.get("awaiting") == "resolve combat"
    if decision == "continue":
        if not waiting:
            raise Refused("conclude continue", "the fight isn't waiting for a ruling; it goes on by itself")
        draft.emit(GmRuling(topic="resolve combat", decision="continue", text=str(command.params.get("text", ""))))
        draft.emit(Awaiting(topic=None))
        draft.next_round()
        return
    if decision not in ("victory", "draw"):
        raise Refused(f"conclude decision={decision!r}", "not a decision", "use continue, victory or draw")
    winner = command.params.get("winner")
    if decision == "victory" and winner not in state.sides():
        raise Refused(f"conclude victory: winner={winner!r}", "name the winning side", f"sides: {', '.join(state.sides())}")
    if decision == "draw":
        winner = None
    draft.emit(GmRuling(topic="resolve combat", decision={"decision": decision, "winner": winner},
                        text=str(command.params.get("text", ""))))
    if waiting:
        draft.emit(Awaiting(topic=None))
    draft.emit(EncounterEnded(outcome=f"{decision} by the game master's ruling", winner=winner))


# --- placement on a grid --------------------------------------------------------------


def _direction(draft: Draft, by: str, purpose: str) -> int:
    """A direction die: 1-8 clockwise from ahead; 9 a random direction (1d8); 0 roll again."""
    while True:
        d = draft.roll("1d10z", f"{purpose}: direction", by=by).total
        if d == 9:
            return draft.roll("1d8", f"{purpose}: random direction", by=by).total
        if d != 0:
            return d


def _offset(state: Encounter, origin: tuple[float, float], direction: int, increments: int) -> tuple[float, float]:
    dx, dy = DIRECTIONS[direction]
    if state.options.get("grid") == "abstract" and dx and dy:
        step = round(increments * _DIAG, 2)
        return origin[0] + dx * step, origin[1] + dy * step
    return origin[0] + dx * increments, origin[1] + dy * increments


def _facing_towards(direction: int) -> int:
    return (direction + 3) % 8 + 1


def _place_all(draft: Draft) -> None:
    """The text's placement by die, for every combatant not placed yet."""
    state = draft.state
    order = [cid for cid in state.flat_order() if state.combatants[cid].active]
    if not order or all(position(state.combatants[c]) is not None for c in order):
        return

    def put(cid: str, xy: tuple[float, float], facing: int, how: str) -> None:
        draft.emit(Placed(combatant=cid, x=xy[0], y=xy[1], facing=facing, how=how))

    leader = order[0]
    if position(draft.state.combatants[leader]) is None:
        put(leader, (0.0, 0.0), 1, "centre")
    lead_pos = position(draft.state.combatants[leader])
    assert lead_pos is not None
    key = lambda cid: group_key(draft.state, draft.state.combatants[cid])  # noqa: E731
    heads: dict[str, str] = {}
    for cid in order:
        heads.setdefault(key(cid), cid)
    side_origin: dict[str, str] = {state.combatants[leader].side: leader}
    facing_of: dict[str, int] = {}
    for group, head in heads.items():
        c = draft.state.combatants[head]
        if position(c) is not None:
            side_origin.setdefault(c.side, head)
            facing_of[group] = draft.state.extra.get("facing", {}).get(head) or 1
            continue
        origin = side_origin.get(c.side)
        if origin is None:
            while True:  # the first of an opposing side: 2d10, one die the direction, the other the range
                roll = draft.roll("2d10z", "placement: direction and range", by=head)
                d, r = roll.faces
                if d != 0:
                    break
            if d == 9:
                d = draft.roll("1d8", "placement: random direction", by=head).total
            put(head, _offset(state, lead_pos, d, r), _facing_towards(d), "rolled")
            side_origin[c.side] = head
            facing_of[group] = _facing_towards(d)
        else:
            d = _direction(draft, head, "placement")
            r = draft.roll("1d5", "placement: range", by=head).total
            origin_pos = position(draft.state.combatants[origin])
            assert origin_pos is not None
            f = draft.state.extra.get("facing", {}).get(origin) or 1
            put(head, _offset(state, origin_pos, d, r), f, "rolled")
            facing_of[group] = f
    for cid in order:
        c = draft.state.combatants[cid]
        if position(c) is not None:
            continue
        head = heads[key(cid)]
        d = _direction(draft, cid, "placement")
        r = draft.roll("1d5", "placement: range", by=cid).total
        origin_pos = position(draft.state.combatants[head])
        assert origin_pos is not None
        put(cid, _offset(state, origin_pos, d, r), facing_of.get(key(cid), 1), "rolled")


# --- the automatic combatant ----------------------------------------------------------


def _policy(state: Encounter, actor: Combatant) -> Command:
    """The automatic combatant: the text's target if it can be attacked (else the next in the same
    order that can): melee at range zero, else a weapon in range; else move toward the text's target
    (or step off its square to shoot); else end the turn."""
    end = Command(kind="end_turn", actor=actor.id, by="policy")
    preference = target_preference(state, actor)
    if not preference:
        return end
    can = {s.name for s in STARFLIGHT.affordable(state, actor)}
    left = actor.resources.get("actions", 0)
    timing = STARFLIGHT.timing(state.options)
    grid = state.options.get("grid", "none") != "none"

    def act(action: str, target: Combatant | None = None, **params: Any) -> Command:
        return Command(kind="act", actor=actor.id, action=action, targets=(target.id,) if target else (),
                       params=params, by="policy")

    def expected(target: Combatant, category: str, how: str = "own") -> int | None:
        """The range when an attack of `category` would resolve (after declared moves, if later)."""
        if grid and not timing.immediate(category) and not timing.immediate("movement"):
            here, there = planned_position(state, actor), planned_position(state, target)
            return None if here is None or there is None else distance(state, here, there)
        return range_between(state, actor, target, how)

    fits = lambda w: (2 if w.get("full_round") else 1) <= left  # noqa: E731
    for target in preference:
        hows = ["own"]
        if not grid and targeted(state, target.id, actor.id):
            hows.append("theirs")
        for how in sorted(hows, key=lambda h: range_between(state, actor, target, h) or 0):
            extra: dict[str, Any] = {"range_from": "theirs"} if how == "theirs" else {}
            if "melee" in can and expected(target, "melee", how) == 0:
                for w in weapons(actor):
                    if w.get("melee") and fits(w):
                        return act("melee", target, weapon=w["name"], **extra)
            r = expected(target, "shooting", how)
            if "shoot" in can and r is not None and r >= 1:
                for w in weapons(actor):
                    if int(w.get("range", 0)) >= r and fits(w):
                        return act("shoot", target, weapon=w["name"], **extra)
    target = preference[0]
    here, there = planned_position(state, actor), position(target)
    if "move" in can and here is not None and there is not None:
        planned = distance(state, here, there)
        reach = max([int(w.get("range", 0)) for w in weapons(actor)] + [0])
        melee = any(w.get("melee") for w in weapons(actor))
        if not weapons(actor):
            return end
        if planned == 0 and not melee:
            return act("move", x=_plain(here[0] + 1), y=_plain(here[1]))  # range zero is melee: step off to shoot
        need = planned if melee or not reach else planned - reach
        step = min(need, actor.resources.get("mp", 0))
        if step > 0:
            x, y = _towards(state, here, there, step)
            if (x, y) != here:
                return act("move", x=_plain(x), y=_plain(y))
    return end


def _plain(v: float) -> int | float:
    return int(v) if float(v).is_integer() else v


def _towards(state: Encounter, here: tuple[float, float], there: tuple[float, float], step: int) -> tuple[float, float]:
    dx, dy = there[0] - here[0], there[1] - here[1]
    if state.options.get("grid") == "physical":
        sx = max(-step, min(step, int(dx)))
        sy = max(-step, min(step, int(dy)))
        return here[0] + sx, here[1] + sy
    d = math.hypot(dx, dy)
    if d <= step:
        return there
    f = (step - 0.01) / d  # stay inside the allowance once rounded to hundredths
    return round(here[0] + dx * f, 2), round(here[1] + dy * f, 2)


STARFLIGHT = Starflight()

from combatlog.engine import rules as _registry  # noqa: E402

_registry.register(STARFLIGHT)
