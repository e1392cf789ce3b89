"""The web tracker in a real browser (Debian's chromium, driven by Playwright): the game
master runs a fight (an action, undo, redo, the scrubber) while a second page opened with
the players' link follows it live. Screenshots go to `test-artifacts/`.

The browser is Debian's `chromium` package (Playwright's own download isn't used). When it
is missing, the first test installs it with apt-get if this is a Debian or Ubuntu machine
run as root; where that can't be done the tests skip with the reason, except under CI
(`CI` set), where a browser test that could not run is a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("litestar", reason="the web extra isn't installed: pip install -e '.[web]'")
playwright = pytest.importorskip("playwright.sync_api", reason="playwright isn't installed: pip install -e '.[test]'")

from combatlog.web.tables import Tables  # noqa: E402
from tests.test_web import new_log  # noqa: E402
from tests.web_support import SECRET, serving  # noqa: E402

CHROMIUM = Path(os.environ.get("COMBATLOG_CHROMIUM", "/usr/lib/chromium/chromium"))
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"


def _cannot(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"the browser tests could not run under CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def chromium() -> Path:
    if CHROMIUM.exists():
        return CHROMIUM
    apt = shutil.which("apt-get")
    if apt is None or os.geteuid() != 0:
        _cannot(f"no browser at {CHROMIUM}; install Debian's chromium (apt-get install chromium) as root")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for args in ([apt, "update", "-qq"], [apt, "install", "-y", "-qq", "chromium"]):
        done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=900, check=False)
        if done.returncode != 0:
            pytest.fail(f"installing chromium failed ({' '.join(args[1:])}): {done.stderr.strip()[-300:]}")
    if not CHROMIUM.exists():
        pytest.fail(f"chromium installed, but not at {CHROMIUM}")
    return CHROMIUM


@pytest.fixture
def browser(chromium):
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(chromium), args=["--no-sandbox", "--disable-gpu"])
        try:
            yield b
        finally:
            b.close()


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def wait_for_seq(page, op: str, seq: int, timeout: float = 10.0) -> None:
    """Wait until the page's board stands at a seq `op` `seq` (polled from here: the pages'
    content security policy forbids the string evaluation `wait_for_function` uses)."""
    import operator
    import time

    compare = {">": operator.gt, ">=": operator.ge, "==": operator.eq}[op]
    deadline = time.monotonic() + timeout
    while not compare(seq_of(page), seq):
        if time.monotonic() > deadline:
            raise AssertionError(f"the page stayed at seq {seq_of(page)}, not {op} {seq}")
        page.wait_for_timeout(50)


def seq_of(page) -> int:
    return int(page.locator("#board .status").first.get_attribute("data-seq"))


def test_a_game_master_runs_a_fight_while_the_players_page_follows_live(tmp_path, browser):
    tables = Tables.single(str(new_log(tmp_path / "ford.db")), SECRET)
    table = tables.all()[0]
    with serving(tables) as base:
        gm = browser.new_page(viewport={"width": 1280, "height": 900})
        blocked: list[str] = []  # what the pages' content security policy refused: nothing, or it is too tight
        gm.on("console", lambda m: blocked.append(m.text) if "Content Security Policy" in m.text else None)
        gm.goto(f"{base}/gm/{table.gm_token}")
        gm.wait_for_selector("#begin-button")
        players = browser.new_page(viewport={"width": 1100, "height": 800})
        players.on("console", lambda m: blocked.append(m.text) if "Content Security Policy" in m.text else None)
        players.goto(f"{base}/play/{table.player_token}")
        players.wait_for_selector("text=Goblin 1")
        start = seq_of(players)

        gm.click("#begin-button")
        gm.wait_for_selector("form.turn")
        # the players' page moves on by itself: no reload
        wait_for_seq(players, ">", start)
        assert "round 1" in players.inner_text("#board")

        # an action from the generated form, with the dice typed in
        form = gm.locator("form.turn").first
        form.locator("input[name=action][value=strike]").check()
        form.locator("input[name=targets]").first.check()
        form.locator("input[name=dice]").fill("1d20: 20; 1d6: 4")
        before = seq_of(gm)
        form.locator("button.primary").click()
        wait_for_seq(gm, ">", before)
        assert gm.locator("#refusal").count() == 0
        acted = seq_of(gm)
        wait_for_seq(players, ">=", acted)
        shot(gm, "gm-after-an-action")
        shot(players, "players-after-an-action")

        # undo with the keyboard: the step stays in the transcript, struck through
        gm.locator("body").click(position={"x": 5, "y": 5})
        gm.keyboard.press("Control+z")
        gm.wait_for_selector(".transcript del")
        assert "Undone: step" in gm.inner_text(".transcript")
        shot(gm, "gm-after-undo")
        gm.keyboard.press("Control+Shift+z")
        gm.wait_for_selector("text=Redone: step")
        assert gm.locator(".transcript del").count() == 0

        # a refusal says why in place and changes nothing
        now = seq_of(gm)
        gm.fill("#command-line", "act nobody strike g1")
        gm.locator("form.line button").click()
        gm.wait_for_selector("#refusal")
        assert "nobody" in gm.inner_text("#refusal") and seq_of(gm) == now

        # scrub back through the history: the state at an early seq, read-only
        gm.eval_on_selector(
            "#scrubber", "(s) => { s.value = 5; s.dispatchEvent(new Event('input', {bubbles: true})); }"
        )
        gm.wait_for_selector("#history .readonly")
        assert "setup, round 0" in gm.inner_text("#history")
        gm.wait_for_selector("#audit .badge.clean")
        shot(gm, "gm-scrubbed-back")

        # auto steps reach the open players' page live
        for _ in range(3):
            gm.click("#auto-button")
        gm.wait_for_timeout(200)
        last = seq_of(gm)
        wait_for_seq(players, "==", last)
        shot(players, "players-live")
        assert blocked == []
        gm.close()
        players.close()


def test_a_player_acts_from_a_phone_sized_seat_page_that_never_scrolls_sideways(tmp_path, browser):
    import httpx

    tables = Tables.single(str(new_log(tmp_path / "ford.db")), SECRET)
    table = tables.all()[0]
    with serving(tables) as base, httpx.Client(base_url=base) as client:

        def gm(**form):
            form.setdefault("seq", str(table.seq))
            return client.post(f"/gm/{table.gm_token}/command", data=form)

        gm(kind="seat", seat="ana", name="Ana", combatants="ayla")
        gm(kind="begin")
        for _ in range(12):
            table.sync()
            if "ayla" in table.session.state.acting:
                break
            gm(kind="auto")
        seat = table.seats()[0]
        phone = browser.new_page(viewport={"width": 390, "height": 844})
        blocked: list[str] = []
        phone.on("console", lambda m: blocked.append(m.text) if "Content Security Policy" in m.text else None)
        phone.goto(f"{base}/seat/{table.seat_token(seat)}")
        phone.wait_for_selector("form.turn")
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
        shot(phone, "seat-phone")
        players = browser.new_page(viewport={"width": 390, "height": 844})
        players.goto(f"{base}/play/{table.player_token}")
        players.wait_for_selector("#board .status")
        assert players.evaluate("document.documentElement.scrollWidth") <= 390
        shot(players, "players-phone")
        before = seq_of(phone)
        form = phone.locator("form.turn").first
        form.locator("input[name=targets]").first.check()
        form.locator("button.primary").click()
        wait_for_seq(phone, ">", before)
        wait_for_seq(players, ">", before)  # the players' screen follows the player's own step
        assert phone.locator("#refusal").count() == 0
        assert blocked == []
        phone.close()
        players.close()


@pytest.mark.parametrize("example", ["skirmish-ambush.toml", "triptycho-cistern.toml", "starflight-patrol.toml"])
def test_axe_finds_nothing_serious_on_the_game_masters_a_seats_and_the_tables_pages(tmp_path, browser, example):
    import httpx

    axe_module = pytest.importorskip("axe_playwright_python.sync_playwright", reason="pip install -e '.[test]'")
    from tests.web_support import EXAMPLES

    tables = Tables.single(str(new_log(tmp_path / "f.db", EXAMPLES / example)), SECRET)
    table = tables.all()[0]
    first = next(iter(table.session.state.combatants))
    with serving(tables) as base, httpx.Client(base_url=base) as client:

        def gm(**form):
            form.setdefault("seq", str(table.seq))
            return client.post(f"/gm/{table.gm_token}/command", data=form)

        gm(kind="seat", seat="ana", name="Ana", combatants=first)
        gm(kind="begin")
        gm(kind="auto")
        table.sync()
        axe = axe_module.Axe()
        pages = {
            "game master": (f"{base}/gm/{table.gm_token}", 1280),
            "seat": (f"{base}/seat/{table.seat_token(table.seats()[0])}", 390),
            "table": (f"{base}/play/{table.player_token}", 1100),
        }
        found = []
        for name, (url, width) in pages.items():
            page = browser.new_page(viewport={"width": width, "height": 900})
            page.goto(url)
            page.wait_for_selector("#board .status")
            for v in axe.run(page).response["violations"]:
                if v["impact"] in ("serious", "critical"):
                    found.append(f"{name}: {v['id']} ({v['help']}) at {[n['target'] for n in v['nodes']][:3]}")
            page.close()
        assert found == []


def test_the_game_master_drags_a_token_to_another_section_of_the_map(tmp_path, browser):
    from tests.web_support import EXAMPLES

    tables = Tables.single(str(new_log(tmp_path / "cistern.db", EXAMPLES / "triptycho-cistern.toml")), SECRET)
    table = tables.all()[0]
    with serving(tables) as base:
        gm = browser.new_page(viewport={"width": 1280, "height": 900})
        gm.goto(f"{base}/gm/{table.gm_token}")
        gm.wait_for_selector("svg.map")
        token = gm.locator('svg.map g.token[data-id="hound"]').first.bounding_box()
        target = gm.locator('svg.map g.section[data-place="shrine"] rect').bounding_box()
        before = seq_of(gm)
        gm.mouse.move(token["x"] + token["width"] / 2, token["y"] + token["height"] / 2)
        gm.mouse.down()
        gm.mouse.move(target["x"] + 20, target["y"] + target["height"] - 12, steps=8)
        gm.mouse.up()
        wait_for_seq(gm, ">", before)
        table.sync()
        assert table.session.state.combatants["hound"].position == "shrine"
        assert gm.locator('svg.map g.section[data-place="shrine"] g.token[data-id="hound"]').count() == 1
        shot(gm, "gm-map-after-a-drag")
        gm.close()


@pytest.mark.parametrize("example", ["starflight-patrol.toml", "triptycho-cistern.toml"])
def test_a_game_master_and_two_phones_play_a_fight_to_its_end(tmp_path, browser, example):
    """Two seats on phone-sized pages and the game master on a desktop one: the seats' steps
    wait in the queue until accepted (one refused with a reason the player reads), a refused
    form keeps what was typed, a rewind and a redo, and the fight goes on to its end."""
    import httpx

    from tests.web_support import EXAMPLES

    tables = Tables.single(str(new_log(tmp_path / "f.db", EXAMPLES / example)), SECRET)
    table = tables.all()[0]
    state = table.session.state
    pcs = [c.id for c in state.combatants.values() if c.kind == "pc"][:2]
    with serving(tables) as base, httpx.Client(base_url=base) as client:

        def gm_post(**form):
            form.setdefault("seq", str(table.seq))
            return client.post(f"/gm/{table.gm_token}/command", data=form)

        for i, cid in enumerate(pcs):
            gm_post(kind="seat", seat=f"p{i}", name=f"Player {i + 1}", combatants=cid)
        gm_post(kind="seating", commands="queue", undo="false")
        gm_post(kind="begin")
        table.sync()
        gm = browser.new_page(viewport={"width": 1280, "height": 900})
        gm.goto(f"{base}/gm/{table.gm_token}")
        gm.wait_for_selector("#board .status")
        phones = []
        for seat in table.seats():
            phone = browser.new_page(viewport={"width": 390, "height": 844})
            phone.goto(f"{base}/seat/{table.seat_token(seat)}")
            phone.wait_for_selector("#board .status")
            phones.append((seat, phone))

        # a refused form keeps what was typed, and says why beside its button
        gm.fill("#f-hurt input[name=amount]", "a lot")
        gm.locator("#f-hurt input[name=targets]").first.check()
        gm.locator("#f-hurt button[type=submit]").click()
        gm.wait_for_selector("#err-hurt #refusal")
        assert gm.input_value("#f-hurt input[name=amount]") == "a lot"

        refused_once = accepted = False
        for _ in range(200):
            table.sync()
            if table.session.state.phase == "end":
                break
            acting = set(table.session.state.acting)
            mine = [(seat, phone) for seat, phone in phones if acting & set(seat.combatants)]
            if mine:
                seat, phone = mine[0]
                phone.reload()
                form = phone.locator("form.turn").first
                if form.count() == 0:
                    gm.click("#auto-button")
                    continue
                targets = form.locator("input[name=targets]")
                if targets.count():
                    targets.first.check()
                form.locator("button.primary").click()
                phone.wait_for_timeout(150)
                if phone.locator("#refusal").count():  # an action that wants more: end the turn instead
                    phone.locator("form.inline button", has_text="end").first.click()
                    phone.wait_for_timeout(150)
                gm.reload()
                if gm.locator(".queue .request").count():
                    if not refused_once:
                        gm.fill(".queue .request input[name=reason]", "not yet")
                        gm.locator(".queue .request button", has_text="refuse").first.click()
                        refused_once = True
                        phone.reload()
                        assert "the game master refused: not yet" in phone.inner_text("#board")
                        continue
                    gm.locator(".queue .request button", has_text="accept").first.click()
                    accepted = True
                    gm.wait_for_timeout(100)
            else:
                gm.reload()
                gm.click("#auto-button")
                gm.wait_for_timeout(50)
            if accepted and refused_once and not getattr(table, "_rewound", False):
                table.sync()
                gm.reload()
                rewind = gm.locator("ol.steps button", has_text="rewind to here")
                if rewind.count() >= 2:
                    gm.once("dialog", lambda d: d.accept())
                    before = seq_of(gm)
                    rewind.nth(1).click()
                    wait_for_seq(gm, ">", before)
                    gm.locator("ol.steps button", has_text="redo to here").first.click()
                    gm.wait_for_timeout(200)
                    table._rewound = True  # type: ignore[attr-defined]
        table.sync()
        assert table.session.state.phase == "end", table.session.state.phase
        assert accepted and refused_once and getattr(table, "_rewound", False)
        name = example.split("-")[0]
        shot(gm, f"{name}-game-master-end")
        for i, (_, phone) in enumerate(phones):
            phone.reload()
            assert phone.evaluate("document.documentElement.scrollWidth") <= 390
            shot(phone, f"{name}-seat-{i + 1}-end")
            phone.close()
        gm.close()


def test_the_game_masters_screen_fits_a_phone_too(tmp_path, browser):
    from tests.web_support import EXAMPLES

    tables = Tables.single(str(new_log(tmp_path / "cistern.db", EXAMPLES / "triptycho-cistern.toml")), SECRET)
    table = tables.all()[0]
    with serving(tables) as base:
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.goto(f"{base}/gm/{table.gm_token}")
        page.wait_for_selector("#board .status")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390  # the map scrolls in its own box
        page.close()


def test_an_action_form_shows_the_parameters_of_the_action_chosen_and_sends_only_those(tmp_path, browser):
    from combatlog.events import ActionDeclared
    from combatlog.replays.cursor import envelopes
    from tests.web_support import EXAMPLES

    tables = Tables.single(str(new_log(tmp_path / "f.db", EXAMPLES / "swords-of-infinity-ambush.toml")), SECRET)
    table = tables.all()[0]
    with serving(tables) as base:
        gm = browser.new_page(viewport={"width": 1280, "height": 900})
        gm.goto(f"{base}/gm/{table.gm_token}")
        gm.click("#begin-button")
        gm.wait_for_selector("form.turn")
        form = gm.locator("form.turn").first
        form.locator("input[name=action][value=attack]").check()
        assert form.locator("select[name='param.technique']").is_visible()
        assert not form.locator("input[name='param.x']").is_visible()  # a move's, not an attack's
        form.locator("select[name='param.defense']").select_option("dodge")
        form.locator("input[name=action][value=move]").check()
        assert form.locator("input[name='param.x']").is_visible()
        assert not form.locator("select[name='param.technique']").is_visible()
        form.locator("input[name=action][value=attack]").check()
        form.locator("input[name=targets]").first.check()
        form.locator("input[name='param.x']").evaluate("el => { el.value = '7'; }")  # left in a hidden input
        before = seq_of(gm)
        form.locator("button.primary").click()
        wait_for_seq(gm, ">", before)
        assert gm.locator("#refusal").count() == 0
        table.sync()
        declared = [e.event for e in envelopes(table.log) if type(e.event) is ActionDeclared]
        assert declared[-1].action == "attack" and declared[-1].params == {"defense": "dodge"}
        gm.close()
