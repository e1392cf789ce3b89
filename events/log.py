"""The EventLog protocol every store implements, and the errors a log can report."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol, runtime_checkable


class LogError(Exception):
    """A log could not be read or written as asked; the message says why, in one line."""


class TornLog(LogError):
    """The last record of a log was cut off mid-write; it is reported and left out."""

    def __init__(self, message: str, seq: int) -> None:
        super().__init__(message)
        self.seq = seq


class CorruptLog(LogError):
    """A record can't be decoded, or the digest chain or sequence breaks, at `seq`."""

    def __init__(self, message: str, seq: int) -> None:
        super().__init__(message)
        self.seq = seq


class ConcurrencyError(LogError):
    """Another writer appended first: the expected next sequence number was taken."""


def someone_else(where: object, expected: int, next_seq: int) -> str:
    """The one line a writer that lost the race reads: who added what, that nothing was applied."""
    if next_seq < expected:
        return (
            f"{where}: the log now ends before seq {expected} (its next is {next_seq}): cut or replaced since "
            "it was read; nothing was applied"
        )
    added = f"seq {expected}" if next_seq - 1 == expected else f"seqs {expected}-{next_seq - 1}"
    return (
        f"{where}: someone else added steps ({added}) since this log was read; "
        "nothing was applied: look at the new state and try again"
    )


@runtime_checkable
class EventLog(Protocol):
    """An append-only store of sealed event lines (see `combatlog.events.envelope`).

    A line is the exact bytes of one envelope; stores keep them verbatim so the digest
    chain survives every copy between stores.
    """

    def append(self, lines: Sequence[bytes], expected_seq: int) -> None:
        """Append one step's lines atomically, the first at `expected_seq`.

        Raises ConcurrencyError when the log's next seq isn't `expected_seq` (nothing is written).
        """
        ...

    def lines(self, start: int = 1, stop: int | None = None) -> Iterator[bytes]:
        """Yield the stored lines with `start <= seq <= stop`, in order, streaming."""
        ...

    def head(self) -> tuple[int, bytes | None]:
        """Return (last seq, last line), or (0, None) for an empty log."""
        ...

    def close(self) -> None:
        """Release the store's resources."""
        ...

    # A store may also offer `decodable_lines(start, stop)`: the same lines, each perhaps
    # still ending in whitespace a JSON decoder skips (a JSON-lines file's newline), for
    # folds that only decode them; `combatlog.projections.replay` uses it when it's there.
