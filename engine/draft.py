"""A step in the making: the events decided so far and the state they lead to.

`decide` works on a Draft: every event it emits is folded at once (the bare fold plus
the phase table), so the next decision sees its effect, exactly as a replay will.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from combatlog.engine import turns
from combatlog.engine.errors import Refused
from combatlog.events import DamageApplied, DiceRolled, Event
from combatlog.projections import TABLE, Encounter, apply

if TYPE_CHECKING:
    from combatlog.engine.dice import Dice
    from combatlog.engine.rules.base import RuleSystem


class Draft:
    """The events of one step so far, the state they give, the step's dice and rule system."""

    def __init__(self, state: Encounter, dice: Dice, rules: RuleSystem, step: int) -> None:
        self.state = state
        self.events: list[Event] = []
        self.dice = dice
        self.rules = rules
        self.step = step
        self.hold_damage = False  # set while simultaneous actions resolve
        self.rounds_started = 0  # rounds this step has started (a step that can't stop is a stalled fight)

    def emit(self, event: Event) -> Event:
        """Record `event` and fold it into the draft's state; returns the event."""
        tag = str(type(event).__struct_config__.tag)
        phase = TABLE.get((self.state.phase, tag))
        if phase is None:
            # the phase machine (projections/phases.py) says this can't happen now: refused
            # whole, so nothing of the step is written
            raise Refused(
                tag,
                f"not possible in phase {self.state.phase}",
                "allowed in: " + (", ".join(sorted(src for (src, t) in TABLE if t == tag)) or "no phase"),
            )
        state = apply(self.state, event)
        if state.phase != phase:
            state = msgspec.structs.replace(state, phase=phase)
        self.state = state
        self.events.append(event)
        return event

    def advance(self) -> None:
        """Go on: the next turn, the round's end, or the encounter's end (after a rule system's command)."""
        turns.advance(self)

    def next_round(self) -> None:
        """Start the round after the current one (a rule system's command resuming the fight)."""
        turns.start_round(self, self.state.round + 1)

    def roll(self, expression: str, purpose: str, by: str | None = None, private: bool = False) -> DiceRolled:
        """Roll dice from the step's source and record the roll; returns the DiceRolled event.

        `private`: a secret roll, shown only to `by`'s side and the game master (the log
        keeps it whole: the audit re-derives it).
        """
        rolled = self.dice.roll(expression, purpose, by)
        if private:
            rolled = msgspec.structs.replace(rolled, private_to=by)
        return self.emit(rolled)  # type: ignore[return-value]

    def damage(
        self,
        target: str,
        amount: int,
        *,
        location: str | None = None,
        kind: str | None = None,
        source: str | None = None,
    ) -> None:
        """Apply damage now, or hold it for the round's end while simultaneous actions resolve."""
        if self.hold_damage:
            self.emit(
                DamageApplied(target=target, amount=amount, location=location, kind=kind, source=source, held=True)
            )
            return
        self.emit(DamageApplied(target=target, amount=amount, location=location, kind=kind, source=source))
        self.rules.after_damage(self, target)
