"""A fingerprint of what the engine decides: every event of many seeded fights of each bundled
encounter (and of option variants), hashed.

Work on the decide path's speed must not change a single event: the same seed and commands
give the same log, byte for byte. Run this before and after a change and compare:

    python tools/fingerprint.py --runs 200 > before.txt
    ... change ...
    python tools/fingerprint.py --runs 200 | diff before.txt -

A change to a rule that is gated by a rules version (`RuleSystem.since`) changes the
fingerprint of new fights, which are recorded under the new version; `--pin SYSTEM=V`
records them under an older one instead, so the fights a log of that version holds can be
compared with the fingerprint taken before the change:

    python tools/fingerprint.py --runs 40 --mixed 40 > before.txt     # straalara is at "2"
    ... a rule gated by since(state, 3); straalara's version becomes "3" ...
    python tools/fingerprint.py --runs 40 --mixed 40 --pin straalara=2 | diff before.txt -

Each line is an encounter (with its variant's options), the events its runs produced, and a
SHA-256 of them all, encoded as the log encodes them.

`--mixed N` adds N fights of each in which a quarter of the steps are random commands instead
of the policy's: game-master overrides (damage, conditions lasting until a turn, defeat,
moves, resources), actions with random targets and parameters (most of them refused), entered
dice, ends of turn, removals and notes. Their events and every refusal's text are hashed
too: the paths automatic fights never take.
"""

from __future__ import annotations

import argparse
import hashlib
import random
from pathlib import Path
from typing import Any

import msgspec

from combatlog.engine.encounter_file import read_encounter
from combatlog.engine.errors import Refused
from combatlog.engine.lean import LeanSession
from combatlog.engine.registry import get as get_rules
from combatlog.events import Command
from combatlog.simulate.run import MAX_STEPS, run_seed, with_seed

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

# option variants of each bundled encounter, so paths its defaults don't take are covered too
VARIANTS: dict[str, list[dict[str, Any]]] = {
    "starflight": [
        {},
        {"timing": "simultaneous"},
        {"timing": "mixed"},
        {"grid": "abstract"},
        {"grid": "physical", "timing": "simultaneous"},
        {"grid": "physical", "timing": "mixed"},
        {"method": "simple"},
        {"group_initiative": True},
        {"victory": "ruling"},
    ],
    "infinite-realms": [
        {},
        {"critical_miss": "attacks", "defense_changes": "literal"},
        {"start_distance": 0, "light": "night"},
    ],
    "skirmish": [
        {},
        {"order": "action-points"},
        {"order": "reverse", "timing": "simultaneous"},
        {"timing": "mixed", "initiative_every_round": True},
        {"ties": "simultaneous", "group_initiative": True},
    ],
    "straalara": [{}, {"passes": "interleaved", "dazed": "no_effect"}, {"incapacitated": "die", "difficulty": 7}],
    "swords-of-infinity": [{}, {"failed_initiative": "roll", "vital_destroyed": "ruling"}],
    "triptycho": [{}, {"order": "rolled", "hindered": "both"}, {"order": "listed", "starting_hand": 0}],
}


def fingerprint(path: Path, options: dict[str, Any], runs: int) -> tuple[int, str]:
    """(events, sha256) of `runs` fights of the encounter at `path` with `options` laid over its own."""
    digest = hashlib.sha256()
    encode = msgspec.json.Encoder().encode
    count = 0

    def seen(events: list[Any]) -> None:
        nonlocal count
        count += len(events)
        for event in events:
            digest.update(encode(event))
            digest.update(b"\n")

    commands = read_encounter(path)
    for run in range(runs):
        session = LeanSession(on_events=seen)
        for command in with_seed(commands, run_seed(1, run), options):
            session.execute(command)
        if session.state.phase in ("setup", "surprise"):
            session.execute(Command(kind="begin"))
        session.play_out(max_steps=MAX_STEPS)
        digest.update(f"end {session.state.outcome} {session.state.winner}\n".encode())
    return count, digest.hexdigest()


CONDITIONS = ("prone", "stunned", "near death", "unconscious", "dazed", "vulnerable", "hindered", "wounded 25%", "x")
RESOURCES = ("actions", "minor", "ap", "mp", "x")


def _random_params(rng: random.Random, state: Any) -> dict[str, Any]:
    """Up to three parameters an action may take, with values good and bad."""
    ids = sorted(state.combatants)
    weapons = sorted(
        {
            str(w["name"])
            for c in state.combatants.values()
            for w in c.given_stats.get("weapons", ()) or ()
            if "name" in w
        }
    )
    cards = sorted({str(d["name"]) for c in state.combatants.values() for d in c.given_stats.get("deck", ()) or ()})
    vocabulary: dict[str, list[Any]] = {
        "weapon": [*weapons, "nope", 3],
        "range_from": ["own", "theirs", "x"],
        "x": [0, 1, 5],
        "y": [0, 3],
        "toward": ids,
        "defense": ["none", "block", "dodge", "parry", "foo"],
        "stance": ["offense", "partial", "defense", "x"],
        "technique": ["pin", "disarm", "trip", "knockback", "x"],
        "card": [*cards, "nope"],
        "ap": [0, 1, 2],
        "modifier": [2, -3],
    }
    keys = rng.sample(sorted(vocabulary), rng.randint(0, 3))
    return {k: rng.choice(vocabulary[k]) for k in keys if vocabulary[k]}


def _random_command(rng: random.Random, state: Any, rules: Any) -> Command:
    """A command a game master or a player might give now, often one the engine refuses."""
    ids = sorted(state.combatants)
    r = rng.random()
    if r < 0.35 and state.acting:
        actor = state.combatants[rng.choice(list(state.acting) if rng.random() < 0.9 else ids)]
        names = [spec.name for spec in rules.actions(state, actor)] + ["bogus"]
        entered = None
        if rng.random() < 0.15:  # typed dice, often the wrong ones
            entered = tuple(
                tuple(rng.randint(0, 21) for _ in range(rng.randint(1, 2))) for _ in range(rng.randint(1, 2))
            )
        return Command(
            kind="act",
            actor=actor.id,
            action=rng.choice(names),
            targets=tuple(rng.sample(ids, rng.randint(0, min(2, len(ids))))),
            params=_random_params(rng, state),
            entered=entered,
        )
    if r < 0.75:
        effect = rng.choice(["damage", "condition", "remove_condition", "defeat", "resources"])
        target = rng.choice(ids)
        value: dict[str, Any] = {"target": target}
        if effect == "damage":
            value.update(amount=rng.randint(-3, 12), location=rng.choice([None, "torso", "head"]))
        elif effect in ("condition", "remove_condition"):
            value["name"] = rng.choice(CONDITIONS)
            if effect == "condition":
                value.update(
                    duration=rng.choice([None, 1, 2]),
                    ends=rng.choice([None, None, "bearer_turn", "source_turn"]),
                    source=rng.choice(ids),
                )
        elif effect == "resources":
            value["values"] = {k: rng.randint(0, 3) for k in rng.sample(RESOURCES, 2)}
        return Command(kind="override", params={"reason": "fingerprint", effect: value})
    if r < 0.85:
        return Command(kind="end_turn", actor=rng.choice(list(state.acting) + ids) if state.acting else None)
    if r < 0.9:
        return Command(kind="remove", actor=rng.choice(ids))
    return Command(kind="note", params={"text": "n"})


def mixed(path: Path, options: dict[str, Any], runs: int) -> tuple[int, str]:
    """(steps, sha256) of `runs` fights in which a quarter of the steps are random commands:
    every step's events or refusal, hashed."""
    digest = hashlib.sha256()
    encode = msgspec.json.Encoder().encode
    steps = 0
    commands = read_encounter(path)
    for run in range(runs):
        rng = random.Random(run)  # the fight's own: the same commands every time
        session = LeanSession()
        for command in with_seed(commands, run_seed(7, run), options):
            session.execute(command)
        if session.state.phase in ("setup", "surprise"):
            session.execute(Command(kind="begin"))
        rules = session.rules
        for _ in range(400):
            if session.state.phase == "end":
                break
            command = _random_command(rng, session.state, rules) if rng.random() < 0.25 else None
            try:
                events = session.auto() if command is None else session.execute(command)
                digest.update(b"".join(encode(e) + b"\n" for e in events))
            except Refused as exc:
                digest.update(f"refused {str(exc)}\n".encode())
            steps += 1
        digest.update(f"end {session.state.outcome}\n".encode())
    return steps, digest.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100, help="fights of each encounter and variant")
    parser.add_argument("--mixed", type=int, default=0, metavar="N", help="and N fights with random commands")
    parser.add_argument(
        "--pin",
        action="append",
        default=[],
        metavar="SYSTEM=V",
        help="record fights of SYSTEM under its rules version V (repeatable)",
    )
    args = parser.parse_args()
    for pin in args.pin:
        system, sep, version = pin.partition("=")
        if not sep or not version:
            parser.error(f"--pin {pin!r}: give SYSTEM=VERSION, e.g. --pin straalara=2")
        try:
            rules = get_rules(system)
        except KeyError as exc:
            parser.error(f"--pin {pin!r}: {exc.args[0]}")
        type(rules).version = version  # for this process only (its variants too): `new` records it
    for path in sorted(EXAMPLES.glob("*.toml")):
        system = next(k for k in VARIANTS if path.stem.startswith(k))
        for options in VARIANTS[system]:
            label = path.stem + "".join(f" {k}={v}" for k, v in options.items())
            try:
                count, digest = fingerprint(path, options, args.runs)
            except Refused as exc:
                print(f"{label}: refused: {exc}")
                continue
            print(f"{label}: {count} events {digest[:16]}", flush=True)
            if args.mixed:
                count, digest = mixed(path, options, args.mixed)
                print(f"{label}, mixed: {count} steps {digest[:16]}", flush=True)


if __name__ == "__main__":
    main()
