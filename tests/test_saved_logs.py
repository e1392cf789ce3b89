"""Logs written by earlier releases still replay to the projection they had, and audit clean.

`tests/fixtures/before-rule-packages/` holds one log per rule system (and Starflight's
simultaneous timing) written before the rule systems became packages with typed models,
each with its projection as it was then (`<name>.projection.json`: the snapshot as sorted
JSON). (The version-1 fixtures, of an older event shape, are
tested in `test_events.py`.)
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from combatlog.projections import replay
from combatlog.replays import open_log
from combatlog.replays.audit import audit

FIXTURES = Path(__file__).parent / "fixtures"
BEFORE = sorted((FIXTURES / "before-rule-packages").glob("*.jsonl"))


def projection_bytes(path: Path) -> bytes:
    log = open_log(path, create=False)
    try:
        return msgspec.json.encode(msgspec.to_builtins(replay(log).snapshot().as_recorded()), order="sorted") + b"\n"
    finally:
        log.close()


def test_there_is_a_saved_log_of_every_bundled_rule_system():
    assert {p.stem for p in BEFORE} >= {"skirmish", "starflight", "infinite-realms", "swords-of-infinity"}


@pytest.mark.parametrize("path", BEFORE, ids=lambda p: p.stem)
def test_a_log_written_before_the_rule_packages_replays_to_the_same_projection_byte_for_byte(path):
    assert projection_bytes(path) == path.with_suffix(".projection.json").read_bytes()


@pytest.mark.parametrize("path", BEFORE, ids=lambda p: p.stem)
def test_a_saved_log_audits_clean(path):
    log = open_log(path, create=False)
    try:
        report = audit(log, workers=1)
    finally:
        log.close()
    assert report.clean, [str(f) for f in report.findings]
