"""Stores behind the EventLog protocol: memory, JSON lines, SQLite; chosen by path.

- `memory:`: a list in this process (tests, previews).
- `*.jsonl`: one sealed line per event. A step is written with one write, then flushed
  and fsynced before `append` returns. A crash can leave the last step cut short: a last
  line without its newline, or fewer lines than the step's CommandIssued announced. Such
  a torn tail is reported (`torn`, with the seq where it starts) and left out of every
  read; appending refuses until `repair()` moves the torn bytes to `<file>.torn`.
- `*.db`, `*.sqlite`, `*.sqlite3`: SQLite in WAL mode, `synchronous=FULL`, one
  transaction per step; the expected-seq check and the primary key keep two writers from
  interleaving.
- `postgresql://host[:port]/database[?encounter=NAME]` (or `postgres://`): PostgreSQL,
  several processes or hosts writing one encounter, with live subscribers; see
  `combatlog.replays.postgres` (needs psycopg: `pip install 'combatlog[postgres]'`).

Every store keeps lines byte for byte, so copying a log between stores keeps its digests.
"""

from __future__ import annotations

import collections
import itertools
import operator
import os

try:
    import fcntl
except ImportError:  # pragma: no cover - not on POSIX: no lock, the seq check alone
    fcntl = None  # type: ignore[assignment]
import sqlite3
import stat
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO

import msgspec

from combatlog.events import ConcurrencyError, CorruptLog, EventLog, LogError, TornLog
from combatlog.events.envelope import step_of
from combatlog.events.log import someone_else


class _Head(msgspec.Struct):
    seq: int
    step: int
    event: dict[str, Any]


_head_decoder = msgspec.json.Decoder(_Head)
_without_newline = operator.itemgetter(slice(None, -1))  # a stored line without its "\n"


def _line_starts_back(fh: BinaryIO, end: int, floor: int) -> Iterator[int]:
    """Where each line before byte `end` (just past a newline) begins, the last line's first, down
    to `floor` (a line's start): newlines are looked for a MiB at a time, however long a line is."""
    hi = end - 1  # the last line's own newline: its start is past the newline before it
    while hi > floor:
        lo = max(floor, hi - (1 << 20))
        fh.seek(lo)
        chunk = fh.read(hi - lo)
        i = chunk.rfind(b"\n")
        while i >= 0:
            yield lo + i + 1
            i = chunk.rfind(b"\n", 0, i)
        hi = lo
    if end > floor:
        yield floor


class MemoryLog:
    """An EventLog held in a list."""

    def __init__(self) -> None:
        self._lines: list[bytes] = []
        self.torn: TornLog | None = None

    def append(self, lines: Sequence[bytes], expected_seq: int) -> None:
        if expected_seq != len(self._lines) + 1:
            raise ConcurrencyError(someone_else("the log", expected_seq, len(self._lines) + 1))
        self._lines.extend(lines)

    def lines(self, start: int = 1, stop: int | None = None) -> Iterator[bytes]:
        end = len(self._lines) if stop is None else min(stop, len(self._lines))
        for i in range(max(start, 1) - 1, end):
            yield self._lines[i]

    def head(self) -> tuple[int, bytes | None]:
        return (len(self._lines), self._lines[-1] if self._lines else None)

    def close(self) -> None:
        pass


def _a_file_here(path: Path) -> None:
    """Refuse, in one line, a log path that is a folder or lies in a folder that doesn't exist."""
    if path.is_dir():
        raise LogError(f"{path}: a folder, not a log; give a file (*.jsonl, *.db)")
    if not path.parent.is_dir():
        raise LogError(f"{path}: the folder {path.parent} doesn't exist; make it first, or choose another path")


class JsonlLog:
    """An EventLog in a JSON-lines file (flushed and fsynced per step)."""

    def __init__(self, path: str | Path, create: bool = True) -> None:
        self.path = Path(path)
        _a_file_here(self.path)
        if not self.path.exists():
            if not create:
                raise LogError(f"{self.path}: no such log")
            try:
                self.path.touch()
            except OSError as exc:
                raise LogError(f"{self.path}: can't create the log ({exc.strerror})") from None
        self.torn: TornLog | None = None
        self._index: list[int] = []
        self._good_bytes = 0
        self._count = 0
        self._last: bytes | None = None
        self._seen: tuple[int, int, int] | None = None  # (inode, size, mtime) of the file as last scanned
        # (seq, byte offset just past that line), from the checkpoint's side file once its line is
        # found there: reading from the line after it seeks there instead of counting lines
        self._hint: tuple[int, int] | None = None
        try:
            self._scan()
        except OSError as exc:
            raise LogError(f"{self.path}: can't read the log ({exc.strerror})") from None

    def _scan(self) -> None:
        """Count the whole lines (streaming) and check the last step is whole."""
        count = 0
        end = 0  # bytes up to the end of the last complete line
        size = 0
        since = 0  # where this scan began reading: the last step to check lies after it
        with open(self.path, "rb") as fh:
            st = os.fstat(fh.fileno())
            if self._seen is not None and not self._same_prefix(fh, st.st_size):
                self._index = []  # another file now, or this one cut back: the old offsets mean nothing
                self._hint = None
            elif self._seen is not None and st.st_ino == self._seen[0]:
                # the same file, grown: only what was appended since is read (a follower's refresh)
                count, end, size = self._count, self._good_bytes, self._good_bytes
                since = size
            fh.seek(size)
            while True:
                chunk = fh.read(1 << 20)
                if not chunk:
                    break
                n = chunk.count(b"\n")
                if n:
                    count += n
                    end = size + chunk.rfind(b"\n") + 1
                size += len(chunk)
            torn_from = count + 1 if end < size else None
            # The last step must hold as many lines as its CommandIssued announced. Its lines are
            # read back from the last whole one, whatever their sizes, until the step's command
            # (or another step's line: then there is no command to check). A scan that read on
            # from `since` looks no further back than it: the last step begins at or after it.
            last: bytes | None = None
            after = end  # just past the line being looked at
            step = 0
            for have, start in enumerate(_line_starts_back(fh, end, since if end > since else 0), start=1):
                fh.seek(start)
                line = fh.read(after - start - 1)
                after = start
                if last is None:
                    last = line
                try:
                    head = _head_decoder.decode(line)
                except (msgspec.DecodeError, msgspec.ValidationError):
                    break  # not a line: reading it tells where the log is corrupt
                if have == 1:
                    step = head.step
                elif head.step != step:
                    break  # a line of the step before, and no command in the last one
                if head.event.get("type") == "CommandIssued":
                    if have < int(head.event.get("events", 1)):
                        torn_from = head.seq
                        count -= have
                        end = start
                        last = None
                    break
            if last is None and end:
                start = next(_line_starts_back(fh, end, 0))
                fh.seek(start)
                last = fh.read(end - start - 1)
        # (a tail another process is still writing looks torn until its step is whole)
        self.torn = (
            None
            if torn_from is None
            else TornLog(
                f"{self.path}: the last step is torn from seq {torn_from} (a write was cut short); "
                f"it is left out; `repair` moves it to {self.path.name}.torn",
                torn_from,
            )
        )
        self._good_bytes = end
        self._seen = (st.st_ino, size, st.st_mtime_ns)
        self._count = count
        self._last = last

    def _same_prefix(self, fh: BinaryIO, size: int) -> bool:
        """True if the file still begins with what was scanned last: the last whole line is
        where it was (its digest seals every line before it, so the rest is the same too)."""
        if self._last is None:
            return True
        end = self._good_bytes
        if size < end:
            return False
        fh.seek(end - len(self._last) - 1)
        return bool(fh.read(len(self._last) + 1) == self._last + b"\n")

    def refresh(self) -> None:
        """Look at the file again, for whole steps another process has appended since (or a new file in its place)."""
        try:
            st = self.path.stat()
        except FileNotFoundError:  # between a remove and a new file (`demo --force`): nothing new yet
            return
        if (st.st_ino, st.st_size, st.st_mtime_ns) != self._seen:
            try:
                self._scan()
            except FileNotFoundError:
                return

    def append(self, lines: Sequence[bytes], expected_seq: int) -> None:
        payload = b"".join(line + b"\n" for line in lines)
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        except OSError as exc:  # a file the user can't write (or gone since it was read)
            raise LogError(f"{self.path}: can't write to the log ({exc.strerror}); nothing was appended") from None
        try:
            # Checking the expected seq and writing are one act under an exclusive lock: a second
            # writer waits, then sees the first one's step and is refused; nothing of its own is
            # written. (Closing the descriptor releases the lock.)
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            if os.fstat(fd).st_size != self._good_bytes:
                self._scan()  # another process wrote since we looked
            if self.torn is not None:
                raise LogError(str(self.torn) + "; nothing was appended")
            if expected_seq != self._count + 1:
                raise ConcurrencyError(someone_else(self.path, expected_seq, self._count + 1))
            os.write(fd, payload)
            os.fsync(fd)
        finally:
            os.close(fd)
        self._good_bytes += len(payload)
        self._count += len(lines)
        self._last = lines[-1] if lines else self._last

    INDEX_EVERY = 1024

    def lines(self, start: int = 1, stop: int | None = None) -> Iterator[bytes]:
        return self._read(start, stop, _without_newline)

    def decodable_lines(self, start: int = 1, stop: int | None = None) -> Iterator[bytes]:
        """The lines of `lines`, each still ending in its newline (which a JSON decoder skips): a copy less per line."""
        return self._read(start, stop, None)

    def _read(self, start: int, stop: int | None, strip: Callable[[bytes], bytes] | None) -> Iterator[bytes]:
        # A sparse index of byte offsets (the start of every INDEX_EVERY-th line), filled
        # as lines are read, lets a seek start near its seq instead of at the top of the
        # file. The lines are read a block (up to the next index mark) at a time through
        # C iterators, with no Python code per line: the replay's hot path. Only the
        # log's whole steps are read (`_count` lines): a torn tail never is.
        index = self._index
        every = self.INDEX_EVERY
        base = min((start - 1) // every, len(index) - 1) if start > 1 and index else 0
        last = self._count if stop is None else min(stop, self._count)
        if max(start, 1) > last:
            return iter(())
        hint = self._hint
        if hint is not None and base * every < hint[0] < start and hint[0] <= self._count:
            return itertools.chain.from_iterable(self._blocks(hint[0], hint[1], start, last, strip))
        return itertools.chain.from_iterable(
            self._blocks(base * every, index[base] if index else 0, start, last, strip)
        )

    def _blocks(
        self, seq: int, offset: int, start: int, last: int, strip: Callable[[bytes], bytes] | None
    ) -> Iterator[Iterator[bytes]]:
        """From the line after `seq` (at byte `offset`): iterators over lines `start` to `last`, a block at a time."""
        index = self._index
        every = self.INDEX_EVERY
        with open(self.path, "rb", buffering=1 << 17) as fh:
            fh.seek(offset)
            while seq < last:
                if seq == len(index) * every:
                    index.append(fh.tell())  # the start of the line after `seq` lines
                n = min(every - seq % every, last - seq)  # lines up to the next mark, or to the end
                skip = min(max(start - 1 - seq, 0), n)
                if skip:
                    collections.deque(itertools.islice(fh, skip), maxlen=0)
                if skip < n:
                    block = itertools.islice(fh, n - skip)
                    yield block if strip is None else map(strip, block)
                seq += n

    def head(self) -> tuple[int, bytes | None]:
        return (self._count, self._last)

    def repair(self) -> TornLog | None:
        """Move a torn tail to `<file>.torn` and cut the log back to its last whole step; returns what was torn."""
        torn = self.torn
        if torn is None:
            return None
        try:
            fd = os.open(self.path, os.O_RDWR)  # before anything is moved: a log the user can't write stays whole
        except OSError as exc:
            raise LogError(f"{self.path}: can't repair the log ({exc.strerror}); nothing was changed") from None
        with open(fd, "r+b") as log:
            return self._repair(log, torn)

    def _repair(self, log: BinaryIO, torn: TornLog) -> TornLog:
        data = log.read()
        side_path = str(self.path) + ".torn"
        # never through a link planted there (it could point at any file the user can write),
        # and only into a regular file: created if missing, appended to after an earlier repair
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(side_path, flags, 0o600)
        except OSError as exc:
            raise LogError(
                f"{side_path}: can't put the torn tail there ({exc.strerror}); nothing was changed"
            ) from None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise LogError(f"{side_path}: not a regular file; nothing was changed")
            os.write(fd, data[self._good_bytes :])
            os.fsync(fd)
        finally:
            os.close(fd)
        log.truncate(self._good_bytes)
        log.flush()
        os.fsync(log.fileno())
        self.torn = None
        return torn

    @property
    def checkpoint_path(self) -> Path:
        """The side file holding the log's checkpoint (`<file>.checkpoint`)."""
        return Path(str(self.path) + ".checkpoint")

    def read_checkpoint(self) -> tuple[int, bytes] | None:
        """(seq, bytes) of the checkpoint kept beside the log, None if there is none or it isn't one.

        The side file says where its line ends in the log; when the log holds that line there,
        reading the lines after it starts there (a long log's lines aren't counted again)."""
        try:
            with open(self.checkpoint_path, "rb") as fh:
                side = _side_decoder.decode(fh.read())
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            return None
        seq, offset, line = side.seq, side.offset, side.line
        if 0 < seq <= self._count and len(line) < offset <= self._good_bytes:
            try:
                with open(self.path, "rb") as fh:
                    fh.seek(offset - len(line) - 1)
                    if fh.read(len(line) + 1) == line + b"\n":
                        self._hint = (seq, offset)
            except OSError:
                pass
        return seq, side.data

    def write_checkpoint(self, seq: int, data: bytes) -> None:
        """Keep `data` as the checkpoint at `seq` (the log's last line, as this log last wrote or
        read it), replacing the side file atomically: a new file, fsynced, renamed over the old."""
        if seq != self._count or self._last is None:
            return  # another process appended since: the next checkpoint is taken then
        side = _Side(seq=seq, offset=self._good_bytes, line=self._last, data=data)
        target = self.checkpoint_path
        temporary = target.with_name(target.name + ".new")
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(temporary, flags, 0o600)
            try:
                os.write(fd, _side_encoder.encode(side))
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(temporary, target)
        except OSError as exc:
            raise LogError(f"{target}: can't keep the checkpoint ({exc.strerror})") from None

    def close(self) -> None:
        pass


class _Side(msgspec.Struct, array_like=True):
    """A JSON-lines log's checkpoint file: the seq and the end of its line in the log, the line, the checkpoint."""

    seq: int
    offset: int
    line: bytes
    data: bytes


_side_encoder = msgspec.msgpack.Encoder()
_side_decoder = msgspec.msgpack.Decoder(_Side)


class SqliteLog:
    """An EventLog in SQLite: WAL, synchronous=FULL, one transaction per step.

    The table is `combatlog_events` (as in PostgreSQL), with the schema's version in
    `PRAGMA user_version` (1). A log written before the rename (a table `events`, version 0)
    is read as it is, and renamed in place the first time it is opened to write. Opened with
    `read_only`, nothing of the file is ever changed (not even its journal mode), and a log
    in a read-only folder can still be read. A database that isn't a combatlog log (another
    schema, a view named like the table, columns declared otherwise) is refused in one line,
    before anything of it is read. A file the user can't write is read; writing to it is
    refused in one line.
    """

    TABLE = "combatlog_events"
    VERSION = 1
    SCHEMA = f"""
    CREATE TABLE IF NOT EXISTS {TABLE} (
        seq INTEGER PRIMARY KEY,
        step INTEGER NOT NULL,
        line BLOB NOT NULL
    )"""

    def __init__(self, path: str | Path, create: bool = True, read_only: bool = False) -> None:
        self.path = Path(path)
        _a_file_here(self.path)
        if (not create or read_only) and not self.path.exists():
            raise LogError(f"{self.path}: no such log")
        self.read_only = read_only
        self.torn: TornLog | None = None
        self._connect()

    def _connect(self) -> None:
        try:
            if self.read_only:
                self.db = self._read_only()
            else:
                # a log is used by one thread at a time, not always the one that opened it (a
                # web server's event loop; a test between requests): SQLite's serialized mode allows it
                self.db = sqlite3.connect(str(self.path), isolation_level=None, timeout=10, check_same_thread=False)
            self.table = self._table()
            if not self.read_only:
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=FULL")
                if self.table == "events":  # written before the rename: renamed now, once
                    self.db.execute("BEGIN IMMEDIATE")
                    self.db.execute(f"ALTER TABLE events RENAME TO {self.TABLE}")
                    self.db.execute(f"PRAGMA user_version = {self.VERSION}")
                    self.db.execute("COMMIT")
                    self.table = self.TABLE
                elif self.table is None:
                    self.db.execute(self.SCHEMA)
                    self.db.execute(f"PRAGMA user_version = {self.VERSION}")
                    self.table = self.TABLE
            elif self.table is None:  # an empty database: nothing to read
                self.db.close()
                raise LogError(f"{self.path}: no such log (an empty database; `combatlog new` starts one)")
        except sqlite3.DatabaseError as exc:
            if _cant_write(exc):
                raise LogError(f"{self.path}: can't write to the log ({exc}); nothing was changed") from None
            raise LogError(f"{self.path}: not a combatlog SQLite log ({exc})") from None
        self._inode = self.path.stat().st_ino

    def _read_only(self) -> sqlite3.Connection:
        uri = self.path.resolve().as_uri()
        db = sqlite3.connect(f"{uri}?mode=ro", uri=True, isolation_level=None, timeout=10, check_same_thread=False)
        try:
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.OperationalError:  # a WAL log in a folder we can't write: read it as it is
            db.close()
            db = sqlite3.connect(
                f"{uri}?mode=ro&immutable=1", uri=True, isolation_level=None, timeout=10, check_same_thread=False
            )
        return db

    COLUMNS = (("seq", "INTEGER", 1), ("step", "INTEGER", 0), ("line", "BLOB", 0))  # name, declared type, pk

    # the projection's checkpoint, one row beside the log (`read_checkpoint`, `write_checkpoint`)
    CHECKPOINTS = "combatlog_checkpoints"
    CHECKPOINTS_SCHEMA = f"""
    CREATE TABLE IF NOT EXISTS {CHECKPOINTS} (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        seq INTEGER NOT NULL,
        data BLOB NOT NULL
    )"""

    def read_checkpoint(self) -> tuple[int, bytes] | None:
        """(seq, bytes) of the checkpoint kept beside the log, None if there is none."""
        try:
            row = self.db.execute(f"SELECT seq, data FROM {self.CHECKPOINTS} WHERE id = 1").fetchone()
        except sqlite3.Error:  # no table yet (or not ours to read): no checkpoint
            return None
        if row is None or not isinstance(row[0], int) or not isinstance(row[1], bytes):
            return None
        return row[0], row[1]

    def write_checkpoint(self, seq: int, data: bytes) -> None:
        """Keep `data` as the checkpoint at `seq`, in the same database, in one transaction."""
        if self.read_only:
            raise LogError(f"{self.path}: opened to read; nothing is written")
        try:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                self.db.execute(self.CHECKPOINTS_SCHEMA)
                self.db.execute(
                    f"INSERT OR REPLACE INTO {self.CHECKPOINTS} (id, seq, data) VALUES (1, ?, ?)", (seq, data)
                )
                self.db.execute("COMMIT")
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            raise LogError(f"{self.path}: can't keep the checkpoint ({exc})") from None

    def _table(self) -> str | None:
        """The events table this file holds (None: none yet); refuses another program's database.

        Only what sqlite_master and `PRAGMA table_info` say is read (nothing of a view is ever
        run): a view named like the table, or a table whose columns are declared otherwise, is
        refused before a line is read."""
        (version,) = self.db.execute("PRAGMA user_version").fetchone()
        kinds = dict(self.db.execute("SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view')"))
        if version > self.VERSION:
            raise LogError(
                f"{self.path}: written by a newer combatlog (schema version {version}; this one reads up to "
                f"{self.VERSION}); upgrade combatlog"
            )
        for table in (self.TABLE, "events"):
            if table in kinds:
                if kinds[table] != "table":
                    raise LogError(
                        f"{self.path}: not a combatlog SQLite log (its {table} is a {kinds[table]}, not a table)"
                    )
                info = [(row[1], str(row[2]).upper(), row[5]) for row in self.db.execute(f"PRAGMA table_info({table})")]
                if [name for name, _, _ in info] != [name for name, _, _ in self.COLUMNS]:
                    raise LogError(
                        f"{self.path}: not a combatlog SQLite log (its table {table} has columns "
                        f"{', '.join(name for name, _, _ in info) or 'none'}; a log's are seq, step, line)"
                    )
                if info != list(self.COLUMNS):
                    shown = ", ".join(f"{name} {kind or 'untyped'}{' key' if pk else ''}" for name, kind, pk in info)
                    raise LogError(
                        f"{self.path}: not a combatlog SQLite log (its table {table} has columns {shown}; "
                        "a log's are seq INTEGER key, step INTEGER, line BLOB)"
                    )
                return table
        if kinds:
            shown = ", ".join(sorted(kinds)[:5])
            raise LogError(f"{self.path}: not a combatlog SQLite log (it holds {shown}, and no combatlog_events)")
        return None

    def reopened(self) -> SqliteLog:
        """The same log through a connection of its own (a forked process can't share this one's)."""
        return SqliteLog(self.path, create=False, read_only=self.read_only)

    def refresh(self) -> None:
        """Open the database again if another file has taken its path (a follower after `demo --force`)."""
        try:
            inode = self.path.stat().st_ino
        except FileNotFoundError:
            return
        if inode != self._inode:
            self.db.close()
            self._connect()

    def append(self, lines: Sequence[bytes], expected_seq: int) -> None:
        if self.read_only:
            raise LogError(f"{self.path}: opened to read; nothing is written")
        db = self.db
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if _cant_write(exc):
                raise LogError(f"{self.path}: can't write to the log ({exc}); nothing was appended") from None
            raise ConcurrencyError(f"{self.path}: the log is busy ({exc})") from None
        try:
            (last,) = db.execute(f"SELECT COALESCE(MAX(seq), 0) FROM {self.table}").fetchone()
            if expected_seq != last + 1:
                raise ConcurrencyError(someone_else(self.path, expected_seq, last + 1))
            rows = []
            for i, line in enumerate(lines):
                rows.append((expected_seq + i, step_of(line), line))
            db.executemany(f"INSERT INTO {self.table} (seq, step, line) VALUES (?, ?, ?)", rows)
            db.execute("COMMIT")
        except sqlite3.OperationalError as exc:
            db.execute("ROLLBACK")
            if _cant_write(exc):  # a file the user can't write: SQLite opened it to read only
                raise LogError(f"{self.path}: can't write to the log ({exc}); nothing was appended") from None
            raise
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def lines(self, start: int = 1, stop: int | None = None) -> Iterator[bytes]:
        if stop is None:
            cursor = self.db.execute(f"SELECT line FROM {self.table} WHERE seq >= ? ORDER BY seq", (start,))
        else:
            cursor = self.db.execute(
                f"SELECT line FROM {self.table} WHERE seq BETWEEN ? AND ? ORDER BY seq", (start, stop)
            )
        # The query runs now, on this connection (its read snapshot starts here, not at the
        # first line taken). BLOBs come back as bytes, taken out of their rows by a C
        # iterator with no Python frame per row: a replay's hot path, a third faster than a
        # generator.
        return map(_first, cursor)

    def head(self) -> tuple[int, bytes | None]:
        row = self.db.execute(f"SELECT seq, line FROM {self.table} ORDER BY seq DESC LIMIT 1").fetchone()
        if row is None:
            return (0, None)
        line = row[1]
        if isinstance(line, str):  # stored as text by something else: the same bytes, for the audit to check
            line = line.encode()
        elif not isinstance(line, bytes):
            raise CorruptLog(f"seq {row[0]}: the stored line is {type(line).__name__}, not a line", row[0])
        return (row[0], line)

    def close(self) -> None:
        self.db.close()


_first = operator.itemgetter(0)


def _cant_write(exc: sqlite3.Error) -> bool:
    """True for SQLite's "attempt to write a readonly database" (a file or folder the user can't write)."""
    return exc.sqlite_errorcode & 0xFF == sqlite3.SQLITE_READONLY


SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3")


def open_log(where: str | Path, create: bool = True, read_only: bool = False) -> EventLog:
    """The store for `where`: `memory:`, a `.jsonl` file, a `.db`/`.sqlite` file, or a `postgresql://` URL.

    `read_only`: to show, audit, export or follow; an SQLite file is then never changed.
    Raises LogError naming what is accepted when the path has another suffix, when
    `create` is False and there is no such log, or when a PostgreSQL URL is given and
    psycopg isn't installed.
    """
    text = str(where)
    if text == "memory:":
        return MemoryLog()
    if text.startswith(("postgresql://", "postgres://")):
        # imported here so psycopg stays optional; without it this raises LogError naming
        # `pip install 'combatlog[postgres]'`
        from combatlog.replays.postgres import PostgresLog

        return PostgresLog(text, create=create)
    path = Path(text)
    if path.suffix == ".jsonl":
        return JsonlLog(path, create=create)
    if path.suffix in SQLITE_SUFFIXES:
        return SqliteLog(path, create=create, read_only=read_only)
    raise LogError(
        f"{text}: can't tell the store from the name; use memory:, *.jsonl, *.db or *.sqlite, or a postgresql:// URL"
    )


def copy_log(source: EventLog, target: EventLog) -> int:
    """Copy every line of `source` to an empty `target`, step by step, bytes intact; returns the count.

    Raises LogError when the target isn't empty, CorruptLog naming the seq of a line that
    isn't one (the steps before it are already copied).
    """
    if target.head()[0] != 0:
        raise LogError("the target log is not empty; export writes only to a new log")

    def stepped() -> Iterator[tuple[int, bytes]]:
        for seq, line in enumerate(source.lines(), 1):
            try:
                yield step_of(line), line
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                raise CorruptLog(f"seq {seq}: can't read the line ({exc})", seq) from None

    return append_by_step(target, stepped())


def append_by_step(target: EventLog, lines: Iterable[tuple[int, bytes]]) -> int:
    """Append `lines` ((its step, a line), in log order) to the empty `target` from seq 1, a whole
    step at a time, as a session appends; returns how many. The steps before a line that
    raises are already appended."""
    batch: list[bytes] = []
    step = None
    start = 1
    for s, line in lines:
        if step is not None and s != step:
            target.append(batch, start)
            start += len(batch)
            batch = []
        step = s
        batch.append(line)
    if batch:
        target.append(batch, start)
    return start - 1 + len(batch)


__all__ = ["MemoryLog", "JsonlLog", "SqliteLog", "open_log", "copy_log", "CorruptLog"]
