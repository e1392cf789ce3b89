"""`combatlog play`: the game master's interactive loop over a log, one command a line."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from combatlog.cli.main import app, log_name, session_rules, told_since, write_session
from combatlog.cli.main import show as show_cmd
from combatlog.engine import Refused, RuleSystem, Session
from combatlog.engine.commands import KINDS, help_of, params_of
from combatlog.engine.dice import DiceError, NeedDice
from combatlog.engine.grammar import UNCOLONED, UsageError, parse_line, split_words, typed_roll
from combatlog.engine.rollnames import GM, asked, suggested
from combatlog.engine.words import add_example, counted, plainly
from combatlog.events import DiceRolled, LogError
from combatlog.replays.transcript import transcript

# a roll typed at the table: dice first, or a formula opening with a bracket ((1d20+5)*2: 15)
_DICE_LINE = re.compile(r"^\s*(?P<expr>\(*[0-9]*d[0-9%]+[^:]*)\s*:\s*(?P<faces>[0-9 ,]+)$", re.I)

# dice typed for a named roll: words of what it is for, `by` who rolls it (`damage by bo: 6`;
# `by bo: 6` is Bo's next roll, whatever it is for)
_NAMED_LINE = re.compile(r"^\s*(?P<name>(?:[a-z][^:]*?\s+)?by\s+\S+)\s*:\s*(?P<faces>[0-9 ,]+)$", re.I)

# what `play` itself does with a line, beside the engine's commands (`combatlog.engine.commands`)
PLAY_WORDS = {
    "auto": "auto: the automatic combatant takes the next step (with the dice queued, if any)",
    "status": "status: where the fight stands, who acts and what they can do",
    "show": "show: the table of combatants, as `combatlog show` draws it",
    "log": "log [N]: the last N lines of the transcript (10)",
    "dice?": "dice? COMMAND: the rolls COMMAND would ask for, appending nothing",
    "clear": "clear: drop the dice queued",
    "help": "help: this list",
    "quit": "quit: save and leave (or Ctrl-D)",
}
COMMANDS = (*KINDS, *PLAY_WORDS)  # every word a line of `play` may start with (not a named roll)


def help_lines(rules: RuleSystem | None, state: Any = None) -> list[str]:
    """`play`'s help: every command with its words and its help (each command type's docstring),
    an `add` for this fight (`state`), `play`'s own words, and the rule system's own commands."""
    lines = ["commands (KEY=VALUE words are parameters; values are JSON when they parse):"]
    lines += [f"  {kind.usage}: {help_of(kind)}" for kind in KINDS.values()]
    if state is not None:
        lines.append(f"  add, e.g.: {add_example(state)}")
    lines += ["play:"] + [f"  {text}" for text in PLAY_WORDS.values()]
    if rules is not None and rules.commands:
        lines.append(f"{rules.name}'s own:")
        for name, text in rules.commands.items():
            words = " ".join(
                w.lstrip("*.").upper() + ("..." if w[0] in "*." else "") for w in rules.command_words.get(name, ())
            )
            lines.append(f"  {name} {words}".rstrip() + f": {text}")
    lines.append(
        "physical dice: type '2d10: 7 9' before the command that rolls them (the next rolls of those dice "
        "take them, whoever rolls), or name the roll: 'damage by bo: 6'"
    )
    return lines


def _summary(session: Session) -> str:
    state = session.state
    if state.phase == "end":
        return f"The encounter is over: {state.outcome}" + (f", won by {state.winner}" if state.winner else "") + "."
    line = f"{state.phase}, round {state.round}"
    if state.acting:
        rules = session.rules
        for cid in state.acting:
            c = state.combatants[cid]
            can = ", ".join(a.name for a in rules.affordable(state, c)) or "nothing"
            left = ", ".join(f"{k} {v}" for k, v in sorted(c.resources.items()))
            line += f"; {c.name} ({cid}) to act [{left}]: {can}"
        enemies = ", ".join(c.id for c in state.active())
        line += f"; ids: {enemies}"
    else:
        line += "; commands: " + ", ".join(session.legal())
        if state.rules is not None:
            line += "".join(f"; {x}" for x in session.rules.summary(state) if x.startswith("Waiting"))
    return line


def _whose(words: list[str]) -> str:
    """Which command a line is, for the dice typed before it: `act ayla` (the kind and, for a
    combatant's command, whose it is), so `act ayla strike g1` may follow a refused
    `act ayla strike zz` with the same dice, and `auto` (another's turn) may not."""
    kind = words[0] if words else ""
    if kind in ("act", "end_turn", "remove") and len(words) > 1:
        return f"{kind} {words[1]}"
    return kind


def _rolls_itself(session: Session, kind: str, line: str, by: str) -> bool:
    """True when a refused line's command would roll dice of its own, or is refused without the
    typed dice too (not its turn, no such target): the dice before it were typed for it. A
    command that rolls nothing (a note) was refused for the dice alone: they are for another."""
    try:
        if kind == "auto":
            state = session.state
            if not state.acting:
                return True
            command = session.rules.policy(state, state.combatants[state.acting[0]])
        else:
            command = parse_line(line, None, by, session_rules(session))
        return bool(session.rolls_asked(command))
    except (Refused, DiceError, UsageError, LogError):
        return True


def _whose_text(words: list[str]) -> str:
    """`_whose` as a person reads it: `ayla's next act`, `the next 'auto'`."""
    kind = words[0] if words else ""
    if kind in ("act", "end_turn", "remove") and len(words) > 1:
        return f"{words[1]}'s next {kind}"
    return f"the next {kind!r}"


def words_for(session: Session, line: str) -> list[str]:
    """What may come next on a `play` line, where the cursor is: a command, then (for `act`) the
    acting combatant, its actions, the targets the action takes, and the `key=` parameters it
    declares, then a parameter's values where the action lists them."""
    state = session.state
    words = line.split()
    ending = not line or line.endswith(" ")
    done = words if ending else words[:-1]  # the words already finished
    legal = session.legal()
    rules = session_rules(session)
    commands = legal + [k for k in KINDS if k not in legal] + list(PLAY_WORDS)
    if rules is not None:
        commands += list(rules.commands)
    if not done:
        return commands
    kind = done[0]
    own = KINDS.get(kind)
    if kind in ("end_turn", "remove"):
        return list(state.acting) + [cid for cid in state.combatants if cid not in state.acting]
    if kind != "act" or rules is None:  # a command's own parameters, those not given yet
        return [f"{key}=" for key in params_of(own) if f"{key}=" not in line] if own is not None else []
    if len(done) == 1:
        return list(state.acting) or list(state.combatants)
    actor = state.combatants.get(done[1])
    if actor is None:
        return []
    specs = {spec.name: spec for spec in rules.actions(state, actor)}
    if len(done) == 2:
        return list(specs)
    spec = specs.get(done[2])
    if spec is None:
        return []
    key, typed_value, _ = ("" if ending else words[-1]).partition("=")
    if typed_value:  # a parameter's value: those the action lists for it now
        return [f"{key}={v}" for v in rules.param_choices(state, actor, spec.name).get(key, ())]
    out: list[str] = []
    if spec.targets not in ("none", "self"):
        out += [c.id for c in state.active() if c.id != actor.id and c.id not in done]
    given = {w.partition("=")[0] for w in done if "=" in w}
    # the parameters it declares (one that declares none: those its help names)
    names = [p.name for p in spec.params] if spec.params is not None else re.findall(r"\b([a-z_]+)=", spec.help)
    out += [f"{key}=" for key in names if key not in given]
    return out


def _completer(session: Session):  # type: ignore[no-untyped-def]
    """A prompt_toolkit completer over `words_for`."""
    from prompt_toolkit.completion import Completer, Completion

    class PlayCompleter(Completer):
        def get_completions(self, document, complete_event):  # type: ignore[no-untyped-def]
            text = document.text_before_cursor
            current = "" if not text or text.endswith(" ") else text.split()[-1]
            for word in dict.fromkeys(words_for(session, text)):
                if word.startswith(current):
                    yield Completion(word, start_position=-len(current))

    return PlayCompleter()


def _rolls_asked(session: Session, line: str, by: str) -> str:
    """The rolls `line` would ask for, in order (nothing is appended): with the encounter's own
    dice where it has a seed, else with every die at its highest (so a hit's damage shows too)."""
    from combatlog.engine.dice import Dice, Expr, SeededDice

    class Highest(Dice):
        def faces(self, expr: Expr, purpose: str) -> tuple[int, ...]:
            return (expr.high,) * expr.count

    if not line.strip():
        return "dice? COMMAND: which rolls it would ask for, e.g. dice? act bo strike g1"
    try:
        command = parse_line(line, None, by, session_rules(session))
        state = session.state
        dice = SeededDice(state.seed, session.projection.step + 1) if state.seed is not None else Highest()
        events = session.preview(command, dice)
    except (Refused, DiceError, UsageError, LogError) as exc:
        return f"refused: {exc}"
    rolled = [e for e in events if isinstance(e, DiceRolled)]
    if not rolled:
        return "rolls asked: none"
    first = rolled[0]
    return (
        "rolls asked: "
        + "; ".join(asked(e.expression, e.purpose, e.by) for e in rolled)
        + f"; to give one, name it: '{suggested(first.purpose, first.by)}: N'"
    )


def _named_roll(session: Session, line: str) -> tuple[str, tuple[int, ...]] | None:
    """The roll a `damage by bo: 6` line names and its faces, or None when the line isn't one (a
    command's words come first); raises ValueError for a roller who isn't in the fight."""
    m = _NAMED_LINE.match(line)
    if m is None:
        return None
    rules = session_rules(session)
    if m["name"].split()[0] in (*COMMANDS, *(rules.commands if rules is not None else ())):
        return None
    who = m["name"].split()[-1]
    rollers = {cid.lower(): cid for cid in session.state.combatants}
    if who.lower() not in rollers and who.lower() != GM:
        raise ValueError(
            f"{line.strip()!r}: no one here is {who!r}; a roll is named by who rolls it: "
            + ", ".join([*session.state.combatants, GM])
        )
    return typed_roll(line)


def _where_typed_went(envelopes: list[Any]) -> str | None:
    """Which roll each typed die went to, or None when the step took none."""
    typed = [e.event for e in envelopes if isinstance(e.event, DiceRolled) and e.event.source == "entered"]
    if not typed:
        return None
    return "typed dice went to: " + "; ".join(
        f"{asked(r.expression, r.purpose, r.by)} [{' '.join(map(str, r.faces))}]" for r in typed
    )


def history_path() -> Path:
    """Where `play` keeps its history across sessions ($XDG_STATE_HOME/combatlog/play-history)."""
    root = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(root) / "combatlog" / "play-history"


def prompt_text(waiting: NeedDice | None, queued: int) -> str:
    """The prompt: `combatlog> `, with the roll the last refused command waits for (whose it
    is, so dice typed next go where they are meant) and the dice queued."""
    said = []
    if waiting is not None:
        said.append(f"next roll: {asked(waiting.expression, waiting.purpose, waiting.by)}")
    if queued:
        said.append(f"{counted(queued, 'roll')} queued")
    return f"combatlog [{'; '.join(said)}]> " if said else "combatlog> "


def _typing_hint(need: NeedDice) -> str:
    """How to give the roll a refusal waits for: its dice, or its name (`initiative by ayla: N`)."""
    return f"type '{need.expression}: N', or name the roll: '{suggested(need.purpose, need.by)}: N'"


def _reader(
    session: Session, interactive: bool, message: Callable[[], str] = lambda: "combatlog> ", **terminal: Any
) -> Callable[[], str]:
    """A function reading the next line: prompt_toolkit on a terminal (completion where the cursor
    is, history kept, Ctrl-C cancels the line; the prompt is `message()`), plain input() otherwise."""
    if not interactive:
        return lambda: input("")
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import FileHistory

    path = history_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    prompt: PromptSession[str] = PromptSession(
        history=FileHistory(str(path)), completer=_completer(session), **terminal
    )  # `terminal`: input= and output= (a test's pipe)

    def read() -> str:
        while True:
            try:
                return prompt.prompt(message())
            except KeyboardInterrupt:  # Ctrl-C cancels the line, never the session
                continue

    return read


@app.command()
@click.argument("log_path", metavar="LOG")
@click.option("--by", default="gm", show_default=True, help="Who is at the keyboard.")
def play(log_path: str, by: str) -> None:
    """Run the fight interactively: every line is one step, saved as it happens."""
    session = write_session(log_path)
    waiting: NeedDice | None = None  # the roll the last refused command waits for
    queued: list[tuple[int, ...]] = []
    read = _reader(session, sys.stdin.isatty(), lambda: prompt_text(waiting, len(queued)))
    click.echo(_summary(session))
    queued_for: list[str] = []  # the expression each queued roll names ("" for bare faces)
    refusals = 0  # lines refused: a piped script that met one ends with a non-zero exit
    held_for: tuple[str, str] | None = None  # (whose, line): the refused command the queued rolls were typed for
    while True:
        try:
            line = read()
        except EOFError:
            break
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            named = _named_roll(session, line)
        except ValueError as exc:
            click.echo(f"refused: {plainly(str(exc))}")
            refusals += 1
            continue
        if named is not None:
            queued.append(named[1])
            queued_for.append(named[0])
            click.echo(f"dice queued: {counted(len(queued), 'roll')}; {named[0]} takes {' '.join(map(str, named[1]))}")
            continue
        match = _DICE_LINE.match(line) or UNCOLONED.match(line)
        if match:
            try:
                expr, faces = typed_roll(line)
                queued.append(faces)
                queued_for.append(expr)
            except ValueError as exc:
                click.echo(f"refused: {plainly(str(exc))}")
                refusals += 1
                continue
            click.echo(
                f"dice queued: {counted(len(queued), 'roll')}; the next roll of {expr or 'as many dice'} takes it, "
                "whoever rolls: to give one combatant's, name the roll ('damage by bo: 6'; dice? COMMAND lists them)"
            )
            continue
        try:
            words = split_words(line)
        except UsageError as exc:
            click.echo(str(exc))
            refusals += 1
            continue
        kind, rest = words[0], tuple(words[1:])
        if kind in ("quit", "exit"):
            break
        if kind == "help":
            for text in help_lines(session_rules(session), session.state):
                click.echo(text)
            continue
        if kind == "clear":
            queued.clear()
            queued_for.clear()
            held_for = None
            click.echo("dice cleared")
            continue
        if kind == "dice?":  # which rolls the command would ask for, before typing any
            click.echo(_rolls_asked(session, line.split(None, 1)[1] if " " in line else "", by))
            continue
        if kind == "status":
            click.echo(_summary(session))
            continue
        if kind == "show":  # the table of `combatlog show`: bars, conditions, whose turn
            show_cmd.callback(log_path=log_path, at=None, as_json=False, viewer_name="gm")  # type: ignore[misc]
            continue
        if kind == "log":
            n = int(rest[0]) if rest and rest[0].isascii() and rest[0].isdigit() and len(rest[0]) <= 6 else 10
            for seq, text in list(transcript(session.log))[-n:]:
                click.echo(f"{seq:>6}  {text}")
            continue
        if held_for is not None and _whose(words) != held_for[0]:
            # typed for a command that was refused: never spent on another one unasked
            click.echo(
                f"the {counted(len(queued), 'queued roll')} typed for the refused {held_for[1]!r} "
                f"{'is' if len(queued) == 1 else 'are'} dropped; type the dice again for this command"
            )
            queued.clear()
            queued_for.clear()
        held_for = None
        before = session.projection.snapshot()  # told on from here, not from the log's first line
        try:
            if kind == "auto":  # queued dice go to the automatic combatant's rolls too
                envelopes_ = session.auto(tuple(queued) or None, tuple(queued_for) or None, by=by)
            else:
                command = parse_line(
                    line, tuple(queued) if queued else None, by, session_rules(session), tuple(queued_for) or None
                )
                envelopes_ = session.execute(command)
        except (Refused, DiceError, UsageError, LogError) as exc:
            click.echo(f"refused: {plainly(str(exc))}")
            refusals += 1
            waiting = getattr(exc, "need", None) or (exc if isinstance(exc, NeedDice) else None)
            if waiting is not None and waiting.by is not None and type(waiting) is NeedDice:  # (a named one says it)
                click.echo(_typing_hint(waiting))
            if queued and _rolls_itself(session, kind, line, by):  # the dice were typed for it
                held_for = (_whose(words), line)
                click.echo(
                    f"the {counted(len(queued), 'queued roll')} {'is' if len(queued) == 1 else 'are'} kept for "
                    f"{_whose_text(words)}; another command drops {'it' if len(queued) == 1 else 'them'}; "
                    "type more, or 'clear'"
                )
            elif queued:  # a command that rolls nothing: they wait for the next that does
                click.echo(f"the {counted(len(queued), 'queued roll')} {'is' if len(queued) == 1 else 'are'} kept")
            continue
        for told in told_since(session, before):  # what the step did, as the transcript tells it
            click.echo(told)
        if queued:  # where the dice typed before it went: the roll and who rolled it
            went = _where_typed_went(envelopes_)
            if went is not None:
                click.echo(went)
        queued.clear()
        queued_for.clear()
        waiting = None
        click.echo(f"seq {envelopes_[-1].seq}: " + _summary(session))
    click.echo(f"saved: {log_name(session.log, log_path)} ({session.log.head()[0]} events)")
    if refusals and not sys.stdin.isatty():  # a script (or a pipe) learns a line was refused
        click.echo(f"combatlog: {counted(refusals, 'line')} refused; the others were saved", err=True)
        sys.exit(1)
