"""A fingerprint of what the engine decides: every event of many seeded fights of each bundled
encounter (and of option variants), hashed.

Work on the decide path's speed must not change a single event: the same seed and commands
give the same log, byte for byte. Run this before and after a change and compare:

    python tools/fingerprint.py --runs 200 > before.txt
    ... change ...
    python tools/fingerprint.py --runs 200 | diff before.txt -

Each line is an encounter (with its variant's options), the events its runs produced, and a
SHA-256 of them all, encoded as the log encodes them.
"""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path
from typing import Any

import msgspec

from combatlog.engine.encounter_file import read_encounter
from combatlog.engine.errors import Refused
from combatlog.engine.lean import LeanSession
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100, help="fights of each encounter and variant")
    args = parser.parse_args()
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


if __name__ == "__main__":
    main()
