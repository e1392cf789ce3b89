"""Folding a stored log: decode its lines and fold them, naming the seq of anything unreadable."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from combatlog.events import CorruptLog, Envelope, EventLog, StepRedone, line_decoder
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
    """Fold the log (up to `stop`) onto `start`; raises CorruptLog naming the seq at fault.

    A fresh projection keeps no undo marks (a reader's fold: its memory stays a replay's);
    a session, which undoes, passes its own `Projection()`."""
    projection = start if isinstance(start, Projection) else Projection(start, marks=False)
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


class _Refold(Projection):
    """A fold from a mark (`Projection.marks`) over lines the projection has folded and checked
    before: it keeps every step's (before, after) states and takes an undo or redo from them,
    without the undo and redo stacks (which it doesn't have from a mark)."""

    __slots__ = ()

    def __init__(self, seq: int, step: int, state: Encounter) -> None:
        super().__init__(keep=1 << 30)
        self.state, self.seq, self.step = state, seq - 1, step - 1

    def _meta(self, event: Any, seq: int) -> None:
        before_after = self.history.get(event.step)
        if before_after is None:
            raise NeedsHistory(event.step)  # a step below the mark: folded again from the log's start
        self.state = before_after[1] if type(event) is StepRedone else before_after[0]


def _mark_at_or_below(projection: Projection, below: int) -> tuple[int, tuple[int, Encounter]] | None:
    """The nearest mark at or below step `below`: of the marks every `mark_every` steps (looked for
    a few places down), or of the far marks of the log's checkpoints; None if neither has one."""
    every, marks = projection.mark_every, projection.marks
    found = None
    if every:
        mark = below - below % every
        while mark > 0 and mark not in marks and below - mark < 4 * every:
            mark -= every  # that step was an undo or redo, which opens no mark: the one before
        if mark in marks:
            found = mark
    far = [s for s in projection.far_marks if s <= below and (found is None or s > found)]
    if far:
        step = max(far)
        return step, projection.far_marks[step]
    return None if found is None else (found, marks[found])


def _stop_after(projection: Projection, step: int) -> int | None:
    """The last line of `step` or a little past it: the line before the nearest mark above it
    (None: no mark above, the log's last steps)."""
    every, marks = projection.mark_every, projection.marks
    stops = []
    if every:
        # folded up to the next mark past `step` (the lines of a step end where the next opens)
        after = step - step % every + every
        while after not in marks and after - step <= 4 * every:
            after += every  # (a step opened by an undo or redo has no mark)
        if after in marks:
            stops.append(marks[after][0] - 1)
    stops.extend(seq - 1 for s, (seq, _) in projection.far_marks.items() if s > step)
    return min(stops) if stops else None


def states_from_mark(log: EventLog, projection: Projection, step: int) -> dict[int, list[Encounter]] | None:
    """{step: [state before it, state after it]} for `step` and the steps after the nearest mark
    below it, folded again from that mark (a few times `mark_every` steps at most, or from a far
    mark of the log's checkpoints, a few hundred); None if no mark serves (then the caller folds
    from the log's start)."""
    below = step  # the mark must be at or below this step
    for _ in range(4):
        found = _mark_at_or_below(projection, below)
        if found is None:
            return None
        mark, (seq, state) = found
        stop = _stop_after(projection, step)
        refold = _Refold(seq, mark, state)
        try:
            fold_lines(refold, decodable_lines(log)(seq, stop), line_decoder())
        except NeedsHistory as need:  # an undo in the range of a step below the mark: from a lower mark
            if step in refold.history and refold.step > step:
                pass  # past `step` already: what was asked for is whole
            else:
                below = min(need.step, mark - 1)
                continue
        except (FoldError, CorruptLog):
            return None
        return {s: entry for s, entry in refold.history.items() if mark <= s <= step}
    return None


def apply_from(log: EventLog, projection: Projection, envelope: Envelope[Any]) -> None:
    """Fold `envelope`; an undo or redo of a step older than the projection keeps is folded again
    from `log`: from the nearest mark below it (a few steps), else with the steps below it up to
    the projection's window in one pass from the start, so undoing deeper and deeper costs the
    same at any depth."""
    while True:
        try:
            projection.apply(envelope)
            return
        except NeedsHistory as need:
            with paused_gc():  # a refold builds many short-lived states: no collector pass over them
                found = states_from_mark(log, projection, need.step)
            if found is None or need.step not in found:
                low = max(1, need.step - projection.window() + 1)
                found = states_between(log, low, need.step)
            if need.step not in found:
                raise CorruptLog(f"step {need.step} is not in the log", envelope.seq) from None
            for step in sorted(found, reverse=True):  # the needed step last in, so first to stay
                if step not in projection.history:
                    projection.remember(step, found[step], spare=need.step)
