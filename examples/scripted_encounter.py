"""Play a short scripted encounter of the skirmish test system and print its log.

    python examples/scripted_encounter.py [--seed N]

Ayla and Bo meet two goblins. The script declares a few actions by hand, undoes one and
redoes it, then lets the automatic policy play the fight to its end. Every line printed
is one sealed event of the log, exactly as stored.
"""

from __future__ import annotations

import argparse

from combatlog.engine import Session
from combatlog.replays import MemoryLog
from combatlog.replays.audit import audit


def play(seed: int) -> Session:
    """Run the scripted encounter with `seed`; returns the finished session."""
    s = Session(MemoryLog())
    s.do("create", rules="skirmish", seed=seed, title="Goblins at the ford")
    s.do(
        "add",
        id="ayla",
        name="Ayla",
        side="party",
        kind="pc",
        stats={"hp": 14, "init": 3, "attack": 4, "defense": 12, "damage": "1d8"},
    )
    s.do(
        "add",
        id="bo",
        name="Bo",
        side="party",
        kind="pc",
        stats={"hp": 11, "init": 1, "attack": 2, "defense": 11, "damage": "1d6"},
    )
    s.do(
        "add",
        id="g1",
        name="Goblin 1",
        side="goblins",
        group="goblins",
        stats={"hp": 7, "init": 2, "attack": 1, "defense": 10, "damage": "1d6"},
    )
    s.do(
        "add",
        id="g2",
        name="Goblin 2",
        side="goblins",
        group="goblins",
        stats={"hp": 7, "init": 2, "attack": 1, "defense": 10, "damage": "1d6"},
    )
    s.do("begin")
    first = s.state.acting[0]
    enemy = next(c.id for c in s.state.active() if c.side != s.state.combatants[first].side)
    s.do("act", actor=first, action="strike", targets=(enemy,))
    s.undo()
    s.redo()
    s.do("note", text="the river is rising")
    s.play_out()
    return s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    session = play(args.seed)
    for line in session.log.lines():
        print(line.decode())
    state = session.state
    report = audit(session.log)
    print(
        f"# {state.outcome}: {state.winner} after {state.round} round(s); "
        f"{session.log.head()[0]} events; audit {'clean' if report.clean else 'FAILED'}"
    )


if __name__ == "__main__":
    main()
