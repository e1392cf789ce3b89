"""The bulk fold: a whole stored log decoded and folded in one loop, the replay's hot path.

`fold_lines(projection, lines, decode)` is the same as `projection.apply(decode(line))`
for each line: an event that opens a new step or folds within one, legal in the current
phase, is folded inline with the projection's fields in locals, through a table per phase
(`FastRow`); anything else (undo and redo, creation, an error) goes through
`Projection.apply`, and the table learns the type's row then.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from combatlog.events import catalogue as ev
from combatlog.events.envelope import Envelope
from combatlog.events.log import CorruptLog
from combatlog.projections.fold import (
    FoldError,
    Handler,
    NeedsHistory,
    Projection,
    ValidationError,
    on_fold_registered,
    replace,
    rows_of,
    unchanged,
)

_ISSUED, _CREATED = ev.CommandIssued, ev.EncounterCreated
_UNDO_REDO = ("undo", "redo")


class FastRow(NamedTuple):
    """What folds inline: the phase an event leads to, its fold (None: a no-op), the next phase's
    own table, and the type's current version (an older shape goes the general way)."""

    next_phase: str
    handler: Handler | None
    next_rows: dict[type, Row]
    version: int


# A FastRow as the tables hold it: a plain tuple in FastRow's field order. The loop indexes
# it, and CPython's fast path for indexing serves exact tuples only (a named tuple's costs
# about 2% of a replay).
Row = tuple[str, "Handler | None", dict[type, Any], int]

# phase -> event type -> Row, for event types with a fold other than creation (which checks
# the state it replaces) and undo/redo; filled as types are first folded by apply
_FAST: dict[str, dict[type, Row]] = {}


def rows_in(phase: str) -> dict[type, Row]:
    """What folds inline in `phase`."""
    rows = _FAST.get(phase)
    if rows is None:
        rows = _FAST[phase] = {}
    return rows


_LEARNED: set[type] = set()  # types already in the tables (looked at once, not at every general fold)


def learn(etype: type) -> None:
    """Put `etype` in the tables of every phase it is legal in (once its phases are declared)."""
    if etype in _LEARNED or etype is _CREATED or etype is ev.StepUndone or etype is ev.StepRedone:
        return
    try:
        phases, handler = rows_of(etype)
    except FoldError:
        return
    if handler is None:
        return
    for src, dest in phases.items():
        version: int = etype.version  # type: ignore[attr-defined]  # an event type's
        row = FastRow(dest, None if handler is unchanged else handler, rows_in(dest), version)
        rows_in(src)[etype] = (row.next_phase, row.handler, row.next_rows, row.version)
    if phases:
        _LEARNED.add(etype)


def _forget(etype: type) -> None:
    _LEARNED.discard(etype)
    for rows in _FAST.values():
        rows.pop(etype, None)


on_fold_registered(_forget)


def fold_lines(
    projection: Projection,
    lines: Iterable[bytes],
    decode: Callable[[bytes], Envelope[Any]],
    resolve: Callable[[Projection, Envelope[Any]], None] | None = None,
) -> None:
    """Decode and fold stored lines in order: the same as `apply(decode(line))` for each.

    The bulk path of a replay: an event that opens a new step or folds within one, legal
    in the current phase, is folded here with the projection's fields held in locals;
    anything else (undo and redo, creation, an error) goes through `apply`. A line that
    can't be decoded raises CorruptLog naming its seq. `resolve(self, envelope)` is
    called for an undo or redo reaching a step this projection no longer keeps
    (NeedsHistory); without it, NeedsHistory propagates. However the loop ends, the
    projection stands just after the last event folded.
    """
    self = projection  # the projection's fields are read into locals and written back by _sync
    state, seq, step, open_ = self.state, self.seq, self.step, self._open
    # what folds inline in the current phase (see _FAST); before creation, nothing does:
    # apply checks every event
    table = rows_in(state.phase) if state.rules is not None else {}
    open_step = self._open_step
    last = None  # the last envelope folded here (its digest is the projection's)
    # A line decoder's msgspec decoder, called directly (a Python call less per line);
    # the decoder itself for an old shape or a type the union doesn't hold yet.
    typed = getattr(decode, "typed", None)
    # a FastRow is read by index below (a tuple's index is cheaper than a named field's
    # property on this path): 0 next_phase, 1 handler, 2 next_rows, 3 version
    try:
        for line in lines:
            try:
                if typed is None:
                    envelope = decode(line)
                    via_decoder = True
                else:
                    try:
                        envelope = typed(line)
                        via_decoder = False
                    except ValidationError:
                        envelope = decode(line)
                        via_decoder = True
                        typed = decode.typed  # type: ignore[attr-defined]  # the union may have grown
            except Exception as exc:  # msgspec's errors, a missing upcaster
                raise CorruptLog(f"seq {seq + 1}: can't decode the line ({exc})", seq + 1) from None
            event = envelope.event
            cell = table.get(type(event))
            # the cell holds the type's current version: a line of an older shape that
            # msgspec read as the current one is read again through the upcasting decoder
            # (the general path below), and one that decoder already read is taken as it is
            if cell is not None and envelope.seq == seq + 1 and (envelope.v == cell[3] or via_decoder):
                if envelope.step != step:
                    if envelope.step > step and type(event) is _ISSUED and event.command.kind not in _UNDO_REDO:
                        # a new step opens: as apply and _begin_step do
                        step = envelope.step
                        if open_ is not None and last is not None:  # (see _sync)
                            open_[1] = state
                        open_ = open_step(step, state, seq + 1)
                    else:
                        cell = None
                if cell is not None:
                    handler = cell[1]
                    if handler is not None:
                        try:
                            state = handler(state, event)
                        except KeyError as exc:
                            raise FoldError(str(exc.args[0]), seq + 1) from None
                    if state.phase != cell[0]:  # the table's phase, whatever the handler did
                        state = replace(state, phase=cell[0])
                    table = cell[2]
                    seq += 1
                    last = envelope
                    continue
            if not via_decoder and envelope.v != event.version:
                try:
                    envelope = decode(line)
                except Exception as exc:
                    raise CorruptLog(f"seq {seq + 1}: can't decode the line ({exc})", seq + 1) from None
            # the general path, with the projection brought up to date first, and the
            # locals taken back from it however apply ends (it may open a step and raise)
            self._sync(state, seq, step, open_, last)
            last = None
            try:
                self.apply(envelope)
            except NeedsHistory:
                if resolve is None:
                    raise
                resolve(self, envelope)
            finally:
                state, seq, step, open_ = self.state, self.seq, self.step, self._open
            learn(type(envelope.event))
            table = rows_in(state.phase) if state.rules is not None else {}
    finally:
        self._sync(state, seq, step, open_, last)
