"""combatlog's benchmarks: replay, undo, seek, append and audit, beside the measured floor and a peer.

    python benchmarks/run.py [--quick] [--json OUT]

Builds a long session of the bundled Starflight example (the patrol, with hit points
multiplied so the fight goes on; an undo and a redo every 50 steps, as at a real table),
seals it, stores it as JSON lines and SQLite, and measures:

- replay: the whole log folded into the full projection, from each store, events/s; and
  the floor, the least a replay could do: the same file read line by line and decoded by
  msgspec into the same envelopes, plus a minimal dict-dispatch fold, none of combatlog's
  own code used, timed in the same run (`replay_vs_floor` = replay time / floor time);
- peak RSS of a replay of the JSON-lines log, in a fresh process;
- undo (and redo) at log lengths 1k, 10k, 100k (and 1M): one step appended to SQLite;
- seek to random seqs through a Cursor (snapshots every 256 events);
- append: the session's own steps (~8 events each) appended one transaction per step,
  SQLite synchronous=FULL and JSON lines with fsync: steps/s and the p99 step latency;
- audit: the digest chain and every step re-decided, events/s, as `combatlog audit` runs it
  (split across processes, one per core) and in one process;
- peer: the same events stored and replayed with the `eventsourcing` library (the `bench`
  extra), when it is installed: `peer_replay_ratio` = combatlog's replay rate / the peer's.

A script, not a test: it prints a table and, with --json, writes the figures.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import msgspec

from combatlog.engine import Command, Session
from combatlog.engine.encounter_file import read_encounter
from combatlog.events import Envelope, catalogue
from combatlog.projections import replay
from combatlog.projections.fold import paused_gc
from combatlog.replays import JsonlLog, MemoryLog, SqliteLog
from combatlog.replays.audit import audit, processes
from combatlog.replays.cursor import Cursor
from combatlog.replays.stores import copy_log

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "starflight-patrol.toml"
UNDO_EVERY = 50
# undo/redo pairs timed per log length: each is a durable append (an fsync), so the median
# of many is taken, the disk's own jitter being larger than the engine's part
UNDO_SAMPLES = 200


def begun(session: Any, seed: int = 7) -> None:
    """Play the Starflight patrol's set-up and begin onto `session` (a Session or a LeanSession),
    hit points multiplied so the fight outlasts the benchmark."""
    for command in read_encounter(EXAMPLE, seed=seed):
        if command.kind == "add":
            stats = dict(command.params["stats"])
            stats["hp"] = stats["hp"] * 100_000
            command = msgspec.structs.replace(command, params={**command.params, "stats": stats})
        session.execute(command)
    session.execute(Command(kind="begin"))


def build(events: int, seed: int = 7) -> MemoryLog:
    """A long Starflight session of at least `events` events, in memory."""
    log = MemoryLog()
    session = Session(log)
    begun(session, seed)
    steps = 0
    while log.head()[0] < events:
        session.auto()
        steps += 1
        if steps % UNDO_EVERY == 0:
            session.undo()
            session.redo()
    return log


def prefix(source: MemoryLog, events: int) -> MemoryLog:
    """The whole steps of `source` holding at most `events` events."""
    out = MemoryLog()
    batch: list[bytes] = []
    step = None
    for line in source.lines():
        s = msgspec.json.decode(line, type=_Step).step
        if step is not None and s != step:
            if out.head()[0] + len(batch) > events:
                break
            out.append(batch, out.head()[0] + 1)
            batch = []
        step = s
        batch.append(line)
    if batch and out.head()[0] + len(batch) <= events:
        out.append(batch, out.head()[0] + 1)
    return out


class _Step(msgspec.Struct):
    step: int


def timed(fn, repeat: int = 5) -> float:
    """The best wall time of `repeat` runs of fn()."""
    best = float("inf")
    for _ in range(repeat):
        if gc.isenabled():
            gc.collect()
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def floor(path: Path) -> int:
    """The least a replay could do: read the file line by line, decode each line with msgspec
    into the same typed envelopes, and fold it with a minimal dict dispatch.

    None of combatlog's own reading or decoding is used (no store, no upcasting wrapper),
    so the ratio to it counts everything the replay adds.
    """
    decode = msgspec.json.Decoder(Envelope[catalogue.event_union()]).decode
    dispatch = {cls: (lambda acc, e: acc + 1) for cls in catalogue.event_types()}
    acc = 0
    with open(path, "rb") as fh:
        for line in fh:
            envelope = decode(line)
            acc = dispatch[type(envelope.event)](acc, envelope.event)
    return acc


def child(what: str, path: str) -> None:
    """In a fresh process: replay the log at `path` (`replay`), show its state half way (`show`,
    as `combatlog show --at`), build a replay cursor and seek half way (`cursor`, as the web
    tracker's scrubber), or add a roster of 10,000 combatants and begin (`roster`, to the
    SQLite log at `path`); print the peak RSS in MB.

    The peak is the process's own memory map's high-water mark (VmHWM): getrusage's
    ru_maxrss would carry over the parent's peak from before the exec.
    """
    if what == "simulate":  # `path` is the number of runs: a study's peak, one process
        from combatlog.simulate import simulate

        simulate(read_encounter(EXAMPLE), runs=int(path), seed=1, workers=1)
    elif what == "roster":
        session = Session(SqliteLog(path))
        session.do("create", rules="skirmish", options={}, seed=1)
        for i in range(ROSTER):
            session.do("add", id=f"c{i}", side="ab"[i % 2], stats={"hp": 10, "attack": 2, "defense": 11})
        session.do("begin")
        session.log.close()
    elif what == "replay":
        assert replay(JsonlLog(path, create=False)).seq > 0
    elif what == "show":
        from click.testing import CliRunner

        from combatlog.cli.main import app

        half = JsonlLog(path, create=False).head()[0] // 2
        shown = CliRunner().invoke(app, ["show", path, "--at", str(half), "--json"])
        assert shown.exit_code == 0 and f'"seq": {half}' in shown.output, shown.output[-300:]
    else:
        cursor = Cursor(JsonlLog(path, create=False))
        assert cursor.seek(cursor.last // 2).seq == cursor.last // 2
    peak()


ROSTER = 10_000


def peak() -> None:
    """Print this process's peak RSS in MB."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    print(int(line.split()[1]) / 1024)
                    return
    except OSError:
        pass
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def peer(log: MemoryLog, limit: int) -> float | None:
    """Events/s of storing and replaying the same events with `eventsourcing` (None if not installed)."""
    try:
        from eventsourcing.application import Application
        from eventsourcing.domain import Aggregate, event
    except ImportError:
        return None

    class Fight(Aggregate):
        @event("Created")
        def __init__(self) -> None:
            self.count = 0
            self.last = ""

        @event("Recorded")
        def record(self, kind: str, data: dict) -> None:
            self.count += 1
            self.last = kind

    with tempfile.TemporaryDirectory() as tmp:
        app = Application(
            env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(Path(tmp) / "peer.db")}
        )
        fight = Fight()
        lines = list(itertools.islice(log.lines(), limit))
        for i, line in enumerate(lines):
            env = msgspec.json.decode(line)
            fight.record(env["event"]["type"], env["event"])
            if i % 1000 == 999:
                app.save(fight)
        app.save(fight)
        replays = []
        took = timed(
            lambda: replays.append(app.repository.get(fight.id)), repeat=2
        )  # best of two, as ours is best of five
        assert replays[-1].count == len(lines)
    return len(lines) / took


def machine() -> dict:
    def v(name: str) -> str:
        try:
            return version(name)
        except PackageNotFoundError:
            return "not installed"

    return {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "libraries": {name: v(name) for name in ("combatlog", "msgspec", "transitions", "eventsourcing")},
    }


def undo_at_depth(steps: int) -> dict[str, float]:
    """A fight of `steps` steps (the Starflight session, in memory), then as many undos in a row:
    each undo's time in ms, the median (wall clock) and the worst (CPU time, so that another
    process taking the core mid-undo isn't counted). Past the projection's window of kept states,
    an undo folds again from the nearest mark below it (`Projection.marks`), a few steps."""
    log = MemoryLog()
    s = Session(log)
    begun(s)
    while len(s.projection.undo) < steps:
        s.auto()
        if len(s.projection.undo) % UNDO_EVERY == 0:
            s.undo()
            s.redo()
    gc.collect()
    walls, cpus = [], []
    for _ in range(steps - 8):  # down to the fight's set-up
        w, c = time.perf_counter(), time.process_time()
        s.undo()
        cpus.append((time.process_time() - c) * 1000)
        walls.append((time.perf_counter() - w) * 1000)
    walls.sort()
    return {
        "steps": steps,
        "events": log.head()[0],
        "median_ms": round(walls[len(walls) // 2], 3),
        "max_ms": round(max(cpus[1:]), 2),  # the first undo warms up the decoders
    }


# Fights a second per core of each bundled encounter before the decide path's speed work,
# measured on the project's benchmark machine (CPU time, the best of five runs of 100 fights;
# the rows now are wall time, the best of three studies of 200, on a machine left to itself):
# the simulate rows' targets are 3x these. On another machine, compare the ratios, not the
# verdicts (docs/benchmarks.md).
SIMULATE_BEFORE = {
    "skirmish": 644,
    "starflight": 308,
    "triptycho": 191,
    "straalara": 129,
    "swords-of-infinity": 106,
    "infinite-realms": 93,
}

_STUDY = """
import sys, time
from combatlog.engine.encounter_file import read_encounter
from combatlog.simulate import simulate
commands = read_encounter(sys.argv[1])
t = time.perf_counter()
simulate(commands, runs=int(sys.argv[2]), seed=1, workers=2)
print(time.perf_counter() - t)
"""


def lean_decide_rate(events: int) -> int:
    """Events a second through decide alone, on one core: the session's fight (the Starflight
    patrol, hit points multiplied) played by the automatic policy on a LeanSession, as a
    simulation plays it (nothing sealed, encoded, decoded or folded a second time)."""
    from combatlog.engine.lean import LeanSession

    session = LeanSession()
    begun(session)
    done = 0
    t = time.process_time()
    while done < events:
        done += len(session.auto()) + 1  # and its CommandIssued, as a log would count it
    return round(done / (time.process_time() - t))


def simulate_rates(runs: int, repeats: int = 3) -> dict[str, float]:
    """Fights a second, one process, for each bundled example encounter (`combatlog simulate`):
    the best of `repeats` studies of `runs` fights (as timeit takes the best: what is left
    above it is the machine's noise, not the code's)."""
    from combatlog.engine.encounter_file import read_encounter
    from combatlog.simulate import simulate

    out = {}
    examples = Path(__file__).resolve().parents[1] / "examples"
    for path in sorted(examples.glob("*.toml")):
        commands = read_encounter(path)
        best = 0.0
        for _ in range(repeats):
            t = time.perf_counter()
            simulate(commands, runs=runs, seed=1, workers=1)
            best = max(best, runs / (time.perf_counter() - t))
        out[str(commands[0].params["rules"])] = round(best, 1)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="about 100k events (under a minute)")
    parser.add_argument("--json", dest="out", help="write the figures to this file")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    total = 100_000 if args.quick else 1_000_000
    lengths = [n for n in (1_000, 10_000, 100_000, 1_000_000) if n <= total]
    say = lambda *a: print(*a, file=sys.stderr, flush=True)
    rng = random.Random(1)

    say(f"building a {total:,}-event session ...")
    t = time.perf_counter()
    memory = build(total)
    n = memory.head()[0]
    built = time.perf_counter() - t
    say(f"  {n:,} events in {built:.1f} s")
    results: dict = {"events": n, **machine()}
    # the decide path: the automatic policy deciding, sealing and folding the session, one core
    results["decide_events_per_s"] = round(n / built)
    results["lean_decide_events_per_s"] = lean_decide_rate(min(total, 200_000))
    say("simulate ...")
    results["simulate_fights_per_s"] = simulate_rates(runs=50 if args.quick else 200)
    # the headline: a study of the Starflight patrol over both cores (a process pool), wall time
    study = 2_000 if args.quick else 10_000
    # in a fresh process, as `combatlog simulate` runs it: forked from this one, holding the
    # long session in memory, each worker would start with its heap to carry
    ran = subprocess.run(
        [sys.executable, "-c", _STUDY, str(EXAMPLE), str(study)], capture_output=True, text=True, check=True
    )
    results["simulate_study"] = {"runs": study, "seconds": round(float(ran.stdout.strip()), 2)}
    with tempfile.TemporaryDirectory() as tmp:
        jsonl = JsonlLog(Path(tmp) / "long.jsonl")
        sqlite = SqliteLog(Path(tmp) / "long.db")
        copy_log(memory, jsonl)
        copy_log(memory, sqlite)
        sqlite.close()  # a saved log: closing checkpoints the write-ahead log the copy filled
        sqlite = SqliteLog(Path(tmp) / "long.db", create=False)

        # 1. replay, beside the floor
        say("replay ...")
        rates = {}
        for name, log in (("jsonl", jsonl), ("sqlite", sqlite)):
            rates[name] = n / timed(lambda log=log: replay(log))
        with paused_gc():  # the floor gets every advantage the replay has
            floor_time = timed(lambda: floor(jsonl.path))
        replay_time = n / rates["jsonl"]
        results["replay_events_per_s"] = {k: round(v) for k, v in rates.items()}
        results["floor_events_per_s"] = round(n / floor_time)
        results["floor_us_per_event"] = round(floor_time / n * 1e6, 2)
        results["replay_vs_floor"] = round(replay_time / floor_time, 2)

        # 2. peak memory of a replay, of `show --at` half way, of a replay cursor (the web
        # tracker's scrubber), and of a roster of 10,000 combatants: each in a fresh process
        say("memory ...")

        def peak_mb(what: str, path: Path) -> float:
            out = subprocess.run(
                [sys.executable, __file__, "--child", what, str(path)], capture_output=True, text=True, check=True
            )
            return round(float(out.stdout.strip()), 1)

        small, large = (500, 2_000) if args.quick else (1_000, 10_000)
        results["simulate_rss_mb"] = {str(n): peak_mb("simulate", Path(str(n))) for n in (small, large)}
        results["peak_rss_mb"] = peak_mb("replay", Path(tmp) / "long.jsonl")
        results["show_at_rss_mb"] = peak_mb("show", Path(tmp) / "long.jsonl")
        results["cursor_rss_mb"] = peak_mb("cursor", Path(tmp) / "long.jsonl")
        t = time.perf_counter()
        results["roster_rss_mb"] = peak_mb("roster", Path(tmp) / "roster.db")
        results["roster_s"] = round(time.perf_counter() - t, 1)

        # 3. undo, redo and seek by log length
        say("undo, redo, seek ...")
        undo_ms: dict[str, float] = {}
        redo_ms: dict[str, float] = {}
        seek_ms: dict[str, float] = {}
        sessions: dict[int, Session] = {}
        for length in lengths:
            part = prefix(memory, length)
            db = SqliteLog(Path(tmp) / f"undo-{length}.db")
            copy_log(part, db)
            # reopened, as a game master opens a saved fight: closing checkpoints the write-ahead
            # log the copy filled, which would otherwise be copied back during the first undos
            db.close()
            sessions[length] = Session(SqliteLog(Path(tmp) / f"undo-{length}.db", create=False))
        # the lengths take turns, so the disk's drift over the run falls on each of them alike
        undos: dict[int, list[float]] = {length: [] for length in lengths}
        redos: dict[int, list[float]] = {length: [] for length in lengths}
        for _ in range(UNDO_SAMPLES):
            for length, session in sessions.items():
                t = time.perf_counter()
                session.undo()
                undos[length].append(time.perf_counter() - t)
                t = time.perf_counter()
                session.redo()
                redos[length].append(time.perf_counter() - t)
        for length, session in sessions.items():
            undo_ms[str(length)] = round(statistics.median(undos[length]) * 1000, 3)
            redo_ms[str(length)] = round(statistics.median(redos[length]) * 1000, 3)
            cursor = Cursor(session.log)
            seeks = []
            for _ in range(50):
                seq = rng.randint(1, cursor.last)
                t = time.perf_counter()
                cursor.seek(seq)
                seeks.append(time.perf_counter() - t)
            seek_ms[str(length)] = round(statistics.median(seeks) * 1000, 3)
            session.log.close()
        results["undo_ms"] = undo_ms
        results["redo_ms"] = redo_ms
        results["seek_ms"] = seek_ms

        # 3b. undo at depth: N steps, then N undos in a row, past the window of kept states
        say("undo at depth ...")
        results["undo_at_depth"] = undo_at_depth(2_000 if args.quick else 10_000)

        # 4. append: the session's steps, one transaction (and fsync) per step
        say("append ...")
        steps: list[list[bytes]] = []
        current = None
        for line in prefix(memory, 40_000 if args.quick else 80_000).lines():
            s = msgspec.json.decode(line, type=_Step).step
            if s != current:
                steps.append([])
                current = s
            steps[-1].append(line)
        append: dict[str, dict] = {}
        for name, target in (
            ("sqlite", SqliteLog(Path(tmp) / "append.db")),
            ("jsonl", JsonlLog(Path(tmp) / "append.jsonl")),
        ):
            latencies = []
            seq = 1
            start = time.perf_counter()
            for batch in steps:
                t = time.perf_counter()
                target.append(batch, seq)
                latencies.append(time.perf_counter() - t)
                seq += len(batch)
            took = time.perf_counter() - start
            latencies.sort()
            append[name] = {
                "steps_per_s": round(len(steps) / took),
                "p99_ms": round(latencies[int(len(latencies) * 0.99)] * 1000, 3),
            }
            target.close()
        results["append_steps_per_s"] = {k: v["steps_per_s"] for k, v in append.items()}
        results["append_p99_ms"] = {k: v["p99_ms"] for k, v in append.items()}
        results["append_events_per_step"] = round(sum(map(len, steps)) / len(steps), 1)

        # 5. audit: as `combatlog audit` runs it (split across processes, one per core), and in
        # one process
        say("audit ...")
        reports = []
        results["audit_events_per_s"] = round(n / timed(lambda: reports.append(audit(sqlite)), repeat=3))
        results["audit_processes"] = processes(sqlite)
        results["audit_one_process_events_per_s"] = round(
            n / timed(lambda: reports.append(audit(sqlite, workers=1)), repeat=3)
        )
        assert all(r == reports[0] for r in reports) and reports[0].clean, reports[0].findings[:3]

        # 6. peer
        say("peer ...")
        limit = min(n, 100_000)
        peer_rate = peer(memory, limit)
        results["peer_events"] = limit
        results["peer_replay_events_per_s"] = round(peer_rate) if peer_rate else None
        results["peer_replay_ratio"] = round(rates["jsonl"] / peer_rate, 1) if peer_rate else None
        jsonl.close()
        sqlite.close()

    table(results)
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")


def table(r: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    t = Table("measure", "result", "target", title=f"combatlog benchmarks, {r['events']:,} events")
    ok = lambda good: "met" if good else "MISSED"
    rj, rs = r["replay_events_per_s"]["jsonl"], r["replay_events_per_s"]["sqlite"]
    t.add_row("replay, JSON lines", f"{rj:,} events/s", f">= 500,000: {ok(rj >= 500_000)}")
    t.add_row("replay, SQLite", f"{rs:,} events/s", f">= 500,000: {ok(rs >= 500_000)}")
    t.add_row("floor (decode + dict fold)", f"{r['floor_events_per_s']:,} events/s ({r['floor_us_per_event']} us)", "")
    # a regression line (the 1.5x target was withdrawn: the fold's checks and undo history cost ~0.55 us)
    t.add_row("replay / floor", f"{r['replay_vs_floor']}x", f"<= 2.0x: {ok(r['replay_vs_floor'] <= 2.0)}")
    t.add_row("peak RSS of the replay", f"{r['peak_rss_mb']} MB", f"<= 150 MB: {ok(r['peak_rss_mb'] <= 150)}")
    t.add_row(
        "peak RSS of show --at (half way)", f"{r['show_at_rss_mb']} MB", f"<= 150 MB: {ok(r['show_at_rss_mb'] <= 150)}"
    )
    t.add_row("peak RSS of a replay cursor", f"{r['cursor_rss_mb']} MB", f"<= 150 MB: {ok(r['cursor_rss_mb'] <= 150)}")
    t.add_row(
        f"{ROSTER:,} combatants added and begun (SQLite)",
        f"{r['roster_s']} s, peak RSS {r['roster_rss_mb']} MB",
        f"<= 500 MB: {ok(r['roster_rss_mb'] <= 500)}",
    )
    for k, v in r["undo_ms"].items():
        t.add_row(
            f"undo / redo at {int(k):,}", f"{v} / {r['redo_ms'][k]} ms", f"< 1 ms: {ok(v < 1 and r['redo_ms'][k] < 1)}"
        )
    for k, v in r["seek_ms"].items():
        t.add_row(f"seek at {int(k):,}", f"{v} ms", f"< 1 ms: {ok(v < 1)}")
    first, last = list(r["undo_ms"].values())[0], list(r["undo_ms"].values())[-1]
    d = r["undo_at_depth"]
    t.add_row(
        f"undo at depth: a fight of {d['steps']:,} steps ({d.get('events', 0):,} events), then as many undos",
        f"median {d['median_ms']} ms, worst {d['max_ms']} ms (CPU)",
        f"worst < 1 ms: {ok(d['max_ms'] < 1)}",
    )
    t.add_row("undo, longest / shortest log", f"{last / first:.2f}x", f"<= 1.5x: {ok(last / first <= 1.5)}")
    for k, v in r["append_steps_per_s"].items():
        t.add_row(f"append, {k}", f"{v:,} steps/s, p99 {r['append_p99_ms'][k]} ms", f">= 3,000: {ok(v >= 3000)}")
    t.add_row(
        f"audit ({r['audit_processes']} processes)" if r["audit_processes"] > 1 else "audit",
        f"{r['audit_events_per_s']:,} events/s",
        f">= 100,000: {ok(r['audit_events_per_s'] >= 100_000)}",
    )
    one = r["audit_one_process_events_per_s"]
    t.add_row("audit, one process", f"{one:,} events/s", f">= 250,000: {ok(one >= 250_000)}")
    lean = r["lean_decide_events_per_s"]
    t.add_row(
        "decide (policy and its fold, nothing logged), one core",
        f"{lean:,} events/s",
        f">= 300,000: {ok(lean >= 300_000)}",
    )
    t.add_row(
        "decide, logged (policy, fold, seal, decode, fold), one core", f"{r['decide_events_per_s']:,} events/s", ""
    )
    for system, rate in r["simulate_fights_per_s"].items():
        before = SIMULATE_BEFORE.get(system)
        target = f">= {3 * before:,} (3x {before}): {ok(rate >= 3 * before)}" if before else ""
        t.add_row(f"simulate {system}, one core", f"{rate:,} fights/s", target)
    study = r["simulate_study"]
    t.add_row(
        f"simulate the Starflight patrol, {study['runs']:,} runs, 2 processes",
        f"{study['seconds']} s ({study['runs'] / study['seconds']:,.0f} fights/s)",
        f"2,000 fights/s: {ok(study['runs'] / study['seconds'] >= 2000)}",
    )
    (small, rss_small), (large, rss_large) = r["simulate_rss_mb"].items()
    per_run = (rss_large - rss_small) * 1024 / (int(large) - int(small))  # KB: a run's summary, never its log
    t.add_row(
        f"peak RSS of a study, {int(small):,} / {int(large):,} runs",
        f"{rss_small} / {rss_large} MB ({per_run:.2f} KB a run more)",
        f"< 1 KB a run: {ok(per_run < 1)}",
    )
    if r["peer_replay_ratio"] is not None:
        t.add_row(
            f"peer (eventsourcing), {r['peer_events']:,} events",
            f"{r['peer_replay_events_per_s']:,} events/s; combatlog {r['peer_replay_ratio']}x",
            f">= 20x: {ok(r['peer_replay_ratio'] >= 20)}",
        )
    else:
        t.add_row("peer (eventsourcing)", "not installed: pip install -e '.[bench]'", "")
    Console(width=120).print(t)
    print(f"{r['machine']}; Python {r['python']}; " + ", ".join(f"{k} {v}" for k, v in r["libraries"].items()))


if __name__ == "__main__":
    main()
