"""A step in the making: the events decided so far and the state they lead to.

`decide` works on a Draft: every event it emits is folded at once (the bare fold plus
the phase table), so the next decision sees its effect, exactly as a replay will. The rule
systems, the order strategies and the turn procedure know it by its protocol
(`combatlog.engine.protocol.Draft`); this module, which builds on them, is the engine's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from combatlog.engine import turns
from combatlog.engine.dice import parse
from combatlog.engine.errors import Refused
from combatlog.engine.order import make_order
from combatlog.engine.protocol import NO_MODS
from combatlog.events import (
    ConditionApplied,
    ConditionRemoved,
    DamageApplied,
    DiceRolled,
    Event,
    TurnEnded,
    TurnStarted,
)
from combatlog.projections import TABLE, Encounter, apply
from combatlog.projections.fold import ROWS, FoldError, rows_of

if TYPE_CHECKING:
    from combatlog.engine.dice import Dice
    from combatlog.engine.protocol import Order, RuleSystem
    from combatlog.engine.timing import Timing


_replace = msgspec.structs.replace


def _row(etype: type) -> tuple[dict[str, str], Any]:
    """`etype`'s phases (phase -> next phase) and its fold, for `Draft.emit`: the fold's own
    row (`rows_of`), or the bare fold's when the type has none there (then KeyError, as a
    replay reports it, if it has no fold at all)."""
    try:
        phases, handler = rows_of(etype)
    except FoldError:
        tag = etype.__struct_config__.tag  # type: ignore[attr-defined]  # an event type: a tagged Struct
        phases, handler = {src: dest for (src, t), dest in TABLE.items() if t == tag}, None
    return phases, handler if handler is not None else apply


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
        self._order: Order | None = None
        self._timing: Timing | None = None

    # The order and timing strategies of the encounter's options, asked for several times a
    # step: made once a step, on the first ask (only a creation sets options; a note or a
    # ruling never asks). A property of its own: functools.cached_property takes a lock.
    @property
    def turn_order(self) -> Order:
        """The rule system's order strategy for the encounter's options (a ranked order when
        the system names none)."""
        order = self._order
        if order is None:
            order = self.rules.order(self.state.options)
            if order is None:
                order = make_order("ranked")
            self._order = order
        return order

    @property
    def timing(self) -> Timing:
        """The rule system's timing strategy for the encounter's options."""
        timing = self._timing
        if timing is None:
            timing = self._timing = self.rules.timing(self.state.options)
        return timing

    def emit(self, event: Event) -> Event:
        """Record `event` and fold it into the draft's state; returns the event."""
        etype = type(event)
        row = ROWS.get(etype)  # the type's phases and fold, as a replay's fold reads them
        if row is None:
            row = _row(etype)
        state = self.state
        phase = row[0].get(state.phase)
        if phase is None:
            # the phase machine (projections/phases.py) says this can't happen now: refused
            # whole, so nothing of the step is written
            tag = str(etype.__struct_config__.tag)
            raise Refused(
                tag,
                f"not possible in phase {state.phase}",
                "allowed in: " + (", ".join(sorted(src for (src, t) in TABLE if t == tag)) or "no phase"),
            )
        fold = row[1]
        state = (apply if fold is None else fold)(state, event)  # None: undo/redo, which have no fold
        if state.phase != phase:
            state = _replace(state, phase=phase)
        self.state = state
        self.events.append(event)
        if etype is TurnStarted or etype is TurnEnded:
            self._turn_durations(event)  # type: ignore[arg-type]
        return event

    def _turn_durations(self, event: TurnStarted | TurnEnded) -> None:
        """Conditions that last until a turn: one ends as its bearer's next turn starts
        (`bearer_turn`), another as its source's next turn ends (`source_turn`, armed when that
        turn starts, so the turn it was given in doesn't count)."""
        # asked at every turn's start and end: the conditions that last until a turn, if any (the
        # pairs taken up front, as the states they come from; the emits below make new ones)
        timed = [
            (c, cond)
            for c in self.state.combatants.values()
            if c.conditions
            for cond in c.conditions
            if cond.ends is not None
        ]
        if not timed:
            return  # most conditions last rounds, or until removed
        actors = set(event.actors)
        starting = type(event) is TurnStarted
        for c, cond in timed:
            if cond.ends == "bearer_turn" and starting and c.id in actors:
                self.emit(ConditionRemoved(target=c.id, condition=cond.name, reason="until its next turn"))
            elif cond.ends == "source_turn" and cond.source in actors:
                if starting and not cond.armed:
                    self.emit(
                        ConditionApplied(
                            target=c.id,
                            condition=cond.name,
                            duration=cond.remaining,
                            source=cond.source,
                            ends="source_turn",
                            armed=True,
                        )
                    )
                elif not starting and cond.armed and not getattr(event, "yielded", False):
                    who = self.state.combatants[cond.source].name if cond.source in self.state.combatants else ""
                    self.emit(
                        ConditionRemoved(target=c.id, condition=cond.name, reason=f"until the end of {who}'s next turn")
                    )

    def advance(self) -> None:
        """Go on: the next turn, the round's end, or the encounter's end (after a rule system's command)."""
        turns.advance(self)

    def next_round(self) -> None:
        """Start the round after the current one (a rule system's command resuming the fight)."""
        turns.start_round(self, self.state.round + 1)

    def roll(self, expression: str, purpose: str, by: str | None = None, private: bool = False) -> DiceRolled:
        """Roll dice from the step's source and record the roll; returns the DiceRolled event.

        `private`: a secret roll, shown only to `by`'s seat and the game master (the log
        keeps it whole: the audit re-derives it).
        """
        rolled = self.dice.roll(expression, purpose, by)
        if private:
            rolled = msgspec.structs.replace(rolled, private_to=by)
        return self.emit(rolled)  # type: ignore[return-value]

    def attack_roll(self, expression: str, purpose: str, roller: str, target: str | None = None) -> DiceRolled:
        """An attack-like roll of `expression` (one die and a modifier, `1d20+4`) with what
        conditions make of it (`RuleSystem.roll_mods`): advantage as `2d20kh1+4`, disadvantage
        as `2d20kl1+4`, a bonus added, a low face rolled once more. Every roll is recorded."""
        state = self.state
        mods = self.rules.roll_mods(
            state, state.combatants[roller], state.combatants.get(target) if target is not None else None
        )
        if mods is NO_MODS or mods == NO_MODS:
            return self.roll(expression, purpose, by=roller)  # as given: nothing changes it
        expr = parse(expression)
        if expr.count != 1 or expr.keep is not None or expr.target is not None:
            return self.roll(expression, purpose, by=roller)  # as given: nothing changes it, or not one die
        die = f"{expr.sides}" + ("z" if expr.low == 0 else "")
        dice = f"1d{die}" if mods.advantage == 0 else f"2d{die}{'kh' if mods.advantage > 0 else 'kl'}1"
        modifier = expr.modifier + mods.bonus
        text = dice + (f"{modifier:+d}" if modifier else "")
        rolled = self.roll(text, purpose, by=roller)
        if mods.reroll_below and min(rolled.natural) < mods.reroll_below:
            rolled = self.roll(text, f"{purpose} (rolled again: {min(rolled.natural)})", by=roller)
        return rolled

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
