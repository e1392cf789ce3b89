"""The replay cursor: the state of a saved log at any seq, stepping forward and back, diffs.

A cursor folds the log once, keeping a snapshot every `every` events (a snapshot is a
reference to an immutable state, so this costs little; the undo stacks of the snapshots
share their common part in chunks, so a long log's snapshots don't each copy a stack of
every step). Seeking to a seq restores the
nearest snapshot at or before it and folds at most `every` events from the store, so its
cost doesn't grow with the log's length. No engine and no dice: a replay only folds.
"""

from __future__ import annotations

import bisect
import itertools
from typing import Any, NamedTuple

import msgspec

from combatlog.events import CorruptLog, EventLog, line_decoder
from combatlog.projections import Encounter, FoldError, Projection, Snapshot, envelopes, replay
from combatlog.projections.bulk import fold_lines
from combatlog.projections.fold import paused_gc
from combatlog.projections.replay import apply_from, decodable_lines

__all__ = ["Cursor", "diff_states", "envelopes", "replay"]


CHUNK = 256  # undo-stack entries in one shared chunk of the cursor's snapshots


class _Mark(NamedTuple):
    """A snapshot as the cursor keeps it: the undo stack as chunks shared with the marks before
    it (an undo stack only grows at its top, so every chunk below its lowest point since the
    last mark is the same), and its last part."""

    state: Encounter
    seq: int
    step: int
    digest: str
    chunks: tuple[tuple[int, ...], ...]
    tail: tuple[int, ...]
    redo: tuple[int, ...]

    def snapshot(self) -> Snapshot:
        undo = tuple(itertools.chain.from_iterable(self.chunks)) + self.tail
        return Snapshot(state=self.state, seq=self.seq, step=self.step, digest=self.digest, undo=undo, redo=self.redo)


def _mark(projection: Projection, before: _Mark | None) -> _Mark:
    """The projection as a mark sharing `before`'s chunks where the undo stack hasn't gone below them."""
    undo = projection.undo
    full = len(undo) // CHUNK
    shared = before.chunks[: min(projection.low // CHUNK, full)] if before is not None else ()
    chunks = shared + tuple(tuple(undo[i * CHUNK : (i + 1) * CHUNK]) for i in range(len(shared), full))
    projection.low = len(undo)
    return _Mark(
        projection.state,
        projection.seq,
        projection.step,
        projection.digest,
        chunks,
        tuple(undo[full * CHUNK :]),
        tuple(projection.redo),
    )


class Cursor:
    """Seek, step and diff through a saved log."""

    def __init__(self, log: EventLog, every: int = 256) -> None:
        self.log = log
        self.every = every
        self._snap_seqs: list[int] = [0]
        projection = Projection()
        self._snaps: list[_Mark] = [_mark(projection, None)]
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
                        self._snaps.append(_mark(projection, self._snaps[-1]))
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
        mark = self._snaps[i]
        # the undo stack made once, straight from the mark's chunks (a Snapshot's tuple and a
        # projection's list of it would copy a long log's stack twice a seek)
        projection = Projection(mark._replace(chunks=(), tail=()).snapshot(), self.history, marks=False)
        projection.undo = list(itertools.chain.from_iterable(mark.chunks))
        projection.undo += mark.tail
        projection.low = len(projection.undo)
        # the whole log's marks, shared: an undo in the seek's range of a step older than the
        # history folds again from a mark, a few steps, never from the log's start
        projection.marks, projection.mark_every = self.final.marks, self.final.mark_every
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
    """One line per field that differs between two states (`path: old -> new`), as recorded
    (stats and options as given: `Encounter.as_recorded`)."""
    out: list[str] = []
    _diff(msgspec.to_builtins(a.as_recorded()), msgspec.to_builtins(b.as_recorded()), "", out)
    return out


def _diff(x: Any, y: Any, path: str, out: list[str]) -> None:
    if isinstance(x, dict) and isinstance(y, dict):
        for key in list(dict.fromkeys([*x, *y])):
            _diff(x.get(key), y.get(key), f"{path}.{key}" if path else str(key), out)
    elif x != y:
        out.append(f"{path}: {x!r} -> {y!r}")
