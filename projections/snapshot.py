"""Snapshots on disk: a projection's state and stacks as bytes, and back.

A snapshot read back from bytes has no undo history: undoing a step folded before it
raises NeedsHistory, and the caller (the replay cursor) folds that step's state again
from the log.
"""

from __future__ import annotations

import msgspec

from combatlog.projections.fold import Projection, Snapshot

# a typed model may hold a str subclass (a dice expression): written as its text; on reading,
# each model is made again from what the log recorded (`typed_state`)
_encoder = msgspec.msgpack.Encoder(order="deterministic", enc_hook=str)
_decoder = msgspec.msgpack.Decoder(Snapshot)


def dump_snapshot(projection: Projection) -> bytes:
    """The projection's snapshot as MessagePack bytes."""
    return _encoder.encode(projection.snapshot())


def load_snapshot(data: bytes) -> Projection:
    """A projection restored from `dump_snapshot` bytes; raises msgspec.DecodeError if malformed."""
    return Projection(_decoder.decode(data))
