"""The web tracker's live figures: how soon a step posted to one `combatlog serve` process
shows on a players' page served by another (PostgreSQL, so LISTEN/NOTIFY; a SQLite file
when no server is reachable), and how many open players' pages one process keeps live.

    python benchmarks/web.py [--steps 200] [--viewers 200] [--seats 8] [--crowd 1100] [--postgres URL]

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


def serve(where: str, open_files: int | None = None) -> tuple[subprocess.Popen[bytes], str]:
    """`combatlog serve where` in a process of its own (`open_files`: its hard limit of open files)."""
    port = free_port()
    env = {**os.environ, "COMBATLOG_WEB_SECRET": SECRET}

    def limited() -> None:
        if open_files is not None:
            import resource

            resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, open_files))

    proc = subprocess.Popen(
        [sys.executable, "-m", "combatlog", "serve", where, "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=limited if open_files is not None else None,
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


def seat_token(table: str, seat: str, generation: int = 1) -> str:
    """A seat's link token, as the server makes it from the shared secret."""
    return token(SECRET.encode(), "\0".join((table, seat, str(generation))), "seat")


async def from_a_seat(where: str, seats: int, viewers: int, steps: int) -> list[float]:
    """Seconds from a command posted by a seat's page until each other open page (the other
    seats' and `viewers` players' pages) has the step: one process, `seats` seats."""
    from combatlog.engine import Session
    from combatlog.events import Command
    from combatlog.replays.cursor import replay

    log = open_log(where, create=False)
    session = Session(log, signer=None)
    ids = list(session.state.combatants)
    session.execute(Command(kind="seat", params={"seat": "all", "combatants": ids}))  # the one that commands
    for i in range(seats - 1):
        session.execute(Command(kind="seat", params={"seat": f"s{i}", "combatants": [ids[i % len(ids)]]}))
    session.execute(Command(kind="begin"))
    log.close()
    proc, base = serve(where)
    table = table_id(where)
    players = token(SECRET.encode(), table, "players")
    commanding = f"{base}/seat/{seat_token(table, 'all')}"
    watching = [f"{base}/play/{players}/stream"] * viewers + [
        f"{base}/seat/{seat_token(table, f's{i}')}/stream" for i in range(seats - 1)
    ]
    limits = httpx.Limits(max_connections=len(watching) + 10, max_keepalive_connections=len(watching) + 10)
    reader = open_log(where, create=False, read_only=True)
    try:
        async with httpx.AsyncClient(limits=limits, timeout=30) as client:
            pages: list[tuple[dict[int, float], asyncio.Event]] = [({}, asyncio.Event()) for _ in watching]
            tasks = [
                asyncio.create_task(follow(url, seen, ready, client)) for url, (seen, ready) in zip(watching, pages)
            ]
            for _, ready in pages:
                await ready.wait()
            await asyncio.sleep(0.5)
            out = []
            for _ in range(steps):
                state = replay(reader, None).state
                if state.phase == "end" or not state.acting:
                    break
                seq0 = replay(reader, None).seq
                sent = time.perf_counter()
                r = await client.post(
                    f"{commanding}/command", data={"kind": "end_turn", "actor": state.acting[0], "seq": str(seq0)}
                )
                r.raise_for_status()
                seq = int(r.text.split('data-seq="', 1)[1].split('"', 1)[0])
                deadline = time.monotonic() + 10
                while not all(any(s >= seq for s in seen) for seen, _ in pages):
                    if time.monotonic() > deadline:
                        raise SystemExit(f"step {seq} didn't reach every page within 10 s")
                    await asyncio.sleep(0.001)
                out.extend(min(t for s, t in seen.items() if s >= seq) - sent for seen, _ in pages)
            for task in tasks:
                task.cancel()
            return out
    finally:
        reader.close()
        proc.terminate()
        proc.wait(10)


def under_idle_crowd(where: str, crowd: int, requests: int) -> tuple[list[float], list[float]]:
    """Seconds a players' page takes to answer while `crowd` connections that never send a
    request are open against a server limited to 1,024 open files; and while a game master
    posts command lines of 200 KB (each refused at once)."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, crowd + 512)), hard))
    proc, base = serve(where, open_files=1024)
    port = int(base.rsplit(":", 1)[1])
    players = f"{base}/play/{token(SECRET.encode(), table_id(where), 'players')}"
    gm = f"{base}/gm/{token(SECRET.encode(), table_id(where), 'gm')}/command"
    idle: list[float] = []
    busy: list[float] = []
    sockets = []
    try:
        for _ in range(crowd):
            sockets.append(socket.create_connection(("127.0.0.1", port)))
        for _ in range(requests):
            started = time.perf_counter()
            httpx.get(players, timeout=30).raise_for_status()
            idle.append(time.perf_counter() - started)
        for s in sockets:
            s.close()
        sockets.clear()
        with httpx.Client(timeout=30) as client:
            for _ in range(requests):
                client.post(gm, data={"kind": "line", "line": "note " + "x" * 200_000})
                started = time.perf_counter()
                client.get(players).raise_for_status()
                busy.append(time.perf_counter() - started)
    finally:
        for s in sockets:
            s.close()
        proc.terminate()
        proc.wait(10)
    return idle, busy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=200, help="steps posted (200)")
    parser.add_argument("--viewers", type=int, default=200, help="open players' pages on one process (200)")
    parser.add_argument("--crowd", type=int, default=1100, help="silent connections held open (1,100)")
    parser.add_argument("--seats", type=int, default=8, help="players' seats open on one process (8)")
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
        seat_where = str(Path(tmp) / "seats.db")
        new_encounter(seat_where)
        seated = asyncio.run(from_a_seat(seat_where, args.seats, args.viewers, max(20, args.steps // 4)))
        crowd_where = str(Path(tmp) / "crowd.db")
        new_encounter(crowd_where)
        crowd, long_lines = under_idle_crowd(crowd_where, args.crowd, 50)
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
    table.add_row(
        f"a seat's command to {args.seats - 1} other seats' and {args.viewers} players' pages "
        f"({len(seated) // (args.seats - 1 + args.viewers)} steps)",
        ms(statistics.median(seated)),
        ms(percentile(seated, 99)),
        "p99 < 100 ms: " + ("met" if percentile(seated, 99) < 0.1 else "MISSED"),
    )
    table.add_row(
        f"players' page beside {args.crowd:,} silent connections, 1,024 open files ({len(crowd)} requests)",
        ms(statistics.median(crowd)),
        ms(percentile(crowd, 99)),
        "p99 < 1 s: " + ("met" if percentile(crowd, 99) < 1.0 else "MISSED"),
    )
    table.add_row(
        f"players' page after each 200 KB command line ({len(long_lines)} requests)",
        ms(statistics.median(long_lines)),
        ms(percentile(long_lines, 99)),
        "p99 < 100 ms: " + ("met" if percentile(long_lines, 99) < 0.1 else "MISSED"),
    )
    Console().print(table)
    print(f"{platform.machine()}, {os.cpu_count()} cores; Python {platform.python_version()}")


if __name__ == "__main__":
    main()
