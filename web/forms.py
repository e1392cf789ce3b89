"""The commands the web tracker's forms send, read from their fields: each field capped and
read in linear time, off the event loop (the caller runs `command_of` in a thread), into the
engine's own typed commands (`combatlog.engine.commands`), checked as the command line's are.
Nothing here decides: the engine refuses what its rules refuse."""

from __future__ import annotations

import re
from typing import Any

from combatlog.engine.commands import (
    KINDS,
    Act,
    Add,
    EndTurn,
    Override,
    Remove,
    Reveal,
    Seat,
    Seating,
    TypedCommand,
    View,
    checked,
    params_of,
)
from combatlog.engine.grammar import MAX_LINE, UsageError, build_command, parse_line, split_words, typed_rolls, value
from combatlog.web import statform


def command_of(fields: dict[str, str], targets: tuple[str, ...], rules: Any, state: Any = None) -> Any:
    """The command a game master's form sends, typed and checked (or a function of the session
    for `auto`); raises UsageError, DiceError or Refused saying what is wrong with it."""
    made = _made(fields, targets, rules, state)
    return checked(made) if isinstance(made, TypedCommand) else made


def _made(fields: dict[str, str], targets: tuple[str, ...], rules: Any, state: Any) -> Any:
    """The command a form's fields make, before it is checked."""
    for name, text in fields.items():
        if len(text) > MAX_LINE:
            raise UsageError(f"{name}: at most {MAX_LINE:,} characters; this one has {len(text):,}")
    kind = fields.get("kind", "").strip()
    entered, entered_for = typed_rolls(fields.get("dice", ""))
    if entered_for is not None and not any(entered_for):  # bare faces only: none named, as the grammar has it
        entered_for = None
    if kind in ("rewind", "redo_to", "amend"):
        return None  # the table walks the undo stack itself, or amends through replays.amend
    if kind in ("hurt", "condition", "copy", "remove"):
        return hands(kind, fields, targets, state, entered, entered_for)
    if kind == "rules":  # a rule system's own command, its words from the form's inputs
        own = fields.get("command", "")
        if rules is None or own not in rules.commands:
            raise UsageError(f"command {own[:40]!r}: not one of this system's own commands")
        words: list[str] = []
        for name in rules.command_words.get(own, ()):
            key = name.lstrip("*.")
            if name == "*combatants":
                words.extend(targets)
            elif name.startswith(("*", "...")):
                words.extend(split_words(fields.get(f"w.{key}", ""), key))
            elif fields.get(f"w.{key}", "").strip():
                words.append(fields[f"w.{key}"].strip())
            else:
                break  # a word left empty ends them: what follows is the command's to default
        return build_command(own, tuple(words), (), entered, "gm", rules, entered_for)
    if kind == "move":
        who, to = fields.get("combatant", ""), fields.get("to", "").strip()
        if not who or not to:
            raise UsageError("say who moves and where: a section, or x,y on a grid")
        return Override(reason="moved on the map", move={"target": who, "to": to})
    if kind == "new":
        stats_type = rules.stats_type if rules is not None else None
        stats, problems = statform.stats_from(fields, stats_type)
        problems += [m for m in statform.missing(stats, stats_type) if m not in problems]
        for name in ("id", "side"):
            if not fields.get(name, "").strip():
                problems.insert(0, f"{name}: required")
        if problems:
            raise UsageError("; ".join(problems))
        return Add(
            id=fields["id"].strip(),
            name=fields.get("name", "").strip() or fields["id"].strip(),
            side=fields["side"].strip(),
            kind=fields.get("combatant_kind", "npc"),  # type: ignore[arg-type]  # checked with the rest
            stats=stats,
            hidden=True if fields.get("hidden") == "true" else None,
        )
    if kind == "auto":
        return lambda s: s.auto(entered, entered_for, by="gm")
    if kind == "line":
        return parse_line(fields.get("line", ""), entered, "gm", rules, entered_for)
    if kind == "act":
        return Act(
            actor=fields.get("actor", ""),
            action=fields.get("action", ""),
            targets=targets,
            params={
                **params_of_words(fields.get("params", "")),
                **{k[len("param.") :]: value(v) for k, v in fields.items() if k.startswith("param.") and v.strip()},
            },
            entered=entered,
            entered_for=entered_for,
        )
    if kind == "view":  # each of the view's own parameters the form fills
        return View(**{k: value(v) for k, v in fields.items() if k in params_of(View)})
    if kind == "seat":
        return Seat(
            seat=fields.get("seat", ""),
            name=fields.get("name") or None,
            combatants=tuple(x.strip() for x in fields["combatants"].split(",")) if fields.get("combatants") else None,
            renew=fields.get("renew") == "true",
            revoke=fields.get("revoke") == "true",
        )
    if kind == "reveal":  # the session fills in the seed and nonce it holds
        return Reveal(early=state is not None and state.phase != "end")
    if kind == "seating":
        return Seating(commands=fields.get("commands", "now"), undo=fields.get("undo") == "true")  # type: ignore[arg-type]
    if kind == "end_turn":
        return EndTurn(actor=fields.get("actor", "") or None, entered=entered, entered_for=entered_for)
    if kind in ("undo", "redo", "begin"):
        return KINDS[kind](entered=entered, entered_for=entered_for)
    raise UsageError(
        f"command {kind[:40]!r}: use act, auto, undo, redo, begin, end_turn, view, seat, seating or a typed line"
    )


def hands(
    kind: str,
    fields: dict[str, str],
    targets: tuple[str, ...],
    state: Any,
    entered: Any,
    entered_for: Any,
) -> TypedCommand:
    """The game master's quick commands as the engine's own: damage and healing, conditions
    (overrides, recorded with their reason), another of a combatant (`add`), `remove`."""
    reason = fields.get("reason", "").strip() or "the game master's hand"
    if kind in ("hurt", "condition") and not targets:
        raise UsageError("choose at least one combatant")
    if kind == "hurt":
        amount = fields.get("amount", "").strip()
        if not amount:
            raise UsageError("give an amount: a number (5) or dice (2d6)")
        heal = fields.get("heal") == "true"
        given = value(amount)
        effects: list[Any] = [{"target": t, "amount": given, **({"heal": True} if heal else {})} for t in targets]
        return Override(
            reason=reason,
            damage=effects,
            entered=entered,
            entered_for=entered_for,
        )
    if kind == "condition":
        name = fields.get("condition", "").strip()
        if not name:
            raise UsageError("name the condition (prone, stunned ...)")
        if fields.get("remove") == "true":
            return Override(reason=reason, remove_condition=[{"target": t, "name": name} for t in targets])
        one: dict[str, Any] = {"name": name}
        rounds = fields.get("rounds", "").strip()
        if rounds:
            if not rounds.isdigit() or not 0 < int(rounds) < 1000:
                raise UsageError(f"rounds {rounds[:10]!r}: a whole number of rounds, 1 to 999, or none")
            one["duration"] = int(rounds)
        ends = fields.get("ends", "")
        if ends in ("bearer_turn", "source_turn"):
            one["ends"] = ends
        return Override(reason=reason, condition=[{"target": t, **one} for t in targets])  # type: ignore[typeddict-item]
    if kind == "copy":
        source = state.combatants.get(fields.get("combatant", "")) if state is not None else None
        if source is None:
            raise UsageError("choose the combatant to add another of")
        cid, name = another(state, source.id, source.name)
        return Add(id=cid, name=name, side=source.side, kind=source.kind, group=source.group, stats=source.given_stats)
    return Remove(actor=fields.get("combatant", ""), reason=reason if fields.get("reason") else "")


def another(state: Any, cid: str, name: str) -> tuple[str, str]:
    """A free id and name for another of `cid` (`g1` -> `g3` beside `g2`; `Goblin 1` -> `Goblin 3`)."""
    stem = re.sub(r"\d+$", "", cid) or cid
    name_stem = re.sub(r"\s*\d+$", "", name) or name
    n = 2
    while f"{stem}{n}" in state.combatants or any(c.name == f"{name_stem} {n}" for c in state.combatants.values()):
        n += 1
    return f"{stem}{n}", f"{name_stem} {n}"


def params_of_words(text: str) -> dict[str, Any]:
    """`KEY=VALUE` words (VALUE as JSON when it parses)."""
    out: dict[str, Any] = {}
    for word in split_words(text, "the parameters"):
        key, sep, raw = word.partition("=")
        if not sep or not key:
            raise UsageError(f"parameter {word!r}: use KEY=VALUE, e.g. weapon=axe")
        out[key] = value(raw)
    return out


__all__ = ["command_of", "params_of_words"]
