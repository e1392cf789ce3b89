"""Commands are types: every kind has its Struct and its help, each edge (the command grammar,
the web forms, the Python API) reads a command into the same Struct, decide finds the handler
by the type, and a command the engine can't take is refused in one line, the same at every
edge."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from combatlog.engine import Refused, Session, get_rules
from combatlog.engine.commands import (
    KINDS,
    Act,
    Add,
    Begin,
    EndTurn,
    Note,
    Override,
    Redo,
    Remove,
    Reveal,
    Seat,
    Seating,
    SystemCommand,
    TypedCommand,
    Undo,
    View,
    checked,
    help_of,
    read,
    recorded,
)
from combatlog.engine.decide import _HANDLERS, CORE_COMMANDS, HANDLED, decide
from combatlog.engine.dice import SeededDice
from combatlog.engine.encounter_file import read_encounter
from combatlog.engine.grammar import parse_line, split_words, value
from combatlog.events import Command, CommandIssued, decode_line
from combatlog.replays import MemoryLog
from combatlog.replays.audit import audit

AMBUSH = Path(__file__).resolve().parents[1] / "examples" / "skirmish-ambush.toml"
SKIRMISH = get_rules("skirmish")


def _kinds(base: type) -> set[type]:
    found = set()
    for sub in base.__subclasses__():
        found |= {sub} | _kinds(sub)
    return found


def ambush(begin: bool = True) -> Session:
    s = Session(MemoryLog(), signer=None)
    for command in read_encounter(AMBUSH, seed=1):
        s.execute(command)
    if begin:
        s.execute(Begin())
    return s


# --- every kind has its Struct, its handler and its help ------------------------------------------


def test_every_command_kind_has_a_struct_a_handler_and_help_that_play_and_the_web_show():
    from combatlog.cli.play import help_lines
    from combatlog.web.app import _command_help

    kinds = _kinds(TypedCommand)
    assert kinds == set(HANDLED), "a command type decide has no handler for, or the reverse"
    assert kinds == {*KINDS.values(), SystemCommand}, "a command type missing from KINDS"
    shown = help_lines(None)
    for word, kind in KINDS.items():
        assert help_of(kind), f"{word} has no docstring: its help"
        assert kind.usage.split()[0] == word, f"{word}'s usage doesn't start with its word"
        assert f"  {kind.usage}: {help_of(kind)}" in shown, f"play's help leaves out {word}"
        assert CORE_COMMANDS[word] == help_of(kind)
    # every command offered at any moment of a fight is one of them, with its help on the web page
    s = ambush(begin=False)
    offered = set(s.legal())
    s.execute(Begin())
    offered |= set(s.legal())
    s.play_out()
    offered |= set(s.legal())
    assert offered <= set(KINDS)
    table = SimpleNamespace(session=s)
    assert [usage for usage, _ in _command_help(table)] == [KINDS[k].usage for k in s.legal()]


# --- each edge reads a command into the same Struct ------------------------------------------------

FORM_STATE = SimpleNamespace(phase="end", combatants={})

EDGES = [
    (
        Act(actor="bo", action="strike", targets=("g1",), params={"weapon": "axe"}),
        "act bo strike g1 weapon=axe",
        ({"kind": "act", "actor": "bo", "action": "strike", "params": "weapon=axe"}, ("g1",)),
        Command(kind="act", actor="bo", action="strike", targets=("g1",), params={"weapon": "axe"}),
    ),
    (
        EndTurn(actor="bo"),
        "end_turn bo",
        ({"kind": "end_turn", "actor": "bo"}, ()),
        Command(kind="end_turn", actor="bo"),
    ),
    (
        View(combatant="g1", hidden=True),
        "view combatant=g1 hidden=true",
        ({"kind": "view", "combatant": "g1", "hidden": "true"}, ()),
        Command(kind="view", params={"combatant": "g1", "hidden": True}),
    ),
    (
        View(side="goblins", hp="level"),
        "view side=goblins hp=levels",  # the alias, read as the engine always has
        ({"kind": "view", "side": "goblins", "hp": "level"}, ()),
        Command(kind="view", params={"hp": "levels", "side": "goblins"}),
    ),
    (
        Seat(seat="s1", name="Sam", combatants=("bo", "ayla")),
        "seat seat=s1 combatants=bo,ayla name=Sam",
        ({"kind": "seat", "seat": "s1", "combatants": "bo,ayla", "name": "Sam"}, ()),
        Command(kind="seat", params={"seat": "s1", "combatants": ["bo", "ayla"], "name": "Sam"}),
    ),
    (
        Seating(commands="queue", undo=True),
        "seating commands=queue undo=true",
        ({"kind": "seating", "commands": "queue", "undo": "true"}, ()),
        Command(kind="seating", params={"commands": "queue", "undo": True}),
    ),
    (
        Override(reason="moved on the map", move={"target": "g1", "to": "B2"}),
        """override reason='moved on the map' 'move={"target": "g1", "to": "B2"}'""",
        ({"kind": "move", "combatant": "g1", "to": "B2"}, ()),
        Command(kind="override", params={"move": {"target": "g1", "to": "B2"}, "reason": "moved on the map"}),
    ),
    (
        Override(reason="a trap", damage=[{"target": "g1", "amount": 3}]),
        """override reason='a trap' 'damage=[{"target": "g1", "amount": 3}]'""",
        ({"kind": "hurt", "amount": "3", "reason": "a trap"}, ("g1",)),
        Command(kind="override", params={"reason": "a trap", "damage": [{"target": "g1", "amount": 3}]}),
    ),
    (
        Remove(actor="g1", reason="fled"),
        "remove g1 reason=fled",
        ({"kind": "remove", "combatant": "g1", "reason": "fled"}, ()),
        Command(kind="remove", actor="g1", params={"reason": "fled"}),
    ),
    (Reveal(), "reveal", ({"kind": "reveal"}, ()), Command(kind="reveal")),
    (Undo(), "undo", ({"kind": "undo"}, ()), Command(kind="undo")),
    (Redo(), "redo", ({"kind": "redo"}, ()), Command(kind="redo")),
    (Begin(entered=((3,),)), "begin", ({"kind": "begin", "dice": "3"}, ()), Command(kind="begin", entered=((3,),))),
]


@pytest.mark.parametrize(("typed", "line", "form", "command"), EDGES, ids=[e[1].split()[0] for e in EDGES])
def test_the_grammar_a_web_form_and_the_python_api_read_a_command_into_the_same_struct(typed, line, form, command):
    from combatlog.web.forms import command_of

    entered = typed.entered
    assert parse_line(line, entered, "gm", SKIRMISH) == typed
    fields, targets = form
    assert command_of(fields, targets, SKIRMISH, FORM_STATE) == typed
    assert checked(typed) == typed  # as Session.execute checks a typed one
    assert read(command) == typed  # as it reads a Command (and a log's)
    assert read(recorded(typed)) == typed  # the Command the log records reads back as itself


def test_an_add_reads_alike_from_a_line_and_from_python():
    line = """add id=g3 side=goblins name='Goblin 3' 'stats={"hp": 7, "attack": 2}'"""
    typed = Add(id="g3", name="Goblin 3", side="goblins", stats={"hp": 7, "attack": 2})
    assert parse_line(line, None, "gm", SKIRMISH) == typed == checked(typed)
    stats = {"hp": 7, "attack": 2}
    assert recorded(typed).params == {"id": "g3", "name": "Goblin 3", "side": "goblins", "stats": stats}


def test_a_rule_systems_own_command_is_read_as_given():
    realms = get_rules("infinite-realms")
    typed = parse_line("defend ayla 2", None, "gm", realms)
    assert typed == SystemCommand(kind="defend", actor="ayla", params={"ap": 2})
    assert recorded(typed) == Command(kind="defend", actor="ayla", params={"ap": 2})


# --- the log, and decide ------------------------------------------------------------------------------


def test_a_fight_given_as_typed_commands_is_recorded_as_commands_that_read_back_to_them_and_audits_clean():
    s = ambush(begin=False)
    given: list[TypedCommand] = [
        View(side="goblins", hp="level"),
        Note(text="the ford is shallow"),
        Begin(),
    ]
    for command in given:
        s.execute(command)
    while s.state.phase != "end" and len(given) < 40:
        actor = s.state.acting[0]
        policy = s.rules.policy(s.state, s.state.combatants[actor])
        command = read(policy)  # the policy's Command, typed
        given.append(command)
        s.execute(command)
    issued = [e.event.command for e in map(decode_line, s.log.lines()) if isinstance(e.event, CommandIssued)]
    assert [read(c) for c in issued[-len(given) :]] == given
    assert audit(s.log).clean


def test_decide_finds_the_handler_by_the_commands_type(monkeypatch):
    s = ambush()
    seen = []
    monkeypatch.setitem(_HANDLERS, Note, lambda draft, command: seen.append(command))
    dice = SeededDice(1, s.projection.step + 1)
    decide(s.projection, Command(kind="note", params={"text": " a recorded note "}), dice)
    decide(s.projection, Note(text="a typed note"), dice)
    assert seen == [Note(text="a recorded note"), Note(text="a typed note")]


def test_a_typed_command_and_its_recorded_form_decide_the_same_events():
    s = ambush()
    actor = s.state.acting[0]
    target = next(c.id for c in s.state.active() if c.side != s.state.combatants[actor].side)
    typed = Act(actor=actor, action="strike", targets=(target,))
    dice = SeededDice(1, s.projection.step + 1)
    events = decide(s.projection, typed, dice)
    assert events and events == decide(s.projection, recorded(typed), SeededDice(1, s.projection.step + 1))


# --- refusals: one line, the same at every edge ---------------------------------------------------------

BAD = [
    (
        """override reason=x 'resources={"target":"g1","values":5}'""",
        'override resources: values is a mapping of resource names to whole numbers; give resources={"target": ID, '
        '"values": {"ap": 2}}',
    ),
    (
        """override reason=x 'damage={"target":"g1","amount":"2x6"}'""",
        "override damage: amount '2x6' is neither a number nor dice (can't read dice expression '2x6'",
    ),
    ("""override reason=x 'defeat={"target":{"id":"g1"}}'""", "override defeat: target is a combatant's id, not dict"),
    ("""override reason=x heal=1""", "override: nothing to override with heal; give one of damage, condition"),
    ("""override 'damage={"target":"g1"}'""", "override: an override needs a reason; give params reason"),
    ("view side=goblins hp=secret", "view hp='secret': not a way to show health; use exact, level or hidden (none)"),
    ("view combatant=g1 colour=red", "view colour=: not a setting of the players' view; give side=SIDE"),
    ("view combatant=g1 hidden=false reveal=act", "view reveal='act': reveal=act goes with hidden=true; give"),
    ("view combatant=g1", "view: say what the players see; give side=SIDE"),
    ("seat seat=a! combatants=g1", "seat 'a!': a seat's id is 1-32 letters, digits, '_' or '-'; give seat=ID"),
    ("seat seat=s1 combatants=5", "seat s1: combatants is a list of ids; give seat=ID"),
    ("seating commands=later", "seating: say how the seats' commands are taken; give commands=now|queue"),
    ("add id=g! side=goblins", "add 'g!': an id is 1-64 letters, digits, '_', '.' or '-', starting with a letter"),
    ("add id=g9 side=goblins kind=boss", "add g9: kind 'boss' is neither pc nor npc"),
    ("add id=g9", "add g9: a combatant needs a side"),
    ("note", "note: the note is empty"),
    ("ruling", "ruling: a ruling needs a topic; give params topic and decision"),
    ("fork at=true", "fork: at is a seq, a whole number, not 'True'; give params at, parent_seq and parent_digest"),
    ("end winner=nobody", "end: winner 'nobody': no such side; sides: party, goblins"),
    ("end winner=5", "end: winner 5: no such side; sides: party, goblins"),
    ("act nobody strike g1", "act 'nobody': no such combatant; ids: "),
    ("launch", "command 'launch': unknown command; commands: create, add, remove"),
]


@pytest.mark.parametrize(("line", "says"), BAD, ids=[b[0].split()[0] + str(i) for i, b in enumerate(BAD)])
def test_a_bad_command_is_refused_in_one_line_the_same_from_a_line_a_form_and_python(line, says):
    from combatlog.web.forms import command_of

    def refusal(do) -> str:
        s = ambush()
        head = s.log.head()
        with pytest.raises(Refused) as caught:
            do(s)
        assert s.log.head() == head
        return str(caught.value)

    def as_python(s):  # the Command a program would build, given to the session
        kind, *rest = split_words(line)
        params = dict(w.split("=", 1) for w in rest if "=" in w)
        plain = [w for w in rest if "=" not in w]
        actor = plain[0] if plain else None
        action = plain[1] if len(plain) > 1 else None
        s.execute(
            Command(
                kind=kind,
                actor=actor,
                action=action,
                targets=tuple(plain[2:]),
                params={k: value(v) for k, v in params.items()},
            )
        )

    said = {
        refusal(lambda s: s.execute(parse_line(line, None, "gm", s.rules))),
        refusal(lambda s: s.execute(command_of({"kind": "line", "line": line}, (), s.rules, s.state))),
        refusal(as_python),
    }
    assert len(said) == 1, said
    text = said.pop()
    assert "\n" not in text
    assert says in text


def test_a_malformed_value_is_named_before_what_the_encounter_says_of_the_command():
    # the command's own fields are read (and refused) before the encounter is looked at: an
    # override of a malformed effect before the fight begins is refused for the effect
    s = ambush(begin=False)
    with pytest.raises(Refused, match="^override damage: target is missing"):
        s.execute(Command(kind="override", params={"reason": "x", "damage": {"amount": 3}}))
    with pytest.raises(Refused, match="^override: there is no outcome to override before the fight begins"):
        s.execute(Command(kind="override", params={"reason": "x", "damage": {"target": "g1", "amount": 3}}))


# --- reading is stable: what the log records reads back as the same Struct ---------------------------

_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from(["g1", "bo", "goblins", "level", "exact", "act", "queue", "now", "2d6", "", " x "]),
    st.lists(st.sampled_from(["g1", "bo", 5]), max_size=2),
    st.fixed_dictionaries(
        {"target": st.sampled_from(["g1", 5])}, optional={"amount": st.sampled_from([3, "2d6", "x"])}
    ),
)
_KEYS = st.sampled_from(
    ["id", "side", "name", "kind", "stats", "hidden", "text", "topic", "hp", "combatant", "odds", "seat", "combatants"]
    + ["revoke", "commands", "undo", "outcome", "winner", "value", "early", "seed", "reason", "damage", "move", "at"]
)


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from([*KINDS, "recover"]),
    st.dictionaries(_KEYS, _VALUES, max_size=4),
    st.sampled_from([None, "bo", ""]),
)
def test_a_command_that_reads_is_recorded_as_one_that_reads_back_the_same(kind, params, actor):
    try:
        typed = read(Command(kind=kind, actor=actor, params=params))
    except Refused as exc:
        assert "\n" not in str(exc)
        return
    assert read(recorded(typed)) == typed


@pytest.mark.parametrize(
    ("form", "says"),
    [
        ({"kind": "line", "line": BAD[0][0]}, BAD[0][1]),
        ({"kind": "line", "line": "note"}, "note: the note is empty"),
        ({"kind": "view", "side": "goblins", "hp": "secret"}, "view hp='secret': not a way to show health"),
        ({"kind": "seat", "seat": "a!", "combatants": "g1"}, "seat 'a!': a seat's id is 1-32 letters"),
        ({"kind": "hurt", "amount": "2x6", "targets": "g1"}, "override damage: amount '2x6' is neither"),
        ({"kind": "seating", "commands": "later"}, "seating: say how the seats' commands are taken"),
    ],
)
def test_a_bad_command_on_the_web_is_a_422_with_its_one_line_and_appends_nothing(tmp_path, form, says):
    pytest.importorskip("litestar", reason="the web extra isn't installed")
    import html

    from litestar.testing import TestClient

    from combatlog.web.app import create_app
    from combatlog.web.tables import Tables
    from tests.test_web import new_log, post

    tables = Tables.single(str(new_log(tmp_path / "ford.db")), b"a test secret")
    table = tables.all()[0]
    with TestClient(create_app(tables)) as client:
        post(client, table, kind="begin")
        before = table.seq
        response = post(client, table, **form)
        assert response.status_code == 422
        assert says in html.unescape(response.text)
        assert table.seq == before
