"""What a person reads says things as a person writes them: no Python spelling (`None`,
`True`, `['patrol']`, `{'name': ...}`, `()`), counts with the right noun (`1 roll`, never
`1 rolls` or `1 roll(s)`), `an` before a vowel; and `play` keeps dice typed at the table for
the command they were typed for."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from combatlog.cli.main import app
from combatlog.engine import rule_names
from combatlog.engine.words import add_example, article, counted, plainly, spoken
from combatlog.events import CombatantAdded, DiceRolled
from combatlog.replays import open_log
from combatlog.replays.cursor import envelopes

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SYSTEMS = ["infinite-realms", "skirmish", "starflight", "straalara", "swords-of-infinity", "triptycho"]

# Python's spelling of a value, or a count whose noun disagrees with it
PYTHON = re.compile(
    r"\bNone\b|\bTrue\b|\bFalse\b|\bNODEFAULT\b|\['|\{'|\(\)|\(s\)|\((?:int|bool|str|float|dict|list)\)"
)
VERBS = "is|takes|was|has|moves|falls|plays|draws|discards|attacks|strikes|fires|runs|recovers|joins|leaves"
ONE_MANY = re.compile(rf"\b1 (?!(?:{VERBS})\b)[a-z]+(?<!s)s\b")  # "1 actions", "1 rolls"; not "Goblin 1 takes"
A_VOWEL = re.compile(r"(?<![\w-])a (?!one\b|once\b|use)[aeiou]\w*")


def run(*args: str, stdin: str | None = None):
    return CliRunner().invoke(app, list(args), input=stdin, catch_exceptions=False)


def python_in(text: str) -> list[str]:
    return [m.group(0) for pattern in (PYTHON, ONE_MANY, A_VOWEL) for m in pattern.finditer(text)]


# --- the words themselves ----------------------------------------------------------------


def test_values_are_spoken_as_an_encounter_file_writes_them():
    assert spoken(False) == "false" and spoken(True) == "true"
    assert spoken(None) == "none" and spoken(None, nothing="not set") == "not set"
    assert spoken(["patrol"]) == "patrol" and spoken(("d4", "d6")) == "d4, d6"
    assert spoken({}) == "none" and spoken(()) == "none"
    assert spoken([{"name": "Bruised", "penalty": 0}]) == '[{name = "Bruised", penalty = 0}]'


def test_counts_and_articles_read_as_a_person_writes_them():
    assert [counted(n, "roll") for n in (0, 1, 2)] == ["0 rolls", "1 roll", "2 rolls"]
    assert counted(1, "die") == "1 die" and counted(3, "die") == "3 dice" and counted(2, "entry") == "2 entries"
    assert article("infinite-realms") == "an infinite-realms" and article("skirmish") == "a skirmish"


def test_a_refusal_is_shown_in_plain_words():
    # the engine's own wording is what recorded fights hash: it is said plainly where it is shown
    said = plainly("Bo: strike: needs 1 target(s), 0 given; targets: ")
    assert said == "Bo: strike: needs 1 target, 0 given; targets: none"
    assert plainly("Bo: guard: costs 1 actions but actions 0 left; can do: end the turn") == (
        "Bo: guard: costs 1 action but 0 actions left; can do: end the turn"
    )
    assert plainly("Mira: aim: costs 1 ap but ap 0 left") == "Mira: aim: costs 1 AP but 0 AP left"
    said = plainly("act: 1 entered roll(s) more than the command needs")
    assert said == "act: 1 entered roll more than the command needs"
    assert plainly("1d8 needs 1 face(s), 3 face(s) were entered") == "1d8 needs 1 face, 3 faces were entered"
    assert plainly("ayla: missing stat(s) hp; skirmish needs hp") == "ayla: missing stat hp; skirmish needs hp"
    said = plainly("1d6 (damage) rolls 1 dice, 2 face(s) were given: [3, 4]")
    assert said == "1d6 (damage) rolls 1 die, 2 faces were given: 3, 4"
    assert plainly("add g9: stats must be a table of names and values, not int").endswith("not a whole number")
    said = plainly("combatant g9: $.hp: Expected int, got str")
    assert said == "combatant g9: hp: expected a whole number, got a text"
    assert plainly("timing='x': not an accepted value; use one of None, turn") == (
        "timing='x': not an accepted value; use one of turn"  # "not set" is no value one can type
    )


def test_a_new_users_mistakes_in_an_encounter_file_are_told_without_python(tmp_path):
    text = (EXAMPLES / "skirmish-ambush.toml").read_text()
    for wrong, says in (
        (text.replace("hp = 14", 'hp = "fourteen"', 1), "hp: expected a whole number, got a text"),
        (text.replace("hp = 14", "hpp = 14", 1), "missing stat hp"),
    ):
        path = tmp_path / "bad.toml"
        path.write_text(wrong)
        result = CliRunner().invoke(app, ["new", str(path), "--log", str(tmp_path / "bad.db")])
        assert result.exit_code == 1 and says in result.output, result.output
        assert python_in(result.output) == [] and "$." not in result.output


# --- the command line, as a new user meets it ----------------------------------------------


def test_rulesets_says_options_and_stats_as_an_encounter_file_writes_them():
    every = run("rulesets").output
    assert python_in(every) == [], python_in(every)
    assert "option group_initiative = false (false, true)" in every
    assert "option movement_timing = not set (turn, simultaneous)" in every  # None is no choice one can type
    assert 'option health_levels = [{name = "Bruised", penalty = 0}' in every
    assert "option ladder = d4, d6, d8, d10, d12" in every
    for name in SYSTEMS:
        one = run("rulesets", name).output
        assert python_in(one) == [], (name, python_in(one))
    swords = run("rulesets", "swords-of-infinity").output
    assert "stat skills: default none" in swords and "stat shield: default none" in swords
    assert "stat weapons: default none" in swords
    assert "stat miss: default d6" in run("rulesets", "triptycho").output
    assert "action attack [AP varies; enemy]" in run("rulesets", "infinite-realms").output  # the weapon's AP


@pytest.mark.parametrize("name", SYSTEMS)
def test_a_demo_and_its_table_hold_no_python(name, tmp_path):
    log = tmp_path / f"{name}.db"
    told = run("demo", "--rules", name, "--log", str(log)).output
    told += run("transcript", str(log), "--dice").output
    shown = run("show", str(log)).output
    for text in (told, shown):
        assert python_in(text) == [], python_in(text)
    if name == "starflight":  # the surprise ruling names the side, not a Python list
        assert "GM ruling (surprise): patrol\n" in told
    winner = next(line for line in told.splitlines() if line.startswith("The encounter ends"))
    assert re.fullmatch(r"The encounter ends: .+, won by \w+\.", winner), winner
    assert ", won by " in shown.splitlines()[0]


def test_init_and_new_say_an_encounter_with_its_article(tmp_path):
    said = run("init", "--rules", "infinite-realms", str(tmp_path / "road.toml")).output
    assert "road.toml: an infinite-realms encounter" in said
    assert (tmp_path / "road.toml").read_text().startswith("# An infinite-realms encounter to start from")


# --- play: dice typed for a refused command, and adding a combatant ------------------------


def _ford(tmp_path) -> Path:
    """The skirmish ambush begun: Bo acts first, then Ayla (seed 7, the file's)."""
    log = tmp_path / "ford.db"
    assert run("new", str(EXAMPLES / "skirmish-ambush.toml"), "--log", str(log)).exit_code == 0
    run("do", str(log), "begin")
    return log


def _events(log: Path, kind: type) -> list:
    opened = open_log(log, create=False)
    try:
        return [e.event for e in envelopes(opened) if isinstance(e.event, kind)]
    finally:
        opened.close()


def _rolls(log: Path) -> list[DiceRolled]:
    return [e for e in _events(log, DiceRolled) if "strike" in e.purpose]


def test_play_never_spends_dice_typed_for_a_refused_command_on_another(tmp_path):
    log = _ford(tmp_path)
    script = (
        "1d20: 20\n"
        "act ayla strike g1\n"  # refused: it is Bo's turn; the 20 was rolled for Ayla
        "act bo strike g1\n"  # another's command: the 20 is dropped, the engine rolls for Bo
        "1d20: 19\n"
        "act ayla strike zz\n"  # refused: no such target; the 19 is kept for Ayla's next act
        "act ayla strike g1\n"  # and spent on it
    )
    result = run("play", str(log), stdin=script)
    assert "the 1 queued roll is kept for ayla's next act" in result.output
    assert "the 1 queued roll typed for the refused 'act ayla strike g1' is dropped" in result.output
    attacks = [r for r in _rolls(log) if r.expression.startswith("1d20")]  # Bo's, then Ayla's
    assert [r.source for r in attacks] == ["engine", "entered"] and attacks[1].faces == (19,)


def test_dice_typed_for_a_refused_command_wait_for_more_and_clear_drops_them(tmp_path):
    log = _ford(tmp_path)
    result = run("play", str(log), stdin="1d20: 3\nact ayla strike g1\nclear\nact bo strike g1\n")
    assert "dice cleared" in result.output and "dropped" not in result.output
    assert _rolls(log)[0].source == "engine"


@pytest.mark.parametrize("name", SYSTEMS)
def test_play_help_shows_an_add_that_works_in_this_fight(name, tmp_path):
    log = tmp_path / "f.db"
    example = next(EXAMPLES.glob(f"{name}-*.toml"))
    assert run("new", str(example), "--log", str(log)).exit_code == 0
    helped = run("play", str(log), stdin="help\n").output
    assert "add id=ID side=SIDE" in helped
    line = next(x for x in helped.splitlines() if x.startswith("  add, e.g.: "))[len("  add, e.g.: ") :]
    added = run("play", str(log), stdin=line + "\n")
    assert added.exit_code == 0, added.output
    last = _events(log, CombatantAdded)[-1]
    assert f"{last.name} (NPC, {last.side}) joins." in added.output


def test_an_add_example_before_anyone_is_added_is_still_one_that_reads():
    assert add_example(None).startswith("add id=g1 name='Goblin 1' side=goblins")


def test_every_installed_system_is_swept_here():
    assert set(SYSTEMS) <= set(rule_names())


def test_the_game_masters_command_line_shows_an_add_that_works(tmp_path):
    pytest.importorskip("litestar", reason="the web extra isn't installed: pip install -e '.[web]'")
    import html

    from litestar.testing import TestClient

    from combatlog.engine.encounter_file import read_encounter
    from combatlog.replays.encounters import start
    from combatlog.web.app import create_app
    from combatlog.web.tables import Tables

    where = tmp_path / "ford.db"
    log = open_log(where)
    start(read_encounter(EXAMPLES / "skirmish-ambush.toml"), log, "ford")
    log.close()
    tables = Tables.single(str(where), b"a test secret")
    table = tables.all()[0]
    with TestClient(create_app(tables)) as client:
        page = client.get(f"/gm/{table.gm_token}").text
        shown = re.search(r"a combatant more: <code>(.*?)</code>", page)
        assert shown, page[:400]
        line = html.unescape(shown.group(1))
        assert line == add_example(table.session.state) and line.startswith("add id=g3 name='Goblin 3'")
        board = client.post(f"/gm/{table.gm_token}/command", data={"seq": str(table.seq), "kind": "line", "line": line})
        assert board.status_code == 200 and "Goblin 3 (NPC, goblins) joins." in board.text
    table.close()


def test_do_reads_key_value_words_as_parameters_as_play_does(tmp_path):
    log = _ford(tmp_path)
    moved = run("do", str(log), "act", "bo", "move", "to=door")
    assert moved.exit_code == 0 and "Bo moves to door" in moved.output
    noted = run("do", str(log), "note", "the", "ford=deep")
    assert "Note: the ford=deep" in noted.output  # a note's words are its text


def test_an_outcome_recorded_with_a_hedged_count_is_told_plainly():
    """An action's outcome is recorded as the engine decided it ("keeping 1 charge(s)": its words
    are what the recorded fights hash); the transcript tells it as a person would write it."""
    from combatlog.testing import fight, fighter

    deck = [{"name": "Spark", "range": 1, "incantation": 1, "hit": "d8", "damage": "d6"}]
    f = fight(
        "triptycho",
        fighter("x", "party", kind="pc", name="Xan", hp=10, section="a", miss="d6", deck=deck),
        fighter("y", "cult", name="Yorl", hp=10, section="a", miss="d6", deck=[{"name": "Bite", "hit": "d8"}]),
        seed=3,
        order="listed",
        starting_hand=1,
        map={"sections": [{"id": "a", "light": "lit"}]},
    )
    f.act("x", "incant")
    f.end_turn("x")
    f.end_turn("y")
    step = f.act("x", "incant")
    assert step.outcome.startswith("incants again, keeping 1 charge(s)")  # as recorded
    told = " ".join(step.told)
    assert "incants again, keeping 1 charge:" in told and python_in(told) == []


def test_a_condition_removed_says_why_unless_its_time_ran_out(tmp_path):
    """Straalara's Dazed goes with the action it costs: the line says so ("no longer dazed (the
    action is lost)") rather than "no longer dazed" just before "lost: ... is Dazed"; a condition
    whose turn or round ran out says only that it ended."""
    told = run("demo", "--rules", "straalara", "--force", "--log", str(tmp_path / "s.jsonl")).output.splitlines()
    lost = next(i for i, line in enumerate(told) if line.endswith("lost: Bandit chief is Dazed."))
    assert told[lost - 1] == "  Bandit chief: no longer dazed (the action is lost)."
    swords = run("demo", "--rules", "swords-of-infinity", "--force", "--log", str(tmp_path / "w.jsonl")).output
    assert "  Bjoric: no longer attacked this turn.\n" in swords and "(its next turn)" not in swords


def test_a_move_on_a_map_of_named_sections_says_the_sections_name(tmp_path):
    """The cistern names its sections ("the stair head"); a move's line says the name, not the
    id the file keys it by."""
    told = run("demo", "--rules", "triptycho", "--force", "--log", str(tmp_path / "t.jsonl")).output
    assert "  Vela moves to the stair head.\n" in told and "moves to stair." not in told
