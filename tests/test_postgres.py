"""The PostgreSQL store against a real server: round trips, two writers, ranges, live subscribers.

The server comes from COMBATLOG_TEST_POSTGRES (default postgresql://postgres@127.0.0.1:5432/test);
without psycopg or a reachable server every test here is skipped, saying why.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from urllib.parse import quote

import pytest

psycopg = pytest.importorskip("psycopg", reason="psycopg isn't installed; pip install 'combatlog[postgres]'")

from combatlog.engine import Session  # noqa: E402
from combatlog.events import ConcurrencyError, LogError  # noqa: E402
from combatlog.projections.replay import replay  # noqa: E402
from combatlog.replays import MemoryLog, copy_log, open_log  # noqa: E402
from combatlog.replays.audit import audit  # noqa: E402
from combatlog.replays.postgres import TABLE, VERSION, PostgresLog, parse_url  # noqa: E402
from tests.builders import fight, two_writers  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SERVER = os.environ.get("COMBATLOG_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")

try:
    with psycopg.connect(SERVER, connect_timeout=3) as _probe:
        _probe.execute("SELECT 1")
except psycopg.Error as _exc:
    pytest.skip(
        f"no PostgreSQL server at {SERVER} ({' '.join(str(_exc).split())}); "
        "set COMBATLOG_TEST_POSTGRES to a reachable postgresql:// URL",
        allow_module_level=True,
    )


def _drop(encounter: str) -> None:
    with psycopg.connect(SERVER, autocommit=True) as db:
        if db.execute("SELECT to_regclass(%s)", (TABLE,)).fetchone()[0] is not None:
            db.execute(f"DELETE FROM {TABLE} WHERE encounter = %s", (encounter,))


@pytest.fixture
def url(request) -> str:
    """A URL for an encounter of this test's own, empty before and dropped after."""
    encounter = f"pytest-{os.getpid()}-{request.node.name}"
    _drop(encounter)
    sep = "&" if "?" in SERVER else "?"
    yield f"{SERVER}{sep}encounter={quote(encounter)}"
    _drop(encounter)


@pytest.fixture
def opened():
    """Open PostgresLogs through this, so every connection is closed after the test."""
    logs = []

    def open_(url: str, create: bool = True):
        log = open_log(url, create=create)
        logs.append(log)
        return log

    yield open_
    for log in logs:
        log.close()


def played() -> MemoryLog:
    log = MemoryLog()
    fight(log).play_out()
    return log


def test_postgres_urls_open_a_postgres_log(url, opened):
    assert isinstance(opened(url), PostgresLog)
    assert isinstance(opened(url.replace("postgresql://", "postgres://", 1)), PostgresLog)
    conninfo, encounter, shown = parse_url("postgresql://me:secret@db.example:6543/games?sslmode=require")
    assert encounter == "default"
    assert "sslmode=require" in conninfo and "encounter" not in conninfo
    assert "secret" not in shown


def test_a_played_log_round_trips_byte_for_byte_and_replays_the_same(url, opened):
    memory = played()
    log = opened(url)
    assert copy_log(memory, log) == memory.head()[0]
    again = opened(url, create=False)  # another connection, as another process would
    assert list(again.lines()) == list(memory.lines())
    assert again.head() == memory.head()
    assert replay(again).state == replay(memory).state
    assert Session(again).state == Session(memory).state
    assert audit(again).clean


def test_a_session_plays_straight_onto_postgres(url, opened):
    s = fight(opened(url))
    s.play_out()
    reopened = Session(opened(url, create=False))
    assert reopened.state == s.state
    assert audit(reopened.log).clean


def test_two_writers_conflict_and_nothing_is_lost_or_doubled(url, opened):
    two_writers(lambda: opened(url))  # each its own connection


def test_a_lost_race_on_the_primary_key_is_a_concurrency_error(url, opened):
    """Two connections both past the seq check: the primary key refuses the later insert."""
    memory = played()
    steps: list[list[bytes]] = []
    for line in memory.lines():
        if b'"type":"CommandIssued"' in line:
            steps.append([])
        steps[-1].append(line)
    a, b = opened(url), opened(url)
    a.append(steps[0], 1)
    # b inserts the same seq in an open transaction, then a tries: a must wait for b and lose.
    seq = len(steps[0]) + 1
    with b.db.transaction():
        b.db.execute(
            f"INSERT INTO {TABLE} (encounter, seq, step, line) VALUES (%s, %s, 2, %s)", (b.encounter, seq, steps[1][0])
        )
        done: list[BaseException] = []
        racer = threading.Thread(target=lambda: _append_catching(a, steps[1], seq, done))
        racer.start()
        racer.join(0.3)
        assert racer.is_alive()  # blocked on b's uncommitted row
    racer.join(5)
    assert len(done) == 1 and isinstance(done[0], ConcurrencyError)
    assert f"another writer took it first; the log's next seq is {seq + 1}" in str(done[0])
    assert a.head()[0] == seq  # only b's row, nothing of a's step


def _append_catching(log, lines, seq, out):
    try:
        log.append(lines, seq)
    except BaseException as exc:
        out.append(exc)


def test_a_refused_append_writes_nothing(url, opened):
    memory = played()
    log = opened(url)
    copy_log(memory, log)
    before = list(log.lines())
    n = log.head()[0]
    said = {
        n: rf"someone else added steps \(seq {n}\)",
        n + 2: f"its next is {n + 1}",
        1: rf"someone else added steps \(seqs 1-{n}\)",
    }
    for wrong, says in said.items():
        with pytest.raises(ConcurrencyError, match=says):
            log.append([b'{"seq":1,"step":1}', b'{"seq":2,"step":1}'], wrong)
    with pytest.raises(LogError, match="not a sealed event line.*nothing was appended"):
        log.append([b"not json"], n + 1)
    with pytest.raises(LogError, match=f"the line for seq {n + 2} is not a sealed event line"):
        log.append([before[-1], b"x"], n + 1)  # the second line is the bad one
    assert list(log.lines()) == before
    log.append([], n + 1)  # an empty step at the right seq is allowed and writes nothing
    assert log.head()[0] == n


def test_lines_ranges_and_head(url, opened):
    memory = played()
    every = list(memory.lines())
    log = opened(url)
    assert log.head() == (0, None)
    assert list(log.lines()) == []
    copy_log(memory, log)
    log.BATCH = 7  # force several pages
    assert list(log.lines()) == every
    n = len(every)
    for start, stop in ((1, 1), (0, 3), (2, 9), (8, 8), (n - 3, None), (n, n + 5), (n + 1, None), (5, 4), (1, 15)):
        want = every[max(start, 1) - 1 : n if stop is None else stop]
        assert list(log.lines(start, stop)) == want, (start, stop)
    assert log.head() == (n, every[-1])


def test_appending_while_reading_is_safe(url, opened):
    memory = played()
    log = opened(url)
    copy_log(memory, log)
    log.BATCH = 5
    s = Session(opened(url))
    reader = log.lines()
    first = [next(reader) for _ in range(3)]
    s.do("note", text="written mid-read")
    rest = list(reader)
    assert first + rest == list(log.lines())
    assert any(b"written mid-read" in line for line in rest)


def test_a_subscriber_receives_lines_other_connections_append(url, opened):
    writer = fight(opened(url))
    start = writer.log.head()[0]
    got: list[bytes] = []
    with opened(url).subscribe(timeout=5) as sub:  # subscribed now: only what comes next

        def follow():
            for line in sub:
                got.append(line)
                if b"three" in line and b'"type":"Note"' in line:
                    return

        writer.do("note", text="one")
        writer.do("note", text="two")
        reader = threading.Thread(target=follow)
        reader.start()
        reader.join(0.3)
        assert reader.is_alive()  # it has read one and two and waits for more
        writer.do("note", text="three, while the subscriber waits")
        reader.join(5)
        assert not reader.is_alive()
    assert got == list(writer.log.lines(start + 1))
    assert sub.seq == writer.log.head()[0]


def test_a_subscriber_wakes_on_notify_not_only_on_poll(url, opened):
    writer = fight(opened(url))
    with opened(url).subscribe(timeout=5, poll=30) as sub:  # polling alone would take 30 s
        got: list[bytes] = []
        reader = threading.Thread(target=lambda: got.append(next(sub)))
        reader.start()
        reader.join(0.2)
        writer.do("note", text="wake up")
        reader.join(3)
        assert not reader.is_alive()
    assert got and got[0] == list(writer.log.lines(sub.seq, sub.seq))[0]


def test_a_subscriber_from_zero_replays_then_ends_after_its_timeout(url, opened):
    memory = played()
    copy_log(memory, opened(url))
    with opened(url).subscribe(after_seq=0, timeout=0.2, poll=0.05) as sub:
        assert list(sub) == list(memory.lines())


def test_another_encounter_in_the_same_database_is_separate(url, opened):
    copy_log(played(), opened(url))
    other = url + "-other"
    _drop(other.rsplit("encounter=", 1)[1])
    try:
        log = opened(other)
        assert log.head() == (0, None)
        with log.subscribe(timeout=0.3, poll=0.05) as sub:
            Session(opened(url)).do("note", text="not for the other encounter")
            assert list(sub) == []
    finally:
        _drop(other.rsplit("encounter=", 1)[1])


def _one_line_log_error(url: str, match: str) -> str:
    with pytest.raises(LogError, match=match) as info:
        open_log(url).close()
    message = str(info.value)
    assert "\n" not in message
    return message


def test_bad_urls_and_unreachable_servers_give_a_one_line_log_error(url, opened):
    message = _one_line_log_error(
        "postgresql://postgres:secret@127.0.0.1:1/test?connect_timeout=2", "can't connect to the PostgreSQL server"
    )
    assert "secret" not in message
    message = _one_line_log_error(
        "postgresql://me:secret@127.0.0.1:notaport/test", "not a PostgreSQL URL.*use postgresql://"
    )
    assert "secret" not in message
    _one_line_log_error(SERVER + ("&" if "?" in SERVER else "?") + "colour=red", "not a usable PostgreSQL URL")
    _one_line_log_error(url + "&encounter=twice", "given 2 times")
    _one_line_log_error(url.split("?")[0] + "?encounter=", "encounter name must be")
    with pytest.raises(LogError, match="no such log"):
        open_log(url, create=False)


def test_the_command_line_plays_exports_and_audits_through_a_postgres_url(url, opened, tmp_path):
    from click.testing import CliRunner

    from combatlog.cli.main import app

    def run(*args: str):
        return CliRunner().invoke(app, list(args), catch_exceptions=False)

    first = run("demo", "--rules", "skirmish", "--log", url)
    assert first.exit_code == 0, first.output
    count = opened(url).head()[0]
    assert count > 0
    # a URL naming an encounter that holds events is refused, and kept, unless --force
    again = run("demo", "--rules", "skirmish", "--log", url)
    assert again.exit_code == 1 and "holds events" in again.output
    assert opened(url).head()[0] == count
    assert run("demo", "--rules", "skirmish", "--log", url, "--force").exit_code == 0
    assert opened(url).head()[0] == count  # replaced, not appended to: the same seed gives the same log
    assert run("audit", url).exit_code == 0
    # export to a file and back to a fresh encounter: every byte intact
    db = tmp_path / "copy.db"
    assert run("export", url, str(db)).exit_code == 0
    other = url + "-copy"
    try:
        assert run("export", str(db), other).exit_code == 0
        assert list(opened(other).lines()) == list(opened(url).lines())
        refused = run("export", str(db), other)
        assert refused.exit_code == 1 and "holds events" in refused.output
        refused = run("new", str(EXAMPLES / "starflight-patrol.toml"), "--log", other)
        assert refused.exit_code == 1 and "holds events" in refused.output
        # an export that fails halfway takes its half copy back
        broken = tmp_path / "broken.jsonl"
        lines = list(opened(url).lines())
        lines[len(lines) // 2] = b"not a line"
        broken.write_bytes(b"".join(line + b"\n" for line in lines))
        half = url + "-half"
        failed = run("export", str(broken), half)
        assert failed.exit_code == 1 and "nothing exported" in failed.output
        assert opened(half).head()[0] == 0
    finally:
        _drop(parse_url(other)[1])
        _drop(parse_url(url + "-half")[1])


def test_follow_on_the_command_line_is_woken_by_another_connections_step(url, opened):
    import subprocess
    import sys

    writer = fight(opened(url))
    proc = subprocess.Popen(
        [sys.executable, "-m", "combatlog", "follow", url, "--new", "--poll", "30", "--timeout", "3"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert "following" in proc.stderr.readline()
        writer.do("note", text="through NOTIFY")  # polling alone would take 30 s
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert out.splitlines() == ["Note: through NOTIFY"]


def test_an_export_that_loses_a_race_leaves_the_other_writers_events_alone(url, opened, monkeypatch):
    from click.testing import CliRunner

    import combatlog.cli.main as cli
    from tests.builders import new_session

    source = played()
    theirs = list(new_session(seed=9, begin=True).log.lines())

    class Slow:
        """The source of the export, read while another process writes its own fight into the encounter."""

        torn = None

        def head(self):
            return source.head()

        def close(self):
            pass

        def lines(self, *args):
            for i, line in enumerate(source.lines(*args)):
                if i == 2:
                    other = opened(url)
                    other.append(theirs[:20], 1)
                yield line

    monkeypatch.setattr(cli, "read_log", lambda path, **_: Slow())
    result = CliRunner().invoke(cli.app, ["export", "source", url])
    assert result.exit_code == 1 and "nothing exported" in result.output
    assert list(opened(url).lines()) == theirs[:20]


def test_a_follower_notices_the_encounter_replaced_by_a_shorter_fight(url, opened):
    from combatlog.events import CorruptLog
    from combatlog.replays.follow import follow_lines

    source = played()
    copy_log(source, opened(url))
    n = source.head()[0]
    following = follow_lines(opened(url), 0, poll=0.05, timeout=5)
    assert len([next(following) for _ in range(n)]) == n
    log = opened(url)
    log.clear()  # as `demo --force` does, then a shorter fight
    fight(log)
    with pytest.raises(CorruptLog, match=f"seq {n} was followed, but the log now ends at seq"):
        next(following)


def test_an_audit_split_across_processes_reads_postgresql_through_connections_of_its_own(url, opened):
    from combatlog.replays import audit as audit_module
    from combatlog.replays import parallel

    from .test_audit import late_damage, long_raw

    if not parallel.can_fork():
        pytest.skip("a split audit forks, which this platform can't")
    raw = long_raw()
    raw[late_damage(raw)] = raw[late_damage(raw)].replace(b'"amount":', b'"amount":1')
    log = opened(url)
    copy_log(_from(raw), log)
    one = audit(log, workers=1)
    assert [f.kind for f in one.findings] == ["tampered", "unfollowed"]
    assert audit_module.processes(log, 2) == 2
    assert audit(log, workers=2) == one
    assert list(log.lines()) == raw  # the parent's own connection still reads


def _from(raw: list[bytes]) -> MemoryLog:
    log = MemoryLog()
    log._lines = list(raw)
    return log


@pytest.mark.parametrize("ahead", [1, 8])
def test_the_schema_has_a_version_row_and_a_newer_one_is_refused(url, opened, ahead):
    # one version ahead is as newer as eight
    log = opened(url)
    log.close()
    newer = VERSION + ahead
    with psycopg.connect(SERVER, autocommit=True) as db:
        assert db.execute("SELECT version FROM combatlog_schema").fetchall() == [(VERSION,)]
        db.execute(f"UPDATE combatlog_schema SET version = {newer}")
    try:
        with pytest.raises(
            LogError, match=rf"newer combatlog \(schema version {newer}; this one reads up to {VERSION}\)"
        ):
            opened(url)
    finally:
        with psycopg.connect(SERVER, autocommit=True) as db:
            db.execute(f"UPDATE combatlog_schema SET version = {VERSION}")


def test_a_url_python_cant_split_is_one_line_with_no_password():
    message = _one_line_log_error("postgresql://me:secret@[::1/test", "not a PostgreSQL URL")
    assert "secret" not in message


def test_a_fresh_database_gets_both_tables_and_the_version_row():
    """A database (here a schema of its own, by search_path) that never held a log: the first
    log opened to write creates the events table and the schema table with its version row."""
    schema = f"cl_fresh_{os.getpid()}"
    with psycopg.connect(SERVER, autocommit=True) as db:
        db.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        db.execute(f"CREATE SCHEMA {schema}")
    try:
        sep = "&" if "?" in SERVER else "?"
        fresh = f"{SERVER}{sep}options=-csearch_path%3D{schema}&encounter=fresh"
        PostgresLog(fresh).close()
        with psycopg.connect(SERVER, autocommit=True) as db:
            tables = {
                r[0]
                for r in db.execute(
                    "SELECT table_name FROM information_schema.tables WHERE table_schema = %s", (schema,)
                )
            }
            assert tables == {TABLE, "combatlog_schema"}
            assert db.execute(f"SELECT version FROM {schema}.combatlog_schema").fetchall() == [(1,)]
    finally:
        with psycopg.connect(SERVER, autocommit=True) as db:
            db.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


def test_an_encounter_name_is_one_to_two_hundred_characters_without_nul():
    from combatlog.replays.postgres import MAX_ENCOUNTER

    base = "postgresql://127.0.0.1/test?encounter="
    assert parse_url(base + "e" * MAX_ENCOUNTER)[1] == "e" * MAX_ENCOUNTER
    for name in ("e" * (MAX_ENCOUNTER + 1), "a%00b"):
        with pytest.raises(LogError, match="the encounter name must be 1 to 200 characters without NUL"):
            parse_url(base + name)


def test_a_password_with_an_at_sign_never_reaches_a_message():
    with pytest.raises(LogError) as info:
        parse_url("postgresql://me:se@cret@[::1/test")
    assert "cret" not in str(info.value) and "se@" not in str(info.value)


def test_a_connect_timeout_is_added_unless_given():
    conninfo, _, _ = parse_url("postgresql://127.0.0.1/test?encounter=e")
    assert conninfo.endswith("?connect_timeout=10")
    given, _, _ = parse_url("postgresql://127.0.0.1/test?connect_timeout=3&encounter=e")
    assert given.endswith("?connect_timeout=3") and given.count("connect_timeout") == 1


def test_an_error_with_no_words_is_named_by_its_type():
    from combatlog.replays.postgres import _one_line

    assert _one_line(psycopg.OperationalError()) == "OperationalError"
    assert _one_line(psycopg.OperationalError("line one\n  line two\n")) == "line one line two"


def test_a_conflicting_writers_second_error_from_psycopg_is_not_printed(caplog):
    # executemany's pipeline, closed after another writer's row made the insert fail, logs
    # "error ignored terminating <Pipeline ...>: pipeline aborted" beside the one-line conflict
    import logging

    import combatlog.replays.postgres  # noqa: F401  (installs the filter)

    with caplog.at_level(logging.WARNING, logger="psycopg"):
        logging.getLogger("psycopg").warning("error ignored terminating %r: %s", "<psycopg.Pipeline>", "aborted")
        logging.getLogger("psycopg").warning("a warning of another kind")
    assert [r.getMessage() for r in caplog.records] == ["a warning of another kind"]


def test_a_checkpoint_kept_beside_an_encounter_opens_the_next_session_and_clear_drops_it(url, opened):
    first = Session(opened(url), signer=None, checkpoint_every=10)
    first.do("create", rules="skirmish", options={}, seed=1)
    for i in range(12):
        first.do("note", text=f"n{i}")
    log = opened(url)
    seq, _ = log.read_checkpoint()
    assert seq == first.checkpointed > 0
    again = Session(log, signer=None, checkpoint_every=10)
    assert again.checkpointed == seq
    assert again.state == replay(opened(url)).state and again.projection.digest == first.projection.digest
    log.clear()
    assert log.read_checkpoint() is None


def test_fork_writes_to_a_postgres_url_and_from_one(url, opened, tmp_path):
    from click.testing import CliRunner

    from combatlog.cli.main import app

    def run(*args: str):
        return CliRunner().invoke(app, list(args), catch_exceptions=False)

    parent = tmp_path / "fight.jsonl"
    assert run("demo", "--rules", "skirmish", "--log", str(parent)).exit_code == 0
    lines = parent.read_bytes().splitlines()
    assert run("fork", str(parent), "--at", "45", url).exit_code == 0
    assert list(opened(url).lines(1, 45)) == lines[:45]
    assert run("audit", url).exit_code == 0
    refused = run("fork", str(parent), url)
    assert refused.exit_code == 1 and "holds events; fork writes only to a new log" in refused.output
    back = tmp_path / "back.db"
    assert run("fork", url, str(back)).exit_code == 0  # a fork of the fork, at its last seq
    assert run("audit", str(back)).exit_code == 0
    assert list(open_log(back, create=False).lines(1, 45)) == lines[:45]
