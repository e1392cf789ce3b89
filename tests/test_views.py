"""What each viewer may see, on every surface: random fights of every bundled system with
random hiding, revealing, health settings, undos and redos, checked for every viewer at every
step's end; then the ford repro on the command line and the web.

The properties (docs/views.md):
(a) nothing a viewer receives names a combatant hidden from it, carries another seat's
    private field, or holds the seed;
(b) every transcript line the game master reads that comes from an event naming only
    combatants the viewer sees reaches the viewer, word for word;
(c) the surfaces agree: `show --json --as`, the web's board and `transcript --viewer` give
    one viewer the same combatants and the same lines at one seq;
(d) the live stream's board at each step is the board rendered from a replay to that seq.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combatlog.cli.main import app, show_data
from combatlog.engine import Refused, Session
from combatlog.engine.dice import DiceError
from combatlog.engine.encounter_file import read_encounter
from combatlog.events import Command
from combatlog.events import catalogue as ev
from combatlog.projections import Projection
from combatlog.replays import MemoryLog
from combatlog.replays.cursor import envelopes, replay
from combatlog.replays.transcript import transcript
from combatlog.replays.views import (
    GM,
    SPECTATOR,
    TABLE,
    Judge,
    Seat,
    ViewerError,
    folded_steps,
    hidden_at,
    hidden_from,
    named,
    parse_viewer,
    seen,
    viewed_envelopes,
)
from tests.test_rule_systems_stateful import EXAMPLES
from tests.test_rule_systems_stateful import SYSTEMS as BUNDLED

SYSTEMS = {"skirmish": EXAMPLES / "skirmish-ambush.toml", **BUNDLED}
SEED_BASE = 918_273_645  # a seed no other number in a fight is likely to spell


def run(*args: str):
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


# --- a random fight ------------------------------------------------------------------------

moves = st.lists(
    st.one_of(
        st.just(("auto",)),
        st.just(("auto",)),
        st.tuples(st.just("hide"), st.integers(0, 9), st.booleans()),
        st.tuples(st.just("reveal"), st.integers(0, 9)),
        st.tuples(st.just("hp"), st.integers(0, 9), st.sampled_from(["exact", "level", "hidden"]), st.booleans()),
        st.just(("undo",)),
        st.just(("redo",)),
    ),
    min_size=1,
    max_size=14,
)


def play(path: Path, seed: int, hide_first: int | None, script: list[tuple]) -> tuple[Session, list[int]]:
    """The fight of `path` under `seed`: one combatant hidden before `begin` (if asked), then
    `script`; the seq after each step taken."""
    s = Session(MemoryLog())
    for command in read_encounter(path, seed=seed):
        s.execute(command)
    ids = list(s.state.combatants)
    if hide_first is not None:
        s.execute(Command(kind="view", params={"combatant": ids[hide_first % len(ids)], "hidden": True}))
    if s.state.phase in ("setup", "surprise"):
        s.do("begin")
    seqs = [s.projection.seq]
    for move in script:
        try:
            if move[0] == "auto":
                if s.state.phase == "end":
                    continue
                s.auto()
            elif move[0] == "hide":
                params = {"combatant": ids[move[1] % len(ids)], "hidden": True}
                if move[2]:
                    params["reveal"] = "act"
                s.execute(Command(kind="view", params=params))
            elif move[0] == "reveal":
                s.execute(Command(kind="view", params={"combatant": ids[move[1] % len(ids)], "hidden": False}))
            elif move[0] == "hp":
                who = ids[move[1] % len(ids)]
                if who not in s.state.combatants:  # undone back past its adding
                    continue
                key = {"combatant": who} if move[3] else {"side": s.state.combatants[who].side}
                s.execute(Command(kind="view", params={**key, "hp": move[2]}))
            else:
                s.execute(Command(kind=move[0]))
        except (Refused, DiceError):
            continue
        if s.projection.seq != seqs[-1]:
            seqs.append(s.projection.seq)
    return s, seqs


def viewers_of(state) -> list:
    pcs = [c for c in state.combatants.values() if c.kind == "pc"]
    npcs = [c for c in state.combatants.values() if c.kind != "pc"]
    out = [TABLE, Seat(sides=frozenset({pcs[0].side}))]
    if npcs:
        out.append(Seat(combatants=frozenset({npcs[-1].id})))
    return out


def mentions(text: str, state, hidden: frozenset[str]) -> list[str]:
    """The hidden combatants' names and ids found in `text`, whole words only, once every
    visible combatant's name (`Bandit chief` beside a hidden `Bandit`) is taken out."""
    visible = sorted(
        {c.name for cid, c in state.combatants.items() if cid not in hidden}
        - {state.combatants[h].name for h in hidden},
        key=len,
        reverse=True,
    )
    for name in visible:
        text = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", " ", text)
    found = []
    for cid in hidden:
        for word in {cid, state.combatants[cid].name}:
            if re.search(rf"(?<![\w]){re.escape(word)}(?![\w])", text):
                found.append(word)
    return found


def check_viewer_at(s: Session, seq: int, viewer, seed: int) -> None:
    log = s.log
    state = replay(log, seq, Projection(marks=False)).state
    hidden = hidden_from(state, viewer)
    assert hidden_at(log, seq, viewer) == hidden
    # a side by id, of every combatant ever added (one undone back past its adding still owned its draws)
    sides = {e.event.id: e.event.side for e in envelopes(log, 1, seq) if isinstance(e.event, ev.CombatantAdded)}
    side_of = sides.get

    told = list(transcript(log, stop=seq, viewer=viewer))
    text = "\n".join(line for _, line in told)
    shown = seen(state, viewer, seq)
    shown_json = msgspec.json.encode(shown).decode()
    exported = list(viewed_envelopes(envelopes(log, 1, seq), viewer, log, hidden))
    exported_json = "\n".join(msgspec.json.encode(e).decode() for e in exported)

    # (a) no hidden combatant, no seed, no one else's secret
    for surface, content in (("transcript", text), ("show", shown_json), ("export", exported_json)):
        assert mentions(content, state, hidden) == [], (surface, viewer)
        assert str(seed) not in content, (surface, viewer)
    assert {c.id for c in shown.combatants}.isdisjoint(hidden)
    assert all(tier and set(tier).isdisjoint(hidden) for tier in shown.order)
    for e in exported:
        owner = getattr(e.event, "private_to", None)
        if owner is not None and not viewer.may_see(owner, side_of):
            assert e.event == e.event.redacted(), (viewer, e.event)
        if isinstance(e.event, ev.EncounterCreated):
            assert e.event.seed is None
    for c in shown.combatants:
        if c.stats is not None or c.resources is not None:
            assert viewer.controls(c.id, side_of)

    # (b) what names only combatants the viewer sees reaches it, word for word
    gm_lines = list(transcript(log, stop=seq, viewer=GM))
    theirs = set(told)
    judge = Judge(GM)
    by_seq = {}
    for items in folded_steps(envelopes(log, 1, seq), log):
        for env, after in items:
            by_seq[env.seq] = (env.event, after)
        judge.step(items)
    actions = {}  # action id -> whom it names
    for e, after in by_seq.values():
        if isinstance(e, ev.ActionDeclared):
            actions[e.id] = named(e, after.combatants)
    for seq_, line in gm_lines:
        event, after = by_seq[seq_]
        names = named(event, after.combatants) | actions.get(getattr(event, "id", None), set())
        if isinstance(event, ev.ActionDeclared | ev.ActionResolved):
            names |= actions.get(event.id, set())
        if (
            names & hidden
            or isinstance(event, ev.ViewSet | ev.EncounterCreated | ev.StepUndone | ev.StepRedone)
            or getattr(event, "private_to", None) is not None
        ):
            continue
        assert (seq_, line) in theirs, (viewer, seq_, line)
    for needed in ("Round 1.", "Order: "):
        if any(line.startswith(needed) for _, line in gm_lines):
            assert any(line.startswith(needed) for _, line in told), (viewer, needed)
    if state.phase == "end":
        assert any(line.startswith("The encounter ends") for _, line in told)

    # (c) show --json is the Seen itself
    assert show_data(shown)["combatants"].keys() == {c.id for c in shown.combatants}


@pytest.mark.parametrize("system", sorted(SYSTEMS))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 50), hide_first=st.none() | st.integers(0, 9), script=moves)
def test_no_viewer_receives_a_hidden_combatant_the_seed_or_anothers_secret_and_loses_nothing_it_may_see(
    system, seed, hide_first, script
):
    s, seqs = play(SYSTEMS[system], SEED_BASE + seed, hide_first, script)
    viewers = viewers_of(replay(s.log, seqs[0], Projection(marks=False)).state)  # as the fight began
    for seq in seqs:
        for viewer in viewers:
            check_viewer_at(s, seq, viewer, SEED_BASE + seed)


# --- the web: the live stream and the other surfaces ------------------------------------------

web = pytest.importorskip("combatlog.web.app", reason="the web extra isn't installed: pip install -e '.[web]'")


def _table_for(log):
    from combatlog.web.tables import Table

    return Table("t", "memory:", b"a test secret", log=log)


@pytest.mark.parametrize("system", sorted(SYSTEMS))
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 50), hide_first=st.none() | st.integers(0, 9), script=moves)
def test_the_players_stream_at_each_step_is_the_board_of_a_replay_to_that_seq_and_names_no_hidden_one(
    system, seed, hide_first, script
):
    s, seqs = play(SYSTEMS[system], SEED_BASE + seed, hide_first, [])
    table = _table_for(s.log)
    table.session = s
    streamed = {table.seq: web._player_board(table)}
    ids = list(s.state.combatants)
    for move in script:  # as a game master's page would send them
        try:
            if move[0] == "auto":
                if s.state.phase != "end":
                    s.auto()
            elif move[0] in ("hide", "reveal"):
                s.execute(
                    Command(kind="view", params={"combatant": ids[move[1] % len(ids)], "hidden": move[0] == "hide"})
                )
            elif move[0] in ("undo", "redo"):
                s.execute(Command(kind=move[0]))
        except (Refused, DiceError):
            pass
        streamed[table.seq] = web._player_board(table)  # what `_stream` sends for this seq
    for seq, page in streamed.items():
        cut = MemoryLog()
        cut.append(list(s.log.lines(1, seq)), 1)
        fresh = _table_for(cut)
        assert web._player_board(fresh) == page, seq
        state = fresh.session.state
        hidden = hidden_from(state, TABLE)
        assert mentions(re.sub(r"<[^>]+>", " ", page), state, hidden) == []
        assert f'data-id="{next(iter(hidden))}"' not in page if hidden else True
        # (c) the board, show --as table and transcript --viewer table agree
        shown = seen(state, TABLE, seq)
        assert re.findall(r'<tr class="[^"]*" data-id="([^"]+)"', page) == [c.id for c in shown.combatants]
        on_map = set(re.findall(r'<g class="token[^"]*" data-id="([^"]+)"', page))
        assert on_map <= {c.id for c in shown.combatants}  # the map shows no one the table can't see
        lines = [line for _, line in transcript(cut, viewer=TABLE)][-60:]
        told = re.findall(r'<li data-seq="\d+"[^>]*>(?:<del title="undone">)?(.*?)(?:</del>)?</li>', page)
        assert [html.unescape(line) for line in told] == lines


# --- viewers by name -------------------------------------------------------------------------


def test_viewers_are_named_and_an_unknown_one_is_one_line_listing_the_known():
    s, _ = play(SYSTEMS["skirmish"], 1, None, [])
    state = s.state
    assert parse_viewer("gm") is GM and parse_viewer("table", state) is TABLE and parse_viewer("nobody") is TABLE
    assert parse_viewer("party", state) == Seat(sides=frozenset({"party"}))
    assert parse_viewer("side:goblins", state) == Seat(sides=frozenset({"goblins"}))
    assert parse_viewer("seat:bo,ayla", state) == Seat(combatants=frozenset({"bo", "ayla"}))
    assert parse_viewer("seat:bo,ayla", state).name == "seat:ayla,bo"
    with pytest.raises(ViewerError) as bad:
        parse_viewer("wizards", state)
    message = str(bad.value)
    assert "\n" not in message and all(k in message for k in ("gm", "table", "seat:", "spectator", "party"))
    with pytest.raises(ViewerError, match="no combatant 'zed'"):
        parse_viewer("seat:zed", state)
    with pytest.raises(ViewerError, match="isn't over"):
        parse_viewer("spectator", state)


def test_a_spectator_of_a_finished_fight_sees_every_combatant_and_hand_but_never_the_seed():
    s, _ = play(SYSTEMS["triptycho"], SEED_BASE, 2, [("auto",)] * 400)
    assert s.state.phase == "end"
    assert parse_viewer("spectator", s.state) is SPECTATOR
    shown = seen(s.state, SPECTATOR, s.projection.seq)
    assert {c.id for c in shown.combatants} == set(s.state.combatants)
    assert all(c.health is None or c.health.shown == "exact" for c in shown.combatants)
    told = "\n".join(line for _, line in transcript(s.log, dice=True, viewer=SPECTATOR))
    gm = "\n".join(line for _, line in transcript(s.log, dice=True, viewer=GM))
    assert str(SEED_BASE) in gm and str(SEED_BASE) not in told
    assert told.splitlines()[1:] == [
        line for line in gm.splitlines()[1:] if not line.startswith("Players' view")
    ]  # everything else, hands and secret rolls too


def test_a_seat_sees_its_own_hand_and_secret_rolls_and_only_counts_of_anothers():
    s, _ = play(SYSTEMS["triptycho"], SEED_BASE, None, [("auto",)] * 6)
    vela = Seat(combatants=frozenset({"vela"}))
    mine = seen(s.state, vela, s.projection.seq)
    assert mine.combatant("vela").stats is not None and mine.combatant("oren").stats is None
    hands = [line for line in mine.summary if " holds " in line and "charge" not in line]
    counts = re.compile(r" holds \d+ cards?$")  # another's hand: how many cards, never which
    assert any(line.startswith("vela holds ") and not counts.search(line) for line in hands)
    assert all(counts.search(line) or line.startswith("vela ") or "no cards" in line for line in hands)


def test_health_reads_as_the_game_master_chose_per_side_and_per_combatant_for_every_viewer():
    s, _ = play(SYSTEMS["skirmish"], 3, None, [("auto",)] * 4)
    s.execute(Command(kind="view", params={"side": "goblins", "hp": "exact"}))
    s.execute(Command(kind="view", params={"combatant": "g1", "hp": "none"}))  # none: a word for hidden
    s.execute(Command(kind="view", params={"combatant": "ayla", "hp": "level"}))
    table = seen(s.state, TABLE, s.projection.seq)
    assert table.combatant("g2").health.shown == "exact" and table.combatant("g2").health.left is not None
    assert table.combatant("g1").health.shown == "hidden" and table.combatant("g1").damage is None
    assert table.combatant("ayla").health.shown == "level" and table.combatant("ayla").health.left is None
    ayla = seen(s.state, Seat(combatants=frozenset({"ayla"})), s.projection.seq)
    assert ayla.combatant("ayla").health.shown == "exact"  # a seat reads its own exactly
    with pytest.raises(Refused, match="use exact, level or hidden"):
        s.execute(Command(kind="view", params={"combatant": "g1", "hp": "vague"}))


def test_a_combatant_hidden_until_it_acts_is_revealed_by_its_own_action_in_that_steps_lines():
    s, _ = play(SYSTEMS["skirmish"], 5, None, [])
    s.execute(Command(kind="view", params={"combatant": "g2", "hidden": True, "reveal": "act"}))
    assert "g2" in s.state.players.hidden
    for _ in range(12):
        if s.state.phase == "end" or "g2" in s.state.acting:
            break
        s.auto()
    assert "g2" in s.state.acting
    s.auto()  # Goblin 2's own action shows it
    assert "g2" not in s.state.players.hidden
    told = [line for _, line in transcript(s.log, viewer=TABLE)]
    assert any(line.startswith("Goblin 2 strikes") for line in told)


def test_a_combatant_added_hidden_is_never_told_as_joining():
    s = Session(MemoryLog())
    for command in read_encounter(SYSTEMS["skirmish"], seed=2):
        s.execute(command)
    s.execute(
        Command(
            kind="add",
            params={"id": "g3", "name": "Lurker", "side": "goblins", "hidden": True, "stats": {"hp": 5}},
        )
    )
    told = "\n".join(line for _, line in transcript(s.log, viewer=TABLE))
    assert "Lurker" not in told and "g3" not in told
    assert "Lurker (NPC, goblins) joins." in "\n".join(line for _, line in transcript(s.log))


def test_an_undone_step_stays_told_as_undone_and_an_undo_of_an_unseen_step_is_not_told():
    s, _ = play(SYSTEMS["skirmish"], 4, None, [("auto",)])
    s.execute(Command(kind="undo"))
    told = [line for _, line in transcript(s.log, viewer=TABLE)]
    assert any(line.startswith("Undone: step") for line in told)
    s.execute(Command(kind="view", params={"combatant": "g1", "hidden": True}))
    s.execute(Command(kind="undo"))  # the hiding, which the table never saw
    told_after = [line for _, line in transcript(s.log, viewer=TABLE)]
    assert told_after.count(told[-1]) == 1 and len(told_after) == len(told)


# --- the repro --------------------------------------------------------------------------------


def ford(tmp_path: Path) -> Path:
    encounter = tmp_path / "ford.toml"
    assert run("init", "--rules", "skirmish", str(encounter)).exit_code == 0
    assert run("new", str(encounter)).exit_code == 0
    log = tmp_path / "ford.db"
    assert run("do", str(log), "begin").exit_code == 0
    assert run("do", str(log), "act", "bo", "strike", "g1", "--dice", "1d20: 15").exit_code == 0
    assert run("do", str(log), "act", "ayla", "strike", "g1", "--dice", "1d20: 15").exit_code == 0
    assert run("do", str(log), "view", "--param", "combatant=g2", "--param", "hidden=true").exit_code == 0
    for _ in range(30):
        if json.loads(run("show", str(log), "--json").output)["phase"] == "end":
            break
        run("do", str(log), "auto")
    return log


def test_the_ford_on_the_command_line_shows_the_table_its_own_attacks_and_none_of_the_hidden_goblin(tmp_path):
    log = ford(tmp_path)
    for viewer in ("table", "party"):
        told = run("transcript", str(log), "--viewer", viewer).output
        assert "Ayla strikes Goblin 1" in told and "Bo strikes Goblin 1" in told
        assert "Order: " in told and "Round 1." in told and "The encounter ends" in told
        assert "Goblin 2" not in told and "g2" not in told
        shown = json.loads(run("show", str(log), "--as", viewer, "--json").output)
        assert "g2" not in shown["combatants"] and "Goblin 2" not in json.dumps(shown)
        assert "g2" not in run("show", str(log), "--as", viewer).output
    assert "Goblin 2" in run("transcript", str(log)).output  # the game master's, whole
    bad = run("transcript", str(log), "--viewer", "wizards")
    assert bad.exit_code == 2 and "use one of: gm, table" in bad.output


def test_the_ford_on_the_players_page_shows_its_attacks_order_rounds_and_end_and_no_goblin_2(tmp_path):
    from litestar.testing import TestClient

    from combatlog.web.app import create_app
    from combatlog.web.tables import Tables

    log = ford(tmp_path)
    tables = Tables.single(str(log), b"a test secret")
    table = tables.all()[0]
    with TestClient(create_app(tables)) as client:
        for path in (f"/play/{table.player_token}", f"/play/{table.player_token}/board"):
            page = client.get(path).text
            assert "Ayla strikes Goblin 1" in page and "Bo strikes Goblin 1" in page
            assert "Order: " in page and "Round 1." in page and "The encounter ends" in page
            assert "Goblin 2" not in page and "g2" not in page
        assert "Goblin 2" in client.get(f"/gm/{table.gm_token}").text


def test_an_ambusher_hidden_in_the_encounter_file_never_reaches_follow_or_the_transcript_of_the_table(tmp_path):
    text = (EXAMPLES / "skirmish-ambush.toml").read_text()
    marked = text.replace('id = "g2"', 'id = "g2"\nhidden = true\nreveal = "act"', 1)
    assert marked != text
    encounter = tmp_path / "ambush.toml"
    encounter.write_text(marked)
    log = tmp_path / "ambush.db"
    assert run("new", str(encounter), "--log", str(log), "--seed", "5").exit_code == 0
    assert run("do", str(log), "begin").exit_code == 0
    followed = run("follow", str(log), "--viewer", "table", "--timeout", "0", "--poll", "0.01").stdout
    told = run("transcript", str(log), "--viewer", "table").output
    assert followed == told and "Goblin 2" not in told and "g2" not in told
    assert "Goblin 2" in run("follow", str(log), "--timeout", "0", "--poll", "0.01").output
    for _ in range(12):  # until Goblin 2's own action shows it
        state = json.loads(run("show", str(log), "--json").output)
        if "g2" not in state["acting"]:
            run("do", str(log), "auto")
    run("do", str(log), "auto")
    assert "Goblin 2 strikes" in run("transcript", str(log), "--viewer", "table").output


def test_a_bad_hidden_in_an_encounter_file_is_one_line_naming_the_key(tmp_path):
    text = (EXAMPLES / "skirmish-ambush.toml").read_text().replace('id = "g2"', 'id = "g2"\nhidden = "yes"', 1)
    encounter = tmp_path / "bad.toml"
    encounter.write_text(text)
    result = run("new", str(encounter), "--log", str(tmp_path / "bad.db"))
    assert result.exit_code != 0 and "combatants[3].hidden" in result.output and result.output.count("\n") == 1
