"""The `combatlog` command line: run, inspect, undo, replay, audit and export an encounter.

Every error is one line on stderr and a non-zero exit (2 for usage, 1 otherwise); a
command that fails appends nothing. Reading never creates a log.
"""

from __future__ import annotations

import contextlib
import json
import sys
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any, NoReturn

import click
import msgspec
from rich.markup import escape as escape_markup

from combatlog.engine import Refused, RuleSystem, Session, get_rules, rule_names
from combatlog.engine.commands import TypedCommand
from combatlog.engine.dice import DiceError
from combatlog.engine.encounter_file import EncounterFileError, read_encounter
from combatlog.engine.grammar import UsageError, build_command, split_params, typed_roll
from combatlog.engine.words import counted, plainly
from combatlog.events import Command, LogError, json_schema
from combatlog.projections import Projection, Snapshot
from combatlog.replays import JsonlLog, copy_log, open_log
from combatlog.replays.cursor import envelopes
from combatlog.replays.cursor import replay as fold_log
from combatlog.replays.encounters import check_commands
from combatlog.replays.follow import follow_envelopes
from combatlog.replays.transcript import printable, render, tell, transcript, undone_of
from combatlog.replays.views import (
    GM,
    VIEWER_HELP,
    Viewer,
    ViewerError,
    hidden_at,
    parse_viewer,
    seen,
    viewed_envelopes,
)

TIMINGS = ("turn", "simultaneous", "mixed")


def fail(message: str, code: int = 1) -> NoReturn:
    click.echo(f"combatlog: {plainly(message)}", err=True)
    sys.exit(code)


def read_log(path: str, write: bool = False, rules: bool = True):
    """Open an existing log (to read only, unless `write`); a torn tail is reported and left out.
    `rules`: fail in one line when its rule system isn't installed (not for a byte copy)."""
    try:
        log = open_log(path, create=False, read_only=not write)
    except LogError as exc:
        fail(str(exc))
    torn = getattr(log, "torn", None)
    if torn is not None:
        click.echo(f"combatlog: warning: {torn}", err=True)
    if rules:
        _check_rules(log, path)
    return log


def _check_rules(log, path: str) -> None:
    """Fail in one line if the log's rule system isn't installed (its events can't be told or
    decided), naming the version it was recorded under and the package that provides it."""
    from combatlog.replays.audit import missing_rules

    missing = missing_rules(log)
    if missing is not None:
        fail(f"{log_name(log, path)}: {missing[1]}")


def is_url(where: str) -> bool:
    """True for a database URL (`postgresql://`), a log that isn't a file."""
    return where.startswith(("postgresql://", "postgres://"))


def _open_or_fail(where: str):
    """Open (creating if need be) the log at `where`, or fail with the store's one-line error."""
    try:
        return open_log(where)
    except LogError as exc:
        fail(str(exc))


def log_name(log, where: str) -> str:
    """How to name a log in a message: a database URL with its password masked."""
    return getattr(log, "where", where)


def signing():
    """The signer of the key at COMBATLOG_SIGNING_KEY (None when it isn't set); fails in one
    line for a file that isn't a key. (A Session takes it itself; reading it here first
    turns a bad key into the command line's one-line error before anything opens.)"""
    from combatlog.engine.signing import from_environment

    try:
        return from_environment()
    except LogError as exc:
        fail(str(exc))


def write_session(path: str, clock: bool = False) -> Session:
    """A session on an existing log, for a command that appends; its steps are signed with the
    key at COMBATLOG_SIGNING_KEY when that is set (`combatlog keygen` makes one)."""
    log = read_log(path, write=True)
    if getattr(log, "torn", None) is not None:
        fail(f"{path}: the log is torn; nothing appended; run `combatlog repair {path}` first")
    try:
        return Session(log, clock=utc_now if clock else None, signer=signing())
    except (LogError, KeyError) as exc:
        fail(str(exc.args[0] if isinstance(exc, KeyError) else exc))


def told_since(session: Session, before: int | Snapshot) -> list[str]:
    """The transcript's lines for what the log holds after `before` (the steps just taken):
    told on from the projection as it stood (a Snapshot taken before them), or, given only a
    seq, from the log's first line."""
    if isinstance(before, int):
        return [line for at, line in transcript(session.log) if at > before]
    return [line for _, line in tell(envelopes(session.log, before.seq + 1), log=session.log, start=Projection(before))]


def told_of_step(session: Session, step: int) -> list[str]:
    """The transcript's lines for step `step` (as it was told when it was taken)."""
    seqs = {e.seq for e in envelopes(session.log) if e.step == step}
    return [line for at, line in transcript(session.log) if at in seqs]


def status_line(session: Session) -> str:
    """Where the fight stands: seq, phase, round, whose turn."""
    state = session.state
    who = ", ".join(state.combatants[a].name for a in state.acting) or "no one"
    return f"seq {session.projection.seq}: {state.phase}, round {state.round}; acting: {who}"


def tell_step(session: Session, before: int | Snapshot) -> None:
    """Print what the step(s) after seq `before` did, then the status line."""
    for line in told_since(session, before):
        click.echo(line)
    click.echo(status_line(session))


def utc_now() -> str:
    """Now, in UTC, to the second: 2024-05-01T12:00:00Z."""
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def execute(session: Session, command: Command | TypedCommand) -> None:
    try:
        session.execute(command)
    except (Refused, DiceError, LogError) as exc:
        fail(str(exc))


def example_path(rules: str) -> Path:
    """The example encounter of `rules`: the system's own (`RuleSystem.examples`), else the
    bundled one (examples/<rules>-*.toml)."""
    try:
        system = get_rules(rules)
    except (KeyError, ImportError):
        system = None
    for ref in system.examples if system is not None else ():
        package, _, name = ref.partition(":")
        return Path(str(resources.files(package) / name))
    folder = resources.files("combatlog.examples")
    found = sorted(p.name for p in folder.iterdir() if p.name.startswith(f"{rules}-") and p.name.endswith(".toml"))
    if not found:
        fail(f"no bundled example encounter for {rules!r}")
    return Path(str(folder / found[0]))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="combatlog", prog_name="combatlog", message="%(prog)s %(version)s")
def app() -> None:
    """combatlog: tabletop combat as an event-sourced log. Undo, replay and audit by construction."""


@app.command()
@click.option("--rules", "rules_name", default="starflight", show_default=True, help="The rule system.")
@click.option("--seed", type=int, default=7, show_default=True, help="The dice seed.")
@click.option(
    "--log",
    "log_path",
    default="combatlog-demo.db",
    show_default=True,
    help="Where to write the log (.jsonl, .db or a postgresql:// URL).",
)
@click.option("--timing", type=click.Choice(TIMINGS), default=None, help="Turn-based, simultaneous or mixed.")
@click.option("--clock", is_flag=True, help="Stamp events with wall-clock time (the log is then not reproducible).")
@click.option("--force", is_flag=True, help="Replace an existing log at --log.")
def demo(rules_name: str, seed: int, log_path: str, timing: str | None, clock: bool, force: bool) -> None:
    """Play the bundled example encounter to the end, every combatant automatic; print the transcript."""
    try:
        rules = get_rules(rules_name)
    except KeyError as exc:
        fail(str(exc.args[0]), 2)
    path = Path(log_path)
    if is_url(log_path):
        existing = _open_or_fail(log_path)
        if existing.head()[0] > 0:
            if not force:
                named = log_name(existing, log_path)
                fail(f"{named} holds events; pass --force to replace them, or choose another --log")
            existing.clear()
        existing.close()
    elif path.exists() and path.stat().st_size > 0:
        if not force:
            fail(f"{path} exists; pass --force to replace it, or choose another --log")
        for extra in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            extra.unlink(missing_ok=True)
    try:
        commands = read_encounter(example_path(rules.name), seed=seed)
    except EncounterFileError as exc:
        fail(str(exc))
    if timing is not None:
        if "timing" not in rules.option_specs:
            fail(f"{rules.name} has no timing option", 2)
        create = commands[0]
        params = dict(create.params)
        params["options"] = {**params.get("options", {}), "timing": timing}
        commands[0] = msgspec.structs.replace(create, params=params)
    log = _open_or_fail(log_path)
    session = Session(log, clock=utc_now if clock else None, signer=signing())
    for command in commands + [Command(kind="begin")]:
        execute(session, command)
    try:
        session.play_out()
    except (Refused, DiceError) as exc:
        fail(str(exc))
    for _, line in transcript(log):
        click.echo(line)
    click.echo(f"Log: {log_name(log, log_path)} ({log.head()[0]} events).")


@app.command()
@click.argument("encounter", type=click.Path(dir_okay=False))
@click.argument("log_arg", metavar="[LOG]", required=False)
@click.option("--log", "log_path", default=None, help="The new log (.jsonl, .db or a postgresql:// URL).")
@click.option("--seed", type=int, default=None, help="The dice seed (overrides the file's).")
@click.option(
    "--fair",
    is_flag=True,
    help="Fair dice: the log records a commitment; the seed and nonce are kept in LOG.secret "
    "(readable by you only) until `combatlog reveal`. See docs/fair-dice.md.",
)
@click.option("--reveal-at-end", is_flag=True, help="Fair dice, revealed as soon as the fight ends.")
def new(
    encounter: str, log_arg: str | None, log_path: str | None, seed: int | None, fair: bool, reveal_at_end: bool
) -> None:
    """Start an encounter from a TOML file, on LOG (default: ENCOUNTER's name with .db, beside it)."""
    if log_arg is not None and log_path is not None and log_arg != log_path:
        fail(f"two logs given ({log_arg} and --log {log_path}); give one", 2)
    log_path = log_arg or log_path or str(Path(encounter).with_suffix(".db"))
    if seed is not None and (fair or reveal_at_end):
        fail("--seed with --fair: a fair encounter's seed is drawn at random and kept secret; drop --seed", 2)
    try:
        commands = read_encounter(encounter, seed=seed)
    except EncounterFileError as exc:
        fail(str(exc))
    if fair or reveal_at_end:
        params = {k: v for k, v in commands[0].params.items() if k != "seed"}
        params["fair"] = "end" if reveal_at_end or params.get("fair") == "end" else True
        commands[0] = msgspec.structs.replace(commands[0], params=params)
    if Path(log_path).exists() and Path(log_path).stat().st_size > 0:
        fail(f"{log_path} exists; choose a new --log")
    try:
        check_commands(commands, encounter)  # in memory first, so a bad file leaves no log behind
    except EncounterFileError as exc:
        fail(str(exc))
    secret, secret_file = None, None
    if commands[0].params.get("fair"):
        secret, secret_file = _new_secret(log_path)
    log = _open_or_fail(log_path)
    if log.head()[0] > 0:  # a database URL names an encounter that may already hold events
        log.close()
        if secret_file is not None:
            secret_file.unlink(missing_ok=True)
        fail(f"{log_name(log, log_path)} holds events; choose a new --log")
    session = Session(log, signer=signing(), secret=secret)
    for command in commands:
        execute(session, command)
    shown = log_name(log, log_path)
    click.echo(
        f"{shown}: {counted(len(session.state.combatants), 'combatant')} under {session.state.rules}; "
        f"`combatlog do {shown} begin` starts the fight."
    )
    fair_state = session.state.fair
    if fair_state is not None:
        when = "as the fight ends" if fair_state.reveal_at_end else f"by `combatlog reveal {shown}`"
        click.echo(
            f"fair dice: commitment {fair_state.commitment}; the seed and nonce are in {secret_file} "
            f"(yours alone) until revealed {when}; players add theirs with "
            f"`combatlog do {shown} contribute TEXT --by seat:ID` before the fight begins."
        )


def _new_secret(log_path: str) -> tuple[Any, Path]:
    """A fair encounter's new secret, kept in its file (`<LOG>.secret`, or COMBATLOG_FAIR_SECRET)
    before the log is made; fails in one line if the file exists or there is none to keep it in."""
    from combatlog.engine.fair import SECRET_SUFFIX, SECRET_VARIABLE, Secret, write_secret
    from combatlog.engine.fair import secret_path as path_of

    if is_url(log_path):
        where = path_of(None)
        if where is None:
            fail(f"{log_path}: a database log's secret needs a file: set {SECRET_VARIABLE}=FILE", 2)
    else:
        where = path_of(None) or Path(f"{log_path}{SECRET_SUFFIX}")
    secret = Secret.new()
    try:
        write_secret(where, secret)
    except LogError as exc:
        fail(str(exc))
    return secret, where


def _dice(entries: tuple[str, ...]) -> tuple[tuple[tuple[int, ...], ...] | None, tuple[str, ...] | None]:
    """The faces typed with --dice, and the expression each names ("" for bare faces)."""
    if not entries:
        return None, None
    rolls = []
    for entry in entries:
        try:
            rolls.append(typed_roll(entry))
        except ValueError as exc:
            fail(f"--dice {exc}", 2)
    return tuple(f for _, f in rolls), tuple(x for x, _ in rolls)


@app.command(name="do", context_settings={"ignore_unknown_options": False})
@click.argument("log_path", metavar="LOG")
@click.argument("kind", metavar="COMMAND")
@click.argument("words", nargs=-1)
@click.option("--param", "-p", "params", multiple=True, help="KEY=VALUE (VALUE is JSON when it parses).")
@click.option("--dice", "dice", multiple=True, help="Faces rolled at the table, one roll each: '2d10: 7 9'.")
@click.option("--by", default="gm", show_default=True, help="Who issues the command.")
def do_command(
    log_path: str, kind: str, words: tuple[str, ...], params: tuple[str, ...], dice: tuple[str, ...], by: str
) -> None:
    """Carry out one command.

    A KEY=VALUE word is a parameter, as on a `play` line (act bo move to=door), but in the
    text of a note, a ruling or an outcome.

    \b
      act ACTOR ACTION [TARGET...]    end_turn [ACTOR]    begin    auto
      surprise SIDE...                remove ACTOR        note TEXT
      ruling TOPIC DECISION           end [OUTCOME]       undo / redo
      override --param reason=... --param damage='{"target":"g1","amount":3}'
    """
    session = write_session(log_path)
    before = session.projection.snapshot()  # what the step is told on from, not the log's first line
    entered, entered_for = _dice(dice)
    if kind == "auto":
        try:
            session.auto(entered=entered, entered_for=entered_for, by=by)
        except (Refused, DiceError, LogError) as exc:
            fail(str(exc))
        tell_step(session, before)
        return
    # KEY=VALUE words are parameters, as on a `play` line (`act bo move to=door`); a note's,
    # a ruling's or an outcome's words are its text, "=" and all, but for its own fields
    plain, keyed = split_params(kind, words)
    try:
        command = build_command(kind, plain, keyed + params, entered, by, session_rules(session), entered_for)
    except UsageError as exc:
        fail(str(exc), 2)
    except Refused as exc:  # a value the command can't take: refused as the engine refuses
        fail(str(exc))
    execute(session, command)
    if kind in ("undo", "redo"):
        _tell_undo_redo(session, kind)
        return
    tell_step(session, before)


def session_rules(session: Session) -> RuleSystem | None:
    """The session's rule system (None before the encounter is created, or when it isn't installed)."""
    try:
        return session.rules if session.state.rules is not None else None
    except KeyError:
        return None


@app.command()
@click.argument("log_path", metavar="LOG")
def undo(log_path: str) -> None:
    """Undo the last step (appends StepUndone; nothing is erased)."""
    session = write_session(log_path)
    execute(session, Command(kind="undo"))
    _tell_undo_redo(session, "undo")


@app.command()
@click.argument("log_path", metavar="LOG")
def redo(log_path: str) -> None:
    """Redo the last undone step, with its own dice."""
    session = write_session(log_path)
    execute(session, Command(kind="redo"))
    _tell_undo_redo(session, "redo")


def _tell_undo_redo(session: Session, kind: str) -> None:
    """`undone: step 12, Ayla fires ...` (or `redone: ...`), then the status line."""
    step = session.projection.redo[-1] if kind == "undo" else session.projection.undo[-1]
    lines = [line.strip().rstrip(".") for line in told_of_step(session, step)]
    what = "; ".join(lines[:3]) + (" ..." if len(lines) > 3 else "") if lines else "a step with nothing to tell"
    click.echo(f"{kind}ne: step {step}, {what}.")
    click.echo(status_line(session))


def _status(c) -> str:
    if c.removed:
        return "removed"
    if c.defeated:
        return c.defeated
    return "active"


VIEWER_OPTION_HELP = f"Who is looking (default: gm). {VIEWER_HELP}. See docs/views.md."


@app.command()
@click.argument("log_path", metavar="LOG")
@click.option("--at", "at", type=int, default=None, help="The state just after this seq.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object.")
@click.option("--as", "--viewer", "viewer_name", metavar="VIEWER", default="gm", help=VIEWER_OPTION_HELP)
def show(log_path: str, at: int | None, as_json: bool, viewer_name: str) -> None:
    """The state now, or at any seq: phase, round, order, each combatant's status, as a viewer sees it."""
    log = read_log(log_path)
    if at is not None and at < 0:
        fail(f"seq {at} is outside the log: give 0 (before the first event) or more")
    try:  # one fold up to `at`: no snapshots kept, so memory stays a replay's on any log
        projection = fold_log(log, at, Projection(marks=False))
    except LogError as exc:
        fail(str(exc))
    if at is not None and projection.seq < at:
        fail(f"seq {at} is outside the log (0 to {projection.seq})")
    _warn_if_newer(projection.state, log_path)
    viewer = _viewer(log, viewer_name, projection.state if at is None else None)
    view = seen(projection.state, viewer, projection.seq)
    data = show_data(view)
    if as_json:
        click.echo(json.dumps(data, sort_keys=True))
        return
    from rich.console import Console
    from rich.table import Table

    console = Console(no_color=not sys.stdout.isatty())  # the terminal's own width
    console.print(
        f"seq {view.seq}: {view.phase}, round {view.round}"
        + (f"; {view.outcome}" + (f", won by {view.winner}" if view.winner else "") if view.outcome else "")
        + ("" if viewer.gm else f" (as {viewer.name})"),
        markup=False,
        highlight=False,
    )
    table = Table("id", "name", "side", "init", "status", "conditions")
    table.add_column("health", no_wrap=True)
    for c in view.combatants:
        table.add_row(
            ("> " if c.acting else "") + escape_markup(printable(c.id)),
            escape_markup(printable(c.name)),
            escape_markup(printable(c.side)),
            c.initiative_said or str(c.initiative or ""),
            c.status,
            escape_markup(printable(", ".join(x.name for x in c.conditions))),
            _health_cell(c),
        )
    console.print(table)
    if view.unseen_acting:
        console.print("someone unseen is acting", markup=False, highlight=False)
    for line in view.summary:
        console.print(line, markup=False, highlight=False)


def _warn_if_newer(state: Any, where: str) -> None:
    """One line on stderr when the log was recorded under a later version of its rules than the one installed."""
    if state.rules is None:
        return
    try:
        installed = get_rules(state.rules).version
        newer = int(state.rules_version or "1") > int(installed or "1")
    except (KeyError, ValueError):
        return
    if newer:
        click.echo(
            f"combatlog: warning: {where} was recorded under {state.rules} {state.rules_version}, newer than the "
            f"{state.rules} {installed} installed here; what its rules added may show wrong: upgrade combatlog",
            err=True,
        )


def show_data(view: Any) -> dict[str, Any]:
    """`show --json`: the `Seen` of `combatlog.replays.views` as one JSON object, combatants by id."""
    return {
        "viewer": view.viewer,
        "seq": view.seq,
        "phase": view.phase,
        "round": view.round,
        "order": [cid for tier in view.order for cid in tier],
        "tiers": [list(tier) for tier in view.order],
        "acting": list(view.acting),
        "unseen_acting": view.unseen_acting,
        "outcome": view.outcome,
        "winner": view.winner,
        "combatants": {
            c.id: {
                "name": c.name,
                "side": c.side,
                "kind": c.kind,
                "status": c.status,
                "damage": c.damage,
                "initiative": c.initiative,
                "position": c.position,
                "conditions": [x.name for x in c.conditions],
                "resources": c.resources,
                "stats": c.stats,
                "health": _health_json(c.health),
                **({"hidden": True} if c.hidden else {}),
            }
            for c in view.combatants
        },
        "summary": list(view.summary),
        "rules_state": view.rules_state,
    }


def _health_json(h: Any) -> dict[str, Any] | None:
    if h is None or h.shown == "hidden":
        return None
    if h.shown == "exact":
        return {"left": h.left, "max": h.most, "level": h.level}
    return {"level": h.level}


def _health_cell(c: Any) -> str:
    h = c.health
    if h is not None and h.shown == "exact":
        return _bar({"left": h.left, "max": h.most})
    if h is not None and h.level:
        return escape_markup(h.level)
    if c.damage is not None:
        return f"{c.damage} damage"
    return ""


def _bar(health: dict[str, int], width: int = 6) -> str:
    """`█████░ 12/14`: what is left of a track, coloured by how much."""
    left, most = health["left"], max(health["max"], 1)
    filled = round(width * left / most)
    colour = "green" if left * 2 > most else "yellow" if left * 4 > most else "red"
    return f"[{colour}]{'█' * filled}{'░' * (width - filled)}[/{colour}] {left}/{most}"


@app.command()
@click.argument("log_path", metavar="LOG")
@click.option("--to", "to", type=int, default=None, help="Stop at this seq.")
@click.option("--json", "as_json", is_flag=True, help="One JSON event per line.")
def replay(log_path: str, to: int | None, as_json: bool) -> None:
    """The transcript up to a seq (or the events themselves, with --json)."""
    log = read_log(log_path)
    try:
        if as_json:
            for envelope in envelopes(log, 1, to):
                click.echo(msgspec.json.encode(envelope).decode())
        else:
            for seq, line in transcript(log, to):
                click.echo(f"{seq:>6}  {line}")
    except LogError as exc:
        fail(str(exc))


@app.command()
@click.argument("log_path", metavar="LOG")
@click.option("--new", "only_new", is_flag=True, help="Tell only what is saved from now on.")
@click.option("--dice", is_flag=True, help="Tell every roll as well, under its action.")
@click.option(
    "--poll",
    type=click.FloatRange(min=0.01),
    default=0.5,
    show_default=True,
    help="Seconds between looks at a file log (a PostgreSQL log is notified).",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0),
    default=None,
    help="Stop after this many seconds with nothing new (default: until interrupted).",
)
@click.option("--viewer", "viewer_name", metavar="VIEWER", default="gm", help=VIEWER_OPTION_HELP)
def follow(log_path: str, only_new: bool, dice: bool, poll: float, timeout: float | None, viewer_name: str) -> None:
    """Tell the fight as it happens: the transcript, then each step as any session saves it."""
    log = read_log(log_path)
    viewer = _viewer(log, viewer_name)
    start = log.head()[0] if only_new else 0
    click.echo(f"following {log_name(log, log_path)} from seq {start + 1}; Ctrl-C stops", err=True)
    try:
        for seq, line in tell(follow_envelopes(log, 0, poll, timeout), dice, log, viewer):
            if seq > start:
                click.echo(line)
    except LogError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        pass
    finally:
        log.close()


def _viewer(log: Any, name: str, state: Any = None) -> Viewer:
    """The viewer `--as`/`--viewer` names, checked against the log's last state (its ids and
    sides; a spectator's fight must be over); fails in one line listing the known viewers."""
    if name.strip().lower() in ("gm", ""):
        return GM
    if state is None:
        try:
            state = fold_log(log, None, Projection(marks=False)).state
        except LogError as exc:
            fail(str(exc))
    try:
        return parse_viewer(name, state)
    except ViewerError as exc:
        fail(str(exc), 2)


@app.command(name="transcript")
@click.argument("log_path", metavar="LOG")
@click.option("--format", "fmt", type=click.Choice(["text", "markdown", "html"]), default="text", show_default=True)
@click.option("--dice", is_flag=True, help="Tell every roll as well, under its action.")
@click.option("--viewer", "--as", "viewer_name", metavar="VIEWER", default="gm", help=VIEWER_OPTION_HELP)
def transcript_cmd(log_path: str, fmt: str, dice: bool, viewer_name: str) -> None:
    """The whole fight as readable prose (text, Markdown, or a standalone HTML page), as a viewer may read it."""
    log = read_log(log_path)
    viewer = _viewer(log, viewer_name)
    try:
        lines = undone_of(log, transcript(log, dice=dice, viewer=viewer))  # an undone step's lines stay, marked
    except LogError as exc:
        fail(str(exc))
    for line in render(lines, fmt, title=lines[0][0] if lines else log_path):
        click.echo(line)


@app.command()
@click.argument("log_path", metavar="LOG")
@click.argument("other", metavar="OTHER_PATH")
@click.option(
    "--viewer",
    "viewer_name",
    metavar="VIEWER",
    default=None,
    help="Write the events this viewer may receive, as JSON lines (a view, not a log: redacted events "
    f"carry no digest), in place of a byte copy. {VIEWER_HELP}.",
)
def export(log_path: str, other: str, viewer_name: str | None) -> None:
    """Copy a log to another store (JSON lines, SQLite, PostgreSQL), every byte and digest intact;
    or, with --viewer, write what one viewer may receive."""
    if viewer_name is not None:
        _export_view(log_path, other, viewer_name)
        return
    source = read_log(log_path, rules=False)  # a byte copy needs no rule system
    if Path(other).exists() and Path(other).stat().st_size > 0:
        fail(f"{other} exists; export writes only to a new log")
    count, target = write_new_log(other, "export", "exported", lambda target: copy_log(source, target))
    click.echo(f"{log_name(target, other)}: {count} events")


def write_new_log(where: str, command: str, done: str, write: Any, refusals: tuple[type[Exception], ...] = ()) -> Any:
    """`write(target)` on a new, empty log at `where`, in one batch: (what it returned, the log,
    still open). A database URL that holds events fails in one line; so does a write that
    fails (LogError, or one of `refusals`), leaving nothing: a database's transaction is
    rolled back, a file left half written is removed ("...; nothing {done}")."""
    target = _open_or_fail(where)
    if target.head()[0] > 0:  # a database URL names an encounter that may already hold events
        target.close()
        fail(f"{log_name(target, where)} holds events; {command} writes only to a new log")
    batch = getattr(target, "batch", contextlib.nullcontext)
    try:
        with batch():
            result = write(target)
    except (LogError, *refusals) as exc:
        target.close()
        if not is_url(where):
            for leftover in (Path(where), Path(f"{where}-wal"), Path(f"{where}-shm")):
                leftover.unlink(missing_ok=True)
        fail(f"{exc}; nothing {done}")
    return result, target


@app.command()
@click.argument("log_path", metavar="LOG")
def repair(log_path: str) -> None:
    """Move the torn tail of a JSON-lines log aside to LOG.torn, keeping every whole step."""
    log = read_log(log_path, write=True)
    if not isinstance(log, JsonlLog):
        fail(f"{log_name(log, log_path)}: only JSON-lines logs can be torn; SQLite and PostgreSQL commit whole steps")
    try:
        torn = log.repair()
    except LogError as exc:  # a log the user can't write, a planted LOG.torn link: nothing was changed
        fail(str(exc))
    click.echo("nothing to repair" if torn is None else f"moved the torn tail from seq {torn.seq} to {log_path}.torn")


@app.command()
def schema() -> None:
    """The JSON Schema of a log line, every installed rule system's events included."""
    for name in rule_names():  # each system registers its events when it loads
        with contextlib.suppress(Exception):  # a broken plugin is `rulesets`' to report, not the schema's
            get_rules(name)
    click.echo(json.dumps(json_schema(), indent=2, sort_keys=True))


def main() -> None:
    app(prog_name="combatlog")


if __name__ == "__main__":
    main()


def _export_view(log_path: str, other: str, viewer_name: str) -> None:
    """`export --viewer`: the events `viewer_name` may receive, one JSON envelope a line, to a new file."""
    log = read_log(log_path)
    viewer = _viewer(log, viewer_name)
    if is_url(other):
        fail(f"{other}: a viewer's export is a JSON lines file, not a log; give a file path")
    target = Path(other)
    if target.exists() and target.stat().st_size > 0:
        fail(f"{other} exists; export writes only to a new file")
    encode = msgspec.json.Encoder().encode
    count = 0
    try:
        with target.open("wb") as out:
            for envelope in viewed_envelopes(envelopes(log), viewer, log, hidden_at(log, None, viewer)):
                out.write(encode(envelope) + b"\n")
                count += 1
    except LogError as exc:
        target.unlink(missing_ok=True)
        fail(f"{exc}; nothing exported")
    click.echo(f"{other}: {count} events as {viewer.name} may receive them")
