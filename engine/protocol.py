"""The rule-system protocol: what every system tells the engine, with sensible defaults,
and what the engine hands it.

A rule system says how initiative is rolled and ranked (its order strategy and tie rules),
how actions are timed, what a combatant may spend in a turn (its budget), which actions
exist with their requirements and cost, how each resolves into events, what damage does,
and when the encounter is over. `decide` (in `combatlog.engine.decide`) runs the
procedure common to all of them and calls these hooks, handing each a `Draft` (the step in
the making) and asking the system for its `Order` strategy.

The draft, the order strategy and the rule system refer to one another, so their types live
here together: `combatlog.engine.draft.Draft` (the engine's draft) and the strategies of
`combatlog.engine.order` are built on this module, never the other way round.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

from combatlog.engine import typed
from combatlog.engine.dicetree import excerpt
from combatlog.engine.errors import Refused
from combatlog.engine.timing import Timing, make_timing
from combatlog.events import Command

if TYPE_CHECKING:
    from combatlog.engine.dice import Dice
    from combatlog.events import DiceRolled, Event
    from combatlog.projections import Combatant, Encounter, Pending


LEVELS = ("healthy", "injured", "bloodied", "critical", "down")


def _word(value: Any) -> str:
    """A value as a person types it in an encounter file or an --option: true, 3, ranked."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def level_of(left: int, most: int) -> str:
    """The descriptive level of `left` of `most`: healthy (untouched), injured (over half),
    bloodied (over a quarter), critical (anything left), down."""
    if left <= 0:
        return "down"
    if left >= most:
        return "healthy"
    if left * 2 > most:
        return "injured"
    if left * 4 > most:
        return "bloodied"
    return "critical"


def weapon_names(state: Encounter, actor: Combatant) -> tuple[str, ...]:
    """The names of `actor`'s weapons as its stats give them (`weapons`, each with a `name`):
    what a form offers for a `weapon` parameter."""
    weapons = actor.given_stats.get("weapons")
    if not isinstance(weapons, list):
        return ()
    return tuple(str(w["name"]) for w in weapons if isinstance(w, dict) and isinstance(w.get("name"), str))


def gone(target: Combatant) -> str | None:
    """Why an action can't reach `target` any more, in the one sentence every system's actions
    share: it was removed from the encounter, or it is out of the fight (defeated); None while
    it stands."""
    if target.removed:
        return f"lost: {target.name} is no longer in the encounter"
    if target.defeated is not None:
        return f"lost: {target.name} is already out of the fight ({target.defeated})"
    return None


@dataclass(frozen=True)
class BoardView:
    """Where a system's combatants stand, as a screen draws it: `sections` of a map (with its
    borders), a `grid` of x,y squares, range `bands` (a combatant's place is its band), or the
    `distances` between pairs of combatants (a system that keeps no positions)."""

    kind: str  # "sections", "grid", "bands" or "distances"
    sections: tuple[Any, ...] = ()  # battlemap.Section, for "sections"
    borders: tuple[Any, ...] = ()  # battlemap.Border, for "sections"
    bands: tuple[str, ...] = ()  # the bands in order, nearest first, for "bands"
    distances: tuple[tuple[str, str, int, bool], ...] = ()  # (a, b, yards, engaged), for "distances"


class Draft(Protocol):
    """A step in the making, as every hook, resolver and order strategy is handed it: the
    state so far, the events it emits (each folded at once), its dice and its rule system.
    `combatlog.engine.draft.Draft` is the engine's."""

    state: Encounter
    events: list[Event]
    dice: Dice
    rules: RuleSystem
    step: int
    hold_damage: bool  # set while simultaneous actions resolve
    rounds_started: int  # rounds this step has started

    @property
    def turn_order(self) -> Order:
        """The rule system's order strategy for the encounter's options."""

    @property
    def timing(self) -> Timing:
        """The rule system's timing strategy for the encounter's options."""

    def emit(self, event: Event) -> Event:
        """Record `event` and fold it into the draft's state; returns the event."""

    def advance(self) -> None:
        """Go on: the next turn, the round's end, or the encounter's end (after a rule system's command)."""

    def next_round(self) -> None:
        """Start the round after the current one (a rule system's command resuming the fight)."""

    def roll(self, expression: str, purpose: str, by: str | None = None, private: bool = False) -> DiceRolled:
        """Roll dice from the step's source and record the roll; returns the DiceRolled event."""

    def attack_roll(self, expression: str, purpose: str, roller: str, target: str | None = None) -> DiceRolled:
        """An attack-like roll of `expression` with what conditions make of it (`RuleSystem.roll_mods`)."""

    def damage(
        self,
        target: str,
        amount: int,
        *,
        location: str | None = None,
        kind: str | None = None,
        source: str | None = None,
    ) -> None:
        """Apply damage now, or hold it for the round's end while simultaneous actions resolve."""


class Order(Protocol):
    """What the turn procedure asks of an order strategy (`combatlog.engine.order` has ours).

    Flags, not names, tell the procedure how the order behaves:
    `refills_each_turn` (budgets are set when each turn starts; False: once a round, as
    action points are), `one_action_turns` (a turn is one action, after which the order is
    recomputed and the actor yields), `reverse_declare` (tiers declare lowest first).
    `resolution_key` sorts what was declared into the order it resolves in; `tier_key` says
    which of those act together (equal keys: one tier, whose damage a rule system may hold
    until the whole tier has resolved: `RuleSystem.tiers_hold`).
    """

    name: str
    refills_each_turn: bool
    one_action_turns: bool
    reverse_declare: bool

    def roll(self, draft: Draft) -> None: ...
    def round_started(self, draft: Draft) -> None: ...
    def next_actors(self, state: Encounter, may_act: Callable[[Combatant], bool]) -> tuple[str, ...]: ...
    def after_action(self, draft: Draft) -> None: ...
    def pass_started(self, draft: Draft) -> None: ...
    def resolution_key(self, state: Encounter) -> Callable[[Pending], Any]: ...
    def tier_key(self, state: Encounter) -> Callable[[Pending], Any]: ...


PARAM_KINDS = ("text", "int", "number", "bool")  # the kinds of value an action's parameter takes


@dataclass(frozen=True)
class ActionParam:
    """A parameter an action takes (`act bo move to=door`): its name, the kind of value, the
    values accepted when they are a fixed few, and a line of help.

    `kind`: "text" (any value, read as text), "int" (a whole number), "number" (a whole or
    decimal number) or "bool" (true or false). `choices`: the values accepted, when they are a
    fixed few (`defense` among none, block, dodge). `offered(state, actor)`: the values a form
    lists now, when they depend on the fight (the actor's weapons, the cards in its hand, the
    map's sections): they help a person choose; the action's check decides.
    """

    name: str
    kind: str = "text"
    choices: tuple[Any, ...] = ()
    help: str = ""
    offered: Callable[[Encounter, Combatant], tuple[str, ...]] | None = None

    def problem(self, value: Any) -> str | None:
        """Why `value` isn't one this parameter takes (its kind, its choices), or None."""
        kind = self.kind
        if kind == "int" and type(value) is not int:
            return "not a whole number"
        if kind == "number" and (type(value) is bool or not isinstance(value, (int, float))):
            return "not a number"
        if kind == "bool" and type(value) is not bool:
            return "use true or false"
        if self.choices and not any(type(value) is type(c) and value == c for c in self.choices):
            return "not an accepted value; use one of " + ", ".join(_word(c) for c in self.choices)
        return None

    def listed(self, state: Encounter, actor: Combatant) -> tuple[str, ...]:
        """The values a form offers now, as a person types them (none: any value is typed)."""
        if self.choices:
            return tuple(_word(c) for c in self.choices)
        if self.offered is not None:
            return self.offered(state, actor)
        return ("true", "false") if self.kind == "bool" else ()


@dataclass(frozen=True)
class ActionSpec:
    """An action a combatant may declare: its category, cost, targets, parameters and resolution.

    `targets`: "enemy", "ally", "any", "self" or "none". `params`: the parameters it takes
    (`ActionParam`s; `()` for none); left None, it declares none and takes whatever it is
    given, as actions did before parameters were declared. `check(state, actor, targets,
    params)` returns why the action can't be taken now, or None. `resolve(draft, pending)`
    emits the action's effects and returns a short outcome; it starts at the mechanics:
    `combatlog.engine.turns.resolve` has made sure the actor and every target are still in the
    fight. `targets_down_ok`: its targets may be down (defeated, not removed), for an action
    meant for the fallen (stabilising a dying ally, a coup de grace): such a target may be
    declared, and the action resolves on it.
    """

    name: str
    category: str | None
    cost: dict[str, int]
    resolve: Callable[[Draft, Pending], str]
    targets: str = "enemy"
    min_targets: int = 1
    max_targets: int = 1
    check: Callable[[Encounter, Combatant, tuple[str, ...], dict[str, Any]], str | None] | None = None
    help: str = ""
    params: tuple[ActionParam, ...] | None = None
    targets_down_ok: bool = False

    def param(self, name: str) -> ActionParam | None:
        """The declared parameter `name`, or None."""
        for p in self.params or ():
            if p.name == name:
                return p
        return None


@dataclass(frozen=True)
class RollMods:
    """How conditions change an attack-like roll: `advantage` > 0 rolls the die twice and keeps
    the higher, < 0 the lower (one of each cancels); `bonus` is added; a face below `reroll_below`
    is rolled once more (the second stands)."""

    advantage: int = 0
    bonus: int = 0
    reroll_below: int = 0

    def __add__(self, other: RollMods) -> RollMods:
        return RollMods(
            self.advantage + other.advantage,
            self.bonus + other.bonus,
            max(self.reroll_below, other.reroll_below),
        )


_RELEASES: dict[str | None, float] = {}  # a rules version's text -> its number (`RuleSystem.since`)


def grid_problem(to: str) -> str | None:
    """What is wrong with `to` as a square of an x,y grid (two finite numbers: `3,4`), or None."""
    parts = to.split(",")
    if len(parts) == 2:
        try:
            x, y = float(parts[0]), float(parts[1])
        except ValueError:
            pass
        else:
            if math.isfinite(x) and math.isfinite(y):
                return None
    return f"{excerpt(to)} is not a square of the grid; give x,y, two numbers such as 3,4"


NO_MODS = RollMods()  # nothing changes the roll: what most rolls get, made once


@dataclass(frozen=True)
class OptionSpec:
    """An encounter option: its default and the values accepted (None: any value of its type)."""

    default: Any
    choices: tuple[Any, ...] | None = None
    help: str = ""


class RuleSystem:
    """Base class of every rule system; override what the system's text says differently."""

    name: str = ""
    version: str = "1"  # the rules' version: what they decide (`since`); recorded in every log
    # the plugin API it was written for (`combatlog.engine.plugin_api.API`); None: held to the
    # current one by its hooks alone. Checked when the system is registered.
    api: int | None = None
    events: tuple[type, ...] = ()
    # The typed models (msgspec Structs; see `combatlog.engine.typed`): a combatant's
    # stats, the encounter's options, and the system's own per-encounter state (kept in
    # `Encounter.extra`, registered with the projections by `register`).
    stats_type: type[Any] | None = None
    options_type: type[Any] | None = None
    state_type: type[Any] | None = None
    option_specs: dict[str, OptionSpec] = {}  # derived from options_type when that is given
    required_stats: tuple[str, ...] = ()  # derived from stats_type when that is given
    commands: dict[str, str] = {}  # extra command kinds this system decides, with a help line
    # the positional words of those commands on the command line ("actor", a param, or "*param" for the rest)
    command_words: dict[str, tuple[str, ...]] = {}
    after_end: tuple[str, ...] = ()  # own commands still taken once the encounter is over (recovery, say)
    # example encounter files a plugin ships, as "package:file.toml" (for `demo`, `init`, `rulesets --check`)
    examples: tuple[str, ...] = ()
    # conditions that change attack rolls (`Draft.attack_roll`): the roller's own, and the target's
    # the version of these rules from which `check_params` refuses a parameter an action doesn't
    # declare (a log recorded under an older one re-decides as it was recorded)
    params_since: int = 1
    rolling_mods: dict[str, RollMods] = {}  # "blessed": RollMods(bonus=1), "poisoned": RollMods(advantage=-1)
    targeted_mods: dict[str, RollMods] = {}  # "dodging": RollMods(advantage=-1), "prone": RollMods(advantage=1)
    # The version of these rules from which a tier (combatants sharing a rank in the order) acts
    # together: the damage dealt within it is held until the whole tier has acted (see
    # `tiers_hold`). None: a tier's actions land one by one, as before tiers did.
    tiers_since: int | None = None

    # --- the encounter's options and combatants ---------------------------------------

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        if cls.options_type is not None and "option_specs" not in cls.__dict__:
            model = cls.options_type
            cls.option_specs = {
                f.name: OptionSpec(
                    msgspec.NODEFAULT
                    if f.required
                    else typed.to_plain(f.default if f.default is not msgspec.NODEFAULT else f.default_factory()),
                    typed.choices(model, f.name),
                    typed.description(model, f.name),
                )
                for f in msgspec.structs.fields(model)
            }
        if cls.stats_type is not None and "required_stats" not in cls.__dict__:
            cls.required_stats = tuple(f.name for f in msgspec.structs.fields(cls.stats_type) if f.required)

    def options(self, given: dict[str, Any]) -> dict[str, Any]:
        """All options with defaults filled in; raises Refused naming a bad key or value."""
        if self.options_type is not None:
            known = ", ".join(sorted(self.option_specs)) or "none"
            for key, value in given.items():
                spec = self.option_specs.get(key)
                if spec is None:
                    raise Refused(f"option {key!r}", f"{self.name} has no such option", f"known options: {known}")
                if spec.choices is not None and not any(type(value) is type(c) and value == c for c in spec.choices):
                    raise Refused(
                        f"option {key}={value!r}",
                        "not an accepted value",
                        "use one of " + ", ".join(_word(c) for c in spec.choices),
                    )
            try:
                model = msgspec.convert(given, self.options_type, strict=True)
            except msgspec.ValidationError as exc:
                where, _, why = typed.validation_message(exc).partition(": ")
                key = where.removeprefix("$.").split("[", 1)[0].split(".", 1)[0]
                spec = self.option_specs.get(key)
                raise Refused(f"option {where.removeprefix('$.')}", why, spec.help if spec else "") from None
            return typed.to_plain(model)  # type: ignore[no-any-return]
        out: dict[str, Any] = {}
        for key in given:
            if key not in self.option_specs:
                known = ", ".join(sorted(self.option_specs)) or "none"
                raise Refused(f"option {key!r}", f"{self.name} has no such option", f"known options: {known}")
        for key, spec in self.option_specs.items():
            value = given.get(key, spec.default)
            if spec.choices is not None and value not in spec.choices:
                raise Refused(
                    f"option {key}={value!r}",
                    "not an accepted value",
                    "use one of " + ", ".join(_word(c) for c in spec.choices),
                )
            out[key] = value
        return out

    def variant(self, options: Any) -> RuleSystem:
        """The instance that plays an encounter created with `options` (the encounter's
        `state.options`: the system's `options_type`, or as given for a system without one):
        this one, or a variant of these rules that the options choose, written as a subclass that
        overrides only what differs (Starflight's Simple Combat). `rules_of(state)` asks it, so the
        choice follows from what the log recorded at the encounter's creation: the log names the
        system and its options, never the variant."""
        return self

    def check_combatant(self, stats: dict[str, Any], who: str = "") -> Any:
        """The combatant's stats as given, validated; raises Refused naming who and the missing
        or bad stat. Returns them as the system's `stats_type` (as given, for a system without
        one), for an override's own checks and for `check_added`; the log records them as given.
        """
        what = f"combatant {who}" if who else "combatant"
        missing = [s for s in self.required_stats if s not in stats]
        if missing:
            raise Refused(
                what, f"missing stat(s) {', '.join(missing)}", f"{self.name} needs {', '.join(self.required_stats)}"
            )
        if self.stats_type is not None:
            return typed.convert(stats, self.stats_type, what)
        return stats

    def roll_mods(self, state: Encounter, roller: Combatant, target: Combatant | None) -> RollMods:
        """What the roller's conditions and the target's make of an attack-like roll (from
        `rolling_mods` and `targeted_mods`; override for more)."""
        if not roller.conditions and (target is None or not target.conditions):
            return NO_MODS  # most rolls: no one's conditions, nothing to look up
        out = NO_MODS
        for cond in roller.conditions:
            out = out + self.rolling_mods.get(cond.name, RollMods())
        if target is not None:
            for cond in target.conditions:
                out = out + self.targeted_mods.get(cond.name, RollMods())
        return out

    def place_problem(self, state: Encounter, to: str) -> str | None:
        """What is wrong with `to` as where a combatant stands in this encounter (a game
        master's `move` override), or None when the system reads it. Default: any text (the
        system reads no positions); `grid_problem` for a system on an x,y grid."""
        return None

    def check_added(self, state: Encounter, stats: Any, who: str) -> None:
        """Refuse (naming `combatant WHO`) stats that can't be in this encounter: checks that need
        its options (a section on its map, a die on its ladder). `stats`: what `check_combatant`
        returned (the `stats_type`). Default: none."""

    @staticmethod
    def since(state: Encounter, version: int) -> bool:
        """True when the encounter was created under version `version` of its rules or later.

        A change of what the rules decide is gated on it, so a log recorded under an older
        version still re-decides (audits) as it was recorded.
        """
        recorded = state.rules_version
        number = _RELEASES.get(recorded)  # read once per version text: gates are asked every action
        if number is None:
            try:
                number = int(recorded or "1")
            except ValueError:
                number = math.inf  # a version that isn't a number: every gate is open
            if len(_RELEASES) >= 64:
                _RELEASES.clear()
            _RELEASES[recorded] = number
        return number >= version

    def tiers_hold(self, state: Encounter) -> bool:
        """True when the encounter's tiers act together (from version `tiers_since` of the rules):
        what one member of a tier deals lands only once the whole tier has acted. Asked by the turn
        procedure (`combatlog.engine.turns`), which holds and releases the damage."""
        since = self.tiers_since
        return since is not None and self.since(state, since)

    def stats(self, combatant: Combatant) -> Any:
        """`combatant.stats`, the typed model the fold made when it was added: kept for plugins
        written before plugin API 5, which read it through here."""
        return combatant.stats

    def settings(self, state: Encounter) -> Any:
        """`state.options`, the typed model the fold made when the encounter was created: kept
        for plugins written before plugin API 5, which read it through here."""
        return state.options

    # --- order and timing -------------------------------------------------------------

    def order(self, options: Any) -> Order | None:
        """The order strategy for these options (`state.options`, as `variant`); None (the
        default): a ranked initiative order, highest first (`make_order("ranked")`, which the
        draft makes)."""
        return None

    def timing(self, options: Any) -> Timing:
        """The timing strategy for these options (`state.options`, as `variant`)."""
        return make_timing("turn")

    def initiative(self, draft: Draft, combatant: Combatant, ids: tuple[str, ...]) -> int:
        """Roll initiative for `combatant` (or the group `ids` it leads); returns the value."""
        raise NotImplementedError

    def surprise(self, state: Encounter, sides: tuple[str, ...]) -> tuple[str, ...]:
        """The sides surprised, given the game master's ruling (default: as ruled)."""
        return sides

    # --- turns ------------------------------------------------------------------------

    def budget(self, state: Encounter, combatant: Combatant) -> dict[str, int]:
        """What `combatant` may spend when their turn (or the round) starts."""
        return {"actions": 1}

    def may_act(self, state: Encounter, combatant: Combatant) -> bool:
        """True when `combatant` may take a turn now (the surprise round limits who may)."""
        if not combatant.active:
            return False
        return not (state.surprise_round and combatant.side in state.surprised)

    def actions(self, state: Encounter, actor: Combatant) -> list[ActionSpec]:
        """The actions `actor` knows (affordable or not)."""
        return []

    def action(self, state: Encounter, actor: Combatant, name: str) -> ActionSpec:
        """The action `name` of `actor`; raises Refused listing the known ones."""
        for spec in self.actions(state, actor):
            if spec.name == name:
                return spec
        known = ", ".join(s.name for s in self.actions(state, actor)) or "none"
        raise Refused(f"{actor.name}: {name!r}", f"{self.name} has no such action", f"actions: {known}")

    def check_params(self, state: Encounter, actor: Combatant, spec: ActionSpec, params: dict[str, Any]) -> None:
        """Refuse, in one line naming those `spec` takes, a parameter it doesn't declare or a
        value one doesn't take (its kind, its choices; a null value is left to the action's
        check). Nothing is checked for an action that declares none (`spec.params` is None),
        nor in an encounter created under a version of these rules before `params_since`."""
        declared = spec.params
        if not params or declared is None or not self.since(state, self.params_since):
            return
        unknown = [key for key in params if spec.param(key) is None]
        if unknown:
            names = [p.name for p in declared]
            said = ", ".join(excerpt(str(key)) for key in unknown)
            close = [m for key in unknown for m in difflib.get_close_matches(str(key), names, n=1)]
            raise Refused(
                actor.name,
                f"{spec.name} takes no parameter{'s' if len(unknown) > 1 else ''} {said}"
                + (f" (did you mean {' or '.join(close)}?)" if close else ""),
                f"it takes: {', '.join(names)}" if names else "it takes none",
            )
        for key, value in params.items():
            why = None if value is None else spec.param(key).problem(value)  # type: ignore[union-attr]
            if why:
                raise Refused(actor.name, f"{spec.name} {key}={excerpt(_word(value))}: {why}")

    def cost(self, state: Encounter, actor: Combatant, spec: ActionSpec, params: dict[str, Any]) -> dict[str, int]:
        """What declaring `spec` costs `actor` (default: the spec's cost)."""
        return dict(spec.cost)

    def affordable(self, state: Encounter, actor: Combatant) -> list[ActionSpec]:
        """The actions `actor` can pay for now."""
        return [spec for spec in self.actions(state, actor) if self._pays(state, actor, spec)]

    def _pays(self, state: Encounter, actor: Combatant, spec: ActionSpec) -> bool:
        """True when `actor` has what declaring `spec` costs."""
        have = actor.resources.get
        for k, v in self.cost(state, actor, spec, {}).items():  # noqa: SIM110  # no generator: a hot path
            if have(k, 0) < v:
                return False
        return True

    def idle(self, state: Encounter, combatant: Combatant) -> bool:
        """True when `combatant`'s turn ends as it starts (nothing it can do)."""
        if type(self).affordable is not RuleSystem.affordable:  # a system's own affordable decides
            return not self.affordable(state, combatant)
        # the first affordable action answers: asked for every actor at every turn's start
        return not any(self._pays(state, combatant, spec) for spec in self.actions(state, combatant))

    def turn_started(self, draft: Draft, actors: tuple[str, ...]) -> None:
        """Hook when a turn starts (after budgets are set)."""

    def turn_ending(self, draft: Draft, actors: tuple[str, ...], params: dict[str, Any]) -> None:
        """Hook just before `actors`' turn ends (by `end_turn`, or by having nothing left to
        do): what the system does at a turn's end (Triptycho discards a card). `params`: those
        of the command that ends it."""

    def round_started(self, draft: Draft) -> None:
        """Hook when a round starts (after budgets are set)."""

    def round_ending(self, draft: Draft) -> None:
        """Hook before a round ends (held damage is released after it)."""

    def round_ended(self, draft: Draft) -> None:
        """Hook right after a round ended (held damage counted), before the end check."""

    def declared(self, draft: Draft, pending: Pending) -> None:
        """Hook right after an action is declared (before it resolves, if it resolves at once)."""

    def action_lost(self, draft: Draft, pending: Pending) -> str | None:
        """The outcome when `pending`'s actor loses the action as it comes to resolve, for a
        condition of its own (Straalara's Dazed), having emitted what losing it changes; None: it
        goes on. Asked once the actor is found still in the fight, before its targets are
        checked (`target_gone`). Default: None."""
        return None

    def target_gone(self, draft: Draft, pending: Pending, target: Combatant) -> str | None:
        """The outcome of `pending` when `target`, one of its targets, is no longer there as it
        comes to resolve (removed, or defeated and the action doesn't say `targets_down_ok`): the
        action is lost with that outcome; None resolves it all the same. Default: the one
        sentence of `gone`. A system overrides it only so that a log
        recorded under an older version of its rules re-decides as it was recorded."""
        return gone(target)

    def another_pass(self, state: Encounter) -> bool:
        """True when, every declared action resolved, the round goes on with another pass
        (declare and resolve again) instead of ending (default: never)."""
        return False

    def waiting(self, state: Encounter) -> bool:
        """True while the fight waits for the game master's ruling (no turn or round starts)."""
        return False

    # --- damage and the end -----------------------------------------------------------

    def after_damage(self, draft: Draft, target: str) -> None:
        """Hook after damage counted on `target` (thresholds, defeat)."""

    def after_condition(self, draft: Draft, target: str, condition: str) -> None:
        """Hook right after the game master put `condition` on `target` (an override): what it
        brings about at once (Triptycho lowers an Immobilized blocker's Block)."""

    def outcome(self, state: Encounter) -> tuple[str, str | None] | None:
        """(outcome, winning side) when the encounter is over by the rules, else None.

        Default: over when at most one side has anyone left standing.
        """
        # the side of anyone active, stopping at a second side (asked after every action)
        side = None
        for c in state.combatants.values():
            if c.defeated is None and not c.removed:
                if side is None:
                    side = c.side
                elif c.side != side:
                    return None
        return ("draw", None) if side is None else ("victory", side)

    # --- extra commands and automatic combatants --------------------------------------

    def command(self, draft: Draft, command: Command) -> None:
        """Decide a command kind this system adds; raises Refused for unknown kinds."""
        raise Refused(f"command {command.kind!r}", "unknown command")

    def policy(self, state: Encounter, actor: Combatant) -> Command:
        """The command an automatic combatant issues now (default: end the turn)."""
        return Command(kind="end_turn", actor=actor.id, by="policy")

    def ruling_policy(self, state: Encounter) -> Command | None:
        """The game master's command when the fight waits for a ruling and play is automatic (None: none)."""
        return None

    def health(self, state: Encounter, c: Combatant) -> tuple[int, int] | None:
        """(what is left, the maximum) of `c`'s main track, for views (bars, bots); None when the
        system has none to show as one number (default: `hp` less damage)."""
        hp = c.given_stats.get("hp")
        if isinstance(hp, int) and not isinstance(hp, bool):
            return (max(hp - c.damage, 0), hp)
        return None

    def board(self, state: Encounter) -> BoardView | None:
        """What the screens draw as the map (None: no map). Default: a grid when the system
        reads positions as x,y squares (`place_problem` is `grid_problem`), else none."""
        return None

    def param_choices(self, state: Encounter, actor: Combatant, action: str) -> dict[str, tuple[str, ...]]:
        """The parameters a form offers for `actor`'s `action`, each with its choices now (a
        form's list; none: a value typed; the action's check still decides). Default: the
        parameters the action declares (`ActionSpec.params`, each `ActionParam.listed`); for
        one that declares none, `weapon`, among the names of the actor's weapons, when it has any."""
        try:
            spec = self.action(state, actor, action)
        except Refused:
            return {}
        if spec.params is not None:
            return {p.name: p.listed(state, actor) for p in spec.params}
        names = weapon_names(state, actor)
        return {"weapon": names} if names else {}

    def place_of(self, state: Encounter, c: Combatant) -> str | None:
        """Where `c` stands on the board (a section, `x,y`, a band), or None. Default: its position."""
        return c.position

    def move_to(self, state: Encounter, actor: Combatant, place: str) -> Command | None:
        """The action that takes `actor` to `place` on the board (a token dragged on a player's
        map), or None when the system has no such single action. Default: None."""
        return None

    def initiative_said(self, state: Encounter, c: Combatant) -> str | None:
        """How `c`'s initiative reads where it is shown (the `show` table, a transcript's order
        line, the web tracker) when its number alone would mislead (a failed roll kept as a sort
        key); None: as its number. Default: None."""
        return None

    def health_level(self, state: Encounter, c: Combatant) -> str | None:
        """How `c`'s health reads where it is shown as a level (healthy, injured, bloodied,
        critical, down; a system may name its own); None when it has no track to read.
        Default: `level_of` the `health` track, `down` once defeated."""
        if c.defeated is not None:
            return "down"
        track = self.health(state, c)
        return level_of(*track) if track is not None else None

    def seen_by(self, state: Encounter, viewer: Any) -> Encounter:
        """`state` as `viewer` (a `combatlog.events.privacy.Viewer`) may see it: what the system
        keeps private (a hand of cards) taken out for those who may not read it
        (`viewer.may_see(cid, side_of)`). Default: nothing of the system's is private.
        `combatlog.replays.views` calls it; hidden combatants and the seed are its own to take out."""
        return state

    def revealed_at_end(self, state: Encounter) -> bool:
        """True when a finished fight's private things (hands, secret rolls) may be read by a
        spectator. Default: everything is revealed at the end."""
        return True

    def summary(self, state: Encounter) -> list[str]:
        """Lines about this system's own state, shown under the combatants (`combatlog show`)."""
        return []

    def narrate(self, state: Encounter, event: Any, dice: bool = False) -> str | None:
        """A transcript line for one of this system's own events (None: say nothing); details indented."""
        return None

    def describe(self, state: Encounter, pending: Pending) -> str:
        """A line of prose for a declared action (transcripts)."""
        targets = ", ".join(state.combatants[t].name for t in pending.targets if t in state.combatants)
        actor = state.combatants[pending.actor].name if pending.actor in state.combatants else pending.actor
        return f"{actor} {pending.action}" + (f" at {targets}" if targets else "")
