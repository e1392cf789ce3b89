"""The dice grammar a table knows from Avrae's d20, read into a `dicetree.Formula` by a small
recursive descent, one function a rule:

    sum       := product (("+" | "-") product)*
    product   := unary (("*" | "/" | "//" | "%") unary)*
    unary     := ("+" | "-") unary | atom
    atom      := number | dice dice_op* | "(" [sum ("," sum)* [","]] ")" set_op*
    dice      := [count] "d" sides ["z"]                  z: faces count from 0
    dice_op   := ("k" | "p" | "rr" | "ro" | "ra" | "e" | "mi" | "ma") selector | ("dh" | "dl") number
    set_op    := ("k" | "p") selector | ("dh" | "dl") number
    selector  := ["h" | "l" | ">" | "<"] number

Three of d20's strings mean something else to a table that used combatlog before, so they are
refused with the spelling to use, never read differently: `k` with a bare number (`4d6k3`
keeps the dice showing 3 in d20, the highest 3 in combatlog before), comparisons (`>=`, `<`,
... give 1 or 0 in d20; `NdX>=T` alone is combatlog's success pool, read by `dice`) and `d%` in a
formula (d20's tens die, 0-90; alone it is combatlog's 1-100). An operator that would never
stop (`1d6e>0`, `1d6rrh1`), a divisor that is always 0 and a total past 15 digits are refused
when read. d20's annotations (`[fire]`), comments and decimals aren't read.
"""

from __future__ import annotations

from combatlog.engine.dicetree import (
    MAX_COUNT,
    MAX_DIGITS,
    MAX_SIDES,
    MAX_TOTAL,
    Binary,
    DiceError,
    DiceTerm,
    Formula,
    Literal,
    Node,
    Operator,
    Selector,
    SetTerm,
    Unary,
    excerpt,
)

ACCEPTED = (
    "use NdX dice (NdXz: faces from 0), whole numbers, + - * / // % ( ), and after dice kh/kl/ph/pl N or "
    "rr/ro/ra/e/mi/ma X, e.g. 1d8+2d6+3, 4d6kh3, 1d6e6, (1d20+5)*2, or a pool alone, 6d10>=6c "
    f"(ASCII digits, at most {MAX_DIGITS} a number)"
)
_DICE_OPS = ("rr", "ro", "ra", "mi", "ma", "dh", "dl", "k", "p", "e")  # a longer name before its prefix
_SET_OPS = ("dh", "dl", "k", "p")


class _Reader:
    """The text being read, and where."""

    __slots__ = ("at", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0

    def peek(self) -> str:
        return self.text[self.at : self.at + 1]

    def take(self, s: str) -> bool:
        if self.text.startswith(s, self.at):
            self.at += len(s)
            return True
        return False

    def unreadable(self, expected: str) -> DiceError:
        """The text breaks the grammar here: what was expected, and what is accepted."""
        shown = self.peek()
        where = f"at character {self.at + 1} ({shown!r})" if shown else "at its end"
        return DiceError(f"can't read dice expression {excerpt(self.text)}; {where}: {expected}; {ACCEPTED}")

    def refused(self, why: str) -> DiceError:
        """The text follows the grammar but can't be rolled as written: why, and what to write."""
        return DiceError(f"{excerpt(self.text)}: {why}")

    def number(self) -> int | None:
        start = self.at
        while self.peek().isdigit():  # the text is ASCII: these are 0-9
            self.at += 1
        if self.at - start > MAX_DIGITS:
            raise self.refused(f"ASCII digits, at most {MAX_DIGITS} a number")
        if self.peek() == ".":
            raise self.refused("whole numbers only (d20's decimals aren't read)")
        return int(self.text[start : self.at]) if self.at > start else None


def parse_formula(text: str) -> Formula:
    """Read `text` (lower case, no spaces, at most 64 characters) by the d20 grammar; raises
    DiceError saying where it can't be read, or why it is refused, and what to write."""
    if not text.isascii():
        bad = next(c for c in text if not c.isascii())
        raise DiceError(f"can't read dice expression {excerpt(text)}: {bad!r} isn't ASCII; {ACCEPTED}")
    r = _Reader(text)
    if "[" in text:
        raise r.refused("annotations such as [fire] aren't read; the rules name a damage's kind")
    root = _sum(r)
    if r.at < len(text):
        raise _unexpected(r, "expected + - * / // % or the end")
    formula = Formula.of(text, root)
    if sum(t.count for t in formula.terms) > MAX_COUNT:
        raise r.refused(f"roll 1 to {MAX_COUNT} dice of 2 to {MAX_SIDES} sides")
    if root.bounds()[0] > MAX_TOTAL:
        raise r.refused(f"its total could pass {len(str(MAX_TOTAL))} digits")
    return formula


def _unexpected(r: _Reader, expected: str) -> DiceError:
    if r.peek() in ("<", ">", "=", "!"):
        return r.refused(
            "comparisons aren't read (d20 makes them 1 or 0); a success pool is NdX>=T alone "
            "(6d10>=6, 6d10>=6c), and the rules compare totals"
        )
    if r.peek() == ",":
        return r.unreadable("a comma separates the items of a set in ( ), e.g. (1d20, 1d20)kh1")
    if r.peek() == ")":
        return r.unreadable("a ) with no ( before it")
    return r.unreadable(expected)


def _sum(r: _Reader) -> Node:
    node = _product(r)
    while r.peek() in ("+", "-"):
        op = r.peek()
        r.at += 1
        node = Binary(op, node, _product(r))
    return node


def _product(r: _Reader) -> Node:
    node = _unary(r)
    while True:
        if r.take("//"):
            op = "//"
        elif r.peek() in ("*", "/", "%"):
            op = r.peek()
            r.at += 1
        else:
            return node
        right = _unary(r)
        if op != "*" and right.bounds()[0] == 0:
            raise r.refused(f"{op} by 0: it divides by 0 whatever the dice show")
        node = Binary(op, node, right)


def _unary(r: _Reader) -> Node:
    if r.peek() in ("+", "-"):
        sign = r.peek()
        r.at += 1
        return Unary(sign, _unary(r))
    return _atom(r)


def _atom(r: _Reader) -> Node:
    if r.take("("):
        items: list[Node] = []
        comma = False
        while not r.take(")"):
            if r.at >= len(r.text):
                raise r.unreadable("a ( isn't closed")
            items.append(_sum(r))
            comma = r.take(",")
            if not comma and r.peek() != ")":
                raise _unexpected(r, "expected , or ) in ( )")
        return SetTerm(tuple(items), len(items) == 1 and not comma, _operators(r, _SET_OPS, 0, 1))
    start = r.at
    count = r.number()
    if not r.take("d"):
        if count is None:
            raise _unexpected(r, "expected a number, dice (NdX) or (")
        return Literal(count)
    at = (start, r.at - 1)
    if r.peek() == "%":
        raise r.refused(
            "d% alone is a percentile die (1-100), but in a formula d20 reads it as a tens die (0-90): "
            "write 1d100, or 1d10z*10 for a tens die"
        )
    sides = r.number()
    if sides is None:
        raise r.unreadable("a die needs its sides, e.g. d6")
    low = 0 if r.take("z") else 1
    count = 1 if count is None else count
    if not (1 <= count <= MAX_COUNT and 2 <= sides <= MAX_SIDES):
        raise r.refused(f"roll 1 to {MAX_COUNT} dice of 2 to {MAX_SIDES} sides")
    return DiceTerm(count, sides, low, _operators(r, _DICE_OPS, sides, low), at)


def _operators(r: _Reader, names: tuple[str, ...], sides: int, low: int) -> tuple[Operator, ...]:
    """The operators after dice (or a set), checked; consecutive ones of a name made one."""
    ops: list[Operator] = []
    while name := next((n for n in names if r.text.startswith(n, r.at)), None):
        start = r.at
        r.at += len(name)
        if name in ("dh", "dl"):
            name, kind = "p", name[1]
        else:
            kind = r.peek() if r.peek() in ("h", "l", ">", "<") else ""
            r.at += len(kind)
        n = r.number()
        written = r.text[start : r.at]
        if n is None:
            raise r.unreadable(f"{written} needs a number, e.g. {name}h1, {name}<3 or {name}2")
        if name == "k" and not kind:
            fixed = r.text[:start] + f"kh{n}" + r.text[r.at :]
            raise r.refused(
                f"d20 reads k{n} as 'keep the dice showing {n}', combatlog before as 'keep the highest {n}'; "
                f"write {excerpt(fixed)} for the highest {n} (kl{n}: the lowest)"
            )
        if name in ("mi", "ma") and kind:
            raise r.refused(f"{written}: {name} takes a number, as in 8d6{name}2")
        sel = Selector(kind, n)
        if ops and ops[-1].name == name and name not in ("mi", "ma"):
            ops[-1] = Operator(name, (*ops[-1].selectors, sel))
        else:
            ops.append(Operator(name, (sel,)))
        if name in ("rr", "e") and _every_face(ops[-1], sides, low):
            what = "reroll" if name == "rr" else "explode"
            raise r.refused(f"{written} would {what} every die forever; pick some faces, as in {name}1 or {name}>5")
    if names is _SET_OPS and r.text.startswith(("rr", "ro", "ra", "e", "mi", "ma"), r.at):
        raise r.refused("rr, ro, ra, e, mi and ma go after dice (1d6e6), not after ( )")
    return tuple(ops)


def _every_face(op: Operator, sides: int, low: int) -> bool:
    """Whether the operator picks a die whatever it shows, so rr or e would never stop."""
    high = sides + low - 1
    above = min((s.n for s in op.selectors if s.kind == ">"), default=high)  # faces above it are picked
    below = max((s.n for s in op.selectors if s.kind == "<"), default=low)  # and faces below it
    shown = {s.n for s in op.selectors if s.kind == ""}
    rest = range(max(below, low), min(above, high) + 1)  # the faces neither > nor < picks
    if len(rest) <= len(shown) and all(f in shown for f in rest):
        return True
    return op.name == "rr" and any(s.kind in ("h", "l") and s.n > 0 for s in op.selectors)
