"""`combatlog serve`: the web tracker, the game master's screen and the players' view."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import click

from combatlog.cli.main import app, fail, is_url
from combatlog.events import LogError
from combatlog.replays import open_log


def _secret_path(where: str | None, given: str | None) -> Path:
    if given:
        return Path(given)
    if where is None:
        return Path.cwd() / ".combatlog-web-secret"
    if is_url(where):
        return Path(os.path.expanduser("~/.config/combatlog/web-secret"))
    path = Path(where)
    if path.is_dir():
        return path / ".combatlog-web-secret"
    return path.with_name(path.name + ".web-secret")


@app.command()
@click.argument("log_path", metavar="[LOG|DIR]", required=False)
@click.option("--host", default="127.0.0.1", show_default=True, help="The address (0.0.0.0: the whole network).")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535), help="The port.")
@click.option("--secret-file", default=None, help="Where the links' secret is kept (made if missing).")
@click.option(
    "--odds/--no-odds",
    default=True,
    show_default=True,
    help="Work out the odds from each step in a process of its own, for the game master's screen.",
)
def serve(log_path: str | None, host: str, port: int, secret_file: str | None, odds: bool) -> None:
    """Serve the web tracker: prints the game master's link and the players' link.

    \b
    LOG   one encounter (a .db, .sqlite or .jsonl file, or a postgresql:// URL)
    DIR   a directory of encounters (default: the current one); the home link starts new ones
    """
    try:
        import uvicorn

        from combatlog.web.app import create_app
        from combatlog.web.tables import Tables, load_secret
    except ImportError as exc:
        fail(f"combatlog serve needs the web extra ({exc.name} is missing): pip install 'combatlog[web]'")
    where = log_path if log_path is not None else "."
    secret = load_secret(_secret_path(where, secret_file))
    try:
        if not is_url(where) and Path(where).is_dir():
            tables = Tables(secret, directory=Path(where), odds=odds)
            tables.all()
        else:
            if not is_url(where) and not Path(where).exists():
                fail(f"{where}: no such log; start one with `combatlog new` or serve a directory")
            open_log(where, create=False).close()  # a bad path or URL fails here, in one line
            tables = Tables.single(where, secret, odds=odds)
    except LogError as exc:
        fail(str(exc))
    everywhere = host in ("0.0.0.0", "::", "")
    hosts = lan_addresses() if everywhere else [host]
    if everywhere:
        click.echo(
            f"listening on every address of this machine: {', '.join(hosts) or 'no LAN address found'}; "
            "on a network the links are the only lock: share a player's link with that player only",
            err=True,
        )
    for shown in hosts or ["THIS-MACHINE"]:
        base = f"http://{f'[{shown}]' if ':' in shown else shown}:{port}"
        if tables.directory is not None:
            click.echo(f"encounters (game master): {base}/home/{tables.home_token}")
        for table in tables.all():
            click.echo(f"{table.id}: game master {base}/gm/{table.gm_token}")
            click.echo(f"{table.id}: players     {base}/play/{table.player_token}")
            for seat in table.seats():
                click.echo(f"{table.id}: seat {seat.name} {base}/seat/{table.seat_token(seat)}")
    from combatlog.web.server import config

    uvicorn.Server(config(create_app(tables), host, port, log_level="warning")).run()


def lan_addresses() -> list[str]:
    """This machine's addresses other devices on its networks may reach (no loopback), the one
    its default route leaves from first; nothing is sent to find them."""
    import socket

    found: list[str] = []
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("10.254.254.254", 1))  # a UDP "connection" only picks a route
        found.append(probe.getsockname()[0])
    with contextlib.suppress(OSError):
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.append(str(info[4][0]))
    return [a for a in dict.fromkeys(found) if not a.startswith("127.") and a != "0.0.0.0"]
