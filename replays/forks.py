"""Forks: a new log from another's first steps, recorded as such, so a "what if" plays beside the real fight.

    at = step_end(log, 412)             # 412, or LogError: outside the log, or inside a step
    forked = fork(log, open_log("what-if.jsonl"), at=412)

A fork's lines up to `at` are its parent's, byte for byte (digests intact); the step after
them is a `fork` command whose `Forked` event names the seq it forked at and the parent's
head (its last seq and digest) when it was forked. The fork audits clean when its parent's
first lines do: its record re-decides like any step.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import msgspec

from combatlog.engine import Session
from combatlog.engine.session import FROM_ENVIRONMENT, EnvironmentKey
from combatlog.events import Command, CorruptLog, EventLog, Forked, LogError, check_link, line_decoder
from combatlog.events.envelope import GENESIS, canonical_bytes, step_of
from combatlog.replays.stores import append_by_step

__all__ = ["fork", "forked_from", "step_end"]


def _step(line: bytes, seq: int) -> int:
    try:
        return step_of(line)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise CorruptLog(f"seq {seq}: can't read the line ({exc})", seq) from None


def _first_step_end(log: EventLog) -> int:
    """The last seq of the log's first step (its creation)."""
    seq = 0
    first = None
    for line in log.lines(1):
        step = _step(line, seq + 1)
        if first is None:
            first = step
        elif step != first:
            break
        seq += 1
    return seq


def _step_start(log: EventLog, seq: int, step: int) -> int:
    """The first seq of `step`, which holds `seq` (looked for backwards, in growing windows)."""
    low, width = seq, 64
    while low > 1:
        start = max(1, low - width)
        lines = list(log.lines(start, low - 1))
        for i in range(len(lines) - 1, -1, -1):
            if _step(lines[i], start + i) != step:
                return start + i + 1
        low, width = start, width * 2
    return 1


def step_end(log: EventLog, at: int | None = None) -> int:
    """`at` checked as a seq where one of the log's steps ends (None: the log's last seq).

    A state that continues (a fork, a simulation from this moment) starts where a whole step
    ends: a seq inside a step is a half-decided command. Raises LogError, one line, for an
    empty log, a seq outside it (naming the range), or one inside a step (naming the step's
    seqs and the seqs on either side that end a step).
    """
    head = log.head()[0]
    if head == 0:
        raise LogError("the log is empty")
    if at is None:
        return head
    if isinstance(at, bool) or not isinstance(at, int) or not 1 <= at <= head:
        first = _first_step_end(log)
        raise LogError(f"seq {at} is outside the log ({first} to {head}, where a step ends)")
    lines = list(log.lines(at, at + 1))
    step = _step(lines[0], at)
    if len(lines) == 1 or _step(lines[1], at + 1) != step:
        return at
    start = _step_start(log, at, step)
    end = at + 1
    for line in log.lines(at + 2):
        if _step(line, end + 1) != step:
            break
        end += 1
    before = f"give {start - 1} (before it) or {end}" if start > 1 else f"give {end}"
    raise LogError(f"seq {at} is inside step {step} (seqs {start} to {end}): {before} (after it), where a step ends")


def fork(
    source: EventLog,
    target: EventLog,
    at: int | None = None,
    signer: Callable[[str], tuple[str, str]] | None | EnvironmentKey = FROM_ENVIRONMENT,
) -> Forked:
    """Write `source`'s lines up to seq `at` (None: all of them) to the empty `target`, byte for
    byte, step by step, then a step recording the fork; returns its `Forked` event.

    Nothing is written to `source`. The target's last step is signed as a Session signs
    (`signer`, by default the key COMBATLOG_SIGNING_KEY names). Raises LogError (`step_end`'s,
    a target that isn't empty, a write that fails) or CorruptLog naming the seq of a copied
    line that isn't one or breaks the digest chain (the steps before it are then in `target`:
    the caller takes them back, as `combatlog fork` does); Refused if the record can't be
    decided (a log recorded under another version of its rules).
    """
    at = step_end(source, at)
    parent_seq, parent_line = source.head()
    if parent_line is None:  # pragma: no cover - step_end refused an empty log
        raise LogError("the log is empty")
    try:
        parent_digest = canonical_bytes(parent_line)[1]
    except ValueError:
        raise CorruptLog(f"seq {parent_seq}: the last line has no digest", parent_seq) from None
    if target.head()[0] != 0:
        raise LogError("the target log is not empty; fork writes only to a new log")

    def checked() -> Iterator[tuple[int, bytes]]:  # each line read, and linked to the one before
        previous = GENESIS.encode("ascii")
        for seq, line in enumerate(source.lines(1, at), 1):
            s = _step(line, seq)
            try:
                claimed, linked = check_link(previous, line)
            except ValueError:
                claimed, linked = b"", False
            if not linked:
                raise CorruptLog(f"seq {seq}: the digest chain breaks here (`combatlog audit` says more)", seq)
            previous = claimed
            yield s, line

    append_by_step(target, checked())
    session = Session(target, signer=signer)
    params = {"at": at, "parent_seq": parent_seq, "parent_digest": parent_digest}
    for envelope in session.execute(Command(kind="fork", params=params)):
        if isinstance(envelope.event, Forked):
            return envelope.event
    raise AssertionError("a fork's step records a Forked event")  # pragma: no cover - decide emits it


def forked_from(log: EventLog) -> Forked | None:
    """The log's latest fork record (where it was forked from), None for a log that was never forked."""
    decode = line_decoder()
    found = None
    for line in log.lines():
        if b'"Forked"' in line:  # a cheap look first: most lines aren't
            event = decode(line).event
            if isinstance(event, Forked):
                found = event
    return found
