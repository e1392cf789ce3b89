"""The pytest plugin that runs saved logs as tests (`--combatlog-logs DIR`): golden files
written with `--combatlog-update`, a changed outcome failing with the path that differs, a
re-decided step that differs failing with its seq."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import msgspec

from combatlog.events import decode_line, seal

pytest_plugins = ["pytester"]

SAVED = Path(__file__).parent / "fixtures" / "saved-logs"


def _folder(pytester) -> Path:
    logs = pytester.path / "logs"
    logs.mkdir()
    shutil.copy(SAVED / "skirmish.jsonl", logs / "fight.jsonl")
    return logs


def test_update_writes_the_golden_file_and_then_the_log_passes(pytester):
    logs = _folder(pytester)
    first = pytester.runpytest("--combatlog-logs", str(logs), "--combatlog-update", "-p", "no:cacheprovider")
    first.assert_outcomes(passed=1)
    golden = logs / "fight.expected.json"
    assert json.loads(golden.read_text())["state"]["rules"] == "skirmish"
    pytester.runpytest("--combatlog-logs", str(logs), "-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_a_missing_golden_file_fails_saying_how_to_write_it(pytester):
    logs = _folder(pytester)
    result = pytester.runpytest("--combatlog-logs", str(logs), "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*no fight.expected.json beside it; run pytest with --combatlog-update*"])


def test_a_changed_outcome_fails_naming_what_differs(pytester):
    logs = _folder(pytester)
    pytester.runpytest("--combatlog-logs", str(logs), "--combatlog-update", "-p", "no:cacheprovider")
    golden = logs / "fight.expected.json"
    data = json.loads(golden.read_text())
    data["state"]["round"] += 1
    golden.write_text(json.dumps(data))
    result = pytester.runpytest("--combatlog-logs", str(logs), "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*the final state differs from fight.expected.json*", "*$.state.round: *"])


def test_a_step_the_rules_now_decide_differently_fails_with_its_seq(pytester):
    logs = _folder(pytester)
    raw = (logs / "fight.jsonl").read_bytes().splitlines(keepends=True)
    i = next(n for n, line in enumerate(raw) if b'"DamageApplied"' in line)
    previous = decode_line(raw[i - 1]).digest
    out = raw[:i]
    for n, line in enumerate(raw[i:]):  # the amount changed and the chain sealed again: only re-deciding sees it
        env = decode_line(line)
        event = msgspec.structs.replace(env.event, amount=env.event.amount + 5) if n == 0 else env.event
        new, sealed = seal(previous, env.seq, env.step, event)
        previous = sealed.digest
        out.append(new if new.endswith(b"\n") else new + b"\n")
    (logs / "fight.jsonl").write_bytes(b"".join(out))
    result = pytester.runpytest("--combatlog-logs", str(logs), "--combatlog-update", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([f"*re-deciding differs first at seq {i + 1}: unfollowed*"])
