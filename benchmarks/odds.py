"""The odds from this moment, timed: 1,000 continuations from the middle of each bundled encounter.

    python benchmarks/odds.py [--runs 1000] [--repeats 3] [--json OUT]

Plays each bundled example (`examples/*.toml`, seed 7) to its end by the automatic policy on a
SQLite log, takes the seq where a step ends nearest the middle of the log, and times
`simulate_from(log, at=that seq, runs=1000, seed=1, workers=2)` as `combatlog simulate LOG --at
SEQ` runs it: in a fresh process (its imports done before the clock starts), reading the log,
starting the two worker processes and putting the report together included; the best of
`--repeats` processes, and the least CPU time they and their workers took (what the study
needs, whatever else the machine runs). Beside it, where the time goes: reading the moment (folding the log up
to the seq and counting the damage dealt so far), and the same continuations on one core in
this process (continuations a second, and the mean steps each plays).

A script, not a test: it prints a table and, with --json, writes the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from combatlog.engine import Session
from combatlog.engine.encounter_file import read_encounter
from combatlog.projections import envelopes
from combatlog.replays import open_log

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
# seconds for 1,000 continuations over two processes
TARGETS = {"starflight": 1.0, "skirmish": 1.0}
OTHERS = 3.0

_TIMED = """
import resource, sys, time
from combatlog.simulate import simulate_from
path, at, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def cpu():
    own, workers = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime
c, t = cpu(), time.perf_counter()
simulate_from(path, at=at, runs=runs, seed=1, workers=2)
print(time.perf_counter() - t, cpu() - c)
"""


def logged(example: Path, folder: Path) -> tuple[str, Path, int, int]:
    """(rules, the log of `example` played to its end, the seq where a step ends nearest its middle, its last seq)."""
    path = folder / f"{example.stem}.db"
    session = Session(open_log(path), signer=None)
    for command in read_encounter(example, seed=7):
        session.execute(command)
    session.do("begin")
    session.play_out()
    rules = str(session.state.rules)
    session.log.close()
    log = open_log(path, create=False, read_only=True)
    found = list(envelopes(log))
    log.close()
    ends = [e.seq for i, e in enumerate(found) if i + 1 == len(found) or found[i + 1].step != e.step]
    head = ends[-1]
    return rules, path, min(ends, key=lambda s: (abs(s - head / 2), s)), head


def one_core(path: Path, at: int, runs: int) -> tuple[float, float, float]:
    """(seconds to read the moment, continuations a second on one core, mean steps a continuation plays)."""
    from combatlog.simulate import run as fights

    log = open_log(path, create=False, read_only=True)
    t = time.perf_counter()
    start = fights.moment(log, at)
    read = time.perf_counter() - t
    log.close()
    steps = 0
    t = time.perf_counter()
    for i in range(runs):
        session = fights.Continuation(start, fights.run_seed(1, i))
        if session.state.phase in ("setup", "surprise"):
            session.execute(fights.Command(kind="begin"))
        steps += session.play_out(max_steps=fights.MAX_STEPS)
    return read, runs / (time.perf_counter() - t), steps / runs


def timed(path: Path, at: int, runs: int, repeats: int) -> tuple[float, float]:
    """(the best wall time, the least CPU time of it and its workers) of `repeats` fresh processes
    each running the study once. The CPU time says what the study needs whatever else the
    machine is doing; the wall time, what a user waits on a machine as busy as this one was."""
    best, least = float("inf"), float("inf")
    for _ in range(repeats):
        out = subprocess.run(
            [sys.executable, "-c", _TIMED, str(path), str(at), str(runs)],
            capture_output=True,
            text=True,
            check=True,
        )
        wall, cpu = (float(x) for x in out.stdout.split())
        best, least = min(best, wall), min(least, cpu)
    return best, least


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", dest="out", help="write the figures to this file")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for example in sorted(EXAMPLES.glob("*.toml")):
            rules, path, at, head = logged(example, Path(folder))
            seconds, cpu = timed(path, at, args.runs, args.repeats)
            read, rate, steps = one_core(path, at, min(args.runs, 300))
            rows.append(
                {
                    "encounter": example.name,
                    "rules": rules,
                    "at": at,
                    "events": head,
                    "seconds": round(seconds, 3),
                    "cpu_seconds": round(cpu, 3),
                    "target": TARGETS.get(rules, OTHERS),
                    "read_ms": round(read * 1000, 2),
                    "one_core_per_s": round(rate, 1),
                    "steps": round(steps, 1),
                }
            )
    table = Table(
        "encounter (from its middle)",
        f"{args.runs:,} continuations, 2 processes",
        "target",
        "CPU time (all processes)",
        "reading the moment",
        "one core",
        title=f"the odds from this moment, {args.runs:,} continuations",
    )
    for r in rows:
        verdict = "met" if r["seconds"] <= r["target"] else "MISSED"
        table.add_row(
            f"{r['encounter']}, seq {r['at']} of {r['events']}",
            f"{r['seconds']:.2f} s",
            f"<= {r['target']:g} s: {verdict}",
            f"{r['cpu_seconds']:.2f} s",
            f"{r['read_ms']:.1f} ms",
            f"{r['one_core_per_s']:,.0f}/s, {r['steps']:.0f} steps each",
        )
    Console().print(table)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(
        f"{platform.machine()} {platform.system()}, {cores} cores, Python {platform.python_version()}; "
        f"load average {load:.2f} at the start, {os.getloadavg()[0]:.2f} at the end"
    )
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    main()
