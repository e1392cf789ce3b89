"""Several processes writing one log at once: every store ends with a log that audits clean and
holds exactly the steps that were acknowledged (a loser gets ConcurrencyError, nothing written).

PostgreSQL's server comes from COMBATLOG_TEST_POSTGRES (default
postgresql://postgres@127.0.0.1:5432/test), as in test_postgres.py; without psycopg or a
reachable server its case is skipped, saying why."""

from __future__ import annotations

import multiprocessing
import os
import sys
from urllib.parse import quote

import pytest

from combatlog.engine import Session
from combatlog.events import ConcurrencyError
from combatlog.replays import open_log
from combatlog.replays.audit import audit
from tests.builders import fight

WRITERS = 4
NOTES = 25

needs_fork = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the race is run in forked processes, which this platform can't"
)


def _writer(path: str, who: int, start, acked) -> None:
    start.wait()
    session = Session(open_log(path, create=False))
    done = 0
    while done < NOTES:
        text = f"writer {who} note {done}"
        try:
            session.do("note", text=text)
        except ConcurrencyError:
            session.log.close()
            session = Session(open_log(path, create=False))  # look again, then try again
            continue
        acked.put(text)
        done += 1
    session.log.close()


def race(path: str) -> list[str]:
    context = multiprocessing.get_context("fork")
    start = context.Barrier(WRITERS)
    acked = context.Queue()
    procs = [context.Process(target=_writer, args=(path, i, start, acked)) for i in range(WRITERS)]
    for p in procs:
        p.start()
    said = [acked.get(timeout=60) for _ in range(WRITERS * NOTES)]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    return said


SERVER = os.environ.get("COMBATLOG_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")


def _postgres_encounter(name: str):
    """A URL for an encounter `name` of its own on the test server, empty (skips when there is none);
    then a function that drops it."""
    psycopg = pytest.importorskip("psycopg", reason="psycopg isn't installed; pip install 'combatlog[postgres]'")
    from combatlog.replays.postgres import TABLE

    def drop() -> None:
        with psycopg.connect(SERVER, autocommit=True, connect_timeout=3) as db:
            if db.execute("SELECT to_regclass(%s)", (TABLE,)).fetchone()[0] is not None:
                db.execute(f"DELETE FROM {TABLE} WHERE encounter = %s", (name,))

    try:
        drop()
    except psycopg.Error as exc:
        pytest.skip(f"no PostgreSQL server at {SERVER} ({' '.join(str(exc).split())}); set COMBATLOG_TEST_POSTGRES")
    sep = "&" if "?" in SERVER else "?"
    return f"{SERVER}{sep}encounter={quote(name)}", drop


@pytest.fixture(params=[".jsonl", ".db", "postgresql"])
def where(request, tmp_path):
    """Where the race is run: a JSON-lines file, an SQLite file, or an encounter on PostgreSQL."""
    if request.param != "postgresql":
        yield str(tmp_path / f"race{request.param}")
        return
    url, drop = _postgres_encounter(f"pytest-race-{os.getpid()}")
    yield url
    drop()


@needs_fork
def test_writers_racing_on_one_log_lose_nothing_and_double_nothing(where):
    path = where
    fight(open_log(path)).log.close()
    acked = race(path)
    log = open_log(path, create=False)
    try:
        report = audit(log, workers=1)
        assert report.clean, [str(f) for f in report.findings][:3]
        notes = [line for line in log.lines() if b'"type":"Note"' in line]
    finally:
        log.close()
    texts = sorted(line.split(b'"text":"')[1].split(b'"')[0].decode() for line in notes)
    assert texts == sorted(acked) and len(set(texts)) == WRITERS * NOTES
