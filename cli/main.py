"""The `combatlog` command line: run, inspect, undo, replay, audit and export an encounter.

Every error is one line on stderr and a non-zero exit (2 for usage, 1 otherwise); a
command that fails appends nothing. Reading never creates a log.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any, NoReturn

import click
import msgspec
from rich.markup import escape as escape_markup

from combatlog.engine import Refused, RuleSystem, Session, get_rules, rule_names
from combatlog.engine.dice import DiceError
from combatlog.engine.encounter_file import EncounterFileError, read_encounter
from combatlog.engine.grammar import UsageError, build_command, typed_roll
from combatlog.events import Command, LogError, json_schema
from combatlog.events.privacy import GM, Viewer
from combatlog.replays import JsonlLog, copy_log, open_log
from combatlog.replays.audit import audit as run_audit
from combatlog.replays.cursor import Cursor, envelopes
from combatlog.replays.encounters import check_commands
from combatlog.replays.follow import follow_envelopes
from combatlog.replays.parallel import cores
from combatlog.replays.transcript import printable, render, tell, transcript

TIMINGS = ("turn", "simultaneous", "mixed")


def fail(message: str, code: int = 1) -> NoReturn:
    click.echo(f"combatlog: {message}", err=True)
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
        fail(f"{_shown(log, path)}: {missing[1]}")


def _is_url(where: str) -> bool:
    """True for a database URL (`postgresql://`), a log that isn't a file."""
    return where.startswith(("postgresql://", "postgres://"))


def _open_or_fail(where: str):
    """Open (creating if need be) the log at `where`, or fail with the store's one-line error."""
    try:
        return open_log(where)
    except LogError as exc:
        fail(str(exc))


def _shown(log, where: str) -> str:
    """How to name a log in a message: a database URL with its password masked."""
    return getattr(log, "where", where)


def signing():
    """The signer of the key at COMBATLOG_SIGNING_KEY (None when it isn't set)."""
    key_path = os.environ.get("COMBATLOG_SIGNING_KEY")
    if not key_path:
        return None
    from combatlog.replays.signing import signer as make_signer

    try:
        return make_signer(Path(key_path))
    except LogError as exc:
        fail(str(exc))


def write_session(path: str, clock: bool = False) -> Session:
    """A session on an existing log, for a command that appends; its steps are signed with the
    key at COMBATLOG_SIGNING_KEY when that is set (`combatlog keygen` makes one)."""
    log = read_log(path, write=True)
    if getattr(log, "torn", None) is not None:
        fail(f"{path}: the log is torn; nothing appended; run `combatlog repair {path}` first")
    try:
        return Session(log, clock=_utc_now if clock else None, signer=signing())
    except (LogError, KeyError) as exc:
        fail(str(exc.args[0] if isinstance(exc, KeyError) else exc))


def told_since(session: Session, seq: int) -> list[str]:
    """The transcript's lines for what the log holds after `seq` (the steps just taken)."""
    return [line for at, line in transcript(session.log) if at > seq]


def told_of_step(session: Session, step: int) -> list[str]:
    """The transcript's lines for step `step` (as it was told when it was taken)."""
    seqs = {e.seq for e in envelopes(session.log) if e.step == step}
    return [line for at, line in transcript(session.log) if at in seqs]


def status_line(session: Session) -> str:
    """Where the fight stands: seq, phase, round, whose turn."""
    state = session.state
    who = ", ".join(state.combatants[a].name for a in state.acting) or "no one"
    return f"seq {session.projection.seq}: {state.phase}, round {state.round}; acting: {who}"


def tell_step(session: Session, before: int) -> None:
    """Print what the step(s) after seq `before` did, then the status line."""
    for line in told_since(session, before):
        click.echo(line)
    click.echo(status_line(session))


def _utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def execute(session: Session, command: Command) -> None:
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
    if _is_url(log_path):
        existing = _open_or_fail(log_path)
        if existing.head()[0] > 0:
            if not force:
                fail(
                    f"{_shown(existing, log_path)} holds events; pass --force to replace them, or choose another --log"
                )
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
    session = Session(log, clock=_utc_now if clock else None, signer=signing())
    for command in commands + [Command(kind="begin")]:
        execute(session, command)
    try:
        session.play_out()
    except (Refused, DiceError) as exc:
        fail(str(exc))
    for _, line in transcript(log):
        click.echo(line)
    click.echo(f"Log: {_shown(log, log_path)} ({log.head()[0]} events).")


@app.command()
@click.argument("encounter", type=click.Path(dir_okay=False))
@click.argument("log_arg", metavar="[LOG]", required=False)
@click.option("--log", "log_path", default=None, help="The new log (.jsonl, .db or a postgresql:// URL).")
@click.option("--seed", type=int, default=None, help="The dice seed (overrides the file's).")
def new(encounter: str, log_arg: str | None, log_path: str | None, seed: int | None) -> None:
    """Start an encounter from a TOML file, on LOG (default: ENCOUNTER's name with .db, beside it)."""
    if log_arg is not None and log_path is not None and log_arg != log_path:
        fail(f"two logs given ({log_arg} and --log {log_path}); give one", 2)
    log_path = log_arg or log_path or str(Path(encounter).with_suffix(".db"))
    try:
        commands = read_encounter(encounter, seed=seed)
    except EncounterFileError as exc:
        fail(str(exc))
    if Path(log_path).exists() and Path(log_path).stat().st_size > 0:
        fail(f"{log_path} exists; choose a new --log")
    try:
        check_commands(commands, encounter)  # in memory first, so a bad file leaves no log behind
    except EncounterFileError as exc:
        fail(str(exc))
    log = _open_or_fail(log_path)
    if log.head()[0] > 0:  # a database URL names an encounter that may already hold events
        log.close()
        fail(f"{_shown(log, log_path)} holds events; choose a new --log")
    session = Session(log, signer=signing())
    for command in commands:
        execute(session, command)
    shown = _shown(log, log_path)
    click.echo(
        f"{shown}: {len(session.state.combatants)} combatants under {session.state.rules}; "
        f"`combatlog do {shown} begin` starts the fight."
    )


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

    \b
      act ACTOR ACTION [TARGET...]    end_turn [ACTOR]    begin    auto
      surprise SIDE...                remove ACTOR        note TEXT
      ruling TOPIC DECISION           end [OUTCOME]       undo / redo
      override --param reason=... --param damage='{"target":"g1","amount":3}'
    """
    session = write_session(log_path)
    before = session.projection.seq
    entered, entered_for = _dice(dice)
    if kind == "auto":
        try:
            session.auto(entered=entered, entered_for=entered_for)
        except (Refused, DiceError, LogError) as exc:
            fail(str(exc))
        tell_step(session, before)
        return
    try:
        command = build_command(kind, words, params, entered, by, _rules_of(session), entered_for)
    except UsageError as exc:
        fail(str(exc), 2)
    execute(session, command)
    if kind in ("undo", "redo"):
        _tell_undo_redo(session, kind)
        return
    tell_step(session, before)


def _rules_of(session: Session) -> RuleSystem | None:
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


@app.command()
@click.argument("log_path", metavar="LOG")
@click.option("--at", "at", type=int, default=None, help="The state just after this seq.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object.")
@click.option(
    "--as",
    "viewers",
    multiple=True,
    metavar="SIDE",
    help="As this side may see it: what others keep private (a hand of cards) hidden. Default: everything.",
)
def show(log_path: str, at: int | None, as_json: bool, viewers: tuple[str, ...]) -> None:
    """The state now, or at any seq: phase, round, order, each combatant's status."""
    log = read_log(log_path)
    try:
        cursor = Cursor(log)
        projection = cursor.at(cursor.last if at is None else at)
    except (LogError, ValueError) as exc:
        fail(str(exc))
    state = projection.state
    rules = get_rules(state.rules) if state.rules is not None else None
    if rules is not None:
        state = rules.seen_by(state, _viewer(viewers))

    def health(c: Any) -> dict[str, int] | None:
        left_max = rules.health(state, c) if rules is not None else None
        return None if left_max is None else {"left": left_max[0], "max": left_max[1]}

    data = {
        "seq": projection.seq,
        "phase": state.phase,
        "round": state.round,
        "order": state.flat_order(),
        "acting": list(state.acting),
        "outcome": state.outcome,
        "winner": state.winner,
        "combatants": {
            c.id: {
                "name": c.name,
                "side": c.side,
                "kind": c.kind,
                "status": _status(c),
                "damage": c.damage,
                "initiative": c.initiative,
                "position": c.position,
                "conditions": [x.name for x in c.conditions],
                "resources": dict(c.resources),
                "stats": c.stats,
                "health": health(c),
            }
            for c in state.combatants.values()
        },
        "rules_state": msgspec.to_builtins(state.extra),
    }
    if as_json:
        click.echo(json.dumps(data, sort_keys=True))
        return
    from rich.console import Console
    from rich.table import Table

    console = Console(no_color=not sys.stdout.isatty())  # the terminal's own width
    console.print(
        f"seq {data['seq']}: {state.phase}, round {state.round}"
        + (f"; {state.outcome} ({state.winner})" if state.outcome else "")
    )
    table = Table("id", "name", "side", "init", "status", "conditions")
    table.add_column("health", no_wrap=True)
    order = state.flat_order() + [cid for cid in state.combatants if cid not in state.flat_order()]
    for cid in order:
        c = data["combatants"][cid]
        table.add_row(
            ("> " if cid in state.acting else "") + escape_markup(printable(cid)),
            escape_markup(printable(c["name"])),
            escape_markup(printable(c["side"])),
            str(c["initiative"] or ""),
            c["status"],
            escape_markup(printable(", ".join(c["conditions"]))),
            _bar(c["health"]) if c["health"] else f"{c['damage']} damage",
        )
    console.print(table)
    if state.rules is not None:
        for line in get_rules(state.rules).summary(state):
            console.print(line, markup=False, highlight=False)


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
def follow(log_path: str, only_new: bool, dice: bool, poll: float, timeout: float | None) -> None:
    """Tell the fight as it happens: the transcript, then each step as any session saves it."""
    log = read_log(log_path)
    start = log.head()[0] if only_new else 0
    click.echo(f"following {_shown(log, log_path)} from seq {start + 1}; Ctrl-C stops", err=True)
    try:
        for seq, line in tell(follow_envelopes(log, 0, poll, timeout), dice, log):
            if seq > start:
                click.echo(printable(line))
    except LogError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        pass
    finally:
        log.close()


def _viewer(sides: tuple[str, ...]) -> Viewer:
    """The Viewer for `--viewer`/`--as` sides (none given: the game master, who sees everything)."""
    if not sides:
        return GM
    return Viewer(sides=frozenset(s for s in sides if s != "nobody"))


@app.command(name="transcript")
@click.argument("log_path", metavar="LOG")
@click.option("--format", "fmt", type=click.Choice(["text", "markdown", "html"]), default="text", show_default=True)
@click.option("--dice", is_flag=True, help="Tell every roll as well, under its action.")
@click.option(
    "--viewer",
    "viewers",
    multiple=True,
    metavar="SIDE",
    help="Tell it as this side sees it: others' private events (a card drawn, a secret roll) redacted; "
    "repeat for several sides; 'nobody' for a shared screen. Default: the game master's, whole.",
)
def transcript_cmd(log_path: str, fmt: str, dice: bool, viewers: tuple[str, ...]) -> None:
    """The whole fight as readable prose (text, Markdown, or a standalone HTML page)."""
    log = read_log(log_path)
    try:
        lines = [line for _, line in transcript(log, dice=dice, viewer=_viewer(viewers))]
    except LogError as exc:
        fail(str(exc))
    for line in render(lines, fmt, title=lines[0] if lines else log_path):
        click.echo(line)


@app.command()
@click.argument("log_path", metavar="LOG")
@click.option("--json", "as_json", is_flag=True, help="The report as one JSON object.")
@click.option("--strict", is_flag=True, help="Fail too when any override or typed-in die is in the log.")
@click.option("--expect-head", default=None, metavar="SEQ:DIGEST", help="Fail unless the log still holds this.")
@click.option("--key", default=None, metavar="PUBLIC", help="Check every step is signed by this Ed25519 key (hex).")
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Processes sharing the audit (default: one per core, up to 8, for logs of 50,000 events or more).",
)
def audit(
    log_path: str, as_json: bool, workers: int | None, strict: bool, expect_head: str | None, key: str | None
) -> None:
    """Check the digest chain and re-decide every step; exit 1 with one finding per line.

    Overrides and dice typed in at the table are listed (on stderr); --strict fails on them too.
    """
    log = read_log(log_path)
    if expect_head is not None:
        _check_head(log, log_path, expect_head)
    if workers is not None:
        workers = min(workers, cores())  # more processes than cores only slow each other down
    if sys.stderr.isatty():
        from rich.progress import Progress

        total = log.head()[0]
        # refreshed from the audit's own calls, with no thread of its own: an audit of a long
        # log forks, and a forked process mustn't inherit a thread's locks
        with Progress(transient=True, auto_refresh=False) as progress:
            task = progress.add_task("auditing", total=total)
            report = run_audit(
                log, progress=lambda n: progress.update(task, completed=n, refresh=True), workers=workers
            )
    else:
        report = run_audit(log, workers=workers)
    if key is not None:
        from combatlog.replays.audit import signatures

        try:
            report.findings.extend(signatures(log, key.strip()))
        except LogError as exc:
            fail(str(exc), 2)
    if as_json:
        click.echo(json.dumps(msgspec.to_builtins(report) | {"clean": report.clean}, sort_keys=True))
    else:
        for finding in report.findings:
            click.echo(str(finding))
        for override in report.overrides:
            click.echo(f"seq {override.seq}: override by the game master: {override.reason}", err=True)
        for e in report.entered:
            who = f" by {e.by}" if e.by else ""
            faces = " ".join(map(str, e.faces))
            click.echo(f"seq {e.seq}: step {e.step}: {e.expression} [{faces}] typed in{who} ({e.purpose})", err=True)
        if report.clean:
            click.echo(f"clean: {report.events} events in {report.steps} steps", err=True)
    if strict and report.clean and (report.overrides or report.entered):
        click.echo(
            f"strict: {len(report.overrides)} override(s) and {len(report.entered)} die/dice not rolled by the engine",
            err=True,
        )
        sys.exit(1)
    sys.exit(0 if report.clean else 1)


def _check_head(log: Any, log_path: str, expected: str) -> None:
    """Fail unless the log still holds seq SEQ with digest DIGEST (written down earlier with `head`)."""
    seq_text, sep, digest = expected.partition(":")
    if not sep or not seq_text.isdigit() or not digest:
        fail(f"--expect-head {expected[:80]!r}: give SEQ:DIGEST as `combatlog head` prints it", 2)
    seq = int(seq_text)
    found = next(iter(envelopes(log, seq, seq + 1)), None) if seq >= 1 else None
    if found is None:
        fail(f"{log_path}: seq {seq} is gone (the log holds {log.head()[0]} events): cut or replaced")
    if found.digest != digest:
        fail(f"{log_path}: seq {seq} has digest {found.digest[:16]}..., not {digest[:16]}...: rewritten")


@app.command()
@click.argument("path", metavar="PRIVATE_KEY_FILE")
def keygen(path: str) -> None:
    """Make an Ed25519 key to sign steps with: writes the private key (readable by you only) and
    prints the public key. Sign with COMBATLOG_SIGNING_KEY=FILE; check with audit --key PUBLIC."""
    from combatlog.replays.signing import keygen as make_key

    target = Path(path)
    if target.exists():
        fail(f"{path} exists; choose a new file (a key is never overwritten)")
    try:
        public = make_key(target)
    except LogError as exc:
        fail(str(exc))
    click.echo(public)


@app.command()
@click.argument("log_path", metavar="LOG")
def head(log_path: str) -> None:
    """The log's last seq and digest, as SEQ:DIGEST: write it down or publish it, and check it
    later with `audit --expect-head` (a cut or a re-chained log can't keep it)."""
    log = read_log(log_path)
    seq, line = log.head()
    if line is None:
        fail(f"{log_path}: the log is empty")
    click.echo(f"{seq}:{msgspec.json.decode(line)['digest']}")


@app.command()
@click.argument("log_path", metavar="LOG")
@click.argument("other", metavar="OTHER_PATH")
def export(log_path: str, other: str) -> None:
    """Copy a log to another store (JSON lines, SQLite, PostgreSQL), every byte and digest intact."""
    source = read_log(log_path, rules=False)  # a byte copy needs no rule system
    if Path(other).exists() and Path(other).stat().st_size > 0:
        fail(f"{other} exists; export writes only to a new log")
    target = _open_or_fail(other)
    if target.head()[0] > 0:  # a database URL names an encounter that may already hold events
        target.close()
        fail(f"{_shown(target, other)} holds events; export writes only to a new log")
    # a half copy is no copy: a database takes the whole copy in one transaction; a file
    # left half written is removed
    batch = getattr(target, "batch", contextlib.nullcontext)
    try:
        with batch():
            count = copy_log(source, target)
    except LogError as exc:
        target.close()
        if not _is_url(other):
            for leftover in (Path(other), Path(f"{other}-wal"), Path(f"{other}-shm")):
                leftover.unlink(missing_ok=True)
        fail(f"{exc}; nothing exported")
    click.echo(f"{_shown(target, other)}: {count} events")


@app.command()
@click.argument("log_path", metavar="LOG")
def repair(log_path: str) -> None:
    """Move the torn tail of a JSON-lines log aside to LOG.torn, keeping every whole step."""
    log = read_log(log_path, write=True)
    if not isinstance(log, JsonlLog):
        fail(f"{_shown(log, log_path)}: only JSON-lines logs can be torn; SQLite and PostgreSQL commit whole steps")
    torn = log.repair()
    click.echo("nothing to repair" if torn is None else f"moved the torn tail from seq {torn.seq} to {log_path}.torn")


@app.command()
@click.argument("name", required=False)
@click.option("--check", "check_it", is_flag=True, help="Run the checklist on NAME (a plugin's, say).")
def rulesets(name: str | None, check_it: bool) -> None:
    """The installed rule systems, their options and commands; with NAME, all about that one:
    its stats, its actions with their costs and help, as the bundled example's combatants have them.

    --check NAME: its example starts with `new`, plays to the end with `auto`, audits clean,
    gives the same bytes for the same seed, and undo and redo restore the state.
    """
    if check_it:
        if name is None:
            fail("rulesets --check needs NAME", 2)
        _check_ruleset(name)
        return
    if name is not None:
        _ruleset(name)
        return
    for name in rule_names():
        try:
            rules = get_rules(name)
        except Exception as exc:  # one broken plugin never hides the rest
            click.echo(f"{name}: failed to load ({type(exc).__name__}: {' '.join(str(exc).split())[:160]})")
            continue
        click.echo(f"{name} {rules.version}")
        for key, spec in rules.option_specs.items():
            choices = f" ({', '.join(map(str, spec.choices))})" if spec.choices else ""
            default = "required" if spec.default is msgspec.NODEFAULT else f"= {spec.default!r}"
            click.echo(f"  option {key} {default}{choices}" + (f": {spec.help}" if spec.help else ""))
        if rules.required_stats:
            click.echo(f"  stats {', '.join(rules.required_stats)}")
        for kind, text in rules.commands.items():
            words = " ".join(
                w.lstrip("*").upper() + ("..." if w.startswith("*") else "") for w in rules.command_words.get(kind, ())
            )
            click.echo(f"  command {kind} {words}".rstrip() + f": {text}")


def _struct_in(annotation: Any) -> type | None:
    """The msgspec Struct an annotation holds (a list of weapons, an optional shield), if any."""
    import typing

    if isinstance(annotation, type) and issubclass(annotation, msgspec.Struct):
        return annotation
    for arg in typing.get_args(annotation):
        found = _struct_in(arg)
        if found is not None:
            return found
    return None


def _ruleset(name: str) -> None:
    try:
        rules = get_rules(name)
    except KeyError:
        fail(f"no rule system {name!r}; installed: {', '.join(rule_names())}")
    click.echo(f"{name} {rules.version}")
    for key, spec in rules.option_specs.items():
        choices = f" ({', '.join(map(str, spec.choices))})" if spec.choices else ""
        default = "required" if spec.default is msgspec.NODEFAULT else f"= {spec.default!r}"
        click.echo(f"  option {key} {default}{choices}" + (f": {spec.help}" if spec.help else ""))
    if rules.stats_type is not None:
        import typing

        hints = typing.get_type_hints(rules.stats_type)
        for field in msgspec.structs.fields(rules.stats_type):
            required = field.required
            shown = "required" if required else f"default {field.default!r}"
            click.echo(f"  stat {field.name}: {shown}")
            inner = _struct_in(hints.get(field.name))
            if inner is not None:  # a table of its own (a weapon, a card): its keys
                keys = [f.name + ("" if not f.required else " (required)") for f in msgspec.structs.fields(inner)]
                click.echo(f"    {field.name} keys: {', '.join(keys)}")
    for kind, text in rules.commands.items():
        words = " ".join(
            w.lstrip("*.").upper() + ("..." if w[0] in "*." else "") for w in rules.command_words.get(kind, ())
        )
        click.echo(f"  command {kind} {words}".rstrip() + f": {text}")
    try:
        session = Session(open_log("memory:"))
        for command in read_encounter(example_path(name)):
            session.execute(command)
        session.do("begin")
    except (Refused, DiceError, EncounterFileError, SystemExit):
        return
    state = session.state
    seen: set[str] = set()
    for c in state.active():
        for spec in rules.actions(state, c):
            if spec.name in seen:
                continue
            seen.add(spec.name)
            cost = ", ".join(f"{v} {k}" for k, v in sorted(spec.cost.items())) or "free"
            targets = spec.targets if spec.max_targets else "no target"
            click.echo(f"  action {spec.name} [{cost}; {targets}]" + (f": {spec.help}" if spec.help else ""))


def _check_ruleset(name: str) -> None:
    """The checklist of a rule system, a line each; exit 1 at the first that fails."""
    from combatlog.replays.audit import audit as audit_log
    from combatlog.simulate.run import play

    try:
        get_rules(name)
    except Exception as exc:
        fail(f"{name}: failed to load ({type(exc).__name__}: {' '.join(str(exc).split())[:200]})")
    path = example_path(name)

    def step(what: str, ok: bool, why: str = "") -> None:
        click.echo(f"{'ok  ' if ok else 'FAIL'} {what}" + (f": {why}" if why and not ok else ""))
        if not ok:
            sys.exit(1)

    try:
        commands = read_encounter(path)
        check_commands(commands, str(path))
        step(f"its example {path.name} starts with `new`", True)
    except (EncounterFileError, Refused, DiceError) as exc:
        step(f"its example {path.name} starts with `new`", False, str(exc))
    try:
        first = play(commands, 7, {})
        step("it plays to the end with `auto`", first.state.phase == "end", f"phase {first.state.phase}")
    except (Refused, DiceError, RuntimeError) as exc:
        step("it plays to the end with `auto`", False, str(exc))
    report = audit_log(first.log, workers=1)
    step("the log audits clean", report.clean, "; ".join(str(f) for f in report.findings[:3]))
    again = play(commands, 7, {})
    step("the same seed gives the same bytes", list(first.log.lines()) == list(again.log.lines()))
    session = Session(open_log("memory:"))
    for command in commands:
        session.execute(command)
    session.do("begin")
    session.auto()
    before = session.state
    if session.state.phase != "end":
        session.auto()
    after = session.state
    session.undo()
    undone = session.state == before
    session.redo()
    step("undo and redo restore the state", undone and session.state == after)


@app.command()
@click.option("--rules", "rules_name", required=True, help="The rule system (see `combatlog rulesets`).")
@click.argument("path", metavar="[FILE]", required=False)
def init(rules_name: str, path: str | None) -> None:
    """Write an encounter file to start from: the rule system's bundled example, commented, which plays as written."""
    if rules_name not in rule_names():
        fail(f"no rule system {rules_name!r}; installed: {', '.join(rule_names())}")
    source = example_path(rules_name)
    target = Path(path or f"{rules_name}-encounter.toml")
    if target.exists():
        fail(f"{target} exists; choose another file")
    header = (
        f"# A {rules_name} encounter to start from (`combatlog rulesets {rules_name}` lists the options,\n"
        f"# stats and actions). Play it: combatlog new {target} && combatlog play {target.with_suffix('.db')}\n"
    )
    target.write_text(header + source.read_text(encoding="utf-8"), encoding="utf-8")
    click.echo(f"{target}: a {rules_name} encounter; `combatlog new {target}` starts it.")


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
