"""The command grammar shared by the command line (`do`, `play`) and the web tracker: a
command's words and `KEY=VALUE` parameters, and dice typed in at the table (`2d10: 7 9`).

A line is read into its command's type (`combatlog.engine.commands`): its words and parameters
as the log records them, then checked once, so a bad value is refused here, in one line."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from combatlog.engine.commands import KINDS, TypedCommand, read
from combatlog.engine.dice import DiceError
from combatlog.engine.dice import parse as parse_dice
from combatlog.engine.protocol import RuleSystem
from combatlog.engine.rollnames import read_name
from combatlog.events import Command


def value(text: str) -> Any:
    """`text` as JSON when it parses (`3`, `true`, `[1, 2]`), else the text itself."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # not JSON, a number past Python's digit limit, or nested too deep
        return text


UNCOLONED = re.compile(r"^\s*(?P<expr>[0-9]*d[0-9%]+\S*)\s+(?P<faces>[0-9][0-9 ,]*)$", re.I)


# a label that opens like dice (a digit, `d6`, a bracket) is dice, read as such, never a roll's name
_DICE_OPENING = re.compile(r"^\s*(?:[0-9(]|d[0-9%])", re.I)


def roll_named(label: str) -> str | None:
    """The roll `label` names, as typed (`damage by bo`), or None when it is dice or empty
    (`combatlog.engine.rollnames`)."""
    if _DICE_OPENING.match(label) or read_name(label) is None:
        return None
    return " ".join(label.split())


def typed_roll(entry: str) -> tuple[str, tuple[int, ...]]:
    """(the expression typed, the roll it names (`damage by bo: 6`), or "" for bare faces; the
    faces) of one roll typed at the table."""
    label = entry.split(":", 1)[0] if ":" in entry else ""
    named = roll_named(label)
    if named is not None:
        return (named, _faces(entry.split(":", 1)[1], entry))
    faces = typed_faces(entry)
    return (parse_dice(label.strip()).text if label.strip() else "", faces)


def _faces(text: str, entry: str) -> tuple[int, ...]:
    """The faces in `text`, numbers separated by spaces or commas; raises ValueError."""
    words = text.replace(",", " ").split()
    if not words or not all(w.isascii() and w.isdigit() and len(w) <= 6 for w in words):
        shown = entry if len(entry) <= 40 else entry[:37] + "..."
        raise ValueError(f"{shown!r}: give the faces as numbers, e.g. '2d10: 7 9' or 'damage by bo: 6'")
    return tuple(int(w) for w in words)


def typed_faces(entry: str) -> tuple[int, ...]:
    """The faces of one roll typed at the table (`2d10: 7 9`, or bare faces `7 9`), checked against
    the expression when one is given; raises ValueError saying what is accepted."""
    shown = entry if len(entry) <= 40 else entry[:37] + "..."
    if ":" in entry:
        expr_text, faces_text = entry.split(":", 1)
    else:
        uncoloned = UNCOLONED.match(entry)
        if uncoloned:
            raise ValueError(
                f"{shown!r}: put a colon after the dice: '{uncoloned['expr']}: {uncoloned['faces'].strip()}'"
            )
        expr_text, faces_text = "", entry
    faces = _faces(faces_text, entry)
    if expr_text.strip():
        try:
            expr = parse_dice(expr_text.strip())
        except DiceError as exc:
            raise ValueError(str(exc)) from None
        if expr.formula is not None:  # as many faces as its dice roll, each on its own die
            try:
                expr.count_faces(faces)
            except DiceError as exc:
                raise ValueError(f"{shown!r}: {exc}") from None
            return faces
        if len(faces) != expr.count:
            many, asked = ("a die", "one face") if expr.count == 1 else (f"{expr.count} dice", f"{expr.count} faces")
            raise ValueError(f"{shown!r}: {expr.text} is {many}; give {asked}")
        wrong = [f for f in faces if not expr.low <= f <= expr.high]
        if wrong:
            raise ValueError(
                f"{shown!r}: {', '.join(map(str, wrong))} can't show on a d{expr.sides} (faces {expr.low}-{expr.high})"
            )
    return faces


class UsageError(ValueError):
    """A command line that doesn't follow the grammar."""


def build_command(
    kind: str,
    words: tuple[str, ...],
    params: tuple[str, ...] | list[str],
    entered: tuple[tuple[int, ...], ...] | None,
    by: str,
    rules: RuleSystem | None = None,
    entered_for: tuple[str, ...] | None = None,
) -> TypedCommand:
    """The command `kind` and its words say (the grammar of `do` and `play`), typed and checked;
    raises UsageError for words that don't follow the grammar, Refused for a value that can't be.

    A rule system's own commands take the positional words it names in `command_words`: a
    name takes one word, `*name` the rest as a list, `...name` the rest as one text.
    """
    p: dict[str, Any] = {}
    for item in params:
        if "=" not in item:
            raise UsageError(f"--param {item!r}: use KEY=VALUE")
        key, text = item.split("=", 1)
        p[key] = value(text)
    actor = action = None
    targets: tuple[str, ...] = ()
    if kind == "act":
        if len(words) < 2:
            raise UsageError("act needs ACTOR ACTION [TARGET...]")
        actor, action, targets = words[0], words[1], tuple(words[2:])
    elif kind in ("end_turn", "remove"):
        if len(words) > 1:
            raise UsageError(f"{kind} takes one ACTOR; left over: {' '.join(words[1:])}")
        actor = words[0] if words else None
    elif kind == "surprise":
        p.setdefault("sides", list(words))
    elif kind == "note":
        p.setdefault("text", " ".join(words))
    elif kind == "contribute":
        if words:
            p.setdefault("value", " ".join(words))
    elif kind == "ruling":
        if words:
            p.setdefault("topic", words[0])
        if len(words) > 1:
            p.setdefault("decision", value(" ".join(words[1:])))
    elif kind == "end":
        if words:
            p.setdefault("outcome", " ".join(words))
    elif rules is not None and kind in rules.commands:
        names = rules.command_words.get(kind, ())
        rest = list(words)
        for name in names:
            if not rest:
                break
            if name.startswith("..."):
                p.setdefault(name[3:], " ".join(rest))
                rest = []
            elif name.startswith("*"):
                p.setdefault(name[1:], [value(w) for w in rest])
                rest = []
            elif name == "actor":
                actor = rest.pop(0)
            else:
                p.setdefault(name, value(rest.pop(0)))
        if rest:
            shape = " ".join(n.lstrip("*.").upper() for n in names) or "no words"
            raise UsageError(f"{kind} takes {shape}; left over: {' '.join(rest)}")
    elif words:
        raise UsageError(f"{kind} takes no words: {' '.join(words)}")
    return read(
        Command(
            kind=kind,
            actor=actor,
            action=action,
            targets=targets,
            params=p,
            by=by,
            entered=entered,
            entered_for=entered_for if entered is not None and entered_for and any(entered_for) else None,
        )
    )


TEXT_KINDS = ("note", "ruling", "end", "contribute")  # commands whose words are a text, not KEY=VALUE parameters
MAX_LINE = 4096  # characters of one command line: a person's command, with room for a long note


def split_words(line: str, what: str = "a command line") -> list[str]:
    """`line` split into words as a POSIX shell quotes them (`shlex.split`'s reading: 'single'
    quotes literal, "double" quotes with backslash escaping a quote or a backslash, a
    backslash escaping any character outside quotes), in time linear in its length, and at
    most MAX_LINE characters long; raises UsageError saying what is wrong."""
    if len(line) > MAX_LINE:
        raise UsageError(f"{what} is at most {MAX_LINE:,} characters; this one has {len(line):,}")
    words: list[str] = []
    word: list[str] = []
    started = False  # a word is under way (an empty '' is a word too)
    i, n = 0, len(line)
    while i < n:
        ch = line[i]
        if ch in " \t\r\n":  # shlex's whitespace, no other
            if started:
                words.append("".join(word))
                word, started = [], False
            i += 1
        elif ch == "'":
            end = line.find("'", i + 1)
            if end < 0:
                raise UsageError(f"can't read that line: No closing quotation (a ' opened at character {i + 1})")
            word.append(line[i + 1 : end])
            started, i = True, end + 1
        elif ch == '"':
            i += 1
            while True:
                if i >= n:
                    raise UsageError("can't read that line: No closing quotation (a \" is never closed)")
                c = line[i]
                if c == '"':
                    i += 1
                    break
                if c == "\\" and i + 1 < n and line[i + 1] in '"\\':
                    word.append(line[i + 1])
                    i += 2
                    continue
                word.append(c)
                i += 1
            started = True
        elif ch == "\\":
            if i + 1 >= n:
                raise UsageError("can't read that line: No escaped character (it ends with a backslash)")
            word.append(line[i + 1])
            started, i = True, i + 2
        else:
            word.append(ch)
            started, i = True, i + 1
    if started:
        words.append("".join(word))
    return words


def parse_line(
    line: str,
    entered: tuple[tuple[int, ...], ...] | None,
    by: str,
    rules: RuleSystem | None = None,
    entered_for: tuple[str, ...] | None = None,
) -> TypedCommand:
    """The command a line of the `play` grammar says (`act bo attack g1 weapon=axe`), typed and
    checked: words in shell quoting, `KEY=VALUE` words as parameters; raises UsageError or
    Refused."""
    words = split_words(line)
    if not words:
        raise UsageError("an empty command: type e.g. 'act ayla attack g1', 'end_turn' or 'begin'")
    kind, rest = words[0], words[1:]
    plain, params = split_params(kind, rest)
    return build_command(kind, plain, params, entered, by, rules, entered_for)


def split_params(kind: str, words: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A command's words and its `KEY=VALUE` parameters. A note's, a ruling's, an outcome's or a
    contribution's words are its text, "=" and all (`note the ford=deep`), except a word naming
    one of the command's own fields (`end victory winner=party`, `ruling cover 2 text=why`)."""
    if kind in TEXT_KINDS:
        fields = set(KINDS[kind].__struct_fields__)
        keyed = tuple(w for w in words if "=" in w and w.split("=", 1)[0] in fields)
        return tuple(w for w in words if w not in keyed), keyed
    return tuple(w for w in words if "=" not in w), tuple(w for w in words if "=" in w)


def typed_rolls(text: str) -> tuple[tuple[tuple[int, ...], ...] | None, tuple[str, ...] | None]:
    """Several rolls typed at the table, one per line or separated by `;` (`2d10: 7 9; damage by
    bo: 6`): (their faces, the expression or the roll each names, "" for bare faces), or (None,
    None) when there are none; raises ValueError saying what is accepted."""
    entries = [e.strip() for e in re.split(r"[;\n]", text) if e.strip()]
    if not entries:
        return None, None
    rolls = [typed_roll(e) for e in entries]
    return tuple(f for _, f in rolls), tuple(x for x, _ in rolls)
