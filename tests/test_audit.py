"""Audit: the digest chain and every step re-decided with its recorded dice."""

from __future__ import annotations

import msgspec

from combatlog.events import decode_line, seal
from combatlog.replays import MemoryLog
from combatlog.replays.audit import audit
from combatlog.replays.cursor import Cursor, diff_states, replay

from .conftest import lines, new_session


def finished(**options):
    s = new_session(begin=True, **options)
    s.auto()
    s.undo()
    s.auto()
    s.do("override", reason="a rock falls", damage={"target": "g2", "amount": 2})
    s.play_out()
    return s


def log_of(raw: list[bytes]) -> MemoryLog:
    log = MemoryLog()
    log._lines = list(raw)
    return log


def damage_index(raw: list[bytes]) -> int:
    return next(i for i, line in enumerate(raw) if b'"DamageApplied"' in line and b'"source":"gm"' not in line)


def test_a_played_log_audits_clean_and_lists_its_overrides():
    s = finished()
    report = audit(s.log)
    assert report.clean, [str(f) for f in report.findings]
    assert report.events == len(lines(s))
    assert [o.reason for o in report.overrides] == ["a rock falls"]


def test_every_timing_and_order_audits_clean():
    for order in ("ranked", "reverse", "action-points"):
        for timing in ("turn", "simultaneous", "mixed"):
            assert audit(finished(order=order, timing=timing).log).clean


def test_an_edited_line_is_reported_as_tampered_at_its_seq():
    raw = lines(finished())
    i = damage_index(raw)
    raw[i] = raw[i].replace(b'"amount":', b'"amount":1')
    findings = audit(log_of(raw)).findings
    assert str(findings[0]).startswith(f"seq {i + 1}: tampered")


def test_a_resealed_forgery_passes_the_chain_but_not_the_rules():
    raw = lines(finished())
    i = damage_index(raw)
    forged = raw[:i]
    previous = decode_line(raw[i - 1]).digest
    for n, line in enumerate(raw[i:]):
        env = decode_line(line)
        event = env.event
        if n == 0:
            event = msgspec.structs.replace(event, amount=event.amount + 10)
        new, sealed = seal(previous, env.seq, env.step, event)
        previous = sealed.digest
        forged.append(new)
    findings = audit(log_of(forged)).findings
    assert findings, "a forged outcome must be found"
    assert all(f.kind != "tampered" for f in findings)
    assert findings[0].seq == i + 1 and findings[0].kind == "unfollowed"
    assert "the rules and the dice give" in findings[0].message


def test_a_deleted_line_breaks_the_sequence_at_its_seq():
    raw = lines(finished())
    del raw[10]
    findings = audit(log_of(raw)).findings
    assert findings[0].seq == 11


def test_replay_needs_no_engine_and_gives_the_live_state():
    s = finished()
    assert replay(s.log).state == s.state


def test_the_cursor_gives_the_state_at_any_seq_as_a_fold_up_to_it():
    s = finished()
    raw = lines(s)
    cursor = Cursor(s.log, every=16)
    for seq in range(0, len(raw) + 1, 7):
        assert cursor.state(seq) == replay(log_of(raw[:seq])).state, seq
    assert cursor.state(len(raw)) == s.state


def test_the_cursor_steps_back_and_forward_and_diffs_two_seqs():
    s = finished()
    cursor = Cursor(s.log, every=16)
    cursor.seek(30)
    assert cursor.back(5).seq == 25
    assert cursor.forward(3).seq == 28
    assert cursor.forward(10_000).seq == cursor.last
    changes = cursor.diff(0, cursor.last)
    assert any(line.startswith("phase: ") and line.endswith("-> 'end'") for line in changes)
    assert diff_states(s.state, s.state) == []
