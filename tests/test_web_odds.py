"""The odds from this moment on the game master's screen: worked out in a process of its own
after each step, a study of an older step stopped when a newer one lands, shown to the
players only when the game master chooses."""

from __future__ import annotations

import html
import re
import time

import pytest

pytest.importorskip("litestar", reason="the web extra isn't installed: pip install -e '.[web]'")

from litestar.testing import TestClient

from combatlog.web.app import create_app
from combatlog.web.odds import OddsKeeper, study
from combatlog.web.tables import Tables
from tests.test_web import new_log, post
from tests.web_support import SECRET


def page_with(client, url: str, text: str, seconds: float = 60.0) -> str:
    """The page at `url` once it says `text` (each look asks again: a study ends in its own time)."""
    return wait_for(lambda: (lambda page: page if text in page else None)(html.unescape(client.get(url).text)), seconds)


def wait_for(check, seconds: float = 60.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.1)
    raise AssertionError("nothing came in time")


def test_a_study_from_a_moment_gives_each_sides_share_and_each_pc_going_down(tmp_path):
    log = new_log(tmp_path / "ford.db")
    tables = Tables.single(str(log), SECRET)
    table = tables.all()[0]
    with TestClient(create_app(tables)) as client:
        post(client, table, kind="begin")
    seq = table.seq
    table.close()
    data = study(str(log), seq, 60)
    assert data["seq"] == seq and data["runs"] == 60 and not data.get("error")
    assert {s for s, *_ in data["sides"]} == {"party", "goblins"}
    shares = sum(p for _, p, _, _ in data["sides"]) + data["draw"][0]
    assert abs(shares - 1.0) < 1e-9 and {name for name, _ in data["down"]} == {"Ayla", "Bo"}
    assert study(str(log), seq, 60) == data  # the seed is the seq: the same moment, the same odds


def test_a_newer_step_stops_the_study_of_an_older_one(tmp_path):
    log = new_log(tmp_path / "ford.db")
    done = []
    keeper = OddsKeeper(str(log), lambda: done.append(1), runs=40)
    try:
        keeper.want(0)
        keeper.want(2)  # before the first had even started
        assert keeper.running() == 2
        wait_for(lambda: done)  # the study's result is kept, then the pages are woken
        assert keeper.latest is not None and keeper.latest.seq == 2
        assert done == [1]  # once: the study of seq 0 never started
    finally:
        keeper.close()


def test_the_game_masters_screen_shows_the_odds_and_the_players_only_when_chosen(tmp_path):
    tables = Tables.single(str(new_log(tmp_path / "ford.db")), SECRET, odds=True)
    table = tables.all()[0]
    with TestClient(create_app(tables)) as client:
        post(client, table, kind="begin")
        client.get(f"/gm/{table.gm_token}")  # the step's study starts
        page = page_with(client, f"/gm/{table.gm_token}", "Odds now")
        assert re.search(r"who wins: party \d+% \(\d+–\d+%\)", page) and re.search(r"goes down: Ayla \d+%", page)
        assert "Odds now" not in client.get(f"/play/{table.player_token}").text
        post(client, table, kind="view", odds="true")
        client.get(f"/gm/{table.gm_token}")  # the setting's step: a study of it starts
        players = page_with(client, f"/play/{table.player_token}", f"from seq {table.seq},")
        assert re.search(r"who wins: party \d+%", players)  # the odds of the latest step, not a page kept from before
    table.close()
