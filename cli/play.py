"""`combatlog play`: the game master's interactive loop over a log, one command a line."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from combatlog.cli.main import _rules_of, _shown, app, told_since, write_session
from combatlog.cli.main import show as show_cmd
from combatlog.engine import Refused, RuleSystem, Session
from combatlog.engine.commands import KINDS, help_of, params_of
from combatlog.engine.dice import DiceError
from combatlog.engine.grammar import _UNCOLONED, UsageError, parse_line, split_words, typed_roll
from combatlog.events import LogError
from combatlog.replays.transcript import transcript

# a roll typed at the table: dice first, or a formula opening with a bracket ((1d20+5)*2: 15)
_DICE_LINE = re.compile(r"^\s*(?P<expr>\(*[0-9]*d[0-9%]+[^:]*)\s*:\s*(?P<faces>[0-9 ,]+)$", re.I)

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


def help_lines(rules: RuleSystem | None) -> list[str]:
    """`play`'s help: every command with its words and its help (each command type's docstring),
    `play`'s own words, and the rule system's own commands."""
    lines = ["commands (KEY=VALUE words are parameters; values are JSON when they parse):"]
    lines += [f"  {kind.usage}: {help_of(kind)}" for kind in KINDS.values()]
    lines += ["play:"] + [f"  {text}" for text in PLAY_WORDS.values()]
    if rules is not None and rules.commands:
        lines.append(f"{rules.name}'s own:")
        for name, text in rules.commands.items():
            words = " ".join(
                w.lstrip("*.").upper() + ("..." if w[0] in "*." else "") for w in rules.command_words.get(name, ())
            )
            lines.append(f"  {name} {words}".rstrip() + f": {text}")
    lines.append("physical dice: type '2d10: 7 9' before the command that rolls them")
    return lines


def _summary(session: Session) -> str:
    state = session.state
    if state.phase == "end":
        return f"The encounter is over: {state.outcome}" + (f" ({state.winner})" if state.winner else "") + "."
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


def words_for(session: Session, line: str) -> list[str]:
    """What may come next on a `play` line, where the cursor is: a command, then (for `act`) the
    acting combatant, its actions, the targets the action takes, and `key=` parameters."""
    state = session.state
    words = line.split()
    ending = not line or line.endswith(" ")
    done = words if ending else words[:-1]  # the words already finished
    legal = session.legal()
    rules = _rules_of(session)
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
    out: list[str] = []
    if spec.targets not in ("none", "self"):
        out += [c.id for c in state.active() if c.id != actor.id and c.id not in done]
    out += [f"{key}=" for key in re.findall(r"\b([a-z_]+)=", spec.help) if f"{key}=" not in line]
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
        command = parse_line(line, None, by, _rules_of(session))
        state = session.state
        dice = SeededDice(state.seed, session.projection.step + 1) if state.seed is not None else Highest()
        events = session.preview(command, dice)
    except (Refused, DiceError, UsageError, LogError) as exc:
        return f"refused: {exc}"
    from combatlog.events import DiceRolled

    rolls = [f"{e.expression} ({e.purpose})" for e in events if isinstance(e, DiceRolled)]
    return "rolls asked: " + ("; ".join(rolls) if rolls else "none")


def history_path() -> Path:
    """Where `play` keeps its history across sessions ($XDG_STATE_HOME/combatlog/play-history)."""
    root = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(root) / "combatlog" / "play-history"


def _reader(session: Session, interactive: bool, **terminal: Any) -> Callable[[], str]:
    """A function reading the next line: prompt_toolkit on a terminal (completion where the cursor
    is, history kept, Ctrl-C cancels the line), plain input() otherwise."""
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
                return prompt.prompt("combatlog> ")
            except KeyboardInterrupt:  # Ctrl-C cancels the line, never the session
                continue

    return read


@app.command()
@click.argument("log_path", metavar="LOG")
@click.option("--by", default="gm", show_default=True, help="Who is at the keyboard.")
def play(log_path: str, by: str) -> None:
    """Run the fight interactively: every line is one step, saved as it happens."""
    session = write_session(log_path)
    read = _reader(session, sys.stdin.isatty())
    click.echo(_summary(session))
    queued: list[tuple[int, ...]] = []
    queued_for: list[str] = []  # the expression each queued roll names ("" for bare faces)
    refusals = 0  # lines refused: a piped script that met one ends with a non-zero exit
    while True:
        try:
            line = read()
        except EOFError:
            break
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        match = _DICE_LINE.match(line) or _UNCOLONED.match(line)
        if match:
            try:
                expr, faces = typed_roll(line)
                queued.append(faces)
                queued_for.append(expr)
            except ValueError as exc:
                click.echo(f"refused: {exc}")
                refusals += 1
                continue
            click.echo(f"dice queued: {len(queued)} roll(s)")
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
            for text in help_lines(_rules_of(session)):
                click.echo(text)
            continue
        if kind == "clear":
            queued.clear()
            queued_for.clear()
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
        before = session.projection.snapshot()  # told on from here, not from the log's first line
        try:
            if kind == "auto":  # queued dice go to the automatic combatant's rolls too
                envelopes_ = session.auto(tuple(queued) or None, tuple(queued_for) or None, by=by)
            else:
                command = parse_line(
                    line, tuple(queued) if queued else None, by, _rules_of(session), tuple(queued_for) or None
                )
                envelopes_ = session.execute(command)
        except (Refused, DiceError, UsageError, LogError) as exc:
            click.echo(f"refused: {exc}")
            refusals += 1
            if queued:
                click.echo(f"the {len(queued)} queued roll(s) are kept; type more, or 'clear'")
            continue
        queued.clear()
        queued_for.clear()
        for told in told_since(session, before):  # what the step did, as the transcript tells it
            click.echo(told)
        click.echo(f"seq {envelopes_[-1].seq}: " + _summary(session))
    click.echo(f"saved: {_shown(session.log, log_path)} ({session.log.head()[0]} events)")
    if refusals and not sys.stdin.isatty():  # a script (or a pipe) learns a line was refused
        click.echo(f"combatlog: {refusals} line(s) refused; the others were saved", err=True)
        sys.exit(1)
