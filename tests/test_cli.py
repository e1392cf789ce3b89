"""The command line, in-process and as a subprocess."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from combatlog.cli.main import app
from combatlog.engine.encounter_file import read_encounter
from combatlog.replays import open_log

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def run(*args: str):
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def demo(path: Path, *extra: str):
    result = run("demo", "--log", str(path), *extra)
    assert result.exit_code == 0, result.output
    return result


def head(path: Path):
    return open_log(path, create=False).head()


def test_demo_plays_the_example_to_the_end_and_prints_the_transcript(tmp_path):
    out = demo(tmp_path / "demo.db").output
    assert out.splitlines()[0].startswith("A Thrynn patrol on Arth under starflight")
    assert "Round 1." in out and "The encounter ends: victory" in out


@pytest.mark.parametrize("timing", ["turn", "simultaneous", "mixed"])
def test_the_same_demo_seed_gives_a_byte_identical_log(tmp_path, timing):
    demo(tmp_path / "a.jsonl", "--seed", "3", "--timing", timing)
    demo(tmp_path / "b.jsonl", "--seed", "3", "--timing", timing)
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    assert b'"at"' not in (tmp_path / "a.jsonl").read_bytes()


def test_demo_refuses_to_overwrite_a_log_without_force(tmp_path):
    demo(tmp_path / "d.db")
    result = run("demo", "--log", str(tmp_path / "d.db"))
    assert result.exit_code == 1 and "pass --force" in result.output
    demo(tmp_path / "d.db", "--force", "--seed", "9")


def test_new_then_do_runs_a_fight_step_by_step(tmp_path):
    log = tmp_path / "f.db"
    assert run("new", str(EXAMPLES / "skirmish-ambush.toml"), "--log", str(log)).exit_code == 0
    assert run("do", str(log), "begin").exit_code == 0
    state = json.loads(run("show", str(log), "--json").output)
    actor = state["acting"][0]
    target = "g1" if state["combatants"][actor]["side"] == "party" else "ayla"
    damage = state["combatants"][actor]["stats"]["damage"]  # the actor's own die: 1d8 or 1d6
    result = run("do", str(log), "act", actor, "strike", target, "--dice", "1d20: 20", "--dice", f"{damage}: 5")
    assert result.exit_code == 0, result.output
    assert json.loads(run("show", str(log), "--json").output)["combatants"][target]["damage"] >= 5
    before = head(log)
    assert run("undo", str(log)).exit_code == 0
    assert json.loads(run("show", str(log), "--json").output)["combatants"][target]["damage"] == 0
    assert run("redo", str(log)).exit_code == 0
    assert head(log)[0] == before[0] + 4


def test_show_json_has_the_promised_keys_and_can_look_back(tmp_path):
    log = tmp_path / "d.db"
    demo(log)
    now = json.loads(run("show", str(log), "--json").output)
    assert {"seq", "phase", "round", "order", "combatants"} <= set(now)
    assert all({"name", "side", "status"} <= set(c) for c in now["combatants"].values())
    early = json.loads(run("show", str(log), "--at", "5", "--json").output)
    assert early["seq"] == 5 and early["phase"] == "setup"


@pytest.mark.parametrize(
    "args, code, message",
    [
        (["do", "{log}", "act", "nobody", "strike", "g1"], 1, "no such combatant"),
        (["do", "{log}", "act", "ayla", "fireball", "g1"], 1, "combatlog: "),
        (["do", "{log}", "dance"], 1, "unknown command"),
        (["do", "{log}", "act", "ayla"], 2, "act needs ACTOR ACTION"),
        (["do", "{log}", "begin", "--param", "oops"], 2, "use KEY=VALUE"),
        (["frobnicate"], 2, "No such command"),
    ],
)
def test_bad_commands_get_one_line_and_append_nothing(tmp_path, args, code, message):
    log = tmp_path / "f.db"
    run("new", str(EXAMPLES / "skirmish-ambush.toml"), "--log", str(log))
    run("do", str(log), "begin")
    before = head(log)
    result = run(*[a.format(log=log) for a in args])
    assert result.exit_code == code
    assert message in result.output
    assert "Traceback" not in result.output
    assert head(log) == before


def test_a_bad_encounter_file_names_the_file_and_the_key(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('rules = "skirmish"\n[[combatants]]\nid = "a"\n')
    result = run("new", str(bad), "--log", str(tmp_path / "x.db"))
    assert result.exit_code == 1
    assert f"{bad}: combatants[0].side: missing" in result.output
    assert not (tmp_path / "x.db").exists()


def test_a_missing_log_is_an_error_and_is_not_created(tmp_path):
    result = run("show", str(tmp_path / "none.db"))
    assert result.exit_code == 1 and "no such log" in result.output
    assert not (tmp_path / "none.db").exists()


def test_audit_is_clean_on_a_played_log_and_names_the_seq_of_a_tampered_line(tmp_path):
    log = tmp_path / "d.jsonl"
    demo(log)
    assert run("audit", str(log)).exit_code == 0
    lines = log.read_bytes().split(b"\n")
    i = next(n for n, line in enumerate(lines) if b'"DamageApplied"' in line)
    lines[i] = lines[i].replace(b'"amount":', b'"amount":9')
    log.write_bytes(b"\n".join(lines))
    result = run("audit", str(log))
    assert result.exit_code == 1
    assert result.output.splitlines()[0].startswith(f"seq {i + 1}: tampered")
    # shared by two processes, the same report; a count of none is refused in one line
    assert run("audit", str(log), "--workers", "2").output == result.output
    refused = run("audit", str(log), "--workers", "0")
    assert refused.exit_code == 2 and "--workers" in refused.output


def test_export_copies_between_stores_with_digests_intact(tmp_path):
    demo(tmp_path / "d.db")
    assert run("export", str(tmp_path / "d.db"), str(tmp_path / "d.jsonl")).exit_code == 0
    assert run("export", str(tmp_path / "d.jsonl"), str(tmp_path / "e.db")).exit_code == 0
    assert list(open_log(tmp_path / "e.db").lines()) == list(open_log(tmp_path / "d.db").lines())
    assert run("audit", str(tmp_path / "d.jsonl")).exit_code == 0


def test_a_torn_log_is_read_with_a_warning_refused_for_writing_and_repaired(tmp_path):
    log = tmp_path / "d.jsonl"
    demo(log)
    log.write_bytes(log.read_bytes() + b'{"seq":999,')
    shown = run("show", str(log), "--json")
    assert shown.exit_code == 0 and "torn" in shown.output
    refused = run("do", str(log), "note", "hello")
    assert refused.exit_code == 1 and "combatlog repair" in refused.output
    assert run("repair", str(log)).exit_code == 0
    assert run("do", str(log), "note", "hello").exit_code == 0


def test_replay_stops_at_the_seq_asked_and_transcript_reads_as_prose(tmp_path):
    log = tmp_path / "d.db"
    demo(log)
    out = run("replay", str(log), "--to", "12", "--json").output.splitlines()
    assert len(out) == 12 and json.loads(out[-1])["seq"] == 12
    md = run("transcript", str(log), "--format", "markdown").output
    assert "### Round 1." in md and md.startswith("# ") and "\n- " in md  # the title a heading, not a bullet


def test_rulesets_and_schema_describe_what_is_installed():
    from combatlog.engine import get_rules

    assert f"skirmish {get_rules('skirmish').version}" in run("rulesets").output
    schema = json.loads(run("schema").output)
    assert schema["title"] == "combatlog log line"
    assert max(len(name) for name in schema["$defs"]) <= 40  # readable names, not the union spelled out
    tags = set(re.findall(r'"enum": \["([^"]+)"\]', json.dumps(schema)))
    for system in ("starflight", "infinite-realms", "swords-of-infinity", "straalara", "triptycho"):
        path = EXAMPLES / next(p.name for p in EXAMPLES.glob(f"{system}-*.toml"))
        events = {str(type(e.event).__struct_config__.tag) for e in _demo(path)}
        assert events <= tags, (system, events - tags)


def _demo(path: Path) -> list:
    """The envelopes of the example at `path` played to its end."""
    from combatlog.replays.cursor import envelopes
    from combatlog.simulate.run import play

    return list(envelopes(play(read_encounter(path), 7, {}).log))


def test_the_module_and_the_console_script_run_as_subprocesses(tmp_path):
    log = tmp_path / "s.db"
    done = subprocess.run(
        [sys.executable, "-m", "combatlog", "demo", "--log", str(log)], capture_output=True, text=True
    )
    assert done.returncode == 0 and "The encounter ends" in done.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "combatlog", "do", str(log), "act", "x", "y"], capture_output=True, text=True
    )
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr


def test_a_corrupted_log_is_named_by_seq_for_every_reader_and_never_half_exported(tmp_path):
    log = tmp_path / "d.jsonl"
    demo(log)
    lines = log.read_bytes().split(b"\n")
    lines[20] = b'{"garbage": true}'
    log.write_bytes(b"\n".join(lines))
    for args in (
        ["show", str(log)],
        ["replay", str(log)],
        ["do", str(log), "note", "x"],
        ["export", str(log), str(tmp_path / "copy.db")],
    ):
        result = run(*args)
        assert result.exit_code == 1, args
        assert "seq 21" in result.output.splitlines()[-1] and "Traceback" not in result.output
    assert not (tmp_path / "copy.db").exists()
    assert run("audit", str(log)).output.startswith("seq 21: tampered")
    not_sqlite = tmp_path / "x.db"
    not_sqlite.write_bytes(b"not a database" * 100)
    result = run("show", str(not_sqlite))
    assert result.exit_code == 1 and "not a combatlog SQLite log" in result.output


def _started(tmp_path) -> Path:
    log = tmp_path / "p.db"
    run("new", str(EXAMPLES / "skirmish-ambush.toml"), "--log", str(log), "--seed", "4")
    run("do", str(log), "begin")
    return log


def test_play_takes_typed_dice_undo_redo_and_saves_every_step(tmp_path):
    log = _started(tmp_path)
    state = json.loads(run("show", str(log), "--json").output)
    actor = state["acting"][0]
    target = "g1" if state["combatants"][actor]["side"] == "party" else "ayla"
    damage = state["combatants"][actor]["stats"]["damage"]
    script = (
        "\n".join(
            [
                "status",
                "act nobody strike g1",  # refused, nothing appended
                "1d20: 20",  # a physical die, queued
                f"{damage}: 3",
                f"act {actor} strike {target}",
                "undo",
                "redo",
                "note 'the bridge creaks'",
                "quit",
            ]
        )
        + "\n"
    )
    result = CliRunner().invoke(app, ["play", str(log)], input=script, catch_exceptions=False)
    assert result.exit_code == 1, result.output  # the one refused line makes a piped play's exit 1
    assert "1 line refused; the others were saved" in result.output
    assert "refused: act 'nobody': no such combatant" in result.output
    assert "dice queued: 2 rolls" in result.output
    after = json.loads(run("show", str(log), "--json").output)
    assert after["combatants"][target]["damage"] >= 3
    lines = list(open_log(log).lines())
    entered = [line for line in lines if b'"source":"entered"' in line]
    assert len(entered) == 2 and b"StepUndone" in b"".join(lines) and b"StepRedone" in b"".join(lines)
    assert b"the bridge creaks" in lines[-1]


def test_play_as_a_subprocess_loses_nothing_when_its_input_just_stops(tmp_path):
    log = _started(tmp_path)
    before = head(log)[0]
    done = subprocess.run(
        [sys.executable, "-m", "combatlog", "play", str(log)], input="auto\nauto\n", capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert head(log)[0] > before
    assert run("audit", str(log)).exit_code == 0


# --- Starflight at the command line ---------------------------------------------------

STARFLIGHT_DUEL = """
title = "A duel at range"
rules = "starflight"
[options]
victory = "ruling"
ranges = "given"
[[combatants]]
id = "ayla"
side = "party"
kind = "pc"
stats = { hp = 20, initiative = 9, hd = 12, strength = 5, weapons = [{ name = "blaster", damage = "2d6", range = 12 }] }
[[combatants]]
id = "thrynn"
side = "patrol"
stats = { hp = 12, initiative = 0, hd = 10, strength = 3, weapons = [{ name = "pistol", damage = "1d6", range = 8 }] }
[[commands]]
kind = "range"
actor = "ayla"
params = { range = 4 }
"""


def test_starflight_by_hand_physical_dice_rule_commands_and_the_rulings(tmp_path):
    (tmp_path / "duel.toml").write_text(STARFLIGHT_DUEL)
    log = tmp_path / "duel.jsonl"
    assert run("new", str(tmp_path / "duel.toml"), "--log", str(log)).exit_code == 0
    assert run("do", str(log), "range", "thrynn", "6").exit_code == 0  # the game master gives the range
    # no seed: initiative is typed in (2d10 read 0-9): Ayla 9+9+9 = 27, the Thrynn 0+0 = 0
    assert run("do", str(log), "begin", "--dice", "2d10z: 9 9", "--dice", "2d10z: 0 0").exit_code == 0
    script = (
        "\n".join(
            [
                "2d10z: 5 6",  # 11 against HD 10: a hit
                "2d6: 3 4",  # 7 damage
                "act ayla shoot thrynn weapon=blaster",
                "end_turn ayla",
                "end_turn thrynn",  # the round ends and waits for the game master's ruling
                "status",
                "conclude victory party",
                "quit",
            ]
        )
        + "\n"
    )
    result = CliRunner().invoke(app, ["play", str(log)], input=script, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "Waiting for the game master: resolve combat" in result.output
    state = json.loads(run("show", str(log), "--json").output)
    assert state["phase"] == "end" and state["winner"] == "party"
    assert state["combatants"]["thrynn"]["damage"] == 7
    prose = run("transcript", str(log)).output
    assert "ayla (initiative 27) fires the blaster at thrynn: 11 against HD 10, a hit; 2d6 = 7 damage." in prose
    assert "GM ruling (resolve combat)" in prose
    assert run("audit", str(log)).exit_code == 0


def test_starflight_rule_commands_take_their_words_and_refuse_extra_ones(tmp_path):
    (tmp_path / "duel.toml").write_text(STARFLIGHT_DUEL)
    log = tmp_path / "duel.db"
    run("new", str(tmp_path / "duel.toml"), "--log", str(log), "--seed", "4")
    before = head(log)
    result = run("do", str(log), "range", "thrynn", "6", "7")
    assert result.exit_code == 2 and "left over: 7" in result.output
    result = run("do", str(log), "place", "ayla", "1", "1")
    assert result.exit_code == 1 and "no grid" in result.output
    assert head(log) == before
    assert run("do", str(log), "marching", "party", "ayla").exit_code == 0


def test_transcript_as_html_and_markdown(tmp_path):
    log = tmp_path / "d.db"
    demo(log, "--timing", "mixed")
    page = run("transcript", str(log), "--format", "html").output
    assert page.startswith("<!DOCTYPE html>") and "<h2>Surprise round.</h2>" in page and "</html>" in page
    from combatlog.engine import get_rules

    version = get_rules("starflight").version
    assert f"<h1>A Thrynn patrol on Arth under starflight {version}, seed 7.</h1>" in page
    md = run("transcript", str(log), "--format", "markdown").output
    assert "### Round 1." in md and "- Composite strength (initial)" in md
    assert " against FHD " in run("transcript", str(log)).output  # the surprise round's flat-footed targets
    detailed = run("transcript", str(log), "--dice").output
    assert "(initiative check)" in detailed and "(initiative check)" not in run("transcript", str(log)).output


@pytest.mark.parametrize("rules", ["starflight", "infinite-realms", "swords-of-infinity", "skirmish"])
def test_every_rule_system_has_a_demo(tmp_path, rules):
    out = demo(tmp_path / f"{rules}.db", "--rules", rules).output
    assert f"under {rules}" in out and "The encounter ends" in out
    assert run("audit", str(tmp_path / f"{rules}.db")).exit_code == 0


def test_every_command_runs_as_a_subprocess(tmp_path):
    """Each command once through `python -m combatlog`, as a script or a shell would call it."""

    def cli(*args: str, input: str | None = None) -> subprocess.CompletedProcess:
        done = subprocess.run([sys.executable, "-m", "combatlog", *args], capture_output=True, text=True, input=input)
        assert "Traceback" not in done.stderr, done.stderr
        return done

    log, copy = tmp_path / "f.jsonl", tmp_path / "f.db"
    assert cli("new", str(EXAMPLES / "starflight-patrol.toml"), "--log", str(log)).returncode == 0
    assert cli("do", str(log), "begin").returncode == 0
    assert cli("do", str(log), "auto").returncode == 0
    assert cli("undo", str(log)).returncode == 0 and cli("redo", str(log)).returncode == 0
    assert cli("play", str(log), input="status\nauto\nquit\n").returncode == 0
    state = json.loads(cli("show", str(log), "--json").stdout)
    assert state["phase"] in ("declare", "resolve") and state["rules_state"]["csi"]
    assert "Surprise round." in cli("replay", str(log)).stdout
    assert cli("transcript", str(log), "--format", "html").stdout.startswith("<!DOCTYPE html>")
    assert cli("audit", str(log)).returncode == 0
    assert cli("export", str(log), str(copy)).returncode == 0 and cli("audit", str(copy)).returncode == 0
    assert cli("repair", str(log)).returncode == 0
    followed = cli("follow", str(log), "--timeout", "0")
    assert followed.returncode == 0 and followed.stdout == cli("transcript", str(log)).stdout
    assert "swords-of-infinity" in cli("rulesets").stdout
    assert json.loads(cli("schema").stdout)["title"] == "combatlog log line"
    assert cli("demo", "--rules", "infinite-realms", "--log", str(tmp_path / "d.db")).returncode == 0
    missing = cli("show", str(tmp_path / "nope.jsonl"))
    assert missing.returncode == 1 and missing.stderr.count("\n") == 1
    assert cli("frobnicate").returncode == 2


@pytest.mark.parametrize(
    "stats, path",
    [
        ('{ hp = 4, attack = "x" }', "attack: expected a whole number, got a text"),
        ('{ hp = "ten" }', "hp: expected a whole number, got a text"),
        ('{ hp = 4, damage = "2q6" }', "damage: can't read dice expression '2q6'"),
        ("{ hp = 0 }", "hp: expected a whole number >= 1"),
    ],
)
def test_a_bad_stat_in_an_encounter_file_names_the_file_the_combatant_and_the_key(tmp_path, stats, path):
    encounter = tmp_path / "bad.toml"
    encounter.write_text(
        'rules = "skirmish"\n[[combatants]]\nid = "a"\nside = "x"\nstats = { hp = 4 }\n'
        f'[[combatants]]\nid = "g2"\nside = "y"\nstats = {stats}\n'
    )
    result = run("new", str(encounter), "--log", str(tmp_path / "f.jsonl"))
    assert result.exit_code == 1
    message = result.output.strip()
    assert "\n" not in message and "Traceback" not in message
    assert message.startswith(f"combatlog: {encounter}: combatants[1] (g2): combatant g2: {path}")
    assert not (tmp_path / "f.jsonl").exists()


def test_an_override_before_the_fight_begins_is_one_line_and_appends_nothing(tmp_path):
    log = tmp_path / "f.jsonl"
    assert run("new", str(EXAMPLES / "skirmish-ambush.toml"), "--log", str(log)).exit_code == 0
    before = log.read_bytes()
    result = run("do", str(log), "override", "--param", "reason=ogre", "--param", 'damage={"target":"g1","amount":3}')
    assert result.exit_code == 1
    assert result.output.strip().count("\n") == 0 and "before the fight begins" in result.output
    assert log.read_bytes() == before


def test_do_auto_undo_and_redo_each_tell_what_the_step_did_then_where_the_fight_stands(tmp_path):
    log = tmp_path / "f.jsonl"
    assert run("new", str(EXAMPLES / "skirmish-ambush.toml"), "--log", str(log)).exit_code == 0
    begun = run("do", str(log), "begin").output.splitlines()
    assert begun[0].startswith("Order: ") and begun[-1].startswith("seq ")
    told = run("do", str(log), "auto").output.splitlines()
    assert " strikes " in told[0] and told[-1].startswith("seq ") and "acting:" in told[-1]
    undone = run("undo", str(log)).output.splitlines()
    assert undone[0].startswith("undone: step ") and told[0].rstrip(".") in undone[0]
    redone = run("redo", str(log)).output.splitlines()
    assert redone[0] == undone[0].replace("undone:", "redone:", 1)
    noted = run("do", str(log), "note", "the", "bridge", "sways").output.splitlines()
    assert noted[0] == "Note: the bridge sways"


@pytest.mark.parametrize(
    "typed, says",
    [
        ("1d20: 25", "25 can't show on a d20 (faces 1-20)"),
        ("2d10: 7", "2d10 is 2 dice; give 2 faces"),
        ("1d20 17", "put a colon after the dice: '1d20: 17'"),
        ("1d20: seventeen", "give the faces as numbers"),
    ],
)
def test_faces_typed_at_the_table_are_checked_against_their_dice_before_anything_runs(tmp_path, typed, says):
    log = tmp_path / "f.jsonl"
    assert run("new", str(EXAMPLES / "skirmish-ambush.toml"), "--log", str(log), "--seed", "3").exit_code == 0
    assert run("do", str(log), "begin").exit_code == 0
    before = log.read_bytes()
    state = json.loads(run("show", str(log), "--json").output)
    actor = state["acting"][0]
    target = "g1" if state["combatants"][actor]["side"] == "party" else "ayla"
    result = run("do", str(log), "act", actor, "strike", target, "--dice", typed)
    assert result.exit_code == 2 and says in result.output and result.output.count("\n") == 1
    assert log.read_bytes() == before


def test_show_gives_each_combatants_stats_and_what_is_left_of_its_track(tmp_path):
    log = tmp_path / "f.jsonl"
    assert run("new", str(EXAMPLES / "skirmish-ambush.toml"), "--log", str(log)).exit_code == 0
    run("do", str(log), "begin")
    run("do", str(log), "override", "--param", "reason=trap", "--param", 'damage={"target":"g1","amount":3}')
    g1 = json.loads(run("show", str(log), "--json").output)["combatants"]["g1"]
    assert g1["stats"]["hp"] == 7 and g1["health"] == {"left": 4, "max": 7, "level": "injured"}
    shown = run("show", str(log)).output
    assert "4/7" in shown


def test_a_name_with_markup_is_shown_as_written(tmp_path):
    encounter = tmp_path / "e.toml"
    encounter.write_text(
        'rules = "skirmish"\n[[combatants]]\nid = "a"\nname = "[/x] Bold [red]"\nside = "x"\n'
        'stats = { hp = 4 }\n[[combatants]]\nid = "b"\nside = "y"\nstats = { hp = 4 }\n'
    )
    log = tmp_path / "f.jsonl"
    assert run("new", str(encounter), "--log", str(log)).exit_code == 0
    result = run("show", str(log))
    assert result.exit_code == 0 and "[/x] Bold [red]" in result.output.replace("\n", "").replace("│", "")


def test_new_takes_the_log_beside_the_encounter_by_default(tmp_path):
    encounter = tmp_path / "ford.toml"
    encounter.write_text((EXAMPLES / "skirmish-ambush.toml").read_text())
    assert run("new", str(encounter)).exit_code == 0 and (tmp_path / "ford.db").exists()
    again = run("new", str(encounter))
    assert again.exit_code == 1 and "exists" in again.output
    assert run("new", str(encounter), str(tmp_path / "second.jsonl")).exit_code == 0


def test_rulesets_name_lists_stats_and_actions_and_init_writes_a_file_that_plays(tmp_path):
    told = run("rulesets", "triptycho").output
    assert "option map required" in told and "stat deck: required" in told and "action play [1 action" in told
    assert "deck keys: name (required), phase, range, thrown, reach, area, incantation, hit, damage" in told
    assert "weapons keys: name (required), damage (required), range" in run("rulesets", "starflight").output
    assert run("rulesets", "chess").exit_code == 1
    target = tmp_path / "mine.toml"
    assert run("init", "--rules", "straalara", str(target)).exit_code == 0
    assert target.read_text().startswith("# A straalara encounter")
    assert run("init", "--rules", "straalara", str(target)).exit_code == 1  # never overwrites
    log = tmp_path / "mine.jsonl"
    assert run("new", str(target), str(log)).exit_code == 0
    assert run("do", str(log), "begin").exit_code == 0


def test_head_and_expect_head_anchor_a_log_against_a_cut_or_a_rewrite(tmp_path):
    log = tmp_path / "h.jsonl"
    assert run("new", str(EXAMPLES / "skirmish-ambush.toml"), str(log)).exit_code == 0
    run("do", str(log), "begin")
    anchor = run("head", str(log)).output.strip()
    seq, digest = anchor.split(":")
    assert int(seq) > 0 and len(digest) == 64
    assert run("audit", str(log), "--expect-head", anchor).exit_code == 0
    run("do", str(log), "auto")  # growing keeps the anchor
    assert run("audit", str(log), "--expect-head", anchor).exit_code == 0
    lines = log.read_bytes().splitlines(keepends=True)
    (tmp_path / "cut.jsonl").write_bytes(b"".join(lines[: int(seq) - 3]))
    cut = run("audit", str(tmp_path / "cut.jsonl"), "--expect-head", anchor)
    assert cut.exit_code == 1 and f"seq {seq} is gone" in cut.output
    wrong = run("audit", str(log), "--expect-head", f"{seq}:{'0' * 64}")
    assert wrong.exit_code == 1 and "rewritten" in wrong.output
    assert run("audit", str(log), "--expect-head", "nonsense").exit_code == 2


def test_audit_lists_dice_typed_at_the_table_and_strict_fails_on_them(tmp_path):
    log = tmp_path / "t.jsonl"
    run("new", str(EXAMPLES / "skirmish-ambush.toml"), str(log))
    run("do", str(log), "begin")
    done = run("audit", str(log), "--strict")
    assert done.exit_code == 0
    state = json.loads(run("show", str(log), "--json").output)
    actor = state["acting"][0]
    foe = next(c for c, v in state["combatants"].items() if v["side"] != state["combatants"][actor]["side"])
    assert run("do", str(log), "act", actor, "strike", foe, "--dice", "1d20: 20", "--dice", "6").exit_code == 0
    told = run("audit", str(log))
    assert told.exit_code == 0 and "typed in" in told.output and "[20]" in told.output
    strict = run("audit", str(log), "--strict")
    assert strict.exit_code == 1 and "2 dice not rolled by the engine" in strict.output


def test_audit_lists_an_override_and_typed_dice_with_their_step_and_who_gave_them(tmp_path):
    log = tmp_path / "o.jsonl"
    run("new", str(EXAMPLES / "skirmish-ambush.toml"), str(log))
    run("do", str(log), "begin")
    override = ["--param", "reason=a lucky branch", "--param", 'damage={"target":"g1","amount":2}']
    assert run("do", str(log), "override", *override, "--by", "alice").exit_code == 0
    told = run("audit", str(log))
    step = json.loads(Path(log).read_text().splitlines()[-1])["step"]
    assert told.exit_code == 0 and f"step {step}: override (damage) by alice: a lucky branch" in told.output
    strict = run("audit", str(log), "--strict")  # an override alone fails a strict audit
    assert strict.exit_code == 1 and "1 override and 0 dice not rolled by the engine" in strict.output
    assert run("do", str(log), "auto", "--dice", "1d20: 20", "--by", "bob").exit_code == 0
    told = run("audit", str(log))
    assert told.exit_code == 0 and "[20] typed in by bob" in told.output, told.output
    assert json.loads(run("audit", str(log), "--json").output)["entered"][0]["typed_by"] == "bob"


def test_names_never_reach_the_terminal_as_escape_sequences_or_markup(tmp_path):
    encounter = tmp_path / "odd.toml"
    text = (EXAMPLES / "skirmish-ambush.toml").read_text()
    encounter.write_text(text.replace('name = "Goblin 1"', 'name = "Gob\\u001b[31mlin <b>[/x]"'))
    log = tmp_path / "odd.jsonl"
    assert run("new", str(encounter), str(log)).exit_code == 0
    run("do", str(log), "begin")
    for args in (("show", str(log)), ("transcript", str(log)), ("transcript", str(log), "--format", "markdown")):
        out = run(*args).output
        assert "\x1b" not in out and "Gob?[31mlin" in out, args
    md = run("transcript", str(log), "--format", "markdown").output
    assert "<b>" not in md and "&lt;b&gt;" in md


def test_workers_past_the_cores_are_capped(tmp_path, monkeypatch):
    import combatlog.replays.parallel as parallel

    seen = {}
    real = parallel.parts

    def spy(log, workers, last):
        seen["workers"] = workers
        return real(log, workers, last)

    monkeypatch.setattr(parallel, "parts", spy)
    log = tmp_path / "w.jsonl"
    run("new", str(EXAMPLES / "skirmish-ambush.toml"), str(log))
    assert run("audit", str(log), "--workers", "64").exit_code == 0
    assert seen["workers"] == parallel.cores()


def test_play_completion_knows_where_the_cursor_is(tmp_path):
    from combatlog.cli.main import write_session
    from combatlog.cli.play import _completer, words_for

    log = _started(tmp_path)
    session = write_session(str(log))
    actor = session.state.acting[0]
    assert "act" in words_for(session, "") and "show" in words_for(session, "s")
    assert words_for(session, "act ")[0] == actor
    assert {"strike", "shoot", "move", "guard"} <= set(words_for(session, f"act {actor} "))
    foes = words_for(session, f"act {actor} strike ")
    assert foes and actor not in foes
    from prompt_toolkit.document import Document

    found = [c.text for c in _completer(session).get_completions(Document(f"act {actor} st"), None)]
    assert found == ["strike"]


def test_play_on_a_terminal_keeps_history_and_ctrl_c_cancels_only_the_line(tmp_path, monkeypatch):
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from combatlog.cli import play as play_module
    from combatlog.cli.main import write_session

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    log = _started(tmp_path)
    session = write_session(str(log))
    with create_pipe_input() as pipe:
        read = play_module._reader(session, interactive=True, input=pipe, output=DummyOutput())
        pipe.send_text("note half typed\x03")  # Ctrl-C: the line is dropped, the loop goes on
        pipe.send_text("status\r")
        assert read() == "status"
    assert "status" in play_module.history_path().read_text()


def test_play_says_which_rolls_a_command_would_ask_for_and_appends_nothing(tmp_path):
    log = _started(tmp_path)
    state = json.loads(run("show", str(log), "--json").output)
    actor = state["acting"][0]
    target = "g1" if state["combatants"][actor]["side"] == "party" else "ayla"
    before = head(log)
    result = CliRunner().invoke(app, ["play", str(log)], input=f"dice? act {actor} strike {target}\nquit\n")
    assert result.exit_code == 0
    asked = next(line for line in result.output.splitlines() if line.startswith("rolls asked: "))
    assert asked.startswith("rolls asked: 1d20+") and f"(strike at {target})" in asked
    assert head(log) == before


def test_the_prose_of_small_commands_reads_as_a_table_would_say_it(tmp_path):
    log = _started(tmp_path)
    assert "GM ruling (surprise): patrol" in run("do", str(log), "ruling", "surprise", "patrol").output
    assert "Goblin 2 leaves the fight (fled)." in run("do", str(log), "remove", "g2", "--param", "reason=fled").output
    ended = run("do", str(log), "end").output
    assert "The encounter ends: ended by the game master." in ended and "None" not in ended


def test_play_queues_a_typed_formula_too(tmp_path):
    """A roll typed at the table may be a formula in d20's syntax, brackets first included."""
    log = _started(tmp_path)
    script = "(1d20+5)*2: 15\n(1d20,1d20)kh1: 3 18\n1d8+2d6: 4 1\nquit\n"
    result = CliRunner().invoke(app, ["play", str(log)], input=script, catch_exceptions=False)
    assert "dice queued: 1 roll;" in result.output and "dice queued: 2 rolls;" in result.output
    assert "refused: " in result.output and "3 numbers" in result.output  # 1d8+2d6 rolls three dice


def test_what_a_person_reads_holds_no_python(tmp_path):
    # "ended by the game master (None)", "1 actions", "a infinite-realms encounter",
    # "use one of False, True", "1 dice; give 1 faces" were each printed once
    encounter = tmp_path / "road.toml"
    assert "an infinite-realms encounter" in run("init", "--rules", "infinite-realms", str(encounter)).output
    assert "[1 action;" in run("rulesets", "skirmish").output
    bad = run("simulate", str(EXAMPLES / "skirmish-ambush.toml"), "--runs", "2", "--option", "group_initiative=nope")
    assert "use one of false, true" in bad.output, bad.output
    log = tmp_path / "f.db"
    assert run("new", str(EXAMPLES / "skirmish-ambush.toml"), "--log", str(log)).exit_code == 0
    assert run("do", str(log), "end").exit_code == 0
    shown = run("show", str(log)).output
    assert "ended by the game master" in shown and "None" not in shown
    typed = run("do", str(log), "note", "x", "--dice", "1d6: 3 4")
    assert "1d6 is a die; give one face" in typed.output


def test_an_undone_steps_lines_stay_in_the_transcript_marked_undone(tmp_path):
    log = tmp_path / "f.db"
    assert run("new", str(EXAMPLES / "skirmish-ambush.toml"), "--log", str(log)).exit_code == 0
    run("do", str(log), "begin")
    run("do", str(log), "note", "the bridge holds")
    run("do", str(log), "undo")
    text = run("transcript", str(log)).output.splitlines()
    assert "Note: the bridge holds [undone]" in text and any(line.startswith("Undone: step") for line in text)
    assert not any(line.startswith("Undone: step") and line.endswith("[undone]") for line in text)
    assert "~~Note: the bridge holds~~ (undone)" in run("transcript", str(log), "--format", "markdown").output
    assert '<del title="undone">Note: the bridge holds</del>' in run("transcript", str(log), "--format", "html").output
    run("do", str(log), "redo")
    assert "Note: the bridge holds" in run("transcript", str(log)).output.splitlines()  # redone: no mark


def test_play_gives_dice_named_for_a_roll_to_that_roll_whoever_resolves_first(tmp_path):
    # simultaneous: g1's declaration resolves both strikes, Ayla's first; dice typed in order would
    # give Ayla's strike the 19 meant for g1's
    encounter = tmp_path / "duel.toml"
    encounter.write_text(
        'rules = "skirmish"\n[options]\ntiming = "simultaneous"\n'
        '[[combatants]]\nid = "ayla"\nside = "party"\nkind = "pc"\n'
        '[combatants.stats]\nhp = 14\ninit = 3\nattack = 4\ndefense = 12\ndamage = "1d8"\n'
        '[[combatants]]\nid = "g1"\nside = "goblins"\n'
        '[combatants.stats]\nhp = 9\ninit = 2\nattack = 1\ndefense = 10\ndamage = "1d6"\n'
    )
    log = tmp_path / "duel.jsonl"
    assert run("new", str(encounter), "--log", str(log)).exit_code == 0
    script = [
        "initiative by g1: 3",
        "initiative by ayla: 15",
        "begin",
        "act ayla strike g1",
        "damage by zed: 3",  # no one of that name: refused at once
        "strike by g1: 19",
        "damage by g1: 4",
        "strike by ayla: 15",
        "damage by ayla: 8",
        "note a hit by bo: 5",  # a command's words come first: a note, not dice
        "act g1 strike ayla",
        "quit",
    ]
    result = CliRunner().invoke(app, ["play", str(log)], input="\n".join(script) + "\n", catch_exceptions=False)
    assert "refused: 'damage by zed: 3': no one here is 'zed'; a roll is named by who rolls it: ayla, g1, gm" in (
        result.output
    )
    assert "dice queued: 4 rolls; damage by ayla takes 8" in result.output
    assert (
        "typed dice went to: 1d20+4 (strike at g1) by ayla [15]; 1d8 (strike damage to g1) by ayla [8]; "
        "1d20+1 (strike at ayla) by g1 [19]; 1d6 (strike damage to ayla) by g1 [4]"
    ) in result.output
    state = json.loads(run("show", str(log), "--json").output)
    assert state["combatants"]["g1"]["damage"] == 8 and state["combatants"]["ayla"]["damage"] == 4
    assert run("audit", str(log)).exit_code == 0


def test_play_with_physical_dice_names_whose_roll_is_next_and_shows_it_in_the_prompt(tmp_path):
    """A fight without a seed: every die is typed. A command refused for a roll not typed yet
    says whose roll it is and how to give it, and the prompt shows it until a step is taken,
    so the next dice typed go to the roll they are meant for."""
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from combatlog.cli import play as play_module
    from combatlog.engine.dice import NeedDice

    text = (EXAMPLES / "skirmish-ambush.toml").read_text().replace("seed = 7\n", "")
    encounter = tmp_path / "table.toml"
    encounter.write_text(text)
    log = tmp_path / "table.jsonl"
    assert run("new", str(encounter), "--log", str(log)).exit_code == 0
    script = "begin\ninitiative by ayla: 12\nbegin\nby bo: 5\nby g1: 6\nby g2: 7\nbegin\nquit\n"
    result = CliRunner().invoke(app, ["play", str(log)], input=script, catch_exceptions=False)
    out = result.output.splitlines()
    assert "refused: begin: enter the faces for 1d20+3 (initiative) by ayla: 1 number from 1 to 20" in out
    assert "type '1d20+3: N', or name the roll: 'initiative by ayla: N'" in out
    assert any(line.startswith("refused: begin: no dice were given for 1d20+1 (initiative) by bo") for line in out)
    assert "Order: Ayla (15); Goblin 2 (9); Goblin 1 (8); Bo (6)" in out  # 12+3, 7+2, 6+2, 5+1

    need = NeedDice("1d20+3", "initiative", 1, 20, by="ayla")
    assert play_module.prompt_text(None, 0) == "combatlog> "
    assert play_module.prompt_text(need, 2) == "combatlog [next roll: 1d20+3 (initiative) by ayla; 2 rolls queued]> "
    session = play_module.write_session(str(log))
    asked: list[str] = []

    def message() -> str:
        asked.append("x")
        return "x> "

    with create_pipe_input() as pipe:  # the terminal's prompt is asked for its text at each line
        read = play_module._reader(session, interactive=True, message=message, input=pipe, output=DummyOutput())
        pipe.send_text("status\r")
        assert read() == "status" and asked == ["x"]
