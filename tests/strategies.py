"""Hypothesis strategies for every event type, built from the type annotations."""

from __future__ import annotations

import types
import typing
from typing import Any, Literal

import msgspec
from hypothesis import strategies as st

from combatlog.events import Command, event_types

ids = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_-", min_size=1, max_size=8)
texts = st.text(max_size=12)
ints = st.integers(min_value=-(2**40), max_value=2**40)
json_values = st.recursive(
    st.none() | st.booleans() | ints | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(ids, inner, max_size=3),
    max_leaves=6,
)


def for_type(tp: Any) -> st.SearchStrategy:
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if tp is Any:
        return json_values
    if tp is int:
        return ints
    if tp is str:
        return texts
    if tp is bool:
        return st.booleans()
    if tp is type(None):
        return st.none()
    if origin is Literal:
        return st.sampled_from(args)
    if origin in (typing.Union, types.UnionType):
        return st.one_of(*[for_type(a) for a in args])
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return st.lists(for_type(args[0]), max_size=4).map(tuple)
        return st.tuples(*[for_type(a) for a in args])
    if origin is dict:
        return st.dictionaries(ids, for_type(args[1]), max_size=3)
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        return builds(tp)
    raise NotImplementedError(tp)


def builds(cls: type) -> st.SearchStrategy:
    hints = typing.get_type_hints(cls)
    fields = {f.name: for_type(hints[f.name]) for f in msgspec.structs.fields(cls)}
    return st.builds(cls, **fields)


def any_event() -> st.SearchStrategy:
    return st.one_of(*[builds(cls) for cls in event_types()])


commands = builds(Command)
