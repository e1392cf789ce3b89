"""`combatlog fork`: a new log from another's first steps, recorded as a fork, to play a "what if" beside it."""

from __future__ import annotations

from pathlib import Path

import click

from combatlog.cli.main import app, fail, is_url, log_name, read_log, signing, write_new_log
from combatlog.engine import Refused
from combatlog.events import LogError


@app.command()
@click.argument("log_path", metavar="LOG")
@click.argument("new_path", metavar="NEW")
@click.option("--at", "at", type=int, default=None, help="The seq to fork at, where a step ends (default: the last).")
def fork(log_path: str, new_path: str, at: int | None) -> None:
    """Write a new log NEW from LOG's lines up to seq --at, byte for byte, then record that it is
    a fork (the seq, and LOG's head); play NEW as a "what if" beside the real fight."""
    from combatlog.replays.forks import fork as fork_log
    from combatlog.replays.forks import step_end

    source = read_log(log_path)
    try:
        at = step_end(source, at)
    except LogError as exc:
        fail(f"{log_name(source, log_path)}: --at {at}: {exc}")
    if not is_url(new_path) and Path(new_path).exists():
        fail(f"{new_path} exists; fork writes only to a new log")
    signer = signing()
    forked, target = write_new_log(
        new_path, "fork", "forked", lambda target: fork_log(source, target, at, signer=signer), (Refused,)
    )
    shown = log_name(target, new_path)
    kept = _secret_kept(source, target)
    target.close()
    click.echo(
        f"{shown}: a fork of {log_name(source, log_path)} at seq {forked.at} (its head then "
        f"{forked.parent_seq}:{forked.parent_digest}); `combatlog play {shown}` plays it on"
    )
    if kept:
        click.echo(kept)


def _secret_kept(source: object, target: object) -> str | None:
    """A fair encounter's fork has the same commitment, so it needs the same secret for its
    engine dice: copy `<LOG>.secret` to `<NEW>.secret` (checked against the commitment, never
    over a file that is there). Returns what to tell the game master, or None (not fair,
    already revealed, or both logs read the one COMBATLOG_FAIR_SECRET file)."""
    from combatlog.engine.fair import SECRET_VARIABLE, read_secret, secret_path, write_secret
    from combatlog.engine.session import load

    fair = load(target).state.fair  # type: ignore[arg-type]
    if fair is None or fair.seed is not None:
        return None
    here, there = secret_path(source), secret_path(target)
    if here == there:
        return None
    if there is None:  # a database log reads its secret from the file the variable names
        return f"fair dice: the fork's engine dice need the secret: set {SECRET_VARIABLE}={here} to play it"
    if here is None:
        return f"fair dice: the fork's engine dice need the game master's secret: copy its file to {there}"
    try:
        write_secret(there, read_secret(here, fair.commitment))
    except LogError as exc:
        return f"fair dice: the secret wasn't copied ({exc}); the fork's engine dice need it"
    return f"fair dice: the secret is copied to {there} (yours alone), so the fork rolls the same dice"
