"""Starting an encounter from its file's commands on a new log, all or nothing."""

from __future__ import annotations

from combatlog.engine import Refused, Session
from combatlog.engine.dice import DiceError
from combatlog.engine.encounter_file import EncounterFileError
from combatlog.events import Command, EventLog
from combatlog.replays.stores import MemoryLog


def check_commands(commands: list[Command], name: str) -> None:
    """Decide an encounter file's `commands` on a log in memory; raises EncounterFileError naming
    the file and where (`combatants[2] (g2): ...`), so a bad file leaves no log behind."""
    trial = Session(MemoryLog(), signer=None)  # a trial run, thrown away: nothing to sign
    added = 0
    for command in commands:
        try:
            trial.execute(command)
        except (Refused, DiceError) as exc:
            if command.kind == "add":
                where = f"combatants[{added}] ({command.params.get('id')})"
            elif command.kind == "create":
                where = "options" if "option" in str(exc) else "rules"
            else:
                where = f"a {command.kind} command"
            raise EncounterFileError(f"{name}: {where}: {exc}") from None
        added += command.kind == "add"


def start(commands: list[Command], log: EventLog, name: str) -> Session:
    """The encounter `commands` set up, written to the empty `log` once they have all been
    decided in memory; raises EncounterFileError (nothing written) or Refused if `log` holds events."""
    check_commands(commands, name)
    if log.head()[0] > 0:
        raise Refused(name, "the log already holds events", "start it on a new log")
    session = Session(log)
    for command in commands:
        session.execute(command)
    return session
