"""A dice formula as a tree, and the total it gives for the faces its dice show, as Avrae's
d20 gives it (`dicegrammar` reads the text into the tree).

Each operator does what d20's does, in the order written; the same operator twice in a row is
one operator with both selectors (`kh1kl1` keeps the highest and the lowest). A selector picks
among the dice (or a set's items) still kept: `h3` the highest 3, `l3` the lowest 3 (ties: the
earlier first), `>3`, `<3`, and `3` those showing 3.

    k  keeps what it picks, drops the rest      p  drops what it picks (dh/dl N: ph/pl N)
    rr rerolls what it picks until none is      ro rerolls what it picks, once
    ra rolls one more die for the first picked  e  one more die for each picked, again for
    mi N, ma N: each die at least, at most N       each new one picked (explodes)

`/` divides in floating point and the total is cut toward 0 at the end, `//` is floor division
and `%` the remainder, all as d20 computes them (its float quirks too: `15//(5/3)` is 8). A set
`(a, b, c)` adds its items, and k or p after it keep or drop whole items; `(2d6)kh1` keeps the
highest die, as in d20.

Faces come from a `draw(count, sides, low)` callback in the order d20 rolls them: each dice
term's dice, terms left to right, then its rerolls and explosions as its operators ask, in the
order of the dice they are for. Nothing here rolls: the same faces always give the same total.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

MAX_TEXT = 64  # characters of a dice expression
MAX_COUNT = 1000  # dice in one roll, rerolls and explosions included (d20 stops there too)
MAX_SIDES = 1_000_000  # faces of a die
MAX_DIGITS = 7  # digits of a number
MAX_TOTAL = 10**15 - 1  # how far a formula's total may reach: 15 digits, exact in any JSON reader

Num = int | float  # a `/` makes a float, as in d20
Draw = Callable[[int, int, int], Sequence[int]]  # (count, sides, lowest face) -> that many faces


def excerpt(text: str) -> str:
    """At most 40 characters of what was given, for an error message."""
    return repr(text if len(text) <= 40 else text[:37] + "...")


class DiceError(ValueError):
    """A dice expression or a set of entered faces is not acceptable."""


@dataclass(frozen=True, slots=True)
class Selector:
    """What an operator picks: `kind` "" (those showing n), "h"/"l" (the n highest/lowest), ">"/"<"."""

    kind: str
    n: int

    def pick(self, kept: list[_Value]) -> list[_Value]:
        if self.kind == "h":
            return sorted(kept, key=_total, reverse=True)[: self.n]  # a stable sort: ties, the earlier
        if self.kind == "l":
            return sorted(kept, key=_total)[: self.n]
        if self.kind == ">":
            return [v for v in kept if v.total() > self.n]
        if self.kind == "<":
            return [v for v in kept if v.total() < self.n]
        return [v for v in kept if v.total() == self.n]


@dataclass(frozen=True, slots=True)
class Operator:
    """One operator on dice or a set: its name (k p rr ro ra e mi ma) and its selectors."""

    name: str
    selectors: tuple[Selector, ...]

    def select(self, target: _Value, most: int | None = None) -> list[_Value]:
        """The kept items the selectors pick (at most `most`), in the order of the items."""
        kept = [v for v in target.items() if v.kept]
        picked: set[int] = set()
        for s in self.selectors:
            room = None if most is None else most - len(picked)
            if room == 0:
                break
            batch = s.pick(kept)
            picked.update(id(v) for v in (batch if room is None else batch[:room]))
        return [v for v in kept if id(v) in picked]

    def apply(self, target: _Value, roll: _Roll) -> None:
        name = self.name
        if name == "k":
            keep = {id(v) for v in self.select(target)}
            for v in target.items():
                if id(v) not in keep:
                    v.kept = False
        elif name == "p":
            for v in self.select(target):
                v.kept = False
        elif name in ("mi", "ma"):
            n = self.selectors[-1].n
            for die in target.items():
                if isinstance(die, _Die) and die.kept and (die.value < n if name == "mi" else die.value > n):
                    die.value = n
        else:
            assert isinstance(target, _Rolled)  # the grammar gives these to dice only
            if name == "ro":
                target.reroll(self.select(target), roll)
            elif name == "rr":
                picked = self.select(target)
                while picked:  # it ends: the grammar refuses selectors every face meets
                    target.reroll(picked, roll)
                    picked = self.select(target)
            elif name == "ra":
                target.add(len(self.select(target, most=1)), roll)
            else:  # e
                done: set[int] = set()
                picked = self.select(target)
                while picked:
                    target.add(len(picked), roll)
                    done.update(id(v) for v in picked)
                    picked = [v for v in self.select(target) if id(v) not in done]


class Node:
    """A part of a formula: what it evaluates to, and what is known of it before any roll."""

    __slots__ = ()

    def evaluate(self, roll: _Roll) -> _Value:  # pragma: no cover - abstract
        raise NotImplementedError

    def bounds(self) -> tuple[int, int]:  # pragma: no cover - abstract
        """(the largest size its value can have, the largest denominator it can have): checked
        before any roll that a total fits, exact for whole numbers and safe through `/`."""
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class Literal(Node):
    value: int

    def evaluate(self, roll: _Roll) -> _Value:
        return _Constant(self.value)

    def bounds(self) -> tuple[int, int]:
        return self.value, 1


@dataclass(frozen=True, slots=True)
class DiceTerm(Node):
    """`NdX` (`NdXz`) and its operators; `at` is where its count is written (for `scaled`)."""

    count: int
    sides: int
    low: int
    operators: tuple[Operator, ...]
    at: tuple[int, int]

    def evaluate(self, roll: _Roll) -> _Value:
        rolled = _Rolled(self.sides, self.low, roll.dice(self.count, self.sides, self.low))
        for op in self.operators:
            op.apply(rolled, roll)
        return rolled

    @property
    def fixed(self) -> bool:
        """Whether it always rolls `count` dice (no reroll, no explosion)."""
        return all(op.name in ("k", "p", "mi", "ma") for op in self.operators)

    def bounds(self) -> tuple[int, int]:
        face = max([self.sides + self.low - 1] + [op.selectors[-1].n for op in self.operators if op.name == "mi"])
        return (self.count if self.fixed else MAX_COUNT) * face, 1


@dataclass(frozen=True, slots=True)
class Unary(Node):
    sign: str
    inner: Node

    def evaluate(self, roll: _Roll) -> _Value:
        return _Signed(self.sign, self.inner.evaluate(roll))

    def bounds(self) -> tuple[int, int]:
        return self.inner.bounds()


@dataclass(frozen=True, slots=True)
class Binary(Node):
    op: str
    left: Node
    right: Node

    def evaluate(self, roll: _Roll) -> _Value:
        left = self.left.evaluate(roll)
        right = self.right.evaluate(roll)
        return _Arithmetic(left, right, _arithmetic(self.op, left.total(), right.total(), roll))

    def bounds(self) -> tuple[int, int]:
        (a, p), (b, q) = self.left.bounds(), self.right.bounds()
        if self.op in ("+", "-"):
            return a + b, p * q
        if self.op == "*":
            return a * b, p * q
        if self.op == "/":  # a divisor that isn't 0 is at least 1/q (floats stay within these too)
            return a * q, p * b * q
        if self.op == "//":
            return a * q + 1, 1
        return b, p * q  # %: less than the divisor


@dataclass(frozen=True, slots=True)
class SetTerm(Node):
    """`(a, b, c)`, or `(a)` (`paren`: one item and no comma), and its keep and drop operators."""

    items: tuple[Node, ...]
    paren: bool
    operators: tuple[Operator, ...]

    def evaluate(self, roll: _Roll) -> _Value:
        values = [item.evaluate(roll) for item in self.items]
        target: _Value = _Paren(values[0]) if self.paren else _Set(values)
        for op in self.operators:
            op.apply(target, roll)
        return target

    def bounds(self) -> tuple[int, int]:
        size, den = 0, 1
        for item in self.items:
            a, q = item.bounds()
            size, den = size + a, den * q
        return size, den


@dataclass(frozen=True, slots=True)
class Formula:
    """A dice expression read by the d20 grammar: its text, its tree, and what is known of it
    before any roll."""

    text: str
    root: Node
    terms: tuple[DiceTerm, ...]  # its dice terms, in the order they roll
    modifier: int  # the numbers added to the whole (3 of 1d8+2d6+3), for DiceRolled.modifier
    operated: bool  # whether an operator may change which dice count, or what for (DiceRolled.kept)

    @classmethod
    def of(cls, text: str, root: Node) -> Formula:
        return cls(text, root, tuple(_terms(root)), _modifier(root), _operates(root))

    @property
    def fixed(self) -> bool:
        """Whether every roll shows the same number of faces (no reroll, no explosion)."""
        return all(t.fixed for t in self.terms)

    @property
    def dice(self) -> tuple[tuple[int, int, int], ...]:
        """(count, sides, lowest face) of each dice term, in order."""
        return tuple((t.count, t.sides, t.low) for t in self.terms)

    def takes(self, n: int) -> bool:
        """Whether a roll of it can show `n` faces."""
        least = sum(t.count for t in self.terms)
        return n == least if self.fixed else least <= n <= MAX_COUNT

    def evaluate(self, draw: Draw) -> tuple[int, tuple[int, ...]]:
        """(the total, the values of the dice that count) with faces from `draw`; raises DiceError
        past 1,000 dice or on a division by 0 (and whatever `draw` raises)."""
        roll = _Roll(self.text, draw)
        value = self.root.evaluate(roll)
        return int(value.total()), tuple(value.counted())  # int() cuts toward 0, as d20's total

    def asks(self) -> str:
        """What a person rolling it by hand enters: the faces of each die, in order."""
        dice = ", then ".join(f"{t.count}d{t.sides}{'z' if t.low == 0 else ''}" for t in self.terms)
        n = sum(t.count for t in self.terms)
        if self.fixed:
            return f"{n} number(s), in order: {dice}"
        return f"{n} number(s) or more, in the order rolled: {dice}, then each reroll and explosion"

    def scaled(self, times: int) -> str:
        """Its text with `times` as many dice in each term (a critical hit's damage); raises
        DiceError when anything keeps or drops (more dice would change what that means)."""
        if _operates(self.root, ("k", "p")):
            raise DiceError(f"{excerpt(self.text)}: only dice without keep or drop scale")
        out, last = [], 0
        for t in self.terms:
            out += [self.text[last : t.at[0]], str(t.count * times)]
            last = t.at[1]
        return "".join(out) + self.text[last:]


def _terms(node: Node) -> list[DiceTerm]:
    if isinstance(node, DiceTerm):
        return [node]
    if isinstance(node, Unary):
        return _terms(node.inner)
    if isinstance(node, Binary):
        return _terms(node.left) + _terms(node.right)
    if isinstance(node, SetTerm):
        return [t for item in node.items for t in _terms(item)]
    return []


def _modifier(node: Node, sign: int = 1) -> int:
    """The numbers added to the whole: the literals of the outermost sum, with their signs."""
    if isinstance(node, Literal):
        return sign * node.value
    if isinstance(node, Unary) and isinstance(node.inner, Literal):
        return sign * (-1 if node.sign == "-" else 1) * node.inner.value
    if isinstance(node, Binary) and node.op in ("+", "-"):
        return _modifier(node.left, sign) + _modifier(node.right, -sign if node.op == "-" else sign)
    return 0


def _operates(node: Node, names: tuple[str, ...] = ("k", "p", "rr", "ro", "ra", "e", "mi", "ma")) -> bool:
    """Whether any part of it has an operator of these names."""
    if isinstance(node, DiceTerm | SetTerm) and any(op.name in names for op in node.operators):
        return True
    if isinstance(node, SetTerm):
        return any(_operates(item, names) for item in node.items)
    if isinstance(node, Unary):
        return _operates(node.inner, names)
    if isinstance(node, Binary):
        return _operates(node.left, names) or _operates(node.right, names)
    return False


# --- evaluating: each part's value, kept as d20 keeps them --------------------------------------


class _Roll:
    """One evaluation: where faces come from, and how many dice it rolled (it stops past 1,000)."""

    __slots__ = ("draw", "rolled", "text")

    def __init__(self, text: str, draw: Draw) -> None:
        self.text = text
        self.draw = draw
        self.rolled = 0

    def faces(self, count: int, sides: int, low: int) -> Sequence[int]:
        self.rolled += count
        if self.rolled > MAX_COUNT:
            raise DiceError(
                f"{excerpt(self.text)} rolled more than {MAX_COUNT} dice, rerolls and explosions counted "
                "(d20 stops there too)"
            )
        return self.draw(count, sides, low)

    def dice(self, count: int, sides: int, low: int) -> list[_Die]:
        return [_Die(f) for f in self.faces(count, sides, low)]


class _Value:
    """A part as evaluated: its number, whether it still counts (k and p drop), and the items a
    k or p after it picks from (a dice term's dice, a set's items, else itself)."""

    __slots__ = ("kept",)

    def __init__(self) -> None:
        self.kept = True

    def number(self) -> Num:  # pragma: no cover - abstract
        raise NotImplementedError

    def total(self) -> Num:
        return self.number() if self.kept else 0

    def items(self) -> Sequence[_Value]:
        return (self,)

    def counted(self) -> list[int]:
        """The values of the dice that count toward the total, in order."""
        return []


def _total(v: _Value) -> Num:
    return v.total()


class _Die(_Value):
    __slots__ = ("value",)

    def __init__(self, value: int) -> None:
        self.kept = True
        self.value = value

    def number(self) -> Num:
        return self.value


class _Constant(_Value):
    __slots__ = ("value",)

    def __init__(self, value: Num) -> None:
        self.kept = True
        self.value = value

    def number(self) -> Num:
        return self.value


class _Rolled(_Value):
    __slots__ = ("dice", "low", "sides")

    def __init__(self, sides: int, low: int, dice: list[_Die]) -> None:
        self.kept = True
        self.sides = sides
        self.low = low
        self.dice = dice

    def number(self) -> Num:
        return sum(d.value for d in self.dice if d.kept)

    def items(self) -> Sequence[_Value]:
        return self.dice

    def counted(self) -> list[int]:
        return [d.value for d in self.dice if d.kept] if self.kept else []

    def reroll(self, picked: list[_Value], roll: _Roll) -> None:
        for die, face in zip(picked, roll.faces(len(picked), self.sides, self.low)):
            assert isinstance(die, _Die)
            die.value = face

    def add(self, count: int, roll: _Roll) -> None:
        if count:
            self.dice.extend(roll.dice(count, self.sides, self.low))


class _Signed(_Value):
    __slots__ = ("inner", "sign")

    def __init__(self, sign: str, inner: _Value) -> None:
        self.kept = True
        self.sign = sign
        self.inner = inner

    def number(self) -> Num:
        return -self.inner.total() if self.sign == "-" else self.inner.total()

    def counted(self) -> list[int]:
        return self.inner.counted() if self.kept else []


class _Arithmetic(_Value):
    __slots__ = ("left", "right", "value")

    def __init__(self, left: _Value, right: _Value, value: Num) -> None:
        self.kept = True
        self.left = left
        self.right = right
        self.value = value

    def number(self) -> Num:
        return self.value

    def counted(self) -> list[int]:
        return self.left.counted() + self.right.counted() if self.kept else []


class _Set(_Value):
    __slots__ = ("values",)

    def __init__(self, values: list[_Value]) -> None:
        self.kept = True
        self.values = values

    def number(self) -> Num:
        return sum((v.total() for v in self.values), start=0)

    def items(self) -> Sequence[_Value]:
        return self.values

    def counted(self) -> list[int]:
        return [n for v in self.values for n in v.counted()] if self.kept else []


class _Paren(_Value):
    __slots__ = ("inner",)

    def __init__(self, inner: _Value) -> None:
        self.kept = True
        self.inner = inner

    def number(self) -> Num:
        return self.inner.total()

    def items(self) -> Sequence[_Value]:
        return self.inner.items()

    def counted(self) -> list[int]:
        return self.inner.counted() if self.kept else []


def _arithmetic(op: str, a: Num, b: Num, roll: _Roll) -> Num:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if b == 0:
        raise DiceError(f"{excerpt(roll.text)} divides by 0 with these dice (d20 refuses that too)")
    out = a / b if op == "/" else a // b if op == "//" else a % b
    if abs(out) > MAX_TOTAL:  # a float remainder can be tiny (1 % (1/3) is 5.6e-17): dividing by it passes the cap
        raise DiceError(f"{excerpt(roll.text)} passes {len(str(MAX_TOTAL))} digits with these dice")
    return out
