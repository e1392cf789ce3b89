"""The encounters a `combatlog serve` process serves: one log, or a directory of them.

A `Table` holds one encounter's log and live `Session`, its two capability tokens and the
pages waiting for its next step. Commands run on the event loop's thread, one at a time,
through the session (so through the log's expected-seq check: a step another process took
first is a refusal, never a lost write). A watcher thread follows the log on a connection of
its own (PostgreSQL's LISTEN/NOTIFY, or a look at a file every fraction of a second), so a
step any process takes reaches every page this process serves.

Tokens: the game master's and the players' tokens are HMAC-SHA256 of the encounter's id
under a random secret kept beside what is served (`.combatlog-web-secret` in the directory,
`LOG.web-secret` beside a file log, `~/.config/combatlog/web-secret` for a database, or
`COMBATLOG_WEB_SECRET`), so processes sharing the secret agree on every link and a player
link never grants commanding.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import os
import re
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from combatlog.engine import Refused, Session
from combatlog.engine.commands import Contribute, TypedCommand, Undo, recorded
from combatlog.engine.seating import seat_command
from combatlog.events import Command, CommandIssued, ConcurrencyError, Envelope, Event, EventLog
from combatlog.projections import SeatEntry
from combatlog.replays import open_log
from combatlog.replays.amend import AmendReport
from combatlog.replays.amend import amend as amend_step
from combatlog.replays.follow import follow_lines
from combatlog.web.odds import OddsKeeper

LOG_SUFFIXES = (".db", ".sqlite", ".jsonl")
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def load_secret(path: Path) -> bytes:
    """The secret at `path`, made (32 random bytes, readable by its owner only) if there is none."""
    env = os.environ.get("COMBATLOG_WEB_SECRET")
    if env:
        return env.encode()
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    secret = secrets.token_hex(32).encode()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(secret)
    return secret


def token(secret: bytes, encounter: str, role: str) -> str:
    """The capability token of `role` (gm, players, home) for `encounter`."""
    digest = hmac.new(secret, f"{role}\0{encounter}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:18]).decode()


class Table:
    """One encounter being served."""

    def __init__(self, id: str, where: str, secret: bytes, log: EventLog | None = None, odds: bool = False) -> None:
        self.id = id
        self.where = where
        self._log = log  # opened on first use, on the thread that serves (an SQLite connection stays on its thread)
        self._session: Session | None = None
        self.secret = secret
        self.gm_token = token(secret, id, "gm")
        self.player_token = token(secret, id, "players")
        self.queue: list[Request] = []  # seats' commands waiting for the game master (this process's)
        self.answers: dict[str, str] = {}  # a seat's last refused request, by seat id, until its next step
        self._asked = 0
        self.revision = 0  # counts changes a page shows that are not steps (the queue, an answer)
        self._odds: OddsKeeper | None = None
        self.studies = odds  # work out the odds from each step in a process of its own
        self._waiters: set[asyncio.Future[None]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop = threading.Event()
        self._watcher: threading.Thread | None = None
        self._cursor: object | None = None
        self.rendered: dict[str, tuple[Any, str]] = {}  # a page's board (or a verdict) as last made: (when, text)

    @property
    def log(self) -> EventLog:
        if self._log is None:
            self._log = open_log(self.where, create=False)
        return self._log

    @property
    def session(self) -> Session:
        if self._session is None:
            self._session = Session(self.log)
        return self._session

    @session.setter
    def session(self, value: Session) -> None:
        self._session = value

    @property
    def seq(self) -> int:
        return self.session.projection.seq

    # --- keeping up with the log ---------------------------------------------------------

    def sync(self) -> bool:
        """Catch up with steps appended by other processes; True if there were any."""
        refresh = getattr(self.log, "refresh", None)
        if refresh is not None:
            refresh()
        if self.log.head()[0] == self.seq:
            return False
        self.session = Session(self.log)
        return True

    def watch(self, loop: asyncio.AbstractEventLoop) -> None:
        """Start following the log for other processes' steps (not for a log in memory)."""
        self._loop = loop
        if self.where == "memory:" or self._watcher is not None:
            return
        self._stop = threading.Event()
        self._watcher = threading.Thread(target=self._follow, name=f"combatlog-watch-{self.id}", daemon=True)
        self._watcher.start()

    def _follow(self) -> None:
        try:
            log = open_log(self.where, create=False)
        except Exception:  # the served log is gone; pages keep what they have
            return
        try:
            seq = log.head()[0]
            while not self._stop.is_set():
                for _line in follow_lines(log, after_seq=seq, poll=0.1, timeout=0.5):
                    seq += 1
                    if self._loop is not None and not self._loop.is_closed():
                        self._loop.call_soon_threadsafe(self._poke)
                    if self._stop.is_set():
                        break
        except Exception:  # a log replaced or cut under us: the pages say so on their next read
            return
        finally:
            with contextlib.suppress(Exception):
                log.close()

    def _poke(self) -> None:
        if self.sync():
            self.notify()

    def stop(self) -> None:
        self._stop.set()

    # --- waiting for the next step -----------------------------------------------------

    def odds(self) -> OddsKeeper | None:
        """This table's odds from the latest step (None for a log in memory: a study's process
        reads the log from where it is stored)."""
        if self.where == "memory:" or not self.studies:
            return None
        if self._odds is None:
            self._odds = OddsKeeper(self.where, self._odds_done)
        return self._odds

    def _odds_done(self) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.touch)
        else:
            self.revision += 1

    def touch(self) -> None:
        """Something a page shows changed without a step (the queue): wake the pages."""
        self.revision += 1
        self.notify()

    async def wait_change(self, seen: tuple[int, int], timeout: float) -> bool:
        """Wait until the log or the queue moves past `seen` (seq, revision), at most `timeout`
        seconds; True if it did."""
        if (self.seq, self.revision) != seen:
            return True
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.add(future)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(future, timeout)
        self._waiters.discard(future)
        return (self.seq, self.revision) != seen

    def notify(self) -> None:
        """Wake every page waiting for a step."""
        waiters, self._waiters = self._waiters, set()
        for w in waiters:
            if not w.done():
                w.set_result(None)

    async def wait(self, after_seq: int, timeout: float) -> bool:
        """Wait until the log is past `after_seq`, at most `timeout` seconds; True if it is."""
        if self.seq > after_seq:
            return True
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.add(future)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(future, timeout)
        self._waiters.discard(future)
        return self.seq > after_seq

    # --- commands --------------------------------------------------------------------

    def execute(
        self, command: Command | TypedCommand | Callable[[Session], list[Envelope[Event]]], seen: int | None
    ) -> None:
        """Carry out a command (or `auto`) as one step, when the page that sent it saw the log
        at seq `seen` (None: don't check); raises Refused, appending nothing."""
        self.sync()
        self.check_seen(seen)
        try:
            if isinstance(command, Command | TypedCommand):
                self.session.execute(command)
            else:
                command(self.session)
        except ConcurrencyError:
            self.sync()
            raise Refused(
                "stale page", "another screen took a step first", "look at the new state and try again"
            ) from None
        finally:
            self._cursor = None
        self.notify()

    def rewind(self, step: int, seen: int | None) -> None:
        """Undo every step after `step`, one undo each, the latest first: nothing is erased,
        and redo walks forward again. Raises Refused when `step` isn't in the undo history."""
        undo = self.session.projection.undo
        if step not in undo:
            raise Refused(
                f"rewind to step {step}", "not a step that can be undone back to", "choose one in the history"
            )
        while self.session.projection.undo and self.session.projection.undo[-1] > step:
            self.execute(Command(kind="undo"), seen)
            seen = self.seq

    def amend(self, step: int, dice: str | None, command: str | None, seen: int | None) -> AmendReport:
        """Correct past step `step` (its dice, or its command in the play grammar) and decide the
        later steps again (`combatlog.replays.amend`); returns what changed, in words. Raises
        Refused (nothing appended) or LogError."""
        self.sync()
        self.check_seen(seen)
        if dice is None and command is None:
            raise Refused(f"correct step {step}", "say what it should have been", "give its dice, or its command")
        try:
            report = amend_step(self.log, step, dice=dice, command=command, by="gm")
        finally:
            self.session = Session(self.log)  # the amendment wrote past the served session
            self._cursor = None
        self.notify()
        return report

    def redo_to(self, step: int, seen: int | None) -> None:
        """Redo the undone steps up to and including `step`, the earliest first."""
        if step not in self.session.projection.redo:
            raise Refused(f"redo to step {step}", "not an undone step that can be redone now", "redo works in order")
        while step in self.session.projection.redo:
            self.execute(Command(kind="redo"), seen)
            seen = self.seq

    # --- seats -------------------------------------------------------------------------

    def seats(self) -> list[SeatEntry]:
        """The seats at this table, as the log has them."""
        seating = self.session.state.seating
        return list(seating.seats.values()) if seating is not None else []

    def seat_token(self, seat: SeatEntry) -> str:
        """The capability token of `seat`'s current link (a new generation ends the old one)."""
        return token(self.secret, f"{self.id}\0{seat.id}\0{seat.generation}", "seat")

    def seat_by_token(self, tok: str) -> SeatEntry | None:
        for seat in self.seats():
            if hmac.compare_digest(self.seat_token(seat), tok):
                return seat
        return None

    def latest_by(self) -> str | None:
        """Who gave the step an undo would undo now (None: nothing to undo)."""
        undo = self.session.projection.undo
        if not undo:
            return None
        for envelope in self.log_envelopes_of_step(undo[-1]):
            if isinstance(envelope.event, CommandIssued):
                return envelope.event.command.by
        return None

    def log_envelopes_of_step(self, step: int) -> list[Envelope[Event]]:
        from combatlog.replays.cursor import envelopes

        return [e for e in envelopes(self.log) if e.step == step]

    def seat_execute(self, seat: SeatEntry, command: Command | TypedCommand, seen: int | None) -> str:
        """Carry out a seat's command, or queue it for the game master when the table says so;
        returns "done" or "queued"; raises Refused (nothing appended or queued)."""
        self.sync()
        ordered = seat_command(self.session.state, seat, command, self.latest_by())
        self.check_seen(seen)
        self.session.preview(ordered)  # refused now if the rules refuse it: nothing queued
        seating = self.session.state.seating
        self.answers.pop(seat.id, None)
        if seating is not None and seating.commands == "queue" and not isinstance(ordered, Undo | Contribute):
            self._asked += 1
            self.queue.append(Request(self._asked, seat.id, seat.name, ordered, self.seq))
            self.touch()
            return "queued"
        self.execute(ordered, seen)
        return "done"

    def answer(self, request_id: int, accept: bool, reason: str = "") -> None:
        """The game master accepts a queued request (carried out now, as its seat gave it) or
        refuses it with a reason its seat is shown; raises Refused when it can't be carried out."""
        request = next((r for r in self.queue if r.id == request_id), None)
        if request is None:
            raise Refused("request", "no such request waiting", "it was answered already")
        if accept:
            self.execute(request.command, None)
        else:
            self.answers[request.seat] = f"the game master refused: {reason.strip() or 'no reason given'}"
        self.queue.remove(request)
        self.touch()

    def check_seen(self, seen: int | None) -> None:
        """Refuse a page drawn at seq `seen` once the log has moved past it (None: don't check)."""
        if seen is not None and seen != self.seq:
            raise Refused(
                "stale page",
                f"the fight moved on since this page was drawn (seq {seen}, now {self.seq})",
                "look at the new state and try again",
            )

    def close(self) -> None:
        """Stop following and close the log (it opens again on the next use)."""
        self.stop()
        if self._odds is not None:
            self._odds.close()
        if self._log is not None and self.where != "memory:":
            with contextlib.suppress(Exception):
                self._log.close()
            self._log = self._session = None
        self._watcher = None
        self._loop = None


class Tables:
    """The encounters served: one log (`single`), or the logs in a directory."""

    def __init__(self, secret: bytes, directory: Path | None = None, odds: bool = False) -> None:
        self.secret = secret
        self.odds = odds  # the tables work out the odds from each step (`serve` does)
        self.directory = directory
        self.home_token = token(secret, "", "home")
        self._tables: dict[str, Table] = {}
        self._loop: asyncio.AbstractEventLoop | None = None

    @classmethod
    def single(cls, where: str, secret: bytes, log: EventLog | None = None, odds: bool = False) -> Tables:
        tables = cls(secret, odds=odds)
        table = Table(table_id(where), where, secret, log=log, odds=odds)
        tables._tables[table.id] = table
        return tables

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        for table in self._tables.values():
            table.watch(loop)

    def close(self) -> None:
        for table in self._tables.values():
            table.close()

    def all(self) -> list[Table]:
        """Every table: in a directory, one per log file there (opened on first sight)."""
        if self.directory is not None:
            for path in sorted(self.directory.iterdir()):
                if path.suffix in LOG_SUFFIXES and path.stat().st_size > 0 and _ID.match(path.stem):
                    self._open(path.stem)
        return list(self._tables.values())

    def _open(self, id: str) -> Table | None:
        table = self._tables.get(id)
        if table is not None or self.directory is None:
            return table
        for suffix in LOG_SUFFIXES:
            path = self.directory / f"{id}{suffix}"
            if path.exists() and path.stat().st_size > 0:
                table = Table(id, str(path), self.secret, odds=self.odds)
                self._tables[id] = table
                if self._loop is not None:
                    table.watch(self._loop)
                return table
        return None

    def by_seat_token(self, tok: str) -> tuple[Table, SeatEntry] | None:
        """The table and seat whose link `tok` is, or None (a revoked or renewed link is no one's)."""
        for table in self.all():
            table.sync()
            seat = table.seat_by_token(tok)
            if seat is not None:
                return table, seat
        return None

    def by_token(self, tok: str, role: str) -> Table | None:
        """The table whose `role` token is `tok` (compared in constant time), or None."""
        for table in self.all():
            expected = table.gm_token if role == "gm" else table.player_token
            if hmac.compare_digest(expected, tok):
                return table
        return None

    def new_path(self, name: str) -> Path:
        """A free path in the directory for a new encounter named after `name`."""
        assert self.directory is not None
        stem = re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-")[:40] or "encounter"
        n = 1
        while True:
            candidate = self.directory / (f"{stem}.db" if n == 1 else f"{stem}-{n}.db")
            if not candidate.exists():
                return candidate
            n += 1

    def add(self, path: Path) -> Table:
        table = self._open(path.stem)
        assert table is not None
        return table


@dataclass
class Request:
    """A seat's command waiting for the game master."""

    id: int
    seat: str
    seat_name: str
    command: TypedCommand
    seen: int  # the seq the seat's page showed

    @property
    def what(self) -> str:
        c = recorded(self.command)
        parts = [c.kind, c.actor or "", c.action or "", *c.targets, *(f"{k}={v}" for k, v in c.params.items())]
        return " ".join(p for p in parts if p) + (" (dice typed)" if c.entered else "")


def table_id(where: str) -> str:
    """A short id for a served log: its file's stem, or the encounter of a database URL."""
    if where == "memory:":
        return "memory"
    if "://" in where:
        names = [v for k, v in parse_qsl(urlsplit(where).query) if k == "encounter"]
        return re.sub(r"[^A-Za-z0-9_.-]+", "-", names[0] if names else "default")[:64] or "encounter"
    return Path(where).stem or "encounter"
