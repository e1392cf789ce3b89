"""Typed models for rule systems: stats, weapons and options as `msgspec.Struct`s, validated
once at the edge with `msgspec.convert`.

A rule system declares `stats_type` and `options_type` (frozen Structs with constraints,
`Annotated[int, Meta(ge=1)]`); a dice expression is typed `DiceExpr`, parsed when the
combatant is added so a bad one is refused then, never mid-fight. A `ValidationError`
becomes a `Refused` naming who and the path: `combatant g2: $.weapons[0].damage: Expected
int, got str`.

The log keeps what the encounter file said (the stats in `CombatantAdded`, the options in
`EncounterCreated`); the fold converts each once, leniently (`lenient`), and keeps the models
on the state: code reads `combatant.stats.hp` and `state.options.grid`, and finds what was
given in `combatant.given_stats` and `state.given_options`.
"""

from __future__ import annotations

import re
import types
import typing
from typing import Any, TypeVar

import msgspec

from combatlog.engine.dice import DiceError, parse
from combatlog.engine.errors import Refused
from combatlog.projections import Encounter

T = TypeVar("T")


class DiceExpr(str):
    """A dice expression (`2d6+1`), checked by the dice parser when the model is converted."""

    __slots__ = ()


def _dec_hook(kind: type, obj: Any) -> Any:
    if kind is DiceExpr:
        if isinstance(obj, bool) or not isinstance(obj, (str, int)):
            raise TypeError(f"Expected a dice expression such as 2d6+1, got {type(obj).__name__}")
        text = str(obj)
        try:
            expr = parse(text)
        except DiceError as exc:
            raise ValueError(str(exc)) from None
        if expr.target is not None and expr.count > 1:
            # a pool counts dice; d20 (which a table's formulas follow) compares the total: a stat
            # typed as one must not silently mean the other
            raise ValueError(
                f"{text!r} counts the dice showing {expr.target} or more here, where d20 gives 1 or 0 "
                f"for the total; a stat takes a total, such as {expr.count}d{expr.sides}"
            )
        return DiceExpr(text)
    raise NotImplementedError(f"no conversion to {kind!r}")


_AT = re.compile(r"^(?P<msg>.*) - at `(?P<path>[^`]*)`$", re.S)


def validation_message(exc: msgspec.ValidationError) -> str:
    """`$.path: message` from a msgspec ValidationError (`Expected int, got str`, backquotes dropped)."""
    text = str(exc)
    m = _AT.match(text)
    if m is None:
        return "$: " + text.replace("`", "")
    return f"{m['path']}: {m['msg'].replace('`', '')}"


def convert(raw: Any, model: type[T], what: str, allowed: str = "") -> T:
    """`raw` as a `model`; raises Refused(`what`, `$.path: why`) when it doesn't fit."""
    try:
        return msgspec.convert(raw, model, strict=True, dec_hook=_dec_hook)
    except msgspec.ValidationError as exc:
        raise Refused(what, validation_message(exc), allowed) from None


def to_plain(value: Any) -> Any:
    """A model as plain JSON values, exactly as the log will read back (sequences as lists)."""
    return msgspec.json.decode(msgspec.json.encode(value, enc_hook=str))


def choices(model: type[msgspec.Struct], field: str) -> tuple[Any, ...] | None:
    """The values a `Literal[...]` field accepts (None: any value of its type)."""
    hint = typing.get_type_hints(model, include_extras=True)[field]
    while typing.get_origin(hint) is typing.Annotated:
        hint = typing.get_args(hint)[0]
    if typing.get_origin(hint) is typing.Literal:
        return typing.get_args(hint)
    args = typing.get_args(hint)
    if type(None) in args and len(args) == 2:  # an optional choice: None or one of a Literal's values
        (inner,) = [a for a in args if a is not type(None)]
        if typing.get_origin(inner) is typing.Literal:
            return (None, *typing.get_args(inner))
    if hint is bool:
        return (False, True)
    return None


def description(model: type[msgspec.Struct], field: str) -> str:
    """A field's `Meta(description=...)`, or ''."""
    hint = typing.get_type_hints(model, include_extras=True)[field]
    for part in (hint, *typing.get_args(hint)):  # a union's members may carry it (int | float)
        if typing.get_origin(part) is typing.Annotated:
            for meta in typing.get_args(part)[1:]:
                if isinstance(meta, msgspec.Meta) and meta.description:
                    return meta.description
    return ""


def _known(model: Any, raw: Any) -> Any:
    """`raw` with the keys `model` (a Struct, a sequence of Structs, or an optional one)
    doesn't know left out, at every depth: what a log recorded before a model existed may hold."""
    origin, args = typing.get_origin(model), typing.get_args(model)
    if origin in (tuple, list) and isinstance(raw, list):  # tuple[Weapon, ...]
        return [_known(args[0], x) for x in raw]
    if origin is dict and isinstance(raw, dict):  # dict[str, Card]
        return {k: _known(args[1], v) for k, v in raw.items()}
    if origin in (typing.Union, types.UnionType):  # Weapon | None
        inner = [a for a in args if isinstance(a, type) and issubclass(a, msgspec.Struct)]
        return _known(inner[0], raw) if len(inner) == 1 else raw
    if not (isinstance(model, type) and issubclass(model, msgspec.Struct) and isinstance(raw, dict)):
        return raw
    hints = typing.get_type_hints(model)
    return {k: _known(hints[k], v) for k, v in raw.items() if k in hints}


def lenient(model: type[T]) -> typing.Callable[[Any], T | Any]:
    """A function from what a log recorded (a combatant's stats, an encounter's options) to
    `model`, never raising: what was checked when it was recorded converts as it is; what an
    older release recorded converts with the keys the model doesn't know left out, then
    without each key that doesn't convert (its default taken); what still doesn't convert
    (a required stat missing) is kept as given. The fold makes each model once with it
    (`combatlog.projections.fold.set_rules_models`)."""

    def convert(given: Any) -> T | Any:
        try:
            return msgspec.convert(given, model, strict=False, dec_hook=_dec_hook)
        except msgspec.ValidationError:
            pass
        if not isinstance(given, dict):
            return given
        kept = _known(model, given)
        while True:
            try:
                return msgspec.convert(kept, model, strict=False, dec_hook=_dec_hook)
            except msgspec.ValidationError as exc:
                where = validation_message(exc).split(": ", 1)[0]
                key = where.removeprefix("$.").split("[", 1)[0].split(".", 1)[0]
                if key not in kept:  # a required key missing, or the whole is wrong: kept as given
                    return given
                kept = {k: v for k, v in kept.items() if k != key}

    return convert


__all__ = ["DiceExpr", "choices", "convert", "description", "lenient", "to_plain", "validation_message"]


def put_row(state: Encounter, table: str, key: str, value: Any) -> Encounter:
    """`state` with its rule system's own table `table` (a field of its `State`) holding `value`
    at `key` (None removes the row); copied on write, never mutated."""
    mine = state.extra
    rows = getattr(mine, table)
    if value is None:
        if key not in rows:
            return state
        rows = rows.copy()
        del rows[key]
    else:
        old = rows.get(key)
        if old is not None and old == value and type(old) is type(value):
            return state  # already so: nothing to copy
        rows = rows.copy()
        rows[key] = value
    # the system's state copied and its one table set on the copy, which nothing else holds yet:
    # `replace(mine, **{table: rows})` would build a keyword dict at every call (every fold of
    # a system's own event passes here, in decide and in the replay)
    changed = mine.__copy__()
    _force_setattr(changed, table, rows)
    return _replace(state, extra=changed)


_replace = msgspec.structs.replace
_force_setattr = msgspec.structs.force_setattr
