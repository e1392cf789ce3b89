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
    target.close()
    click.echo(
        f"{shown}: a fork of {log_name(source, log_path)} at seq {forked.at} (its head then "
        f"{forked.parent_seq}:{forked.parent_digest}); `combatlog play {shown}` plays it on"
    )
