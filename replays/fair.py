"""Checking fair dice (`audit --fair`): from a log, or from what a viewer received (a players'
export), that the revealed seed and nonce match the commitment, that every engine die follows
from them and the contributions, and that every contribution came before the first engine die.

It reads events only (no digests, no rules): a players' export (`export --viewer table`)
holds the events the table may receive, redacted, without digests, and is checked as a log
is. What a viewer never received can't be checked, and is said so in a note: a secret roll
shown redacted, and the rolls of a step after events withheld from that viewer (a step's
dice come from one generator, one roll after another, so a roll withheld leaves the next
ones' place in it unknown). See `combatlog.engine.fair` for the definitions.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import msgspec

from combatlog.engine.dice import DiceError, SeededDice, parse
from combatlog.engine.fair import commitment, effective_seed
from combatlog.engine.words import counted
from combatlog.events import CommandIssued, Contributed, DiceRolled, EncounterCreated, Envelope, LogError
from combatlog.events import catalogue as ev
from combatlog.events.envelope import line_decoder
from combatlog.replays.audit import Finding


class FairReport(msgspec.Struct):
    """What `check` found: findings (kind `fair` or `dice`), notes, and counts."""

    findings: list[Finding] = []
    notes: list[str] = []
    commitment: str | None = None
    contributions: int = 0
    revealed: bool = False
    checked: int = 0  # engine rolls shown to follow from the seed and the contributions
    unchecked: int = 0  # engine rolls this reader can't check (redacted, after a gap, or no reveal)

    @property
    def clean(self) -> bool:
        return not self.findings


def is_export(path: str) -> bool:
    """True when `path` is a file of JSON lines whose first line carries an empty digest (a
    viewer's export, `export --viewer`), not a log."""
    p = Path(path)
    if not p.is_file():
        return False
    with p.open("rb") as fh:
        first = fh.readline(1 << 20)
    return first.rstrip().endswith(b',"digest":""}')


def read_export(path: str) -> Iterator[Envelope[Any]]:
    """The envelopes of a viewer's export, in order; raises LogError naming the line that can't be read."""
    decode = line_decoder()
    try:
        with Path(path).open("rb") as fh:
            for n, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                try:
                    yield decode(line.rstrip(b"\n"))
                except Exception as exc:
                    raise LogError(f"{path}: line {n} isn't an exported event ({str(exc)[:80]})") from None
    except OSError as exc:
        raise LogError(f"{path}: can't read it ({exc.strerror})") from None


def check(stream: Iterable[Envelope[Any]]) -> FairReport:
    """Check the fair dice of the envelopes `stream` (a log's, or a viewer's export's)."""
    report = FairReport()
    envelopes = list(stream)
    created = next((e for e in envelopes if type(e.event) is EncounterCreated), None)
    if created is None:
        report.findings.append(Finding(envelopes[0].seq if envelopes else 0, "fair", "no encounter is created here"))
        return report
    promised = created.event.commitment
    if promised is None:
        report.findings.append(
            Finding(created.seq, "fair", "the encounter's dice aren't committed: a seed, not a commitment (not fair)")
        )
        return report
    report.commitment = promised
    secret: tuple[int, str] | None = None
    first_die: int | None = None
    contributed: dict[int, list[str]] = {}  # step -> its contributions (a step holds one)
    live: set[int] = set()  # the steps counting now (undo and redo as the fold reads them)
    for env in envelopes:
        e, t = env.event, type(env.event)
        if t is ev.SeedRevealed:
            if commitment(e.seed, e.nonce) != promised:
                report.findings.append(
                    Finding(env.seq, "fair", "the revealed seed and nonce don't match the commitment")
                )
            elif secret is None:
                secret = (e.seed, e.nonce)
        elif t is Contributed:
            contributed.setdefault(env.step, []).append(e.value)
            live.add(env.step)
            if first_die is not None:
                report.findings.append(
                    Finding(env.seq, "fair", f"a contribution after the first engine die (seq {first_die})")
                )
        elif t is ev.StepUndone or t is ev.StepRedone:
            if e.step in contributed:
                (live.discard if t is ev.StepUndone else live.add)(e.step)
                if first_die is not None:
                    report.findings.append(
                        Finding(
                            env.seq,
                            "fair",
                            f"a contribution {t.__name__[4:].lower()} after the first engine die (seq {first_die})",
                        )
                    )
        elif t is DiceRolled and e.source == "engine" and first_die is None:
            first_die = env.seq
    report.contributions = sum(len(contributed[s]) for s in sorted(live))
    report.revealed = secret is not None
    if secret is None:
        report.unchecked = sum(1 for env in envelopes if type(env.event) is DiceRolled and env.event.source == "engine")
        report.notes.append(
            f"the seed isn't revealed yet: {counted(report.unchecked, 'engine roll')} can't be checked until the game "
            "master's `combatlog reveal`"
        )
        return report
    _check_dice(envelopes, secret, contributed, report)
    return report


def _check_dice(
    envelopes: list[Envelope[Any]], secret: tuple[int, str], contributed: dict[int, list[str]], report: FairReport
) -> None:
    """Every engine roll against the step's generator, seeded from the seed, the nonce and the
    contributions counting when the step was taken."""
    live: set[int] = set()
    redacted = gapped = 0
    step: int | None = None
    gen: SeededDice | None = None
    last_seq = 0
    broken = False  # an event of this step was withheld before here: its place in the generator is lost
    for env in envelopes:
        e, t = env.event, type(env.event)
        if env.step != step:
            step, gen, broken = env.step, None, t is not CommandIssued
        elif env.seq != last_seq + 1:
            broken = True
        last_seq = env.seq
        if t is Contributed:
            live.add(env.step)
        elif (t is ev.StepUndone or t is ev.StepRedone) and e.step in contributed:
            (live.discard if t is ev.StepUndone else live.add)(e.step)
        if t is not DiceRolled or e.source != "engine":
            continue
        if broken:
            gapped += 1
            continue
        if gen is None:
            values = [v for s in sorted(live) for v in contributed[s]]
            gen = SeededDice(effective_seed(secret[0], secret[1], values), env.step)
        try:
            expr = parse(e.expression)
            want = gen.faces(expr, e.purpose) if expr.formula is None else gen.roll_formula(expr, e.purpose).faces
        except DiceError as exc:
            report.findings.append(Finding(env.seq, "dice", f"the engine's {e.expression[:40]} can't roll ({exc})"))
            broken = True
            continue
        if e.private_to is not None and not e.faces and e.total == 0:
            redacted += 1  # a secret roll, shown to this reader as rolled, not what it showed
            continue
        if tuple(e.faces) != want:
            shown = " ".join(map(str, e.faces[:12]))
            report.findings.append(
                Finding(
                    env.seq,
                    "dice",
                    f"the engine's {e.expression} ({e.purpose}) shows [{shown}], but the seed and the "
                    f"contributions give [{' '.join(map(str, want))}]",
                )
            )
            continue
        report.checked += 1
    report.unchecked = redacted + gapped
    if redacted:
        report.notes.append(f"{counted(redacted, 'secret roll')} reached this reader redacted: not checked")
    if gapped:
        report.notes.append(
            f"{counted(gapped, 'engine roll')} after events withheld from this reader in a step: not checked"
        )
