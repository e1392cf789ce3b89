"""`combatlog simulate`: many seeded fights, their odds, and representative fights kept as logs."""

from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from click.testing import CliRunner

from combatlog.cli.main import app
from combatlog.engine import Command, Refused, Session
from combatlog.engine.encounter_file import read_encounter
from combatlog.projections import replay
from combatlog.replays import open_log
from combatlog.replays.audit import audit
from combatlog.simulate import keep, simulate
from combatlog.simulate.run import summarise
from combatlog.simulate.stats import percentile, wilson

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SKIRMISH = read_encounter(EXAMPLES / "skirmish-ambush.toml")


def test_the_wilson_interval_matches_the_hand_computed_one():
    # 8 of 10, z = 1.96: centre (0.8 + 0.19208) / 1.38416 = 0.71673, half-width
    # 1.96 * sqrt(0.016 + 0.009604) / 1.38416 = 0.22658: 0.49015 to 0.94331
    low, high = wilson(8, 10)
    assert round(low, 3) == 0.490 and round(high, 3) == 0.943
    # none of 10: from 0 to z^2 / (n + z^2) = 3.8415 / 13.8415 = 0.2775
    assert wilson(0, 10)[0] == 0.0 and round(wilson(0, 10)[1], 4) == 0.2775
    assert wilson(10, 10)[1] == 1.0


def test_percentiles_interpolate_between_the_closest_ranks():
    values = [50, 10, 40, 20, 30]
    assert percentile(values, 50) == 30
    assert percentile(values, 25) == 20
    assert percentile(values, 10) == 14  # 10 + (20 - 10) * 0.4
    assert percentile([1, 2, 3, 4], 50) == 2.5


def test_the_same_seed_gives_the_same_report_and_another_seed_another():
    a = simulate(SKIRMISH, runs=60, seed=5, workers=1)
    assert a == simulate(SKIRMISH, runs=60, seed=5, workers=1)
    assert a != simulate(SKIRMISH, runs=60, seed=6, workers=1)
    assert a.runs == 60 and abs(sum(s.win.p for s in a.sides.values()) + a.draw.p - 1) < 1e-9


def test_one_process_two_processes_and_any_executor_give_the_same_numbers():
    one = simulate(SKIRMISH, runs=120, seed=2, workers=1)
    assert simulate(SKIRMISH, runs=120, seed=2, workers=2) == one
    with ThreadPoolExecutor(3) as pool:
        assert simulate(SKIRMISH, runs=120, seed=2, executor=pool) == one


def test_a_kept_representative_fight_replays_to_the_fight_the_report_counted(tmp_path):
    report = simulate(SKIRMISH, runs=80, seed=9, workers=1)
    kept = keep(SKIRMISH, report, tmp_path / "kept")
    assert [r.percentile for r in kept] == [5, 25, 50, 75, 95]
    losses = [r.party_losses for r in kept]
    assert losses == sorted(losses)
    for r in kept:
        log = open_log(r.log, create=False)
        assert audit(log).clean
        summary = summarise(Session(log), r.run)
        party = [i for i, c in enumerate(report.combatants.values()) if c.side == report.party]
        assert sum(summary.taken[i] for i in party) == r.party_losses
        assert replay(log).state.phase == "end"
    assert not list((tmp_path / "kept").glob("*.part*"))


def test_an_option_changes_every_run_and_a_bad_one_is_refused():
    simultaneous = simulate(SKIRMISH, runs=40, seed=1, workers=1, options={"timing": "simultaneous"})
    assert simultaneous.options == {"timing": "simultaneous"}
    with pytest.raises(Refused, match="option 'speed'"):
        simulate(SKIRMISH, runs=10, seed=1, workers=1, options={"speed": 3})
    with pytest.raises(Refused, match="at least 1 run"):
        simulate(SKIRMISH, runs=0, seed=1)


def run(*args: str):
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def test_the_command_line_prints_the_odds_writes_json_and_compares_on_the_same_seeds(tmp_path):
    out = tmp_path / "r.json"
    encounter = str(EXAMPLES / "skirmish-ambush.toml")
    result = run("simulate", encounter, "--runs", "50", "--workers", "1", "--json", str(out), "--compare", encounter)
    assert result.exit_code == 0, result.output
    assert "party wins" in result.output and "rounds: mean" in result.output
    assert "party wins: +0.0% (+0.0% to +0.0%)" in result.output  # the same file: no difference
    data = json.loads(out.read_text())
    assert data[0]["runs"] == 50 and data[0]["sides"] == data[1]["sides"]


@pytest.mark.parametrize(
    "args, says",
    [
        (("--runs", "0"), "--runs 0: give at least 1 run"),
        (("--option", "speed=3"), "option 'speed'"),
        (("--option", "speed"), "give KEY=VALUE"),
    ],
)
def test_bad_input_is_one_line(tmp_path, args, says):
    result = run(
        "simulate", str(EXAMPLES / "skirmish-ambush.toml"), "--runs", "5", *args, "--keep", str(tmp_path / "kept")
    )
    assert result.exit_code in (1, 2) and says in result.output and result.output.count("\n") == 1
    assert not (tmp_path / "kept").exists()


def test_a_local_dask_cluster_gives_the_same_numbers():
    distributed = pytest.importorskip("distributed", reason="dask isn't installed: pip install -e '.[cluster]'")
    one = simulate(SKIRMISH, runs=120, seed=2, workers=1)
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        assert simulate(SKIRMISH, runs=120, seed=2, executor=client.get_executor()) == one


def test_html_writes_a_standalone_page_with_the_charts_and_the_numbers(tmp_path):
    pytest.importorskip("plotly", reason="plotly isn't installed: pip install -e '.[report]'")
    page = tmp_path / "odds.html"
    encounter = str(EXAMPLES / "skirmish-ambush.toml")
    result = run("simulate", encounter, "--runs", "40", "--workers", "1", "--html", str(page))
    assert result.exit_code == 0, result.output
    text = page.read_text()
    assert text.startswith("<!doctype html>") and "Who wins (95% Wilson interval)" in text
    assert "Goblin 1" in text and "Damage dealt and taken" in text
    assert text.count("plotly.js v") <= 2 and not re.search(r"<script[^>]+src=", text)  # inlined once, no network
    report = simulate(SKIRMISH, runs=40, seed=0, workers=1)
    assert f"party wins {report.sides['party'].win.p:.1%}" in text  # the numbers it charts


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.glob("*.toml")))
def test_a_lean_fight_is_the_logged_fight_state_for_state(example):
    """The simulator plays without a log (nothing sealed, decoded or folded twice), from a
    set-up played once: each fight must be the one a Session plays on a log from the same seed,
    its final state equal and its summary the same, on every bundled system."""
    from combatlog.engine.lean import LeanSession
    from combatlog.simulate.run import fight, play, run_seed, set_up, with_seed

    commands = read_encounter(EXAMPLES / example)
    prepared = set_up(commands, {})
    assert prepared is not None  # no bundled set-up rolls dice: each fight starts from the shared one
    for run in range(4):
        logged = play(commands, run_seed(3, run), {})
        lean = LeanSession()
        for command in with_seed(commands, run_seed(3, run), {}):
            lean.execute(command)
        lean.execute(Command(kind="begin"))
        lean.play_out()
        assert lean.state == logged.state and lean.step == logged.projection.step
        summed = summarise(logged, run)
        assert fight(commands, 3, run, {}, prepared) == summed == fight(commands, 3, run, {})
        assert summed.dealt != tuple(0 for _ in summed.dealt)  # someone hurt someone: the counts are compared


def test_a_lean_session_refuses_undo_and_changes_nothing():
    from combatlog.engine.lean import LeanSession

    lean = LeanSession()
    for command in SKIRMISH:
        lean.execute(command)
    before = (lean.state, lean.step)
    with pytest.raises(Refused, match="keeps no history"):
        lean.execute(Command(kind="undo"))
    assert (lean.state, lean.step) == before
