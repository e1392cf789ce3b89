"""Several processes writing one log at once: every store ends with a log that audits clean and
holds exactly the steps that were acknowledged (a loser gets ConcurrencyError, nothing written)."""

from __future__ import annotations

import multiprocessing
import sys

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


@needs_fork
@pytest.mark.parametrize("suffix", [".jsonl", ".db"])
def test_writers_racing_on_one_log_lose_nothing_and_double_nothing(tmp_path, suffix):
    path = str(tmp_path / f"race{suffix}")
    fight(open_log(path)).log.close()
    acked = race(path)
    log = open_log(path, create=False)
    report = audit(log, workers=1)
    assert report.clean, [str(f) for f in report.findings][:3]
    notes = [line for line in log.lines() if b'"type":"Note"' in line]
    texts = sorted(line.split(b'"text":"')[1].split(b'"')[0].decode() for line in notes)
    assert texts == sorted(acked) and len(set(texts)) == WRITERS * NOTES
