"""Audit: the digest chain and every step re-decided with its recorded dice."""

from __future__ import annotations

import msgspec

from combatlog.engine.dice import parse
from combatlog.events import decode_line, seal
from combatlog.replays import MemoryLog
from combatlog.replays.audit import Report, audit
from combatlog.replays.cursor import Cursor, diff_states, replay
from tests.builders import lines, new_session


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


# --- one audit split across processes ----------------------------------------------------

import time  # noqa: E402

import pytest  # noqa: E402

from combatlog.replays import (  # noqa: E402
    JsonlLog,
    SqliteLog,
    parallel,
)
from combatlog.replays import audit as audit_module  # noqa: E402
from combatlog.replays.stores import copy_log  # noqa: E402

needs_fork = pytest.mark.skipif(not parallel.can_fork(), reason="a split audit forks, which this platform can't")


def long_raw() -> list[bytes]:
    """A played fight with undos and an override: long enough to cut into parts."""
    s = new_session(begin=True)
    for _ in range(3):
        s.auto()
        s.undo()
        s.auto()
    s.do("override", reason="a rock falls", damage={"target": "g2", "amount": 2})
    s.play_out()
    return lines(s)


def resealed(raw: list[bytes], i: int, change) -> list[bytes]:
    """`raw` with line i's event changed by `change` and every line from i sealed again."""
    out = raw[:i]
    previous = decode_line(raw[i - 1]).digest
    for n, line in enumerate(raw[i:]):
        env = decode_line(line)
        new, sealed = seal(previous, env.seq, env.step, change(env.event) if n == 0 else env.event)
        previous = sealed.digest
        out.append(new)
    return out


def late_damage(raw: list[bytes]) -> int:
    return max(i for i, line in enumerate(raw) if b'"DamageApplied"' in line and b'"source":"gm"' not in line)


def variants(raw: list[bytes]) -> dict[str, list[bytes]]:
    """Logs whose audits find something in the first part, the last part, or both."""
    early, late = damage_index(raw), late_damage(raw)
    out = {"clean": raw}
    edited = list(raw)
    edited[late] = edited[late].replace(b'"amount":', b'"amount":1')
    out["edited late"] = edited
    both = list(edited)
    both[early] = both[early].replace(b'"amount":', b'"amount":1')
    out["edited early and late"] = both
    out["forged late"] = resealed(raw, late, lambda e: msgspec.structs.replace(e, amount=e.amount + 10))
    out["deleted early"] = raw[:10] + raw[11:]
    out["deleted late"] = raw[:late] + raw[late + 1 :]
    out["garbled early"] = raw[:early] + [b'{"seq":' + raw[early][7:40]] + raw[early + 1 :]
    out["cut short"] = raw[:late]
    return out


@needs_fork
@pytest.mark.parametrize("workers", [2, 3])
def test_an_audit_split_across_processes_reports_what_one_process_does(workers, tmp_path):
    raw = long_raw()
    assert audit_module.processes(log_of(raw), workers) == workers
    for name, variant in variants(raw).items():
        one = audit(log_of(variant), workers=1)
        assert audit(log_of(variant), workers=workers) == one, name
        if name == "clean":
            assert one.clean and one.events == len(raw) and one.overrides
        else:
            assert not one.clean, name


@needs_fork
def test_a_split_audit_reads_json_lines_and_sqlite_in_each_process(tmp_path):
    raw = long_raw()
    raw[late_damage(raw)] = raw[late_damage(raw)].replace(b'"amount":', b'"amount":1')
    one = audit(log_of(raw), workers=1)
    assert [f.kind for f in one.findings] == ["tampered", "unfollowed"]
    for log in (JsonlLog(tmp_path / "a.jsonl"), SqliteLog(tmp_path / "a.db")):
        copy_log(log_of(raw), log)
        assert audit(log, workers=2) == one
        log.close()


@needs_fork
def test_each_part_after_the_first_is_audited_in_its_own_process(monkeypatch):
    raw = long_raw()
    parts = parallel.parts(log_of(raw), 2, len(raw))
    ranges = []
    real = audit_module._audit_range

    def recording(log, report, progress, projection, start, stop):
        ranges.append((start, stop))  # in this process only: the forked one's calls don't come back
        return real(log, report, progress, projection, start, stop)

    monkeypatch.setattr(audit_module, "_audit_range", recording)
    seen: list[int] = []
    report = audit(log_of(raw), progress=seen.append, workers=2)
    assert report.clean and report.events == len(raw)
    assert ranges == [parts[0]]
    # the cut falls where a step starts, and progress counts both parts up to the whole log
    first_of_second = decode_line(raw[parts[1][0] - 1])
    assert first_of_second.step != decode_line(raw[parts[1][0] - 2]).step
    assert seen == sorted(seen) and seen[-1] == len(raw)


@needs_fork
def test_a_part_that_fails_is_audited_again_in_one_process(monkeypatch):
    raw = long_raw()
    raw[late_damage(raw)] = raw[late_damage(raw)].replace(b'"amount":', b'"amount":1')
    one = audit(log_of(raw), workers=1)

    def broken(*args, **kwargs):
        raise RuntimeError("the disk went away")

    monkeypatch.setattr(parallel, "replay", broken)  # only a forked part replays
    assert audit(log_of(raw), workers=2) == one


def test_a_short_log_or_one_worker_is_audited_in_one_process():
    raw = long_raw()
    assert audit_module.processes(log_of(raw)) == 1  # shorter than PARALLEL_FROM
    assert audit_module.processes(log_of(raw), 1) == 1
    assert decode_line(raw[1]).step == decode_line(raw[0]).step
    assert audit_module.processes(log_of(raw[:2]), 2) == 1  # one step: nowhere to cut


def test_a_store_of_unknown_kind_is_audited_in_one_process():
    raw = long_raw()

    class Elsewhere:
        def __init__(self):
            self.inner = log_of(raw)

        def lines(self, start=1, stop=None):
            return self.inner.lines(start, stop)

        def head(self):
            return self.inner.head()

    assert audit_module.processes(Elsewhere(), 2) == 1
    assert audit(Elsewhere(), workers=2) == audit(log_of(raw), workers=1)


# --- the projection an audit ends in ------------------------------------------------------

from pathlib import Path  # noqa: E402

from combatlog.engine import Session  # noqa: E402
from combatlog.engine.encounter_file import read_encounter  # noqa: E402
from combatlog.projections import Projection  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def example_log(name: str, **options) -> MemoryLog:
    s = Session(MemoryLog())
    for command in read_encounter(EXAMPLES / f"{name}.toml"):
        if command.kind == "create" and options:
            command = msgspec.structs.replace(
                command, params={**command.params, "options": {**command.params.get("options", {}), **options}}
            )
        s.execute(command)
    s.do("begin")
    for _ in range(4):
        if s.state.phase != "end":
            s.auto()
    s.undo()
    s.undo()
    s.redo()
    if s.state.phase != "end":
        s.play_out()
    return s.log


def exact(p: Projection) -> bytes:
    """The projection as bytes that tell apart what == doesn't: key order, 1 and 1.0."""
    return msgspec.json.encode([p.snapshot(), sorted(p.history.items())], enc_hook=str)  # a dice expression: text


@pytest.mark.parametrize(
    "name,options",
    [
        ("skirmish-ambush", {}),
        ("starflight-patrol", {}),
        ("starflight-patrol", {"method": "simple"}),
        ("infinite-realms-road", {}),
        ("swords-of-infinity-ambush", {}),
    ],
)
def test_an_audit_ends_in_exactly_the_replayed_projection(name, options):
    log = example_log(name, **options)
    audited = Projection()
    report = Report()
    assert audit_module._audit_range(log, report, None, audited, 1, None)
    assert report.clean, [str(f) for f in report.findings]
    assert exact(audited) == exact(replay(log))


@needs_fork
def test_a_failed_split_reports_progress_that_never_goes_back(monkeypatch):
    raw = long_raw()

    def broken(*args, **kwargs):
        raise RuntimeError("the disk went away")

    monkeypatch.setattr(parallel, "replay", broken)
    monkeypatch.setattr(audit_module, "_steps", _every_event(audit_module._steps))
    seen: list[int] = []
    assert audit(log_of(raw), progress=seen.append, workers=2).clean
    assert seen == sorted(set(seen)) and seen[-1] == len(raw)


def _every_event(steps):
    """`_steps`, calling progress at every event rather than every 4096th."""

    def every(log, report, progress, start, stop, previous, ended):
        for step in steps(log, report, None, start, stop, previous, ended):
            if progress is not None:
                progress(step[-1][0].seq)
            yield step

    return every


@needs_fork
def test_a_split_audit_stops_with_its_first_part_without_waiting_for_the_others(monkeypatch):
    raw = long_raw()
    raw = raw[:10] + raw[11:]  # a line gone early: the audit stops at seq 11
    real = parallel._part

    def slow(*args):
        time.sleep(30)  # the parent never waits for this
        real(*args)

    monkeypatch.setattr(parallel, "_part", slow)
    t = time.monotonic()
    report = audit(log_of(raw), workers=2)
    assert time.monotonic() - t < 10
    assert report == audit(log_of(raw), workers=1) and report.findings[-1].kind == "sequence"


@needs_fork
def test_a_daemonic_worker_audits_a_long_log_in_one_process():
    import multiprocessing

    raw = long_raw()
    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.apply(_processes_in_a_worker, (raw,)) == 1


def _processes_in_a_worker(raw):
    return audit_module.processes(log_of(raw), 2)


@needs_fork
def test_a_torn_json_lines_log_is_audited_alike_split_or_not(tmp_path):
    raw = long_raw()
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in raw) + raw[-1][:30])
    log = JsonlLog(path, create=False)
    one = audit(log, workers=1)
    assert one.findings[0].kind == "torn"
    assert audit(log, workers=2) == one


def test_a_digest_member_that_is_not_hex_stops_the_audit_as_tampered():
    raw = lines(finished())
    raw[5] = raw[5][:-66] + b"Z" * 64 + b'"}'
    findings = audit(log_of(raw)).findings
    assert [(f.seq, f.kind) for f in findings] == [(6, "tampered")]
    assert "64 lowercase hex digits" in findings[0].message


# --- the engine's dice are the seed's dice ---------------------------------------------------


def _seeded_fight() -> list[bytes]:
    s = new_session(seed=7, begin=True)
    s.auto()
    s.auto()
    return lines(s)


def _audit_raw(raw: list[bytes]) -> list:
    log = MemoryLog()
    log.append(raw, expected_seq=1)
    return audit(log, workers=1).findings


def _first_roll(raw: list[bytes]) -> int:
    return next(i for i, line in enumerate(raw) if b'"DiceRolled"' in line and b'"source":"entered"' not in line)


@pytest.mark.parametrize("face", ["highest", "changed"])
def test_an_engine_die_the_seed_doesnt_give_is_a_finding_even_when_the_chain_is_resealed(face):
    raw = _seeded_fight()
    assert _audit_raw(raw) == []
    i = _first_roll(raw)

    def forge(e):
        expr = parse(e.expression)
        new = expr.high if face == "highest" else (e.faces[0] % expr.high) + 1
        faces = (new,) + tuple(e.faces[1:])
        return msgspec.structs.replace(e, faces=faces, total=e.total - e.faces[0] + new)

    forged = resealed(raw, i, forge)
    if forged == raw:  # the roll was already at that face: forge the next one instead
        forged = resealed(raw, i + 1, forge)
    findings = _audit_raw(forged)
    assert findings and findings[0].kind in ("dice", "unfollowed")
    dice = [f for f in findings if f.kind == "dice"]
    assert dice and "the encounter's seed gives" in dice[0].message


def test_a_face_its_die_cant_show_is_a_finding():
    raw = _seeded_fight()
    i = _first_roll(raw)
    forged = resealed(raw, i, lambda e: msgspec.structs.replace(e, faces=(70,) + tuple(e.faces[1:]), total=70))
    findings = _audit_raw(forged)
    assert findings[0].kind == "dice" and "70, which" in findings[0].message


def test_a_changed_seed_is_a_finding():
    raw = _seeded_fight()
    created = next(i for i, line in enumerate(raw) if b'"EncounterCreated"' in line)
    forged = resealed(raw, created, lambda e: msgspec.structs.replace(e, seed=e.seed + 1))
    assert any(f.kind == "dice" for f in _audit_raw(forged))


def test_dice_typed_at_the_table_are_taken_as_typed():
    s = new_session(seed=7, begin=True)
    actor = s.state.acting[0]
    target = next(c.id for c in s.state.active() if c.side != s.state.combatants[actor].side)
    s.do("act", actor=actor, action="strike", targets=(target,), entered=((20,), (6,)))
    assert _audit_raw(lines(s)) == []


# --- a step's shape, each check on its own -----------------------------------------------------


def _resealed_all(lines_: list[bytes]) -> list[bytes]:
    """`lines_` (envelopes maybe edited) sealed again from the start, seqs renumbered."""
    from combatlog.events.envelope import GENESIS

    out, previous = [], GENESIS
    for n, line in enumerate(lines_, start=1):
        env = decode_line(line)
        new, sealed = seal(previous, n, env.step, env.event)
        previous = sealed.digest
        out.append(new)
    return out


def _a_step_with_events(raw: list[bytes]) -> tuple[int, int]:
    """(index of a CommandIssued, how many events its step holds) for an act step with damage."""
    starts = [i for i, line in enumerate(raw) if b'"CommandIssued"' in line]
    for a, b in zip(starts, starts[1:]):
        if b'"kind":"act"' in raw[a] and any(b'"DamageApplied"' in line for line in raw[a:b]):
            return a, b - a
    raise AssertionError("no act step with damage")


@pytest.mark.parametrize("off", [2, -1])
def test_a_step_announcing_more_or_fewer_events_than_it_holds_is_a_finding(off):
    raw = _seeded_fight()
    i, held = _a_step_with_events(raw)
    edited = list(raw)
    env = decode_line(raw[i])
    edited[i] = seal("", env.seq, env.step, msgspec.structs.replace(env.event, events=held + off))[0]
    findings = _audit_raw(_resealed_all(edited))
    said = f"announced {held + off} events but holds {held}"
    assert any(f.kind == "unfollowed" and said in f.message for f in findings), findings


def test_a_step_missing_its_last_event_with_the_count_fixed_is_a_finding():
    raw = _seeded_fight()
    i, held = _a_step_with_events(raw)
    env = decode_line(raw[i])
    fixed = seal("", env.seq, env.step, msgspec.structs.replace(env.event, events=held - 1))[0]
    edited = raw[:i] + [fixed] + raw[i + 1 : i + held - 1] + raw[i + held :]
    findings = _audit_raw(_resealed_all(edited))
    assert findings and not any("announced" in f.message for f in findings)
    assert any(f.kind == "unfollowed" and "the step is missing" in f.message for f in findings)


@pytest.mark.parametrize("source", ["entered", "engine"])
def test_a_roll_recorded_with_more_faces_than_its_expression_is_a_finding(source):
    s = new_session(seed=7, begin=True)
    actor = s.state.acting[0]
    target = next(c.id for c in s.state.active() if c.side != s.state.combatants[actor].side)
    s.do("act", actor=actor, action="strike", targets=(target,), entered=((20,), (6,)))
    raw = lines(s)
    rolls = [n for n, line in enumerate(raw) if b'"DiceRolled"' in line]
    i = [n for n in rolls if decode_line(raw[n]).event.source == source][-1]
    roll = decode_line(raw[i]).event
    assert roll.expression.startswith("1d")
    findings = _audit_raw(resealed(raw, i, lambda e: msgspec.structs.replace(e, faces=(*e.faces, e.faces[0]))))
    said = f"the log's {roll.expression} ({roll.purpose}) shows 2 faces, but {roll.expression} rolls 1"
    assert any(f.kind == "unfollowed" and said in f.message for f in findings), findings
