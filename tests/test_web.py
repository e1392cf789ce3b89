"""The web tracker's routes: the game master's screen, the players' view and its redaction,
the tokens, bad input, the history, the audit badge and the live stream (on a real server)."""

from __future__ import annotations

import html
import os
import re
import threading
import time
from pathlib import Path

import httpx
import pytest

pytest.importorskip("litestar", reason="the web extra isn't installed: pip install -e '.[web]'")

from litestar.testing import TestClient

from combatlog.engine.encounter_file import read_encounter
from combatlog.events import DiceRolled
from combatlog.replays import open_log
from combatlog.replays.cursor import envelopes
from combatlog.replays.encounters import start
from combatlog.web.app import create_app
from combatlog.web.tables import Table, Tables
from tests.web_support import EXAMPLES, SECRET, next_event, serving

AMBUSH = EXAMPLES / "skirmish-ambush.toml"


def new_log(path: Path, example: Path = AMBUSH) -> Path:
    log = open_log(path)
    try:
        start(read_encounter(example), log, example.name)
    finally:
        log.close()
    return path


@pytest.fixture
def fight(tmp_path):
    """(client, table) for the ambush on an SQLite log, served by one app."""
    tables = Tables.single(str(new_log(tmp_path / "ford.db")), SECRET)
    table = tables.all()[0]
    with TestClient(create_app(tables)) as client:
        yield client, table


def post(client, table: Table, token: str | None = None, **form) -> httpx.Response:
    form.setdefault("seq", str(table.seq))
    return client.post(f"/gm/{token or table.gm_token}/command", data=form)


def head(table: Table) -> int:
    log = open_log(table.where, create=False)
    try:
        return log.head()[0]
    finally:
        log.close()


def refusal(page: str) -> str:
    found = re.search(r'<p class="error" role="alert" id="refusal">refused: (.*?)</p>', page, re.S)
    assert found, page[:500]
    return html.unescape(found.group(1))


# --- pages and tokens -------------------------------------------------------------------


def test_the_game_masters_screen_shows_everyone_the_order_and_what_can_be_done(fight):
    client, table = fight
    page = client.get(f"/gm/{table.gm_token}")
    assert page.status_code == 200
    for name in ("Ayla", "Bo", "Goblin 1", "Goblin 2"):
        assert name in page.text
    assert f"/play/{table.player_token}" in page.text and "/static/htmx.min.js" in page.text
    assert 'id="begin-button"' in page.text  # the encounter is set up, not begun
    board = post(client, table, kind="begin")
    assert board.status_code == 200
    assert "round 1" in board.text and "acting:" in board.text
    assert '<ol class="order"' in board.text and 'name="action"' in board.text  # a form for the acting combatant


def test_the_vendored_scripts_are_served_without_a_cdn(fight):
    client, _ = fight
    for name in ("htmx.min.js", "htmx-sse.js", "combatlog.js", "combatlog.css"):
        got = client.get(f"/static/{name}")
        assert got.status_code == 200 and len(got.content) > 500
    page = client.get(f"/gm/{fight[1].gm_token}").text
    assert "https://" not in page and "http://" not in page


def test_an_unknown_token_is_not_found_and_the_players_token_cannot_command(fight):
    client, table = fight
    before = head(table)
    assert client.get("/gm/not-a-token").status_code == 404
    assert client.get(f"/gm/{table.player_token}").status_code == 404
    refused = post(client, table, token=table.player_token, kind="begin")
    assert refused.status_code == 404 and "game master" in refused.text
    assert client.post(f"/play/{table.player_token}", data={"kind": "begin"}).status_code == 405
    assert head(table) == before


def test_the_two_links_differ_and_hold_for_another_process_with_the_same_secret(tmp_path):
    where = str(new_log(tmp_path / "ford.db"))
    a = Tables.single(where, SECRET).all()[0]
    b = Tables.single(where, SECRET).all()[0]
    other = Tables.single(where, b"another secret").all()[0]
    assert a.gm_token != a.player_token
    assert (a.gm_token, a.player_token) == (b.gm_token, b.player_token)
    assert a.gm_token != other.gm_token


# --- commands --------------------------------------------------------------------------


def test_an_action_from_the_form_with_dice_typed_at_the_table(fight):
    client, table = fight
    post(client, table, kind="begin")
    actor = table.session.state.acting[0]
    foe = "g1" if table.session.state.combatants[actor].side == "party" else "ayla"
    board = post(client, table, kind="act", actor=actor, action="strike", targets=foe, dice="1d20: 20; 1d6: 5")
    assert board.status_code == 200, refusal(board.text)
    rolled = [e.event for e in envelopes(table.log) if isinstance(e.event, DiceRolled)]
    assert [d.faces for d in rolled[-2:]] == [(20,), (5,)]
    assert table.session.state.combatants[foe].damage == 5


def test_undo_strikes_the_step_through_and_redo_brings_it_back(fight):
    client, table = fight
    post(client, table, kind="begin")
    post(client, table, kind="auto")
    hurt = {c.id: c.damage for c in table.session.state.combatants.values()}
    undone = post(client, table, kind="undo")
    assert undone.status_code == 200
    assert "<del" in undone.text and "Undone: step" in undone.text  # struck through, never deleted
    redone = post(client, table, kind="redo")
    assert "Redone: step" in redone.text and "<del" not in redone.text.split("Redone: step")[0].rsplit("<ol", 1)[-1]
    assert {c.id: c.damage for c in table.session.state.combatants.values()} == hurt


@pytest.mark.parametrize(
    ("form", "says"),
    [
        ({"kind": "act", "actor": "ACTING", "action": "dance"}, "dance"),
        ({"kind": "launch"}, "command 'launch'"),
        ({"kind": "act", "actor": "ayla", "action": "strike", "targets": "g1", "dice": "1d20: 25"}, "can't show"),
        ({"kind": "act", "actor": "ayla", "action": "strike", "params": "weapon"}, "KEY=VALUE"),
        ({"kind": "line", "line": "act 'ayla"}, "can't read that line"),
        ({"kind": "begin", "seq": "abc"}, "whole number"),
        ({"kind": "begin", "seq": "1"}, "moved on"),
        ({"kind": "view", "side": "goblins", "hp": "secret"}, "exact, level or hidden"),
    ],
)
def test_bad_input_is_a_one_line_refusal_that_appends_nothing(fight, form, says):
    client, table = fight
    if form["kind"] == "act":
        post(client, table, kind="begin")
        form = {**form, "actor": table.session.state.acting[0]} if form["actor"] == "ACTING" else form
    before = head(table)
    response = post(client, table, **form)
    assert response.status_code == 422
    reason = refusal(response.text)
    assert says in reason and "\n" not in reason.strip()
    assert head(table) == before


def test_a_typed_command_line_takes_the_play_grammar(fight):
    client, table = fight
    board = post(client, table, kind="line", line="note the ford is slippery")
    assert board.status_code == 200 and "Note: the ford is slippery" in board.text


# --- the players' view: redacted on the server ------------------------------------------


def test_the_players_see_their_own_health_exactly_and_enemies_as_levels(fight):
    client, table = fight
    post(client, table, kind="begin")
    for _ in range(6):
        post(client, table, kind="auto")
    state = table.session.state
    page = client.get(f"/play/{table.player_token}").text
    for c in state.combatants.values():
        left, most = table.session.rules.health(state, c)
        if c.side == "party":
            assert f"{left}/{most}" in page
        else:
            assert f"{left}/{most}" not in page and f'aria-valuemax="{most}"' not in page
    assert re.search(r'class="level (healthy|injured|bloodied|critical|down)"', page)
    assert "resources" not in page and "auto-button" not in page  # no game master's tools


def test_a_hidden_combatant_and_a_hidden_sides_health_never_reach_a_player(tmp_path):
    tables = Tables.single(str(new_log(tmp_path / "ford.db")), SECRET)
    table = tables.all()[0]
    with TestClient(create_app(tables)) as client:
        post(client, table, kind="view", combatant="g2", hidden="true")
        post(client, table, kind="view", side="goblins", hp="hidden")
        post(client, table, kind="begin")
        for _ in range(8):
            if table.session.state.phase == "end":
                break
            post(client, table, kind="auto")
        gm = client.get(f"/gm/{table.gm_token}").text
        assert "Goblin 2" in gm
        payloads = [
            client.get(f"/play/{table.player_token}").text,
            client.get(f"/play/{table.player_token}/board").text,
        ]
    with serving(tables) as base:
        payloads.append(next_event(f"{base}/play/{table.player_token}/stream")[1])
    g1 = table.session.state.combatants["g1"]
    left, most = table.session.rules.health(table.session.state, g1)
    for payload in payloads:
        assert "Goblin 2" not in payload and "g2" not in payload
        assert "Goblin 1" in payload and f"{left}/{most}" not in payload
        assert "hidden" not in payload and "Players' view" not in payload  # not even that something is hidden


def test_a_hidden_combatants_turn_does_not_say_who_acts(fight):
    client, table = fight
    post(client, table, kind="begin")
    acting = table.session.state.acting[0]
    name = table.session.state.combatants[acting].name
    post(client, table, kind="view", combatant=acting, hidden="true")
    page = client.get(f"/play/{table.player_token}").text
    assert name not in page and "someone" in page


# --- the history and the audit ----------------------------------------------------------


def test_the_scrubber_shows_the_state_at_any_seq_read_only_and_what_changed(fight):
    client, table = fight
    post(client, table, kind="begin")
    post(client, table, kind="auto")
    early = client.get(f"/gm/{table.gm_token}/at/3")
    assert early.status_code == 200 and "setup, round 0" in early.text and "read-only" in early.text
    now = client.get(f"/gm/{table.gm_token}/at/{table.seq}")
    assert "round 1" in now.text and '<ul class="changed">' in now.text
    assert client.get(f"/gm/{table.gm_token}/at/{table.seq + 5}").status_code == 422


def test_the_audit_badge_is_clean_and_names_the_seq_of_a_tampered_line(tmp_path):
    path = new_log(tmp_path / "ford.jsonl")
    tables = Tables.single(str(path), SECRET)
    table = tables.all()[0]
    with TestClient(create_app(tables)) as client:
        post(client, table, kind="begin")
        post(client, table, kind="auto")
        badge = client.get(f"/gm/{table.gm_token}/audit").text
        assert "audit: clean" in badge
        lines = path.read_bytes().splitlines(keepends=True)
        at = next(i for i, line in enumerate(lines) if b'"Goblin 1"' in line)
        lines[at] = lines[at].replace(b'"Goblin 1"', b'"Goblin X"')
        path.write_bytes(b"".join(lines))
        badge = client.get(f"/gm/{table.gm_token}/audit").text
    assert "finding" in badge and f'data-seq="{at + 1}"' in badge


# --- live -----------------------------------------------------------------------------


def test_a_page_that_reconnects_is_sent_the_state_it_missed(fight):
    client, table = fight
    with serving(Tables.single(table.where, SECRET)) as base:
        seq, data = next_event(f"{base}/play/{table.player_token}/stream", last_id=0)
    assert seq == table.seq and "Goblin 1" in data


def _postgres_or_skip(name: str) -> str:
    psycopg = pytest.importorskip("psycopg", reason="psycopg isn't installed: pip install -e '.[postgres]'")
    server = os.environ.get("COMBATLOG_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
    try:
        with psycopg.connect(server, connect_timeout=3, autocommit=True) as db:
            if db.execute("SELECT to_regclass('combatlog_events')").fetchone()[0] is not None:
                db.execute("DELETE FROM combatlog_events WHERE encounter = %s", (name,))
    except psycopg.Error as exc:
        pytest.skip(f"no PostgreSQL server at {server} ({' '.join(str(exc).split())})")
    return f"{server}?encounter={name}"


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_a_step_taken_by_another_process_reaches_an_open_players_page(tmp_path, store):
    if store == "sqlite":
        where = str(new_log(tmp_path / "ford.db"))
    else:
        where = _postgres_or_skip(f"web-live-{os.getpid()}")
        log = open_log(where)
        try:
            start(read_encounter(AMBUSH), log, AMBUSH.name)
        finally:
            log.close()
    gm_side, player_side = Tables.single(where, SECRET), Tables.single(where, SECRET)
    table = gm_side.all()[0]
    got: dict[str, object] = {}
    with serving(player_side) as base:
        seq = head(table)

        def follow() -> None:
            got["event"] = next_event(f"{base}/play/{table.player_token}/stream", last_id=seq)
            got["at"] = time.monotonic()

        reader = threading.Thread(target=follow)
        reader.start()
        time.sleep(0.3)  # the page is open and waiting
        with TestClient(create_app(gm_side)) as client:
            sent = time.monotonic()
            assert post(client, table, kind="begin").status_code == 200
        reader.join(10)
    event_seq, data = got["event"]
    assert event_seq == head(table) > seq and "round 1" in data
    assert got["at"] - sent < 2.0


# --- a directory of encounters -----------------------------------------------------------


def test_the_home_page_starts_an_encounter_from_an_example_or_an_upload(tmp_path):
    tables = Tables(SECRET, directory=tmp_path)
    with TestClient(create_app(tables)) as client:
        assert client.get("/home/wrong").status_code == 404
        home = client.get(f"/home/{tables.home_token}")
        assert home.status_code == 200 and "skirmish-ambush.toml" in home.text
        made = client.post(
            f"/home/{tables.home_token}/new", data={"example": "skirmish-ambush.toml"}, follow_redirects=False
        )
        assert made.status_code == 303
        gm = client.get(made.headers["location"])
        assert gm.status_code == 200 and "Goblins at the ford" in gm.text
        bad = client.post(
            f"/home/{tables.home_token}/new",
            files={"file": ("broken.toml", b'rules = "skirmish"\n[[combatants]]\nid = 3\n', "application/toml")},
        )
        assert bad.status_code == 422 and "broken.toml" in bad.text
    assert sorted(p.name for p in tmp_path.glob("*.db")) == ["skirmish-ambush.db"]


@pytest.mark.parametrize("example", sorted(EXAMPLES.glob("*.toml")), ids=lambda p: p.stem)
def test_a_whole_fight_of_every_bundled_system_runs_from_the_game_masters_screen(tmp_path, example):
    tables = Tables.single(str(new_log(tmp_path / "fight.db", example)), SECRET)
    table = tables.all()[0]
    with TestClient(create_app(tables)) as client:
        assert post(client, table, kind="begin").status_code == 200
        for _ in range(400):
            if table.session.state.phase == "end":
                break
            board = post(client, table, kind="auto")
            assert board.status_code == 200, refusal(board.text)
            assert client.get(f"/play/{table.player_token}/board").status_code == 200
        assert table.session.state.phase == "end"
        final = client.get(f"/gm/{table.gm_token}").text
        assert "The encounter is over" in final
        assert "audit: clean" in client.get(f"/gm/{table.gm_token}/audit").text


def test_serve_names_a_missing_log_in_one_line(tmp_path):
    from click.testing import CliRunner

    from combatlog.cli.main import app

    result = CliRunner().invoke(app, ["serve", str(tmp_path / "missing.db")])
    assert result.exit_code == 1
    assert result.output.strip().count("\n") == 0 and "missing.db: no such log" in result.output
