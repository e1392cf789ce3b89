"""Encounter files: the commands a file sets up, and each way a file is refused, naming the file and the key."""

from __future__ import annotations

import pytest

from combatlog.engine.encounter_file import EncounterFileError, encounter_commands, read_encounter
from combatlog.events import Command

AYLA = {"id": "ayla", "name": "Ayla", "side": "party", "kind": "pc", "group": "crew", "stats": {"hp": 12}}
GOB = {"id": "g1", "side": "goblins"}


def minimal(**top):
    return {"rules": "skirmish", "combatants": [dict(AYLA), dict(GOB)], **top}


def refused(data, match):
    with pytest.raises(EncounterFileError, match=match) as caught:
        encounter_commands(data, "ambush.toml")
    assert str(caught.value).startswith("ambush.toml: ")
    return str(caught.value)


# --- what a file sets up ---------------------------------------------------------------------


def test_a_file_creates_the_encounter_adds_its_combatants_then_its_steps_then_the_surprise():
    data = minimal(
        title="A patrol",
        seed=7,
        options={"timing": "simultaneous"},
        surprise={"sides": ["goblins"]},
        commands=[
            {"kind": "note", "params": {"text": "dusk"}},
            {"kind": "act", "actor": "ayla", "action": "shoot", "targets": ["g1"]},
        ],
    )
    commands = encounter_commands(data, "ambush.toml")
    assert commands == [
        Command(
            kind="create",
            params={"rules": "skirmish", "options": {"timing": "simultaneous"}, "title": "A patrol", "seed": 7},
        ),
        Command(kind="add", params=AYLA),
        Command(kind="add", params=GOB),
        Command(kind="note", params={"text": "dusk"}),
        Command(kind="act", actor="ayla", action="shoot", targets=("g1",), params={}),
        Command(kind="surprise", params={"sides": ["goblins"]}),
    ]


def test_without_a_seed_no_seed_is_set_and_the_title_is_empty():
    create = encounter_commands(minimal())[0]
    assert create.params == {"rules": "skirmish", "options": {}, "title": ""}


@pytest.mark.parametrize(("in_file", "given", "chosen"), [(7, None, 7), (7, 11, 11), (None, 11, 11), (7, 0, 0)])
def test_a_seed_given_when_reading_wins_over_the_files(in_file, given, chosen):
    data = minimal() if in_file is None else minimal(seed=in_file)
    assert encounter_commands(data, seed=given)[0].params["seed"] == chosen


def test_a_seed_of_0_in_the_file_is_a_seed():
    assert encounter_commands(minimal(seed=0))[0].params["seed"] == 0


def test_a_battle_map_becomes_the_option_map_beside_the_others():
    battle_map = {"sections": [{"id": "hall"}], "borders": []}
    create = encounter_commands(minimal(options={"timing": "turn"}, map=battle_map))[0]
    assert create.params["options"] == {"timing": "turn", "map": battle_map}


def test_what_the_file_gives_is_copied_not_shared_with_the_commands():
    step = {"kind": "note", "params": {"text": "dusk"}}
    data = minimal(commands=[step])
    commands = encounter_commands(data)
    step["params"]["extra"] = 1
    data["combatants"][0]["name"] = "Someone else"
    assert commands[-1].params == {"text": "dusk"}
    assert commands[1].params["name"] == "Ayla"


def test_a_file_is_read_as_toml_and_named_in_its_errors(tmp_path):
    path = tmp_path / "patrol.toml"
    path.write_text('rules = "skirmish"\nseed = 3\n[[combatants]]\nid = "ayla"\nside = "party"\n', encoding="utf-8")
    assert [c.kind for c in read_encounter(path)] == ["create", "add"]
    assert read_encounter(path, seed=9)[0].params["seed"] == 9
    path.write_text('rules = "skirmish"\n', encoding="utf-8")
    with pytest.raises(EncounterFileError, match=f"^{path}: combatants: missing"):
        read_encounter(path)


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (None, "no such file"),
        (b"rules = ", "not valid TOML"),
        (b'rules = "\xff"', "not UTF-8 text"),
        (b"seed = " + b"9" * 5000, "a number in it has more than 4,300 digits"),
        (b"a = " + b"[" * 5000 + b"]" * 5000, r"not an encounter file \(arrays or tables nested too deep\)"),
    ],
    ids=["missing", "not-toml", "not-utf8", "long-number", "nested"],
)
def test_a_file_that_cant_be_read_is_refused_in_one_line(tmp_path, content, says):
    path = tmp_path / "bad.toml"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(EncounterFileError, match=f"^{path}: ({says})"):
        read_encounter(path)


# --- each refusal, on its own ------------------------------------------------------------


def test_an_unknown_top_level_key_is_refused_listing_the_keys():
    message = refused(minimal(monsters=[]), "monsters: unknown key; use ")
    assert message.endswith("use combatants, commands, fair, map, options, rules, seed, surprise, title")


@pytest.mark.parametrize("rules", [None, "", 3])
def test_a_file_without_a_rule_system_is_refused(rules):
    data = minimal()
    if rules is None:
        del data["rules"]
    else:
        data["rules"] = rules
    refused(data, "rules: missing; name a rule system")


@pytest.mark.parametrize("seed", ["7", 1.5, True])
def test_a_seed_that_isnt_a_whole_number_is_refused(seed):
    refused(minimal(seed=seed), "seed: .* is not a whole number")


def test_options_must_be_a_table():
    refused(minimal(options=["timing"]), "options: must be a table")


def test_a_map_must_be_a_table_and_given_once():
    refused(minimal(map=["hall"]), r"map: must be a table with \[\[map.sections\]\]")
    refused(minimal(map={"sections": []}, options={"map": {}}), "options.map: the map is given twice")


@pytest.mark.parametrize("combatants", [None, [], {"id": "ayla"}])
def test_a_file_without_combatants_is_refused(combatants):
    data = minimal(combatants=combatants)
    if combatants is None:
        del data["combatants"]
    refused(data, r"combatants: missing; add \[\[combatants\]\] tables")


def test_each_combatant_must_be_a_table_of_known_keys():
    refused(minimal(combatants=[AYLA, "g1"]), r"combatants\[1\]: must be a table")
    refused(minimal(combatants=[AYLA, {**GOB, "hp": 7}]), r"combatants\[1\]\.hp: unknown key; use ")


@pytest.mark.parametrize("key", ["id", "side"])
@pytest.mark.parametrize("given", [None, "", 5])
def test_a_combatant_needs_its_id_and_side_as_text(key, given):
    c = dict(GOB)
    if given is None:
        del c[key]
    else:
        c[key] = given
    refused(minimal(combatants=[AYLA, c]), rf"combatants\[1\]\.{key}: missing or not text")


def test_a_combatants_stats_must_be_a_table():
    refused(minimal(combatants=[{**GOB, "stats": [7]}]), r"combatants\[0\]\.stats: must be a table")


def test_steps_must_be_a_list_of_tables_of_known_keys():
    refused(minimal(commands={"kind": "note"}), r"commands: must be a list of \[\[commands\]\] tables")
    refused(minimal(commands=[{"kind": "note"}, "begin"]), r"commands\[1\]: must be a table")
    refused(minimal(commands=[{"kind": "note", "by": "gm"}]), r"commands\[0\]\.by: unknown key; use ")


@pytest.mark.parametrize("step", [{}, {"kind": ""}, {"kind": 3}])
def test_a_step_needs_its_kind_as_text(step):
    refused(minimal(commands=[{"kind": "note"}, step]), r"commands\[1\]\.kind: missing or not text")


def test_a_step_cant_create_the_encounter_again():
    refused(minimal(commands=[{"kind": "create"}]), r"commands\[0\]\.kind: the file itself creates the encounter")


def test_a_steps_params_must_be_a_table_and_its_targets_a_list_of_ids():
    refused(minimal(commands=[{"kind": "note", "params": "dusk"}]), r"commands\[0\]\.params: must be a table")
    for targets in ("g1", ["g1", 2]):
        step = {"kind": "act", "actor": "ayla", "action": "shoot", "targets": targets}
        refused(minimal(commands=[step]), r"commands\[0\]\.targets: must be a list of ids")


@pytest.mark.parametrize("surprise", [["goblins"], {}, {"sides": "goblins"}])
def test_a_surprise_must_list_the_sides_surprised(surprise):
    refused(minimal(surprise=surprise), "surprise.sides: give a list of the sides surprised")


def test_a_number_past_pythons_digit_limit_is_refused_quoting_40_characters_of_why(tmp_path):
    path = tmp_path / "long.toml"
    path.write_bytes(b"seed = " + b"9" * 5000)
    with pytest.raises(EncounterFileError) as err:
        read_encounter(path)
    why = str(err.value).split("more than 4,300 digits (", 1)[1]
    assert why.endswith("...)") and len(why) == 40 + len("...)")
