"""The commands as the engine reads them: one frozen, tagged msgspec Struct per kind.

A command is recorded in the log as `combatlog.events.Command` (kind, actor, action, targets,
params ...), a shape that never changes, so every log ever written still loads. Whatever takes
a command from a person or a program reads it into its Struct here, once, at the edge: the
command grammar of `do` and `play` (`combatlog.engine.grammar`), the web tracker's forms and
`Session.execute`. `read(command)` checks its fields (msgspec, then what msgspec can't say: a
whole number, a dice expression, fields that go together) and raises Refused in one line, in
the words the engine has always used; `decide` dispatches on the Struct's type. `recorded`
is the way back: the Command a session writes to the log for a typed command.

A field is read as the engine has always read the recorded params (`Read`: a name given as a
number is its text, a flag is on only when it is `true`), so each command a log holds is read
into a Struct that decides it as it was decided. Each Struct's docstring is its help (in
`combatlog play`, in the web tracker), and `usage` shows the words the command line takes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import (
    Annotated,
    Any,
    ClassVar,
    Literal,
    NotRequired,
    TypedDict,
    Union,
    get_args,
    get_origin,
    get_type_hints,
)

import msgspec
from msgspec import Meta

from combatlog.engine.dice import DiceError, parse
from combatlog.engine.errors import Refused
from combatlog.engine.fair import contribution_problem, is_commitment
from combatlog.events import Command


class Read:
    """How a field's given value is read before it is checked: as the engine has always read it."""

    def __init__(self, how: Callable[[Any], Any]) -> None:
        self.how = how


def _text(x: Any) -> Any:
    return x if isinstance(x, str) else str(x)


def _optional_text(x: Any) -> Any:
    return x if x is None else _text(x)


def _stripped(x: Any) -> Any:
    return _text(x).strip()


def _on_if_true(x: Any) -> bool:
    return x is True


AS_TEXT = Read(_text)  # any value given is read as its text (a name given as 5 is "5", null "None")
OPTIONAL_TEXT = Read(_optional_text)  # the same, but null is not given
STRIPPED = Read(_stripped)
ON_IF_TRUE = Read(_on_if_true)  # a flag is on when it is true; anything else is off
_NOT_GIVEN: Any = object()

# A side named as given: the handler looks it up among the encounter's sides (whose names are
# text, so a number given is no such side, and the refusal lists the sides there are).
SideName = str | int | float | bool


class TypedCommand(msgspec.Struct, frozen=True, kw_only=True, tag_field="command", omit_defaults=True, gc=False):
    """A command as `decide` takes it. The fields here say how it was given, and are common to all.

    `by`: who gave it (`gm`, `policy`, `seat:ID`); `entered`: physical dice typed in at the
    table, one tuple of faces a roll, and `entered_for` the expression each is for; `amends`
    and `draws`: set on the steps of an amendment only (see `combatlog.events.Command`).
    """

    by: str = "gm"
    entered: tuple[tuple[int, ...], ...] | None = None
    entered_for: tuple[str, ...] | None = None
    amends: int | None = None
    draws: int | None = None

    usage: ClassVar[str] = ""  # the words the command line takes (`play`'s help)
    closed: ClassVar[bool] = False  # a parameter it doesn't take is refused (else it is left out)

    @classmethod
    def read(cls, command: Command) -> TypedCommand:
        """`command` read into this type, its fields checked; raises Refused."""
        fields = _fields_of(cls)
        params = command.params
        if cls.closed:
            unknown = [k for k in params if k not in fields.params]
            if unknown:
                raise cls.unknown(unknown)
        raw: dict[str, Any] = {}
        for name in fields.names:
            if name in fields.params:
                value = params.get(name, _NOT_GIVEN)
                if value is _NOT_GIVEN:
                    continue
            else:
                value = getattr(command, name)
                if value is None:
                    continue
            how = fields.readers.get(name)
            raw[name] = how(value) if how is not None else value
        cls.before(raw, params)
        if command.by != "gm":
            raw["by"] = command.by
        if command.entered is not None:
            raw["entered"] = command.entered
        if command.entered_for is not None:
            raw["entered_for"] = command.entered_for
        if command.amends is not None or command.draws is not None:
            raw["amends"], raw["draws"] = command.amends, command.draws
        try:
            typed: TypedCommand = msgspec.convert(raw, cls)
        except msgspec.ValidationError as exc:
            name = _field_of(str(exc))
            raise cls.refused(name, raw.get(name, _NOT_GIVEN), raw, str(exc).split(" - at `", 1)[0]) from None
        typed = cls.as_given(typed, params)
        typed.check()
        return typed

    @classmethod
    def as_given(cls, typed: TypedCommand, params: dict[str, Any]) -> TypedCommand:
        """`typed` with any field kept exactly as given rather than as msgspec read it."""
        return typed

    @classmethod
    def before(cls, raw: dict[str, Any], params: dict[str, Any]) -> None:
        """Look at the fields as given (`params`: the recorded ones) before they are checked: a
        kind whose checks come in an order of their own, or that ignores a field at times."""

    def check(self) -> None:
        """What msgspec can't check, once the fields are read; raises Refused."""

    @classmethod
    def unknown(cls, names: list[str]) -> Refused:
        """The refusal of parameters a closed kind doesn't take."""
        return Refused(f"{cls.__struct_config__.tag} {sorted(names)[0]}=", "not one of its parameters")

    # a field's refusal that depends on nothing given: its (why, what is allowed)
    refusals: ClassVar[dict[str, tuple[str, ...]]] = {}

    @classmethod
    def refused(cls, name: str, value: Any, raw: dict[str, Any], problem: str) -> Refused:
        """The refusal of field `name` given as `value` (`problem`: msgspec's words for it)."""
        kind = str(cls.__struct_config__.tag)
        if name in cls.refusals:
            return Refused(kind, *cls.refusals[name])
        if name in ("amends", "draws"):
            return Refused(
                f"{kind} in place of step {raw.get('amends')}",
                "an amendment's step names both the step it amends and the step whose draws it takes",
            )
        return Refused(kind, f"{name}: {problem}")


_COMMON: dict[str, Any] = {"by": "gm", "entered": None, "entered_for": None, "amends": None, "draws": None}
_ATTRIBUTES = ("actor", "action", "targets", "params")  # read from the Command itself, not its params


class _Fields:
    """A kind's own fields in order, those read from the params, and how each is read."""

    def __init__(self, cls: type[TypedCommand]) -> None:
        hints = get_type_hints(cls, include_extras=True)
        self.names = [f for f in cls.__struct_fields__ if f not in _COMMON]
        self.params = frozenset(f for f in self.names if f not in _ATTRIBUTES)
        self.readers: dict[str, Callable[[Any], Any]] = {}
        for name in self.names:
            hint = hints[name]
            if get_origin(hint) is Annotated:
                for extra in get_args(hint)[1:]:
                    if isinstance(extra, Read):
                        self.readers[name] = extra.how


_FIELDS: dict[type, _Fields] = {}


def _fields_of(cls: type[TypedCommand]) -> _Fields:
    found = _FIELDS.get(cls)
    if found is None:
        found = _FIELDS[cls] = _Fields(cls)
    return found


_AT = re.compile(r" - at `\$\.([A-Za-z_]\w*)")
_MISSING = re.compile(r"^Object missing required field `(\w+)`$")


def _field_of(message: str) -> str:
    """The field of the command a msgspec ValidationError is about."""
    at = _AT.search(message)
    if at is not None:
        return at.group(1)
    missing = _MISSING.match(message)
    return missing.group(1) if missing is not None else ""


def _shown(value: Any) -> Any:
    return None if value is _NOT_GIVEN else value


# --- set-up -----------------------------------------------------------------------------------


class Create(TypedCommand, frozen=True, tag="create"):
    """Create the encounter under a rule system: its options, its seed and title; or fair dice
    (fair=true, or fair=end to reveal them at the end), which a session commits to."""

    usage: ClassVar[str] = "create rules=NAME [options={...}] [seed=N] [title=TEXT] [fair=true|end]"
    rules: Annotated[str, AS_TEXT] = ""
    options: dict[str, Any] = {}
    seed: int | None = None
    fair: bool | Literal["end"] | None = None  # a session turns it into a commitment to its secret
    commitment: str | None = None  # fair dice: SHA-256 of the game master's seed and nonce
    reveal_at_end: bool = False
    title: Annotated[str, AS_TEXT] = ""

    def check(self) -> None:
        if self.commitment is not None:
            if not is_commitment(self.commitment):
                raise Refused("create", f"commitment {self.commitment[:20]!r} is not 64 lowercase hex digits")
            if self.seed is not None:
                raise Refused("create", "a fair encounter records a commitment, never its seed", "give one of them")
        if self.reveal_at_end and self.commitment is None:
            raise Refused("create", "reveal_at_end is true or false, and only with a commitment")

    @classmethod
    def refused(cls, name: str, value: Any, raw: dict[str, Any], problem: str) -> Refused:
        if name == "seed":
            return Refused("create", f"seed {value!r} is not a whole number", "give an integer seed")
        if name == "fair":
            return Refused(
                f"create: fair={str(value)[:20]!r}", "not a way to commit the dice", "fair=true, or fair=end"
            )
        if name == "commitment":
            return Refused("create", f"commitment {str(value)[:20]!r} is not 64 lowercase hex digits")
        if name == "reveal_at_end":
            return Refused("create", "reveal_at_end is true or false, and only with a commitment")
        if name == "options":
            return Refused("create", f"options is a table of option names and values, not {type(value).__name__}")
        return super().refused(name, value, raw, problem)


def _side_text(x: Any) -> Any:
    return _text(x) if x else ""


def _act_or_none(x: Any) -> Any:
    return "act" if x == "act" else None


class Add(TypedCommand, frozen=True, tag="add", kw_only=True):
    """Add a combatant: its id, name, side, kind (pc or npc), group and stats; hidden=true
    keeps it from the players until it is revealed (reveal=act: its own first action shows it)."""

    usage: ClassVar[str] = "add id=ID side=SIDE [name=NAME] [kind=pc|npc] [group=G] [stats={...}] [hidden=true]"
    id: Annotated[str, AS_TEXT, Meta(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")]
    name: Annotated[str | None, AS_TEXT] = None  # None: its id
    side: Annotated[str, Read(_side_text), Meta(min_length=1)]
    kind: Literal["pc", "npc"] = "npc"
    group: str | None = None
    stats: dict[str, Any] = {}
    hidden: bool | None = None
    reveal: Annotated[Literal["act"] | None, Read(_act_or_none)] = None

    @classmethod
    def refused(cls, name: str, value: Any, raw: dict[str, Any], problem: str) -> Refused:
        cid = raw.get("id", "")
        if name == "id":
            return Refused(
                f"add {cid!r}", "an id is 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit"
            )
        if name == "kind":
            return Refused(f"add {cid}", f"kind {value!r} is neither pc nor npc")
        if name == "side":
            return Refused(f"add {cid}", "a combatant needs a side")
        if name == "stats":
            return Refused(f"add {cid}", f"stats must be a table of names and values, not {type(value).__name__}")
        if name == "hidden":
            return Refused(f"add {cid}: hidden={value!r}", "hidden is true or false")
        if name == "group":
            return Refused(f"add {cid}", f"group {value!r} is not a name", "give group=NAME")
        return super().refused(name, value, raw, problem)


class Remove(TypedCommand, frozen=True, tag="remove"):
    """Take a combatant out of the encounter (it takes no further part), with a reason."""

    usage: ClassVar[str] = "remove ACTOR [reason=TEXT]"
    actor: str | None = None
    reason: Annotated[str, AS_TEXT] = ""


def _sides(x: Any) -> Any:
    return tuple(x) if isinstance(x, str) else x  # as tuple() has always read it


class Surprise(TypedCommand, frozen=True, tag="surprise"):
    """The game master's surprise ruling, before the fight begins: the sides surprised."""

    usage: ClassVar[str] = "surprise SIDE..."
    sides: Annotated[tuple[SideName, ...], Read(_sides)] = ()
    text: Annotated[str, AS_TEXT] = ""
    refusals: ClassVar[dict[str, tuple[str, ...]]] = {
        "sides": ("sides is a list of the sides surprised", "give sides=SIDE,SIDE")
    }


class Begin(TypedCommand, frozen=True, tag="begin"):
    """Roll initiative and start the first round (or the surprise round)."""

    usage: ClassVar[str] = "begin"


# --- the fight --------------------------------------------------------------------------------


class Act(TypedCommand, frozen=True, tag="act"):
    """Declare an action: who acts, the action, its targets, and the action's own parameters
    (the rule system's: weapon=axe, to=gallery)."""

    usage: ClassVar[str] = "act ACTOR ACTION [TARGET...] [KEY=VALUE...]"
    actor: str = ""
    action: str = ""
    targets: tuple[str, ...] = ()
    params: dict[str, Any] = {}

    @classmethod
    def read(cls, command: Command) -> TypedCommand:
        # the Command's own fields, typed as these are: taken as they are (every automatic
        # combatant's step passes here)
        return Act(
            actor=command.actor or "",
            action=command.action or "",
            targets=command.targets,
            params=command.params,
            by=command.by,
            entered=command.entered,
            entered_for=command.entered_for,
            amends=command.amends,
            draws=command.draws,
        )


class EndTurn(TypedCommand, frozen=True, tag="end_turn"):
    """End a turn: the actor's, or every turn being taken when no actor is named (params: the
    rule system's, such as the cards Triptycho discards)."""

    usage: ClassVar[str] = "end_turn [ACTOR] [KEY=VALUE...]"
    actor: str | None = None
    params: dict[str, Any] = {}

    @classmethod
    def read(cls, command: Command) -> TypedCommand:
        return EndTurn(  # as Act's: the Command's own fields, taken as they are
            actor=command.actor,
            params=command.params,
            by=command.by,
            entered=command.entered,
            entered_for=command.entered_for,
            amends=command.amends,
            draws=command.draws,
        )


# --- the game master --------------------------------------------------------------------------


def _topic(x: Any) -> Any:
    return _text(x) if x else ""


class Ruling(TypedCommand, frozen=True, tag="ruling"):
    """Record a game master's ruling: its topic, the decision (any value), and a text."""

    usage: ClassVar[str] = "ruling TOPIC DECISION [text=TEXT]"
    topic: Annotated[str, Read(_topic), Meta(min_length=1)]
    decision: Any = None
    text: Annotated[str, AS_TEXT] = ""
    refusals: ClassVar[dict[str, tuple[str, ...]]] = {
        "topic": ("a ruling needs a topic", "give params topic and decision")
    }


class Note(TypedCommand, frozen=True, tag="note"):
    """Add a note to the log."""

    usage: ClassVar[str] = "note TEXT"
    text: Annotated[str, STRIPPED, Meta(min_length=1)]
    refusals: ClassVar[dict[str, tuple[str, ...]]] = {"text": ("the note is empty",)}


OVERRIDES = ("damage", "condition", "remove_condition", "defeat", "move", "resources")
_WHOLE = int | float | str  # what `int()` may read as a whole number (checked after msgspec's types)


class Damage(TypedDict):
    """Damage (or, with heal, healing) to a combatant: a number, or dice the engine rolls."""

    target: str
    amount: NotRequired[_WHOLE]
    heal: NotRequired[bool]
    location: NotRequired[Any]
    kind: NotRequired[Any]


class Condition(TypedDict):
    """A condition put on a combatant, for a number of rounds or until a turn ends."""

    target: str
    name: Any
    duration: NotRequired[Any]
    ends: NotRequired[Any]
    source: NotRequired[Any]


class RemoveCondition(TypedDict):
    """A condition taken off a combatant."""

    target: str
    name: Any


class Defeat(TypedDict):
    """A combatant defeated by the game master's word."""

    target: str
    how: NotRequired[Any]


class Move(TypedDict):
    """A combatant put somewhere: a section, or x,y on a grid."""

    target: str
    to: Any
    distance: NotRequired[_WHOLE]


class Resources(TypedDict):
    """A combatant's resources set (actions, action points ...)."""

    target: str
    values: dict[str, _WHOLE]


_AtLeastOne = Meta(min_length=1)


class Override(TypedCommand, frozen=True, tag="override"):
    """Override an outcome, with a reason: damage (or healing), a condition put on or taken
    off, a defeat, a move, resources set; each one effect or a list of them.

    The effects are kept as given: `GmOverride` repeats them in the log as the game master gave
    them, so each is the mapping of its fields (checked against its TypedDict)."""

    usage: ClassVar[str] = "override reason=TEXT damage|condition|remove_condition|defeat|move|resources={...}"
    reason: Annotated[str, STRIPPED, Meta(min_length=1)]
    damage: Damage | Annotated[list[Damage], _AtLeastOne] | None = None
    condition: Condition | Annotated[list[Condition], _AtLeastOne] | None = None
    remove_condition: RemoveCondition | Annotated[list[RemoveCondition], _AtLeastOne] | None = None
    defeat: Defeat | Annotated[list[Defeat], _AtLeastOne] | None = None
    move: Move | Annotated[list[Move], _AtLeastOne] | None = None
    resources: Resources | Annotated[list[Resources], _AtLeastOne] | None = None

    def effects(self) -> list[str]:
        """The kinds of effect it has, in the order they are decided."""
        return [key for key in OVERRIDES if getattr(self, key) is not None]

    def each(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """Every effect as (its kind, its fields), in the order they are decided."""
        for key in OVERRIDES:
            given = getattr(self, key)
            if given is not None:
                for one in given if isinstance(given, list) else [given]:
                    yield key, one

    @classmethod
    def as_given(cls, typed: TypedCommand, params: dict[str, Any]) -> TypedCommand:
        # the effects as given, with any fields the engine doesn't read: GmOverride repeats them
        return msgspec.structs.replace(typed, **{k: params[k] for k in OVERRIDES if k in params})

    @classmethod
    def before(cls, raw: dict[str, Any], params: dict[str, Any]) -> None:
        reason = raw.get("reason", "")
        if not reason:
            raise Refused("override", "an override needs a reason", "give params reason")
        effects = [k for k in OVERRIDES if k in params]
        unknown = [k for k in params if k not in OVERRIDES and k != "reason"]
        if unknown or not effects:
            raise Refused(
                "override",
                f"nothing to override{' with ' + ', '.join(unknown) if unknown else ''}",
                "give one of " + ", ".join(OVERRIDES),
            )
        for key in effects:
            if params[key] is None:  # null is no effect left out: it is one of the wrong shape
                check_effect(key, None)

    def check(self) -> None:
        for key, one in self.each():
            check_effect(key, one)

    @classmethod
    def refused(cls, name: str, value: Any, raw: dict[str, Any], problem: str) -> Refused:
        if name in OVERRIDES:  # said as the effect's own check says it, effect by effect
            for key in OVERRIDES:
                given = raw.get(key)
                if key in raw:
                    for one in given if isinstance(given, list) and given else [given]:
                        check_effect(key, one)
        return super().refused(name, value, raw, problem)


# what each effect takes: its fields, and what a value of each must be (as the deciding reads it)
_EFFECT_USAGE = {
    "damage": 'damage={"target": ID, "amount": N or DICE} (heal, location, kind optional; a list for several)',
    "condition": 'condition={"target": ID, "name": NAME} (duration, source, ends optional)',
    "remove_condition": 'remove_condition={"target": ID, "name": NAME}',
    "defeat": 'defeat={"target": ID} (how optional)',
    "move": 'move={"target": ID, "to": PLACE} (distance optional)',
    "resources": 'resources={"target": ID, "values": {"ap": 2}}',
}
_NEEDS = {
    "damage": ("target",),
    "condition": ("target", "name"),
    "remove_condition": ("target", "name"),
    "defeat": ("target",),
    "move": ("target", "to"),
    "resources": ("target", "values"),
}


def whole(x: Any) -> bool:
    """True for what `int()` reads as a whole number the log can hold (not a bool, a list, a table)."""
    if isinstance(x, bool) or not isinstance(x, int | float | str):
        return False
    try:
        return abs(int(x)) < 2**63
    except (ValueError, OverflowError):
        return False


def check_effect(key: str, v: Any) -> None:
    """Refuse, in one line naming the effect and the field, an override's effect of the wrong shape."""
    usage = "give " + _EFFECT_USAGE[key]
    if not isinstance(v, dict):
        raise Refused(f"override {key}", f"a mapping of its fields, not {type(v).__name__}", usage)
    for name in _NEEDS[key]:
        if name not in v:
            raise Refused(f"override {key}", f"{name} is missing", usage)
    if not isinstance(v["target"], str):
        raise Refused(f"override {key}", f"target is a combatant's id, not {type(v['target']).__name__}", usage)
    if "distance" in v and not whole(v["distance"]):
        raise Refused(f"override {key}", f"distance {str(v['distance'])[:20]!r} is not a whole number", usage)
    if "amount" in v and not whole(v["amount"]):
        amount = v["amount"]
        if not isinstance(amount, str):
            raise Refused(f"override {key}", f"amount {str(amount)[:20]!r} is not a whole number", usage)
        try:
            parse(amount)  # a dice expression the engine rolls (or the table's dice are typed for)
        except DiceError as exc:
            raise Refused(f"override {key}", f"amount {amount[:20]!r} is neither a number nor dice ({exc})") from None
    if "heal" in v and not isinstance(v["heal"], bool):
        raise Refused(f"override {key}", "heal is true or false", usage)
    if key == "resources":
        values = v["values"]
        if not isinstance(values, dict) or not all(isinstance(k, str) and whole(x) for k, x in values.items()):
            raise Refused(f"override {key}", "values is a mapping of resource names to whole numbers", usage)


VIEW_USAGE = (
    "give side=SIDE hp=exact|level|hidden, combatant=ID hp=exact|level|hidden, "
    "combatant=ID hidden=true|false (with reveal=act: its own next action shows it), or odds=true|false"
)
_HP_ALIASES = {"levels": "level", "none": "hidden"}


def _hp(x: Any) -> Any:
    return _HP_ALIASES.get(str(x), x)


class View(TypedCommand, frozen=True, tag="view"):
    """What the players' view shows: a side's or a combatant's health (exact, as a level, or
    hidden), a combatant hidden or shown (reveal=act: its own next action shows it), or
    whether the players see the odds."""

    usage: ClassVar[str] = (
        "view side=SIDE|combatant=ID hp=exact|level|hidden | combatant=ID hidden=true|false | odds=true|false"
    )
    closed: ClassVar[bool] = True
    side: SideName | None = None
    hp: Annotated[Literal["exact", "level", "hidden"] | None, Read(_hp)] = None
    combatant: Annotated[str | None, OPTIONAL_TEXT] = None
    hidden: bool | None = None
    reveal: Literal["act"] | None = None
    odds: bool | None = None

    def check(self) -> None:
        side, hp, who, hidden = self.side, self.hp, self.combatant, self.hidden
        if self.odds is not None:
            if side is not None or hp is not None or who is not None or hidden is not None or self.reveal is not None:
                raise Refused("view odds=", "odds is true or false, set on its own", "give odds=true|false")
            return
        if (
            (side is None) == (who is None)
            or (side is not None and (hp is None or hidden is not None))
            or (who is not None and (hp is None) == (hidden is None))
        ):
            raise Refused("view", "say what the players see", VIEW_USAGE)
        if self.reveal is not None and hidden is not True:
            raise Refused(f"view reveal={self.reveal!r}", "reveal=act goes with hidden=true", VIEW_USAGE)

    @classmethod
    def unknown(cls, names: list[str]) -> Refused:
        return Refused(f"view {sorted(names)[0]}=", "not a setting of the players' view", VIEW_USAGE)

    @classmethod
    def refused(cls, name: str, value: Any, raw: dict[str, Any], problem: str) -> Refused:
        if name == "odds":
            return Refused("view odds=", "odds is true or false, set on its own", "give odds=true|false")
        if name == "hp":
            return Refused(f"view hp={value!r}", "not a way to show health", "use exact, level or hidden (none)")
        if name == "hidden":
            return Refused(f"view hidden={value!r}", "hidden is true or false")
        if name == "reveal":
            return Refused(f"view reveal={value!r}", "reveal=act goes with hidden=true", VIEW_USAGE)
        if name == "side":
            return Refused(f"view side={value!r}", "a side is named by its text", VIEW_USAGE)
        return super().refused(name, value, raw, problem)


SEAT_USAGE = "give seat=ID combatants=ID,ID (name=NAME optional; renew=true for a new link; revoke=true to close it)"


def _ids(x: Any) -> Any:
    return [part.strip() for part in x.split(",")] if isinstance(x, str) else x


class Seat(TypedCommand, frozen=True, tag="seat"):
    """A player's seat: the combatants its own link commands, and its name; renew=true makes
    a new link (the old one stops working), revoke=true closes the seat."""

    usage: ClassVar[str] = "seat seat=ID combatants=ID,ID [name=NAME] [renew=true] [revoke=true]"
    closed: ClassVar[bool] = True
    seat: Annotated[str, AS_TEXT, Meta(pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$")]
    name: Annotated[str | None, AS_TEXT] = None  # None: as it was (a new seat: its id)
    combatants: Annotated[tuple[str, ...] | None, Read(_ids)] = None  # None: as they were
    renew: Annotated[bool, ON_IF_TRUE] = False
    revoke: Annotated[bool, ON_IF_TRUE] = False

    @classmethod
    def before(cls, raw: dict[str, Any], params: dict[str, Any]) -> None:
        if raw.get("revoke") is True:  # closing a seat reads nothing else
            for name in ("name", "combatants", "renew"):
                raw.pop(name, None)

    @classmethod
    def unknown(cls, names: list[str]) -> Refused:
        return Refused(f"seat {sorted(names)[0]}=", "not a setting of a seat", SEAT_USAGE)

    @classmethod
    def refused(cls, name: str, value: Any, raw: dict[str, Any], problem: str) -> Refused:
        sid = raw.get("seat", "")
        if name == "seat":
            return Refused(f"seat {sid[:40]!r}", "a seat's id is 1-32 letters, digits, '_' or '-'", SEAT_USAGE)
        if name == "combatants":
            return Refused(f"seat {sid}", "combatants is a list of ids", SEAT_USAGE)
        return super().refused(name, value, raw, problem)


class Seating(TypedCommand, frozen=True, tag="seating"):
    """How the seats' commands are taken: now, or queued for the game master to accept; and
    whether a seat may undo its own latest step."""

    usage: ClassVar[str] = "seating commands=now|queue undo=true|false"
    closed: ClassVar[bool] = True
    commands: Literal["now", "queue"] | None = None  # None: as it was (at first: now)
    undo: bool | None = None  # None: as it was (at first: false)

    @classmethod
    def unknown(cls, names: list[str]) -> Refused:
        return cls.refused("", None, {}, "")

    @classmethod
    def refused(cls, name: str, value: Any, raw: dict[str, Any], problem: str) -> Refused:
        return Refused(
            "seating",
            "say how the seats' commands are taken",
            "give commands=now|queue (a queue waits for the game master) and undo=true|false",
        )


class End(TypedCommand, frozen=True, tag="end"):
    """End the encounter: its outcome, and the winning side if there is one."""

    usage: ClassVar[str] = "end [OUTCOME] [winner=SIDE]"
    outcome: Annotated[str, AS_TEXT] = "ended by the game master"
    winner: SideName | None = None

    @classmethod
    def refused(cls, name: str, value: Any, raw: dict[str, Any], problem: str) -> Refused:
        if name == "winner":
            return Refused(f"end: winner {value!r}", "a side is named by its text", "give winner=SIDE")
        return super().refused(name, value, raw, problem)


# --- fair dice and forks ----------------------------------------------------------------------


class Contribute(TypedCommand, frozen=True, tag="contribute"):
    """A player's own random contribution to a fair encounter's dice, before the fight begins
    (by: the player's seat)."""

    usage: ClassVar[str] = "contribute TEXT"
    value: str = ""

    def check(self) -> None:
        why = contribution_problem(self.value)
        if why is not None:
            raise Refused("contribute", why, "give value=TEXT")

    @classmethod
    def refused(cls, name: str, value: Any, raw: dict[str, Any], problem: str) -> Refused:
        if name == "value":
            return Refused("contribute", str(contribution_problem(value)), "give value=TEXT")
        return super().refused(name, value, raw, problem)


class Reveal(TypedCommand, frozen=True, tag="reveal"):
    """Reveal a fair encounter's seed and nonce once it is over (early=true: before the end);
    the game master's session fills them in from its secret."""

    usage: ClassVar[str] = "reveal [early=true]"
    seed: int | None = None
    nonce: str | None = None
    early: Annotated[bool, ON_IF_TRUE] = False

    @classmethod
    def refused(cls, name: str, value: Any, raw: dict[str, Any], problem: str) -> Refused:
        if name in ("seed", "nonce"):
            return Refused(
                "reveal", "give the seed (a whole number) and the nonce", "the game master's secret file holds them"
            )
        return super().refused(name, value, raw, problem)


FORK_USAGE = "give params at, parent_seq and parent_digest (64 hex digits); `combatlog fork` writes them"


class Fork(TypedCommand, frozen=True, tag="fork"):
    """The record that this log is a fork of another, right after the lines it copied: the seq
    it was forked at, and its parent's head then. `combatlog fork` writes it."""

    usage: ClassVar[str] = "fork at=SEQ parent_seq=SEQ parent_digest=HEX"
    at: int
    parent_seq: int
    parent_digest: Annotated[str, Meta(pattern=r"^[0-9a-f]{64}$")]

    @classmethod
    def refused(cls, name: str, value: Any, raw: dict[str, Any], problem: str) -> Refused:
        if name in ("at", "parent_seq"):
            return Refused("fork", f"{name} is a seq, a whole number, not {str(_shown(value))[:20]!r}", FORK_USAGE)
        if name == "parent_digest":
            return Refused(
                "fork", f"parent_digest {str(_shown(value))[:20]!r} is not 64 lowercase hex digits", FORK_USAGE
            )
        return super().refused(name, value, raw, problem)


# --- undo and redo ----------------------------------------------------------------------------


class Undo(TypedCommand, frozen=True, tag="undo"):
    """Undo the last step: it stays in the log, undone; nothing is erased."""

    usage: ClassVar[str] = "undo"


class Redo(TypedCommand, frozen=True, tag="redo"):
    """Redo the last undone step, with the same events and dice."""

    usage: ClassVar[str] = "redo"


# --- a rule system's own ----------------------------------------------------------------------


class SystemCommand(TypedCommand, frozen=True, tag="system"):
    """A command of the encounter's rule system (its `commands` say what each does)."""

    kind: str  # as the rule system names it
    actor: str | None = None
    action: str | None = None
    targets: tuple[str, ...] = ()
    params: dict[str, Any] = {}

    @classmethod
    def read(cls, command: Command) -> TypedCommand:
        return SystemCommand(
            kind=command.kind,
            actor=command.actor,
            action=command.action,
            targets=tuple(command.targets),
            params=command.params,
            by=command.by,
            entered=command.entered,
            entered_for=command.entered_for,
            amends=command.amends,
            draws=command.draws,
        )


AnyCommand = Union[  # noqa: UP007  # the one union of them all, as `Event` is for the events
    Create,
    Add,
    Remove,
    Surprise,
    Begin,
    Act,
    EndTurn,
    Ruling,
    Override,
    Note,
    View,
    Seat,
    Seating,
    End,
    Contribute,
    Reveal,
    Fork,
    Undo,
    Redo,
    SystemCommand,
]

# every core kind by the word that names it, in the order help lists them (the union's, but
# a rule system's own)
KINDS: dict[str, type[TypedCommand]] = {
    str(cls.__struct_config__.tag): cls for cls in get_args(AnyCommand) if cls is not SystemCommand
}


def kind_of(command: TypedCommand | Command) -> str:
    """The kind the log records for `command`: `act`, `end_turn`, a rule system's `recover`."""
    if isinstance(command, _NAMED):
        return command.kind
    return str(type(command).__struct_config__.tag)


_NAMED = (Command, SystemCommand)  # the two that name their kind in a field


def read(command: Command) -> TypedCommand:
    """`command` (as recorded, or as a caller built it) read into its type, its fields checked
    once: a core kind's Struct, or a SystemCommand for any other kind (the rule system decides
    whether it has one). Raises Refused, one line."""
    return KINDS.get(command.kind, SystemCommand).read(command)


def recorded(command: TypedCommand) -> Command:
    """The Command the log records for `command`: its own fields as params, the given ones only."""
    if isinstance(command, SystemCommand):
        kind, own = command.kind, {}
        attributes = {name: getattr(command, name) for name in _ATTRIBUTES}
    else:
        kind, own = kind_of(command), msgspec.to_builtins(command)
        attributes = {name: getattr(command, name) for name in _ATTRIBUTES if own.pop(name, None) is not None}
        if "params" not in attributes:
            for name in ("command", *_COMMON):
                own.pop(name, None)
            attributes["params"] = msgspec.json.decode(msgspec.json.encode(own))  # as the log reads it: lists
    return Command(
        kind=kind,
        **attributes,
        by=command.by,
        entered=command.entered,
        entered_for=command.entered_for,
        amends=command.amends,
        draws=command.draws,
    )


def checked(command: Command | TypedCommand) -> TypedCommand:
    """`command` typed, its fields checked as `read` checks a recorded one (a typed one through
    the Command the log would record for it, so both are read alike); raises Refused."""
    return read(command if isinstance(command, Command) else recorded(command))


def help_of(kind: type[TypedCommand]) -> str:
    """A kind's help: its docstring's first paragraph, on one line."""
    doc = kind.__doc__ or ""
    return " ".join(doc.strip().split("\n\n", 1)[0].split())


def params_of(kind: type[TypedCommand]) -> list[str]:
    """The parameters (KEY=VALUE on the command line) a core kind takes, in order."""
    return sorted(_fields_of(kind).params, key=list(kind.__struct_fields__).index)
