"""The replay cursor: the state of a saved log at any seq, stepping forward and back, diffs.

A cursor folds the log once, keeping a snapshot every `every` events (a snapshot is a
reference to an immutable state, so this costs little). Seeking to a seq restores the
nearest snapshot at or before it and folds at most `every` events from the store, so its
cost doesn't grow with the log's length. No engine and no dice: a replay only folds.
"""

from __future__ import annotations

import bisect
import itertools
from typing import Any

import msgspec

from combatlog.events import CorruptLog, EventLog, line_decoder
from combatlog.projections import Encounter, FoldError, Projection, Snapshot, envelopes, replay
from combatlog.projections.bulk import fold_lines
from combatlog.projections.fold import paused_gc
from combatlog.projections.replay import apply_from, decodable_lines

__all__ = ["Cursor", "diff_states", "envelopes", "replay"]


class Cursor:
    """Seek, step and diff through a saved log."""

    def __init__(self, log: EventLog, every: int = 1024) -> None:
        self.log = log
        self.every = every
        self._snap_seqs: list[int] = [0]
        self._snaps: list[Snapshot] = [Projection().snapshot()]
        projection = Projection()
        decode = line_decoder()
        lines = decodable_lines(log)()
        try:
            with paused_gc():
                while True:  # fold up to the next multiple of `every`, snapshot, go on
                    before = projection.seq
                    fold_lines(
                        projection,
                        itertools.islice(lines, every - before % every),
                        decode,
                        lambda p, envelope: apply_from(log, p, envelope),
                    )
                    if projection.seq == before:
                        break
                    if projection.seq % every == 0:
                        self._snap_seqs.append(projection.seq)
                        self._snaps.append(projection.snapshot())
        except FoldError as exc:
            raise CorruptLog(str(exc), exc.seq) from None
        self.history = projection.history
        self.last = projection.seq
        self.final = projection
        self.position = self.last

    def at(self, seq: int) -> Projection:
        """The projection just after event `seq` (0: before the first); raises ValueError outside the log."""
        if not 0 <= seq <= self.last:
            raise ValueError(f"seq {seq} is outside the log (0 to {self.last})")
        if seq == self.last:
            return self.final
        i = bisect.bisect_right(self._snap_seqs, seq) - 1
        projection = Projection(self._snaps[i], self.history)
        if seq > projection.seq:
            replay(self.log, seq, projection)
        return projection

    def state(self, seq: int | None = None) -> Encounter:
        """The encounter at `seq` (the cursor's position if None)."""
        return self.at(self.position if seq is None else seq).state

    def seek(self, seq: int) -> Projection:
        """Move to `seq`; returns the projection there."""
        projection = self.at(seq)
        self.position = seq
        return projection

    def forward(self, n: int = 1) -> Projection:
        """Move `n` events on (stopping at the end)."""
        return self.seek(min(self.last, self.position + n))

    def back(self, n: int = 1) -> Projection:
        """Move `n` events back (stopping at the start)."""
        return self.seek(max(0, self.position - n))

    def diff(self, a: int, b: int) -> list[str]:
        """What changed between seq `a` and seq `b`, one line per changed field."""
        return diff_states(self.state(a), self.state(b))


def diff_states(a: Encounter, b: Encounter) -> list[str]:
    """One line per field that differs between two states (`path: old -> new`)."""
    out: list[str] = []
    _diff(msgspec.to_builtins(a), msgspec.to_builtins(b), "", out)
    return out


def _diff(x: Any, y: Any, path: str, out: list[str]) -> None:
    if isinstance(x, dict) and isinstance(y, dict):
        for key in list(dict.fromkeys([*x, *y])):
            _diff(x.get(key), y.get(key), f"{path}.{key}" if path else str(key), out)
    elif x != y:
        out.append(f"{path}: {x!r} -> {y!r}")
