"""The odds from this moment: `simulate LOG --at SEQ` and `simulate_from`, fights continued from a log."""

from __future__ import annotations

import hashlib
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner

from combatlog.cli.main import app
from combatlog.engine import Command, Refused, Session, get_rules
from combatlog.engine.encounter_file import read_encounter
from combatlog.events import LogError
from combatlog.projections import envelopes, replay
from combatlog.replays import MemoryLog, open_log
from combatlog.simulate import simulate, simulate_from
from combatlog.simulate.run import Continuation, moment, run_seed
from tests.builders import new_session

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
ALL_EXAMPLES = sorted(p.name for p in EXAMPLES.glob("*.toml"))


def run(*args: str):
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def played(example: str, seed: int = 11, log=None) -> Session:
    """The example played to its end by the automatic policy, every step logged."""
    session = Session(MemoryLog() if log is None else log, signer=None)
    for command in read_encounter(EXAMPLES / example, seed=seed):
        session.execute(command)
    session.do("begin")
    session.play_out()
    return session


def step_ends(log) -> list[int]:
    found = list(envelopes(log))
    return [e.seq for i, e in enumerate(found) if i + 1 == len(found) or found[i + 1].step != e.step]


def middle(log) -> int:
    ends = step_ends(log)
    return ends[len(ends) // 2]


@pytest.mark.parametrize("example", ALL_EXAMPLES)
def test_a_continuation_starts_at_the_logs_state_and_with_the_logs_seed_plays_the_logged_fight(example):
    # The oracle: the logged fight itself. Continued from its middle with its own seed as the
    # dice seed, the policy must roll and decide exactly what the log holds after that seq.
    session = played(example)
    log, at = session.log, middle(session.log)
    start = moment(log, at)
    continuation = Continuation(start, session.state.seed)
    assert continuation.state == replay(log, at).state
    assert continuation.step == replay(log, at).step
    continuation.play_out()
    assert continuation.state == session.state


def test_the_same_seed_gives_the_same_report_and_another_seed_another():
    log = played("skirmish-ambush.toml").log
    at = middle(log)
    a = simulate_from(log, at=at, runs=80, seed=5, workers=1)
    assert a == simulate_from(log, at=at, runs=80, seed=5, workers=1)
    assert a != simulate_from(log, at=at, runs=80, seed=6, workers=1)
    assert a.at == at and a.runs == 80


def test_any_number_of_workers_and_any_executor_give_the_same_numbers():
    log = played("starflight-patrol.toml").log
    at = middle(log)
    one = simulate_from(log, at=at, runs=120, seed=2, workers=1)
    assert simulate_from(log, at=at, runs=120, seed=2, workers=2) == one
    with ThreadPoolExecutor(3) as pool:
        assert simulate_from(log, at=at, runs=120, seed=2, executor=pool) == one


def test_from_the_end_of_the_set_up_the_odds_are_the_encounter_files_on_the_same_seeds():
    # An independent oracle: a study of the encounter file plays run i from the same set-up
    # with the dice seed run_seed(S, i), as a continuation of its freshly set-up log does.
    commands = read_encounter(EXAMPLES / "skirmish-ambush.toml")
    session = Session(MemoryLog(), signer=None)
    for command in commands:
        session.execute(command)
    from_log = simulate_from(session.log, runs=60, seed=9, workers=1)
    from_file = simulate(commands, runs=60, seed=9, workers=1)
    assert msgspec.structs.replace(from_log, at=None) == from_file


def test_a_finished_fight_gives_a_report_with_every_run_already_decided():
    session = played("skirmish-ambush.toml")
    state = session.state
    report = simulate_from(session.log, runs=30, seed=1, workers=1)
    assert set(report.winners) == {state.winner}
    assert report.rounds.p5 == report.rounds.p95 == state.round
    for cid, c in report.combatants.items():
        assert c.defeated.p == (1.0 if state.combatants[cid].defeated else 0.0)
        assert c.taken.p5 == c.taken.p95 == max(state.combatants[cid].damage, 0)


def test_defeated_counts_every_way_out_of_the_fight_a_combatant_who_fled_too():
    # Goblin 2 flees (removed by the game master) with no damage, and Goblin 1 is struck down:
    # both are out of the fight in every run; Ayla and Bo, still standing, in none
    session = Session(MemoryLog(), signer=None)
    for command in read_encounter(EXAMPLES / "skirmish-ambush.toml", seed=3):
        session.execute(command)
    session.do("begin")
    session.do("remove", actor="g2", reason="fled")
    session.execute(Command(kind="override", params={"reason": "a falling beam", "defeat": {"target": "g1"}}))
    report = simulate_from(session.log, runs=5, seed=1, workers=1)
    out = {cid: c.defeated.p for cid, c in report.combatants.items()}
    assert out == {"ayla": 0.0, "bo": 0.0, "g1": 1.0, "g2": 1.0}
    assert report.combatants["g2"].ends == {"removed": 1.0}


def test_damage_dealt_counts_the_whole_fight_but_not_an_undone_step():
    session = new_session(begin=True)

    def dealt() -> dict[str, int]:
        return moment(session.log).dealt

    while not any(dealt().values()):
        session.auto()
    before = dealt()  # the fight so far dealt some
    while dealt() == before:
        session.auto()
    session.undo()  # the step that dealt more no longer counts
    assert dealt() == before
    session.redo()  # and counts again
    assert dealt() != before


def test_a_log_without_a_seed_goes_on_with_seeded_dice_from_the_study_seed():
    session = new_session(seed=None, begin=False)
    session.execute(Command(kind="begin", entered=((3,), (4,), (5,), (6,))))
    assert session.state.seed is None
    a = simulate_from(session.log, runs=40, seed=3, workers=1)
    assert a == simulate_from(session.log, runs=40, seed=3, workers=1)
    assert a.runs == 40 and len(set(a.winners)) > 1  # dice rolled: the runs differ
    assert moment(session.log).state.seed is None  # the state continued is the log's own


def test_simulating_a_log_never_writes_to_it(tmp_path):
    for name in ("fight.jsonl", "fight.db"):
        path = tmp_path / name
        played("skirmish-ambush.toml", log=open_log(path)).log.close()
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        simulate_from(str(path), at=middle(open_log(path, create=False)), runs=20, seed=1, workers=1)
        assert run("simulate", str(path), "--runs", "20", "--workers", "1").exit_code == 0
        assert hashlib.sha256(path.read_bytes()).hexdigest() == digest


def test_a_seq_inside_a_step_or_outside_the_log_is_refused_naming_the_range():
    log = played("skirmish-ambush.toml").log
    ends = step_ends(log)
    head = log.head()[0]
    with pytest.raises(LogError, match=rf"^seq {head + 1} is outside the log \({ends[0]} to {head}, where"):
        simulate_from(log, at=head + 1, runs=5)
    inside = ends[5] + 1
    with pytest.raises(LogError, match=rf"^seq {inside} is inside step"):
        simulate_from(log, at=inside, runs=5)
    with pytest.raises(Refused, match=f"no combatants at seq {ends[0]}"):
        simulate_from(log, at=ends[0], runs=5)


def test_the_command_line_continues_a_log_from_a_seq(tmp_path):
    path = tmp_path / "fight.jsonl"
    log = played("starflight-patrol.toml", log=open_log(path)).log
    at = middle(log)
    out = tmp_path / "odds.json"
    result = run("simulate", str(path), "--at", str(at), "--runs", "40", "--workers", "1", "--json", str(out))
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())  # the terminal's width may wrap the heading
    assert f"{path} from seq {at}: 40 fights continued, seed 0" in said and "wins" in said
    data = json.loads(out.read_text())
    assert data["log"] == str(path) and data["at"] == at and "encounter" not in data
    again = json.loads(json.dumps(msgspec.to_builtins(simulate_from(str(path), at=at, runs=40, seed=0, workers=1))))
    del again["winners"]
    assert data == again | {"log": str(path)}


def test_an_encounter_files_json_has_no_seq(tmp_path):
    out = tmp_path / "odds.json"
    encounter = str(EXAMPLES / "skirmish-ambush.toml")
    assert run("simulate", encounter, "--runs", "5", "--workers", "1", "--json", str(out)).exit_code == 0
    assert "at" not in json.loads(out.read_text())


def test_comparing_a_fork_with_its_parent_runs_both_on_the_same_seeds(tmp_path):
    path = tmp_path / "fight.jsonl"
    log = played("skirmish-ambush.toml", log=open_log(path)).log
    fork = tmp_path / "what-if.jsonl"
    assert run("fork", str(path), "--at", str(middle(log)), str(fork)).exit_code == 0
    result = run("simulate", str(fork), "--runs", "30", "--workers", "1", "--compare", str(fork))
    assert result.exit_code == 0, result.output
    assert "a win for party: +0.0% (+0.0% to +0.0%) in the second encounter, same seeds" in result.output


@pytest.mark.parametrize(
    "args, says",
    [
        (("--at", "0"), "--at 0: seq 0 is outside the log ("),
        (("--at", "3"), "--at 3: seq 3 is inside step 2 (seqs 3 to "),
        (("--option", "speed=3"), "--option: works with an encounter file"),
        (("--keep", "kept"), "--keep: works with an encounter file"),
        (("--compare", str(EXAMPLES / "skirmish-ambush.toml")), "compare a log with another log"),
        (("--runs", "0"), "--runs 0: give at least 1 run"),
    ],
)
def test_bad_input_for_a_log_is_one_line(tmp_path, args, says):
    path = tmp_path / "fight.jsonl"
    played("skirmish-ambush.toml", log=open_log(path)).log.close()
    result = run("simulate", str(path), "--runs", "5", *args)
    assert result.exit_code in (1, 2) and says in result.output and result.output.count("\n") == 1, result.output


def test_at_with_an_encounter_file_is_one_line():
    result = run("simulate", str(EXAMPLES / "skirmish-ambush.toml"), "--at", "40")
    assert result.exit_code == 2 and "--at 40: continues a log" in result.output and result.output.count("\n") == 1


def test_the_run_seeds_are_the_documented_hash_of_the_study_seed_and_the_run():
    # docs/simulation.md: run i of a study seeded S rolls from the first 8 bytes of SHA-256("S/i")
    assert run_seed(5, 17) == int.from_bytes(hashlib.sha256(b"5/17").digest()[:8], "big")


def test_a_log_recorded_under_other_rules_is_refused_in_one_line():
    old = Path(__file__).parent / "fixtures" / "before-rule-packages" / "skirmish.jsonl"
    result = run("simulate", str(old), "--runs", "5")
    assert result.exit_code == 1 and result.output.count("\n") == 1
    now = get_rules("skirmish").version
    assert f"recorded under skirmish 1, and this combatlog plays skirmish {now}" in result.output
