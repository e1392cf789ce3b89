"""Dice: the expression parser and the four sources of faces (seeded, scripted, entered, recorded).

An expression (case-insensitive, no spaces needed) is a plain roll, read here and counted
without a tree, as fast as ever:

    2d10        the sum of two ten-sided dice           d%      one percentile die (1-100)
    2d10z       ten-sided dice read 0-9 (z: faces count from zero), e.g. Starflight's
    2d6+3       a modifier (+ or -, several allowed)      d10     one die
    4d6kh3      keep the highest 3 (kl: lowest)          4d6dl1  drop the lowest 1 (dh: highest)
    6d10>=6     a pool: count faces >= 6 (successes)     6d10>=6c  ones cancel successes;
                                                                   no success and a 1 = botch

or a formula in the syntax a table knows from Avrae's d20, with d20's totals (`1d8+2d6+3`,
`(1d20+5)*2`, `1d6e6`, `2d6ro<3`, `8d6mi2`, `(1d20,1d20)kh1`): `dicegrammar` reads it and
`dicetree` totals it. A pool is read only alone: in a formula, d20 would compare the sum.

We roll our own: d20 rolls from the global `random` module and can't be seeded per encounter.
Every source hands out faces one roll at a time (a formula asks for each term's dice, then for
each reroll and explosion); the engine turns them into a DiceRolled event. Nothing here reads a
clock or the global random module.
"""

from __future__ import annotations

import hashlib
import random
import re
from _random import Random as _Generator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from combatlog.engine.dicegrammar import parse_formula
from combatlog.engine.dicetree import MAX_COUNT, MAX_SIDES, MAX_TEXT, DiceError, Formula, excerpt
from combatlog.events import DiceRolled

__all__ = [
    "MAX_COUNT",
    "MAX_SIDES",
    "MAX_TEXT",
    "PARSE_CACHE",
    "Dice",
    "DiceError",
    "DiceMismatch",
    "EnteredDice",
    "Expr",
    "MixedDice",
    "NeedDice",
    "RecordedDice",
    "RollMismatch",
    "ScriptedDice",
    "SeededDice",
    "parse",
    "step_seed",
]

# A plain roll: one kind of die with keep or drop and modifiers, or a success pool alone. ASCII
# digits only, at most 7 of them a number ([0-9], not \d: that matches any script's digits).
_TERM = re.compile(
    r"""^(?P<count>[0-9]{0,7})d(?P<sides>[0-9]{1,7}|%)(?P<zero>z)?
        (?:>=(?P<target>[0-9]{1,7})(?P<cancel>c)?
          |(?:(?P<keep>kh|kl|dh|dl)(?P<keepn>[0-9]{1,7}))?(?P<mods>(?:[+-][0-9]{1,7})*))$""",
    re.VERBOSE,
)
_MODS = re.compile(r"[+-][0-9]{1,7}")
PARSE_CACHE = 4096  # expressions kept parsed (the cache is bounded: a stream of distinct ones can't grow it)


class NeedDice(DiceError):
    """A roll needs faces that weren't entered; says which roll, for what."""

    def __init__(
        self,
        expression: str,
        purpose: str,
        count: int,
        sides: int,
        low: int = 1,
        asks: str | None = None,
        by: str | None = None,
    ) -> None:
        self.asks = asks or f"{count} number(s) from {low} to {sides + low - 1}"
        whose = f" by {by}" if by else ""
        super().__init__(f"enter the faces for {expression} ({purpose}){whose}: {self.asks}")
        self.expression = expression
        self.purpose = purpose
        self.by = by  # who rolls it (None: no combatant, or not known where it was raised)

    def rolled_by(self, by: str) -> NeedDice:
        """The same need, naming who rolls it."""
        return NeedDice(self.expression, self.purpose, 0, 0, asks=self.asks, by=by)


@dataclass(frozen=True, slots=True)
class Expr:
    """A parsed dice expression: a plain roll, read from these fields, or a formula (`formula`
    set; then `count` and `sides` are 0, and its dice are `dice`)."""

    text: str
    count: int
    sides: int
    keep: str | None = None
    keepn: int = 0
    target: int | None = None
    cancel: bool = False
    modifier: int = 0
    low: int = 1  # the lowest face: 1, or 0 for zero-based dice (NdXz)
    formula: Formula | None = None

    @property
    def high(self) -> int:
        """The highest face."""
        return self.sides + self.low - 1

    @property
    def dice(self) -> tuple[tuple[int, int, int], ...]:
        """(count, sides, lowest face) of each kind of dice it rolls, in order: what a typed roll names."""
        return self.formula.dice if self.formula is not None else ((self.count, self.sides, self.low),)

    def takes(self, n: int) -> bool:
        """Whether a roll of it can show `n` faces (a formula that explodes or rerolls shows more)."""
        return self.formula.takes(n) if self.formula is not None else n == self.count

    def scaled(self, times: int) -> Expr:
        """This expression with `times` as many dice, the modifier kept: a critical hit's damage
        (`Expr.scaled(2)` of `2d6+3` is `4d6+3`, of `1d8+1d6+2` is `2d8+2d6+2`). Only dice
        without keep, drop or successes scale."""
        if self.keep is not None or self.target is not None:
            raise DiceError(f"{self.text}: only a plain sum of dice scales (no keep, no successes)")
        if isinstance(times, bool) or not isinstance(times, int) or not 1 <= times <= MAX_COUNT:
            raise DiceError(f"{self.text} scaled: give a whole number of times, 1 to {MAX_COUNT}")
        if self.formula is not None:
            return parse(self.formula.scaled(times))
        zero = "z" if self.low == 0 else ""
        return parse(f"{self.count * times}d{self.sides}{zero}" + (f"{self.modifier:+d}" if self.modifier else ""))

    def count_faces(
        self,
        faces: Sequence[int],
        purpose: str = "",
        source: Literal["engine", "entered"] = "engine",
        by: str | None = None,
    ) -> DiceRolled:
        """The DiceRolled event for these faces (ints, which every source and reader checks);
        raises DiceError when they aren't a roll of a formula (too few, too many, or one its
        die can't show)."""
        if self.formula is not None:
            return _stamp(_read(self, faces, purpose), purpose, source, by)
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
                purpose=purpose,
                source=source,
                by=by,
                kept=kept,
            )
        # no Python frame a die (a pool rolls many): the faces are ints, so these count the same
        hits = sum(map(self.target.__le__, values))
        ones = values.count(1)
        botch = False
        if self.cancel:
            botch = hits == 0 and ones > 0
            hits = max(0, hits - ones)
        return DiceRolled(
            expression=self.text,
            faces=tuple(faces),
            total=hits + self.modifier,
            modifier=self.modifier,
            purpose=purpose,
            source=source,
            by=by,
            kept=kept,
            successes=hits,
            botch=botch,
        )


_parsed: dict[str, Expr] = {}


def parse(expression: str) -> Expr:
    """Parse a dice expression; raises DiceError saying what is accepted."""
    if not isinstance(expression, str):
        raise DiceError(f"a dice expression is text, e.g. 2d6+1, not {type(expression).__name__}")
    cached = _parsed.get(expression)  # as written: a fight rolls the same few texts again and again
    if cached is not None:
        return cached
    text = expression.strip().lower().replace(" ", "")
    cached = _parsed.get(text)
    if cached is not None:
        _keep(expression, cached)
        return cached
    if len(text) > MAX_TEXT:
        raise DiceError(f"{excerpt(expression)}: a dice expression is at most {MAX_TEXT} characters")
    m = _TERM.match(text)
    if m is None:
        formula = parse_formula(text)
        expr = Expr(text=text, count=0, sides=0, modifier=formula.modifier, formula=formula)
    else:
        expr = _plain(m, expression, text)
    _keep(text, expr)
    if expression != text:
        _keep(expression, expr)
    return expr


def _keep(key: str, expr: Expr) -> None:
    """Keep `expr` parsed under `key` (the cache emptied first when full: it stays bounded)."""
    if len(_parsed) >= PARSE_CACHE:
        _parsed.clear()
    _parsed[key] = expr


def _plain(m: re.Match[str], expression: str, text: str) -> Expr:
    count = int(m["count"] or 1)
    sides = 100 if m["sides"] == "%" else int(m["sides"])
    if count < 1 or count > MAX_COUNT or sides < 2 or sides > MAX_SIDES:
        raise DiceError(f"{excerpt(expression)}: roll 1 to {MAX_COUNT} dice of 2 to {MAX_SIDES} sides")
    keepn = int(m["keepn"] or 0)
    if m["keep"] and keepn > count:
        raise DiceError(f"{excerpt(expression)}: can't keep or drop {keepn} of {count} dice")
    return Expr(
        text=text,
        count=count,
        sides=sides,
        keep=m["keep"],
        keepn=keepn,
        target=int(m["target"]) if m["target"] else None,
        cancel=bool(m["cancel"]),
        modifier=sum(int(x) for x in _MODS.findall(m["mods"] or "")),
        low=0 if m["zero"] else 1,
    )


@lru_cache(maxsize=256)
def _dice(count: int, sides: int, low: int) -> Expr:
    """The plain roll of `count` dice a formula asks a source for."""
    return Expr(text=f"{count}d{sides}" + ("z" if low == 0 else ""), count=count, sides=sides, low=low)


class Dice:
    """A source of faces. `roll` returns the DiceRolled event of one roll.

    A source says what `faces` a plain roll shows; a formula asks it for each of its terms' dice,
    and for each reroll and explosion, in the order d20 rolls them."""

    source: Literal["engine", "entered"] = "engine"

    def faces(self, expr: Expr, purpose: str) -> tuple[int, ...]:  # pragma: no cover - abstract
        raise NotImplementedError

    def roll(self, expression: str, purpose: str = "", by: str | None = None) -> DiceRolled:
        """Roll `expression` for `purpose`; returns the event recording every face."""
        expr = parse(expression)
        try:
            if expr.formula is None:  # the fast path: one call of `faces`, one event made
                return expr.count_faces(self.faces(expr, purpose), purpose, self.source, by)
            return _stamp(self.roll_formula(expr, purpose), purpose, self.source, by)
        except NeedDice as need:  # say whose roll it is: the one who types it in knows what to roll
            if by is None or need.by is not None or type(need) is not NeedDice:
                raise
            raise need.rolled_by(by) from None

    def roll_formula(self, expr: Expr, purpose: str) -> DiceRolled:
        """A formula rolled with faces from `faces`, asked for term by term, then for each
        reroll and explosion (purpose and source filled in by the caller)."""
        assert expr.formula is not None
        faces: list[int] = []

        def draw(count: int, sides: int, low: int) -> tuple[int, ...]:
            got = self.faces(_dice(count, sides, low), purpose)
            faces.extend(got)
            return got

        try:
            total, counted = expr.formula.evaluate(draw)
        except NeedDice:
            raise NeedDice(expr.text, purpose, 0, 0, asks=expr.formula.asks()) from None
        return _rolled(expr, tuple(faces), total, counted)


def _rolled(expr: Expr, faces: tuple[int, ...], total: int, counted: tuple[int, ...]) -> DiceRolled:
    """A formula's DiceRolled: `kept` are the values the dice count for (after keep and drop,
    rerolls, minimums and maximums), when it has an operator; the faces count as shown if not."""
    assert expr.formula is not None
    return DiceRolled(
        expression=expr.text,
        faces=faces,
        total=total,
        modifier=expr.modifier,
        kept=counted if expr.formula.operated else None,
    )


def _read(
    expr: Expr, faces: Sequence[int], purpose: str, off: Callable[[int, int, int], DiceError] | None = None
) -> DiceRolled:
    """The DiceRolled of a formula whose dice showed `faces`, in the order rolled; raises
    DiceError when they run out, are left over or one can't show on its die (`off(face, sides,
    low)` makes that error)."""
    formula = expr.formula
    assert formula is not None
    why = f" ({purpose})" if purpose else ""
    at = 0

    def draw(count: int, sides: int, low: int) -> Sequence[int]:
        nonlocal at
        got = faces[at : at + count]
        if len(got) < count:
            raise DiceError(f"{expr.text}{why} rolls more dice than the {len(faces)} face(s) given; {formula.asks()}")
        for f in got:
            if not _shows(f, sides, low):
                if off is not None:
                    raise off(f, sides, low)
                raise DiceError(
                    f"{_number(f)} can't come up on {_die(sides, low)}; {expr.text}{why} takes {formula.asks()}"
                )
        at += count
        return got

    total, counted = formula.evaluate(draw)
    if at < len(faces):
        raise DiceError(f"{expr.text}{why} rolls {at} dice, {len(faces)} face(s) were given: {_listed(faces)}")
    return _rolled(expr, tuple(faces), total, counted)


def _shows(face: object, sides: int, low: int) -> bool:
    return type(face) is int and low <= face <= sides + low - 1


def _number(n: object) -> str:
    """A face for a message: a number past 15 digits isn't written out (nor can Python write one past 4,300)."""
    if type(n) is not int:
        return repr(n)[:20]
    return str(n) if abs(n) < 10**15 else "a number past 15 digits"


def _listed(faces: Sequence[int]) -> str:
    """At most 12 faces, for a message."""
    return "[" + ", ".join(_number(f) for f in faces[:12]) + (", ..." if len(faces) > 12 else "") + "]"


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


def _die(sides: int, low: int) -> str:
    return f"a d{sides}" + (" read 0-9" if low == 0 and sides == 10 else " counted from 0" if low == 0 else "")


def step_seed(seed: int, step: int) -> int:
    """The seed of step `step`'s generator: a stable hash of the encounter seed and the step."""
    return int.from_bytes(hashlib.sha256(f"{seed}:{step}".encode()).digest()[:8], "big")


class SeededDice(Dice):
    """The engine's dice: a `random.Random` of the encounter's own, one per step.

    Each step draws from a generator seeded by (encounter seed, step number), so a session
    resumed from its log rolls exactly what it would have rolled had it never stopped.
    """

    __slots__ = ("seed", "step", "_bits")

    def __init__(self, seed: int, step: int = 0) -> None:
        self.seed = seed
        self.step = step
        self._bits: Callable[[int], int] | None = None  # the generator's getrandbits, made on the first roll

    @property
    def rng(self) -> random.Random:
        """A fresh generator of the step (the one `faces` draws from starts where this one does)."""
        return random.Random(step_seed(self.seed, self.step))

    def faces(self, expr: Expr, purpose: str) -> tuple[int, ...]:
        # Exactly `rng.randint(low, high)` die after die (randint is low + _randbelow(sides), and
        # _randbelow draws sides.bit_length() bits until they fall below sides), without its three
        # Python frames a die; the generator is made on the first roll (most steps of a fight
        # roll nothing, and seeding costs more than a roll). A test holds it to randint.
        bits = self._bits
        if bits is None:
            # the C generator `random.Random` is built on, seeded the same way (an int seed goes
            # straight to it) without random.py's two Python frames: a step's seeding is most of
            # what its dice cost. The test of `faces` against `randint` holds it to `rng`.
            bits = self._bits = _Generator(step_seed(self.seed, self.step)).getrandbits
        n, low = expr.sides, expr.low
        k = n.bit_length()
        out = []
        for _ in range(expr.count):
            r = bits(k)
            while r >= n:
                r = bits(k)
            out.append(low + r)
        return tuple(out)


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
            if not _shows(f, expr.sides, expr.low):
                raise DiceError(f"scripted face {_number(f)} can't come up on {_die(expr.sides, expr.low)} ({purpose})")
        return out


class EnteredDice(Dice):
    """Faces a person rolled with physical dice and typed in: one tuple per roll, in order (a
    formula's: every die in the order rolled, rerolls and explosions too)."""

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
                f"{expr.text} ({purpose}) needs {expr.count} face(s), {len(faces)} were entered: {_listed(faces)}"
            )
        for f in faces:
            if not _shows(f, expr.sides, expr.low):
                raise DiceError(
                    f"{_number(f)} can't come up on {_die(expr.sides, expr.low)}; "
                    f"{expr.text} ({purpose}) takes {expr.low} to {expr.high}"
                )
        self.used += 1
        return faces

    def roll_formula(self, expr: Expr, purpose: str) -> DiceRolled:
        assert expr.formula is not None
        if self.used >= len(self.rolls):
            raise NeedDice(expr.text, purpose, 0, 0, asks=expr.formula.asks())
        rolled = _read(expr, self.rolls[self.used], purpose)
        self.used += 1
        return rolled


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
            if typed:  # the dice named, whatever modifier either side wrote (1d20 matches 1d20+4)
                matches = parse(typed).dice == expr.dice
            else:
                matches = expr.takes(len(self.rolls[self.used]))
            if matches:
                if expr.formula is not None:
                    return _stamp(self.roll_formula(expr, purpose), purpose, "entered", by)
                faces = super().faces(expr, purpose)  # checks the count and the range
                return _stamp(expr.count_faces(faces), purpose, "entered", by)
        if expr.formula is not None:
            return _stamp(self.seeded.roll_formula(expr, purpose), purpose, "engine", by)
        return _stamp(expr.count_faces(self.seeded.faces(expr, purpose)), purpose, "engine", by)


class DiceMismatch(DiceError):
    """A log's die that isn't what it claims: a face its die can't show, or an engine roll the
    encounter's seed doesn't give (an audit's finding, never a refusal to a person). `index`:
    which of the step's recorded rolls it is (0 for the first), so the finding names its seq."""

    index: int | None = None


class RollMismatch(DiceMismatch):
    """A log's roll that isn't the roll its step asks for: another expression, or another number
    of faces than the expression rolls (the step doesn't follow: an audit names that roll)."""


class RecordedDice(Dice):
    """A log's own rolls, replayed in order for an audit; a mismatch is reported, not rolled.

    `seeded`: the step's own dice from the encounter's seed. Every roll recorded as the
    engine's must show exactly what they give, so a forged die (a changed face, a changed
    seed) is caught; a roll recorded as entered is taken as typed in. A face its die can't
    show is refused either way, each face against its own die, however many a formula rolled.
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
        try:
            return self._replayed(expression, purpose, by)
        except DiceMismatch as exc:
            exc.index = self.used - 1  # the roll just taken from the log
            raise

    def _replayed(self, expression: str, purpose: str, by: str | None) -> DiceRolled:
        expr = parse(expression)
        if self.used >= len(self.rolled):
            raise DiceError(f"the step asks for {expr.text} ({purpose}) but the log recorded no more rolls")
        recorded = self.rolled[self.used]
        self.used += 1
        if recorded.expression != expr.text:
            raise RollMismatch(
                f"the step asks for {expr.text} ({purpose}) but the log recorded {recorded.expression} "
                f"({recorded.purpose})"
            )
        if expr.formula is None and len(recorded.faces) != expr.count:
            raise RollMismatch(
                f"the log's {expr.text} ({purpose}) shows {len(recorded.faces)} faces, "
                f"but {expr.text} rolls {expr.count}"
            )

        def off(face: int, sides: int, low: int) -> DiceError:
            return DiceMismatch(
                f"the log's {expr.text} ({purpose}) shows {_number(face)}, which {_die(sides, low)} can't show"
            )

        if expr.formula is None:
            wrong = [f for f in recorded.faces if not _shows(f, expr.sides, expr.low)]
            if wrong:
                raise off(wrong[0], expr.sides, expr.low)
            rolled = expr.count_faces(recorded.faces)
        else:
            rolled = _read(expr, recorded.faces, purpose, off)
        if self.seeded is not None and recorded.source == "engine":
            want = (
                self.seeded.faces(expr, purpose)
                if expr.formula is None
                else self.seeded.roll_formula(expr, purpose).faces
            )
            if tuple(recorded.faces) != want:
                shown = " ".join(map(_number, recorded.faces))
                raise DiceMismatch(
                    f"the engine's {expr.text} ({purpose}) shows [{shown}], "
                    f"but the encounter's seed gives [{' '.join(map(str, want))}]"
                )
        return _stamp(rolled, purpose, recorded.source, by)
