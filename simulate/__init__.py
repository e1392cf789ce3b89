"""combatlog.simulate: the odds of an encounter from many seeded fights played by the automatic policy.

    report = simulate(read_encounter("patrol.toml"), runs=1000, seed=1)
    report.sides["party"].win        # the probability of a win, with its 95% Wilson interval
    report = simulate_from("fight.db", at=412, runs=1000, seed=1)   # the odds from this moment

Run i of a study seeded S plays the encounter with the seed `run_seed(S, i)`, so any run can
be rebuilt exactly: the representative fights (the runs at the 5th, 25th, 50th, 75th and
95th percentile of the party's losses) are written as real logs with `keep`, without the
bulk of the runs ever being stored. The report is the same for any executor and any
number of workers: runs are handed out in chunks and put back in run order.

`simulate_from` continues a log instead, from the state just after one of its seqs where a
step ends: run i of a study seeded S plays on from there with the engine's dice of step k
seeded from `run_seed(S, i)` and k (whatever the log's own seed, or none), so it too is the
same for any number of workers, and it never writes to the log it reads.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from pathlib import Path
from typing import Any

import msgspec

from combatlog.engine import Refused, get_rules
from combatlog.events import Command, EventLog
from combatlog.projections import Encounter
from combatlog.replays import open_log
from combatlog.simulate.run import FightSummary, Moment, continuations, fights, moment, play, run_seed
from combatlog.simulate.stats import Z95, nearest_run, percentile, wilson

PERCENTILES = (5, 25, 50, 75, 95)
LEGEND = (  # under the report's tables, on the terminal and the page alike
    "defeated: out of the fight in any way (down, unconscious, dead, fled, removed ...); "
    "5/50/95: the 5th, 50th (the median) and 95th percentiles over the fights; "
    "6.8 of 14: a mean of 6.8 left of a full 14"
)
CHUNK = 50  # runs per executor task


class Odds(msgspec.Struct, frozen=True):
    """A probability and its 95% Wilson interval."""

    p: float
    low: float
    high: float


class Spread(msgspec.Struct, frozen=True):
    """The mean and the 5th, 50th and 95th percentiles of a number over the runs."""

    mean: float
    p5: float
    p50: float
    p95: float


class SideReport(msgspec.Struct, frozen=True):
    win: Odds


class CombatantReport(msgspec.Struct, frozen=True):
    """One combatant over the runs; `defeated`: the chance it ends out of the fight in any way
    (down, unconscious, dead, fled, removed ...); `left` and `most`: what is left of its main track at the end
    (the rules' `health`: hit points, health levels, ...) and its maximum, None when the system
    has no such number; `ends`: the fraction of runs ending at each level (`run.ending`)."""

    name: str
    side: str
    defeated: Odds
    taken: Spread
    dealt: Spread
    left: Spread | None = None
    most: int | None = None
    ends: dict[str, float] = {}


class Representative(msgspec.Struct, frozen=True):
    percentile: int
    run: int
    seed: int
    party_losses: int
    log: str | None = None


class Report(msgspec.Struct):
    """What many fights of one encounter say."""

    runs: int
    seed: int
    party: str
    sides: dict[str, SideReport]
    draw: Odds
    rounds: Spread
    rounds_histogram: dict[int, int]
    combatants: dict[str, CombatantReport]
    representative: list[Representative]
    options: dict[str, Any] = {}
    winners: list[str | None] = []  # run by run, for comparing two studies on the same seeds
    at: int | None = None  # a study continuing a log: the seq it continued from (None: an encounter's)
    title: str = ""  # the encounter's own name (its file's `title`)


def _odds(k: int, n: int) -> Odds:
    low, high = wilson(k, n)
    return Odds(p=k / n if n else 0.0, low=low, high=high)


def _spread(values: Sequence[float]) -> Spread:
    return Spread(
        mean=sum(values) / len(values), p5=percentile(values, 5), p50=percentile(values, 50), p95=percentile(values, 95)
    )


_STANDING = {level: rank for rank, level in enumerate(("healthy", "injured", "bloodied", "critical"))}


def _ends(ends: Sequence[str]) -> dict[str, float]:
    """The fraction of runs ending at each level: the standing levels first, best first, then the
    rest (hurt, defeated, removed) most common first."""
    counts: dict[str, int] = {}
    for end in ends:
        counts[end] = counts.get(end, 0) + 1
    order = sorted(counts, key=lambda e: (_STANDING.get(e, 4 if e.startswith("hurt") else 5), -counts[e], e))
    return {e: counts[e] / len(ends) for e in order}


def setup(commands: Sequence[Command]) -> tuple[list[str], dict[str, tuple[str, str]], str]:
    """(sides, combatant id -> (name, side), the party's side) of an encounter's commands.

    The party is the side of the first PC, else the side of the first combatant.
    """
    roster: dict[str, tuple[str, str]] = {}
    party = None
    for command in commands:
        if command.kind == "add":
            p = command.params
            roster[str(p["id"])] = (str(p.get("name", p["id"])), str(p["side"]))
            if party is None and p.get("kind") == "pc":
                party = str(p["side"])
    sides = list(dict.fromkeys(side for _, side in roster.values()))
    if not sides:
        raise Refused("simulate", "the encounter has no combatants")
    return sides, roster, party or sides[0]


def setup_of(state: Encounter) -> tuple[list[str], dict[str, tuple[str, str]], str]:
    """`setup` of an encounter as it stands (every combatant it has had, in the order added)."""
    roster = {cid: (c.name, c.side) for cid, c in state.combatants.items()}
    sides = list(dict.fromkeys(side for _, side in roster.values()))
    if not sides:
        raise Refused("simulate", "the encounter has no combatants")
    party = next((c.side for c in state.combatants.values() if c.kind == "pc"), sides[0])
    return sides, roster, party


def check(commands: Sequence[Command], options: dict[str, Any]) -> None:
    """Refuse, in one line, an encounter that can't be played (a bad option, a bad combatant)."""
    create = next((c for c in commands if c.kind == "create"), None)
    if create is None:
        raise Refused("simulate", "the encounter is never created")
    rules = get_rules(str(create.params.get("rules")))
    rules.options({**dict(create.params.get("options", {})), **options})


def simulate(
    commands: Sequence[Command],
    runs: int = 10_000,
    seed: int = 0,
    *,
    options: dict[str, Any] | None = None,
    executor: Executor | None = None,
    workers: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> Report:
    """Play the encounter `runs` times and report the odds; raises Refused for bad input.

    `executor`: any `concurrent.futures.Executor` (a cluster's, say); None: a process pool
    over `workers` processes (default: the cores, up to 8), or this process for `workers=1`.
    `progress(n)` is called with the runs done so far.
    """
    if runs < 1:
        raise Refused("simulate", f"{runs} runs", "give at least 1 run")
    options = dict(options or {})
    commands = list(commands)
    check(commands, options)
    sides, roster, party = setup(commands)
    summaries = _in_chunks(runs, lambda chunk: (fights, commands, seed, chunk, options), executor, workers, progress)
    rep = report(summaries, seed, sides, roster, party, options)
    create = next((c for c in commands if c.kind == "create"), None)
    rep.title = str(create.params.get("title") or "") if create is not None else ""
    return rep


def simulate_from(
    log: EventLog | str | Path,
    at: int | None = None,
    runs: int = 10_000,
    seed: int = 0,
    *,
    executor: Executor | None = None,
    workers: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> Report:
    """Continue the fight of `log` from just after seq `at` (None: its last) `runs` times with the
    automatic policy and report the odds from that moment, as `simulate` reports an encounter's.

    `log`: an EventLog, or where one is (a path, a `postgresql://` URL), opened to read only and
    closed once its moment is read: nothing is written to it. Run i's dice are seeded from
    `run_seed(seed, i)` (step k's from that and k). The numbers count the whole fight: its rounds,
    each combatant's damage taken and dealt, who is defeated, so a finished fight's report has
    every run decided alike. Raises Refused for fewer than 1 run, a log with no combatants at
    `at` or recorded under another version of its rules; LogError for `at` outside the log or
    inside a step (the message names the range), or a log that can't be read.
    """
    if runs < 1:
        raise Refused("simulate", f"{runs} runs", "give at least 1 run")
    if isinstance(log, (str, Path)):
        opened = open_log(log, create=False, read_only=True)
        try:
            start = moment(opened, at)
        finally:
            opened.close()
    else:
        start = moment(log, at)
    return simulate_moment(start, runs, seed, executor=executor, workers=workers, progress=progress)


def simulate_moment(
    start: Moment,
    runs: int = 10_000,
    seed: int = 0,
    *,
    executor: Executor | None = None,
    workers: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> Report:
    """`simulate_from` of a moment already read (`combatlog.simulate.run.moment`)."""
    if runs < 1:
        raise Refused("simulate", f"{runs} runs", "give at least 1 run")
    sides, roster, party = setup_of(start.state)
    summaries = _in_chunks(runs, lambda chunk: (continuations, start, seed, chunk), executor, workers, progress)
    rep = report(summaries, seed, sides, roster, party, {})
    rep.at = start.at
    rep.title = start.state.title
    return rep


def _in_chunks(
    runs: int,
    task: Callable[[range], tuple[Any, ...]],
    executor: Executor | None,
    workers: int | None,
    progress: Callable[[int], None] | None,
) -> list[FightSummary]:
    """The summaries of runs 0 to `runs` - 1, in run order: `task(chunk)` is (a function, its
    arguments) playing one chunk of runs, played here, in a process pool or on `executor`."""
    chunks = [range(i, min(i + CHUNK, runs)) for i in range(0, runs, CHUNK)]
    summaries: list[FightSummary] = []
    if executor is None and (workers or _cores()) <= 1:
        for chunk in chunks:
            fn, *args = task(chunk)
            summaries.extend(fn(*args))
            if progress is not None:
                progress(len(summaries))
        return summaries
    own = executor is None
    pool = executor if executor is not None else ProcessPoolExecutor(max_workers=workers or _cores())
    try:
        futures = [pool.submit(*task(chunk)) for chunk in chunks]
        for future in futures:  # in run order, whatever order they finish in
            summaries.extend(future.result())
            if progress is not None:
                progress(len(summaries))
    finally:
        if own:
            pool.shutdown(cancel_futures=True)
    return summaries


def _cores() -> int:
    try:
        return min(len(os.sched_getaffinity(0)), 8)
    except AttributeError:  # not on Linux
        return min(os.cpu_count() or 1, 8)


def report(
    summaries: Sequence[FightSummary],
    seed: int,
    sides: list[str],
    roster: dict[str, tuple[str, str]],
    party: str,
    options: dict[str, Any],
) -> Report:
    """The report of these fights (in run order)."""
    n = len(summaries)
    ids = list(roster)
    rounds = [s.rounds for s in summaries]
    histogram: dict[int, int] = {}
    for r in rounds:
        histogram[r] = histogram.get(r, 0) + 1
    combatants = {}
    for i, cid in enumerate(ids):
        name, side = roster[cid]
        left = [x for s in summaries if (x := s.left[i]) is not None]
        most = [x for s in summaries if (x := s.most[i]) is not None]
        combatants[cid] = CombatantReport(
            name=name,
            side=side,
            defeated=_odds(sum(cid in s.defeated for s in summaries), n),
            taken=_spread([s.taken[i] for s in summaries]),
            dealt=_spread([s.dealt[i] for s in summaries]),
            left=_spread(left) if left else None,
            most=max(most) if most else None,
            ends=_ends([s.ends[i] for s in summaries]),
        )
    mine = [i for i, cid in enumerate(ids) if roster[cid][1] == party]
    losses = [sum(s.taken[i] for i in mine) for s in summaries]
    representative = []
    for q in PERCENTILES:
        k = nearest_run(losses, q)
        representative.append(
            Representative(
                percentile=q, run=summaries[k].run, seed=run_seed(seed, summaries[k].run), party_losses=losses[k]
            )
        )
    return Report(
        runs=n,
        seed=seed,
        party=party,
        sides={side: SideReport(win=_odds(sum(s.winner == side for s in summaries), n)) for side in sides},
        draw=_odds(sum(s.winner is None for s in summaries), n),
        rounds=_spread(rounds),
        rounds_histogram=dict(sorted(histogram.items())),
        combatants=combatants,
        representative=representative,
        options=options,
        winners=[s.winner for s in summaries],
    )


def compare(a: Report, b: Report, side: str) -> tuple[float, float, float]:
    """How much more often `side` wins in `b` than in `a`, both run on the same seeds: the mean
    paired difference and its 95% interval (normal approximation over the runs' differences)."""
    if a.runs != b.runs or a.seed != b.seed:
        raise ValueError("compare studies of the same runs and seed")
    diffs = [(y == side) - (x == side) for x, y in zip(a.winners, b.winners)]
    n = len(diffs)
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1) if n > 1 else 0.0
    half = Z95 * (var / n) ** 0.5
    return mean, mean - half, mean + half


def keep(commands: Sequence[Command], rep: Report, folder: str | Path) -> list[Representative]:
    """Rebuild the report's representative fights from their seeds as JSON-lines logs in `folder`
    (`p05-run123.jsonl` ...); returns them with their paths. Nothing is left half-written: each
    log is written under a temporary name and renamed once whole."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    kept = []
    for r in rep.representative:
        path = out / f"p{r.percentile:02d}-run{r.run}.jsonl"
        part = path.with_name(f".{path.stem}.part.jsonl")
        part.unlink(missing_ok=True)
        log = open_log(part)
        try:
            play(commands, r.seed, rep.options, log=log)
        finally:
            log.close()
        part.replace(path)
        kept.append(msgspec.structs.replace(r, log=str(path)))
    return kept


__all__ = ["LEGEND", "Report", "compare", "keep", "report", "simulate", "simulate_from", "simulate_moment"]
