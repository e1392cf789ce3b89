"""A log from exactly one release ahead is refused (or warned of) like one from far ahead.

Each edge that reads a version number the log carries (its rules' version, an event's
shape version, a store's schema version) is tried at the installed version plus one: the
nearest "newer" there is, where a check written `>= installed + 2`, or comparing version
texts instead of numbers, would let it through.
"""

from __future__ import annotations

import sqlite3

import msgspec
import pytest
from click.testing import CliRunner

from combatlog.cli.main import app
from combatlog.engine import Refused, Session, get_rules
from combatlog.events import CombatantAdded, CorruptLog, LogError, decode_line
from combatlog.replays import JsonlLog, MemoryLog, copy_log, open_log
from combatlog.replays.stores import SqliteLog
from combatlog.simulate.run import moment
from tests.builders import new_session


def _recorded_under(monkeypatch, version: str) -> MemoryLog:
    """A begun skirmish fight, two steps played, recorded under skirmish `version`."""
    monkeypatch.setattr(type(get_rules("skirmish")), "version", version)
    s = new_session(seed=7, begin=True)
    s.auto()
    monkeypatch.undo()  # this combatlog plays its own version again
    return s.log


def test_a_log_one_rules_version_ahead_is_read_but_not_played_on(monkeypatch):
    now = int(get_rules("skirmish").version)
    log = _recorded_under(monkeypatch, str(now + 1))
    session = Session(log)
    assert session.state.rules_version == str(now + 1)
    before = log.head()
    for command in (session.auto, session.undo, lambda: session.do("note", text="later")):
        with pytest.raises(
            Refused, match=f"recorded under skirmish {now + 1}, and this combatlog plays skirmish {now}"
        ):
            command()
    assert log.head() == before  # nothing appended


def test_a_log_one_rules_version_behind_is_not_played_on_either(monkeypatch):
    now = int(get_rules("skirmish").version)
    session = Session(_recorded_under(monkeypatch, str(now - 1)))
    with pytest.raises(Refused, match=f"recorded under skirmish {now - 1}, and this combatlog plays skirmish {now}"):
        session.auto()


def test_a_simulation_from_a_log_one_rules_version_ahead_is_refused(monkeypatch):
    now = int(get_rules("skirmish").version)
    log = _recorded_under(monkeypatch, str(now + 1))
    with pytest.raises(Refused, match=f"recorded under skirmish {now + 1}, and this combatlog plays skirmish {now}"):
        moment(log)
    assert moment(_recorded_under(monkeypatch, str(now))).state.rules_version == str(now)  # its own: simulated


def test_show_warns_of_a_log_one_rules_version_ahead_and_not_of_its_own(monkeypatch, tmp_path):
    now = int(get_rules("skirmish").version)
    for version, warned in ((now + 1, True), (now, False)):
        path = tmp_path / f"v{version}.jsonl"
        copy_log(_recorded_under(monkeypatch, str(version)), JsonlLog(path))
        result = CliRunner().invoke(app, ["show", str(path)])
        assert result.exit_code == 0
        assert ("newer than the skirmish" in result.stderr) is warned, result.stderr


def test_an_event_shape_one_version_ahead_is_refused_not_read_as_todays():
    line = next(line for line in new_session(begin=False).log.lines() if b'"CombatantAdded"' in line)
    ahead = CombatantAdded.version + 1
    with pytest.raises(
        msgspec.ValidationError,
        match=f"CombatantAdded version {ahead} is newer than this release reads \\(version {CombatantAdded.version}\\)",
    ):
        decode_line(line.replace(b'"v":1', f'"v":{ahead}'.encode(), 1))
    assert type(decode_line(line).event) is CombatantAdded  # its own version reads


def test_a_json_lines_log_with_an_event_one_version_ahead_is_corrupt_at_its_seq(tmp_path):
    raw = list(new_session(begin=False).log.lines())
    i = next(n for n, line in enumerate(raw) if b'"CombatantAdded"' in line)
    raw[i] = raw[i].replace(b'"v":1', f'"v":{CombatantAdded.version + 1}'.encode(), 1)
    path = tmp_path / "ahead.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in raw[: i + 1]))
    with pytest.raises(CorruptLog, match=f"seq {i + 1}: .*newer than this release reads"):
        Session(JsonlLog(path, create=False))


def test_a_sqlite_log_one_schema_version_ahead_is_refused_and_its_own_is_read(tmp_path):
    path = tmp_path / "fight.db"
    new_session(log=SqliteLog(path), begin=True).log.close()
    for version, refused in ((SqliteLog.VERSION + 1, True), (SqliteLog.VERSION, False)):
        db = sqlite3.connect(path)
        db.execute(f"PRAGMA user_version = {version}")
        db.close()
        if refused:
            with pytest.raises(
                LogError, match=rf"newer combatlog \(schema version {version}; this one reads up to 1\)"
            ):
                open_log(path, create=False, read_only=True)
        else:
            log = open_log(path, create=False, read_only=True)
            assert log.head()[0] > 0
            log.close()
