"""`combatlog simulate`: the odds of an encounter (or of a logged fight from one of its moments)
from many seeded fights, on the terminal."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import click
import msgspec
from rich.markup import escape as escape_markup

from combatlog.cli.main import app, fail, is_url, log_name, read_log
from combatlog.engine import Refused
from combatlog.engine.dice import DiceError
from combatlog.engine.encounter_file import EncounterFileError, read_encounter
from combatlog.engine.grammar import value
from combatlog.events import LogError
from combatlog.replays.stores import SQLITE_SUFFIXES
from combatlog.replays.transcript import printable


def is_log(path: str) -> bool:
    """True for a log (JSON lines, SQLite, a PostgreSQL URL), False for an encounter file."""
    return is_url(path) or Path(path).suffix in (".jsonl", *SQLITE_SUFFIXES)


def _moment(path: str, at: int | None) -> tuple[Any, str]:
    """The moment of the log at `path` just after seq `at` (None: its last), and the log's name as
    it may be shown (a URL's password masked); or a one-line failure."""
    from combatlog.simulate.run import moment

    log = read_log(path)
    try:
        return moment(log, at), log_name(log, path)
    except LogError as exc:
        fail(f"{log_name(log, path)}: {'' if at is None else f'--at {at}: '}{exc}")
    except Refused as exc:
        fail(f"{log_name(log, path)}: {exc}")
    finally:
        log.close()


@app.command()
@click.argument("encounter", metavar="ENCOUNTER|LOG", type=click.Path(dir_okay=False))
@click.option(
    "--at",
    "at",
    type=int,
    default=None,
    help="A log only: continue from just after this seq, where a step ends (default: the log's last).",
)
@click.option("--runs", type=int, default=10_000, show_default=True, help="How many fights.")
@click.option(
    "--seed", type=int, default=0, show_default=True, help="The study's seed (run i is seeded from it and i)."
)
@click.option("--workers", type=int, default=None, help="Processes (default: one per core, up to 8).")
@click.option("--option", "options", multiple=True, help="K=V: an encounter option changed for every run.")
@click.option("--json", "json_out", type=click.Path(dir_okay=False), help="Write the report as JSON here.")
@click.option(
    "--keep", "keep_dir", type=click.Path(file_okay=False), help="Write the representative fights' logs here."
)
@click.option("--compare", "other", type=click.Path(dir_okay=False), help="Another encounter, run on the same seeds.")
@click.option(
    "--html", "html_out", type=click.Path(dir_okay=False), help="Write a standalone page with the charts here."
)
def simulate(
    encounter: str,
    at: int | None,
    runs: int,
    seed: int,
    workers: int | None,
    options: tuple[str, ...],
    json_out: str | None,
    keep_dir: str | None,
    other: str | None,
    html_out: str | None,
) -> None:
    """Play an encounter many times with the automatic policy, or continue a logged fight from one
    of its moments (LOG, --at SEQ) many times; print the odds."""
    from combatlog.simulate import keep, simulate_moment
    from combatlog.simulate import simulate as run_study

    if runs < 1:
        fail(f"--runs {runs}: give at least 1 run", 2)
    from_log = is_log(encounter)
    if at is not None and not from_log:
        fail(f"--at {at}: continues a log (.jsonl, .db, postgresql://); {encounter} is an encounter file", 2)
    if from_log:
        for flag, given in (("--option", options), ("--keep", keep_dir)):
            if given:
                fail(f"{flag}: works with an encounter file; a logged fight goes on under its own options", 2)
        if other is not None and not is_log(other):
            fail(f"--compare {other}: compare a log with another log (a fork, say), continued from its last seq", 2)
    elif other is not None and is_log(other):
        fail(f"--compare {other}: compare an encounter file with another encounter file", 2)
    if html_out:
        try:
            import plotly  # noqa: F401 - checked before the fights, not after
        except ImportError:
            fail("--html needs Plotly: pip install 'combatlog[report]'", 2)
    if workers is not None and workers < 1:
        fail(f"--workers {workers}: give at least 1", 2)
    if workers is not None:
        from combatlog.replays.parallel import cores

        workers = min(workers, cores())  # more processes than cores only slow each other down
    for flag, out in (("--json", json_out), ("--html", html_out)):
        folder = Path(out).parent if out else None
        if folder is not None and not folder.is_dir():  # checked before the fights, not after
            fail(f"{flag} {out}: there is no folder {folder}", 2)
        if folder is not None and not os.access(folder, os.W_OK):
            fail(f"{flag} {out}: the folder {folder} can't be written to", 2)
    changed = {}
    for item in options:
        key, sep, text = item.partition("=")
        if not sep or not key:
            fail(f"--option {item!r}: give KEY=VALUE", 2)
        changed[key] = value(text)
    studies = []
    for path in (encounter, other) if other else (encounter,):
        if from_log:
            start, shown = _moment(path, at if path is encounter else None)
            try:
                report = _with_progress(
                    runs, lambda tick, start=start: simulate_moment(start, runs, seed, workers=workers, progress=tick)
                )
            except (Refused, DiceError, RuntimeError) as exc:
                fail(f"{shown}: {exc}")
            studies.append((shown, [], report))
            continue
        try:
            commands = read_encounter(path)
        except EncounterFileError as exc:
            fail(str(exc))
        try:
            report = _with_progress(
                runs,
                lambda tick, commands=commands: run_study(
                    commands, runs, seed, options=changed, workers=workers, progress=tick
                ),
            )
        except (Refused, DiceError) as exc:
            fail(f"{path}: {exc}")
        studies.append((path, commands, report))
    for path, _, report in studies:
        _print_report(path, report)
    if other:
        _print_comparison(studies[0][2], studies[1][2])
    if keep_dir:
        path, commands, report = studies[0]
        report.representative = keep(commands, report, keep_dir)
        for r in report.representative:
            click.echo(
                f"kept the fight at the {r.percentile}th percentile of the damage {printable(report.party)} took "
                f"(run {r.run}, {r.party_losses} damage): {r.log}"
            )
    if html_out:
        from combatlog.simulate.html import render

        pages = [(_label(path, report), report) for path, _, report in studies]
        Path(html_out).write_text(render(pages), encoding="utf-8")
        click.echo(f"the charts: {html_out}")
    if json_out:
        data = [
            msgspec.to_builtins(report) | ({"encounter": path} if report.at is None else {"log": path})
            for path, _, report in studies
        ]
        for item in data:
            del item["winners"]  # run by run: for comparing, not for reading
            if item["at"] is None:
                del item["at"]  # an encounter's study: it starts at the beginning
        Path(json_out).write_text(json.dumps(data[0] if len(data) == 1 else data, indent=2, sort_keys=True) + "\n")


def _with_progress(total: int, work: Any) -> Any:
    if not sys.stderr.isatty():
        return work(lambda n: None)
    from rich.progress import Progress

    with Progress(transient=True) as bar:
        task = bar.add_task("fights", total=total)
        return work(lambda n: bar.update(task, completed=n))


def _pct(odds: Any) -> str:
    return f"{odds.p:6.1%} ({odds.low:.1%}-{odds.high:.1%})"


def _safe(text: str) -> str:
    """A name as Rich prints it literally: no control characters (terminal escapes), no markup."""
    return escape_markup(printable(text))


def _ends(c: Any) -> str:
    from combatlog.simulate.stats import share

    return ", ".join(f"{_safe(end)} {share(p)}" for end, p in c.ends.items())


def _fold(table: Any) -> None:
    """A figure too wide for its column (a narrow terminal) goes on over the next line, never
    cut short with an ellipsis: every digit is read."""
    for column in table.columns:
        column.overflow = "fold"


def _label(path: str, report: Any) -> str:
    """What a study is of: the encounter file, or the log and the seq it continued from."""
    return path if report.at is None else f"{path} from seq {report.at}"


def _print_report(path: str, report: Any) -> None:
    from rich.console import Console
    from rich.table import Table

    from combatlog.simulate.stats import left as left_text
    from combatlog.simulate.stats import number, spread

    console = Console(highlight=False, soft_wrap=True)  # a long path isn't broken over lines
    fights = "fights" if report.at is None else "fights continued"
    if report.title:
        console.print(_safe(report.title))
    console.print(
        f"{_safe(_label(path, report))}: {report.runs:,} {fights}, seed {report.seed}; "
        f"the PCs' side: {_safe(report.party)}"
    )
    outcomes = [(_safe(side), s.win) for side, s in report.sides.items()] + [("a draw", report.draw)]
    width = max(len(printable(name)) for name, _ in outcomes)
    console.print("  who wins (95% interval):")
    for name, odds in outcomes:
        console.print(f"    {name}{' ' * (width - len(printable(name)))} {_pct(odds)}")
    r = report.rounds
    console.print(f"  rounds: mean {r.mean:.1f}, 5th {number(r.p5)}, median {number(r.p50)}, 95th {number(r.p95)}")
    peak = max(report.rounds_histogram.values())
    for rounds, count in report.rounds_histogram.items():
        bar = "█" * max(1, round(30 * count / peak))
        console.print(f"  {rounds:>3} {bar} {count / report.runs:.1%}")
    table = Table("combatant", "side", "defeated", "damage taken (mean, 5/50/95)", "damage dealt (mean, 5/50/95)")
    for c in report.combatants.values():
        table.add_row(
            _safe(c.name),
            _safe(c.side),
            _pct(c.defeated),
            spread(c.taken),
            spread(c.dealt),
        )
    _fold(table)
    console.print(table)
    left = Table("combatant", "side", "left at the end (mean of its full amount, 5/50/95)", "how it ends (share)")
    for c in report.combatants.values():
        left.add_row(_safe(c.name), _safe(c.side), left_text(c), _ends(c))
    _fold(left)
    console.print(left)
    from combatlog.simulate import LEGEND

    console.print(LEGEND, markup=False)


def _print_comparison(a: Any, b: Any) -> None:
    from combatlog.simulate import compare

    for side in a.sides:
        if side in b.sides:
            mean, low, high = compare(a, b, side)
            click.echo(
                f"a win for {printable(side)}: {mean:+.1%} ({low:+.1%} to {high:+.1%}) in the second encounter, "
                "same seeds"
            )
