"""Following a log live: lines and transcript lines as another session or process saves steps."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from combatlog.engine import Session
from combatlog.engine.encounter_file import read_encounter
from combatlog.replays import open_log
from combatlog.replays.follow import follow_envelopes, follow_lines
from combatlog.replays.transcript import tell, transcript
from tests.builders import fight, new_session, one_more_step

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.mark.parametrize("suffix", [".jsonl", ".db"])
def test_a_follower_gets_every_line_in_order_as_another_writer_appends(tmp_path, suffix):
    path = tmp_path / f"f{suffix}"
    writer = fight(open_log(path))
    got: list[bytes] = []
    done = threading.Event()

    def follow() -> None:
        follower = open_log(path)  # its own handle, as another process would have
        try:
            for line in follow_lines(follower, 0, poll=0.01, timeout=5):
                got.append(line)
                if b"the last note" in line and b'"type":"Note"' in line:
                    break
        finally:
            follower.close()
            done.set()

    reader = threading.Thread(target=follow)
    reader.start()
    for _ in range(3):
        writer.auto()
    writer.do("note", text="the last note")
    assert done.wait(10)
    reader.join(5)
    assert got == list(writer.log.lines())


def test_a_jsonl_step_still_being_written_is_followed_only_once_whole(tmp_path):
    path = tmp_path / "f.jsonl"
    whole, count, step = one_more_step(path)
    path.write_bytes(whole + step[: len(step) // 2])  # the writer is half way through the step
    follower = open_log(path)
    assert len(list(follow_lines(follower, 0, poll=0.01, timeout=0.05))) == count
    path.write_bytes(whole + step)  # and now it is whole
    assert list(follow_lines(follower, count, poll=0.01, timeout=0.05)) == step.split(b"\n")[:-1]
    assert follower.torn is None


@pytest.mark.parametrize(
    "example", ["skirmish-ambush", "starflight-patrol", "infinite-realms-road", "swords-of-infinity-ambush"]
)
def test_a_live_transcript_tells_each_step_by_its_end(tmp_path, example):
    log = open_log(tmp_path / "f.db")
    s = Session(log)
    for command in read_encounter(EXAMPLES / f"{example}.toml"):
        s.execute(command)
    s.do("begin")
    s.play_out()
    envelopes = list(follow_envelopes(log, 0, poll=0.01, timeout=0))
    fed = 0

    def feed():
        nonlocal fed
        for envelope in envelopes:
            fed += 1
            yield envelope

    told = []
    for seq, line in tell(feed(), log=log):
        told.append((seq, line, fed))
    assert [(seq, line) for seq, line, _ in told] == list(transcript(log))
    # every line comes out before anything of a later step has been read
    step_of = {e.seq: e.step for e in envelopes}
    last_seq_of_step = {}
    for e in envelopes:
        last_seq_of_step[e.step] = e.seq
    for seq, line, fed_then in told:
        assert fed_then <= last_seq_of_step[step_of[seq]], (seq, line)


def test_follow_on_the_command_line_tells_only_new_steps_with_new(tmp_path):
    path = tmp_path / "f.jsonl"
    writer = fight(open_log(path))
    proc = subprocess.Popen(
        [sys.executable, "-m", "combatlog", "follow", str(path), "--new", "--poll", "0.02", "--timeout", "3"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert "following" in proc.stderr.readline()  # it has read the head: what follows is new
        writer.do("note", text="said after the follower started")
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert out.splitlines() == ["Note: said after the follower started"]


class _NothingYet(Exception):
    """A live stream with nothing more to give for now."""


def test_what_a_step_held_back_is_told_at_its_end_not_when_the_next_step_comes():
    import msgspec

    from combatlog.events import Note, catalogue

    s = fight(open_log("memory:"))
    s.auto()
    envelopes = list(follow_envelopes(s.log, 0, poll=0.01, timeout=0))
    # the first step with an action resolved, its closing event swapped for a note told
    # after the resolution (a rule system's step may end without a turn or round boundary)
    end = next(i for i, e in enumerate(envelopes) if type(e.event) is catalogue.ActionResolved) + 1
    step = envelopes[end - 1].step
    first = next(i for i, e in enumerate(envelopes) if e.step == step)
    stream = envelopes[:end] + [
        msgspec.structs.replace(
            envelopes[end - 1], seq=envelopes[end - 1].seq + 1, event=Note(text="told at the step's end")
        )
    ]
    issued = stream[first]
    stream[first] = msgspec.structs.replace(
        issued, event=msgspec.structs.replace(issued.event, events=len(stream) - first)
    )

    def feed():
        yield from stream
        raise _NothingYet

    told: list[str] = []
    with pytest.raises(_NothingYet):
        for _, line in tell(feed()):
            told.append(line)
    assert told[-1] == "Note: told at the step's end"


def test_a_log_that_cant_be_folded_is_one_line_naming_the_seq_in_transcript_and_follow(tmp_path):
    from click.testing import CliRunner

    from combatlog.cli.main import app

    path = tmp_path / "f.jsonl"
    fight(open_log(path))
    lines = path.read_bytes().split(b"\n")[:-1]
    del lines[3]  # a gap in the seqs: the digests still hold line by line, the fold refuses
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    for args in (["transcript", str(path)], ["follow", str(path), "--timeout", "0"]):
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 1, result.output
        assert "seq 4" in result.output and "Traceback" not in result.output


def _replace(path: Path, longer: bool) -> None:
    """Put another fight (seed 9: other lines from seq 1) at `path`, as `demo --force` does: a
    whole log (closed, so SQLite's is all in its file) where the old one was, its side files gone."""
    other = path.with_name(f"other{path.suffix}")
    s = new_session(seed=9, begin=True, log=open_log(other))
    if longer:
        s.play_out()
    s.log.close()
    for leftover in (f"{path}-wal", f"{path}-shm"):
        Path(leftover).unlink(missing_ok=True)
    other.replace(path)


@pytest.mark.parametrize("suffix", [".jsonl", ".db"])
def test_a_log_replaced_under_its_follower_is_reported_not_folded_on(tmp_path, suffix):
    import itertools

    from combatlog.events import CorruptLog

    path = tmp_path / f"f{suffix}"
    fight(open_log(path))
    n = open_log(path).head()[0]
    following = follow_envelopes(open_log(path), 0, poll=0.01, timeout=1)
    assert len(list(itertools.islice(following, n))) == n
    _replace(path, longer=True)
    with pytest.raises(CorruptLog, match=f"seq {n + 1}: the line doesn't follow the one before it"):
        next(following)


def test_a_follower_waits_through_a_moment_with_no_file(tmp_path):
    path = tmp_path / "f.jsonl"
    fight(open_log(path))
    log = open_log(path)
    n = log.head()[0]
    path.unlink()  # between `demo --force` removing the log and writing the new one
    assert list(follow_lines(log, n, poll=0.01, timeout=0.05)) == []


@pytest.mark.parametrize("suffix", [".jsonl", ".db"])
def test_a_log_replaced_by_a_shorter_one_under_its_follower_is_reported(tmp_path, suffix):
    from combatlog.events import CorruptLog

    path = tmp_path / f"f{suffix}"
    s = fight(open_log(path))
    s.play_out()
    n = s.log.head()[0]
    s.log.close()
    following = follow_lines(open_log(path), 0, poll=0.01, timeout=1)
    assert len([next(following) for _ in range(n)]) == n
    _replace(path, longer=False)
    with pytest.raises(CorruptLog, match=f"seq {n} was followed, but the log now ends at seq"):
        next(following)


def test_a_log_whose_rule_system_isnt_installed_is_one_line_for_every_reading_command(tmp_path):
    from click.testing import CliRunner

    from combatlog.cli.main import app
    from combatlog.engine import get_rules

    path = tmp_path / "f.jsonl"
    fight(open_log(path))
    version = get_rules("skirmish").version
    path.write_bytes(path.read_bytes().replace(b'"rules":"skirmish"', b'"rules":"nope"'))
    for command in ("show", "replay", "transcript", "follow"):
        args = [command, str(path)] + (["--timeout", "0"] if command == "follow" else [])
        result = CliRunner().invoke(app, args)
        said = f"rule system 'nope' version {version} isn't installed"  # skirmish's, as created
        assert result.exit_code == 1 and said in result.output, (command, result.output)
        assert result.output.count("\n") == 1
