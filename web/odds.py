"""The odds from this moment on the game master's screen: a study of the fight's continuations
(`simulate_from`) in a process of its own after each step, cancelled when a newer step lands,
so it never delays a command; its result wakes the pages when it comes.

The study's seed is the seq it starts from: the same moment gives the same odds.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

RUNS = 400  # continuations a study plays: intervals of about +-5 points, in about a second
SETTLE = 0.4  # seconds a step must stand before its study starts (steps in a burst start one)


@dataclass
class OddsNow:
    """What a finished study says, for the screens: each side's win share with its 95% interval,
    the draw's, and each player character's chance to go down."""

    seq: int
    runs: int
    sides: list[tuple[str, float, float, float]] = field(default_factory=list)  # side, share, low, high
    draw: tuple[float, float, float] = (0.0, 0.0, 0.0)
    down: list[tuple[str, float]] = field(default_factory=list)  # a player character's name, the share
    error: str = ""


def study(where: str, seq: int, runs: int) -> dict[str, Any]:
    """The odds from just after `seq` of the log at `where`, as plain data (run in a child process)."""
    from combatlog.simulate import simulate_from

    try:
        report = simulate_from(where, at=seq, runs=runs, seed=seq, workers=1)
    except Exception as exc:  # a moment the study can't start from: said on the screen, not raised
        return {"seq": seq, "runs": runs, "error": str(exc).splitlines()[0][:200]}
    pcs = {c.name: c.defeated.p for c in report.combatants.values() if c.side == report.party}
    return {
        "seq": seq,
        "runs": report.runs,
        "sides": [(side, r.win.p, r.win.low, r.win.high) for side, r in report.sides.items()],
        "draw": (report.draw.p, report.draw.low, report.draw.high),
        "down": sorted(pcs.items()),
    }


def _child(where: str, seq: int, runs: int, conn: Any) -> None:
    conn.send(study(where, seq, runs))
    conn.close()


class OddsKeeper:
    """One table's odds: the study of its latest step, its process, and what it last said."""

    def __init__(self, where: str, done: Callable[[], None], runs: int = RUNS) -> None:
        self.where = where
        self.done = done  # called (from a thread of its own) when a study finishes
        self.runs = runs
        self.latest: OddsNow | None = None
        self._seq: int | None = None  # the seq of the study under way
        self._process: Any = None
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()

    def want(self, seq: int) -> None:
        """Study the moment just after `seq`, once it has stood for SETTLE seconds, unless that is
        under way or done; a study of an older moment is stopped at once."""
        with self._lock:
            if self._seq == seq or (self.latest is not None and self.latest.seq == seq and self._process is None):
                return
            self._stop()
            self._seq = seq
            timer = threading.Timer(SETTLE, self._start, args=(seq,))
            timer.daemon = True
            self._timer = timer
        timer.start()

    def _start(self, seq: int) -> None:
        with self._lock:
            if self._seq != seq or self._process is not None:
                return  # a newer step came in the meantime
            context = multiprocessing.get_context("spawn")
            ours, theirs = context.Pipe(duplex=False)
            process = context.Process(target=_child, args=(self.where, seq, self.runs, theirs), daemon=True)
            process.start()
            theirs.close()
            self._process, self._seq = process, seq
        threading.Thread(target=self._wait, args=(process, ours, seq), daemon=True).start()

    def _wait(self, process: Any, conn: Any, seq: int) -> None:
        try:
            data = conn.recv()
        except (EOFError, OSError):  # stopped for a newer step
            return
        finally:
            conn.close()
        with self._lock:
            if self._seq != seq:
                return
            self.latest = OddsNow(**{**data, "sides": [tuple(s) for s in data.get("sides", [])]})
            self._process, self._seq = None, None
        process.join(5)
        self.done()

    def _stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._process is not None:
            with contextlib.suppress(Exception):
                self._process.terminate()
            self._process, self._seq = None, None

    def running(self) -> int | None:
        """The seq of the study under way, or None."""
        return self._seq

    def close(self) -> None:
        with self._lock:
            self._stop()
