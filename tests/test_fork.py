"""`combatlog fork`: a new log from another's first steps, byte for byte, recorded as a fork."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from combatlog.cli.main import app
from combatlog.engine import Refused, Session
from combatlog.events import CorruptLog, Forked, LogError
from combatlog.projections import replay
from combatlog.replays import MemoryLog, open_log
from combatlog.replays.audit import audit
from combatlog.replays.forks import fork, forked_from, step_end
from tests.builders import new_session


def run(*args: str):
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def played(log=None) -> Session:
    """A skirmish fight (seed 7) played to its end, on `log` (memory by default)."""
    session = new_session(begin=True, log=log)
    session.play_out()
    return session


def step_ends(log) -> list[int]:
    """Every seq of `log` where a step ends, found from the envelopes themselves."""
    envelopes = replay_envelopes(log)
    return [e.seq for i, e in enumerate(envelopes) if i + 1 == len(envelopes) or envelopes[i + 1].step != e.step]


def replay_envelopes(log):
    from combatlog.projections import envelopes

    return list(envelopes(log))


def test_step_end_takes_every_seq_where_a_step_ends_and_no_other():
    log = played().log
    ends = step_ends(log)
    head = log.head()[0]
    assert ends[-1] == head and step_end(log) == head
    for seq in range(0, head + 2):
        if seq in ends:
            assert step_end(log, seq) == seq
        else:
            with pytest.raises(LogError) as refused:
                step_end(log, seq)
            message = str(refused.value)
            assert "\n" not in message
            if 1 <= seq <= head:  # inside a step: the seqs either side that end one
                before = max(e for e in ends if e < seq) if seq > ends[0] else None
                after = min(e for e in ends if e > seq)
                assert f"or {after} (after it)" in message if before else f"give {after} (after it)" in message
                assert before is None or f"give {before} (before it)" in message
            else:
                assert f"seq {seq} is outside the log ({ends[0]} to {head}, where a step ends)" == message


def test_a_fork_is_its_parents_lines_up_to_the_seq_then_its_record_and_audits_clean():
    parent = played().log
    at = step_ends(parent)[len(step_ends(parent)) // 2]
    target = MemoryLog()
    forked = fork(parent, target, at=at)
    head_seq, head_line = parent.head()
    assert forked == Forked(at=at, parent_seq=head_seq, parent_digest=replay(parent).digest)
    assert list(target.lines(1, at)) == list(parent.lines(1, at))
    assert forked_from(target) == forked and forked_from(parent) is None
    report = audit(target)
    assert report.clean, report.findings
    # the record changes nothing of the fight: the state is the parent's at that seq
    assert replay(target).state == replay(parent, at).state
    assert parent.head() == (head_seq, head_line)  # nothing written to the parent


def test_a_fork_plays_on_beside_its_parent_and_still_audits_clean():
    parent = played().log
    target = MemoryLog()
    fork(parent, target, at=step_ends(parent)[12])
    session = Session(target)
    session.play_out()
    assert session.state.phase == "end" and audit(target).clean


def test_the_record_of_a_fork_comes_right_after_the_lines_it_copied():
    session = new_session(begin=True)
    seq = session.projection.seq
    digest = "a" * 64
    with pytest.raises(Refused, match=f"this log ends at seq {seq}"):
        session.do("fork", at=seq - 1, parent_seq=seq, parent_digest=digest)
    with pytest.raises(Refused, match="64 lowercase hex digits"):
        session.do("fork", at=seq, parent_seq=seq, parent_digest="A" * 64)
    with pytest.raises(Refused, match="parent_seq is a seq"):
        session.do("fork", at=seq, parent_seq="12", parent_digest=digest)
    with pytest.raises(Refused, match="before the fork's seq"):
        session.do("fork", at=seq, parent_seq=seq - 1, parent_digest=digest)
    assert session.log.head()[0] == seq  # nothing appended
    session.do("fork", at=seq, parent_seq=seq + 40, parent_digest=digest)
    assert forked_from(session.log) == Forked(at=seq, parent_seq=seq + 40, parent_digest=digest)


def test_a_finished_fight_can_be_forked_at_its_end():
    parent = played().log
    target = MemoryLog()
    fork(parent, target)
    assert replay(target).state.phase == "end" and audit(target).clean


def test_a_parent_whose_digest_chain_breaks_is_not_forked():
    parent = played().log
    lines = list(parent.lines())
    lines[5] = lines[5].replace(b'"Bo"', b'"Bob"')
    broken = MemoryLog()
    broken.append(lines, 1)
    with pytest.raises(CorruptLog, match="seq 6: the digest chain breaks"):
        fork(broken, MemoryLog(), at=step_ends(parent)[-1])


@pytest.mark.parametrize("suffix", [".jsonl", ".db"])
def test_the_command_line_forks_to_a_new_log_of_any_store(tmp_path, suffix):
    parent = tmp_path / "fight.jsonl"
    played(open_log(parent)).log.close()
    at = step_ends(open_log(parent))[8]
    new = tmp_path / f"what-if{suffix}"
    result = run("fork", str(parent), "--at", str(at), str(new))
    assert result.exit_code == 0, result.output
    assert f"a fork of {parent} at seq {at}" in result.output
    child = open_log(new, create=False)
    assert list(child.lines(1, at)) == parent.read_bytes().splitlines()[:at]
    assert run("audit", str(new)).exit_code == 0
    assert run("do", str(new), "auto").exit_code == 0  # and it plays on


def test_the_command_line_refuses_an_existing_new_log_and_writes_nothing(tmp_path):
    parent = tmp_path / "fight.jsonl"
    played(open_log(parent)).log.close()
    new = tmp_path / "what-if.jsonl"
    new.write_bytes(b"mine\n")
    result = run("fork", str(parent), str(new))
    assert result.exit_code == 1 and result.output == f"combatlog: {new} exists; fork writes only to a new log\n"
    assert new.read_bytes() == b"mine\n"


@pytest.mark.parametrize("at, says", [("0", "is outside the log ("), ("3", "is inside step 2 (seqs 3 to 4)")])
def test_a_bad_seq_is_one_line_and_nothing_is_written(tmp_path, at, says):
    parent = tmp_path / "fight.jsonl"
    played(open_log(parent)).log.close()
    new = tmp_path / "what-if.db"
    result = run("fork", str(parent), "--at", at, str(new))
    assert result.exit_code == 1 and says in result.output and result.output.count("\n") == 1
    assert not new.exists()


def test_a_fork_that_fails_halfway_leaves_no_file(tmp_path):
    parent = tmp_path / "fight.jsonl"
    played(open_log(parent)).log.close()
    lines = parent.read_bytes().splitlines(keepends=True)
    lines[20] = lines[20].replace(b'"step"', b'"step" ', 1)  # still a line, no longer the sealed bytes
    parent.write_bytes(b"".join(lines))
    new = tmp_path / "what-if.db"
    result = run("fork", str(parent), str(new))
    assert result.exit_code == 1 and "seq 21: the digest chain breaks" in result.output
    assert "nothing forked" in result.output and not new.exists()


@pytest.mark.parametrize("suffix", [".jsonl", ".db"])
def test_a_fair_fights_fork_gets_the_secret_plays_on_and_audits_fair_once_revealed(tmp_path, monkeypatch, suffix):
    """The fork holds the parent's commitment, so its engine dice need the same secret: it is
    copied beside the fork (owner only); the fork rolls its own dice from it (the fork's record
    is a step of its own, so the steps after it draw other dice than the parent's), and once
    it is revealed every engine die of the fork follows from the committed seed."""
    monkeypatch.delenv("COMBATLOG_FAIR_SECRET", raising=False)
    parent = tmp_path / "fight.jsonl"
    example = Path(__file__).parent.parent / "examples" / "skirmish-ambush.toml"
    assert run("new", str(example), "--log", str(parent), "--fair").exit_code == 0
    assert run("do", str(parent), "begin").exit_code == 0
    new = tmp_path / f"what-if{suffix}"
    result = run("fork", str(parent), str(new))
    assert result.exit_code == 0, result.output
    secret = Path(f"{new}.secret")
    assert f"the secret is copied to {secret}" in result.output
    assert secret.read_bytes() == Path(f"{parent}.secret").read_bytes()
    assert secret.stat().st_mode & 0o777 == 0o600
    for _ in range(3):
        assert run("do", str(new), "auto").exit_code == 0, "the fork's engine dice have their secret"
    assert run("do", str(new), "end").exit_code == 0
    assert run("reveal", str(new)).exit_code == 0
    checked = run("audit", "--fair", str(new))
    assert checked.exit_code == 0 and re.search(
        r"revealed; [1-9][0-9]* engine rolls follow from them", checked.output
    ), checked.output
    assert "\nclean: " in checked.output


def test_a_fair_fights_fork_never_overwrites_a_secret_file_and_says_so(tmp_path, monkeypatch):
    monkeypatch.delenv("COMBATLOG_FAIR_SECRET", raising=False)
    parent = tmp_path / "fight.jsonl"
    example = Path(__file__).parent.parent / "examples" / "skirmish-ambush.toml"
    assert run("new", str(example), "--log", str(parent), "--fair").exit_code == 0
    new = tmp_path / "what-if.jsonl"
    Path(f"{new}.secret").write_text("someone else's\n")
    result = run("fork", str(parent), str(new))
    assert result.exit_code == 0 and "the secret wasn't copied" in result.output and "exists" in result.output
    assert Path(f"{new}.secret").read_text() == "someone else's\n"
