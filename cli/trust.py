"""`combatlog audit`, `head` and `keygen`: what a log can be trusted for, and how to anchor it."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click
import msgspec

from combatlog.cli.main import app, fail, read_log
from combatlog.engine.words import counted
from combatlog.events import LogError
from combatlog.replays.audit import audit as run_audit
from combatlog.replays.cursor import envelopes
from combatlog.replays.parallel import cores
from combatlog.replays.transcript import printable


@app.command()
@click.argument("log_path", metavar="LOG")
@click.option("--json", "as_json", is_flag=True, help="The report as one JSON object.")
@click.option("--strict", is_flag=True, help="Fail too when any override, typed-in die or amended step is in the log.")
@click.option("--expect-head", default=None, metavar="SEQ:DIGEST", help="Fail unless the log still holds this.")
@click.option("--key", default=None, metavar="PUBLIC", help="Check every step is signed by this Ed25519 key (hex).")
@click.option(
    "--fair",
    is_flag=True,
    help="Check the fair dice too: the reveal against the commitment, every engine die against the seed and "
    "the contributions, the contributions before the first die. LOG may be a players' export (export --viewer).",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Processes sharing the audit (default: one per core, up to 8, for logs of 50,000 events or more).",
)
def audit(
    log_path: str,
    as_json: bool,
    workers: int | None,
    strict: bool,
    expect_head: str | None,
    key: str | None,
    fair: bool,
) -> None:
    """Check the digest chain and re-decide every step; exit 1 with one finding per line.

    Overrides, dice typed in at the table and amended steps are listed (on stderr); --strict
    fails on them too.
    """
    from combatlog.replays import fair as fair_dice

    if fair and fair_dice.is_export(log_path):
        _audit_export(log_path, as_json)
        return
    log = read_log(log_path)
    if expect_head is not None:
        _check_head(log, log_path, expect_head)
    if workers is not None:
        workers = min(workers, cores())  # more processes than cores only slow each other down
    if sys.stderr.isatty():
        from rich.progress import Progress

        try:
            total = log.head()[0]
        except LogError as exc:  # the last line can't be read: the audit says where
            total = getattr(exc, "seq", None) or 0
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
    if fair:
        try:
            checked = fair_dice.check(envelopes(log))
        except LogError as exc:
            fail(str(exc))
        _merge_fair(report, checked)
    if as_json:
        click.echo(json.dumps(msgspec.to_builtins(report) | {"clean": report.clean}, sort_keys=True))
    else:
        for finding in report.findings:
            click.echo(str(finding))
        for note in report.notes:
            click.echo(f"note: {printable(note)}", err=True)
        for o in report.overrides:
            what = f" ({printable(o.subject)})" if o.subject else ""
            click.echo(
                f"seq {o.seq}: step {o.step}: override{what} by {printable(o.by) or 'the game master'}: "
                f"{printable(o.reason)}",
                err=True,
            )
        for e in report.entered:
            typed = f" by {printable(e.typed_by)}" if e.typed_by else ""
            roll = f", {printable(e.by)}'s roll" if e.by else ""
            faces = " ".join(map(str, e.faces))
            click.echo(
                f"seq {e.seq}: step {e.step}: {e.expression} [{faces}] typed in{typed} ({printable(e.purpose)}{roll})",
                err=True,
            )
        for a in report.amended:
            draws = "" if a.draws == a.amends else f", with the draws of step {a.draws}"
            click.echo(
                f"seq {a.seq}: step {a.step}: amended: decided in place of step {a.amends}{draws} "
                f"(given by {printable(a.by) or 'the game master'})",
                err=True,
            )
        if report.clean:
            click.echo(f"clean: {report.events} events in {counted(report.steps, 'step')}", err=True)
    if strict and report.clean and (report.overrides or report.entered or report.amended):
        amended = f", {counted(len(report.amended), 'step')} amended" if report.amended else ""
        click.echo(
            f"strict: {counted(len(report.overrides), 'override')} and {counted(len(report.entered), 'die')} "
            "not rolled by the engine" + amended,
            err=True,
        )
        sys.exit(1)
    sys.exit(0 if report.clean else 1)


def _merge_fair(report: Any, checked: Any) -> None:
    """The fair check's findings added to an audit's (one per seq: the audit's own first), its notes
    in place of the audit's note on unrevealed dice, and what it checked as a note."""
    from combatlog.replays.audit import UNREVEALED

    seqs = {f.seq for f in report.findings}
    report.findings.extend(f for f in checked.findings if f.seq not in seqs)
    report.findings.sort(key=lambda f: f.seq)
    report.notes[:] = [n for n in report.notes if n != UNREVEALED] + checked.notes
    report.notes.append(_fair_summary(checked))


def _fair_summary(checked: Any) -> str:
    if checked.commitment is None:
        return "fair dice: not a fair encounter"
    what = f"commitment {checked.commitment[:16]}..., {counted(checked.contributions, 'contribution')}"
    if not checked.revealed:
        return f"fair dice: {what}, not revealed yet"
    return f"fair dice: {what}, revealed; {counted(checked.checked, 'engine roll')} follow from them"


def _audit_export(path: str, as_json: bool) -> None:
    """`audit --fair` of a viewer's export: its fair dice alone (an export has no digests, and its
    redacted events can't be re-decided)."""
    from combatlog.replays import fair as fair_dice

    try:
        checked = fair_dice.check(fair_dice.read_export(path))
    except LogError as exc:
        fail(str(exc))
    checked.notes.insert(0, "a viewer's export: its fair dice are checked; its digests and rules can't be")
    if as_json:
        click.echo(json.dumps(msgspec.to_builtins(checked) | {"clean": checked.clean}, sort_keys=True))
        sys.exit(0 if checked.clean else 1)
    for finding in checked.findings:
        click.echo(str(finding))
    for note in checked.notes:
        click.echo(f"note: {printable(note)}", err=True)
    if checked.clean:
        click.echo(f"clean: {_fair_summary(checked)}", err=True)
    sys.exit(0 if checked.clean else 1)


@app.command()
@click.argument("log_path", metavar="LOG")
@click.option("--early", is_flag=True, help="Reveal while the fight goes on (anyone can then foretell its dice).")
def reveal(log_path: str, early: bool) -> None:
    """Reveal a fair encounter's seed and nonce (kept in LOG.secret) in the log, once the fight is over."""
    from combatlog.cli.main import execute, tell_step, write_session
    from combatlog.events import Command

    session = write_session(log_path)
    fair = session.state.fair
    if fair is None:
        fail(f"{log_path}: not a fair encounter (its dice aren't committed): nothing to reveal")
    if fair.seed is None and session.secret is None:
        fail(f"{log_path}: {session.fair_secret()}")
    before = session.projection.snapshot()
    execute(session, Command(kind="reveal", params={"early": True} if early else {}))
    tell_step(session, before)
    revealed = session.state.fair
    assert revealed is not None
    click.echo(
        f"revealed: seed {revealed.seed}, nonce {revealed.nonce}; `combatlog audit --fair {log_path}` checks "
        "every engine die, and so does it on the players' export"
    )


def _check_head(log: Any, log_path: str, expected: str) -> None:
    """Fail unless the log still holds seq SEQ with digest DIGEST (written down earlier with `head`)."""
    seq_text, sep, digest = expected.partition(":")
    if not sep or not seq_text.isascii() or not seq_text.isdigit() or len(seq_text) > 20 or not digest:
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
    try:
        seq, line = log.head()
    except LogError as exc:
        fail(str(exc))
    if line is None:
        fail(f"{log_path}: the log is empty")
    try:
        digest = msgspec.json.decode(line)["digest"]
    except (msgspec.DecodeError, KeyError, TypeError):
        fail(f"{log_path}: seq {seq}: the last line isn't a log line with a digest (audit says where it went wrong)")
    click.echo(f"{seq}:{digest}")
