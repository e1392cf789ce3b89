"""Kill rate of a cosmic-ray session, and its survivors as diffs.

    python tools/mutation/report.py SESSION...        the figures, and each survivor's diff
    python tools/mutation/report.py --retry SESSION   survivors back to pending (run.sh: MUTATION_RETRY)
    python tools/mutation/report.py --lines SESSION   each survivor as an equivalent.txt line, its reason to write

A survivor listed in tools/mutation/equivalent.txt (module | the mutated line | why) is
counted as equivalent: no behaviour a user could observe changes. The kill rate is
killed / (mutants run - equivalent - incompetent);
a mutant whose tests time out counts as killed (cosmic-ray's rule); an incompetent one is
a mutation cosmic-ray couldn't make (an `except` naming a dotted exception).
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import TestOutcome, WorkerOutcome

EQUIVALENT = Path(__file__).with_name("equivalent.txt")


def _equivalents() -> set[tuple[str, str]]:
    out = set()
    for line in EQUIVALENT.read_text(encoding="utf-8").splitlines() if EQUIVALENT.exists() else ():
        if line.strip() and not line.startswith("#"):
            module, rest = line.split(" | ", 1)
            mutated, _why = rest.rsplit(" | ", 1)  # the mutated line may hold " | " itself
            out.add((module.strip(), mutated.strip()))
    return out


def _mutated_line(diff: str) -> str:
    return next((d[1:].strip() for d in diff.splitlines() if d.startswith("+") and not d.startswith("+++")), "")


def report(session: str, retry: bool = False, as_lines: bool = False) -> None:
    equivalent = _equivalents()
    killed = survived = skipped = incompetent = pending = same = 0
    survivors = []
    with use_db(session, WorkDB.Mode.open) as db:
        results = dict(db.results)
        for item in db.work_items:
            result = results.get(item.job_id)
            if result is None:
                pending += 1
            elif result.worker_outcome == WorkerOutcome.SKIPPED:
                skipped += 1
            elif result.test_outcome == TestOutcome.KILLED:
                killed += 1
            elif result.test_outcome == TestOutcome.SURVIVED:
                mutation = item.mutations[0]
                if (str(mutation.module_path), _mutated_line(result.diff)) in equivalent:
                    same += 1
                else:
                    survived += 1
                    survivors.append((item, result))
            else:
                incompetent += 1
    if retry:
        ids = [item.job_id for item, _ in survivors]
        with sqlite3.connect(session) as con:
            con.executemany("DELETE FROM work_results WHERE job_id = ?", [(i,) for i in ids])
        print(f"{session}: {len(ids)} survivors back to pending")
        return
    if as_lines:
        for item, result in survivors:
            print(f"{item.mutations[0].module_path} | {_mutated_line(result.diff)} | ")
        return
    run = killed + survived + same + incompetent
    rate = 100 * killed / (run - same - incompetent) if run > same + incompetent else 100.0
    raw = 100 * killed / (run - incompetent) if run > incompetent else 100.0
    print(
        f"{session}: {run} mutants run ({skipped} skipped by filter.py, {pending} pending): "
        f"{killed} killed, {incompetent} incompetent, {same} equivalent, {survived} survived: "
        f"kill rate {rate:.1f}% ({raw:.1f}% counting the equivalent ones as survivors)"
    )
    for item, result in survivors:
        m = item.mutations[0]
        print(f"\n--- {m.module_path}:{m.start_pos[0]} {m.operator_name} #{m.occurrence} ({item.job_id})")
        print(
            "\n".join(
                line
                for line in result.diff.splitlines()
                if line.startswith(("+", "-")) and line[:3] not in ("+++", "---")
            )
        )


if __name__ == "__main__":
    args = sys.argv[1:]
    for session in [a for a in args if not a.startswith("--")]:
        report(session, retry="--retry" in args, as_lines="--lines" in args)
