"""Dice: the expression parser and the four sources of faces (seeded, scripted, entered, recorded).

Expressions (case-insensitive, no spaces needed):

    2d10        the sum of two ten-sided dice           d%      one percentile die (1-100)
    2d10z       ten-sided dice read 0-9 (z: faces count from zero), e.g. Starflight's
    2d6+3       a modifier (+ or -, several allowed)      d10     one die
    4d6kh3      keep the highest 3 (kl: lowest)          4d6dl1  drop the lowest 1 (dh: highest)
    6d10>=6     a pool: count faces >= 6 (successes)     6d10>=6c  ones cancel successes;
                                                                   no success and a 1 = botch

We write this parser ourselves: the field's usual one rolls from the global `random`
module and can't be seeded per encounter. Every source hands out faces one roll at a
time; the engine turns them into a DiceRolled event. Nothing here reads a clock or the
global random module.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from combatlog.events import DiceRolled

# ASCII digits only, at most 7 of them a number ([0-9], not \d: that matches any script's digits)
_TERM = re.compile(
    r"""^(?P<count>[0-9]{0,7})d(?P<sides>[0-9]{1,7}|%)(?P<zero>z)?
        (?:(?P<keep>kh|kl|dh|dl|k)(?P<keepn>[0-9]{1,7}))?
        (?:>=(?P<target>[0-9]{1,7})(?P<cancel>c)?)?
        (?P<mods>(?:[+-][0-9]{1,7})*)$""",
    re.VERBOSE,
)
_MODS = re.compile(r"[+-][0-9]{1,7}")
MAX_TEXT = 64  # characters of a dice expression
MAX_COUNT = 1000  # dice in one roll
MAX_SIDES = 1_000_000  # faces of a die
PARSE_CACHE = 4096  # expressions kept parsed (the cache is bounded: a stream of distinct ones can't grow it)


def _excerpt(text: str) -> str:
    """At most 40 characters of what was given, for an error message."""
    return repr(text if len(text) <= 40 else text[:37] + "...")


class DiceError(ValueError):
    """A dice expression or a set of entered faces is not acceptable."""


class NeedDice(DiceError):
    """A roll needs faces that weren't entered; says which roll, for what."""

    def __init__(self, expression: str, purpose: str, count: int, sides: int, low: int = 1) -> None:
        super().__init__(
            f"enter the faces for {expression} ({purpose}): {count} number(s) from {low} to {sides + low - 1}"
        )
        self.expression = expression
        self.purpose = purpose


@dataclass(frozen=True, slots=True)
class Expr:
    """A parsed dice expression."""

    text: str
    count: int
    sides: int
    keep: str | None = None
    keepn: int = 0
    target: int | None = None
    cancel: bool = False
    modifier: int = 0
    low: int = 1  # the lowest face: 1, or 0 for zero-based dice (NdXz)

    @property
    def high(self) -> int:
        """The highest face."""
        return self.sides + self.low - 1

    def scaled(self, times: int) -> Expr:
        """This expression with `times` as many dice, the modifier kept: a critical hit's damage
        (`Expr.scaled(2)` of `2d6+3` is `4d6+3`). Only a plain sum of dice scales."""
        if self.keep is not None or self.target is not None:
            raise DiceError(f"{self.text}: only a plain sum of dice scales (no keep, no successes)")
        if times < 1:
            raise DiceError(f"{self.text} scaled by {times}: give a whole number of times, 1 or more")
        zero = "z" if self.low == 0 else ""
        return parse(f"{self.count * times}d{self.sides}{zero}" + (f"{self.modifier:+d}" if self.modifier else ""))

    def count_faces(self, faces: Sequence[int]) -> DiceRolled:
        """The DiceRolled event for these faces (purpose and source filled in by the caller)."""
        kept: tuple[int, ...] | None = None
        values = list(faces)
        if self.keep is not None:
            order = sorted(range(len(values)), key=lambda i: (values[i], i))
            n = self.keepn
            if self.keep in ("kh", "k"):
                chosen = order[-n:] if n else []
            elif self.keep == "kl":
                chosen = order[:n]
            elif self.keep == "dl":
                chosen = order[n:]
            else:  # dh
                chosen = order[: len(order) - n]
            kept = tuple(values[i] for i in sorted(chosen))
            values = list(kept)
        if self.target is None:
            return DiceRolled(
                expression=self.text,
                faces=tuple(faces),
                total=sum(values) + self.modifier,
                modifier=self.modifier,
                kept=kept,
            )
        hits = sum(1 for f in values if f >= self.target)
        ones = sum(1 for f in values if f == 1)
        botch = False
        if self.cancel:
            botch = hits == 0 and ones > 0
            hits = max(0, hits - ones)
        return DiceRolled(
            expression=self.text,
            faces=tuple(faces),
            total=hits + self.modifier,
            modifier=self.modifier,
            kept=kept,
            successes=hits,
            botch=botch,
        )


_parsed: dict[str, Expr] = {}


def parse(expression: str) -> Expr:
    """Parse a dice expression; raises DiceError saying what is accepted."""
    if not isinstance(expression, str):
        raise DiceError(f"{_excerpt(str(expression))}: a dice expression is text, e.g. 2d6+1")
    text = expression.strip().lower().replace(" ", "")
    cached = _parsed.get(text)
    if cached is not None:
        return cached
    if len(text) > MAX_TEXT:
        raise DiceError(f"{_excerpt(expression)}: a dice expression is at most {MAX_TEXT} characters")
    m = _TERM.match(text)
    if m is None:
        raise DiceError(
            f"can't read dice expression {_excerpt(expression)}; use NdX (NdXz: faces from 0) with optional "
            "kh/kl/dh/dl N, >=T[c] and +/-M, e.g. 2d10+3, 2d10z, d%, 4d6kh3, 6d10>=6c (ASCII digits, "
            "at most 7 a number)"
        )
    count = int(m["count"] or 1)
    sides = 100 if m["sides"] == "%" else int(m["sides"])
    if count < 1 or count > MAX_COUNT or sides < 2 or sides > MAX_SIDES:
        raise DiceError(f"{_excerpt(expression)}: roll 1 to {MAX_COUNT} dice of 2 to {MAX_SIDES} sides")
    keepn = int(m["keepn"] or 0)
    if m["keep"] and keepn > count:
        raise DiceError(f"{expression!r}: can't keep or drop {keepn} of {count} dice")
    modifier = sum(int(x) for x in _MODS.findall(m["mods"] or ""))
    expr = Expr(
        text=text,
        count=count,
        sides=sides,
        keep=m["keep"],
        keepn=keepn,
        target=int(m["target"]) if m["target"] else None,
        cancel=bool(m["cancel"]),
        modifier=modifier,
        low=0 if m["zero"] else 1,
    )
    if len(_parsed) >= PARSE_CACHE:
        _parsed.clear()
    _parsed[text] = expr
    return expr


class Dice:
    """A source of faces. `roll` returns the DiceRolled event of one roll."""

    source: Literal["engine", "entered"] = "engine"

    def faces(self, expr: Expr, purpose: str) -> tuple[int, ...]:  # pragma: no cover - abstract
        raise NotImplementedError

    def roll(self, expression: str, purpose: str = "", by: str | None = None) -> DiceRolled:
        """Roll `expression` for `purpose`; returns the event recording every face."""
        expr = parse(expression)
        faces = self.faces(expr, purpose)
        rolled = expr.count_faces(faces)
        return _stamp(rolled, purpose, self.source, by)


def _stamp(rolled: DiceRolled, purpose: str, source: Literal["engine", "entered"], by: str | None) -> DiceRolled:
    return DiceRolled(
        expression=rolled.expression,
        faces=rolled.faces,
        total=rolled.total,
        modifier=rolled.modifier,
        purpose=purpose,
        source=source,
        by=by,
        kept=rolled.kept,
        successes=rolled.successes,
        botch=rolled.botch,
    )


def _die(expr: Expr) -> str:
    return f"a d{expr.sides}" + (
        " read 0-9" if expr.low == 0 and expr.sides == 10 else " counted from 0" if expr.low == 0 else ""
    )


def step_seed(seed: int, step: int) -> int:
    """The seed of step `step`'s generator: a stable hash of the encounter seed and the step."""
    return int.from_bytes(hashlib.sha256(f"{seed}:{step}".encode()).digest()[:8], "big")


class SeededDice(Dice):
    """The engine's dice: a `random.Random` of the encounter's own, one per step.

    Each step draws from a generator seeded by (encounter seed, step number), so a session
    resumed from its log rolls exactly what it would have rolled had it never stopped.
    """

    def __init__(self, seed: int, step: int = 0) -> None:
        self.rng = random.Random(step_seed(seed, step))

    def faces(self, expr: Expr, purpose: str) -> tuple[int, ...]:
        rng = self.rng
        low, high = expr.low, expr.high
        return tuple(rng.randint(low, high) for _ in range(expr.count))


class ScriptedDice(Dice):
    """Given faces, in order (tests and worked examples). Each item is one die's face.

    They are recorded as entered: not the seed's, so an audit takes them as typed in rather
    than re-rolling them from the seed."""

    source: Literal["engine", "entered"] = "entered"

    def __init__(self, faces: Sequence[int]) -> None:
        self.queue = list(faces)

    def faces(self, expr: Expr, purpose: str) -> tuple[int, ...]:
        if len(self.queue) < expr.count:
            raise DiceError(f"the script ran out of dice at {expr.text} ({purpose})")
        out = tuple(self.queue[: expr.count])
        del self.queue[: expr.count]
        for f in out:
            if not expr.low <= f <= expr.high:
                raise DiceError(f"scripted face {f} can't come up on {_die(expr)} ({purpose})")
        return out


class EnteredDice(Dice):
    """Faces a person rolled with physical dice and typed in: one tuple per roll, in order."""

    source: Literal["engine", "entered"] = "entered"

    def __init__(self, rolls: Sequence[Sequence[int]]) -> None:
        self.rolls = [tuple(r) for r in rolls]
        self.used = 0

    def faces(self, expr: Expr, purpose: str) -> tuple[int, ...]:
        if self.used >= len(self.rolls):
            raise NeedDice(expr.text, purpose, expr.count, expr.sides, expr.low)
        faces = self.rolls[self.used]
        if len(faces) != expr.count:
            raise DiceError(
                f"{expr.text} ({purpose}) needs {expr.count} face(s), {len(faces)} were entered: {list(faces)}"
            )
        for f in faces:
            if not expr.low <= f <= expr.high:
                raise DiceError(
                    f"{f} can't come up on {_die(expr)}; {expr.text} ({purpose}) takes {expr.low} to {expr.high}"
                )
        self.used += 1
        return faces


class MixedDice(EnteredDice):
    """Typed-in rolls mixed with the engine's, in a seeded encounter: each roll asked for takes
    the next typed roll if it matches (its expression, when one was typed, and its number of
    faces), else the engine rolls it from the step's seeded generator. Each roll records its
    own source; typed rolls left unused make the command refused."""

    def __init__(self, rolls: Sequence[Sequence[int]], exprs: Sequence[str] | None, seeded: Dice) -> None:
        super().__init__(rolls)
        self.exprs = list(exprs) if exprs is not None else [""] * len(self.rolls)
        self.seeded = seeded

    def roll(self, expression: str, purpose: str = "", by: str | None = None) -> DiceRolled:
        expr = parse(expression)
        if self.used < len(self.rolls):
            typed = self.exprs[self.used] if self.used < len(self.exprs) else ""
            faces = self.rolls[self.used]
            if typed:  # the dice named, whatever modifier either side wrote (1d20 matches 1d20+4)
                named = parse(typed)
                matches = (named.count, named.sides, named.low) == (expr.count, expr.sides, expr.low)
            else:
                matches = len(faces) == expr.count
            if matches:
                faces = super().faces(expr, purpose)  # checks the count and the range
                return _stamp(expr.count_faces(faces), purpose, "entered", by)
        return _stamp(expr.count_faces(self.seeded.faces(expr, purpose)), purpose, "engine", by)


class DiceMismatch(DiceError):
    """A log's die that isn't what it claims: a face its die can't show, or an engine roll the
    encounter's seed doesn't give (an audit's finding, never a refusal to a person)."""


class RecordedDice(Dice):
    """A log's own rolls, replayed in order for an audit; a mismatch is reported, not rolled.

    `seeded`: the step's own dice from the encounter's seed. Every roll recorded as the
    engine's must show exactly what they give, so a forged die (a changed face, a changed
    seed) is caught; a roll recorded as entered is taken as typed in. A face its die can't
    show is refused either way.
    """

    def __init__(self, rolled: Sequence[DiceRolled], seeded: Dice | Callable[[], Dice] | None = None) -> None:
        self.rolled = list(rolled)
        self.used = 0
        self._seeded = seeded  # made on the first engine roll it checks (a step without dice needs none)

    @property
    def seeded(self) -> Dice | None:
        if self._seeded is not None and not isinstance(self._seeded, Dice):
            self._seeded = self._seeded()
        return self._seeded

    def roll(self, expression: str, purpose: str = "", by: str | None = None) -> DiceRolled:
        expr = parse(expression)
        if self.used >= len(self.rolled):
            raise DiceError(f"the step asks for {expr.text} ({purpose}) but the log recorded no more rolls")
        recorded = self.rolled[self.used]
        self.used += 1
        if recorded.expression != expr.text or len(recorded.faces) != expr.count:
            raise DiceError(
                f"the step asks for {expr.text} ({purpose}) but the log recorded {recorded.expression} "
                f"({recorded.purpose})"
            )
        wrong = [f for f in recorded.faces if not expr.low <= f <= expr.high]
        if wrong:
            raise DiceMismatch(f"the log's {expr.text} ({purpose}) shows {wrong[0]}, which {_die(expr)} can't show")
        if self.seeded is not None and recorded.source == "engine":
            want = self.seeded.faces(expr, purpose)
            if tuple(recorded.faces) != want:
                shown = " ".join(map(str, recorded.faces))
                raise DiceMismatch(
                    f"the engine's {expr.text} ({purpose}) shows [{shown}], "
                    f"but the encounter's seed gives [{' '.join(map(str, want))}]"
                )
        return _stamp(expr.count_faces(recorded.faces), purpose, recorded.source, by)
