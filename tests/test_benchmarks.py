"""The benchmark script's building blocks work (the figures themselves are the script's to print)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

from combatlog.projections import replay
from combatlog.replays import JsonlLog
from combatlog.replays.audit import audit
from combatlog.replays.stores import copy_log

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "run.py"
spec = importlib.util.spec_from_file_location("combatlog_bench", SCRIPT)
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


def test_the_long_session_is_a_real_log_and_the_floor_reads_all_of_it(tmp_path):
    log = bench.build(3000)
    n = log.head()[0]
    assert n >= 3000 and audit(log).clean
    part = bench.prefix(log, 1000)
    assert 900 < part.head()[0] <= 1000 and replay(part).seq == part.head()[0]
    jsonl = JsonlLog(tmp_path / "b.jsonl")
    copy_log(log, jsonl)
    assert bench.floor(jsonl.path) == n
    children = [(what, str(tmp_path / "b.jsonl")) for what in ("replay", "show", "cursor")] + [("simulate", "20")]
    for what, arg in children:  # each in its own process, which prints its peak
        out = subprocess.run(
            [sys.executable, str(SCRIPT), "--child", what, arg],
            capture_output=True,
            text=True,
            check=True,
        )
        assert 5 < float(out.stdout) < 500, what  # megabytes of the child's own process


def test_the_web_benchmark_makes_the_seat_links_the_server_makes():
    import pytest

    pytest.importorskip("litestar", reason="the web extra isn't installed")
    from combatlog.projections import SeatEntry
    from combatlog.web.tables import Table

    web_spec = importlib.util.spec_from_file_location("combatlog_bench_web", SCRIPT.with_name("web.py"))
    web = importlib.util.module_from_spec(web_spec)
    web_spec.loader.exec_module(web)
    table = Table("seats", "memory:", web.SECRET.encode())
    for seat, generation in (("all", 1), ("s3", 1), ("s3", 2)):
        assert web.seat_token("seats", seat, generation) == table.seat_token(SeatEntry(id=seat, generation=generation))


def test_the_checkpoints_benchmark_opens_a_stored_log_to_append_in_a_process_of_its_own(tmp_path):
    spec = importlib.util.spec_from_file_location("combatlog_bench_cp", SCRIPT.parent / "checkpoints.py")
    cp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cp)
    where = cp.store(bench.build(300), str(tmp_path / "open.db"))
    for what in ("open-full", "open", "open"):  # a full load, then writing the checkpoint, then from it
        wall, inner, mb = cp.in_child(what, where)
        assert 0 < inner < wall and 5 < mb < 500
    from combatlog.replays import SqliteLog

    assert SqliteLog(where).read_checkpoint() is None  # 300 events: shorter than a checkpoint's interval


def test_the_odds_benchmark_continues_each_example_from_a_step_end_in_its_middle(tmp_path):
    script = Path(__file__).resolve().parents[1] / "benchmarks" / "odds.py"
    spec = importlib.util.spec_from_file_location("combatlog_bench_odds", script)
    odds = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(odds)
    example = Path(__file__).resolve().parents[1] / "examples" / "skirmish-ambush.toml"
    rules, path, at, head = odds.logged(example, tmp_path)
    assert rules == "skirmish" and head / 3 < at < 2 * head / 3
    read, rate, steps = odds.one_core(path, at, 10)
    assert read > 0 and rate > 0 and steps >= 1
    wall, cpu = odds.timed(path, at, 20, 1)  # a fresh process, as the table's row is taken
    assert wall > 0 and cpu > 0
