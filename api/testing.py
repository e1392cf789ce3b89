"""Testing a rule system: a test kit, and saved logs as tests (a pytest plugin).

The kit (`docs/writing-a-rule-system.md`): a fight in one call, each step's dice given by the
roll they are for, and what it did read back.

    from combatlog.testing import fight, fighter

    def test_a_hit_deals_the_damage_dice():
        f = fight("skirmish", fighter("ayla", "party", hp=10, attack=4), fighter("g1", "goblins", hp=7),
                  dice={"initiative by ayla": 15, "initiative by g1": 3})
        f.act("ayla", "strike", "g1", dice={"strike by ayla": 17, "damage by ayla": 5})
        assert f.hp("g1") == 2

`fight`, `fighter`, `Fight` (act, end_turn, do, begin, auto, play_out, undo, redo; hp, damage, conditions,
defeated, outcome, events, told, audit, save), `Step` (events, of, rolls, outcome(s), told) and
`Refused`, loaded on first use: the plugin below is loaded by every pytest run, and needs none
of them.

The plugin, on by default once combatlog is installed:

    pytest --combatlog-logs DIR [--combatlog-update]

collects every log in DIR (`*.jsonl`, `*.db`, `*.sqlite`) as a test that replays it, audits
it clean, and compares its final projection with the golden file beside it
(`fight.jsonl` -> `fight.expected.json`, the snapshot as sorted JSON); `--combatlog-update`
writes the golden files. A rule change that alters a saved fight fails with the first seq
where re-deciding differs, and the states' differences, path by path.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from combatlog._testkit import Fight, Refused, Step, fight, fighter

__all__ = ["Fight", "Refused", "Step", "fight", "fighter"]

SUFFIXES = (".jsonl", ".db", ".sqlite")


def __getattr__(name: str) -> Any:
    if name in __all__:  # the kit: the engine is imported only by a test that uses it
        from combatlog import _testkit

        return getattr(_testkit, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("combatlog", "saved combatlog logs as tests")
    group.addoption(
        "--combatlog-logs",
        action="append",
        default=[],
        metavar="DIR",
        help="collect every log in DIR: replay, audit clean, compare with LOG's .expected.json",
    )
    group.addoption(
        "--combatlog-update", action="store_true", default=False, help="write the .expected.json golden files"
    )


def pytest_configure(config: pytest.Config) -> None:
    for folder in config.getoption("combatlog_logs") or ():
        if folder not in config.args:
            config.args.append(folder)  # collected even when the run names other paths


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    folders = [Path(f).resolve() for f in parent.config.getoption("combatlog_logs") or ()]
    if file_path.suffix not in SUFFIXES or not folders:
        return None
    here = file_path.resolve()
    if not any(folder == here.parent or folder in here.parents for folder in folders):
        return None
    return SavedLog.from_parent(parent, path=file_path)


class SavedLog(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        yield SavedLogItem.from_parent(self, name=self.path.name)


class SavedLogFailed(Exception):
    pass


class SavedLogItem(pytest.Item):
    def runtest(self) -> None:
        import msgspec

        from combatlog.projections import replay
        from combatlog.replays import open_log
        from combatlog.replays.audit import audit

        log = open_log(self.path, create=False, read_only=True)
        try:
            report = audit(log, workers=1)
            if not report.clean:
                first = report.findings[0]
                raise SavedLogFailed(
                    f"{self.path.name}: re-deciding differs first at seq {first.seq}: {first.kind}: {first.message}"
                    + (f" (and {len(report.findings) - 1} more)" if len(report.findings) > 1 else "")
                )
            # as the log records it (stats and options as given), as JSON has it: lists, not tuples
            now = json.loads(msgspec.json.encode(replay(log).snapshot().as_recorded()))
        finally:
            log.close()
        golden = expected_path(self.path)
        text = json.dumps(now, sort_keys=True, indent=1) + "\n"
        if self.config.getoption("combatlog_update"):
            golden.write_text(text)
            return
        if not golden.exists():
            raise SavedLogFailed(f"{self.path.name}: no {golden.name} beside it; run pytest with --combatlog-update")
        was = json.loads(golden.read_text())
        if was != now:
            lines = list(_diff(was, now, "$"))
            shown = "\n".join(f"  {line}" for line in lines[:40])
            more = f"\n  ... and {len(lines) - 40} more" if len(lines) > 40 else ""
            raise SavedLogFailed(
                f"{self.path.name}: the final state differs from {golden.name} (the log audits clean: "
                f"the rules now decide the same steps, but fold them to another state):\n{shown}{more}"
            )

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, SavedLogFailed):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"saved log {self.path.name}"


def expected_path(log: Path) -> Path:
    """`fight.jsonl` -> `fight.expected.json`."""
    return log.with_name(log.stem + ".expected.json")


def _diff(a: Any, b: Any, path: str) -> Iterator[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if key not in b:
                yield f"{path}.{key}: {_short(a[key])} -> (gone)"
            elif key not in a:
                yield f"{path}.{key}: (none) -> {_short(b[key])}"
            else:
                yield from _diff(a[key], b[key], f"{path}.{key}")
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            yield from _diff(x, y, f"{path}[{i}]")
    elif a != b:
        yield f"{path}: {_short(a)} -> {_short(b)}"


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 80 else text[:77] + "..."
