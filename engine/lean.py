"""A session with nothing logged: the simulator's loop.

Each command is decided and folded by its own draft (`decide` folds every event as it emits
it, so the next decision sees it); nothing is sealed, encoded, decoded or folded a second
time, which is most of what a logged step costs beyond deciding it. The states a lean
session goes through are a `Session`'s for the same commands and dice: a test plays every
bundled system both ways and compares them. It keeps no history (no undo or redo) and no
log: a fight worth keeping is played again, from its seed, on a Session.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from combatlog.engine.commands import Redo, TypedCommand, Undo, checked, kind_of, read
from combatlog.engine.decide import decided_step, rules_of
from combatlog.engine.dice import Dice, DiceError
from combatlog.engine.draft import Draft
from combatlog.engine.errors import Refused
from combatlog.engine.protocol import RuleSystem
from combatlog.engine.session import Playing, dice_for
from combatlog.events import CombatantDefeated, Command, DamageApplied, Event
from combatlog.projections import Encounter, Projection

_HISTORY = (Undo, Redo)


class LeanSession(Playing):
    """An encounter played without a log: `execute` returns the step's events (no envelopes).

    `on_events(events)`, when given, sees each step's events (a simulation sums its damage
    dealt there); `state` and `step` may start from another lean session's (a set-up played
    once for many fights).
    """

    def __init__(
        self,
        state: Encounter | None = None,
        step: int = 0,
        on_events: Callable[[list[Event]], None] | None = None,
    ) -> None:
        self.view = Projection()
        if state is not None:
            self.view.state = state
            self.view.step = step
            self.view.seq = 1  # an encounter exists: a creation would be refused, as on its log
        self.on_events = on_events
        self._rules: RuleSystem | None = None

    @property
    def rules(self) -> RuleSystem:
        """The rule system of the encounter (looked up once: asked at every step; an encounter's
        rules never change once it is created, and before that there are none to look up)."""
        system = self._rules
        if system is None:
            system = self._rules = rules_of(self.view.state)
        return system

    @property
    def state(self) -> Encounter:
        """The encounter as it stands."""
        return self.view.state

    @property
    def step(self) -> int:
        """The steps taken so far (the next step's dice are seeded with this plus one)."""
        return self.view.step

    @staticmethod
    def event_of(item: Event) -> Event:
        return item

    def hurt(self, done: list[Any]) -> bool:
        # the items are the events: read without a call each (a step can hold dozens)
        for e in done:
            t = type(e)
            if (t is DamageApplied and e.amount > 0) or t is CombatantDefeated:
                return True
        return False

    def execute(self, command: Command | TypedCommand, dice: Dice | None = None) -> list[Event]:
        """Carry out `command` (typed, or as recorded) as one step; returns its events. Raises
        Refused (nothing changes)."""
        view = self.view
        typed = read(command) if isinstance(command, Command) else checked(command)
        if isinstance(typed, _HISTORY):
            kind = kind_of(typed)
            raise Refused(kind, "a lean session keeps no history", "play the fight on a Session to undo")
        step = view.step + 1
        if dice is None:
            dice = dice_for(view.state, typed, step)
        try:
            decided = decided_step(view, typed, dice, self.rules if view.state.rules is not None else None)
        except DiceError as exc:  # a forged die of recorded dice (DiceMismatch): refused, as a Session does
            raise Refused(kind_of(typed), str(exc)) from None
        if isinstance(decided, list):  # a creation: folded as a draft folds
            draft = Draft(view.state, dice, None, step)  # type: ignore[arg-type]  # no rule system yet
            for event in decided:
                draft.emit(event)
            decided = draft
        view.state = decided.state
        view.step = step
        view.seq += len(decided.events) + 1  # as many as the log would hold (its CommandIssued too)
        if self.on_events is not None:
            self.on_events(decided.events)
        return decided.events
