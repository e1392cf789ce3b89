"""`combatlog simulate`: many seeded fights, their odds, and representative fights kept as logs."""

from __future__ import annotations

import html
import json
import re
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from click.testing import CliRunner

from combatlog.cli.main import app
from combatlog.engine import Command, Refused, Session, get_rules
from combatlog.engine.encounter_file import read_encounter
from combatlog.projections import replay
from combatlog.replays import open_log
from combatlog.replays.audit import audit
from combatlog.simulate import LEGEND, keep, simulate
from combatlog.simulate.run import play, run_seed, summarise
from combatlog.simulate.stats import percentile, wilson

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SKIRMISH = read_encounter(EXAMPLES / "skirmish-ambush.toml")
ALL_EXAMPLES = sorted(p.name for p in EXAMPLES.glob("*.toml"))
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


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
    assert "who wins" in result.output and "rounds: mean" in result.output
    assert "a win for party: +0.0% (+0.0% to +0.0%)" in result.output  # the same file: no difference
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
    assert "Goblin 1" in text and "Damage taken and dealt" in text
    assert "What is left at the end" in text and "How each ends" in text
    assert text.count("plotly.js v") <= 2 and not re.search(r"<script[^>]+src=", text)  # inlined once, no network
    report = simulate(SKIRMISH, runs=40, seed=0, workers=1)
    assert f"<li>party: {report.sides['party'].win.p:.1%}" in text  # the numbers it charts


def test_the_report_reads_the_same_on_the_terminal_and_the_page(tmp_path):
    """The page is titled with the encounter's own name; its table's columns come in the
    terminal's order; no 'the party is party', and every number's kind is said in words."""
    pytest.importorskip("plotly", reason="plotly isn't installed: pip install -e '.[report]'")
    page = tmp_path / "odds.html"
    args = ["simulate", str(EXAMPLES / "skirmish-ambush.toml"), "--runs", "30", "--workers", "1", "--html", str(page)]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "300"})  # each table's headings on one line
    assert result.exit_code == 0, result.output
    text = page.read_text()
    assert "<title>Goblins at the ford: the odds</title>" in text
    terminal = " ".join(result.output.split())
    assert "the party is" not in terminal and "the party is" not in text
    assert "mean of most" not in terminal and "mean of most" not in text
    assert "the PCs' side: party" in terminal and "the PCs' side: <b>party</b>" in text
    columns = [html.unescape(c) for c in re.findall(r"<th>(.*?)</th>", text)]
    assert columns == [
        "combatant",
        "side",
        "defeated",
        "damage taken (mean, 5/50/95)",
        "damage dealt (mean, 5/50/95)",
        "left at the end (mean of its full amount, 5/50/95)",
        "how it ends (share)",
    ]
    # the terminal's two tables, read left to right: the same headings in the same order
    headings = [c for c in columns if c not in ("combatant", "side")]
    at = [terminal.replace("│", " ").replace("┃", " ").find(h.split(" (")[0]) for h in headings]
    assert all(a >= 0 for a in at) and at == sorted(at), (headings, at)
    assert LEGEND in terminal and html.escape(LEGEND) in text  # what 5/50/95 and "6.8 of 14" mean


@pytest.mark.parametrize("example", ALL_EXAMPLES)
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


@pytest.mark.parametrize("example", ALL_EXAMPLES)
def test_the_report_says_what_is_left_of_every_combatant_on_every_system(example):
    """What is left at the end, from the rule system's `health` hook (the track `show` and the
    web tracker draw): numbers where it is one (hit points, health levels left), and on every
    system the share of the runs ending at each level, a defeat under the system's own word."""
    commands = read_encounter(EXAMPLES / example)
    runs = 5
    report = simulate(commands, runs=runs, seed=4, workers=1)
    finals = [play(commands, run_seed(4, run), {}).state for run in range(runs)]
    rules = get_rules(str(finals[0].rules))
    tracked = []
    for cid, c in report.combatants.items():
        ends = [s.combatants[cid] for s in finals]
        tracks = [rules.health(s, s.combatants[cid]) for s in finals]
        if tracks[0] is None:
            assert c.left is None and c.most is None
            healthy = sum(1 for e in ends if e.defeated is None and e.damage <= 0)
            assert c.ends.get("healthy", 0) == healthy / runs
        else:
            tracked.append(cid)
            left = [t[0] for t in tracks if t is not None]
            assert c.left == simulate_spread(left) and c.most == max(t[1] for t in tracks if t is not None)
        assert abs(sum(c.ends.values()) - 1) < 1e-9
        for how, k in Counter(e.defeated for e in ends if e.defeated is not None).items():
            assert c.ends[how] == k / runs  # the system's own word for the defeat
        assert sum(c.ends.values()) - c.defeated.p == pytest.approx(sum(c.ends[e] for e in c.ends if not _defeat(e)))
    assert bool(tracked) == (example != "swords-of-infinity-ambush.toml")  # its damage targets are no one number


def simulate_spread(values):
    from combatlog.simulate import Spread

    return Spread(
        mean=sum(values) / len(values), p5=percentile(values, 5), p50=percentile(values, 50), p95=percentile(values, 95)
    )


def _defeat(end: str) -> bool:
    return not (end in ("healthy", "injured", "bloodied", "critical") or end.startswith("hurt"))


def test_the_terminal_and_json_say_what_is_left(tmp_path):
    out = tmp_path / "r.json"
    for example, says in (("skirmish-ambush.toml", " of 14 ("), ("swords-of-infinity-ambush.toml", "healthy")):
        result = run("simulate", str(EXAMPLES / example), "--runs", "20", "--workers", "1", "--json", str(out))
        assert result.exit_code == 0, result.output
        assert "left at the end" in result.output and "how it ends" in result.output and says in result.output
        data = json.loads(out.read_text())
        report = simulate(read_encounter(EXAMPLES / example), runs=20, seed=0, workers=1)
        for cid, c in report.combatants.items():
            assert data["combatants"][cid]["ends"] == c.ends
            assert data["combatants"][cid]["most"] == c.most
            assert data["combatants"][cid]["left"] == (None if c.left is None else msgspec_builtins(c.left))


def msgspec_builtins(value):
    import msgspec

    return msgspec.to_builtins(value)


@pytest.fixture
def studies(monkeypatch):
    """The `workers` each study the command line runs was given (the real study runs)."""
    import combatlog.simulate as sim

    seen: list[int | None] = []
    real = sim.simulate

    def spy(*args, **kwargs):
        seen.append(kwargs.get("workers"))
        return real(*args, **kwargs)

    monkeypatch.setattr(sim, "simulate", spy)
    return seen


@pytest.mark.parametrize("flag", ["--json", "--html"])
def test_an_output_into_a_missing_folder_is_refused_before_any_fight(tmp_path, studies, flag):
    if flag == "--html":
        pytest.importorskip("plotly", reason="plotly isn't installed: pip install -e '.[report]'")
    out = tmp_path / "nowhere" / "report.out"
    encounter = str(EXAMPLES / "skirmish-ambush.toml")
    result = run("simulate", encounter, "--runs", "5", "--workers", "1", flag, str(out), "--keep", str(tmp_path / "k"))
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert f"{flag} {out}: there is no folder" in result.output
    assert studies == [] and list(tmp_path.iterdir()) == []  # no fight run, nothing written


def test_control_characters_in_names_never_reach_the_terminal(tmp_path):
    text = (EXAMPLES / "skirmish-ambush.toml").read_text()
    text = text.replace('name = "Goblin 1"', 'name = "Gob\\u001b[31mlin [bold]x[/bold]"')
    text = text.replace('side = "goblins"', 'side = "gob\\u001b[2Jlins\\u0007"')
    odd = tmp_path / "odd.toml"
    odd.write_text(text)
    result = run("simulate", str(odd), "--runs", "5", "--workers", "1", "--compare", str(odd))
    assert result.exit_code == 0, result.output
    assert not CONTROL.search(result.output)
    assert "    gob?[2Jlins? " in result.output and "Gob?[31mlin" in result.output
    assert "[bold]x[/bold]" in result.output  # nor is a name markup


@pytest.mark.parametrize("cores, asked, given", [(1, "6", 1), (2, "6", 2), (4, "2", 2), (1, None, None)])
def test_workers_are_capped_at_the_cores(monkeypatch, studies, cores, asked, given):
    import combatlog.replays.parallel as parallel

    monkeypatch.setattr(parallel, "cores", lambda: cores)
    workers = ("--workers", asked) if asked else ()
    result = run("simulate", str(EXAMPLES / "skirmish-ambush.toml"), "--runs", "3", *workers)
    assert result.exit_code == 0, result.output
    assert studies == [given]


def test_the_rounds_histogram_draws_the_distribution():
    result = run("simulate", str(EXAMPLES / "skirmish-ambush.toml"), "--runs", "60", "--seed", "3", "--workers", "1")
    assert result.exit_code == 0, result.output
    lines = re.findall(r"^ +(\d+) (█+) ([\d.]+)%$", result.output, re.M)
    bars = {int(r): (len(bar), float(share)) for r, bar, share in lines}
    histogram = simulate(SKIRMISH, runs=60, seed=3, workers=1).rounds_histogram
    assert len(histogram) >= 3 and set(bars) == set(histogram)
    peak = max(histogram.values())
    for rounds, count in histogram.items():
        assert bars[rounds] == (max(1, round(30 * count / peak)), round(100 * count / 60, 1))
    mode = max(histogram, key=lambda r: histogram[r])
    assert max(bars, key=lambda r: bars[r][0]) == mode and bars[mode][0] == 30
    assert [bars[r][0] for r in sorted(bars, key=histogram.get)] == sorted(b[0] for b in bars.values())


def test_a_combatant_left_at_nothing_but_still_in_the_fight_is_not_reported_down():
    """Starflight keeps a PC at 0 hit points in the fight (near death, one action a turn): the
    report's levels say "critical" for it, never "down", which the legend counts as a defeat,
    so "defeated" and the levels that are no defeat add up to every fight. Run 35 of seed 0
    ends with Ayla near death at 0 of 24."""
    commands = read_encounter(EXAMPLES / "starflight-patrol.toml")
    final = play(commands, run_seed(0, 35), {}).state
    ayla = final.combatants["ayla"]
    assert ayla.defeated is None and get_rules("starflight").health(final, ayla) == (0, 24)
    report = simulate(commands, runs=36, seed=0, workers=1)
    ends = report.combatants["ayla"].ends
    assert "down" not in ends and ends["critical"] >= 1 / 36
    kept = sum(p for end, p in ends.items() if not _defeat(end))
    assert report.combatants["ayla"].defeated.p + kept == pytest.approx(1)


def test_on_a_narrow_terminal_every_figure_is_printed_whole_and_shares_read_like_the_odds():
    """At 80 columns a cell too wide goes on over the next line, never cut to an ellipsis; a
    percentile reads with at most one decimal (17.9, not 17.95); a share of how fights end
    reads with the decimal of the odds beside it (Ayla defeated 9.5%: unconscious 9.5%, not 10%)."""
    result = CliRunner(env={"COLUMNS": "80"}).invoke(
        app, ["simulate", str(EXAMPLES / "starflight-patrol.toml"), "--runs", "200", "--seed", "0", "--workers", "1"]
    )
    assert result.exit_code == 0, result.output
    out = result.output
    assert "…" not in out and max(len(line) for line in out.splitlines() if line.startswith("│")) <= 80
    assert "9.5%" in out and "unconscious 9.5%" in out.replace("\n", " ").replace("│", " ")
    assert not re.search(r"\d\.\d\d(?!%)", out)  # no figure with two decimals but the odds' own
