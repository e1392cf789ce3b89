"""Stores: atomic steps, two writers, torn tails, and copying between stores."""

from __future__ import annotations

import subprocess
import sys

import pytest

from combatlog.engine import Session
from combatlog.events import LogError
from combatlog.replays import JsonlLog, MemoryLog, SqliteLog, copy_log, open_log
from tests.builders import fight, one_more_step, two_writers


@pytest.mark.parametrize("suffix", [".jsonl", ".db"])
def test_a_log_reopened_from_disk_gives_the_same_encounter(tmp_path, suffix):
    path = tmp_path / f"fight{suffix}"
    s = fight(open_log(path))
    s.play_out()
    again = Session(open_log(path, create=False))
    assert again.state == s.state
    assert list(again.log.lines()) == list(s.log.lines())


def test_the_store_is_chosen_by_the_path(tmp_path):
    assert isinstance(open_log("memory:"), MemoryLog)
    assert isinstance(open_log(tmp_path / "a.jsonl"), JsonlLog)
    assert isinstance(open_log(tmp_path / "a.sqlite"), SqliteLog)
    with pytest.raises(LogError, match="use memory:, \\*.jsonl, \\*.db or \\*.sqlite"):
        open_log(tmp_path / "a.txt")
    with pytest.raises(LogError, match="no such log"):
        open_log(tmp_path / "missing.db", create=False)


@pytest.mark.parametrize("suffix", [".jsonl", ".db"])
def test_two_writers_conflict_with_a_clear_error_and_nothing_lost_or_doubled(tmp_path, suffix):
    path = tmp_path / f"fight{suffix}"
    two_writers(lambda: open_log(path))


CRASH_MID_STEP = """
import os, sys
from combatlog.replays import SqliteLog
import combatlog.replays.stores as stores

log = SqliteLog(sys.argv[1])
real_executemany = None

class Dying:
    # the connection dies after the first rows of the step are written, before COMMIT
    def __init__(self, db):
        self.db = db
    def execute(self, *a):
        return self.db.execute(*a)
    def executemany(self, sql, rows):
        rows = list(rows)
        self.db.execute(sql, rows[0])
        os._exit(17)

log.db = Dying(log.db)
from combatlog.engine import Session
s = Session(log)
s.auto()
"""


def test_a_process_killed_mid_step_in_sqlite_leaves_the_whole_step_out(tmp_path):
    path = tmp_path / "fight.db"
    s = fight(open_log(path))
    before = list(s.log.lines())
    s.log.close()
    done = subprocess.run([sys.executable, "-c", CRASH_MID_STEP, str(path)], capture_output=True, text=True)
    assert done.returncode == 17, done.stderr
    reopened = open_log(path)
    assert list(reopened.lines()) == before
    resumed = Session(reopened)
    resumed.auto()  # the log goes on from the last whole step
    assert resumed.log.head()[0] > len(before)


def test_a_step_cut_short_in_a_jsonl_file_is_reported_and_left_out(tmp_path):
    path = tmp_path / "fight.jsonl"
    whole, count, step = one_more_step(path)
    step_lines = step.split(b"\n")[:-1]
    assert len(step_lines) > 2
    # the crash wrote two whole lines of the step and half of the third
    path.write_bytes(whole + step_lines[0] + b"\n" + step_lines[1] + b"\n" + step_lines[2][:20])
    log = JsonlLog(path)
    assert log.torn is not None and log.torn.seq == count + 1
    assert "torn from seq" in str(log.torn)
    assert len(list(log.lines())) == count
    with pytest.raises(LogError, match="torn"):
        log.append([b"x"], count + 1)


def test_a_torn_last_line_is_left_out_and_repair_keeps_the_bytes_aside(tmp_path):
    path = tmp_path / "fight.jsonl"
    s = fight(open_log(path))
    good = path.read_bytes()
    count = s.log.head()[0]
    path.write_bytes(good + b'{"seq":' + str(count + 1).encode() + b',"step":9')
    log = JsonlLog(path)
    assert log.torn.seq == count + 1
    assert len(list(log.lines())) == count
    torn = log.repair()
    assert torn.seq == count + 1
    assert path.read_bytes() == good
    assert (tmp_path / "fight.jsonl.torn").read_bytes().startswith(b'{"seq":')
    resumed = Session(JsonlLog(path))
    resumed.auto()  # appending works again
    assert resumed.log.head()[0] > count


def test_repair_never_writes_through_a_link_planted_at_the_torn_file(tmp_path):
    path = tmp_path / "fight.jsonl"
    s = fight(open_log(path))
    count = s.log.head()[0]
    torn_bytes = path.read_bytes() + b'{"seq":' + str(count + 1).encode() + b',"step":9'
    path.write_bytes(torn_bytes)
    victim = tmp_path / "someone-elses-file"
    victim.write_bytes(b"precious\n")
    (tmp_path / "fight.jsonl.torn").symlink_to(victim)
    log = JsonlLog(path)
    with pytest.raises(LogError, match=r"fight\.jsonl\.torn: can't put the torn tail there .*nothing was changed"):
        log.repair()
    assert victim.read_bytes() == b"precious\n"
    assert path.read_bytes() == torn_bytes and log.torn is not None
    from click.testing import CliRunner

    from combatlog.cli.main import app

    said = CliRunner().invoke(app, ["repair", str(path)])  # the command line: the same, in one line
    assert said.exit_code == 1 and "can't put the torn tail there" in said.output, said.output
    *warned, error = said.output.strip().split("\n")  # a warning that the log is torn, then the error
    assert len(warned) <= 1 and "can't put the torn tail there" in error and victim.read_bytes() == b"precious\n"
    assert path.read_bytes() == torn_bytes


def test_a_second_repair_appends_to_the_torn_file_it_made(tmp_path):
    path = tmp_path / "fight.jsonl"
    s = fight(open_log(path))
    count = s.log.head()[0]
    good = path.read_bytes()
    for tail in (b'{"seq":' + str(count + 1).encode(), b'{"seq":' + str(count + 1).encode() + b',"st'):
        path.write_bytes(good + tail)
        JsonlLog(path).repair()
    assert (tmp_path / "fight.jsonl.torn").read_bytes().count(b'{"seq":') == 2


def test_a_whole_log_reads_with_no_torn_report(tmp_path):
    path = tmp_path / "fight.jsonl"
    fight(open_log(path)).play_out()
    assert JsonlLog(path).torn is None


@pytest.mark.parametrize("source, target", [(".jsonl", ".db"), (".db", ".jsonl"), (".db", ".sqlite")])
def test_copying_a_log_between_stores_keeps_every_byte_and_digest(tmp_path, source, target):
    a = open_log(tmp_path / f"a{source}")
    fight(a).play_out()
    b = open_log(tmp_path / f"b{target}")
    n = copy_log(a, b)
    assert n == a.head()[0]
    assert list(b.lines()) == list(a.lines())
    with pytest.raises(LogError, match="not empty"):
        copy_log(a, b)


def test_seeking_into_a_long_jsonl_log_reads_the_right_lines(tmp_path):
    path = tmp_path / "long.jsonl"
    log = open_log(path)
    s = fight(log)
    for i in range(400):
        s.do("note", text=f"note {i}")
    every = list(JsonlLog(path).lines())
    fresh = JsonlLog(path)
    list(fresh.lines())  # fills the sparse index
    for start in (1, 2, 1024, 1025, 1500, len(every)):
        assert list(fresh.lines(start, start + 2)) == every[start - 1 : start + 2]


@pytest.mark.parametrize("every", [1, 5, 1024])
def test_jsonl_lines_match_the_file_line_for_line_and_the_index_holds_line_starts(tmp_path, monkeypatch, every):
    # an index mark every line, every 5 lines, and none past the first
    monkeypatch.setattr(JsonlLog, "INDEX_EVERY", every)
    path = tmp_path / "fight.jsonl"
    s = fight(open_log(path))
    for _ in range(6):
        s.auto()
    raw = path.read_bytes()
    expected = raw.split(b"\n")[:-1]
    log = JsonlLog(path)
    n = len(expected)
    for start, stop in [(1, None), (n, None), (7, 7), (3, 11), (12, 40), (n - 4, n + 10), (n + 1, None), (1, 0)]:
        assert list(log.lines(start, stop)) == expected[start - 1 : stop], (start, stop)
        # the replay's form: the same lines, each still ending in its newline
        assert list(log.decodable_lines(start, stop)) == [x + b"\n" for x in expected[start - 1 : stop]]
    assert log._index, "reading fills the sparse index"
    for k, offset in enumerate(log._index):
        line_start = sum(len(x) + 1 for x in expected[: k * every])
        assert offset == line_start, k
    # the index, once filled, gives the same lines from every start
    for start in range(1, n + 1, 3):
        assert list(log.lines(start, start + 4)) == expected[start - 1 : start + 4]
    # a torn tail is never read
    path.write_bytes(raw + expected[0][:15])
    torn = JsonlLog(path)
    assert list(torn.lines()) == expected


@pytest.mark.parametrize("how", ["renamed over", "rewritten in place"])
def test_a_jsonl_log_replaced_under_a_reader_is_read_afresh_after_refresh(tmp_path, monkeypatch, how):
    monkeypatch.setattr(JsonlLog, "INDEX_EVERY", 4)
    path = tmp_path / "f.jsonl"
    fight(open_log(path)).play_out()
    reader = JsonlLog(path)
    list(reader.lines())  # fills its sparse index
    other = tmp_path / "other.jsonl"
    s = fight(open_log(other))
    s.do("note", text="a different fight, with longer lines " * 5)
    s.play_out()
    while other.stat().st_size <= path.stat().st_size:  # longer: no shrinking to give it away
        s.do("note", text="and more")
    if how == "renamed over":
        other.replace(path)  # a new file, as `demo --force` or `rm` and `new` make
    else:
        path.write_bytes(other.read_bytes())  # the same file (inode) with other, longer contents
    reader.refresh()
    expected = path.read_bytes().split(b"\n")[:-1]
    for seq in range(1, len(expected) + 1):
        assert list(reader.lines(seq, seq + 2)) == expected[seq - 1 : seq + 2], seq
    assert list(reader.lines()) == expected


# --- the SQLite store's schema: versioned, renamed, and never changed by a read ---------------


def _sqlite(path, sql: str) -> list:
    import sqlite3

    db = sqlite3.connect(path)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


def _old_format(path, source_lines: list[bytes]) -> None:
    """A log as combatlog wrote it before the rename: a table `events`, no schema version, no WAL."""
    import sqlite3

    from combatlog.events import decode_line

    db = sqlite3.connect(path)
    db.execute("CREATE TABLE events (seq INTEGER PRIMARY KEY, step INTEGER NOT NULL, line BLOB NOT NULL)")
    db.executemany(
        "INSERT INTO events VALUES (?, ?, ?)",
        [(decode_line(line).seq, decode_line(line).step, line) for line in source_lines],
    )
    db.commit()
    db.close()


def test_a_new_sqlite_log_has_its_own_table_and_a_schema_version(tmp_path):
    path = tmp_path / "new.db"
    fight(SqliteLog(path)).log.close()
    names = {row[0] for row in _sqlite(path, "SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert names == {"combatlog_events"} and _sqlite(path, "PRAGMA user_version") == [(1,)]


def test_a_log_from_before_the_rename_is_read_unchanged_and_renamed_when_written(tmp_path):
    import hashlib

    from combatlog.replays.audit import audit

    lines = list(fight(MemoryLog()).log.lines())
    path = tmp_path / "old.db"
    _old_format(path, lines)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    reader = open_log(path, create=False, read_only=True)
    assert list(reader.lines()) == lines and audit(reader, workers=1).clean
    reader.close()
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest  # not a byte changed by reading
    assert _sqlite(path, "PRAGMA journal_mode") == [("delete",)] and not (tmp_path / "old.db-wal").exists()
    writer = open_log(path, create=False)
    Session(writer).auto()
    writer.close()
    assert _sqlite(path, "PRAGMA user_version") == [(1,)]
    assert {r[0] for r in _sqlite(path, "SELECT name FROM sqlite_master WHERE type = 'table'")} == {"combatlog_events"}
    assert audit(open_log(path, create=False, read_only=True), workers=1).clean


@pytest.mark.parametrize(
    ("sql", "says"),
    [
        ("CREATE TABLE invoices (id INTEGER)", "it holds invoices, and no combatlog_events"),
        ("CREATE TABLE events (id INTEGER, total REAL)", "its table events has columns id, total"),
        ("PRAGMA user_version = 9", r"written by a newer combatlog \(schema version 9"),
    ],
)
def test_a_database_that_isnt_a_combatlog_log_is_refused_in_one_line_and_left_alone(tmp_path, sql, says):
    import hashlib

    path = tmp_path / "theirs.db"
    _sqlite(path, sql)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    for read_only in (True, False):
        with pytest.raises(LogError, match=says) as err:
            open_log(path, create=False, read_only=read_only)
        assert "\n" not in str(err.value)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest


def test_a_log_opened_to_read_refuses_to_write(tmp_path):
    path = tmp_path / "r.db"
    fight(SqliteLog(path)).log.close()
    reader = open_log(path, create=False, read_only=True)
    with pytest.raises(LogError, match="opened to read"):
        reader.append([b"{}"], expected_seq=reader.head()[0] + 1)


def test_a_json_lines_follower_reads_only_what_was_appended(tmp_path, monkeypatch):
    import builtins

    import combatlog.replays.stores as stores

    path = tmp_path / "long.jsonl"
    s = fight(JsonlLog(path))
    for _ in range(40):
        s.auto()
        if s.state.phase == "end":
            break
    follower = JsonlLog(path, create=False)
    size = path.stat().st_size
    read = {"bytes": 0}
    real_open = builtins.open

    class Counting:
        def __init__(self, fh):
            self.fh = fh

        def read(self, n=-1):
            data = self.fh.read(n)
            read["bytes"] += len(data)
            return data

        def __getattr__(self, name):
            return getattr(self.fh, name)

        def __iter__(self):
            for line in self.fh:
                read["bytes"] += len(line)
                yield line

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

    writer = JsonlLog(path, create=False)
    Session(writer).do("note", text="one more step")
    grown = path.stat().st_size - size
    monkeypatch.setattr(stores, "open", lambda *a, **k: Counting(real_open(*a, **k)), raising=False)
    follower.refresh()
    assert follower.head()[0] == writer.head()[0]
    # the new step, read twice (the count, then the check that it is whole), and a line before it
    assert read["bytes"] < 3 * grown + 1000 < size, (read["bytes"], grown, size)


def _in_a_read_only_folder(path, read):
    """`read(path)` where the folder and file can't be written: as `nobody` in a forked child
    when the tests run as root (root writes anywhere), else with the write bits taken away.
    Returns what `read` returned, or raises with the child's error."""
    import os
    import pickle
    import stat

    folder = path.parent
    os.chmod(path, 0o444)
    os.chmod(folder, 0o555)
    try:
        if os.geteuid() != 0:
            return read(path)
        for above in folder.parents:
            if above.stat().st_mode & stat.S_IXOTH == 0:
                pytest.fail(f"{above} can't be passed through by another user")  # pragma: no cover
        reader, writer = os.pipe()
        child = os.fork()
        if child == 0:  # pragma: no cover - the child's report comes back through the pipe
            os.close(reader)
            try:
                os.setgid(65534)
                os.setuid(65534)
                result = ("ok", read(path))
            except BaseException as exc:
                result = ("error", f"{type(exc).__name__}: {exc}")
            with os.fdopen(writer, "wb") as out:
                pickle.dump(result, out)
            os._exit(0)
        os.close(writer)
        with os.fdopen(reader, "rb") as got:
            data = got.read()
        os.waitpid(child, 0)
        kind, value = pickle.loads(data)
        assert kind == "ok", value
        return value
    finally:
        os.chmod(folder, 0o755)
        os.chmod(path, 0o644)


def test_an_sqlite_log_in_a_read_only_folder_is_read_and_audited_and_left_as_it_was():
    import hashlib
    import shutil
    import tempfile
    from pathlib import Path

    from combatlog.replays.audit import audit

    folder = Path(tempfile.mkdtemp(prefix="combatlog-read-only-"))  # not under pytest's root-only folders
    try:
        path = folder / "fight.db"
        s = fight(SqliteLog(path))
        lines = list(s.log.lines())
        assert audit(s.log, workers=1).clean  # what the child uses is imported here
        s.log.close()
        before = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()}

        def read(p):
            log = open_log(p, create=False, read_only=True)
            return list(log.lines()), audit(log, workers=1).clean

        assert _in_a_read_only_folder(path, read) == (lines, True)
        assert {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()} == before
    finally:
        shutil.rmtree(folder)


def test_an_sqlite_line_stored_as_text_or_a_number_is_reported_not_a_traceback(tmp_path):
    from click.testing import CliRunner

    from combatlog.cli.main import app
    from combatlog.events import CorruptLog

    path = tmp_path / "fight.db"
    fight(SqliteLog(path)).log.close()
    last, line = _sqlite(path, "SELECT seq, line FROM combatlog_events ORDER BY seq DESC LIMIT 1")[0]

    def store(value) -> None:
        import sqlite3

        with sqlite3.connect(path) as db:
            db.execute("UPDATE combatlog_events SET line = ? WHERE seq = ?", (value, last))
        assert type(_sqlite(path, f"SELECT line FROM combatlog_events WHERE seq = {last}")[0][0]) is type(value)

    store(line.decode())
    assert SqliteLog(path, read_only=True).head() == (last, line)  # the same bytes, read as a line
    assert CliRunner().invoke(app, ["head", str(path)]).exit_code == 0
    store(12345)
    with pytest.raises(CorruptLog, match=f"seq {last}: the stored line is int, not a line") as err:
        SqliteLog(path, read_only=True).head()
    assert err.value.seq == last
    for command in ("head", "show", "audit"):
        said = CliRunner().invoke(app, [command, str(path)])
        assert said.exit_code == 1 and f"seq {last}" in said.output, (command, said.output)
        assert said.output.strip().count("\n") == 0, (command, said.output)
