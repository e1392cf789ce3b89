"""Checkpoints of the projection beside the log: used only when bound to the log's line at their
seq and made by a fold of the same shape; ignored and rebuilt otherwise; never read by the
audit; never a byte of the log changed. A session opened from one undoes and redoes to the
states a full replay gives, past the checkpoint too."""

from __future__ import annotations

import hashlib
import importlib
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combatlog.engine import Refused, Session
from combatlog.engine.encounter_file import read_encounter
from combatlog.events import CorruptLog
from combatlog.projections import Projection, replay
from combatlog.replays import JsonlLog, MemoryLog, SqliteLog, copy_log, open_log
from combatlog.replays.audit import audit

checkpoint = importlib.import_module("combatlog.projections.checkpoint")
stores = importlib.import_module("combatlog.replays.stores")

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
EVERY = 40  # events between checkpoints in these tests: several in a short fight


def opened(path: Path):
    return JsonlLog(path) if path.suffix == ".jsonl" else SqliteLog(path)


def played(path: Path, example: str = "starflight-patrol", steps: int = 60, every: int = EVERY) -> Session:
    """A session of a bundled example on `path` (hit points multiplied, so the fight goes on), the
    automatic policy playing `steps` steps, an undo and a redo every 7th."""
    session = Session(opened(path), signer=None, checkpoint_every=every)
    for command in read_encounter(EXAMPLES / f"{example}.toml", seed=5):
        stats = command.params.get("stats") if command.kind == "add" else None
        if stats is not None and "hp" in stats:
            params = {**command.params, "stats": {**stats, "hp": stats["hp"] * 50}}
            command = msgspec.structs.replace(command, params=params)
        session.execute(command)
    session.do("begin")
    for n in range(steps):
        if session.state.phase == "end":
            break
        session.auto()
        if n % 7 == 6:
            session.undo()
            session.redo()
    return session


def noted(path: Path, n: int) -> None:
    """Append `n` note steps to the log at `path` from a session keeping no checkpoint: a tail past it."""
    later = Session(opened(path), signer=None, checkpoint_every=0)
    for i in range(n):
        later.do("note", text=f"later {i}")


def kept_instead(path: Path, data: bytes) -> None:
    """Put `data` in place of the checkpoint kept beside the log at `path`, at the same seq."""
    if path.suffix == ".jsonl":
        side = Path(f"{path}.checkpoint")
        kept = msgspec.msgpack.decode(side.read_bytes(), type=stores._Side)
        side.write_bytes(msgspec.msgpack.encode(msgspec.structs.replace(kept, data=data)))
    else:
        log = SqliteLog(path)
        log.write_checkpoint(log.read_checkpoint()[0], data)


def full(path: Path) -> Projection:
    """The log at `path` folded from its first line, keeping every step's states."""
    return replay(opened(path), None, Projection(keep=1 << 20, marks=False))


def same(a: Projection, b: Projection) -> None:
    assert (a.seq, a.step, a.digest) == (b.seq, b.step, b.digest)
    assert a.state == b.state
    assert (list(a.undo), list(a.redo)) == (list(b.undo), list(b.redo))


@pytest.fixture(params=["jsonl", "db"])
def path(request, tmp_path) -> Path:
    return tmp_path / f"fight.{request.param}"


def test_a_writer_keeps_a_checkpoint_and_the_next_session_opens_from_it(path):
    first = played(path)
    assert first.checkpointed > 0
    again = Session(opened(path), signer=None, checkpoint_every=EVERY)
    assert again.checkpointed == first.checkpointed
    same(again.projection, full(path))


def test_checkpoints_leave_every_byte_of_the_log_as_it_was(tmp_path):
    with_them = played(tmp_path / "a.jsonl", every=EVERY)
    played(tmp_path / "b.jsonl", every=0)
    assert with_them.checkpointed > 0 and not (tmp_path / "b.jsonl.checkpoint").exists()
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()


def test_a_checkpoint_whose_line_is_not_the_logs_is_ignored_and_rebuilt(tmp_path):
    played(tmp_path / "a.jsonl")
    other = played(tmp_path / "b.jsonl", example="skirmish-ambush")
    # a's checkpoint beside b's log: the line at its seq has another digest
    (tmp_path / "b.jsonl.checkpoint").write_bytes((tmp_path / "a.jsonl.checkpoint").read_bytes())
    log = JsonlLog(tmp_path / "b.jsonl")
    projection, used = checkpoint.open_projection(log, lambda log: replay(log, None, Projection()))
    assert used == 0
    same(projection, full(tmp_path / "b.jsonl"))
    again = Session(JsonlLog(tmp_path / "b.jsonl"), signer=None, checkpoint_every=EVERY)
    assert again.checkpointed == other.projection.seq  # rebuilt at the log's end
    third = Session(JsonlLog(tmp_path / "b.jsonl"), signer=None, checkpoint_every=EVERY)
    assert third.checkpointed == again.checkpointed  # and used from then on


def test_a_checkpoint_bound_to_another_digest_at_its_seq_is_ignored(path):
    played(path)
    log = opened(path)
    seq, data = log.read_checkpoint()
    kept = checkpoint.decode(data)
    line = kept.line.replace(kept.snapshot.digest.encode(), b"0" * 64)
    forged = msgspec.structs.replace(kept, line=line, snapshot=msgspec.structs.replace(kept.snapshot, digest="0" * 64))
    payload = checkpoint._encoder.encode(forged)
    kept_instead(path, payload + hashlib.sha256(payload).digest())
    assert checkpoint.decode(opened(path).read_checkpoint()[1]) == forged
    assert checkpoint.open_projection(opened(path), lambda log: replay(log, None, Projection()))[1] == 0


def test_a_missing_checkpoint_is_rebuilt_and_a_damaged_one_ignored(tmp_path):
    path = tmp_path / "fight.jsonl"
    session = played(path)
    side = tmp_path / "fight.jsonl.checkpoint"
    side.unlink()
    assert Session(JsonlLog(path), signer=None, checkpoint_every=EVERY).checkpointed == session.projection.seq
    assert side.exists()
    data = bytearray(side.read_bytes())
    data[len(data) // 2] ^= 1  # one bit flipped: the checksum no longer holds
    side.write_bytes(bytes(data))
    reopened = Session(JsonlLog(path), signer=None, checkpoint_every=EVERY)
    same(reopened.projection, full(path))


def test_a_checkpoint_past_the_end_of_a_log_cut_back_is_ignored(tmp_path):
    path = tmp_path / "fight.jsonl"
    session = played(path)
    lines = path.read_bytes().splitlines(keepends=True)
    kept_at = session.checkpointed
    path.write_bytes(b"".join(lines[: kept_at - 30]))  # an older copy of the log, shorter than the checkpoint
    log = JsonlLog(path)
    cut = log.head()[0]
    projection, used = checkpoint.open_projection(log, lambda log: replay(log, None, Projection()))
    assert used == 0 and projection.seq == cut


def test_a_checkpoint_behind_the_log_is_used_and_the_steps_after_it_folded(path):
    session = played(path)
    kept_at = session.checkpointed
    noted(path, 5)
    again = Session(opened(path), signer=None, checkpoint_every=EVERY)
    assert again.checkpointed == kept_at
    same(again.projection, full(path))


def test_a_checkpoint_of_an_older_fold_shape_is_discarded(monkeypatch, path):
    session = played(path)
    monkeypatch.setattr(checkpoint, "FOLD_VERSION", checkpoint.FOLD_VERSION + 1)
    checkpoint._base_shape.cache_clear()
    checkpoint.fold_shape.cache_clear()
    try:
        seq, data = opened(path).read_checkpoint()
        assert checkpoint.decode(data) is None
        again = Session(opened(path), signer=None, checkpoint_every=EVERY)
        assert again.checkpointed == session.projection.seq  # rebuilt, in the new shape
        assert checkpoint.decode(opened(path).read_checkpoint()[1]) is not None
    finally:
        checkpoint._base_shape.cache_clear()
        checkpoint.fold_shape.cache_clear()


def test_the_audit_never_reads_a_checkpoint(path):
    played(path)
    log = opened(path)

    def refuse(*args, **kwargs):
        raise AssertionError("the audit read a checkpoint")

    log.read_checkpoint = refuse
    log.write_checkpoint = refuse
    report = audit(log, workers=1)
    assert report.clean, report.findings


def test_a_line_after_the_checkpoint_that_cant_be_read_is_reported_with_its_seq(tmp_path):
    path = tmp_path / "fight.jsonl"
    session = played(path)
    kept_at = session.checkpointed
    noted(path, 3)
    lines = path.read_bytes().splitlines(keepends=True)
    assert len(lines) > kept_at + 3
    bad = kept_at + 2
    lines[bad - 1] = lines[bad - 1].replace(b'"step":', b'"stop":', 1)  # no longer an envelope
    path.write_bytes(b"".join(lines))
    with pytest.raises(CorruptLog) as with_checkpoint:
        Session(JsonlLog(path), signer=None, checkpoint_every=EVERY)
    with pytest.raises(CorruptLog) as without:
        Session(JsonlLog(path), signer=None, checkpoint_every=0)
    assert with_checkpoint.value.seq == without.value.seq == bad
    assert str(with_checkpoint.value) == str(without.value)


def test_an_edited_line_after_the_checkpoint_is_found_tampered_by_the_audit(tmp_path):
    path = tmp_path / "fight.jsonl"
    session = played(path)
    noted(path, 3)
    lines = path.read_bytes().splitlines(keepends=True)
    edited = len(lines) - 1  # the last note's event, past the checkpoint
    assert session.checkpointed < edited and b'"text":"later 2"' in lines[edited]
    lines[edited] = lines[edited].replace(b"later 2", b"later 9")  # its digest no longer seals it
    path.write_bytes(b"".join(lines))
    Session(JsonlLog(path), signer=None, checkpoint_every=EVERY)  # still opens: the line reads the same
    findings = audit(JsonlLog(path), workers=1).findings
    assert [(f.seq, f.kind) for f in findings][:1] == [(edited + 1, "tampered")]


def test_a_torn_tail_after_the_checkpoint_is_reported_as_without_one(tmp_path):
    path = tmp_path / "fight.jsonl"
    session = played(path)
    end = session.projection.seq
    with open(path, "ab") as fh:
        fh.write(b'{"seq":%d,"step":9999' % (end + 1))
    log = JsonlLog(path)
    assert log.torn is not None and log.torn.seq == end + 1
    again = Session(log, signer=None, checkpoint_every=EVERY)
    assert again.checkpointed == session.checkpointed and again.projection.seq == end
    with pytest.raises(Exception, match="torn"):
        again.do("note", text="x")


def test_undo_and_redo_after_opening_from_a_checkpoint_reach_far_past_it(monkeypatch, path):
    played(path, steps=150)
    replay_module = importlib.import_module("combatlog.projections.replay")

    def from_the_start(*args):
        raise AssertionError("an undo folded the log again from its start")

    monkeypatch.setattr(replay_module, "states_between", from_the_start)
    reopened = Session(opened(path), signer=None, checkpoint_every=EVERY)
    assert reopened.checkpointed > 0 and reopened.projection.far_marks
    undone = 0
    while undone < 60:
        try:
            reopened.undo()
        except Refused:
            break
        undone += 1
        same_state = full(path)
        assert reopened.state == same_state.state and reopened.projection.undo == same_state.undo
    assert undone == 60, undone
    for _ in range(25):
        reopened.redo()
        assert reopened.state == full(path).state
    reopened.auto()
    again = Session(opened(path), signer=None, checkpoint_every=EVERY)
    same(again.projection, full(path))


def test_a_long_writer_keeps_marks_only_near_its_newest_checkpoint(monkeypatch, tmp_path):
    monkeypatch.setattr(Session, "MARKS_KEPT", 16)
    session = played(tmp_path / "fight.db", steps=200, every=EVERY)
    marks = session.projection.marks
    assert marks and min(marks) >= session.projection.step - 16 - 8 * 3 * 12
    copy = MemoryLog()
    copy_log(SqliteLog(tmp_path / "fight.db"), copy)
    deep = Session(copy, signer=None)  # the same log in memory: a full load, every mark kept
    assert len(marks) < len(deep.projection.marks)
    for _ in range(40):  # deep undos fold again from the checkpoints' far marks
        session.undo()
        deep.undo()
        assert session.state == deep.state


EXAMPLE_NAMES = sorted(p.stem for p in EXAMPLES.glob("*.toml"))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    example=st.sampled_from(EXAMPLE_NAMES),
    every=st.integers(min_value=5, max_value=120),
    moves=st.lists(st.sampled_from("aaaaaaaaurr"), min_size=5, max_size=60),
    reopen_at=st.integers(min_value=0, max_value=60),
    undos=st.integers(min_value=0, max_value=25),
)
def test_a_session_opened_from_its_checkpoint_is_a_full_replay_through_undos_and_redos(
    tmp_path_factory, example, every, moves, reopen_at, undos
):
    folder = tmp_path_factory.mktemp("fight")
    path = folder / "fight.db"
    session = Session(SqliteLog(path), signer=None, checkpoint_every=every)
    for command in read_encounter(EXAMPLES / f"{example}.toml", seed=3):
        session.execute(command)
    session.do("begin")

    def move(s: Session, kind: str) -> None:
        try:
            if kind == "a":
                s.auto()
            elif kind == "u":
                s.undo()
            else:
                s.redo()
        except Refused:
            pass

    for n, kind in enumerate(moves):
        if n == reopen_at:
            session = Session(SqliteLog(path), signer=None, checkpoint_every=every)
            same(session.projection, full(path))
        move(session, kind)
    session = Session(SqliteLog(path), signer=None, checkpoint_every=every)
    same(session.projection, full(path))
    assert session.checkpointed > 0 or session.projection.seq < every
    for _ in range(undos):  # back past the checkpoint: every state a full replay's
        move(session, "u")
        same(session.projection, full(path))
    move(session, "r")
    same(session.projection, full(path))
    assert audit(open_log(path, read_only=True), workers=1).clean
