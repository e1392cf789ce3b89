"""Following a log live: its lines as other sessions and processes append them.

A PostgreSQL log is followed through its own subscription (LISTEN/NOTIFY); a file (JSON
lines or SQLite) is looked at again every `poll` seconds, and only whole steps are read.
The waiting reads a clock, but nothing it reads reaches an event: the lines are the log's.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from combatlog.events import GENESIS, CorruptLog, Envelope, EventLog, canonical_bytes, digest_of, line_decoder


def follow_lines(log: EventLog, after_seq: int = 0, poll: float = 0.5, timeout: float | None = None) -> Iterator[bytes]:
    """Yield the lines after `after_seq`, then each line appended later, in order.

    Ends when `timeout` seconds pass with no new line (None: never; stop iterating to stop).
    """
    if poll <= 0:
        raise ValueError(f"poll must be a positive number of seconds, got {poll}")
    subscribe = getattr(log, "subscribe", None)
    if subscribe is not None:
        with subscribe(after_seq=after_seq, timeout=timeout, poll=poll) as lines:
            yield from lines
        return
    refresh = getattr(log, "refresh", None)
    seq = after_seq
    told = None  # the last line yielded
    quiet_since = time.monotonic()
    while True:
        if refresh is not None:
            refresh()
        got = False
        for line in log.lines(seq + 1):
            yield line
            seq += 1
            told = line
            got = True
            quiet_since = time.monotonic()
        if not got:
            replaced_or_cut(log.head(), seq, told, getattr(log, "where", getattr(log, "path", "the log")))
        if timeout is not None and time.monotonic() - quiet_since >= timeout:
            return
        time.sleep(poll if timeout is None else max(0.0, min(poll, timeout - (time.monotonic() - quiet_since))))


def replaced_or_cut(head: tuple[int, bytes | None], seq: int, told: bytes | None, where: object) -> None:
    """Raise CorruptLog if a log whose lines were followed up to `seq` (the last one `told`) now
    ends before it, or with another line there: it was replaced (`demo --force`) or cut back."""
    last, line = head
    if last < seq or (told is not None and last == seq and line != told):
        raise CorruptLog(
            f"{where}: seq {seq} was followed, but the log now ends at seq {last} with other lines "
            "(it was replaced or cut back); follow it again",
            min(last + 1, seq),
        )


def follow_envelopes(
    log: EventLog, after_seq: int = 0, poll: float = 0.5, timeout: float | None = None
) -> Iterator[Envelope[Any]]:
    """`follow_lines`, decoded, each line checked against the digest chain.

    Raises CorruptLog naming the seq of a line that can't be decoded, or that doesn't follow
    the line before it: the log was edited, or replaced by another under the follower (a
    `demo --force` on the same log), whose lines must not be folded onto this one's.
    """
    decode = line_decoder()
    seq = after_seq
    previous: str | None = GENESIS
    if after_seq > 0:
        at = next(iter(log.lines(after_seq, after_seq)), None)
        # a seq not written yet: the first line followed can't be checked against it
        previous = None if at is None else canonical_bytes(at)[1]
    for line in follow_lines(log, after_seq, poll, timeout):
        seq += 1
        try:
            canonical, claimed = canonical_bytes(line)
            envelope = decode(line)
        except Exception as exc:  # no digest member, msgspec's errors, a missing upcaster
            raise CorruptLog(f"seq {seq}: can't decode the line ({exc})", seq) from None
        if previous is not None and digest_of(previous, canonical) != claimed:
            raise CorruptLog(
                f"seq {seq}: the line doesn't follow the one before it (the log was edited, "
                "or replaced by another); follow it again",
                seq,
            )
        previous = claimed
        yield envelope


__all__ = ["follow_envelopes", "follow_lines"]
