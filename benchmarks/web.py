"""The web tracker's live figures: how soon a step posted to one `combatlog serve` process
shows on a players' page served by another (PostgreSQL, so LISTEN/NOTIFY; a SQLite file
when no server is reachable), and how many open players' pages one process keeps live.

    python benchmarks/web.py [--steps 200] [--viewers 200] [--postgres URL]

Prints a table; needs the web and test extras (httpx comes with Litestar).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from rich.console import Console
from rich.table import Table

from combatlog.engine.encounter_file import read_encounter
from combatlog.replays import open_log
from combatlog.replays.encounters import start
from combatlog.web.tables import table_id, token

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "skirmish-ambush.toml"
SECRET = "benchmark secret"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(where: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {**os.environ, "COMBATLOG_WEB_SECRET": SECRET}
    proc = subprocess.Popen(
        [sys.executable, "-m", "combatlog", "serve", where, "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            httpx.get(base + "/", timeout=1)
            return proc, base
        except httpx.TransportError:
            if proc.poll() is not None:
                raise SystemExit(f"combatlog serve {where} exited: {proc.stderr.read().decode()[-400:]}") from None
            time.sleep(0.1)
    raise SystemExit(f"combatlog serve {where} didn't start")


def new_encounter(where: str) -> None:
    log = open_log(where)
    try:
        if log.head()[0] == 0:
            start(read_encounter(EXAMPLE), log, EXAMPLE.name)
    finally:
        log.close()


def postgres(url: str, name: str) -> str | None:
    try:
        import psycopg

        with psycopg.connect(url, connect_timeout=3, autocommit=True) as db:
            if db.execute("SELECT to_regclass('combatlog_events')").fetchone()[0] is not None:
                db.execute("DELETE FROM combatlog_events WHERE encounter = %s", (name,))
    except Exception:  # no driver, no server: the file store instead
        return None
    return f"{url}?encounter={name}"


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


async def follow(url: str, seen: dict[int, float], ready: asyncio.Event, client: httpx.AsyncClient) -> None:
    """Record when each step's event arrives on a page following `url`."""
    async with client.stream("GET", url, timeout=None) as response:
        ready.set()
        async for line in response.aiter_lines():
            if line.startswith("id: "):
                seen.setdefault(int(line[4:]), time.perf_counter())


async def post_note(client: httpx.AsyncClient, base: str, gm: str, i: int) -> int:
    r = await client.post(f"{base}/gm/{gm}/command", data={"kind": "line", "line": f"note step {i}"})
    r.raise_for_status()
    return int(r.text.split('data-seq="', 1)[1].split('"', 1)[0])


async def lags(post_to: str, follow_on: str, table: str, viewers: int, steps: int) -> list[float]:
    """Seconds from a step posted to `post_to` until each of `viewers` players' pages served by
    `follow_on` has it, for `steps` steps."""
    gm, players = token(SECRET.encode(), table, "gm"), token(SECRET.encode(), table, "players")
    limits = httpx.Limits(max_connections=viewers + 10, max_keepalive_connections=viewers + 10)
    async with httpx.AsyncClient(limits=limits) as client:
        pages: list[tuple[dict[int, float], asyncio.Event]] = [({}, asyncio.Event()) for _ in range(viewers)]
        tasks = [
            asyncio.create_task(follow(f"{follow_on}/play/{players}/stream", seen, ready, client))
            for seen, ready in pages
        ]
        for _, ready in pages:
            await ready.wait()
        await asyncio.sleep(0.5)
        out = []
        for i in range(steps):
            sent = time.perf_counter()
            seq = await post_note(client, post_to, gm, i)
            deadline = time.monotonic() + 10
            while not all(any(s >= seq for s in seen) for seen, _ in pages):
                if time.monotonic() > deadline:
                    raise SystemExit(f"step {seq} didn't reach every page within 10 s")
                await asyncio.sleep(0.001)
            out.extend(min(t for s, t in seen.items() if s >= seq) - sent for seen, _ in pages)
        for task in tasks:
            task.cancel()
        return out


async def across_processes(where: str, steps: int) -> list[float]:
    """One players' page on one process, the steps posted to another."""
    a, base_a = serve(where)
    b, base_b = serve(where)
    try:
        return await lags(base_a, base_b, table_id(where), 1, steps)
    finally:
        for proc in (a, b):
            proc.terminate()
            proc.wait(10)


async def fan_out(where: str, viewers: int, steps: int) -> list[float]:
    """`viewers` players' pages on the process the steps are posted to."""
    proc, base = serve(where)
    try:
        return await lags(base, base, table_id(where), viewers, steps)
    finally:
        proc.terminate()
        proc.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=200, help="steps posted (200)")
    parser.add_argument("--viewers", type=int, default=200, help="open players' pages on one process (200)")
    parser.add_argument(
        "--postgres",
        default=os.environ.get("COMBATLOG_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test"),
        help="the PostgreSQL server for the two-process figure",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        where = postgres(args.postgres, f"bench-web-{os.getpid()}")
        store = "PostgreSQL" if where else "SQLite file"
        where = where or str(Path(tmp) / "bench.db")
        new_encounter(where)
        lag = asyncio.run(across_processes(where, args.steps))
        fan_where = str(Path(tmp) / "fan.db")
        new_encounter(fan_where)
        fan = asyncio.run(fan_out(fan_where, args.viewers, max(20, args.steps // 4)))
    table = Table(title="combatlog web tracker, live")
    table.add_column("measure")
    table.add_column("p50")
    table.add_column("p99")
    table.add_column("target")

    def ms(x: float) -> str:
        return f"{x * 1000:.1f} ms"

    table.add_row(
        f"step on one process to a players' page on another ({store}, {len(lag)} steps)",
        ms(statistics.median(lag)),
        ms(percentile(lag, 99)),
        "well under 1 s: " + ("met" if percentile(lag, 99) < 1.0 else "MISSED"),
    )
    table.add_row(
        f"{args.viewers} open players' pages on one process ({len(fan) // args.viewers} steps)",
        ms(statistics.median(fan)),
        ms(percentile(fan, 99)),
        "p99 < 250 ms: " + ("met" if percentile(fan, 99) < 0.25 else "MISSED"),
    )
    Console().print(table)
    print(f"{platform.machine()}, {os.cpu_count()} cores; Python {platform.python_version()}")


if __name__ == "__main__":
    main()
