"""Stores at their edges: cuts at a line boundary, torn tails seen by a follower, a long file's
index, the words of a lost race, and SQLite opened to read or from another thread.

Each test here fails against a mutant of `replays/stores.py` that the rest of the suite let
through (docs/mutation.md).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from combatlog.cli.main import app
from combatlog.engine import Session
from combatlog.events import GENESIS, Command, CommandIssued, ConcurrencyError, CorruptLog, LogError, Note, seal
from combatlog.replays import JsonlLog, MemoryLog, SqliteLog, copy_log, open_log
from combatlog.replays.audit import audit
from tests.builders import fight, one_more_step

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "skirmish-ambush.toml"


def sealed_notes(n: int, step_size: int = 1) -> list[bytes]:
    """`n` lines of notes sealed into a chain, `step_size` lines a step (no command: a store
    doesn't read what a line says, only where its lines end)."""
    out, previous = [], GENESIS
    for seq in range(1, n + 1):
        line, env = seal(previous, seq, (seq - 1) // step_size + 1, Note(text=f"note {seq}"))
        previous = env.digest
        out.append(line)
    return out


def step_lines(step: bytes) -> list[bytes]:
    return [line + b"\n" for line in step.split(b"\n")[:-1]]


# --- a step cut at a line boundary -----------------------------------------------------------------------


@pytest.mark.parametrize("kept", [1, -1], ids=["only its command", "all but its last line"])
def test_a_step_cut_at_a_line_boundary_is_torn_from_its_command_and_repair_cuts_exactly_there(tmp_path, kept):
    path = tmp_path / "fight.jsonl"
    whole, count, step = one_more_step(path)
    cut = b"".join(step_lines(step)[:kept])
    path.write_bytes(whole + cut)
    log = JsonlLog(path)
    assert log.torn is not None and log.torn.seq == count + 1
    assert log.head() == (count, whole.split(b"\n")[-2])
    assert list(log.lines()) == whole.split(b"\n")[:-1]
    assert log.repair() is not None
    assert path.read_bytes() == whole and (tmp_path / "fight.jsonl.torn").read_bytes() == cut
    assert (tmp_path / "fight.jsonl.torn").stat().st_mode & 0o777 == 0o600


def test_a_log_that_is_only_its_first_step_cut_short_holds_nothing(tmp_path):
    path = tmp_path / "fight.jsonl"
    s = fight(open_log(tmp_path / "whole.jsonl"))
    first = (tmp_path / "whole.jsonl").read_bytes().split(b"\n")[0] + b"\n"  # the creation's command alone
    path.write_bytes(first)
    log = JsonlLog(path)
    assert log.torn is not None and log.torn.seq == 1
    assert log.head() == (0, None) and list(log.lines()) == []
    log.repair()
    assert path.read_bytes() == b""
    assert s.log.head()[0] > 1


def test_a_log_that_is_only_a_partial_first_line_repairs_to_an_empty_file(tmp_path):
    path = tmp_path / "fight.jsonl"
    path.write_bytes(b'{"seq":1,"step":1,"v":1,"eve')
    log = JsonlLog(path)
    assert log.torn is not None and log.torn.seq == 1 and log.head() == (0, None)
    log.repair()
    assert path.read_bytes() == b""


def test_a_last_step_of_one_line_that_announces_none_is_whole(tmp_path):
    path = tmp_path / "one.jsonl"
    line, _ = seal(GENESIS, 1, 1, CommandIssued(command=Command(kind="note")))  # `events` left at 1
    assert b'"events"' not in line
    path.write_bytes(line + b"\n")
    log = JsonlLog(path)
    assert log.torn is None and log.head() == (1, line) and list(log.lines()) == [line]


def test_a_torn_step_at_the_end_of_a_log_longer_than_the_scan_window_is_found_and_cut_exactly(tmp_path):
    path = tmp_path / "long.jsonl"
    whole, count, step = one_more_step(path)
    filler = sealed_notes(7000)  # over a MiB of whole lines before the fight
    body = b"".join(line + b"\n" for line in filler)
    path.write_bytes(body + whole + b"".join(step_lines(step)[:-1]))
    log = JsonlLog(path)
    assert log.torn is not None and log.torn.seq == count + 1  # the seq its command line gives
    log.repair()
    assert path.read_bytes() == body + whole


def big_note_step(path) -> tuple[bytes, int, bytes]:
    """A begun fight in the JSON-lines file `path`, then a note of 1.2 MB (its command line and its
    Note line each over a MiB): (the file's bytes before that step, its event count then, the step's bytes)."""
    s = fight(open_log(path))
    whole = path.read_bytes()
    count = s.log.head()[0]
    s.do("note", text="x" * 1_200_000)
    return whole, count, path.read_bytes()[len(whole) :]


@pytest.mark.parametrize("cut", ["mid-way through its note", "at the line boundary after its command"])
def test_a_step_with_lines_over_a_mib_cut_short_is_torn_from_its_command_and_repairs_clean(tmp_path, cut):
    path = tmp_path / "big.jsonl"
    whole, count, step = big_note_step(path)
    command, note = step_lines(step)
    assert len(command) > 1 << 20 and len(note) > 1 << 20
    kept = command + note[: len(note) // 2] if cut.startswith("mid") else command
    path.write_bytes(whole + kept)
    log = JsonlLog(path)
    assert log.torn is not None and log.torn.seq == count + 1  # the note's command, not the line after it
    assert log.head() == (count, whole.split(b"\n")[-2])
    assert log.repair() is not None
    assert path.read_bytes() == whole and (tmp_path / "big.jsonl.torn").read_bytes() == kept
    report = audit(JsonlLog(path), workers=1)
    assert report.clean, [str(f) for f in report.findings]


def test_a_log_ending_in_a_line_over_a_mib_heads_with_that_whole_line_and_goes_on(tmp_path):
    path = tmp_path / "big.jsonl"
    whole, count, step = big_note_step(path)
    log = JsonlLog(path)
    assert log.torn is None and log.head() == (count + 2, step_lines(step)[-1][:-1])
    follower = JsonlLog(path)
    s = Session(log)
    s.do("note", text="after")
    follower.refresh()
    assert follower.head() == log.head() and list(follower.lines()) == list(JsonlLog(path).lines())
    assert audit(JsonlLog(path), workers=1).clean


# --- a follower that sees a step arrive in pieces ------------------------------------------------------------


def test_a_follower_keeps_the_last_whole_line_while_a_step_arrives_in_pieces(tmp_path):
    path = tmp_path / "fight.jsonl"
    whole, count, step = one_more_step(path)
    filler = b"".join(line + b"\n" for line in sealed_notes(600))  # over 64 KiB before the fight
    whole, count = filler + whole, 600 + count
    path.write_bytes(whole)
    follower = JsonlLog(path)
    last = whole.split(b"\n")[-2]
    pieces = step_lines(step)
    with open(path, "ab") as fh:
        fh.write(b"".join(pieces[:-1]))
    follower.refresh()
    assert follower.torn is not None and follower.head() == (count, last)
    with open(path, "ab") as fh:
        fh.write(pieces[-1])
    follower.refresh()
    assert follower.torn is None and follower.head() == (count + len(pieces), pieces[-1][:-1])


def test_a_follower_of_a_file_cut_back_in_place_reads_what_is_left(tmp_path):
    path = tmp_path / "fight.jsonl"
    whole, count, step = one_more_step(path)
    follower = JsonlLog(path)
    assert follower.head()[0] == count + len(step_lines(step))
    with open(path, "r+b") as fh:
        fh.truncate(len(whole))
    follower.refresh()
    assert follower.head() == (count, whole.split(b"\n")[-2])
    assert list(follower.lines()) == whole.split(b"\n")[:-1]


def test_a_follower_whose_file_vanishes_between_a_look_and_a_read_waits_for_the_next(tmp_path, monkeypatch):
    path = tmp_path / "fight.jsonl"
    fight(open_log(path))
    follower = JsonlLog(path)
    before = follower.head()
    with open(path, "ab") as fh:
        fh.write(b"{")  # the file changed: the follower will read it again

    def vanished() -> None:
        raise FileNotFoundError(path)

    monkeypatch.setattr(follower, "_scan", vanished)
    follower.refresh()
    assert follower.head() == before


def test_an_append_waits_for_the_lock_another_writer_holds(tmp_path):
    fcntl = pytest.importorskip("fcntl")
    path = tmp_path / "fight.jsonl"
    log = JsonlLog(path)
    done = threading.Event()

    def append() -> None:
        log.append(sealed_notes(1), expected_seq=1)
        done.set()

    with open(path, "ab") as other:
        fcntl.flock(other.fileno(), fcntl.LOCK_EX)
        writer = threading.Thread(target=append)
        writer.start()
        assert not done.wait(0.2) and path.read_bytes() == b""
        fcntl.flock(other.fileno(), fcntl.LOCK_UN)
    writer.join()
    assert done.is_set() and path.read_bytes() == sealed_notes(1)[0] + b"\n"


def test_a_follower_whose_file_is_removed_waits_for_the_next(tmp_path):
    path = tmp_path / "fight.jsonl"
    fight(open_log(path))
    follower = JsonlLog(path)
    before = follower.head()
    path.unlink()
    follower.refresh()
    assert follower.head() == before


# --- reading from any seq of a long file -------------------------------------------------------------------


def test_any_range_of_a_long_file_reads_the_same_lines_whatever_the_index_holds(tmp_path):
    path = tmp_path / "long.jsonl"
    raw = sealed_notes(2100)
    path.write_bytes(b"".join(line + b"\n" for line in raw))
    fresh = JsonlLog(path)
    assert list(fresh.lines(1500, 1501)) == raw[1499:1501]  # the index is built on the way
    far = JsonlLog(path)
    assert list(far.lines(1500, 1501)) == raw[1499:1501]  # the index reaches its second mark only
    assert list(far.lines(2100)) == raw[2099:]
    log = JsonlLog(path)
    assert list(log.lines()) == raw
    ranges = [(1, 1), (0, 2), (1023, 1026), (1024, 1024), (1025, 1025), (2048, 2050), (2049, None), (2100, None)]
    for start, stop in ranges:
        expected = raw[max(start, 1) - 1 : stop]
        assert list(log.lines(start, stop)) == expected, (start, stop)
        assert list(fresh.lines(start, stop)) == expected, (start, stop)
    assert list(log.lines(3000)) == []
    assert list(log.decodable_lines()) == [line + b"\n" for line in raw]


def test_a_one_line_log_reads_its_line(tmp_path):
    path = tmp_path / "one.jsonl"
    raw = sealed_notes(1)
    path.write_bytes(raw[0] + b"\n")
    assert list(JsonlLog(path).lines()) == raw


def test_a_memory_log_reads_from_seq_1_when_asked_from_0_and_heads_with_its_last_line():
    log = MemoryLog()
    raw = sealed_notes(3)
    log.append(raw, expected_seq=1)
    assert list(log.lines(0, 2)) == raw[:2]
    assert log.head() == (3, raw[-1])


# --- the words of a lost race ---------------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["memory:", "fight.jsonl", "fight.db"])
def test_a_writer_one_step_behind_is_told_the_one_seq_someone_else_added(tmp_path, where):
    log = open_log(where if where == "memory:" else tmp_path / where)
    raw = sealed_notes(3, step_size=3)
    log.append(raw, expected_seq=1)
    with pytest.raises(ConcurrencyError, match=r"someone else added steps \(seq 3\) since"):
        log.append(sealed_notes(4)[3:], expected_seq=3)
    assert log.head() == (3, raw[-1])


def test_a_json_lines_log_opened_again_after_an_append_heads_with_the_same_line(tmp_path):
    path = tmp_path / "fight.jsonl"
    s = fight(open_log(path))
    s.auto()
    assert JsonlLog(path).head() == s.log.head() == (len(path.read_bytes().split(b"\n")) - 1, list(s.log.lines())[-1])


# --- SQLite ---------------------------------------------------------------------------------------------------------


def test_an_sqlite_log_opened_to_read_reads_every_line_and_from_another_thread(tmp_path):
    path = tmp_path / "fight.db"
    s = fight(open_log(path))
    raw = list(s.log.lines())
    reader = SqliteLog(path, read_only=True)
    assert list(reader.lines()) == raw and reader.head() == (len(raw), raw[-1])
    seen: list[list[bytes]] = []
    for log in (reader, s.log):
        thread = threading.Thread(target=lambda log=log: seen.append(list(log.lines())))
        thread.start()
        thread.join()
    assert seen == [raw, raw]


def test_a_busy_sqlite_log_is_a_concurrency_error_not_a_traceback(tmp_path):
    path = tmp_path / "fight.db"
    log = SqliteLog(path)
    log.db.execute("PRAGMA busy_timeout = 0")  # refuse at once rather than wait ten seconds
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(ConcurrencyError, match="the log is busy"):
            log.append(sealed_notes(1), expected_seq=1)
    finally:
        other.execute("ROLLBACK")
        other.close()


def test_a_database_of_another_program_is_refused_naming_its_first_five_tables(tmp_path):
    path = tmp_path / "other.db"
    db = sqlite3.connect(path)
    for name in "abcdef":
        db.execute(f"CREATE TABLE {name} (x)")
    db.commit()
    db.close()
    with pytest.raises(LogError, match=r"\(it holds a, b, c, d, e, and no combatlog_events\)"):
        SqliteLog(path)


VIEWS = {
    "a view": "SELECT 1 AS seq, 1 AS step, 'x' AS line",
    "a recursive view": (
        "WITH RECURSIVE c(seq, step, line) AS (SELECT 1, 1, 'x' UNION ALL SELECT seq + 1, 1, 'x' FROM c) "
        "SELECT * FROM c"
    ),
}


def a_view(path, name: str, view: str) -> bytes:
    db = sqlite3.connect(path)
    db.execute(f"CREATE VIEW {name} AS {view}")
    db.commit()
    db.close()
    return path.read_bytes()


@pytest.mark.parametrize("name", ["combatlog_events", "events"])
@pytest.mark.parametrize("view", VIEWS.values(), ids=VIEWS.keys())
def test_a_view_named_like_the_table_is_refused_before_anything_is_read_or_written(tmp_path, name, view):
    path = tmp_path / "view.db"
    before = a_view(path, name, view)
    for read_only in (True, False):
        says = rf"view.db: not a combatlog SQLite log \(its {name} is a view, not a table\)$"
        with pytest.raises(LogError, match=says):
            open_log(path, create=False, read_only=read_only)
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["view.db"]


@pytest.mark.parametrize("view", VIEWS.values(), ids=VIEWS.keys())
def test_show_audit_and_export_of_a_view_named_like_the_table_say_so_in_one_line_without_hanging(tmp_path, view):
    path = tmp_path / "view.db"
    a_view(path, "combatlog_events", view)
    for command in (["show", str(path)], ["audit", str(path)], ["export", str(path), str(tmp_path / "out.jsonl")]):
        done = subprocess.run(
            [sys.executable, "-c", "from combatlog.cli.main import main; main()", *command],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 1 and done.stderr.count("\n") == 1, (command, done.stderr[-500:])
        assert "its combatlog_events is a view, not a table" in done.stderr
    assert not (tmp_path / "out.jsonl").exists()


@pytest.mark.parametrize(
    ("columns", "shown"),
    [
        ("seq TEXT PRIMARY KEY, step INTEGER, line BLOB", "seq TEXT key, step INTEGER, line BLOB"),
        ("seq INTEGER, step INTEGER, line BLOB", "seq INTEGER, step INTEGER, line BLOB"),
        ("seq INTEGER PRIMARY KEY, step, line TEXT", "seq INTEGER key, step untyped, line TEXT"),
    ],
)
def test_a_table_with_our_columns_declared_otherwise_is_refused_naming_them(tmp_path, columns, shown):
    path = tmp_path / "theirs.db"
    db = sqlite3.connect(path)
    db.execute(f"CREATE TABLE combatlog_events ({columns})")
    db.commit()
    db.close()
    for read_only in (True, False):
        with pytest.raises(LogError, match=rf"its table combatlog_events has columns {shown}; a log's are seq INTEGER"):
            open_log(path, create=False, read_only=read_only)


def test_an_sqlite_follower_reopens_a_new_file_at_its_path_and_waits_while_there_is_none(tmp_path):
    path = tmp_path / "fight.db"
    fight(open_log(path))
    follower = SqliteLog(path, read_only=True)
    before = follower.head()
    other = SqliteLog(tmp_path / "other.db")
    other.append(sealed_notes(2, step_size=2), expected_seq=1)
    follower.refresh()  # the same file: nothing to do
    assert follower.head() == before
    (tmp_path / "other.db").replace(path)  # another file takes the path (its inode differs: both existed)
    follower.refresh()
    assert follower.head()[0] == 2
    path.unlink()
    follower.refresh()  # no file now: nothing to do
    assert follower.head()[0] == 2


# --- a log the user can't write -------------------------------------------------------------------------


@contextlib.contextmanager
def read_only_file(path):
    """`path` as a user who may read it but not write it meets it: mode 444 for a user, and for
    root (who writes anywhere) the immutable flag, which refuses root too, with the same error."""
    if os.geteuid() != 0:
        path.chmod(0o444)
        try:
            yield
        finally:
            path.chmod(0o644)
        return
    try:
        subprocess.run(["chattr", "+i", str(path)], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"root writes any file, and `chattr +i` can't make this one read-only here ({exc})")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True, capture_output=True)


@pytest.mark.parametrize("suffix", [".jsonl", ".db"])
def test_a_write_to_a_log_the_user_cant_write_is_one_line_naming_it_and_appends_nothing(tmp_path, suffix):
    path = tmp_path / f"fight{suffix}"
    runner = CliRunner()
    assert runner.invoke(app, ["new", str(EXAMPLE), str(path)]).exit_code == 0
    before = list(open_log(path, create=False, read_only=True).lines())
    with read_only_file(path):
        result = runner.invoke(app, ["do", str(path), "begin"])
        assert result.exit_code == 1, result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)
        assert result.output.count("\n") == 1 and "Traceback" not in result.output, result.output
        assert result.output.startswith(f"combatlog: {path}: can't write to the log (")
        assert result.output.endswith("; nothing was appended\n")
    assert list(open_log(path, create=False, read_only=True).lines()) == before


def test_repairing_a_log_the_user_cant_write_changes_nothing(tmp_path):
    path = tmp_path / "fight.jsonl"
    whole, count, step = one_more_step(path)
    path.write_bytes(whole + step_lines(step)[0])
    with read_only_file(path):
        log = JsonlLog(path)
        assert log.torn is not None
        with pytest.raises(LogError, match=r"fight.jsonl: can't repair the log \(.+\); nothing was changed$"):
            log.repair()
    assert path.read_bytes() == whole + step_lines(step)[0] and not (tmp_path / "fight.jsonl.torn").exists()


# --- copying ------------------------------------------------------------------------------------------


class Recording(MemoryLog):
    """A memory log that remembers the size of each append."""

    def __init__(self) -> None:
        super().__init__()
        self.appends: list[int] = []

    def append(self, lines, expected_seq: int) -> None:
        super().append(lines, expected_seq)
        self.appends.append(len(lines))


def test_a_copy_appends_step_by_step_and_stops_at_an_unreadable_line_naming_its_seq():
    source = MemoryLog()
    source.append(sealed_notes(6, step_size=2), expected_seq=1)
    target = Recording()
    assert copy_log(source, target) == 6 and target.appends == [2, 2, 2]
    broken = MemoryLog()
    broken._lines = sealed_notes(5, step_size=2)[:4] + [b"not a line"]
    target = Recording()
    with pytest.raises(CorruptLog) as caught:
        copy_log(broken, target)
    assert caught.value.seq == 5 and str(caught.value).startswith("seq 5: can't read the line")
    assert target.appends == [2]  # the step before the bad line might go on in it: not copied


def test_a_session_goes_on_after_a_repair(tmp_path):
    path = tmp_path / "fight.jsonl"
    whole, count, step = one_more_step(path)
    path.write_bytes(whole + step_lines(step)[0])
    log = JsonlLog(path)
    log.repair()
    s = Session(log)
    s.auto()
    assert s.log.head()[0] > count and JsonlLog(path).torn is None


@pytest.mark.parametrize(
    "sizes",
    [
        [1, 1, 1],  # short lines
        [(1 << 20) - 1, 5, (1 << 20) + 3],  # a line ending just before a MiB, a short one, one past a MiB
        [(1 << 20) * 2 + 7, 1],  # a line over two pieces
        [(1 << 20), (1 << 20)],  # lines starting exactly where a piece of a MiB begins
    ],
)
def test_line_starts_are_found_back_from_the_end_whatever_the_line_sizes(sizes):
    import io

    from combatlog.replays.stores import _line_starts_back

    data = b"".join(b"x" * (n - 1) + b"\n" for n in sizes)
    starts, pos = [], 0
    for n in sizes:
        starts.append(pos)
        pos += n
    fh = io.BytesIO(data)
    assert list(_line_starts_back(fh, len(data), 0)) == starts[::-1]  # the last line's first, down to the first
    assert list(_line_starts_back(fh, len(data), starts[1])) == starts[:0:-1]  # down to a floor at a line's start
    assert list(_line_starts_back(fh, 0, 0)) == []
