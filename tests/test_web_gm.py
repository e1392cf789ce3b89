"""The game master's hands on the web: damage and healing (a number or dice) to several at
once, conditions with their rounds, another of a combatant, removal; a refusal beside the
button that sent it, the form left as it was; the history in the transcript's words with
rewind and redo; the scrubber's changes in words."""

from __future__ import annotations

import html
import re

import pytest

pytest.importorskip("litestar", reason="the web extra isn't installed: pip install -e '.[web]'")

from litestar.testing import TestClient

from combatlog.events import CommandIssued, DamageApplied, DiceRolled
from combatlog.replays.cursor import envelopes
from combatlog.web.app import create_app
from combatlog.web.tables import Tables
from tests.test_web import new_log, post
from tests.web_support import SECRET


@pytest.fixture
def begun(tmp_path):
    tables = Tables.single(str(new_log(tmp_path / "ford.db")), SECRET)
    table = tables.all()[0]
    with TestClient(create_app(tables)) as client:
        assert post(client, table, kind="begin").status_code == 200
        yield client, table


def step_events(table, step: int) -> list:
    return [e.event for e in envelopes(table.log) if e.step == step]


def test_damage_to_two_combatants_is_one_step_of_overrides_with_their_reason(begun):
    client, table = begun
    state = table.session.state
    hp = {c: table.session.rules.health(state, state.combatants[c])[0] for c in ("g1", "g2")}
    form = {"kind": "hurt", "targets": ["g1", "g2"], "amount": "3", "reason": "a falling beam", "seq": str(table.seq)}
    response = client.post(f"/gm/{table.gm_token}/command", data=form)
    assert response.status_code == 200
    step = table.session.projection.step
    events = step_events(table, step)
    assert [e.target for e in events if isinstance(e, DamageApplied)] == ["g1", "g2"]
    assert events[0].command.params["reason"] == "a falling beam"
    state = table.session.state
    for c in ("g1", "g2"):
        assert table.session.rules.health(state, state.combatants[c])[0] == hp[c] - 3


def test_damage_by_dice_rolls_them_and_healing_gives_back_no_more_than_was_lost(begun):
    client, table = begun
    post(client, table, kind="hurt", targets="ayla", amount="2d4", form="hurt")
    rolled = [e for e in step_events(table, table.session.projection.step) if isinstance(e, DiceRolled)]
    assert len(rolled) == 1 and rolled[0].expression == "2d4" and "Ayla" in rolled[0].purpose
    lost = table.session.state.combatants["ayla"].damage
    assert lost == rolled[0].total
    post(client, table, kind="hurt", targets="ayla", amount="50", heal="true", form="hurt")
    assert table.session.state.combatants["ayla"].damage == 0  # back to full, not past it


def test_a_condition_with_its_rounds_lands_on_each_and_comes_off_again(begun):
    client, table = begun
    client.post(
        f"/gm/{table.gm_token}/command",
        data={"kind": "condition", "targets": ["bo", "g1"], "condition": "prone", "rounds": "2", "seq": str(table.seq)},
    )
    for c in ("bo", "g1"):
        (cond,) = table.session.state.combatants[c].conditions
        assert cond.name == "prone" and cond.remaining == 2
    post(client, table, kind="condition", targets="bo", condition="prone", remove="true")
    assert table.session.state.combatants["bo"].conditions == ()


def test_another_goblin_is_added_with_the_same_stats_a_free_id_and_the_next_name(begun):
    client, table = begun
    post(client, table, kind="copy", combatant="g1")
    added = table.session.state.combatants["g3"]
    g1 = table.session.state.combatants["g1"]
    assert added.name == "Goblin 3" and added.stats == g1.stats and added.side == g1.side
    post(client, table, kind="remove", combatant="g3", reason="fled")
    assert table.session.state.combatants["g3"].removed


def test_a_refusal_is_shown_beside_its_button_and_leaves_the_form_as_typed(begun):
    client, table = begun
    before = table.seq
    response = client.post(
        f"/gm/{table.gm_token}/command",
        data={"kind": "hurt", "targets": "g1", "amount": "lots", "form": "hurt", "seq": str(table.seq)},
    )
    assert response.status_code == 422
    assert response.headers["hx-retarget"] == "#err-hurt" and response.headers["hx-reswap"] == "innerHTML"
    text = html.unescape(response.text)
    assert text.startswith('<span id="refusal">refused: ') and "neither a number nor dice" in text
    assert "<form" not in text  # only the message: the form keeps what was typed in it
    assert table.seq == before
    page = client.get(f"/gm/{table.gm_token}").text
    assert 'id="err-hurt"' in page and 'id="err-line"' in page


def test_the_history_speaks_the_transcripts_words_and_rewinds_and_redoes(begun):
    client, table = begun
    for _ in range(3):
        post(client, table, kind="auto")
    page = html.unescape(client.get(f"/gm/{table.gm_token}").text)
    history = re.search(r'<ol class="steps" reversed>(.*?)</ol>', page, re.S)[1]
    words = re.sub(r"<[^>]+>", " ", history)  # what a person reads of it
    assert "None" not in words and "seq" not in words and "(" + "'" not in words
    first_auto = table.session.projection.undo[-3]
    assert f"step {first_auto}" in history and "strikes" in history
    assert f'aria-label="rewind to step {first_auto}"' in history
    post(client, table, kind="rewind", step=str(first_auto))
    assert table.session.projection.undo[-1] == first_auto and len(table.session.projection.redo) == 2
    page = html.unescape(client.get(f"/gm/{table.gm_token}").text)
    assert "redo to here" in page and "<del>" in page  # the undone steps, struck through, still there
    newest = max(table.session.projection.redo)
    post(client, table, kind="redo_to", step=str(newest))
    assert table.session.projection.redo == [] and table.session.projection.undo[-1] == newest
    kinds = [e.event.command.kind for e in envelopes(table.log) if isinstance(e.event, CommandIssued)]
    assert kinds[-4:] == ["undo", "undo", "redo", "redo"]  # nothing erased: each undo and redo a step


def test_the_scrubber_tells_what_changed_in_words(begun):
    client, table = begun
    post(client, table, kind="hurt", targets="g1", amount="2")
    page = html.unescape(client.get(f"/gm/{table.gm_token}/at/{table.seq}").text)
    assert re.search(r"Goblin 1: \d+/7 -> \d+/7", page)
    assert "None" not in page and "('" not in page


def test_a_new_combatant_from_the_form_built_from_the_stat_schema(begun):
    client, table = begun
    page = client.get(f"/gm/{table.gm_token}").text
    for stat in ("hp", "init", "attack", "defense", "damage", "ap"):  # skirmish's stats, each an input
        assert f'name="stat.{stat}"' in page
    form = {"kind": "new", "form": "new", "id": "g9", "name": "Goblin boss", "side": "goblins"}
    form |= {"stat.hp": "12", "stat.attack": "3", "stat.damage": "1d8", "stat.init": "", "seq": str(table.seq)}
    assert client.post(f"/gm/{table.gm_token}/command", data=form).status_code == 200
    boss = table.session.state.combatants["g9"]
    assert boss.name == "Goblin boss" and boss.given_stats == {"hp": 12, "attack": 3, "damage": "1d8"}  # no defaults


def test_each_bad_field_of_the_new_combatant_form_gets_its_own_message_and_nothing_is_added(begun):
    client, table = begun
    before = table.seq
    form = {"kind": "new", "form": "new", "id": "g9", "side": "goblins", "stat.attack": "lots", "stat.init": "x"}
    response = client.post(f"/gm/{table.gm_token}/command", data={**form, "seq": str(table.seq)})
    text = html.unescape(response.text)
    assert response.status_code == 422
    assert "init: a whole number, not 'x'" in text and "attack: a whole number, not 'lots'" in text
    assert "hp: required" in text and text.count(";") >= 2
    assert table.seq == before and "g9" not in table.session.state.combatants


def test_a_starflight_combatant_with_a_weapon_from_the_forms_rows(tmp_path):
    from tests.web_support import EXAMPLES

    tables = Tables.single(str(new_log(tmp_path / "patrol.db", EXAMPLES / "starflight-patrol.toml")), SECRET)
    table = tables.all()[0]
    with TestClient(create_app(tables)) as client:
        page = client.get(f"/gm/{table.gm_token}").text
        assert 'name="stat.weapons.0.name"' in page and 'name="stat.weapons.1.name"' in page
        t1 = table.session.state.combatants["t1"].given_stats
        weapon = t1["weapons"][0]
        form = {"kind": "new", "form": "new", "id": "t9", "side": "patrol", "hidden": "true"}
        form |= {f"stat.{k}": str(t1[k]) for k in ("hp", "initiative", "hd", "strength")}
        form |= {f"stat.weapons.0.{k}": str(v) for k, v in weapon.items() if not isinstance(v, (list, dict, bool))}
        response = client.post(f"/gm/{table.gm_token}/command", data={**form, "seq": str(table.seq)})
        assert response.status_code == 200, html.unescape(response.text)[:300]
        added = table.session.state.combatants["t9"]
        assert added.given_stats["weapons"][0]["name"] == weapon["name"]
        assert "t9" in table.session.state.players.hidden


# --- the map --------------------------------------------------------------------------------------


def _cistern(tmp_path):
    from tests.web_support import EXAMPLES

    return Tables.single(str(new_log(tmp_path / "cistern.db", EXAMPLES / "triptycho-cistern.toml")), SECRET)


def test_triptychos_map_is_drawn_with_its_sections_borders_and_tokens(tmp_path):
    tables = _cistern(tmp_path)
    table = tables.all()[0]
    with TestClient(create_app(tables)) as client:
        page = client.get(f"/gm/{table.gm_token}").text
        svg = re.search(r'<svg class="map".*?</svg>', page, re.S)[0]
        board = table.session.rules.board(table.session.state)
        assert {s.id for s in board.sections} == set(re.findall(r'<g class="section" data-place="([^"]+)"', svg))
        assert svg.count('class="border hard"') == sum(b.kind == "hard" for b in board.borders)
        for cid in table.session.state.combatants:
            assert f'data-id="{cid}"' in svg
        assert "dark" in svg and "shadowy" in svg  # the light in words, not in colour alone


def test_moving_a_token_is_a_move_override_and_the_players_map_leaves_out_the_hidden(tmp_path):
    tables = _cistern(tmp_path)
    table = tables.all()[0]
    with TestClient(create_app(tables)) as client:
        post(client, table, kind="begin")
        post(client, table, kind="move", combatant="hound", to="shrine", form="map")
        assert table.session.state.combatants["hound"].position == "shrine"
        refused = client.post(
            f"/gm/{table.gm_token}/command",
            data={"kind": "move", "combatant": "hound", "to": "attic", "form": "map", "seq": str(table.seq)},
        )
        assert refused.status_code == 422 and refused.headers["hx-retarget"] == "#err-map"
        assert "no section 'attic' on the map" in html.unescape(refused.text)
        post(client, table, kind="view", combatant="hound", hidden="true")
        players = client.get(f"/play/{table.player_token}").text
        svg = re.search(r'<svg class="map".*?</svg>', players, re.S)[0]
        assert 'data-id="hound"' not in svg and 'data-id="vela"' in svg and "data-drag" not in svg


def test_starflight_without_a_grid_draws_its_range_bands(tmp_path):
    from tests.web_support import EXAMPLES

    tables = Tables.single(str(new_log(tmp_path / "patrol.db", EXAMPLES / "starflight-patrol.toml")), SECRET)
    table = tables.all()[0]
    with TestClient(create_app(tables)) as client:
        post(client, table, kind="begin")
        ranges = table.session.state.extra.ranges
        page = client.get(f"/play/{table.player_token}").text
        assert ranges and '<svg class="map bands"' in page
        for r in set(ranges.values()):
            assert f">range {r}<" in page


def test_the_game_master_places_combatants_before_the_fight_but_overrides_no_outcome_then():
    from combatlog.engine import Refused, Session
    from combatlog.engine.encounter_file import read_encounter
    from combatlog.events import Command
    from combatlog.replays import MemoryLog
    from tests.web_support import EXAMPLES

    s = Session(MemoryLog())
    for command in read_encounter(EXAMPLES / "swords-of-infinity-ambush.toml", seed=3):
        s.execute(command)
    assert s.state.phase == "setup"
    s.execute(Command(kind="override", params={"reason": "the ambush", "move": {"target": "r1", "to": "3,4"}}))
    assert s.state.combatants["r1"].position == "3,4"
    with pytest.raises(Refused, match="no outcome to override before the fight begins"):
        s.execute(Command(kind="override", params={"reason": "x", "damage": {"target": "r1", "amount": 2}}))


def test_a_systems_own_commands_are_forms_of_their_words(tmp_path):
    from tests.web_support import EXAMPLES

    tables = Tables.single(str(new_log(tmp_path / "road.db", EXAMPLES / "infinite-realms-road.toml")), SECRET)
    table = tables.all()[0]
    with TestClient(create_app(tables)) as client:
        page = client.get(f"/gm/{table.gm_token}").text
        for kind in table.session.rules.commands:
            assert f'name="command" value="{kind}"' in page
        form = {"kind": "rules", "command": "distance", "w.a": "aldric", "w.b": "b1", "w.yards": "30"}
        response = client.post(f"/gm/{table.gm_token}/command", data={**form, "seq": str(table.seq)})
        assert response.status_code == 200, html.unescape(response.text)[:300]
        assert table.session.state.extra.distance.get("aldric|b1") == 30
        engage = {"kind": "rules", "command": "engage", "targets": ["aldric", "b1"], "seq": str(table.seq)}
        assert client.post(f"/gm/{table.gm_token}/command", data=engage).status_code == 200
        assert "b1" in table.session.state.extra.engaged.get("aldric", ())


def test_correcting_a_step_in_the_history_decides_the_later_ones_again_and_says_what_changed(begun):
    client, table = begun
    for _ in range(4):
        post(client, table, kind="auto")
    first = table.session.projection.undo[-4]  # the first automatic step: an action with its dice
    page = client.get(f"/gm/{table.gm_token}").text
    assert f'id="f-amend-{first}"' in page
    rolled = [e.event for e in envelopes(table.log) if e.step == first and isinstance(e.event, DiceRolled)]
    die = rolled[0]
    other = 1 if die.faces[0] != 1 else 20
    response = client.post(
        f"/gm/{table.gm_token}/command",
        data={
            "kind": "amend",
            "step": str(first),
            "dice": f"{die.expression.split('+')[0]}: {other}",
            "seq": str(table.seq),
        },
    )
    text = html.unescape(response.text)
    assert response.status_code == 200, text[:400]
    assert f"step {first} amended by step" in text and "was:" in text and "now:" in text
    assert any(type(e.event).__name__ == "StepAmended" for e in envelopes(table.log))
    from combatlog.replays.audit import audit

    assert audit(table.log).clean
    stale = client.post(
        f"/gm/{table.gm_token}/command", data={"kind": "amend", "step": str(first), "dice": "1d20: 5", "seq": "3"}
    )
    assert stale.status_code == 422 and "moved on" in html.unescape(stale.text)


def test_a_fair_fight_on_the_web_players_add_to_the_dice_the_reveal_verifies_them(tmp_path):
    from click.testing import CliRunner

    from combatlog.cli.main import app
    from tests.test_seats import link, seat_post

    runner = CliRunner()
    encounter = tmp_path / "ford.toml"
    assert runner.invoke(app, ["init", "--rules", "skirmish", str(encounter)]).exit_code == 0
    assert runner.invoke(app, ["new", str(encounter), "--fair"]).exit_code == 0
    tables = Tables.single(str(tmp_path / "ford.db"), SECRET)
    table = tables.all()[0]
    with TestClient(create_app(tables)) as client:
        post(client, table, kind="seat", seat="ana", name="Ana", combatants="ayla")
        commitment = table.session.state.fair.commitment
        players = html.unescape(client.get(f"/play/{table.player_token}").text)
        assert commitment[:16] in players and "revealed at the end" in players
        seat_page = client.get(link(table, "ana")).text
        assert "Add to the dice" in seat_page
        assert seat_post(client, table, "ana", kind="contribute", value="owl feather").status_code == 200
        assert [c.value for c in table.session.state.fair.contributions] == ["owl feather"]
        assert "Add to the dice" not in client.get(link(table, "ana")).text  # once each
        post(client, table, kind="begin")
        for _ in range(3):
            post(client, table, kind="auto")
        assert "dice verified" not in html.unescape(client.get(f"/play/{table.player_token}").text)
        post(client, table, kind="reveal")
        assert table.session.state.fair.seed is not None
        players = html.unescape(client.get(f"/play/{table.player_token}").text)
        assert re.search(r"dice verified: [1-9]\d* engine dice checked", players)


def test_infinite_realms_shows_the_distances_between_the_combatants_a_viewer_sees(tmp_path):
    from tests.web_support import EXAMPLES

    tables = Tables.single(str(new_log(tmp_path / "road.db", EXAMPLES / "infinite-realms-road.toml")), SECRET)
    table = tables.all()[0]
    with TestClient(create_app(tables)) as client:
        post(client, table, kind="begin")
        board = table.session.rules.board(table.session.state)
        assert board.kind == "distances" and board.distances
        a, b, yards, _ = board.distances[0]
        names = {c.id: c.name for c in table.session.state.combatants.values()}
        page = html.unescape(client.get(f"/gm/{table.gm_token}").text)
        assert f"<td>{yards} yards" in page and names[a] in page
        post(client, table, kind="view", combatant=b, hidden="true")
        players = html.unescape(client.get(f"/play/{table.player_token}").text)
        table_html = re.search(r'<table class="list distances".*?</table>', players, re.S)
        assert table_html is None or names[b] not in table_html[0]
