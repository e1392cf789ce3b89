"""The event catalogue: one frozen, tagged msgspec Struct per fact, and the union of them all.

Every event is a past-tense fact about an encounter. Settings live once on the `Event`
base class. Each type carries a `version` class variable; when a type's shape changes,
its version goes up and an upcaster (see `combatlog.events.upcast`) turns older shapes
into the current one. New fields always get defaults; a field's type never changes.

Rule systems add their own event types with `register_event`; the union and its decoder
are rebuilt once per registration, never per event.

Events (and commands and envelopes) are built from decoded JSON and never refer back to
themselves, so they are declared `gc=False`: the cyclic garbage collector doesn't track
them, which makes decoding a log about a tenth faster. A rule system's event must keep
to that (no field holding a reference back to the event).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Literal, Union

import msgspec


class Event(msgspec.Struct, frozen=True, kw_only=True, tag=True, tag_field="type", omit_defaults=True, gc=False):
    """Something that happened in an encounter."""

    version: ClassVar[int] = 1


class Command(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """An intention as issued by a person or a policy: recorded so an audit can re-decide it.

    `kind` names the command (`begin`, `act`, `end_turn`, `undo`...). `entered` holds the
    faces of physical dice typed in at the table, one tuple per roll, in the order the
    engine asks for them; `None` means the engine's own seeded dice are used. `entered_for`
    names the expression each entered roll is for (`1d8`; "" for bare faces): in a seeded
    encounter, typed rolls go to the rolls they match, in order, and the engine rolls the rest.

    `amends` and `draws` are set only on the steps of an amendment (`combatlog amend`): the
    step this command is decided in place of (undone just before), and the step whose seeded
    draws the engine's dice take, the superseded step's own, so a step decided again rolls
    what it rolled in the first place wherever the rolls before it are the same.
    """

    kind: str
    actor: str | None = None
    action: str | None = None
    targets: tuple[str, ...] = ()
    params: dict[str, Any] = {}
    by: str = "gm"
    entered: tuple[tuple[int, ...], ...] | None = None
    entered_for: tuple[str, ...] | None = None
    amends: int | None = None
    draws: int | None = None


# --- the step and its command ---------------------------------------------------------


class CommandIssued(Event, frozen=True):
    """The command that opened this step; every step starts with one (the unit of undo).

    `events` counts the step's events, this one included, so a reader can tell a whole
    step from one cut short by a crash.
    """

    command: Command
    events: int = 1


class StepUndone(Event, frozen=True):
    """A step was undone: its events stop counting. Nothing is erased."""

    step: int
    by: str = "gm"


class StepRedone(Event, frozen=True):
    """An undone step counts again, with exactly the events (and dice) it had."""

    step: int
    by: str = "gm"


class StepAmended(Event, frozen=True):
    """This step is decided in place of step `step`, which stays in the log, undone: an
    amendment's correction (new dice or a new command), or a later step decided again after it
    with its own recorded command and dice. The step's command names the superseded step too
    (`Command.amends`), and the step whose seeded draws it takes (`Command.draws`)."""

    step: int


# --- set-up ---------------------------------------------------------------------------


class EncounterCreated(Event, frozen=True):
    """A new encounter under a rule system, with its options and dice seed.

    A fair encounter (`commitment`, added later) records no seed: only SHA-256 of the game
    master's seed and nonce, revealed later by `SeedRevealed` (`combatlog.engine.fair`);
    `reveal_at_end`: the session reveals them as soon as the fight ends."""

    rules: str
    rules_version: str
    options: dict[str, Any] = {}
    seed: int | None = None
    title: str = ""
    package: str | None = None  # the distribution that provides a plugin's rule system (None: combatlog's own)
    commitment: str | None = None  # added later: 64 lowercase hex digits, a fair encounter's
    reveal_at_end: bool = False  # added later, with commitment


class CombatantAdded(Event, frozen=True):
    """A combatant joined the encounter."""

    id: str
    name: str
    side: str
    kind: Literal["pc", "npc"] = "npc"
    group: str | None = None
    stats: dict[str, Any] = {}


class CombatantRemoved(Event, frozen=True):
    """A combatant left the encounter (it takes no further part)."""

    id: str
    reason: str = ""


# --- surprise, initiative, order ------------------------------------------------------


class SurpriseDetermined(Event, frozen=True):
    """Who is surprised. An empty `surprised` means there is no surprise round."""

    surprised: tuple[str, ...] = ()
    ruled_by: str = "gm"


class InitiativeRolled(Event, frozen=True):
    """An initiative value for one combatant, or for a group rolling once for all its members."""

    combatants: tuple[str, ...]
    value: int
    group: str | None = None
    tiebreak: tuple[int, ...] = ()


class OrderSet(Event, frozen=True):
    """The acting order: ranked tiers, highest first; combatants in one tier act simultaneously."""

    tiers: tuple[tuple[str, ...], ...]
    reason: str = ""


class RoundStarted(Event, frozen=True):
    """A combat round began. Round 0 is a surprise round."""

    round: int
    surprise: bool = False


class HeldDamageReleased(Event, frozen=True):
    """Damage held while actions resolved together counts now, before the round ends (the
    DamageApplied events that follow carry it); the round's end releases the rest by itself."""


class PassStarted(Event, frozen=True):
    """Another declare-and-resolve pass began within the round (its actions all resolved):
    those with further actions declare and resolve them; the others can't act."""

    number: int


class RoundEnded(Event, frozen=True):
    """A combat round ended; damage held for the end of the round has been released."""

    round: int


class TurnStarted(Event, frozen=True):
    """It is now these combatants' turn (several when a tier acts simultaneously)."""

    actors: tuple[str, ...]
    declaring: bool = False


class TurnEnded(Event, frozen=True):
    """These combatants' turn is over. A `yielded` turn may come round again this round."""

    actors: tuple[str, ...]
    yielded: bool = False


# --- actions and their resolution -----------------------------------------------------


class ActionDeclared(Event, frozen=True):
    """An actor declared an action; until resolved it is pending."""

    id: str
    actor: str
    action: str
    targets: tuple[str, ...] = ()
    params: dict[str, Any] = {}
    cost: dict[str, int] = {}
    category: str | None = None


class ResolutionStarted(Event, frozen=True):
    """Declared actions start to resolve (all of them, or one category of them)."""

    category: str | None = None


class ActionResolved(Event, frozen=True):
    """A declared action was resolved (its effects are the events before this one)."""

    id: str
    outcome: str = ""


class DiceRolled(Event, frozen=True):
    """Dice hit the table: every face, how they count, why, and who rolled them."""

    expression: str
    faces: tuple[int, ...]
    total: int
    modifier: int = 0
    purpose: str = ""
    source: Literal["engine", "entered"] = "engine"
    by: str | None = None
    kept: tuple[int, ...] | None = None
    successes: int | None = None
    botch: bool = False
    private_to: str | None = None  # a secret roll: only this combatant's side (and the game master) sees it

    @property
    def natural(self) -> tuple[int, ...]:
        """The faces that count, before any modifier: the kept ones of a kept roll (the d20 of
        `2d20kh1+5`), else every face; a natural 20 is `natural == (20,)`."""
        return self.kept if self.kept is not None else self.faces

    def redacted(self) -> DiceRolled:
        """The roll as someone without the right to see it reads it: that it was rolled, not what."""
        return msgspec.structs.replace(self, faces=(), total=0, kept=None, successes=None, botch=False, modifier=0)


class ResourceSpent(Event, frozen=True):
    """A combatant spent some of a resource (actions, action points, spirit, charges...)."""

    combatant: str
    resource: str
    amount: int


class ResourcesSet(Event, frozen=True):
    """A combatant's spendable resources were set (a new turn or round refills them)."""

    combatant: str
    resources: dict[str, int]


class DamageApplied(Event, frozen=True):
    """Damage landed on a target. `held` damage waits for the end of a simultaneous round."""

    target: str
    amount: int
    location: str | None = None
    kind: str | None = None
    source: str | None = None
    held: bool = False


class ConditionApplied(Event, frozen=True):
    """A condition now affects a combatant, for `duration` rounds or until removed; or, with
    `ends`, until a turn: `bearer_turn` (until the bearer's next turn starts) or `source_turn`
    (until the end of the source's next turn). `armed`: the source's next turn has begun."""

    target: str
    condition: str
    duration: int | None = None
    source: str | None = None
    ends: Literal["bearer_turn", "source_turn"] | None = None
    armed: bool = False


class ConditionRemoved(Event, frozen=True):
    """A condition no longer affects a combatant."""

    target: str
    condition: str
    reason: str = ""


class Moved(Event, frozen=True):
    """A combatant moved to a position (a square, a section, a range band...)."""

    combatant: str
    to: str
    distance: int = 0


class CombatantDefeated(Event, frozen=True):
    """A combatant is out of the fight (unconscious, dead, fled, destroyed...)."""

    combatant: str
    how: str = "defeated"


class EncounterEnded(Event, frozen=True):
    """The encounter is over."""

    outcome: str
    winner: str | None = None


# --- the game master ------------------------------------------------------------------


class GmRuling(Event, frozen=True):
    """A decision the rules leave to the game master, recorded as such."""

    topic: str
    decision: Any = None
    text: str = ""


class GmOverride(Event, frozen=True):
    """The game master overrode an outcome; the events that carry it out follow in this step."""

    reason: str
    subject: str = ""
    value: Any = None


class Note(Event, frozen=True):
    """Free text for the record."""

    text: str
    by: str = "gm"


class Forked(Event, frozen=True):
    """This log is a fork: its lines up to seq `at` are its parent's, byte for byte (digests
    intact), and what follows is played beside the parent. `parent_seq` and `parent_digest`:
    the parent's head (its last seq and digest) when it was forked."""

    at: int
    parent_seq: int
    parent_digest: str


class Contributed(Event, frozen=True):
    """A player's own random contribution to a fair encounter's dice, public from the start:
    the engine's dice come from the game master's seed and every contribution together."""

    by: str
    value: str


class SeedRevealed(Event, frozen=True):
    """The game master's seed and nonce of a fair encounter, revealed: SHA-256 of them is the
    commitment its creation recorded, and with the contributions they give every engine die."""

    seed: int
    nonce: str


class StepSigned(Event, frozen=True):
    """The step's last event: the game master's Ed25519 signature of the digest of the line
    before it (which seals the whole log up to there). `key`: the public key, hex."""

    key: str
    signature: str


class ViewSet(Event, frozen=True):
    """What the players' view shows (the game master's screen shows everything): a side's or
    a combatant's health as `exact`, `level` (healthy, injured, bloodied, critical, down) or
    `hidden`; or a combatant `hidden` from the players (True) or shown again (False), with
    `reveal="act"` when its own next action shows it again."""

    side: str | None = None
    hp: str | None = None
    combatant: str | None = None
    hidden: bool | None = None
    reveal: str | None = None  # added later: "act" (revealed by its own action), or None (by the game master)
    odds: bool | None = None  # added later: the players see the odds from this moment (True) or not


class SeatSet(Event, frozen=True):
    """A player's seat at the table: the combatants that player commands from a link of their
    own. `generation` counts the seat's links (a new link ends the old); `revoked` closes it."""

    seat: str
    name: str = ""
    combatants: tuple[str, ...] = ()
    generation: int = 1
    revoked: bool = False


class SeatingSet(Event, frozen=True):
    """How the table takes the seats' commands: at once (`now`) or as requests the game master
    accepts (`queue`), and whether a seat may undo its own latest step."""

    commands: str = "now"
    undo: bool = False


# --- the registry and the one union ---------------------------------------------------

_CORE: tuple[type[Event], ...] = (
    CommandIssued,
    StepUndone,
    StepRedone,
    EncounterCreated,
    CombatantAdded,
    CombatantRemoved,
    SurpriseDetermined,
    InitiativeRolled,
    OrderSet,
    RoundStarted,
    PassStarted,
    HeldDamageReleased,
    RoundEnded,
    TurnStarted,
    TurnEnded,
    ActionDeclared,
    ResolutionStarted,
    ActionResolved,
    DiceRolled,
    ResourceSpent,
    ResourcesSet,
    DamageApplied,
    ConditionApplied,
    ConditionRemoved,
    Moved,
    CombatantDefeated,
    EncounterEnded,
    GmRuling,
    GmOverride,
    Note,
    ViewSet,
    StepSigned,
    SeatSet,
    SeatingSet,
    Forked,
    StepAmended,
    Contributed,
    SeedRevealed,
)

_registered: list[type[Event]] = list(_CORE)
_generation = 0
_union_cache: tuple[int, Any] | None = None


def register_event(cls: type[Event]) -> type[Event]:
    """Add a rule system's event type to the union (usable as a class decorator); returns it.

    Raises ValueError if another type already uses the same tag.
    """
    global _generation
    if cls in _registered:
        return cls
    tag = cls.__struct_config__.tag
    for other in _registered:
        if other.__struct_config__.tag == tag:
            raise ValueError(f"event tag {tag!r} is already taken by {other.__module__}.{other.__qualname__}")
    _registered.append(cls)
    _generation += 1
    return cls


def event_types() -> tuple[type[Event], ...]:
    """Every known event type, core first, then the rule systems' in registration order."""
    return tuple(_registered)


def generation() -> int:
    """A counter that changes whenever the union changes (decoders cache on it)."""
    return _generation


_resolvers: list[Callable[[str], None]] = []
_named: set[str] = set()  # the rule systems the logs read in this process name in their creation


def named(rules: str) -> None:
    """A log read here names rule system `rules` (its EncounterCreated): a resolver may load it."""
    _named.add(rules)


def is_named(rules: str) -> bool:
    """True when a log read in this process named rule system `rules` (see `named`)."""
    return rules in _named


def add_resolver(fn: Callable[[str], None]) -> None:
    """Register `fn(tag)`, called when a log holds an event tag no one registered (it may register it).

    The events layer imports nothing of the project: whoever opens logs installs the resolver
    (`combatlog.replays` imports the rule systems' registry, which adds its own).
    """
    if fn not in _resolvers:
        _resolvers.append(fn)


def resolve(tag: str) -> bool:
    """Ask the resolvers to register the event type `tag`; True if the union grew."""
    before = _generation
    for fn in list(_resolvers):
        fn(tag)
    return _generation != before


def event_union() -> Any:
    """The union of every registered event type (`A | B | ...`), built once per registration."""
    global _union_cache
    if _union_cache is None or _union_cache[0] != _generation:
        _union_cache = (_generation, Union[tuple(_registered)])  # noqa: UP007  (a union built at run time)
    return _union_cache[1]
