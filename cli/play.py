"""`combatlog play`: the game master's interactive loop over a log, one command a line."""

from __future__ import annotations

import re
import shlex
import sys

import click

from combatlog.cli.main import _rules_of, _shown, app, write_session
from combatlog.engine import Refused, Session
from combatlog.engine.dice import DiceError
from combatlog.engine.grammar import _UNCOLONED, UsageError, parse_line, typed_roll
from combatlog.events import LogError
from combatlog.replays.transcript import transcript

_DICE_LINE = re.compile(r"^\s*(?P<expr>[0-9]*d[0-9%]+[^:]*)\s*:\s*(?P<faces>[0-9 ,]+)$", re.I)

PLAY_HELP = (
    "act ACTOR ACTION [TARGET...] [key=value...] | end_turn [ACTOR] | begin | auto | surprise SIDE... | "
    "note TEXT | ruling TOPIC DECISION | end [OUTCOME] | undo | redo | status | log [N] | help | quit; "
    "physical dice: type '2d10: 7 9' before the command that rolls them"
)


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


def _completer(session: Session):
    def complete(text: str, index: int):
        state = session.state
        words = ["act", "end_turn", "begin", "auto", "undo", "redo", "status", "log", "note", "quit", *state.combatants]
        for cid in state.acting:
            words += [a.name for a in session.rules.actions(state, state.combatants[cid])]
        found = [w for w in dict.fromkeys(words) if w.startswith(text)]
        return found[index] if index < len(found) else None

    return complete


@app.command()
@click.argument("log_path", metavar="LOG")
@click.option("--by", default="gm", show_default=True, help="Who is at the keyboard.")
def play(log_path: str, by: str) -> None:
    """Run the fight interactively: every line is one step, saved as it happens."""
    session = write_session(log_path)
    interactive = sys.stdin.isatty()
    if interactive:
        try:
            import readline

            readline.set_completer(_completer(session))
            readline.parse_and_bind("tab: complete")
        except ImportError:  # pragma: no cover - no readline on this platform
            pass
    click.echo(_summary(session))
    queued: list[tuple[int, ...]] = []
    queued_for: list[str] = []  # the expression each queued roll names ("" for bare faces)
    while True:
        try:
            line = input("combatlog> " if interactive else "")
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
                continue
            click.echo(f"dice queued: {len(queued)} roll(s)")
            continue
        try:
            words = shlex.split(line)
        except ValueError as exc:
            click.echo(f"can't read that line: {exc}")
            continue
        kind, rest = words[0], tuple(words[1:])
        if kind in ("quit", "exit"):
            break
        if kind == "help":
            click.echo(PLAY_HELP)
            rules = _rules_of(session)
            for name, text in rules.commands.items() if rules is not None else ():
                words_ = " ".join(
                    w.lstrip("*").upper() + ("..." if w.startswith("*") else "")
                    for w in rules.command_words.get(name, ())
                )
                click.echo(f"  {name} {words_}".rstrip() + f": {text}")
            continue
        if kind == "clear":
            queued.clear()
            queued_for.clear()
            click.echo("dice cleared")
            continue
        if kind == "status":
            click.echo(_summary(session))
            continue
        if kind == "log":
            n = int(rest[0]) if rest and rest[0].isdigit() else 10
            for seq, text in list(transcript(session.log))[-n:]:
                click.echo(f"{seq:>6}  {text}")
            continue
        try:
            if kind == "auto":  # queued dice go to the automatic combatant's rolls too
                envelopes_ = session.auto(tuple(queued) or None, tuple(queued_for) or None)
            else:
                command = parse_line(
                    line, tuple(queued) if queued else None, by, _rules_of(session), tuple(queued_for) or None
                )
                envelopes_ = session.execute(command)
        except (Refused, DiceError, UsageError, LogError) as exc:
            click.echo(f"refused: {exc}")
            if queued:
                click.echo(f"the {len(queued)} queued roll(s) are kept; type more, or 'clear'")
            continue
        queued.clear()
        queued_for.clear()
        click.echo(f"seq {envelopes_[-1].seq}: " + _summary(session))
    click.echo(f"saved: {_shown(session.log, log_path)} ({session.log.head()[0]} events)")
