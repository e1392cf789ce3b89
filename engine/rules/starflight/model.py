"""Starflight's names and small helpers: conditions, grid directions, the timing options choose."""

from __future__ import annotations

from typing import Any

import msgspec

from combatlog.engine.timing import Timing

replace = msgspec.structs.replace


def timing_of(options: dict[str, Any]) -> Timing:
    """The timing these options choose: turn, simultaneous or mixed, each category overridable."""
    base = options.get("timing", "turn")
    preset = {
        "turn": ("turn",) * 3,
        "simultaneous": ("simultaneous",) * 3,
        "mixed": ("simultaneous", "turn", "simultaneous"),
    }[base]
    per = {}
    for cat, default in zip(("movement", "shooting", "melee"), preset):
        per[cat] = options.get(f"{cat}_timing") or default
    return Timing(default="simultaneous" if base == "simultaneous" else "turn", per_category=per)


NO_RECOVERY = "no recovery"


NEAR_DEATH = "near death"


UNCONSCIOUS = "unconscious"


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:.2f}".rstrip("0")


DIRECTIONS = {1: (0, 1), 2: (1, 1), 3: (1, 0), 4: (1, -1), 5: (0, -1), 6: (-1, -1), 7: (-1, 0), 8: (-1, 1)}


_DIAG = 0.7071067811865476  # one increment along a diagonal, on an abstract grid
