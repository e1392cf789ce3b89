"""Dice given for a named roll: `damage by bo: 6` goes to Bo's damage roll, wherever it comes.

A roll is named by words of its purpose and who rolls it. `damage by bo` names Bo's
`strike damage to g1`; `strike at g1 by ayla` names Ayla's `strike at g1`; `initiative`
names anyone's initiative; `by bo` names Bo's next roll, whatever it is for; `by gm` names a
roll no combatant makes (the game master's Acrobatics). The words must all come in the
purpose, whole, in the order given (others may come between), in any case.

Dice typed at the table go to the rolls they match, in order: a roll of the wrong combatant
may take them when a declaration sets off several combatants' rolls (simultaneous timing).
Named dice go to the roll they name. A command carries them as typed rolls whose label
(`Command.entered_for`) is the name rather than the dice (`1d8`): a label that reads as a
dice expression names the dice, any other names the roll. `combatlog.testing` gives a test's
dice the same way.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from combatlog.engine.dice import Dice, DiceError, EnteredDice, NeedDice, parse
from combatlog.events import DiceRolled

_BY = re.compile(r"^(?:(?P<words>.*?)\s+)?by\s+(?P<who>\S+)\s*$", re.I | re.S)
_WORD = re.compile(r"\w+")

GM = "gm"  # who rolls a roll no combatant makes, in a name


@dataclass(frozen=True, slots=True)
class RollName:
    """A roll named by words of its purpose (`words`) and who rolls it (`by`; None: anyone)."""

    text: str
    words: tuple[str, ...]
    by: str | None

    def names(self, purpose: str, by: str | None) -> bool:
        """True when this names a roll for `purpose` made by `by` (None: no combatant's)."""
        if self.by is not None and self.by != (by or GM).lower():
            return False
        if not self.words:
            return True
        said = iter(_WORD.findall(purpose.lower()))
        return all(word in said for word in self.words)  # each found after the one before


def read_name(text: str) -> RollName | None:
    """The roll `text` names (`damage by bo`), or None when it names none: empty, or dice (`1d8`)."""
    text = text.strip()
    if not text:
        return None
    try:
        parse(text)
    except DiceError:
        pass
    else:
        return None  # dice: the typed roll goes to the next roll of those dice
    m = _BY.match(text)
    words, by = (m["words"] or "", m["who"].lower()) if m else (text, None)
    found = tuple(_WORD.findall(words.lower()))
    if not found and by is None:
        return None
    return RollName(text, found, by)


def asked(expression: str, purpose: str, by: str | None) -> str:
    """A roll as a person names it back: `1d20+4 (strike at g1) by ayla`."""
    return f"{expression} ({purpose}) by {by or GM}" if purpose else f"{expression} by {by or GM}"


def suggested(purpose: str, by: str | None) -> str:
    """The name that gives dice for this roll: `strike at g1 by ayla`."""
    words = " ".join(_WORD.findall(purpose)) or "by"
    return f"{words} by {by or GM}" if words != "by" else f"by {by or GM}"


def faces_text(faces: Sequence[int]) -> str:
    return " ".join(str(f) for f in faces)


class UnnamedRoll(NeedDice):
    """A roll no given dice named, in an encounter whose dice are all given."""

    def __init__(self, expression: str, purpose: str, by: str | None, given: str) -> None:
        DiceError.__init__(
            self,
            f"no dice were given for {asked(expression, purpose, by)}; name it, as '{suggested(purpose, by)}: N'"
            + (f"; given: {given}" if given else ""),
        )
        self.expression = expression
        self.purpose = purpose
        self.by = by
        self.asks = "1 roll"


class NamedDice(Dice):
    """Typed rolls, some for a named roll: a roll asked for takes the first unused named roll
    that names it, else goes on to `rest` (the other typed rolls, in order, then the engine's
    dice, or none in an encounter without a seed). Records every roll asked, for the messages."""

    source = "entered"

    def __init__(self, named: Sequence[tuple[RollName, tuple[int, ...]]], rest: Dice) -> None:
        self.named = list(named)
        self.taken = [False] * len(self.named)
        self.rest = rest
        self.asked: list[tuple[str, str, str | None]] = []  # (expression, purpose, by) of each roll asked
        self.went: dict[int, tuple[str, str, str | None]] = {}  # a typed roll without a name: the roll it went to

    def roll(self, expression: str, purpose: str = "", by: str | None = None) -> DiceRolled:
        text = parse(expression).text
        self.asked.append((text, purpose, by))
        for i, (name, faces) in enumerate(self.named):
            if not self.taken[i] and name.names(purpose, by):
                self.taken[i] = True
                try:  # a typed roll's checks: the number of faces, each on its die
                    return EnteredDice([faces]).roll(expression, purpose, by)
                except DiceError as exc:
                    raise DiceError(f"'{name.text}: {faces_text(faces)}': {exc}") from None
        before = getattr(self.rest, "used", 0)
        try:
            rolled = self.rest.roll(expression, purpose, by)
            if getattr(self.rest, "used", 0) > before:  # a typed roll without a name took it
                self.went[before] = (text, purpose, by)
            return rolled
        except NeedDice:
            raise UnnamedRoll(text, purpose, by, self.given()) from None

    def given(self) -> str:
        """Every roll given, as typed: the named ones (`'damage by bo: 6', 'by g1: 3'`), then the
        others, each saying where it went if a roll took it (`'1d6: 5' (to 1d6 (dagger hit) by x)`)."""
        out = [f"'{name.text}: {faces_text(faces)}'" for name, faces in self.named]
        rest = self.rest
        if isinstance(rest, EnteredDice):
            labels = getattr(rest, "exprs", None) or [""] * len(rest.rolls)
            for i, faces in enumerate(rest.rolls):
                label = labels[i] if i < len(labels) else ""
                typed = f"'{label}: {faces_text(faces)}'" if label else f"'{faces_text(faces)}'"
                if i in self.went:
                    typed += f" (to {asked(*self.went[i])})"
                out.append(typed)
        return ", ".join(out)

    def rolled(self) -> str:
        """Every roll asked for, named back: `1d20+4 (strike at g1) by ayla; 1d8 (...) by ayla`."""
        return "; ".join(asked(*roll) for roll in self.asked) or "nothing"

    def example(self) -> str:
        """A named roll as typed, for the first roll asked for (or any)."""
        return f"'{suggested(*self.asked[0][1:])}: N'" if self.asked else "'damage by bo: 6'"

    def unused(self) -> list[str]:
        """The typed rolls no roll took: the named ones, and any others left over."""
        out = [f"'{name.text}: {faces_text(faces)}'" for (name, faces), t in zip(self.named, self.taken) if not t]
        rest = self.rest
        if isinstance(rest, EnteredDice) and rest.used < len(rest.rolls):
            out += [f"'{faces_text(faces)}'" for faces in rest.rolls[rest.used :]]
        return out


def split_named(
    entered: tuple[tuple[int, ...], ...], entered_for: tuple[str, ...] | None
) -> tuple[list[tuple[RollName, tuple[int, ...]]], tuple[tuple[int, ...], ...] | None, tuple[str, ...] | None]:
    """(the named rolls, the other typed rolls or None, their labels or None) of a command's
    typed rolls; no named rolls when no label names a roll."""
    if not entered_for:
        return [], entered, entered_for
    labels = list(entered_for) + [""] * (len(entered) - len(entered_for))
    named: list[tuple[RollName, tuple[int, ...]]] = []
    rolls: list[tuple[int, ...]] = []
    kept: list[str] = []
    for label, faces in zip(labels, entered):
        name = read_name(label)
        if name is None:
            rolls.append(faces)
            kept.append(label)
        else:
            named.append((name, faces))
    if not named:
        return [], entered, entered_for
    return named, (tuple(rolls) or None), (tuple(kept) if any(kept) else None)


__all__ = ["GM", "NamedDice", "RollName", "UnnamedRoll", "asked", "read_name", "split_named", "suggested"]
