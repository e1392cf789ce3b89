"""Encounter files (TOML): the commands that set up an encounter, read from a file.

    title = "A patrol on Arth"
    rules = "starflight"
    seed = 7                      # optional: without one, every die is entered by hand
    fair = true                   # optional: fair dice (a commitment in the log, the seed kept
                                  # secret; "end": revealed as the fight ends); a seed is then unused

    [options]                     # the rule system's options (see `combatlog rulesets`)
    timing = "turn"

    [surprise]                    # optional: the game master's ruling
    sides = ["patrol"]

    [[combatants]]
    id = "ayla"
    name = "Ayla"
    side = "party"
    kind = "pc"                   # pc or npc (default npc)
    group = "crew"                # optional
    [combatants.stats]
    hp = 12

    [[commands]]                  # optional: more set-up steps, in order, after the combatants
    kind = "place"                # any command the rule system knows (see `combatlog rulesets`)
    actor = "ayla"
    params = { x = 0, y = 0 }

A bad file raises EncounterFileError naming the file and the key.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from combatlog.events import Command

_TOP = {"title", "rules", "seed", "fair", "options", "map", "surprise", "combatants", "commands"}
_STEP = {"kind", "actor", "action", "targets", "params"}
_COMBATANT = {"id", "name", "side", "kind", "group", "stats", "hidden", "reveal"}


class EncounterFileError(ValueError):
    """An encounter file can't be used; the message names the file and the key."""


def read_encounter(path: str | Path, seed: int | None = None) -> list[Command]:
    """The commands that create the encounter in `path` (a `seed` given here wins over the file's).

    Raises EncounterFileError naming the file and the offending key.
    """
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise EncounterFileError(f"{path}: no such file") from None
    except tomllib.TOMLDecodeError as exc:
        raise EncounterFileError(f"{path}: not valid TOML ({exc})") from None
    except UnicodeDecodeError:
        raise EncounterFileError(f"{path}: not UTF-8 text") from None
    except ValueError as exc:  # an integer past Python's 4,300-digit limit
        raise EncounterFileError(f"{path}: a number in it has more than 4,300 digits ({str(exc)[:40]}...)") from None
    except RecursionError:
        raise EncounterFileError(f"{path}: not an encounter file (arrays or tables nested too deep)") from None
    return encounter_commands(data, str(path), seed)


def encounter_commands(data: dict[str, Any], name: str = "<encounter>", seed: int | None = None) -> list[Command]:
    """The commands that create the encounter described by `data` (a parsed encounter file)."""

    def bad(key: str, why: str) -> EncounterFileError:
        return EncounterFileError(f"{name}: {key}: {why}")

    for key in data:
        if key not in _TOP:
            raise bad(key, f"unknown key; use {', '.join(sorted(_TOP))}")
    rules = data.get("rules")
    if not isinstance(rules, str) or not rules:
        raise bad("rules", 'missing; name a rule system, e.g. rules = "starflight"')
    file_seed = data.get("seed")
    if file_seed is not None and (not isinstance(file_seed, int) or isinstance(file_seed, bool)):
        raise bad("seed", f"{file_seed!r} is not a whole number")
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise bad("options", "must be a table")
    battle_map = data.get("map")
    if battle_map is not None:  # a battle map of sections (`combatlog.engine.battlemap`), kept as the option `map`
        if not isinstance(battle_map, dict):
            raise bad("map", "must be a table with [[map.sections]] and [[map.borders]]")
        if "map" in options:
            raise bad("options.map", "the map is given twice; keep the [map] table")
        options = {**options, "map": battle_map}
    params: dict[str, Any] = {"rules": rules, "options": options, "title": str(data.get("title", ""))}
    chosen = seed if seed is not None else file_seed
    fair = data.get("fair", False)
    if not isinstance(fair, bool) and fair != "end":
        raise bad(
            "fair", f'{fair!r}: true (fair dice, revealed by `combatlog reveal`), "end" (revealed as it ends) or false'
        )
    if fair is not False:  # the seed is the session's secret: the file's (or --seed's) is left out
        params["fair"] = fair
    elif chosen is not None:
        params["seed"] = chosen
    commands = [Command(kind="create", params=params)]
    combatants = data.get("combatants")
    if not isinstance(combatants, list) or not combatants:
        raise bad("combatants", "missing; add [[combatants]] tables")
    for i, c in enumerate(combatants):
        where = f"combatants[{i}]"
        if not isinstance(c, dict):
            raise bad(where, "must be a table")
        for key in c:
            if key not in _COMBATANT:
                raise bad(f"{where}.{key}", f"unknown key; use {', '.join(sorted(_COMBATANT))}")
        for key in ("id", "side"):
            if not isinstance(c.get(key), str) or not c.get(key):
                raise bad(f"{where}.{key}", "missing or not text")
        stats = c.get("stats", {})
        if not isinstance(stats, dict):
            raise bad(f"{where}.stats", "must be a table")
        if "hidden" in c and not isinstance(c["hidden"], bool):
            raise bad(f"{where}.hidden", "true (hidden from the players from the start) or false")
        if "reveal" in c and (c["reveal"] != "act" or c.get("hidden") is not True):
            raise bad(f"{where}.reveal", '"act" (its own first action shows it), with hidden = true')
        commands.append(Command(kind="add", params={k: v for k, v in c.items()}))
    steps = data.get("commands", [])
    if not isinstance(steps, list):
        raise bad("commands", "must be a list of [[commands]] tables")
    for i, c in enumerate(steps):
        where = f"commands[{i}]"
        if not isinstance(c, dict):
            raise bad(where, "must be a table")
        for key in c:
            if key not in _STEP:
                raise bad(f"{where}.{key}", f"unknown key; use {', '.join(sorted(_STEP))}")
        if not isinstance(c.get("kind"), str) or not c.get("kind"):
            raise bad(f"{where}.kind", "missing or not text")
        if c.get("kind") == "create":
            raise bad(f"{where}.kind", "the file itself creates the encounter")
        if not isinstance(c.get("params", {}), dict):
            raise bad(f"{where}.params", "must be a table")
        targets = c.get("targets", [])
        if not isinstance(targets, list) or not all(isinstance(t, str) for t in targets):
            raise bad(f"{where}.targets", "must be a list of ids")
        commands.append(
            Command(
                kind=c["kind"],
                actor=c.get("actor"),
                action=c.get("action"),
                targets=tuple(targets),
                params=dict(c.get("params", {})),
            )
        )
    surprise = data.get("surprise")
    if surprise is not None:
        if not isinstance(surprise, dict) or not isinstance(surprise.get("sides"), list):
            raise bad("surprise.sides", "give a list of the sides surprised")
        commands.append(Command(kind="surprise", params={"sides": list(surprise["sides"])}))
    return commands
