"""A form for a combatant's stats, built from the rule system's stat schema (its `stats_type`,
a msgspec Struct): a field per stat with its default, a few rows for a list of records (a
weapon, a card), and the posted form read back into the stats mapping `add` takes, with one
message per bad field. Nothing here decides: the engine checks the combatant as always."""

from __future__ import annotations

import types
import typing
from dataclasses import dataclass, field
from typing import Any, Literal

import msgspec

ROWS = 2  # empty rows offered for a list of records


@dataclass
class Field:
    """One input: `name` is its path in the stats (`weapons.0.name`)."""

    name: str
    label: str
    kind: str  # int, number, text, bool, choice, list (comma-separated words)
    required: bool
    default: str
    choices: tuple[str, ...] = ()
    help: str = ""


@dataclass
class Group:
    """A list of records (a combatant's weapons): a few rows of the record's fields."""

    name: str
    label: str
    rows: list[list[Field]] = field(default_factory=list)


def _unwrap(tp: Any) -> tuple[Any, str, bool]:
    """(the bare type, its description, whether None is allowed)."""
    description = ""
    optional = False
    while True:
        origin = typing.get_origin(tp)
        if origin is typing.Annotated:
            args = typing.get_args(tp)
            for meta in args[1:]:
                if isinstance(meta, msgspec.Meta) and meta.description:
                    description = meta.description
            tp = args[0]
        elif origin in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(tp) if a is not type(None)]
            optional = optional or len(args) < len(typing.get_args(tp))
            if len(args) != 1:
                return str, description, optional
            tp = args[0]
        else:
            return tp, description, optional


def _field(name: str, tp: Any, required: bool, default: Any) -> Field | Group | None:
    bare, description, optional = _unwrap(tp)
    label = name.rsplit(".", 1)[-1].replace("_", " ")
    shown = "" if default is msgspec.NODEFAULT or default is None else str(default)
    origin = typing.get_origin(bare)
    if bare is bool:
        return Field(name, label, "bool", False, shown, help=description)
    if bare is int:
        return Field(name, label, "int", required and not optional, shown, help=description)
    if bare is float:
        return Field(name, label, "number", required and not optional, shown, help=description)
    if origin is Literal:
        choices = tuple(str(c) for c in typing.get_args(bare))
        return Field(name, label, "choice", required and not optional, shown, choices, description)
    if origin in (tuple, list):
        args = [a for a in typing.get_args(bare) if a is not Ellipsis]
        item = _unwrap(args[0])[0] if args else str
        if isinstance(item, type) and issubclass(item, msgspec.Struct):
            group = Group(name, label)
            for row in range(ROWS):
                cells = [_field(f"{name}.{row}.{f.name}", f.type, f.required, f.default) for f in _fields(item)]
                group.rows.append([c for c in cells if isinstance(c, Field)])
            return group
        return Field(name, label, "list", required and not optional, "", help=description or "words, comma-separated")
    if isinstance(bare, type) and issubclass(bare, (str,)):
        return Field(name, label, "text", required and not optional, shown, help=description)
    return None  # a table of its own (a mapping): the encounter file's to give


def _fields(struct: type) -> list[Any]:
    hints = typing.get_type_hints(struct, include_extras=True)
    return [
        msgspec.structs.FieldInfo(f.name, f.encode_name, hints[f.name], f.default, f.default_factory)
        for f in msgspec.structs.fields(struct)
    ]


def form_of(stats_type: type | None) -> list[Field | Group]:
    """The inputs of the add form for `stats_type` (required ones first)."""
    if stats_type is None:
        return []
    out = [_field(f.name, f.type, f.required, f.default) for f in _fields(stats_type)]
    present = [x for x in out if x is not None]
    return sorted(present, key=lambda x: not (isinstance(x, Field) and x.required))


def stats_from(posted: dict[str, str], stats_type: type | None) -> tuple[dict[str, Any], list[str]]:
    """The stats mapping a posted add form gives (`stat.NAME` inputs; an empty one keeps its
    default), and one message per field that can't be read."""
    values: dict[str, Any] = {}
    problems: list[str] = []
    for item in form_of(stats_type):
        if isinstance(item, Group):
            rows = []
            for row in item.rows:
                record: dict[str, Any] = {}
                for f in row:
                    _read(f, posted, record, problems, f.name.rsplit(".", 1)[-1])
                if record:
                    rows.append(record)
            if rows:
                values[item.name] = rows
        else:
            _read(item, posted, values, problems, item.name)
    return values, problems


def _read(f: Field, posted: dict[str, str], into: dict[str, Any], problems: list[str], key: str) -> None:
    raw = posted.get(f"stat.{f.name}", "").strip()
    if f.kind == "bool":
        if raw in ("true", "on"):
            into[key] = True
        return
    if not raw:
        return  # its default; a required one the engine names when it checks the combatant
    if f.kind == "int":
        try:
            into[key] = int(raw)
        except ValueError:
            problems.append(f"{f.name}: a whole number, not {raw[:20]!r}")
    elif f.kind == "number":
        try:
            into[key] = float(raw)
        except ValueError:
            problems.append(f"{f.name}: a number, not {raw[:20]!r}")
    elif f.kind == "choice" and raw not in f.choices:
        problems.append(f"{f.name}: one of {', '.join(f.choices)}, not {raw[:20]!r}")
    elif f.kind == "list":
        into[key] = [w.strip() for w in raw.split(",") if w.strip()]
    else:
        into[key] = raw


def missing(posted_stats: dict[str, Any], stats_type: type | None) -> list[str]:
    """The required stats the form left empty, one message each."""
    return [
        f"{item.name}: required"
        for item in form_of(stats_type)
        if isinstance(item, Field) and item.required and item.name not in posted_stats
    ] + [
        f"{item.name}: give at least one"
        for item in form_of(stats_type)
        if isinstance(item, Group) and _required(stats_type, item.name) and item.name not in posted_stats
    ]


def _required(stats_type: type | None, name: str) -> bool:
    return stats_type is not None and any(f.name == name and f.required for f in msgspec.structs.fields(stats_type))
