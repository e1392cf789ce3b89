"""The web server under careless and hostile clients, on a real server with raw sockets: idle
connections, odd paths, long command lines, cross-site posts, the headers every page carries."""

from __future__ import annotations

import socket
import time

import httpx
import pytest

pytest.importorskip("litestar", reason="the web extra isn't installed: pip install -e '.[web]'")

from hypothesis import given, settings
from hypothesis import strategies as st
from litestar.testing import TestClient

from combatlog.web.app import MAX_BODY, create_app
from combatlog.web.tables import Tables
from tests.test_web import new_log, post
from tests.web_support import SECRET, serving


@pytest.fixture
def tables(tmp_path):
    return Tables.single(str(new_log(tmp_path / "ford.db")), SECRET)


def _port(base: str) -> int:
    return int(base.rsplit(":", 1)[1])


def test_a_crowd_of_silent_connections_never_locks_a_player_out(tables):
    table = tables.all()[0]
    with serving(tables, idle=30.0, limit=40) as base:
        crowd = [socket.create_connection(("127.0.0.1", _port(base))) for _ in range(120)]  # say nothing
        try:
            started = time.monotonic()
            page = httpx.get(f"{base}/play/{table.player_token}", timeout=5)
            assert page.status_code == 200 and "Goblin 1" in page.text
            assert time.monotonic() - started < 1.0
            # the oldest silent ones were closed to make room
            closed = 0
            for s in crowd[:60]:
                s.settimeout(2)
                try:
                    closed += s.recv(1) == b""
                except (TimeoutError, ConnectionResetError):
                    closed += 1
            assert closed == 60
        finally:
            for s in crowd:
                s.close()


def test_a_connection_that_says_nothing_is_closed_after_the_idle_time(tables):
    with serving(tables, idle=0.5, limit=100) as base:
        silent = socket.create_connection(("127.0.0.1", _port(base)))
        silent.settimeout(5)
        started = time.monotonic()
        assert silent.recv(1) == b""
        assert 0.4 < time.monotonic() - started < 3
        silent.close()


def test_a_live_stream_outlasts_the_idle_time(tables):
    table = tables.all()[0]
    with (
        serving(tables, idle=0.3, limit=100) as base,
        httpx.stream("GET", f"{base}/play/{table.player_token}/stream", timeout=5) as stream,
    ):
        ids = (int(line[4:]) for line in stream.iter_lines() if line.startswith("id: "))
        first = next(ids)
        time.sleep(0.8)  # past the idle time: a page that asked for something is never closed for it
        with httpx.Client(base_url=base) as gm:
            assert post(gm, table, kind="begin").status_code == 200
        assert next(ids) > first


def _raw_get(base: str, path: str) -> int:
    with socket.create_connection(("127.0.0.1", _port(base)), timeout=5) as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        head = s.recv(64).decode("latin-1")
    return int(head.split()[1])


def test_odd_static_paths_are_answered_not_found_on_the_real_server(tables):
    with serving(tables) as base:
        for path in ("/static/combatlog.css%00.py", "/static/combatlog.css/x", "/static/..%2f..%2fapp.py", "/%ff"):
            assert _raw_get(base, path) == 404, path
        assert _raw_get(base, "/static/combatlog.css") == 200


@settings(max_examples=150, deadline=None)
@given(path=st.text(alphabet="/.%0123456789abcdefxz-_~:@!$&'()*+,;=?#", max_size=30))
def test_every_odd_path_is_a_client_error_never_a_server_error(path):
    with TestClient(create_app(Tables(SECRET))) as client:
        response = client.get("/" + path.lstrip("/"))
        assert response.status_code < 500, (path, response.status_code)


def test_every_page_says_no_referrer_nosniff_and_a_policy_of_its_own_scripts(tables):
    table = tables.all()[0]
    with TestClient(create_app(tables)) as client:
        for path in (f"/play/{table.player_token}", f"/gm/{table.gm_token}", "/static/htmx.min.js", "/nowhere"):
            headers = client.get(path).headers
            assert headers["referrer-policy"] == "no-referrer"
            assert headers["x-content-type-options"] == "nosniff"
            assert "script-src 'self'" in headers["content-security-policy"]
            assert "unsafe-eval" not in headers["content-security-policy"]


def test_a_post_from_another_site_is_refused_and_appends_nothing(tables):
    table = tables.all()[0]
    with TestClient(create_app(tables)) as client:
        before = table.seq
        url = f"/gm/{table.gm_token}/command"
        form = {"kind": "begin", "seq": str(before)}
        assert client.post(url, data=form, headers={"Origin": "http://evil.example"}).status_code == 403
        assert client.post(url, data=form, headers={"Sec-Fetch-Site": "cross-site"}).status_code == 403
        assert client.post(url, data=form, headers={"Origin": "null"}).status_code == 403
        table.sync()
        assert table.seq == before
        same = client.post(url, data=form, headers={"Origin": "http://testserver.local"})
        assert same.status_code == 200 and table.seq > before


def test_a_long_command_line_is_one_line_refused_at_once_and_a_huge_body_too_large(tables):
    table = tables.all()[0]
    with TestClient(create_app(tables)) as client:
        before = table.seq
        started = time.monotonic()
        response = post(client, table, kind="line", line="note " + '"a" ' * 10_000)
        assert response.status_code == 422 and "at most 4,096 characters" in response.text
        assert time.monotonic() - started < 1.0
        huge = client.post(
            f"/gm/{table.gm_token}/command", data={"kind": "line", "line": "x" * (MAX_BODY + 10), "seq": str(before)}
        )
        assert huge.status_code == 413
        assert table.seq == before
