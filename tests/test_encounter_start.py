"""Starting an encounter from its file's commands: a bad command is named by where it is in the
file (the rules, the options, the n-th combatant, another command), nothing is written then,
and a log that already holds events is refused.

Each test here fails against a mutant of `replays/encounters.py` that the rest of the suite let
through (docs/mutation.md).
"""

from __future__ import annotations

import pytest

from combatlog.engine import Refused
from combatlog.engine.encounter_file import EncounterFileError
from combatlog.events import Command
from combatlog.replays import MemoryLog
from combatlog.replays.encounters import check_commands, start
from tests.builders import PARTY


def commands(*, options=None, rules="skirmish", bad: int | None = None, then=()) -> list[Command]:
    out = [Command(kind="create", params={"rules": rules, "options": options or {}, "seed": 7})]
    for n, c in enumerate(PARTY):
        if n == bad:
            c = {**c, "stats": {**c["stats"], "hp": "ten"}}
        out.append(Command(kind="add", params=c))
    return out + [Command(kind=kind) for kind in then]


@pytest.mark.parametrize("bad", [0, 2, 3])
def test_a_bad_combatant_is_named_by_its_place_among_the_combatants(bad):
    with pytest.raises(EncounterFileError) as error:
        check_commands(commands(bad=bad, then=["begin"]), "ambush.toml")
    assert str(error.value).startswith(f"ambush.toml: combatants[{bad}] ({PARTY[bad]['id']}): ")


def test_bad_rules_bad_options_and_another_bad_command_are_each_named():
    with pytest.raises(EncounterFileError, match=r"^ambush\.toml: rules: create: no rule system 'nosuch'"):
        check_commands(commands(rules="nosuch"), "ambush.toml")
    with pytest.raises(EncounterFileError, match=r"^ambush\.toml: options: option order='bogus'"):
        check_commands(commands(options={"order": "bogus"}), "ambush.toml")
    with pytest.raises(EncounterFileError, match=r"^ambush\.toml: a act command: act: "):
        check_commands(commands(then=["begin", "act"]), "ambush.toml")


def test_a_good_file_is_written_whole_and_a_bad_one_not_at_all():
    log = MemoryLog()
    with pytest.raises(EncounterFileError):
        start(commands(bad=3), log, "ambush.toml")
    assert log.head() == (0, None)
    session = start(commands(then=["begin"]), log, "ambush.toml")
    assert session.log is log and session.state.phase != "setup" and len(session.state.combatants) == 4


def test_a_log_that_already_holds_events_is_refused_and_left_as_it_was():
    log = MemoryLog()
    start(commands(), log, "ambush.toml")
    before = list(log.lines())
    with pytest.raises(Refused, match="the log already holds events"):
        start(commands(), log, "ambush.toml")
    assert list(log.lines()) == before


def test_a_log_of_a_single_line_is_refused_too():
    log = MemoryLog()
    start(commands(), log, "ambush.toml")
    single = MemoryLog()
    single._lines = list(log.lines())[:1]
    with pytest.raises(Refused, match="the log already holds events"):
        start(commands(), single, "ambush.toml")
    assert single.head()[0] == 1
