"""Serving the tracker over HTTP so that careless or hostile clients can't lock the table out.

uvicorn's h11 protocol, with a guard shared by every connection of one server:

- a connection that sends nothing for `idle` seconds after it opens is closed (uvicorn's
  own keep-alive timeout only starts after a first response);
- at most `limit` connections are open: when one more arrives, the connection silent the
  longest is closed to make room, so a crowd of idle sockets can't use up the process's
  open files while a player's page waits (pages that have asked for something, a live
  stream among them, are never the ones closed);
- the process's soft limit of open files is raised to its hard limit first, and `limit`
  stays below it by more than one batch of accepts (asyncio accepts up to the listen
  backlog at once, before a connection is looked at: past the open files, it stops
  accepting for a whole second).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, ClassVar

from uvicorn.protocols.http.h11_impl import H11Protocol

IDLE = 10.0  # seconds a new connection may stay silent
BACKLOG = 128  # connections the kernel queues, and asyncio accepts in one go before any is looked at
SPARE_FILES = 2 * BACKLOG  # open files kept beyond the limit: one batch of accepts, logs, the database


def raise_open_files() -> int:
    """Raise this process's soft limit of open files to its hard limit; returns the soft limit now."""
    try:
        import resource
    except ImportError:  # not a POSIX system
        return 1024
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY:
        hard = max(soft, 65536)
    if soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
    return int(soft)


class Guard:
    """The connections of one server, the silent ones in the order they opened."""

    def __init__(self, idle: float, limit: int) -> None:
        self.idle = idle
        self.limit = limit
        self.open = 0
        self.silent: dict[GuardedH11, asyncio.TimerHandle | None] = {}
        self.hushed: set[GuardedH11] = set()  # closed for their silence, not yet lost
        self.closed_silent = 0  # how many silent connections were closed (for tests and benchmarks)

    def opened(self, conn: GuardedH11) -> None:
        self.open += 1
        timer = conn.loop.call_later(self.idle, self.hush, conn) if self.idle > 0 else None
        self.silent[conn] = timer
        while self.open > self.limit and self.silent:
            oldest = next(iter(self.silent))
            self.hush(oldest)
            if oldest is conn:
                break

    def spoke(self, conn: GuardedH11) -> None:
        timer = self.silent.pop(conn, None)
        if timer is not None:
            timer.cancel()

    def lost(self, conn: GuardedH11) -> None:
        self.spoke(conn)
        if conn in self.hushed:
            self.hushed.discard(conn)  # counted out when it was closed
        else:
            self.open -= 1

    def hush(self, conn: GuardedH11) -> None:
        """Close a connection that has said nothing (it counts as gone at once)."""
        if conn in self.silent:
            self.spoke(conn)
            self.closed_silent += 1
            self.open -= 1
            self.hushed.add(conn)
            conn.transport.close()


class GuardedH11(H11Protocol):
    """uvicorn's h11 protocol, reporting to its server's `Guard`."""

    guard: ClassVar[Guard]

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self.guard.opened(self)

    def data_received(self, data: bytes) -> None:
        if self in self.guard.silent:
            self.guard.spoke(self)
        super().data_received(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self.guard.lost(self)
        super().connection_lost(exc)


def guarded_protocol(idle: float = IDLE, limit: int | None = None) -> tuple[type[GuardedH11], Guard]:
    """A protocol class for `uvicorn.Config(http=...)` with a guard of its own, and the guard.
    `limit`: at most this many connections (default: the open files this process may hold,
    less a margin)."""
    if limit is None:
        limit = max(32, raise_open_files() - SPARE_FILES)
    guard = Guard(idle, limit)
    return type("GuardedH11", (GuardedH11,), {"guard": guard}), guard


def config(app: Any, host: str, port: int, idle: float = IDLE, limit: int | None = None, **kwargs: Any) -> Any:
    """A `uvicorn.Config` serving `app` behind the guard."""
    import uvicorn

    protocol, _ = guarded_protocol(idle, limit)
    kwargs.setdefault("backlog", BACKLOG)
    return uvicorn.Config(app, host=host, port=port, http=protocol, timeout_keep_alive=5, **kwargs)
