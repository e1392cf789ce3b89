"""Serving the web tracker in tests: a real uvicorn server on a free port, in a thread."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from combatlog.web.app import create_app
from combatlog.web.server import config as guarded
from combatlog.web.tables import Tables

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SECRET = b"a test secret"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serving(tables: Tables, **guard: Any) -> Iterator[str]:
    """`tables` served on 127.0.0.1 while the block runs, as `combatlog serve` serves them
    (`guard`: the idle seconds and connection limit); yields the base URL."""
    port = free_port()
    server = uvicorn.Server(guarded(create_app(tables), "127.0.0.1", port, log_level="warning", lifespan="on", **guard))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server didn't start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


def next_event(url: str, last_id: int | None = None, timeout: float = 5.0) -> tuple[int, str]:
    """The first `step` event a page following `url` is sent: (id, data)."""
    headers = {"Last-Event-ID": str(last_id)} if last_id is not None else {}
    with httpx.stream("GET", url, headers=headers, timeout=timeout) as response:
        assert response.status_code == 200, response.status_code
        assert response.headers["content-type"].startswith("text/event-stream")
        event_id, data, kind = None, [], None
        for line in response.iter_lines():
            if line.startswith("id: "):
                event_id = int(line[4:])
            elif line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: "):
                data.append(line[6:])
            elif line == "" and kind == "step" and event_id is not None:
                return event_id, "\n".join(data)
    raise AssertionError("the stream ended without a step")
