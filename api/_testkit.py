"""The test kit of `combatlog.testing`: a fight in one call, its steps with dice given by
purpose, and what they did, read back.

    f = fight("skirmish", fighter("ayla", "party", hp=10, attack=4), fighter("g1", "goblins", hp=7),
              dice={"initiative by ayla": 15, "initiative by g1": 3})
    step = f.act("ayla", "strike", "g1", dice={"strike by ayla": 17, "damage by ayla": 5})
    assert f.hp("g1") == 2 and step.outcome == "hit (21 against 10) for 5"

Dice are given by the roll they are for (`combatlog.engine.rollnames`): words of its purpose
and who rolls it, in any order of the step's rolls. A step's dice travel in its command as
dice typed at the table do, so its log audits clean and replays.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from combatlog.engine import Refused, Session
from combatlog.engine.protocol import RuleSystem
from combatlog.engine.rollnames import read_name
from combatlog.events import ActionResolved, Command, DiceRolled, Event, EventLog
from combatlog.projections import Combatant, Encounter
from combatlog.projections.replay import envelopes
from combatlog.replays import MemoryLog

E = TypeVar("E")

# What a roll is given: one die's face, one roll's faces, or a list of rolls (in the order asked)
Faces = int | Sequence[int]
Dice = Mapping[str, Faces | list[Faces]]


def fighter(
    cid: str,
    side: str,
    *,
    kind: str = "npc",
    name: str | None = None,
    group: str | None = None,
    defaults: Mapping[str, Any] | None = None,
    **stats: Any,
) -> dict[str, Any]:
    """One combatant for `fight`: its id, side and stats (`defaults` overlaid by `stats`), a
    `kind` ("pc" or "npc"), a `name` (the id in capitals unless given) and an initiative `group`."""
    merged = dict(defaults or {})
    merged.update(stats)
    out: dict[str, Any] = {"id": cid, "name": name or cid.upper(), "side": side, "kind": kind, "stats": merged}
    if group is not None:
        out["group"] = group
    return out


def fight(
    rules: str,
    *fighters: Mapping[str, Any],
    seed: int | None = None,
    begin: bool = True,
    dice: Dice | None = None,
    log: EventLog | None = None,
    **options: Any,
) -> Fight:
    """A new encounter of `rules` with `fighters` added (`fighter(...)`), begun with `dice` (the
    initiative rolls, by purpose) unless `begin` is False; `options` are the encounter's. Without
    a `seed` every roll must be given; with one, the rolls not given are the seed's. On a
    memory log unless `log` is given. Raises Refused as the commands would."""
    f = Fight(Session(MemoryLog() if log is None else log))
    params: dict[str, Any] = {"rules": rules, "options": options}
    if seed is not None:
        params["seed"] = seed
    f.session.do("create", **params)
    for one in fighters:
        f.session.do("add", **one)
    if begin:
        f.begin(dice=dice)
    elif dice:
        raise ValueError("dice are for the begin step: give begin=True, or give them to a later step")
    return f


def typed(dice: Dice | None) -> tuple[tuple[tuple[int, ...], ...] | None, tuple[str, ...] | None]:
    """A command's typed rolls and their labels, from dice given by purpose; raises ValueError
    for a key that names no roll or faces that aren't whole numbers."""
    if not dice:
        return None, None
    rolls: list[tuple[int, ...]] = []
    names: list[str] = []
    for key, value in dice.items():
        if not isinstance(key, str) or read_name(key) is None:
            raise ValueError(
                f"{key!r} names no roll: give words of what the roll is for and who rolls it, "
                "as 'damage by bo' (a dice expression such as '1d20' names the dice, not the roll)"
            )
        for one in value if isinstance(value, list) else [value]:
            faces = (one,) if isinstance(one, int) else tuple(one)
            if not faces or not all(isinstance(x, int) and not isinstance(x, bool) for x in faces):
                raise ValueError(f"{key!r}: {one!r} isn't a roll; give a face (6), a roll's faces ((3, 4)), or a list")
            rolls.append(faces)
            names.append(key)
    return tuple(rolls), tuple(names)


class Step:
    """What one command did: its events, in order (`events`), and readings of them."""

    def __init__(self, fight: Fight, first: int, events: list[Event]) -> None:
        self._fight = fight
        self.first = first  # the seq of the step's first event
        self.events = events

    def __repr__(self) -> str:
        return f"Step({', '.join(type(e).__name__ for e in self.events)})"

    def of(self, kind: type[E]) -> list[E]:
        """The step's events of type `kind`, in order."""
        return [e for e in self.events if isinstance(e, kind)]

    @property
    def rolls(self) -> list[DiceRolled]:
        """The step's rolls, in order."""
        return self.of(DiceRolled)

    @property
    def outcomes(self) -> list[str]:
        """The outcome of each action the step resolved ("hit (17 against 12) for 5"), in order."""
        return [e.outcome for e in self.of(ActionResolved)]

    @property
    def outcome(self) -> str:
        """The outcome of the one action the step resolved; raises ValueError if it resolved
        none or several (read `outcomes`)."""
        found = self.outcomes
        if len(found) != 1:
            raise ValueError(f"the step resolved {len(found)} actions: {found}; read .outcomes")
        return found[0]

    @property
    def told(self) -> list[str]:
        """The transcript's lines of this step, as `combatlog transcript` tells them."""
        from combatlog.replays.transcript import transcript

        return [line for seq, line in transcript(self._fight.log) if seq >= self.first]


class Fight:
    """An encounter under test: play it (`act`, `end_turn`, `do`, `auto`), each step's dice given
    by purpose, and read it (`hp`, `conditions`, `outcome`, `events`). `session` is the
    `combatlog.engine.Session` beneath, for anything else."""

    def __init__(self, session: Session) -> None:
        self.session = session

    # --- playing -----------------------------------------------------------------------

    def do(
        self,
        kind: str,
        *,
        dice: Dice | None = None,
        actor: str | None = None,
        action: str | None = None,
        targets: Iterable[str] = (),
        by: str = "gm",
        **params: Any,
    ) -> Step:
        """Carry out a command of `kind` (any the encounter takes: `begin`, `override`, a rule
        system's own) with `dice` given by purpose; raises Refused (nothing appended)."""
        entered, entered_for = typed(dice)
        command = Command(
            kind=kind,
            actor=actor,
            action=action,
            targets=tuple(targets),
            params=params,
            by=by,
            entered=entered,
            entered_for=entered_for,
        )
        return self._step(self.session.execute(command))

    def act(self, actor: str, action: str, *targets: str, dice: Dice | None = None, **params: Any) -> Step:
        """`actor` declares `action` at `targets` (with the action's `params`)."""
        return self.do("act", dice=dice, actor=actor, action=action, targets=targets, **params)

    def end_turn(self, actor: str | None = None, *, dice: Dice | None = None, **params: Any) -> Step:
        """`actor` (or whoever is acting) ends its turn, with the `params` its rule system takes
        there (Triptycho's `discard=CARD`)."""
        return self.do("end_turn", dice=dice, actor=actor, **params)

    def begin(self, *, dice: Dice | None = None) -> Step:
        """Begin the fight: initiative is rolled (give its dice) and the first turn starts."""
        return self.do("begin", dice=dice)

    def auto(self, *, dice: Dice | None = None) -> Step:
        """The next step the automatic policy takes."""
        entered, entered_for = typed(dice)
        return self._step(self.session.auto(entered=entered, entered_for=entered_for))

    def play_out(self, max_steps: int = 10_000) -> int:
        """Let the automatic policy play the fight to its end with the seed's dice (a fight
        without a seed is refused at its first roll); returns the steps taken."""
        return self.session.play_out(max_steps)

    def undo(self) -> Step:
        """Undo the last step."""
        return self._step(self.session.undo())

    def redo(self) -> Step:
        """Redo the last undone step."""
        return self._step(self.session.redo())

    def _step(self, envelopes: list[Any]) -> Step:
        if not envelopes:
            return Step(self, self.log.head()[0] + 1, [])
        return Step(self, envelopes[0].seq, [env.event for env in envelopes])

    # --- reading -----------------------------------------------------------------------

    @property
    def log(self) -> EventLog:
        """The encounter's log."""
        return self.session.log

    @property
    def state(self) -> Encounter:
        """The encounter as it stands."""
        return self.session.state

    @property
    def rules(self) -> RuleSystem:
        """The encounter's rule system."""
        return self.session.rules

    @property
    def phase(self) -> str:
        return self.state.phase

    @property
    def round(self) -> int:
        return self.state.round

    @property
    def acting(self) -> tuple[str, ...]:
        """Whose turn it is (the ids)."""
        return self.state.acting

    @property
    def outcome(self) -> tuple[str, str | None] | None:
        """(outcome, winning side) once the fight is over, else None."""
        state = self.state
        return (state.outcome or "", state.winner) if state.phase == "end" else None

    def combatant(self, cid: str) -> Combatant:
        """Combatant `cid` as it stands; raises KeyError naming the known ids."""
        try:
            return self.state.combatants[cid]
        except KeyError:
            raise KeyError(f"no combatant {cid!r}; there are {', '.join(self.state.combatants)}") from None

    def hp(self, cid: str) -> int | None:
        """What is left of `cid`'s main track (`RuleSystem.health`: hp less damage by default),
        or None for a system that shows none."""
        track = self.rules.health(self.state, self.combatant(cid))
        return None if track is None else track[0]

    def damage(self, cid: str) -> int:
        """The damage `cid` has taken."""
        return self.combatant(cid).damage

    def conditions(self, cid: str) -> tuple[str, ...]:
        """The names of `cid`'s conditions, in the order they came."""
        return tuple(c.name for c in self.combatant(cid).conditions)

    def defeated(self, cid: str) -> str | None:
        """How `cid` was defeated ("down", "dead", ...), or None while it fights."""
        return self.combatant(cid).defeated

    def events(self, kind: type[E] | None = None) -> list[Any]:
        """Every event of the log in order (of type `kind` when given); undone steps' too."""
        out = [env.event for env in envelopes(self.log)]
        return out if kind is None else [e for e in out if isinstance(e, kind)]

    def told(self, dice: bool = False) -> list[str]:
        """The transcript's lines (every roll too, with `dice`)."""
        from combatlog.replays.transcript import transcript

        return [line for _, line in transcript(self.log, dice=dice)]

    def save(self, path: str | Path) -> None:
        """Write the fight's log to `path` (a new `.jsonl`, `.db` or `.sqlite` file), to keep as a
        saved log the pytest plugin replays (`pytest --combatlog-logs DIR`); raises LogError when
        the file holds a log already."""
        from combatlog.replays import copy_log, open_log

        target = open_log(path)
        try:
            copy_log(self.log, target)
        finally:
            target.close()

    def audit(self) -> None:
        """Raise AssertionError naming the first finding unless the log audits clean (every step
        re-decided the same, the chain of digests whole)."""
        from combatlog.replays.audit import audit

        report = audit(self.log, workers=1)
        if not report.clean:
            first = report.findings[0]
            raise AssertionError(f"the log doesn't audit clean: seq {first.seq}: {first.kind}: {first.message}")


__all__ = ["Fight", "Refused", "Step", "fight", "fighter"]
