"""Players' seats: a link per player, scoped to that player's combatants, revocable; what a
seat may command (its own, when the rules allow, its own latest undo where allowed), the
game master's queue, and plain HTTP probes of what a seat can't do."""

from __future__ import annotations

import html
import re

import pytest

pytest.importorskip("litestar", reason="the web extra isn't installed: pip install -e '.[web]'")

from click.testing import CliRunner
from litestar.testing import TestClient

from combatlog.cli.main import app as cli
from combatlog.events import Command
from combatlog.replays.cursor import envelopes
from combatlog.web.app import create_app
from combatlog.web.tables import Table, Tables
from tests.test_web import new_log, post
from tests.web_support import EXAMPLES, SECRET


@pytest.fixture
def ford(tmp_path):
    """(client, table): the ambush served, begun, with Ana's seat holding Ayla and Bo's holding Bo."""
    tables = Tables.single(str(new_log(tmp_path / "ford.db")), SECRET)
    table = tables.all()[0]
    with TestClient(create_app(tables)) as client:
        assert post(client, table, kind="seat", seat="ana", name="Ana", combatants="ayla").status_code == 200
        assert post(client, table, kind="seat", seat="cai", name="Cai", combatants="bo").status_code == 200
        assert post(client, table, kind="begin").status_code == 200
        yield client, table


def link(table: Table, seat: str) -> str:
    return f"/seat/{table.seat_token(next(s for s in table.seats() if s.id == seat))}"


class Answer:
    """A response, its text unescaped (the refusals are read as a person reads them)."""

    def __init__(self, response) -> None:
        self.status_code = response.status_code
        self.text = html.unescape(response.text)


def seat_post(client, table: Table, seat: str, **form) -> Answer:
    form.setdefault("seq", str(table.seq))
    return Answer(client.post(f"{link(table, seat)}/command", data=form))


def until_acting(client, table: Table, cid: str) -> None:
    for _ in range(20):
        table.sync()
        if cid in table.session.state.acting:
            return
        assert post(client, table, kind="auto").status_code == 200
    raise AssertionError(f"{cid} never came to act")


def last_command(table: Table) -> Command:
    return [e.event.command for e in envelopes(table.log) if type(e.event).__name__ == "CommandIssued"][-1]


def test_the_game_master_makes_a_seat_whose_link_and_qr_code_are_on_the_screen(ford):
    client, table = ford
    page = client.get(f"/gm/{table.gm_token}").text
    url = re.search(r'class="seat-url">([^<]+)<', page)[1]
    assert url.endswith(link(table, "ana"))
    svg = re.search(r"<svg[^>]*class=\"qr\".*?</svg>", page, re.S)[0]
    assert decode_qr(svg) == url


def test_a_seat_sees_its_own_card_whole_and_the_table_as_the_players_do(ford):
    client, table = ford
    until_acting(client, table, "ayla")  # her turn's resources are on her card
    page = client.get(link(table, "ana")).text
    card = re.search(r'<article class="card[^"]*" data-id="ayla">.*?</article>', page, re.S)[0]
    left, most = table.session.rules.health(table.session.state, table.session.state.combatants["ayla"])
    assert f"{left}/{most}" in card and "actions" in card  # its resources
    assert 'data-id="bo"' in page and '<article class="card' not in page.replace(card, "")
    assert table.gm_token not in page and table.player_token not in page


def test_a_seat_acts_for_its_own_on_its_turn_and_the_step_says_who_gave_it(ford):
    client, table = ford
    until_acting(client, table, "ayla")
    assert "your turn" in client.get(link(table, "ana")).text
    before = table.seq
    response = seat_post(client, table, "ana", kind="act", actor="ayla", action="strike", targets="g1", roller="engine")
    assert response.status_code == 200, response.text
    assert table.seq > before and last_command(table).by == "seat:ana"


def test_a_seat_cannot_act_for_another_out_of_turn_from_a_stale_page_or_as_the_game_master(ford):
    client, table = ford
    until_acting(client, table, "ayla")
    before = table.seq
    for form, says in (
        ({"kind": "act", "actor": "bo", "action": "strike", "targets": "g1"}, "not one of this seat's combatants"),
        ({"kind": "act", "actor": "g1", "action": "strike", "targets": "ayla"}, "not one of this seat's combatants"),
        ({"kind": "end_turn", "actor": "bo"}, "not one of this seat's combatants"),
        ({"kind": "begin"}, "a seat may act, end its turn or undo its own step"),
        ({"kind": "line", "line": 'override reason=x defeat={"target":"g1"}'}, "a seat may act"),
        ({"kind": "undo"}, "the game master keeps undo"),
    ):
        response = seat_post(client, table, "ana", **form)
        assert response.status_code == 422 and says in response.text, (form, response.text[:300])
    cai = seat_post(client, table, "cai", kind="act", actor="bo", action="strike", targets="g1")
    assert cai.status_code == 422 and "not their turn" in cai.text  # Bo's seat, out of Bo's turn
    stale = seat_post(client, table, "ana", kind="act", actor="ayla", action="strike", targets="g1", seq="1")
    assert stale.status_code == 422 and "moved on" in stale.text
    token = link(table, "ana").rsplit("/", 1)[1]
    assert client.get(f"/gm/{token}").status_code == 404
    assert client.post(f"/gm/{token}/command", data={"kind": "begin"}).status_code == 404
    assert client.get(f"/play/{token}").status_code == 404
    table.sync()
    assert table.seq == before  # nothing appended by any of it


def test_a_new_link_or_a_closed_seat_ends_the_old_link(ford):
    client, table = ford
    old = link(table, "ana")
    assert client.get(old).status_code == 200
    assert post(client, table, kind="seat", seat="ana", renew="true").status_code == 200
    assert client.get(old).status_code == 404 and client.get(link(table, "ana")).status_code == 200
    newer = link(table, "ana")
    assert post(client, table, kind="seat", seat="ana", revoke="true").status_code == 200
    assert client.get(newer).status_code == 404 and all(s.id != "ana" for s in table.seats())


def test_in_a_queue_the_game_master_accepts_a_request_or_refuses_it_with_a_reason_the_seat_reads(ford):
    client, table = ford
    assert post(client, table, kind="seating", commands="queue").status_code == 200
    until_acting(client, table, "ayla")
    before = table.seq
    asked = seat_post(client, table, "ana", kind="act", actor="ayla", action="strike", targets="g1")
    assert asked.status_code == 200 and "waiting for the game master" in asked.text and table.seq == before
    gm = client.get(f"/gm/{table.gm_token}").text
    request = re.search(r'name="request" value="(\d+)"', gm)[1]
    assert "Ana</strong>: act ayla strike g1" in gm
    refused = client.post(
        f"/gm/{table.gm_token}/command", data={"kind": "refuse", "request": request, "reason": "g1 is behind cover"}
    )
    assert refused.status_code == 200 and table.seq == before
    assert "the game master refused: g1 is behind cover" in html.unescape(client.get(link(table, "ana")).text)
    seat_post(client, table, "ana", kind="act", actor="ayla", action="strike", targets="g1")
    request = re.search(r'name="request" value="(\d+)"', client.get(f"/gm/{table.gm_token}").text)[1]
    accepted = client.post(f"/gm/{table.gm_token}/command", data={"kind": "accept", "request": request})
    assert accepted.status_code == 200 and table.seq > before and last_command(table).by == "seat:ana"
    assert table.queue == []


def test_a_request_the_rules_refuse_is_refused_at_once_not_queued(ford):
    client, table = ford
    assert post(client, table, kind="seating", commands="queue").status_code == 200
    until_acting(client, table, "ayla")
    response = seat_post(client, table, "ana", kind="act", actor="ayla", action="dance")
    assert response.status_code == 422 and table.queue == []


def test_a_seat_undoes_its_own_latest_step_only_where_the_game_master_allows_it(ford):
    client, table = ford
    until_acting(client, table, "ayla")
    seat_post(client, table, "ana", kind="act", actor="ayla", action="strike", targets="g1")
    assert seat_post(client, table, "ana", kind="undo").status_code == 422
    assert post(client, table, kind="seating", commands="now", undo="true").status_code == 200
    # the game master's own step is the latest now: not the seat's to undo
    assert "the latest step isn't this seat's" in seat_post(client, table, "ana", kind="undo").text
    assert post(client, table, kind="undo").status_code == 200  # the setting, undone by the game master
    assert post(client, table, kind="seating", commands="now", undo="true").status_code == 200
    client.post(f"/gm/{table.gm_token}/command", data={"kind": "undo", "seq": str(table.seq)})  # the setting again
    assert seat_post(client, table, "ana", kind="undo").status_code == 422


def test_a_seat_undoes_its_step_when_allowed_and_it_is_the_latest(ford):
    client, table = ford
    assert post(client, table, kind="seating", commands="now", undo="true").status_code == 200
    until_acting(client, table, "ayla")
    seat_post(client, table, "ana", kind="act", actor="ayla", action="strike", targets="g1")
    page = client.get(link(table, "ana")).text
    assert 'id="seat-undo"' in page
    undone = seat_post(client, table, "ana", kind="undo")
    assert undone.status_code == 200 and last_command(table).by == "seat:ana" and last_command(table).kind == "undo"


def test_another_seats_hand_never_reaches_a_seat(tmp_path):
    tables = Tables.single(str(new_log(tmp_path / "cistern.db", EXAMPLES / "triptycho-cistern.toml")), SECRET)
    table = tables.all()[0]
    with TestClient(create_app(tables)) as client:
        post(client, table, kind="seat", seat="v", name="Vee", combatants="vela")
        post(client, table, kind="seat", seat="o", name="Oh", combatants="oren")
        post(client, table, kind="begin")
        hands = table.session.state.extra.hands
        vela_page = client.get(link(table, "v")).text
        for card in hands.get("vela", ()):
            assert card in vela_page
        for card in set(hands.get("oren", ())) - set(hands.get("vela", ())):
            assert card not in vela_page


def test_serve_prints_each_seats_link(tmp_path, monkeypatch):
    import uvicorn

    log = new_log(tmp_path / "ford.db")
    runner = CliRunner()
    made = runner.invoke(cli, ["do", str(log), "seat", "--param", "seat=ana", "--param", "combatants=ayla"])
    assert made.exit_code == 0
    monkeypatch.setattr(uvicorn.Server, "run", lambda self: None)
    monkeypatch.setenv("COMBATLOG_WEB_SECRET", "s")
    out = runner.invoke(cli, ["serve", str(log)]).output
    table = Tables.single(str(log), b"s").all()[0]
    seat = table.seats()[0]
    assert f"seat ana http://127.0.0.1:8000/seat/{table.seat_token(seat)}" in out


def decode_qr(svg: str) -> str:
    """The text of a QR code drawn as segno draws one: a path of horizontal runs, a module wide."""
    zxingcpp = pytest.importorskip("zxingcpp", reason="zxing-cpp isn't installed: pip install -e '.[test]'")
    path = re.search(r' d="([^"]+)"', svg)[1]
    scale = float(re.search(r"scale\(([\d.]+)\)", svg)[1]) if "scale(" in svg else 1.0
    width = int(float(re.search(r'width="([\d.]+)"', svg)[1]) / scale)
    dark = set()
    x = y = 0.0
    for op, a, b in re.findall(r"([MmHhVv])\s*(-?[\d.]+)(?:\s+(-?[\d.]+))?", path):
        if op == "M":
            x, y = float(a), float(b)
        elif op == "m":
            x, y = x + float(a), y + float(b)
        elif op in "hH":
            end = x + float(a) if op == "h" else float(a)
            for cx in range(int(min(x, end)), int(max(x, end))):
                dark.add((cx, int(y)))
            x = end
    px = 6  # pixels a module
    size = width * px
    image = bytes(0 if (c // px, r // px) in dark else 255 for r in range(size) for c in range(size))
    found = zxingcpp.read_barcodes(memoryview(image).cast("B", (size, size)))
    assert found, "no QR code found in the SVG"
    return str(found[0].text)


def test_a_seats_actions_say_first_which_dice_they_roll_without_telling_the_engines(ford):
    client, table = ford
    until_acting(client, table, "ayla")
    before = table.log.head()[0]
    page = html.unescape(client.get(link(table, "ana")).text)
    assert table.log.head()[0] == before  # asking which dice rolled none and appended nothing
    asked = re.findall(r'<span class="help dice-asked">roll ([^<]+)</span>', page)
    attack = table.session.state.combatants["ayla"].stats.attack
    assert any(a.startswith(f"1d20+{attack} (") and ", then 1d8 (" in a for a in asked), asked


def test_a_triptycho_seat_picks_its_card_from_its_hand_not_from_memory(tmp_path):
    tables = Tables.single(str(new_log(tmp_path / "cistern.db", EXAMPLES / "triptycho-cistern.toml")), SECRET)
    table = tables.all()[0]
    with TestClient(create_app(tables)) as client:
        post(client, table, kind="seat", seat="v", name="Vee", combatants="vela")
        post(client, table, kind="begin")
        until_acting(client, table, "vela")
        hand = table.session.state.extra.hands["vela"]
        assert {"Longsword", "Javelin"} <= set(hand)  # what the example's seed deals Vela
        page = client.get(link(table, "v")).text
        offered = re.search(r'<select name="param\.card">(.*?)</select>', page, re.S)[1]
        assert re.findall(r"<option>([^<]+)</option>", offered) == list(dict.fromkeys(hand))
        # the rules read the card chosen: a melee card at range says why; a thrown one is played
        play = {"kind": "act", "actor": "vela", "action": "play", "targets": "hound"}
        close = seat_post(client, table, "v", **play, **{"param.card": "Longsword"})
        assert close.status_code == 422 and "Longsword is melee" in close.text
        thrown = seat_post(client, table, "v", **play, **{"param.card": "Javelin"})
        assert thrown.status_code == 200 and last_command(table).params["card"] == "Javelin"


def test_a_seat_drags_its_own_token_on_its_turn_and_only_its_own(tmp_path):
    tables = Tables.single(str(new_log(tmp_path / "cistern.db", EXAMPLES / "triptycho-cistern.toml")), SECRET)
    table = tables.all()[0]
    with TestClient(create_app(tables)) as client:
        post(client, table, kind="seat", seat="v", name="Vee", combatants="vela")
        post(client, table, kind="begin")
        until_acting(client, table, "vela")
        page = client.get(link(table, "v")).text
        draggable = re.findall(r'<g class="token[^"]*" data-id="([^"]+)" data-drag', page)
        assert draggable == ["vela"]
        other = seat_post(client, table, "v", kind="move", combatant="oren", to="gallery")
        assert other.status_code == 422 and "not one of this seat's combatants" in other.text
        moved = seat_post(client, table, "v", kind="move", combatant="vela", to="gallery")
        assert moved.status_code == 200, moved.text[:300]
        command = last_command(table)
        assert (command.action, command.params, command.by) == ("move", {"to": "gallery"}, "seat:v")
        assert table.session.state.combatants["vela"].position == "gallery"


def test_serve_on_every_address_prints_the_links_per_lan_address_and_the_warning(tmp_path, monkeypatch):
    import uvicorn

    import combatlog.cli.serve as serve_module

    log = new_log(tmp_path / "ford.db")
    monkeypatch.setattr(uvicorn.Server, "run", lambda self: None)
    monkeypatch.setattr(serve_module, "lan_addresses", lambda: ["192.168.1.20", "10.0.0.5"])
    monkeypatch.setenv("COMBATLOG_WEB_SECRET", "s")
    result = CliRunner().invoke(cli, ["serve", str(log), "--host", "0.0.0.0", "--port", "8123", "--no-odds"])
    table = Tables.single(str(log), b"s").all()[0]
    for address in ("192.168.1.20", "10.0.0.5"):
        assert f"players     http://{address}:8123/play/{table.player_token}" in result.stdout
    assert "the links are the only lock" in result.stderr
