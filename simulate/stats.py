"""The numbers of a simulation's report: Wilson intervals and percentiles, computed exactly."""

from __future__ import annotations

import math
from collections.abc import Sequence

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
