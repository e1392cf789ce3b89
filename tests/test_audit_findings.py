"""Audit findings pinned down: where each one points, what it says, and that a hostile log never crashes it.

Each test here fails against a mutant of `replays/audit.py` that the rest of the suite let
through (docs/mutation.md).
"""

from __future__ import annotations

import msgspec
import pytest

from combatlog.events import GENESIS, Command, CommandIssued, EncounterCreated, Note, decode_line, seal
from combatlog.events.envelope import digest_of
from combatlog.replays import MemoryLog
from combatlog.replays.audit import Entered, Finding, audit, signatures
from tests.builders import lines, new_session


def log_of(raw: list[bytes]) -> MemoryLog:
    log = MemoryLog()
    log._lines = list(raw)
    return log


def chained(events: list[tuple[int, object]], after: list[bytes] = ()) -> list[bytes]:
    """(step, event) pairs sealed into a log, from the first seq or after the lines `after`."""
    out, previous = [], decode_line(after[-1]).digest if after else GENESIS
    for seq, (step, event) in enumerate(events, start=len(after) + 1):
        line, env = seal(previous, seq, step, event)
        previous = env.digest
        out.append(line)
    return out


def rechained(raw: list[bytes], change=lambda i, e: e) -> list[bytes]:
    """`raw` with each event passed through `change(index, event)` and every line sealed again."""
    envs = [decode_line(line) for line in raw]
    return chained([(env.step, change(i, env.event)) for i, env in enumerate(envs)])


def played() -> list[bytes]:
    s = new_session(seed=7, begin=True)
    s.auto()
    s.auto()
    return lines(s)


def created() -> list[bytes]:
    """The two lines of a skirmish encounter's creation (seed 7)."""
    return lines(new_session(seed=7, combatants=()))


def step_starts(raw: list[bytes]) -> list[int]:
    return [i for i, line in enumerate(raw) if b'"CommandIssued"' in line]


def first_act(raw: list[bytes]) -> tuple[int, int]:
    """(index of the first act step's command, index just past its step)."""
    starts = step_starts(raw) + [len(raw)]
    i = next(n for n, s in enumerate(starts) if b'"kind":"act"' in raw[s])
    return starts[i], starts[i + 1]


# --- the rule system the log names -------------------------------------------------------------


def test_a_log_of_a_rule_system_that_isnt_installed_is_one_rules_finding_at_its_creation():
    raw = played()
    raw[1] = raw[1].replace(b'"rules":"skirmish"', b'"rules":"no-such-rules"')
    report = audit(log_of(raw))
    assert [(f.seq, f.kind) for f in report.findings] == [(2, "rules")]
    assert "no-such-rules" in report.findings[0].message
    assert report.steps == 0


@pytest.mark.parametrize("first", [b'["EncounterCreated"]', b'{"event":"EncounterCreated"}', b'{"EncounterCreated"'])
def test_a_first_line_that_only_names_the_creation_is_tampered_not_a_crash(first):
    raw = [first] + played()[1:]
    findings = audit(log_of(raw)).findings
    assert [(f.seq, f.kind) for f in findings] == [(1, "tampered")]


def skirmish_version() -> int:
    from combatlog.engine import get_rules

    return int(get_rules("skirmish").version)


def test_a_log_recorded_under_an_earlier_version_of_its_rules_audits_clean_with_a_note():
    now = skirmish_version()

    def older(i, e):
        return msgspec.structs.replace(e, rules_version=str(now - 1)) if type(e) is EncounterCreated else e

    report = audit(log_of(rechained(played(), older)))
    assert report.clean, [str(f) for f in report.findings]
    assert report.notes == [f"recorded under skirmish {now - 1}, audited with {now}"]


def test_a_log_recorded_under_a_later_version_of_its_rules_is_a_finding_at_its_creation():
    later = str(skirmish_version() + 1)

    def newer(i, e):
        return msgspec.structs.replace(e, rules_version=later) if type(e) is EncounterCreated else e

    findings = audit(log_of(rechained(played(), newer))).findings
    assert findings[0].seq == 2 and findings[0].kind == "unfollowed"
    assert f'"rules_version":"{later}"' in findings[0].message


# --- lines that stop the audit ------------------------------------------------------------------


def test_a_sealed_line_of_an_unknown_event_type_is_undecodable_at_its_seq():
    raw = played()
    body = b'{"seq":5,"step":3,"v":1,"event":{"type":"NoSuchEvent"}}'
    digest = digest_of(decode_line(raw[3]).digest, body)
    raw[4] = body[:-1] + b',"digest":"' + digest.encode() + b'"}'
    findings = audit(log_of(raw)).findings
    assert [(f.seq, f.kind) for f in findings] == [(5, "undecodable")]
    assert "NoSuchEvent" in findings[0].message


def test_an_event_the_fold_refuses_is_an_illegal_finding_without_the_seq_repeated():
    raw = played()
    created = raw[:2]
    again = rechained(raw + created)  # the encounter created a second time, after the fight
    findings = audit(log_of(again)).findings
    illegal = [f for f in findings if f.kind == "illegal"]
    assert illegal and illegal[0].seq == len(raw) + 1
    assert illegal[0].message == f"step 1 comes after step {decode_line(raw[-1]).step}"


# --- where a re-decided step's finding points ---------------------------------------------------


def test_a_command_refused_when_re_decided_is_a_finding_at_the_command():
    raw = played()
    i, _ = first_act(raw)

    def nobody(n, e):
        if n != i:
            return e
        return msgspec.structs.replace(e, command=msgspec.structs.replace(e.command, actor="nobody"))

    findings = audit(log_of(rechained(raw, nobody))).findings
    assert findings[0].seq == i + 1 and findings[0].kind == "unfollowed"
    assert "refused when re-decided" in findings[0].message


def test_a_face_its_die_cant_show_is_a_dice_finding_at_the_forged_rolls_own_seq():
    raw = played()
    i, end = first_act(raw)
    roll = next(n for n in range(i, end) if b'"DiceRolled"' in raw[n])

    def impossible(n, e):
        return msgspec.structs.replace(e, faces=(70,) + tuple(e.faces[1:]), total=70) if n == roll else e

    findings = audit(log_of(rechained(raw, impossible))).findings
    assert findings[0].kind == "dice" and findings[0].seq == roll + 1 and roll + 1 != i + 1  # not the command's


def test_an_event_past_the_end_of_a_re_decided_step_is_a_finding_at_that_event():
    raw = played()
    i, end = first_act(raw)
    envs = [(e.step, e.event) for e in map(decode_line, raw)]
    step, command = envs[i]
    envs[i] = (step, msgspec.structs.replace(command, events=command.events + 1))
    envs.insert(end, (step, Note(text="slipped in")))
    findings = audit(log_of(chained(envs))).findings
    assert findings[0].seq == end + 1 and findings[0].kind == "unfollowed"
    assert findings[0].message == "Note doesn't follow: the step ends before it"


@pytest.mark.parametrize("shown", [160, 161])
def test_a_recorded_event_is_shown_whole_up_to_160_characters_and_cut_with_an_ellipsis_beyond(shown):
    def sized(text: str) -> int:
        return len(msgspec.json.encode(Note(text=text)))

    padding = shown - sized("")
    said, recorded = "x" * padding, "y" * padding
    note = CommandIssued(command=Command(kind="note", params={"text": said}), events=2)
    raw = created() + chained([(2, note), (2, Note(text=recorded))], after=created())
    findings = audit(log_of(raw)).findings
    assert findings[0].seq == 4 and findings[0].kind == "unfollowed"
    shown_text = msgspec.json.encode(Note(text=recorded)).decode()
    assert len(shown_text) == shown
    expected = shown_text if shown <= 160 else shown_text[:157] + "..."
    assert f"recorded {expected}, but" in findings[0].message


# --- progress -------------------------------------------------------------------------------------


def test_progress_comes_in_blocks_of_4096_events_then_the_total():
    note = CommandIssued(command=Command(kind="note", params={"text": "0"}), events=4101)
    notes = [(2, note)] + [(2, Note(text=str(n))) for n in range(4100)]
    calls: list[int] = []
    audit(log_of(created() + chained(notes, after=created())), progress=calls.append, workers=1)
    assert calls == [4096, 4103]


def test_progress_of_a_one_event_log_is_that_one_event_and_of_an_empty_log_nothing():
    calls: list[int] = []
    audit(log_of(played()[:1]), progress=calls.append, workers=1)
    assert calls == [1]
    calls.clear()
    report = audit(MemoryLog(), progress=calls.append, workers=1)
    assert calls == [] and report.events == 0 and report.clean


# --- signatures -----------------------------------------------------------------------------------


def test_each_unsigned_step_is_a_signature_finding_at_its_command(tmp_path):
    pytest.importorskip("cryptography")
    from combatlog.replays.signing import keygen

    public = keygen(tmp_path / "gm.pem")
    raw = played()
    findings = signatures(log_of(raw), public)
    assert [f.seq for f in findings] == [i + 1 for i in step_starts(raw)]
    assert findings[0] == Finding(1, "signature", "step 1 is not signed")


def test_a_step_signed_by_another_key_names_the_first_16_hex_digits_of_that_key(tmp_path):
    pytest.importorskip("cryptography")
    from combatlog.engine import Session
    from combatlog.replays.signing import keygen, signer

    ours = keygen(tmp_path / "ours.pem")
    theirs = keygen(tmp_path / "theirs.pem")
    log = MemoryLog()
    Session(log, signer=signer(tmp_path / "theirs.pem")).do("create", rules="skirmish", options={}, seed=7)
    message = signatures(log, ours)[0].message
    assert message == f"step 1 is signed by another key ({theirs[:16]}...)"


def test_a_signed_step_of_a_command_and_its_signature_alone_verifies_and_a_lone_signature_does_not(tmp_path):
    pytest.importorskip("cryptography")
    from combatlog.events import StepSigned
    from combatlog.replays.signing import keygen, signer

    public = keygen(tmp_path / "gm.pem")
    sign = signer(tmp_path / "gm.pem")
    command = CommandIssued(command=Command(kind="note", params={"text": "hello"}), events=2)
    first, env = seal(GENESIS, 1, 1, command)
    key, signature = sign(env.digest)
    second, env2 = seal(env.digest, 2, 1, StepSigned(key=key, signature=signature))
    assert signatures(log_of([first, second]), public) == []
    lone, _ = seal(env2.digest, 3, 2, StepSigned(key=key, signature=signature))
    assert signatures(log_of([first, second, lone]), public) == [Finding(3, "signature", "step 2 is not signed")]


# --- what a report lists besides findings -------------------------------------------------------


def test_a_played_log_reports_each_step_once_and_no_notes():
    raw = played()
    report = audit(log_of(raw))
    assert report.clean and report.notes == []
    assert report.steps == len(step_starts(raw)) and report.events == len(raw)


def test_only_the_dice_typed_at_the_table_are_listed_as_entered():
    s = new_session(seed=7, begin=True)
    s.auto()
    actor = s.state.acting[0]
    target = next(c.id for c in s.state.active() if c.side != s.state.combatants[actor].side)
    s.do("act", actor=actor, action="strike", targets=(target,), entered=((20,), (6,)))
    report = audit(s.log)
    assert report.clean
    assert [e.faces for e in report.entered] == [(20,), (6,)]
    assert {e.step for e in report.entered} == {s.projection.step}


def test_findings_overrides_and_entered_dice_are_values_that_can_be_compared_as_sets():
    s = new_session(seed=7, begin=True)
    s.do("override", reason="a rock falls", damage={"target": "g2", "amount": 2})
    report = audit(s.log)
    finding = Finding(3, "tampered", "x")
    assert {finding, Finding(3, "tampered", "x")} == {finding}
    assert len({*report.overrides, *report.overrides}) == 1
    typed = Entered(seq=5, step=3, expression="1d6", faces=(4,))
    assert {typed: 1}[Entered(seq=5, step=3, expression="1d6", faces=(4,))] == 1
    with pytest.raises(AttributeError):
        finding.seq = 4  # type: ignore[misc]


def test_a_rules_version_that_isnt_a_number_audits_only_under_that_same_version():
    def named(version):
        def change(i, e):
            return msgspec.structs.replace(e, rules_version=version) if type(e) is EncounterCreated else e

        return change

    findings = audit(log_of(rechained(played(), named("beta")))).findings
    assert findings[0].seq == 2 and '"rules_version":"beta"' in findings[0].message


def test_a_creation_hidden_past_the_first_lines_names_its_missing_rules_in_a_note_not_a_crash():
    envs = [(e.step, e.event) for e in map(decode_line, played())]
    command, created_ = envs[0][1], envs[1][1]
    forged = (
        [(1, msgspec.structs.replace(command, events=5))]
        + [(1, msgspec.structs.replace(command, events=1))] * 3
        + [(1, msgspec.structs.replace(created_, rules="no-such-rules"))]
        + envs[2:]
    )
    report = audit(log_of(chained(forged)))
    assert report.findings and report.findings[0].seq == 2
    assert len(report.notes) == 1 and report.notes[0].startswith("no rule system 'no-such-rules'; installed: ")
    # every later command is re-decided under rules that aren't there: the plain message, not a KeyError's repr
    refused = [f for f in report.findings if "refused when re-decided" in f.message]
    assert refused and refused[0].message == f"the command is refused when re-decided: {report.notes[0]}"


def test_a_step_missing_an_event_is_a_finding_at_its_last_line():
    raw = played()
    i, end = first_act(raw)
    envs = [(e.step, e.event) for e in map(decode_line, raw)]
    step, command = envs[i]
    envs[i] = (step, msgspec.structs.replace(command, events=command.events - 1))
    del envs[end - 1]
    findings = audit(log_of(chained(envs))).findings
    missing = [f for f in findings if "the step is missing" in f.message]
    assert missing and missing[0].seq == end - 1


def test_an_illegal_event_keeps_the_colons_of_its_own_message():
    raw = played()
    i, _ = first_act(raw)

    def nobody(n, e):
        return msgspec.structs.replace(e, target="nobody") if n > i and type(e).__name__ == "DamageApplied" else e

    illegal = [f for f in audit(log_of(rechained(raw, nobody))).findings if f.kind == "illegal"]
    assert illegal and illegal[0].message == "no combatant 'nobody' (known: ayla, bo, g1, g2)"


@pytest.mark.parametrize("torn", [False, True])
def test_a_split_audit_that_fails_leaves_no_trace_of_its_parts_in_the_report(monkeypatch, torn):
    from combatlog.events import TornLog
    from combatlog.replays import audit as audit_module
    from combatlog.replays import parallel
    from combatlog.replays.audit import Override

    raw = played()
    raw[5] = raw[5].replace(b'"hp":', b'"hp":1')  # a tampered line: a finding of its own

    def log():
        made = log_of(raw)
        if torn:
            made.torn = TornLog("the last step is torn", len(raw) + 1)
        return made

    one = audit(log(), workers=1)

    def failing(log_, report, progress, parts, audit_range):
        report.findings += [Finding(1, "tampered", "from a part"), Finding(2, "tampered", "from a part")]
        report.overrides.append(Override(1, "from a part", ""))
        report.entered.append(Entered(1, 1, "1d6", (3,)))
        report.notes.append("from a part")
        report.events = report.steps = 99
        raise parallel.PartFailed("a part failed")

    monkeypatch.setattr(audit_module.parallel, "parts", lambda log_, workers, last: [(1, 10), (11, last)])
    monkeypatch.setattr(audit_module.parallel, "run", failing)
    assert audit(log(), workers=2) == one
    assert [f.kind for f in one.findings][: 1 + torn] == ["torn"] * torn + ["tampered"]


def test_a_creation_within_the_first_four_lines_naming_missing_rules_is_the_one_rules_finding():
    envs = [(e.step, e.event) for e in map(decode_line, played())]
    command, created_ = envs[0][1], envs[1][1]
    forged = (
        [(1, msgspec.structs.replace(command, events=4))]
        + [(1, msgspec.structs.replace(command, events=1))] * 2
        + [(1, msgspec.structs.replace(created_, rules="no-such-rules"))]
        + envs[2:]
    )
    findings = audit(log_of(chained(forged))).findings
    assert [(f.seq, f.kind) for f in findings] == [(4, "rules")]


def test_a_log_of_version_2_audited_by_version_3_of_its_rules_is_clean_with_a_note(monkeypatch):
    from combatlog.engine import get_rules

    raw = played()
    monkeypatch.setattr(type(get_rules("skirmish")), "version", "3")  # the class: undo leaves no instance copy

    def second(i, e):
        return msgspec.structs.replace(e, rules_version="2") if type(e) is EncounterCreated else e

    report = audit(log_of(rechained(raw, second)))
    assert report.clean, [str(f) for f in report.findings]
    assert report.notes == ["recorded under skirmish 2, audited with 3"]


def test_a_die_relabelled_from_the_engine_to_the_table_is_listed_as_typed_in():
    raw = played()
    rolls = [n for n, line in enumerate(raw) if b'"DiceRolled"' in line]
    i = next(n for n in rolls if decode_line(raw[n]).event.source == "engine")
    relabelled = rechained(raw, lambda n, e: msgspec.structs.replace(e, source="entered") if n == i else e)
    report = audit(log_of(relabelled), workers=1)
    assert [(e.seq, e.faces) for e in report.entered] == [(i + 1, decode_line(raw[i]).event.faces)]
    assert audit(log_of(raw), workers=1).entered == []


def test_an_override_and_a_typed_die_name_who_gave_their_command():
    s = new_session(seed=7, begin=True)
    s.do("override", reason="a lucky branch", damage={"target": "g1", "amount": 2}, by="alice")
    actor = s.state.acting[0]
    target = next(c.id for c in s.state.active() if c.side != s.state.combatants[actor].side)
    s.do("act", actor=actor, action="strike", targets=(target,), entered=((20,), (6,)), by="bob")
    report = audit(log_of(lines(s)), workers=1)
    assert [(o.by, o.reason) for o in report.overrides] == [("alice", "a lucky branch")]
    assert report.overrides[0].step == decode_line(lines(s)[report.overrides[0].seq - 1]).step
    assert {e.typed_by for e in report.entered} == {"bob"} and len(report.entered) == 2


def test_a_stored_row_that_isnt_a_line_is_a_finding_at_its_seq():
    raw = played()
    log = log_of(raw)
    log._lines[4] = 12345  # what a store's row may hold when another program wrote it
    findings = audit(log, workers=1).findings
    assert [(f.seq, f.kind) for f in findings] == [(5, "tampered")] and "the stored line is int" in findings[0].message


def test_a_log_whose_last_line_cant_be_read_is_audited_up_to_it():
    from combatlog.events import CorruptLog

    raw = played()

    class Unreadable(MemoryLog):
        def head(self):
            raise CorruptLog(f"seq {len(raw)}: the stored line is int, not a line", len(raw))

    log = Unreadable()
    log._lines = list(raw[:-1]) + [12345]
    findings = audit(log, workers=1).findings
    assert [(f.seq, f.kind) for f in findings] == [(len(raw), "tampered")]


def test_a_forged_engine_die_later_in_a_step_is_found_at_its_own_seq():
    # the step's second roll (the damage, after a hit) is changed to another face its die shows
    raw = played()
    for start, end in zip(step_starts(raw), step_starts(raw)[1:] + [len(raw)]):
        rolls = [n for n in range(start, end) if b'"DiceRolled"' in raw[n]]
        if len(rolls) >= 2:
            break
    else:
        raise AssertionError("no step of the played fight rolls twice")
    second = rolls[1]

    def forged(n, e):
        if n != second:
            return e
        face = e.faces[0] % 6 + 1 if e.faces[0] != (e.faces[0] % 6 + 1) else e.faces[0] % 6 + 2
        return msgspec.structs.replace(e, faces=(face,) + tuple(e.faces[1:]), total=e.total - e.faces[0] + face)

    findings = audit(log_of(rechained(raw, forged))).findings
    assert findings[0].kind == "dice" and findings[0].seq == second + 1 and "seed gives" in findings[0].message


def _second_roll() -> tuple[list[bytes], int, int]:
    """A played fight, the command of a step that rolls twice or more, and its second roll's index."""
    raw = played()
    for start, end in zip(step_starts(raw), step_starts(raw)[1:] + [len(raw)]):
        rolls = [n for n in range(start, end) if b'"DiceRolled"' in raw[n]]
        if len(rolls) >= 2:
            return raw, start, rolls[1]
    raise AssertionError("no step of the played fight rolls twice")


def test_a_roll_recorded_with_another_expression_is_a_finding_at_that_roll_s_own_seq():
    raw, start, second = _second_roll()

    def other(n, e):
        return msgspec.structs.replace(e, expression="1d99", faces=(1,), total=1) if n == second else e

    findings = audit(log_of(rechained(raw, other))).findings
    assert [(f.seq, f.kind) for f in findings] == [(second + 1, "unfollowed")] and second != start
    assert "but the log recorded 1d99" in findings[0].message


def test_a_roll_recorded_with_a_face_too_many_is_a_finding_at_that_roll_s_own_seq():
    raw, start, second = _second_roll()

    def extra(n, e):
        return msgspec.structs.replace(e, faces=(*e.faces, e.faces[0])) if n == second else e

    findings = audit(log_of(rechained(raw, extra))).findings
    assert [(f.seq, f.kind) for f in findings] == [(second + 1, "unfollowed")] and second != start
    assert "faces, but" in findings[0].message


def test_a_step_short_of_a_roll_it_asks_for_is_a_finding_at_the_step_s_command():
    raw, start, second = _second_roll()
    rolls = [
        n
        for n in range(start, len(raw))
        if b'"DiceRolled"' in raw[n] and decode_line(raw[n]).step == decode_line(raw[start]).step
    ]
    last = rolls[-1]
    envs = [(e.step, e.event) for e in map(decode_line, raw)]
    step, command = envs[start]
    envs[start] = (step, msgspec.structs.replace(command, events=command.events - 1))
    del envs[last]  # no roll of the log is the one missing: the step is named where it starts
    findings = audit(log_of(chained(envs))).findings
    assert (findings[0].seq, findings[0].kind) == (start + 1, "unfollowed")
    assert "recorded no more rolls" in findings[0].message
