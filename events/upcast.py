"""Upcasters: chained functions that turn an event's older stored shape into the current one.

`register_upcaster("DamageApplied", 1, fn)` registers `fn(dict) -> dict` taking a version-1
shape to version 2. Decoding an old event runs every upcaster from its stored version up
to the type's current `version`. The stored bytes (and so the digest chain) never change.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]

_upcasters: dict[tuple[str, int], Upcaster] = {}


def register_upcaster(tag: str, from_version: int, fn: Upcaster) -> Upcaster:
    """Register `fn` to take event `tag` from `from_version` to `from_version + 1`; returns fn.

    Raises ValueError if that step already has an upcaster.
    """
    key = (tag, from_version)
    if key in _upcasters:
        raise ValueError(f"{tag} already has an upcaster from version {from_version}")
    _upcasters[key] = fn
    return fn


def upcast(tag: str, version: int, current: int, data: dict[str, Any]) -> dict[str, Any]:
    """Return `data` (a `tag` event stored at `version`) in the shape of version `current`.

    Raises LookupError naming the missing step when the chain has a gap.
    """
    while version < current:
        fn = _upcasters.get((tag, version))
        if fn is None:
            raise LookupError(f"no upcaster for {tag} from version {version} to {version + 1}")
        data = fn(dict(data))
        version += 1
    return data
