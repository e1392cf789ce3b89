"""Opening a long log to append, and a long-running writer's memory: the checkpoints' benchmark.

    python benchmarks/checkpoints.py [--quick] [--postgres URL] [--json OUT]

Builds the benchmark's long Starflight session (`benchmarks/run.py`: the patrol, hit points
multiplied, an undo and a redo every 50 steps) once, in memory, and stores whole-step
prefixes of it of about 1k, 100k and 1M events (100k at most with `--quick`) as JSON lines,
SQLite and, when a server answers, PostgreSQL. Then, for each, in a fresh process:

- open to append: a process that opens a session on the log (as `do`, `play` and `serve`
  do) and appends one note step: once with checkpoints off (`checkpoint_every=0`: a full
  load, as every open was before checkpoints), then twice with them: the first run finds no checkpoint (a full load,
  and the checkpoint written, as the first open after an upgrade), the second opens from it.
  The row gives the second run's wall time (the process, start to exit), the time of the open
  and the append alone (imports left out), and its peak RSS (VmHWM), then the first run's;
- `combatlog do LOG note x`, the whole command (it opens as above, then tells the step
  through the transcript, on from the projection before it), after the runs above;
- a writer's memory: one session on a JSON-lines log taking 100k steps (10k with --quick)
  of the same fight, its RSS every tenth of the way (VmRSS), then its peak.

A script, not a test: it prints a table and, with --json, writes the figures.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("combatlog_bench", HERE / "run.py")
bench = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(bench)  # type: ignore[union-attr]

POSTGRES = os.environ.get("COMBATLOG_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")


def rss(field: str = "VmHWM") -> float:
    """This process's `field` from /proc/self/status, in MB (VmHWM: the peak; VmRSS: now)."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def store(source: Any, where: str) -> str:
    """Write every line of `source` (a MemoryLog) to a new log at `where` in one go: a file, a
    database, or a PostgreSQL encounter. Returns `where`."""
    from combatlog.events.envelope import step_of
    from combatlog.replays import SqliteLog, open_log

    lines = list(source.lines())
    if where.endswith(".jsonl"):
        with open(where, "wb") as fh:
            fh.writelines(line + b"\n" for line in lines)
    elif where.endswith(".db"):
        log = SqliteLog(where)
        log.db.execute("BEGIN")
        log.db.executemany(
            f"INSERT INTO {log.table} (seq, step, line) VALUES (?, ?, ?)",
            ((i, step_of(line), line) for i, line in enumerate(lines, start=1)),
        )
        log.db.execute("COMMIT")
        log.close()
    else:
        log = open_log(where)
        log.clear()  # type: ignore[attr-defined]
        with log.db.transaction(), log.db.cursor() as cur:  # type: ignore[attr-defined]
            cur.executemany(
                "INSERT INTO combatlog_events (encounter, seq, step, line) VALUES (%s, %s, %s, %s)",
                [(log.encounter, i, step_of(line), line) for i, line in enumerate(lines, start=1)],  # type: ignore[attr-defined]
            )
        log.close()
    return where


def in_child(what: str, where: str) -> tuple[float, float, float]:
    """`what` ("open" or "do") on the log at `where` in a fresh process: (the process's wall time in
    s, the open and append's own time in s, its peak RSS in MB)."""
    t = time.perf_counter()
    out = subprocess.run(
        [sys.executable, str(Path(__file__)), "--child", what, where], capture_output=True, text=True, check=True
    )
    took = time.perf_counter() - t
    inner, mb = out.stdout.strip().splitlines()[-1].split()
    return took, float(inner), float(mb)


def child_open(where: str, every: int | None = None) -> None:
    """Open a session on the log at `where` and append a note; print the time that took and the peak
    RSS. `every=0`: a session that reads and writes no checkpoint (a full load, as before them)."""
    from combatlog.engine import Session
    from combatlog.replays import open_log

    t = time.perf_counter()
    log = open_log(where, create=False)
    session = Session(log) if every is None else Session(log, checkpoint_every=every)
    session.do("note", text="x")
    took = time.perf_counter() - t
    print(took, rss())


def child_do(where: str) -> None:
    """As `combatlog do WHERE note x`; print the time it took (imports left out) and the peak RSS."""
    from combatlog.cli.main import app

    t = time.perf_counter()
    app.main(["do", where, "note", "x"], standalone_mode=False)
    took = time.perf_counter() - t
    print(took, rss())


def child_writer(path: str, steps: int) -> None:
    """One session taking `steps` steps on a JSON-lines log; print (steps, RSS MB) as it goes, then the peak."""
    from combatlog.engine import Session
    from combatlog.replays import JsonlLog

    session = Session(JsonlLog(path))
    bench.begun(session)
    samples = [(0, rss("VmRSS"))]
    for n in range(1, steps + 1):
        session.auto()
        if n % bench.UNDO_EVERY == 0:
            session.undo()
            session.redo()
        if n % (steps // 10) == 0:
            samples.append((n, rss("VmRSS")))
    print(json.dumps({"samples": samples, "peak": rss(), "events": session.projection.seq}))


def writer(steps: int, tmp: str) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, str(Path(__file__)), "--child", "writer", str(Path(tmp) / "writer.jsonl"), str(steps)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def postgres_reachable(url: str) -> bool:
    try:
        from combatlog.replays import open_log

        open_log(url + "?encounter=bench_checkpoints&connect_timeout=3").close()
        return True
    except Exception:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="logs up to 100k events, a writer of 10k steps")
    parser.add_argument("--json", help="write the figures to this file")
    parser.add_argument("--postgres", default=POSTGRES, help="a PostgreSQL server's URL (skipped if unreachable)")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        if args.child[0] == "do":
            child_do(args.child[1])
        elif args.child[0] == "open":
            child_open(args.child[1])
        elif args.child[0] == "open-full":
            child_open(args.child[1], every=0)
        else:
            child_writer(args.child[1], int(args.child[2]))
        return

    sizes = [1_000, 100_000] if args.quick else [1_000, 100_000, 1_000_000]
    writer_steps = 10_000 if args.quick else 100_000
    full = bench.build(sizes[-1])
    stores = ["jsonl", "db"] + (["postgres"] if postgres_reachable(args.postgres) else [])
    rows: list[tuple[str, str]] = []
    figures: dict[str, Any] = {"open_to_append": {}, "writer": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            log = full if size == sizes[-1] else bench.prefix(full, size)
            n = log.head()[0]
            for kind in stores:
                if kind == "postgres":
                    where = f"{args.postgres}?encounter=bench_checkpoints_{size}"
                else:
                    where = str(Path(tmp) / f"open-{size}.{kind}")
                store(log, where)
                none = in_child("open-full", where)
                cold = in_child("open", where)
                warm = in_child("open", where)
                do = in_child("do", where)
                figures["open_to_append"][f"{kind} {size}"] = {
                    "events": n,
                    "full_load_s": round(none[0], 3),
                    "full_load_mb": round(none[2], 1),
                    "first_s": round(cold[0], 3),
                    "first_open_s": round(cold[1], 3),
                    "first_mb": round(cold[2], 1),
                    "s": round(warm[0], 3),
                    "open_s": round(warm[1], 3),
                    "mb": round(warm[2], 1),
                    "do_s": round(do[0], 3),
                    "do_mb": round(do[2], 1),
                }
                rows.append(
                    (
                        f"open to append, {kind}, {n:,} events",
                        f"{warm[0]:.3f} s ({warm[1] * 1000:.0f} ms of it open and append), {warm[2]:.1f} MB; "
                        f"first open, writing it {cold[0]:.2f} s, {cold[2]:.1f} MB; "
                        f"checkpoints off (a full load) {none[0]:.2f} s, {none[2]:.1f} MB",
                    )
                )
                rows.append((f"combatlog do LOG note x, {kind}, {n:,} events", f"{do[0]:.3f} s, {do[2]:.1f} MB"))
                if kind == "postgres":
                    from combatlog.replays import open_log

                    pg = open_log(where)
                    pg.clear()  # type: ignore[attr-defined]
                    pg.close()
                elif kind == "jsonl" or kind == "db":
                    for extra in Path(tmp).glob(f"open-{size}.*"):
                        extra.unlink()
        w = writer(writer_steps, tmp)
        figures["writer"] = w
        first = next(mb for s, mb in w["samples"] if s == writer_steps // 10)
        rows.append(
            (
                f"writer's RSS over {writer_steps:,} steps ({w['events']:,} events), JSON lines",
                " -> ".join(f"{mb:.0f}" for _, mb in w["samples"])
                + f" MB (peak {w['peak']:.1f}; +{w['samples'][-1][1] - first:.1f} MB after the first tenth)",
            )
        )
    width = max(len(r[0]) for r in rows)
    for name, result in rows:
        print(f"{name:<{width}}  {result}")
    print(bench.machine())
    if args.json:
        Path(args.json).write_text(json.dumps({"figures": figures, "machine": bench.machine()}, indent=2))


if __name__ == "__main__":
    main()
