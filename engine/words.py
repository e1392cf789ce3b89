"""Words for people: a value as it is typed in an encounter file, a count with its noun, an
article, and a refusal's `N thing(s)` said as a person says it.

Every interface (the command line, the web pages, a simulation's report) tells values through
these, so no Python spelling (`None`, `True`, `['patrol']`, `{'name': ...}`) reaches a reader.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_BARE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+%-]*( [A-Za-z0-9_.+%-]+)*$")


def spoken(value: Any, nothing: str = "none") -> str:
    """`value` as a person types it in an encounter file (TOML) or an `--option`: `true`, `3`,
    `d6`, `turn, simultaneous`, `{name = "Bruised", penalty = 0}`; `nothing` for None and for
    an empty list or table."""
    if value is None:
        return nothing
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return str(value)
    if isinstance(value, Mapping):
        if not value:
            return nothing
        return "{" + ", ".join(f"{k} = {_inline(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=str) if isinstance(value, (set, frozenset)) else list(value)
        if not items:
            return nothing
        if all(isinstance(v, Mapping) for v in items):
            return "[" + ", ".join(spoken(v) for v in items) + "]"
        return ", ".join(spoken(v) for v in items)
    fields = getattr(value, "__struct_fields__", None)
    if fields is not None:  # a msgspec Struct: its fields, as a table
        return spoken({f: getattr(value, f) for f in fields})
    return str(value)


def _inline(value: Any) -> str:
    """A value inside a TOML inline table: text quoted, the rest as `spoken` says it."""
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_inline(v) for v in value) + "]"
    return spoken(value, nothing="{}" if isinstance(value, Mapping) else "none")


def kind_of(value: Any) -> str:
    """What sort of value `value` is, in a person's words: a text, a number, a list ..."""
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a text"
    if isinstance(value, Mapping):
        return "a table"
    if isinstance(value, (list, tuple)):
        return "a list"
    return "something else"


_IRREGULAR = {"die": "dice", "dice": "dice", "entry": "entries", "was": "were", "is": "are", "has": "have"}


def plural(noun: str) -> str:
    """The plural of `noun` (`roll` -> `rolls`, `die` -> `dice`, `entry` -> `entries`)."""
    if noun in _IRREGULAR:
        return _IRREGULAR[noun]
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def counted(n: int, noun: str) -> str:
    """`n` and `noun`, singular for 1 and plural otherwise: `1 roll`, `2 rolls`, `0 findings`."""
    return f"{n:,} {noun if n == 1 else plural(noun)}"


def article(word: str) -> str:
    """`word` with its indefinite article: `a skirmish`, `an infinite-realms`."""
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


_HEDGED = re.compile(r"\b(\d[\d,]*) ((?:[a-z]+ )?)([a-z]+)\(s\)( were| are)?")
_EMPTY = re.compile(r": *(?=;|$)")  # a list that came out empty: `targets: `
_COST = re.compile(
    r"costs (?P<cost>-?\d+ [a-z_]+(?:, -?\d+ [a-z_]+)*) but (?P<left>[a-z_]+ -?\d+(?:, [a-z_]+ -?\d+)*) left"
)
_SHOUTED = {"ap": "AP", "mp": "MP"}
_LISTED = re.compile(r"\b(?P<noun>[a-z]+)\(s\) (?P<items>[\w, -]+)")  # `missing stat(s) hp, ap`
# a value's Python type, as msgspec and a `type(x).__name__` name it: `Expected int, got str`
_TYPE_WORDS = {
    "int": "a whole number",
    "float": "a number",
    "str": "a text",
    "bool": "true or false",
    "array": "a list",
    "list": "a list",
    "tuple": "a list",
    "object": "a table",
    "dict": "a table",
    "null": "nothing",
    "NoneType": "nothing",
}
_TYPED = re.compile(r"\b(Expected|expected|got|not) (" + "|".join(_TYPE_WORDS) + r")\b")
_PATH = re.compile(r"(?<![\w$])\$(?:\.|: )(?=\w|[A-Z])")  # msgspec's `$.hp`, `$: ...`: the field, or nothing
_UNSET = re.compile(r"(use one of )None, ")  # an option's "not set" is no value one can type
_ONE_DIE = re.compile(r"\b1 dice\b")
_FACES = re.compile(r"\b(given|entered): \[([\d, .-]*)\]")  # the faces typed: `3, 4`, not `[3, 4]`


def resource(n: int | str, name: str) -> str:
    """A resource's count as the texts say it: `1 action` (the resource `actions`), `2 AP`."""
    if name in _SHOUTED:
        return f"{n} {_SHOUTED[name]}"
    if str(n) == "1" and name.endswith("s"):
        return f"{n} {name[:-1]}"
    return f"{n} {name}"


def plainly(message: str) -> str:
    """A message as a person would write it: `1 target(s), 0 given` -> `1 target, 0 given`,
    `2 roll(s) were` -> `2 rolls were`, `targets: ` -> `targets: none`, `costs 1 actions but
    actions 0 left` -> `costs 1 action but 0 actions left`, `$.hp: Expected int, got str` ->
    `hp: expected a whole number, got a text`.

    For the words of a refusal the engine decides (they are what its recorded fights hash,
    so they stay as they are); this is where they are shown."""

    def hedged(m: re.Match[str]) -> str:
        n = int(m[1].replace(",", ""))
        verb = m[4] or ""
        if n == 1 and verb:
            verb = " was" if verb == " were" else " is"
        return f"{m[1]} {m[2]}{m[3] if n == 1 else plural(m[3])}{verb}"

    def cost(m: re.Match[str]) -> str:
        costs = [resource(*part.split(" ")) for part in m["cost"].split(", ")]
        left = [resource(*reversed(part.split(" "))) for part in m["left"].split(", ")]
        return f"costs {', '.join(costs)} but {', '.join(left)} left"

    def listed(m: re.Match[str]) -> str:
        n = len([x for x in m["items"].split(",") if x.strip()])
        return f"{m['noun'] if n == 1 else plural(m['noun'])} {m['items']}"

    text = _LISTED.sub(listed, _HEDGED.sub(hedged, message))
    text = _TYPED.sub(lambda m: f"{m[1].lower()} {_TYPE_WORDS[m[2]]}", text)
    text = _PATH.sub("", _UNSET.sub(r"\1", text))
    text = _FACES.sub(r"\1: \2", _ONE_DIE.sub("1 die", text))
    return _EMPTY.sub(": none", _COST.sub(cost, text))


def add_example(state: Any) -> str:
    """An `add` line for `play` and the web's command line that works in `state`: another of its
    first NPC (else its first combatant), with its stats, quoted as the command line reads it
    (`add id=g3 name='Goblin 3' side=goblins kind=npc stats='{"hp": 7}'`); a generic one when
    the encounter has no one yet."""
    import json
    import shlex

    combatants = list(getattr(state, "combatants", {}).values())
    model = next((c for c in combatants if c.kind == "npc"), combatants[0] if combatants else None)
    if model is None:
        return "add id=g1 name='Goblin 1' side=goblins kind=npc stats='{\"hp\": 7}'"
    stem = re.sub(r"\d+$", "", model.id) or model.id
    name_stem = re.sub(r"\s*\d+$", "", model.name) or model.name
    names = {c.name for c in combatants}
    n = next(i for i in range(2, len(combatants) + 3) if f"{stem}{i}" not in state.combatants)
    m = next(i for i in range(2, len(combatants) + 3) if f"{name_stem} {i}" not in names)
    words = {
        "id": f"{stem}{n}",
        "name": f"{name_stem} {m}",
        "side": model.side,
        "kind": model.kind,
        "stats": json.dumps(model.given_stats, separators=(", ", ": ")),
    }
    return "add " + " ".join(f"{k}={shlex.quote(v)}" for k, v in words.items())
