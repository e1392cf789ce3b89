"""Folding a stored log: decode its lines and fold them, naming the seq of anything unreadable."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from combatlog.events import CorruptLog, Envelope, EventLog, line_decoder
from combatlog.projections.bulk import fold_lines
from combatlog.projections.fold import FoldError, NeedsHistory, Projection, Snapshot, paused_gc
from combatlog.projections.state import Encounter


def envelopes(log: EventLog, start: int = 1, stop: int | None = None) -> Iterator[Envelope[Any]]:
    """Decode the log's lines from `start` to `stop`; raises CorruptLog naming a line that can't be read."""
    decode = line_decoder()
    seq = start - 1
    for line in log.lines(start, stop):
        seq += 1
        try:
            yield decode(line)
        except Exception as exc:  # msgspec's errors, a missing upcaster
            raise CorruptLog(f"seq {seq}: can't decode the line ({exc})", seq) from None


def decodable_lines(log: EventLog) -> Callable[..., Iterator[bytes]]:
    """The log's `decodable_lines` if it has them (lines that may keep a trailing newline, for
    decoding only), else `lines`."""
    return getattr(log, "decodable_lines", log.lines)


def replay(log: EventLog, stop: int | None = None, start: Projection | Snapshot | None = None) -> Projection:
    """Fold the log (up to `stop`) onto `start`; raises CorruptLog naming the seq at fault."""
    projection = start if isinstance(start, Projection) else Projection(start)
    with paused_gc():
        try:
            fold_lines(
                projection,
                decodable_lines(log)(projection.seq + 1, stop),
                line_decoder(),
                lambda p, envelope: apply_from(log, p, envelope),
            )
        except FoldError as exc:
            raise CorruptLog(str(exc), exc.seq) from None
    return projection


def states_between(log: EventLog, low: int, high: int) -> dict[int, list[Encounter]]:
    """{step: [state before it, state after it]} for every step from `low` to `high`, folded
    again from the log in one pass."""
    projection = Projection()
    out: dict[int, list[Encounter]] = {}
    current: int | None = None
    for envelope in envelopes(log):
        step = envelope.step
        if step != current:
            if current is not None and low <= current <= high:
                out[current][1] = projection.state
            if step > high:
                return out
            if low <= step <= high:
                out[step] = [projection.state, projection.state]
            current = step
        apply_from(log, projection, envelope)
    if current is not None and low <= current <= high:
        out[current][1] = projection.state
    return out


def apply_from(log: EventLog, projection: Projection, envelope: Envelope[Any]) -> None:
    """Fold `envelope`; an undo or redo of a step older than the projection keeps is folded again
    from `log`, with the steps below it up to the projection's window in the same pass, so undoing
    deeper and deeper reads the log once per window of steps, not once per undo."""
    while True:
        try:
            projection.apply(envelope)
            return
        except NeedsHistory as need:
            low = max(1, need.step - projection.window() + 1)
            found = states_between(log, low, need.step)
            if need.step not in found:
                raise CorruptLog(f"step {need.step} is not in the log", envelope.seq) from None
            for step in sorted(found, reverse=True):  # the needed step last in, so first to stay
                if step not in projection.history:
                    projection.remember(step, found[step], spare=need.step)
