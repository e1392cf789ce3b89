"""The command grammar of `do`, `play` and the web tracker: words, KEY=VALUE parameters, typed dice."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from combatlog.engine import Refused, registry
from combatlog.engine.commands import Act, Begin, End, Note, Remove, Ruling, Surprise
from combatlog.engine.grammar import (
    UsageError,
    build_command,
    parse_line,
    typed_faces,
    typed_roll,
    typed_rolls,
    value,
)

# --- values ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "read"),
    [("3", 3), ("true", True), ("[1, 2]", [1, 2]), ('{"x": 1}', {"x": 1}), ("axe", "axe"), ("1d6", "1d6")],
)
def test_a_value_is_json_when_it_parses_else_the_text(text, read):
    assert value(text) == read


def test_a_value_json_cant_hold_is_kept_as_text():
    assert value("9" * 5000) == "9" * 5000  # past Python's digit limit
    deep = "[" * 100_000 + "]" * 100_000
    assert value(deep) == deep  # nested too deep


# --- commands ----------------------------------------------------------------------------------


def test_act_takes_the_actor_the_action_and_any_targets():
    assert build_command("act", ("ayla", "strike", "g1", "g2"), (), None, "gm") == Act(
        actor="ayla", action="strike", targets=("g1", "g2"), by="gm"
    )
    assert build_command("act", ("ayla", "dodge"), (), None, "gm").targets == ()


@pytest.mark.parametrize("words", [(), ("ayla",)])
def test_act_without_an_actor_and_an_action_is_refused(words):
    with pytest.raises(UsageError, match=r"act needs ACTOR ACTION \[TARGET...\]"):
        build_command("act", words, (), None, "gm")


def test_parameters_are_key_value_pairs_split_at_the_first_equals_sign():
    command = build_command("act", ("ayla", "shoot"), ["range=12", "note=a=b", "aimed=true"], None, "gm")
    assert command.params == {"range": 12, "note": "a=b", "aimed": True}


def test_a_parameter_without_an_equals_sign_is_refused():
    with pytest.raises(UsageError, match=r"--param 'range': use KEY=VALUE"):
        build_command("begin", (), ["range"], None, "gm")


@pytest.mark.parametrize("kind", ["end_turn", "remove"])
def test_end_turn_and_remove_take_an_optional_actor(kind):
    assert build_command(kind, ("bo",), (), None, "gm").actor == "bo"
    assert build_command(kind, (), (), None, "gm").actor is None
    assert build_command("remove", ("bo",), ["reason=fled"], None, "gm") == Remove(actor="bo", reason="fled")
    with pytest.raises(UsageError, match=f"{kind} takes one ACTOR; left over: ayla"):
        build_command(kind, ("bo", "ayla"), (), None, "gm")  # not silently bo's alone


def test_surprise_takes_the_sides_note_its_text_and_end_its_outcome():
    assert build_command("surprise", ("goblins", "wolves"), (), None, "gm") == Surprise(sides=("goblins", "wolves"))
    assert build_command("note", ("the", "bridge", "holds"), (), None, "gm") == Note(text="the bridge holds")
    assert build_command("end", ("truce", "agreed"), (), None, "gm") == End(outcome="truce agreed")
    assert build_command("end", (), (), None, "gm") == End()


def test_words_dont_override_parameters_given_by_name():
    assert build_command("note", ("words",), ["text=named"], None, "gm") == Note(text="named")
    assert build_command("end", ("words",), ["outcome=named"], None, "gm") == End(outcome="named")


def test_a_ruling_takes_a_topic_then_a_decision_read_as_a_value():
    assert build_command("ruling", ("cover",), (), None, "gm") == Ruling(topic="cover")
    assert build_command("ruling", ("cover", "2"), (), None, "gm") == Ruling(topic="cover", decision=2)
    assert build_command("ruling", ("cover", "half", "cover"), (), None, "gm").decision == "half cover"


def test_a_ruling_without_a_topic_is_refused_when_the_line_is_read():
    with pytest.raises(Refused, match="^ruling: a ruling needs a topic; give params topic and decision$"):
        build_command("ruling", (), (), None, "gm")


def test_a_command_that_takes_no_words_refuses_them():
    with pytest.raises(UsageError, match="begin takes no words: now please"):
        build_command("begin", ("now", "please"), (), None, "gm")
    assert build_command("begin", (), (), None, "gm") == Begin()


def test_entered_dice_are_carried_and_who_they_are_for_only_when_named():
    entered = ((7, 9), (4,))
    command = build_command("begin", (), (), entered, "gm", entered_for=("ayla", ""))
    assert command.entered == entered and command.entered_for == ("ayla", "")
    assert build_command("begin", (), (), entered, "gm", entered_for=("", "")).entered_for is None
    assert build_command("begin", (), (), entered, "gm", entered_for=()).entered_for is None
    assert build_command("begin", (), (), None, "gm", entered_for=("ayla",)).entered_for is None


# --- a rule system's own commands --------------------------------------------------------------


def test_a_rule_systems_command_takes_the_words_it_names():
    realms = registry.get("infinite-realms")
    assert build_command("distance", ("ayla", "g1", "30"), (), None, "gm", realms).params == {
        "a": "ayla",
        "b": "g1",
        "yards": 30,
    }
    assert build_command("distance", ("ayla",), (), None, "gm", realms).params == {"a": "ayla"}
    engage = build_command("engage", ("ayla", "g1", "3"), (), None, "gm", realms)
    assert engage.params == {"combatants": ["ayla", "g1", 3]}
    defend = build_command("defend", ("ayla", "2"), (), None, "gm", realms)
    assert (defend.actor, defend.params) == ("ayla", {"ap": 2})


def test_a_rule_systems_text_word_takes_the_rest_of_the_line():
    triptycho = registry.get("triptycho")
    command = build_command("acrobatics", ("ayla", "over", "the", "table"), (), None, "gm", triptycho)
    assert (command.actor, command.params) == ("ayla", {"reason": "over the table"})


def test_a_rule_systems_command_refuses_words_left_over_showing_its_shape():
    realms = registry.get("infinite-realms")
    with pytest.raises(UsageError, match="distance takes A B YARDS; left over: 4 5"):
        build_command("distance", ("ayla", "g1", "30", "4", "5"), (), None, "gm", realms)
    with pytest.raises(UsageError, match="defend takes ACTOR AP; left over: x"):
        build_command("defend", ("ayla", "2", "x"), (), None, "gm", realms)


def test_a_rule_systems_command_unknown_to_another_system_takes_no_words():
    with pytest.raises(UsageError, match="distance takes no words"):
        build_command("distance", ("a", "b"), (), None, "gm", registry.get("triptycho"))


# --- a line of `play` --------------------------------------------------------------------------


def test_a_line_is_shell_words_with_key_value_ones_as_parameters():
    command = parse_line("act bo 'strike hard' g1 weapon=axe", None, "bo")
    assert command == Act(actor="bo", action="strike hard", targets=("g1",), params={"weapon": "axe"}, by="bo")


def test_an_empty_or_unreadable_line_is_refused():
    with pytest.raises(UsageError, match="an empty command"):
        parse_line("   ", None, "gm")
    with pytest.raises(UsageError, match="can't read that line: No closing quotation"):
        parse_line("note 'open", None, "gm")


# --- typed dice --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("entry", "faces"),
    [
        ("2d10: 7 9", (7, 9)),
        ("7 9", (7, 9)),
        ("7,9", (7, 9)),
        ("1d20+4: 17", (17,)),
        ("1d8+2d6: 5 2 6", (5, 2, 6)),
        ("2d10: 1 10", (1, 10)),  # each end of the die
        ("2d10z: 0 9", (0, 9)),
    ],
)
def test_typed_faces_are_read_with_or_without_their_dice(entry, faces):
    assert typed_faces(entry) == faces


def test_typed_roll_names_the_dice_as_parsed_or_nothing_for_bare_faces():
    assert typed_roll(" 2D10 : 7 9") == ("2d10", (7, 9))
    assert typed_roll("7 9") == ("", (7, 9))


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        ("2d10 7 9", "put a colon after the dice: '2d10: 7 9'"),
        ("d% 42", "put a colon after the dice: 'd%: 42'"),
        ("2d10: seven", "give the faces as numbers"),
        ("2d10:", "give the faces as numbers"),
        ("", "give the faces as numbers"),
        ("1234567", "give the faces as numbers"),
        ("2d10: 7 \u0669", "give the faces as numbers"),
        ("1d6: 4: 5", "give the faces as numbers"),
        ("2d10: 7", "2d10 is 2 dice; give 2 faces"),
        ("2d10: 7 9 3", "2d10 is 2 dice; give 2 faces"),
        ("2d10: 0 11", "0, 11 can't show on a d10 \\(faces 1-10\\)"),
        ("2d10z: 0 10", "10 can't show on a d10 \\(faces 0-9\\)"),
        ("1d8+2d6: 5 2", "rolls more dice than the 2 face"),
        ("1d8+2d6: 5 2 7", "7 can't come up on a d6"),
        ("2x10: 7", "can't read dice expression"),
    ],
)
def test_typed_faces_that_dont_fit_are_refused_saying_what_is_accepted(entry, says):
    with pytest.raises(ValueError, match=says):
        typed_faces(entry)


def test_six_digit_faces_are_read_and_a_long_entry_is_quoted_cut_short():
    assert typed_faces("1d1000000: 999999") == (999999,)
    entry = "1d6: " + "x" * 60
    with pytest.raises(ValueError) as err:
        typed_faces(entry)
    assert str(err.value).startswith(repr(entry[:37] + "...") + ": give the faces")
    exact = "1d6: " + "x" * 35
    with pytest.raises(ValueError) as err:
        typed_faces(exact)
    assert str(err.value).startswith(repr(exact) + ": give the faces")
    one_more = exact + "x"
    with pytest.raises(ValueError) as err:
        typed_faces(one_more)
    assert str(err.value).startswith(repr(one_more[:37] + "...") + ": give the faces")


def test_several_rolls_are_typed_one_a_line_or_separated_by_semicolons():
    assert typed_rolls("2d10: 7 9; 1d6: 4\n 3 ;") == (((7, 9), (4,), (3,)), ("2d10", "1d6", ""))
    assert typed_rolls(" ; \n ") == (None, None)


def test_a_typed_formula_whose_faces_dont_fit_is_refused_quoting_the_entry():
    with pytest.raises(ValueError) as err:
        typed_faces("1d8+2d6: 5 2")
    assert str(err.value).startswith("'1d8+2d6: 5 2': 1d8+2d6 rolls more dice than the 2 face(s) given")


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet=" \t\n\r\x0b\u00a0'\"\\ab=#$", max_size=24))
def test_a_line_splits_into_the_words_a_posix_shell_reads(line):
    import shlex

    from combatlog.engine.grammar import split_words

    try:
        expected = shlex.split(line)
    except ValueError:
        expected = None
    try:
        got = split_words(line)
    except UsageError:
        got = None
    assert got == expected


def test_a_command_line_past_the_cap_is_refused_in_one_line():
    from combatlog.engine.grammar import MAX_LINE, split_words

    with pytest.raises(UsageError, match=f"at most {MAX_LINE:,} characters; this one has 1,000,000"):
        split_words("x" * 1_000_000)
    assert len(split_words('a "b c" ' * (MAX_LINE // 8))) == MAX_LINE // 8 * 2


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ("note the ford=deep here", Note(text="the ford=deep here")),
        ("end truce: terms=agreed", End(outcome="truce: terms=agreed")),
        ("ruling cover half=yes", Ruling(topic="cover", decision="half=yes")),
        ("end truce winner=party", End(outcome="truce", winner="party")),
        ("ruling cover 2 text=why", Ruling(topic="cover", decision=2, text="why")),
    ],
)
def test_a_play_line_keeps_a_texts_words_with_an_equals_sign_in_the_text(line, command):
    # a note's, an outcome's or a ruling's words are its text, none taken as a parameter and
    # lost, but a word naming one of the command's own fields (winner=, text=)
    assert parse_line(line, None, "gm") == command
