"""The numbers of a simulation's report: Wilson intervals and percentiles, computed exactly."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

Z95 = 1.959963984540054  # the 97.5th percentile of the standard normal distribution


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval (95% by default) for `successes` out of `n`; (0, 1) when n is 0."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return (low, high)


def percentile(values: Sequence[float], q: float) -> float:
    """The `q`th percentile (0-100) of `values`, linearly interpolated between the closest ranks
    (numpy's default, "linear"); raises ValueError for no values."""
    if not values:
        raise ValueError("no values")
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low = math.floor(rank)
    high = math.ceil(rank)
    if low == high:
        return float(ordered[low])
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def nearest_run(values: Sequence[float], q: float) -> int:
    """The index of the run whose value is nearest the `q`th percentile (the first such run)."""
    target = percentile(values, q)
    return min(range(len(values)), key=lambda i: (abs(values[i] - target), i))


def number(x: float) -> str:
    """A figure of the report as a person reads it: at most one decimal (`17.95` -> `18`,
    `0.5` -> `0.5`), whole numbers without one."""
    return f"{round(x, 1):g}"


def share(p: float) -> str:
    """A share of the fights, with the one decimal the odds are given with unless it is .0:
    `98.5%`, `31%` (so a share and the odds it belongs with read alike)."""
    text = f"{p:.1%}"
    return text.replace(".0%", "%")


def spread(s: Any) -> str:
    """A spread as the report prints it: `6.8 (0/7/26)`, the mean then the 5th, 50th and 95th
    percentiles."""
    return f"{s.mean:.1f} ({number(s.p5)}/{number(s.p50)}/{number(s.p95)})"


def left(c: Any, none: str = "-") -> str:
    """What is left of a combatant's track at the end: `6.8 of 14 (0/6/14)` (the mean of its full
    14, then the percentiles), or `none` with no track."""
    if c.left is None:
        return none
    return f"{c.left.mean:.1f} of {c.most} ({number(c.left.p5)}/{number(c.left.p50)}/{number(c.left.p95)})"
