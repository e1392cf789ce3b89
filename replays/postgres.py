"""A PostgreSQL store: several processes or hosts writing one encounter, and live subscribers.

URL: `postgresql://[user[:password]@]host[:port]/database[?encounter=NAME&...]`
(`postgres://` is accepted too). `encounter` names the encounter inside the database
(default `default`), so many encounters share one database; every other query
parameter goes to libpq as is (`sslmode=require`, `connect_timeout=3`, ...).
`connect_timeout` defaults to 10 seconds.

All encounters live in one table, created when missing (unless `create=False`):

    combatlog_events (encounter TEXT, seq BIGINT, step BIGINT, line BYTEA,
                      PRIMARY KEY (encounter, seq))

Lines are stored verbatim as bytea, so digests survive every copy. A step is one
transaction: the expected seq is checked inside it and the primary key turns a lost
race between two writers into ConcurrencyError; either way nothing of the step is
written. The same transaction sends `NOTIFY combatlog_events, '<encounter>'`, so
`subscribe()` wakes as soon as another connection's step commits (it also polls, in
case a notification is missed). Reads page through the table by seq, so a long log is
never held in memory and appending while reading is safe.

Nothing here reads the wall clock into an event: timeouts only bound how long a
subscriber waits.
"""

from __future__ import annotations

import contextlib
import logging
import select
from collections import deque
from collections.abc import Iterator, Sequence
from time import monotonic
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import msgspec

try:
    import psycopg
    from psycopg import errors as pg_errors
except ImportError:  # pragma: no cover - exercised only without the extra
    psycopg = None  # type: ignore[assignment]
    pg_errors = None  # type: ignore[assignment]

from combatlog.events import ConcurrencyError, LogError, TornLog
from combatlog.events.envelope import step_of
from combatlog.events.log import someone_else
from combatlog.replays.follow import replaced_or_cut


class _SecondError(logging.Filter):
    """Drops psycopg's "error ignored terminating <Pipeline ...>: pipeline aborted": the
    second error of a step another writer took first (executemany's pipeline, closed after
    the insert failed). The first, a ConcurrencyError, is said in its own one line."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("error ignored terminating")


logging.getLogger("psycopg").addFilter(_SecondError())

TABLE = "combatlog_events"
CHANNEL = "combatlog_events"
DEFAULT_ENCOUNTER = "default"
SCHEMES = ("postgresql", "postgres")
URL_FORM = "postgresql://[user[:password]@]host[:port]/database[?encounter=NAME]"
INSTALL_HINT = "pip install 'combatlog[postgres]'"
MAX_ENCOUNTER = 200  # the name is the NOTIFY payload, which must stay short

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {TABLE} (
    encounter TEXT NOT NULL,
    seq BIGINT NOT NULL,
    step BIGINT NOT NULL,
    line BYTEA NOT NULL,
    PRIMARY KEY (encounter, seq)
)"""
# the schema's version, one row (as SQLite's PRAGMA user_version): a database written by a
# newer combatlog is refused rather than misread; one made before the row existed is version 1
VERSION = 1
META = "combatlog_schema"
META_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {META} (
    singleton BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (singleton),
    version INTEGER NOT NULL
);
INSERT INTO {META} (version) VALUES ({VERSION}) ON CONFLICT (singleton) DO NOTHING"""

# The projection's checkpoint of each encounter, beside its lines (`read_checkpoint`); created
# by the first writer that keeps one.
CHECKPOINTS = "combatlog_checkpoints"
CHECKPOINTS_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {CHECKPOINTS} (
    encounter TEXT PRIMARY KEY,
    seq BIGINT NOT NULL,
    data BYTEA NOT NULL
)"""

# Serializes table creation between processes opening a fresh database at once.
_SCHEMA_LOCK = 0x636C6F67  # "clog"


def _one_line(exc: BaseException) -> str:
    """An exception's message on one line (libpq's messages span several)."""
    text = " ".join(part.strip() for part in str(exc).splitlines() if part.strip())
    return text or type(exc).__name__


def parse_url(url: str) -> tuple[str, str, str]:
    """Split a store URL into (libpq conninfo, encounter name, URL to show in messages).

    The shown URL has the password masked. Raises LogError when the URL isn't one.
    """
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        raise LogError(f"{url.split('@')[-1]}: not a PostgreSQL URL ({exc}); use {URL_FORM}") from None
    shown = url
    if parts.password is not None:
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
        shown = urlunsplit(parts._replace(netloc=netloc))
    try:
        _ = parts.port  # raises ValueError on a port that isn't a number
    except ValueError as exc:
        raise LogError(f"{shown}: not a PostgreSQL URL ({exc}); use {URL_FORM}") from None
    if parts.scheme not in SCHEMES:
        raise LogError(f"{shown}: not a PostgreSQL URL; use {URL_FORM}")
    if parts.fragment:
        raise LogError(f"{shown}: a PostgreSQL URL takes no #fragment; use {URL_FORM}")
    query = parse_qsl(parts.query, keep_blank_values=True)
    names = [value for key, value in query if key == "encounter"]
    if len(names) > 1:
        raise LogError(f"{shown}: `encounter` is given {len(names)} times; give it once")
    encounter = names[0] if names else DEFAULT_ENCOUNTER
    if not encounter or len(encounter) > MAX_ENCOUNTER or "\x00" in encounter:
        raise LogError(
            f"{shown}: the encounter name must be 1 to {MAX_ENCOUNTER} characters without NUL, got {encounter!r}"
        )
    rest = [(key, value) for key, value in query if key != "encounter"]
    if not any(key == "connect_timeout" for key, _ in rest):
        rest.append(("connect_timeout", "10"))
    conninfo = f"postgresql://{parts.netloc}{parts.path}?{urlencode(rest)}"
    return conninfo, encounter, shown


def _connect(conninfo: str, shown: str) -> psycopg.Connection:
    """An autocommit connection, or LogError saying why there is none."""
    if psycopg is None:
        raise LogError(f"{shown}: the PostgreSQL store needs psycopg; {INSTALL_HINT}")
    try:
        return psycopg.connect(conninfo, autocommit=True)
    except psycopg.ProgrammingError as exc:  # libpq refused the URL itself
        raise LogError(f"{shown}: not a usable PostgreSQL URL ({_one_line(exc)}); use {URL_FORM}") from None
    except psycopg.Error as exc:
        raise LogError(f"{shown}: can't connect to the PostgreSQL server ({_one_line(exc)})") from None


class PostgresLog:
    """An EventLog for one encounter in a PostgreSQL table; one transaction per step."""

    BATCH = 2048  # lines fetched per round trip when reading

    def __init__(self, url: str, create: bool = True) -> None:
        self.url = url
        self._conninfo, self.encounter, self.where = parse_url(url)
        self.torn: TornLog | None = None
        self._batching = False  # inside `batch()`
        self.db = _connect(self._conninfo, self.where)
        try:
            exists = self._query_one("SELECT to_regclass(%s) IS NOT NULL", (TABLE,))[0]
            if not exists:
                if not create:
                    raise LogError(f"{self.where}: no such log (the database has no {TABLE} table)")
                with self.db.transaction():
                    self.db.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
                    self.db.execute(SCHEMA)
                    for statement in META_SCHEMA.split(";"):
                        self.db.execute(statement)
            else:
                self._check_version(create)
            if exists and not create and self.head()[0] == 0:
                raise LogError(f"{self.where}: no such log (encounter {self.encounter!r} has no events)")
        except LogError:
            self.db.close()
            raise
        except psycopg.Error as exc:
            self.db.close()
            raise LogError(f"{self.where}: can't use the PostgreSQL database ({_one_line(exc)})") from None

    def _check_version(self, create: bool) -> None:
        """Refuse a database of a newer schema; record the version in one made before the row existed."""
        has_meta = self._query_one("SELECT to_regclass(%s) IS NOT NULL", (META,))[0]
        if has_meta:
            (version,) = self._query_one(f"SELECT COALESCE(MAX(version), 1) FROM {META}", ())
            if version > VERSION:
                raise LogError(
                    f"{self.where}: written by a newer combatlog (schema version {version}; this one reads up to "
                    f"{VERSION}); upgrade combatlog"
                )
        elif create:
            with self.db.transaction():
                self.db.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
                for statement in META_SCHEMA.split(";"):
                    self.db.execute(statement)

    def _query_one(self, sql: str, params: tuple[Any, ...]) -> tuple[Any, ...]:
        try:
            row: tuple[Any, ...] = self.db.execute(sql, params).fetchone()  # type: ignore[assignment]  # aggregates: one row
            return row
        except psycopg.Error as exc:
            raise LogError(f"{self.where}: {_one_line(exc)}") from None

    def append(self, lines: Sequence[bytes], expected_seq: int) -> None:
        rows = []
        for i, line in enumerate(lines):
            try:
                rows.append((self.encounter, expected_seq + i, step_of(line), bytes(line)))
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                raise LogError(
                    f"{self.where}: the line for seq {expected_seq + i} is not a sealed event line ({exc}); "
                    "nothing was appended"
                ) from None
        # inside a batch, the batch's own transaction holds the step (no savepoint per step)
        step = contextlib.nullcontext() if self._batching else self.db.transaction()
        try:
            with step, self.db.cursor() as cur:
                cur.execute(f"SELECT COALESCE(MAX(seq), 0) FROM {TABLE} WHERE encounter = %s", (self.encounter,))
                (last,) = cur.fetchone()  # type: ignore[misc]  # an aggregate: always one row
                if expected_seq != last + 1:
                    raise ConcurrencyError(someone_else(self.where, expected_seq, last + 1))
                if not rows:
                    return
                cur.executemany(f"INSERT INTO {TABLE} (encounter, seq, step, line) VALUES (%s, %s, %s, %s)", rows)
                cur.execute("SELECT pg_notify(%s, %s)", (CHANNEL, self.encounter))
        except pg_errors.UniqueViolation:
            if self._batching:  # the batch's transaction is aborted: it can't be asked for the head
                raise ConcurrencyError(
                    f"{self.where}: expected to write seq {expected_seq}, but another writer took it first"
                ) from None
            last = self.head()[0]
            raise ConcurrencyError(
                f"{self.where}: expected to write seq {expected_seq}, but another writer took it first; "
                f"the log's next seq is {last + 1}"
            ) from None
        except psycopg.Error as exc:
            raise LogError(
                f"{self.where}: appending the step at seq {expected_seq} failed ({_one_line(exc)})"
            ) from None

    def lines(self, start: int = 1, stop: int | None = None) -> Iterator[bytes]:
        # Page by seq: each batch is its own query, so nothing stays open between yields.
        after = max(start, 1) - 1
        while stop is None or after < stop:
            limit = self.BATCH if stop is None else min(self.BATCH, stop - after)
            batch = _fetch_after(self.db, self.encounter, after, limit, self.where)
            for seq, line in batch:
                yield line
                after = seq
            if len(batch) < limit:
                return

    def head(self) -> tuple[int, bytes | None]:
        return _head(self.db, self.encounter, self.where)

    def subscribe(self, after_seq: int | None = None, timeout: float | None = None, poll: float = 1.0) -> Subscription:
        """Follow the log on a connection of its own: iterate to get each line with seq > `after_seq`.

        `after_seq=None` starts at the current head (only lines appended from now on);
        `0` replays the whole log first. Iteration blocks until another writer's step
        commits, and ends when no line arrives for `timeout` seconds (None: never).
        Between notifications it looks again every `poll` seconds. Close it (or use
        `with`) when done. Safe to iterate in another thread than the log's.
        """
        return Subscription(self._conninfo, self.encounter, self.where, after_seq, timeout, poll)

    follow = subscribe

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Make the appends inside one transaction: all of them are written, or none.

        For copying a whole log in (`combatlog export`): a copy that fails halfway leaves
        nothing behind, and never touches what another writer appended.
        """
        if self._batching:
            raise LogError(f"{self.where}: a batch of appends is already open on this connection")
        self._batching = True
        try:
            with self.db.transaction():
                yield
        except psycopg.Error as exc:
            # (a connection lost while committing leaves the outcome unknown: the head tells)
            raise LogError(f"{self.where}: the batch of appends wasn't committed ({_one_line(exc)})") from None
        finally:
            self._batching = False

    def read_checkpoint(self) -> tuple[int, bytes] | None:
        """(seq, bytes) of the checkpoint kept beside this encounter's lines, None if there is none."""
        try:
            with self.db.transaction():
                if not self.db.execute("SELECT to_regclass(%s) IS NOT NULL", (CHECKPOINTS,)).fetchone()[0]:  # type: ignore[index]
                    return None
                row = self.db.execute(
                    f"SELECT seq, data FROM {CHECKPOINTS} WHERE encounter = %s", (self.encounter,)
                ).fetchone()
        except psycopg.Error:
            return None
        return None if row is None else (int(row[0]), bytes(row[1]))

    def write_checkpoint(self, seq: int, data: bytes) -> None:
        """Keep `data` as this encounter's checkpoint at `seq`, replacing the one kept before."""
        try:
            with self.db.transaction():
                if not self.db.execute("SELECT to_regclass(%s) IS NOT NULL", (CHECKPOINTS,)).fetchone()[0]:  # type: ignore[index]
                    self.db.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
                    self.db.execute(CHECKPOINTS_SCHEMA)
                self.db.execute(
                    f"INSERT INTO {CHECKPOINTS} (encounter, seq, data) VALUES (%s, %s, %s) "
                    "ON CONFLICT (encounter) DO UPDATE SET seq = excluded.seq, data = excluded.data",
                    (self.encounter, seq, data),
                )
        except psycopg.Error as exc:
            raise LogError(f"{self.where}: can't keep the checkpoint ({_one_line(exc)})") from None

    def clear(self) -> None:
        """Delete every line of this encounter (and only this one's), and its checkpoint.

        For replacing a whole log on purpose (`combatlog demo --force`) and for taking back
        a failed export's half copy; a session never calls it.
        """
        try:
            with self.db.transaction():
                self.db.execute(f"DELETE FROM {TABLE} WHERE encounter = %s", (self.encounter,))
                if self.db.execute("SELECT to_regclass(%s) IS NOT NULL", (CHECKPOINTS,)).fetchone()[0]:  # type: ignore[index]
                    self.db.execute(f"DELETE FROM {CHECKPOINTS} WHERE encounter = %s", (self.encounter,))
        except psycopg.Error as exc:
            raise LogError(f"{self.where}: can't clear the log ({_one_line(exc)})") from None

    def reopened(self) -> PostgresLog:
        """The same encounter through a connection of its own (a forked process can't share this one's)."""
        return PostgresLog(self.url, create=False)

    def close(self) -> None:
        self.db.close()


def _fetch_after(db: psycopg.Connection, encounter: str, after: int, limit: int, where: str) -> list[tuple[int, bytes]]:
    """Up to `limit` (seq, line) rows with seq > `after`, in order."""
    try:
        with db.cursor(binary=True) as cur:
            cur.execute(
                f"SELECT seq, line FROM {TABLE} WHERE encounter = %s AND seq > %s ORDER BY seq LIMIT %s",
                (encounter, after, limit),
            )
            return [(seq, bytes(line)) for seq, line in cur.fetchall()]
    except psycopg.Error as exc:
        raise LogError(f"{where}: can't read the log ({_one_line(exc)})") from None


def _head(db: psycopg.Connection, encounter: str, where: str) -> tuple[int, bytes | None]:
    """(last seq, last line) of `encounter`, or (0, None)."""
    try:
        row = db.execute(
            f"SELECT seq, line FROM {TABLE} WHERE encounter = %s ORDER BY seq DESC LIMIT 1", (encounter,)
        ).fetchone()
    except psycopg.Error as exc:
        raise LogError(f"{where}: can't read the log ({_one_line(exc)})") from None
    return (0, None) if row is None else (row[0], bytes(row[1]))


class Subscription:
    """Lines appended to one encounter, as they commit; see `PostgresLog.subscribe`."""

    def __init__(
        self, conninfo: str, encounter: str, where: str, after_seq: int | None, timeout: float | None, poll: float
    ) -> None:
        if poll <= 0:
            raise LogError(f"{where}: poll must be a positive number of seconds, got {poll}")
        self.encounter = encounter
        self.where = where
        self.timeout = timeout
        self.poll = poll
        self._buffer: deque[tuple[int, bytes]] = deque()
        self._pending = False
        self._told: bytes | None = None  # the last line handed out
        self.db = _connect(conninfo, where)
        try:
            self.db.add_notify_handler(self._notified)
            self.db.execute(f"LISTEN {CHANNEL}")  # before reading the head, so no step slips between
            if after_seq is None:
                row = self.db.execute(
                    f"SELECT COALESCE(MAX(seq), 0) FROM {TABLE} WHERE encounter = %s", (encounter,)
                ).fetchone()
                after_seq = row[0]  # type: ignore[index]  # an aggregate: always one row
        except psycopg.Error as exc:
            self.db.close()
            raise LogError(f"{where}: can't subscribe ({_one_line(exc)})") from None
        self.seq = after_seq  # the last seq handed out

    def _notified(self, notify: psycopg.Notify) -> None:
        if notify.channel == CHANNEL and notify.payload == self.encounter:
            self._pending = True

    def __iter__(self) -> Iterator[bytes]:
        return self

    def __next__(self) -> bytes:
        deadline = None if self.timeout is None else monotonic() + self.timeout
        while not self._buffer:
            if self.db.closed:
                raise StopIteration
            self._pending = False
            self._buffer.extend(_fetch_after(self.db, self.encounter, self.seq, PostgresLog.BATCH, self.where))
            if self._buffer or self._pending:  # a notification during the fetch: look again
                continue
            # nothing new: but is what was followed still there? (`demo --force` replaces a log)
            replaced_or_cut(_head(self.db, self.encounter, self.where), self.seq, self._told, self.where)
            wait = self.poll
            if deadline is not None:
                remaining = deadline - monotonic()
                if remaining <= 0:
                    raise StopIteration
                wait = min(wait, remaining)
            select.select([self.db.fileno()], [], [], wait)  # woken by a NOTIFY, or looks again after `wait`
        seq, line = self._buffer.popleft()
        self.seq = seq
        self._told = line
        return line

    def close(self) -> None:
        """Stop listening and drop the connection."""
        self.db.close()

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["PostgresLog", "Subscription", "parse_url"]
