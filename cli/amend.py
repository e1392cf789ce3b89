"""`combatlog amend`: correct a past step (a die typed wrong, the wrong target) and decide the
steps after it again, in order; nothing is erased."""

from __future__ import annotations

import click

from combatlog.cli.main import app, fail, log_name, read_log, signing, utc_now
from combatlog.engine import Refused
from combatlog.events import LogError


@app.command()
@click.argument("log_path", metavar="LOG")
@click.argument("step", type=int, required=False, metavar="[STEP]")
@click.option("--dice", default=None, metavar="'1d20: 17'", help="The step's typed dice, anew (several with ';').")
@click.option("--command", "command_line", default=None, metavar="'act bo strike g2'", help="The step's command, anew.")
@click.option("--by", default="gm", show_default=True, help="Who gives the corrected command.")
@click.option("--clock", is_flag=True, help="Record the wall-clock time on each step appended.")
def amend(log_path: str, step: int | None, dice: str | None, command_line: str | None, by: str, clock: bool) -> None:
    """Correct step STEP with new dice (--dice) or a new command (--command, keeping the step's
    typed dice unless --dice is given too): the steps after it are undone, the corrected command
    is decided in its place, then every later step's command again, in order, with its own dice.
    A later command the rules refuse now stops there, saying why. Without STEP: the steps that
    can be amended, with their seq, round and command."""
    from combatlog.replays.amend import amend as amend_log
    from combatlog.replays.amend import steps

    if step is None:
        log = read_log(log_path)
        try:
            for number, seq, round_, text in steps(log):
                click.echo(f"step {number:>5}  seq {seq:>6}  round {round_:>3}  {text}")
        except LogError as exc:
            fail(str(exc))
        return
    if dice is None and command_line is None:
        fail("give the step's dice anew (--dice '1d20: 17'), its command anew (--command '...'), or both", 2)
    signer = signing()
    log = read_log(log_path, write=True)
    if getattr(log, "torn", None) is not None:
        fail(f"{log_path}: the log is torn; nothing appended; run `combatlog repair {log_path}` first")
    try:
        report = amend_log(
            log, step, dice=dice, command=command_line, by=by, signer=signer, clock=utc_now if clock else None
        )
    except (Refused, LogError) as exc:
        fail(f"{exc}; nothing appended")
    except KeyError as exc:  # a rule system that isn't installed
        fail(f"{exc.args[0]}; nothing appended")
    for line in report.lines():
        click.echo(line)
    click.echo(f"{log_name(log, log_path)}: seqs {report.first_seq}-{report.last_seq} appended", err=True)
