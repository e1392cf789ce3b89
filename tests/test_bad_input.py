"""Input that can't hurt: each bad input through the command line is one line on stderr (exit
1, or 2 for usage), never a traceback, and leaves the log as it was."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from combatlog.cli.main import app

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "skirmish-ambush.toml"
DIGITS = "9" * 5000
NESTED = "[" * 5000 + "]" * 5000


@pytest.fixture
def log(tmp_path) -> Path:
    path = tmp_path / "fight.jsonl"
    runner = CliRunner()
    assert runner.invoke(app, ["new", str(EXAMPLE), str(path)]).exit_code == 0
    assert runner.invoke(app, ["do", str(path), "begin"]).exit_code == 0
    return path


CASES = {
    "override without a name": ["override", "--param", "reason=x", "--param", 'condition={"target": "g1"}'],
    "override move without to": ["override", "--param", "reason=x", "--param", 'move={"target": "g1"}'],
    "override damage not a map": ["override", "--param", "reason=x", "--param", "damage=5"],
    "override damage 1e400": ["override", "--param", "reason=x", "--param", 'damage={"target":"g1","amount":1e400}'],
    "override damage 5000 digits": [
        "override",
        "--param",
        "reason=x",
        "--param",
        'damage={"target":"g1","amount":' + DIGITS + "}",
    ],
    "override without a reason": ["override", "--param", 'damage={"target":"g1","amount":1}'],
    "act by nobody": ["act", "nobody", "strike", "g1"],
    "act an unknown action": ["act", "bo", "dance"],
    "dice past the caps": ["act", "bo", "strike", "g1", "--dice", "1d6: " + DIGITS],
    "dice on the wrong die": ["act", "bo", "strike", "g1", "--dice", "1d20: 25"],
    "a param without a value": ["note", "--param", "text"],
    "an unknown command": ["launch", "g1"],
    "a view that isn't one": ["view", "--param", "side=goblins", "--param", "hp=secret"],
    "override resources values a number": [
        "override",
        "--param",
        "reason=x",
        "--param",
        'resources={"target":"g1","values":5}',
    ],
    "override resources a value not a number": [
        "override",
        "--param",
        "reason=x",
        "--param",
        'resources={"target":"g1","values":{"ap":"x"}}',
    ],
    "override with a target that is a table": [
        "override",
        "--param",
        "reason=x",
        "--param",
        'defeat={"target":{"id":"g1"}}',
    ],
    "a view setting that doesn't exist": ["view", "--param", "combatant=g1", "--param", "colour=red"],
    "act with 200 KB of parameters": ["act", "bo", "strike", "g1", "--param", "junk=" + '"' + "x" * 200_000 + '"'],
    "reveal=act without hiding": [
        "view",
        "--param",
        "combatant=g1",
        "--param",
        "hidden=false",
        "--param",
        "reveal=act",
    ],
}


@pytest.mark.parametrize("args", CASES.values(), ids=CASES.keys())
def test_a_bad_command_is_one_line_and_leaves_the_log_alone(log, args):
    before = hashlib.sha256(log.read_bytes()).hexdigest()
    result = CliRunner().invoke(app, ["do", str(log), *args])
    assert result.exit_code in (1, 2), result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.output.strip().count("\n") == 0, result.output
    assert hashlib.sha256(log.read_bytes()).hexdigest() == before


def test_deeply_nested_json_is_taken_as_text_not_a_crash(log):
    result = CliRunner().invoke(app, ["do", str(log), "note", "--param", f"text={NESTED}"])
    assert result.exit_code == 0 and isinstance(result.exception, SystemExit | None)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["show", "{tmp}/folder.jsonl"], "a folder, not a log"),
        (["new", str(EXAMPLE), "{tmp}/missing/f.jsonl"], "the folder"),
        (["demo", "--log", "{tmp}/missing/d.db"], "the folder"),
        (["show", "{tmp}/nothing.jsonl"], "no such log"),
        (["show", "{tmp}/empty.db"], "no such log (an empty database"),
        (["audit", "{tmp}/empty.db"], "no such log (an empty database"),
        (["show", "{tmp}/notes.txt"], "can't tell the store from the name"),
        (["audit", "{tmp}/fight.jsonl", "--expect-head", "x"], "SEQ:DIGEST"),
        (["audit", "{tmp}/fight.jsonl", "--expect-head", DIGITS + ":ab"], "SEQ:DIGEST"),
    ],
)
def test_a_bad_path_is_one_line(tmp_path, args, says):
    (tmp_path / "folder.jsonl").mkdir()
    (tmp_path / "empty.db").write_bytes(b"")
    (tmp_path / "fight.jsonl").write_bytes(b"")
    result = CliRunner().invoke(app, [a.replace("{tmp}", str(tmp_path)) for a in args])
    assert result.exit_code in (1, 2) and says in result.output, result.output
    assert result.output.strip().count("\n") == 0, result.output


@pytest.mark.parametrize(
    ("stat", "says"),
    [
        ('hp = "ten"', "hp: expected a whole number"),
        ("hp = inf", "hp: expected a whole number"),
        ("hp = nan", "hp: expected a whole number"),
        ("hp = -3", ">= 1"),
        ("hp = true", "hp: expected a whole number"),
        ("hp = 9223372036854775807", "stats.hp: 9223372036854775807 is past 9,999,999"),
        ("hp = 14\nap = 10000000", "stats.ap: 10000000 is past 9,999,999, the most a number in a roll can be"),
    ],
)
def test_a_bad_stat_is_refused_when_the_combatant_is_added(tmp_path, stat, says):
    text = EXAMPLE.read_text().replace("hp = 14", stat, 1)
    encounter = tmp_path / "bad.toml"
    encounter.write_text(text)
    result = CliRunner().invoke(app, ["new", str(encounter), str(tmp_path / "bad.jsonl")])
    assert result.exit_code == 1 and says in result.output and "combatants[0] (ayla)" in result.output, result.output
    assert result.output.strip().count("\n") == 0
    assert not (tmp_path / "bad.jsonl").exists()


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("zz = " + NESTED + "\n", "nested too deep"),
        ("seed = " + DIGITS + "\n", "more than 4,300 digits"),
    ],
)
@pytest.mark.parametrize("command", ["new", "simulate"])
def test_an_encounter_file_past_the_limits_is_one_line(tmp_path, text, says, command):
    encounter = tmp_path / "bad.toml"
    encounter.write_text(text + EXAMPLE.read_text())
    args = [str(tmp_path / "bad.jsonl")] if command == "new" else ["--runs", "2"]
    result = CliRunner().invoke(app, [command, str(encounter), *args])
    assert result.exit_code in (1, 2) and says in result.output, result.output
    assert result.output.strip().count("\n") == 0, result.output
    assert not (tmp_path / "bad.jsonl").exists()


def test_a_combatant_refused_inside_a_simulation_s_worker_processes_is_one_line(tmp_path):
    encounter = tmp_path / "bad.toml"
    encounter.write_text(EXAMPLE.read_text().replace("hp = 14", "hp = -3", 1))
    result = CliRunner().invoke(app, ["simulate", str(encounter), "--runs", "4", "--workers", "2"])
    assert result.exit_code in (1, 2) and ">= 1" in result.output and "ayla" in result.output, result.output
    assert result.output.strip().count("\n") == 0, result.output


def test_play_lines_past_the_limits_are_one_line_each_and_the_loop_goes_on(log):
    before = hashlib.sha256(log.read_bytes()).hexdigest()
    script = f"1d6: {DIGITS}\nlog {DIGITS}\nact bo strike g1 --param x={NESTED}\nstatus\nquit\n"
    result = CliRunner().invoke(app, ["play", str(log)], input=script)
    assert result.exit_code == 1 and "Traceback" not in result.output  # piped: a refused line is an exit of 1
    assert "refused: " in result.output and "saved: " in result.output and "lines refused" in result.output
    assert hashlib.sha256(log.read_bytes()).hexdigest() == before


def test_a_malformed_override_on_the_web_is_a_422_with_its_one_line_and_appends_nothing(tmp_path):
    pytest.importorskip("litestar", reason="the web extra isn't installed")
    from litestar.testing import TestClient

    from combatlog.web.app import create_app
    from combatlog.web.tables import Tables
    from tests.test_web import new_log, post

    tables = Tables.single(str(new_log(tmp_path / "ford.db")), b"a test secret")
    table = tables.all()[0]
    with TestClient(create_app(tables)) as client:
        post(client, table, kind="begin")
        before = table.seq
        line = """override reason=x 'resources={"target":"g1","values":5}'"""
        response = post(client, table, kind="line", line=line)
        assert response.status_code == 422
        assert "values is a mapping of resource names to whole numbers" in response.text
        assert table.seq == before


def test_show_of_a_log_recorded_under_newer_rules_warns_in_one_line(tmp_path):
    import msgspec

    from combatlog.engine import get_rules
    from combatlog.events import EncounterCreated
    from tests.test_audit_findings import played, rechained

    later = str(int(get_rules("skirmish").version) + 1)
    raw = rechained(
        played(), lambda i, e: msgspec.structs.replace(e, rules_version=later) if type(e) is EncounterCreated else e
    )
    path = tmp_path / "later.jsonl"
    path.write_bytes(b"".join(line if line.endswith(b"\n") else line + b"\n" for line in raw))
    result = CliRunner().invoke(app, ["show", str(path)])
    assert result.exit_code == 0
    warnings = [line for line in result.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and f"skirmish {later}, newer than the skirmish {int(later) - 1} installed" in warnings[0]


def test_an_action_with_a_files_worth_of_parameters_is_refused_and_nothing_is_kept():
    from combatlog.engine import Refused, Session
    from combatlog.engine.encounter_file import read_encounter
    from combatlog.events import Command
    from combatlog.replays import MemoryLog

    s = Session(MemoryLog(), signer=None)
    for command in read_encounter(EXAMPLE, seed=1):
        s.execute(command)
    s.do("begin")
    actor = s.state.acting[0]
    target = next(c for c in s.state.combatants.values() if c.side != s.state.combatants[actor].side).id
    before = s.log.head()[0]
    junk = {"junk": [{"deeper": "x" * 1000}] * 200}
    with pytest.raises(Refused, match=r"bytes of parameters; an action takes at most 4,096"):
        s.execute(Command(kind="act", actor=actor, action="strike", targets=(target,), params=junk))
    assert s.log.head()[0] == before
