"""Checkpoints: a writer's projection kept beside its log, so a long log opens without folding all of it.

A checkpoint is the projection at one seq (state, digest, undo and redo stacks), the exact
bytes of the line at that seq, a few *far marks* (states that steps far back opened on, so
an undo past the checkpoint folds a few hundred steps again, not the whole log), and the
fold's shape (`fold_shape`). The store keeps it beside the log, never in it (an SQLite
table, a PostgreSQL table keyed by encounter, a side file for JSON lines; see
`combatlog.replays.stores`): a store offers `read_checkpoint() -> (seq, bytes) | None` and
`write_checkpoint(seq, bytes)`, and a store without them keeps none.

`open_projection(log)` uses a checkpoint only if it decodes whole (its checksum), was made
by a fold of the same shape, and the log's line at its seq is byte for byte the line it was
bound to; then the lines after it are folded with every check a full load makes. Anything
else (no checkpoint, a stale or damaged one, an error folding the lines after it, a log
that doesn't end where the fold did) is a full load, which reports a torn or tampered log
exactly as it always has. The audit never reads checkpoints.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import msgspec

from combatlog.events import EventLog, LogError
from combatlog.projections.fold import Projection, Snapshot, rules_state_type, typed_state
from combatlog.projections.replay import replay
from combatlog.projections.state import Encounter

# Bump when a fold handler gives another state for the same events (the types' schema, which
# `fold_shape` hashes too, doesn't change then): every checkpoint written before is discarded.
FOLD_VERSION = 2  # 2: stats and options kept typed beside what the log recorded (`given_stats`)

# A checkpoint every EVERY events: opening then folds at most EVERY events (and the last
# step) past the checkpoint, about 6 ms at a replay's 700k events a second, while writing one
# (the state, the undo stack of every live step, the far marks: about 0.5 MB at a million
# events, one fsync) once every 370 steps or so of the benchmark's fight costs under a
# percent of the appends' own time.
EVERY = 4096
# The far marks a checkpoint carries, bounded by combatants summed over their states (as
# Projection.MARK_BUDGET): past it every other one is dropped, so a checkpoint stays small
# whatever the log's length (at a million events, some 250 marks of a fight of six).
FAR_BUDGET = 1 << 14


class FarMark(msgspec.Struct, frozen=True, array_like=True):
    """Step `step` opened at line `seq` on `state`: a fold of the steps after it may start here."""

    step: int
    seq: int
    state: Encounter


class Checkpoint(msgspec.Struct, frozen=True, kw_only=True):
    """A projection kept beside its log, bound to the line at its seq and to the fold's shape."""

    shape: str
    line: bytes
    snapshot: Snapshot
    far: tuple[FarMark, ...] = ()


# a typed model may hold a str subclass (a dice expression): written as its text; on reading,
# each model is made again from what the log recorded (`typed_state`)
_encoder = msgspec.msgpack.Encoder(order="deterministic", enc_hook=str)
_decoder = msgspec.msgpack.Decoder(Checkpoint)
_SUM = 32  # a SHA-256 of the payload ends the bytes: a damaged checkpoint is never read as one


@cache
def _base_shape() -> str:
    try:
        release = version("combatlog")
    except PackageNotFoundError:  # pragma: no cover - run from a folder, not installed
        release = "unknown"
    schema = msgspec.json.encode(msgspec.json.schema(Checkpoint), order="sorted")
    return f"{FOLD_VERSION}:{release}:{hashlib.sha256(schema).hexdigest()}"


@cache
def fold_shape(rules: str | None) -> str:
    """A fingerprint of what a checkpoint of an encounter under `rules` holds: FOLD_VERSION, the
    release, and the schema of the projection's types and of the rule system's own state."""
    parts = [_base_shape()]
    kind = rules_state_type(rules) if rules is not None else None
    if kind is not None:
        parts.append(hashlib.sha256(msgspec.json.encode(msgspec.json.schema(kind), order="sorted")).hexdigest())
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32]


def encode(projection: Projection, line: bytes) -> bytes:
    """The checkpoint of `projection`, standing just after `line` (its last line), as bytes."""
    far = tuple(FarMark(step, seq, state) for step, (seq, state) in sorted(projection.far_marks.items()))
    shape = fold_shape(projection.state.rules)
    checkpoint = Checkpoint(shape=shape, line=line, snapshot=projection.snapshot(), far=far)
    payload = _encoder.encode(checkpoint)
    return payload + hashlib.sha256(payload).digest()


def decode(data: bytes) -> Checkpoint | None:
    """The checkpoint in `data`, or None if it is damaged or was made by a fold of another shape."""
    payload, checksum = data[:-_SUM], data[-_SUM:]
    if len(data) <= _SUM or hashlib.sha256(payload).digest() != checksum:
        return None
    try:
        checkpoint = _decoder.decode(payload)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    if checkpoint.shape != fold_shape(checkpoint.snapshot.state.rules):
        return None
    return checkpoint


def _bound(log: EventLog, checkpoint: Checkpoint, seq: int) -> bool:
    """True if the log's line at `seq` is the checkpoint's, byte for byte (and so its digest)."""
    snapshot = checkpoint.snapshot
    if snapshot.seq != seq or seq < 1 or not checkpoint.line.endswith(f',"digest":"{snapshot.digest}"}}'.encode()):
        return False
    try:
        found = next(iter(log.lines(seq, seq)), None)
    except (LogError, OSError):
        return False
    return found == checkpoint.line


def restored(checkpoint: Checkpoint) -> Projection:
    """A projection standing where `checkpoint` stands, with its far marks (and no undo history:
    an undo of a step before it folds again from the log, from the nearest far mark)."""
    projection = Projection(checkpoint.snapshot)
    projection.far_marks = {m.step: (m.seq, typed_state(m.state)) for m in checkpoint.far}
    return projection


def open_projection(log: EventLog, full: Callable[[EventLog], Projection]) -> tuple[Projection, int]:
    """The projection of the whole log, from its checkpoint if one is good, else `full(log)`;
    returns it and the seq of the checkpoint it started from (0: a full load). Raises what
    `full` raises (CorruptLog naming the seq that can't be read)."""
    read = getattr(log, "read_checkpoint", None)
    kept = None
    try:
        kept = read() if read is not None else None
    except (LogError, OSError):
        kept = None
    if kept is not None:
        seq, data = kept
        checkpoint = decode(data)
        if checkpoint is not None and _bound(log, checkpoint, seq):
            projection = restored(checkpoint)
            try:
                replay(log, None, projection)
                if projection.seq == log.head()[0]:
                    return projection, seq
            except Exception:  # CorruptLog, LogError, anything: the full load says what it is
                pass  # reported by the full load below, exactly as without a checkpoint
    return full(log), 0


def far_marks_of(projection: Projection, every: int = EVERY) -> dict[int, tuple[int, Encounter]]:
    """Far marks taken from a fully folded projection's marks, about `every` events apart."""
    out: dict[int, tuple[int, Encounter]] = {}
    last = -every
    for step, (seq, state) in sorted(projection.marks.items()):
        if seq - last >= every:
            out[step] = (seq, state)
            last = seq
    return out


def add_far_mark(projection: Projection, step: int, seq: int, state: Encounter) -> None:
    """Keep (seq, state) as step `step`'s far mark; past FAR_BUDGET, every other one is dropped."""
    far = projection.far_marks
    far[step] = (seq, state)
    if sum(len(s.combatants) + 1 for _, s in far.values()) > FAR_BUDGET:
        ordered = sorted(far)
        kept = set(ordered[-1::-2])  # the newest stays
        projection.far_marks = {s: far[s] for s in ordered if s in kept}


def write(log: EventLog, projection: Projection, line: bytes) -> bool:
    """Keep `projection` (standing just after `line`) as the log's checkpoint, with a far mark where
    the next step will open; returns False if the store keeps none or couldn't write it (a
    checkpoint is only ever a shortcut: the log is the truth)."""
    keep: Any = getattr(log, "write_checkpoint", None)
    if keep is None:
        return False
    add_far_mark(projection, projection.step + 1, projection.seq + 1, projection.state)
    try:
        keep(projection.seq, encode(projection, line))
    except (LogError, OSError):
        return False
    return True
