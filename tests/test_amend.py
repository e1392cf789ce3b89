"""Amending a past step (`combatlog amend`, `combatlog.replays.amend`): the steps after it undone,
the corrected command decided in its place, every later step decided again with its own dice."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combatlog.cli.main import app
from combatlog.engine import Refused, Session
from combatlog.engine.dice import SeededDice, parse
from combatlog.engine.encounter_file import read_encounter
from combatlog.events import Command, CommandIssued, DiceRolled, StepAmended
from combatlog.projections import envelopes
from combatlog.replays import MemoryLog, open_log
from combatlog.replays.amend import amend, said, steps
from combatlog.replays.audit import Amended, audit
from tests.builders import PARTY, new_session

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.toml"))

# two who can take a few rounds of blows: the fight goes on long after the step amended
HARDY = [
    {
        "id": "ayla",
        "name": "Ayla",
        "side": "party",
        "kind": "pc",
        "stats": {"hp": 40, "init": 3, "attack": 4, "defense": 12, "damage": "1d8"},
    },
    {
        "id": "g1",
        "name": "Goblin 1",
        "side": "goblins",
        "stats": {"hp": 40, "init": 2, "attack": 1, "defense": 12, "damage": "1d6"},
    },
]


def typed_seven_three_rounds_ago() -> tuple[Session, int]:
    """Ayla's first strike typed in as a 7 (a miss: 7 + 4 against defense 12), then the policy
    plays on into round 4; returns the session and the typed step."""
    s = new_session(seed=7, combatants=HARDY, begin=True)
    assert s.state.acting == ("ayla",)
    s.do("act", actor="ayla", action="strike", targets=("g1",), entered=((7,),), entered_for=("1d20",))
    typed = s.projection.step
    while s.state.round < 4:
        s.auto()
    return s, typed


def events_of(log, step: int) -> list:
    return [env.event for env in envelopes(log) if env.step == step]


def rolls_of(log, step: int) -> list[DiceRolled]:
    return [e for e in events_of(log, step) if isinstance(e, DiceRolled)]


def test_a_typed_7_that_was_a_17_three_rounds_ago_turns_the_miss_into_a_hit_and_decides_the_rest_again():
    s, typed = typed_seven_three_rounds_ago()
    later = s.projection.undo[s.projection.undo.index(typed) + 1 :]
    damage_before = s.state.combatants["g1"].damage
    report = amend(s.log, typed, dice="1d20: 17", signer=None)
    assert report.corrected.before == ("Ayla strikes Goblin 1: miss (11 against 12).",)
    assert report.corrected.after[0].startswith("Ayla strikes Goblin 1: hit (21 against 12) for ")
    assert [r.step for r in report.redecided] == later and report.stopped is None
    assert report.undone == (*reversed(later), typed)  # newest first, the amended step last
    hit = rolls_of(s.log, report.by_step)[1].total
    after = Session(s.log).state
    assert after.combatants["g1"].damage == damage_before + hit
    assert after.round == 4
    left = 40 - damage_before
    assert report.changes == (f"Goblin 1: {left}/40 -> {left - hit}/40",)
    assert any(f"Goblin 1: {left}/40 -> {left - hit}/40" in line for line in report.lines())


def test_the_later_steps_take_the_draws_of_the_steps_they_stand_in_for_so_they_roll_the_same():
    s, typed = typed_seven_three_rounds_ago()
    later = s.projection.undo[s.projection.undo.index(typed) + 1 :]
    before = {n: rolls_of(s.log, n) for n in later}
    report = amend(s.log, typed, dice="1d20: 17", signer=None)
    for r in report.redecided:
        command = events_of(s.log, r.now)[0].command
        assert (command.amends, command.draws) == (r.step, r.step)
        assert rolls_of(s.log, r.now) == before[r.step]  # the same faces, roll for roll
        assert not r.changed


def test_the_corrected_step_rolls_its_engine_dice_from_the_amended_steps_own_draws():
    s, typed = typed_seven_three_rounds_ago()
    report = amend(s.log, typed, dice="1d20: 17", signer=None)
    d20, damage = rolls_of(s.log, report.by_step)
    assert (d20.source, d20.faces) == ("entered", (17,))
    # the typed d20 draws nothing from the step's generator: the damage is its first draw
    assert damage.source == "engine"
    assert damage.faces == SeededDice(7, typed).faces(parse("1d8"), "")
    assert damage.faces != SeededDice(7, report.by_step).faces(parse("1d8"), "")  # not the new step's own


def test_amending_an_amended_step_again_keeps_the_draws_of_the_first_place_in_the_fight():
    s, typed = typed_seven_three_rounds_ago()
    first = amend(s.log, typed, dice="1d20: 17", signer=None)
    second = amend(s.log, first.by_step, dice="1d20: 18", signer=None)
    command = events_of(s.log, second.by_step)[0].command
    assert (command.amends, command.draws) == (first.by_step, typed)
    assert rolls_of(s.log, second.by_step)[1] == rolls_of(s.log, first.by_step)[1]
    assert audit(s.log).clean


def test_the_amended_log_audits_clean_and_lists_each_step_decided_in_place_of_another():
    s, typed = typed_seven_three_rounds_ago()
    report = amend(s.log, typed, dice="1d20: 17", signer=None)
    result = audit(s.log)
    assert result.clean, result.findings
    assert [(a.step, a.amends, a.draws) for a in result.amended] == [
        (r.now, r.step, r.step) for r in (report.corrected, *report.redecided)
    ]
    assert all(isinstance(a, Amended) for a in result.amended)


def test_nothing_is_erased_the_superseded_steps_lines_are_still_in_the_log_byte_for_byte():
    s, typed = typed_seven_three_rounds_ago()
    before = list(s.log.lines())
    report = amend(s.log, typed, dice="1d20: 17", signer=None)
    after = list(s.log.lines())
    assert after[: len(before)] == before
    assert report.first_seq == len(before) + 1 and report.last_seq == len(after)
    amended = [e for e in (env.event for env in envelopes(s.log)) if isinstance(e, StepAmended)]
    assert [e.step for e in amended] == [typed, *(r.step for r in report.redecided)]


def hurt_goblin_fight() -> tuple[Session, int, int]:
    """Bo's strike at Goblin 1 (5 hp) typed in as a miss, then Ayla's strike at Goblin 1:
    returns the session, Bo's step and Ayla's."""
    party = [dict(c) for c in PARTY]
    party[2] = {**party[2], "stats": {**party[2]["stats"], "hp": 5}}
    s = new_session(seed=7, combatants=party, begin=True)
    assert s.state.acting == ("bo",)
    s.do("act", actor="bo", action="strike", targets=("g1",), entered=((1,),), entered_for=("1d20",))
    bo = s.projection.step
    assert s.state.acting == ("ayla",)
    s.do("act", actor="ayla", action="strike", targets=("g1",))
    return s, bo, s.projection.step


def test_a_later_command_the_rules_refuse_now_stops_the_re_deciding_there_saying_which_step_and_why():
    s, bo, ayla = hurt_goblin_fight()
    s.auto()
    s.auto()
    last = s.projection.step
    report = amend(s.log, bo, dice="1d20: 17; 1d6: 6", signer=None)  # 6 damage: Goblin 1 is down
    assert report.redecided == ()
    assert report.stopped is not None and report.stopped.step == ayla and report.stopped.now is None
    assert "not a valid target" in report.why
    assert report.left == tuple(range(ayla, last + 1))
    assert any(line.startswith(f"stopped at step {ayla} ") and "not a valid target" in line for line in report.lines())
    # the fight stands just after the correction, for the game master to go on from
    state = Session(s.log).state
    assert state.combatants["g1"].defeated is not None and state.acting == ("ayla",)
    assert Session(s.log).projection.undo[-1] == report.by_step
    assert audit(s.log).clean


def test_a_new_command_keeps_the_steps_typed_dice_and_names_the_new_target():
    s, bo, _ = hurt_goblin_fight()
    report = amend(s.log, bo, command="act bo strike g2", signer=None)
    command = events_of(s.log, report.by_step)[0].command
    assert (command.targets, command.entered, command.amends) == (("g2",), ((1,),), bo)
    assert report.corrected.after[0].startswith("Bo strikes Goblin 2: miss")
    assert audit(s.log).clean


@pytest.mark.parametrize(
    ("step", "dice", "command", "says"),
    [
        (99, "1d20: 17", None, "amend step 99: there is no such step; the log's steps are 1 to "),
        (1, "1d20: 17", None, "amend step 1: the encounter's creation can't be amended"),
        ("bo", "1d20: 27", None, "amend --dice: '1d20: 27': 27 can't show on a d20"),
        ("bo", "seventeen", None, "amend --dice: 'seventeen': give the faces as numbers"),
        ("bo", None, "act bo strike zz", "amend step {bo}: the corrected command: Bo: strike at 'zz': not a valid"),
        ("bo", None, "act 'bo", "amend --command: can't read that line"),
        ("bo", None, "undo", "amend step {bo}: the corrected command: undo in place of step {bo}: a undo step"),
    ],
)
def test_a_refused_amendment_is_one_line_and_appends_nothing(step, dice, command, says):
    s, bo, _ = hurt_goblin_fight()
    before = list(s.log.lines())
    with pytest.raises(Refused) as refused:
        amend(s.log, bo if step == "bo" else step, dice=dice, command=command, signer=None)
    message = str(refused.value)
    assert message.startswith(says.format(bo=bo)) and "\n" not in message
    assert list(s.log.lines()) == before


def test_an_undo_step_and_an_undone_step_cant_be_amended():
    s, bo, ayla = hurt_goblin_fight()
    s.undo()
    undo_step = s.projection.step
    before = list(s.log.lines())
    with pytest.raises(Refused, match=f"amend step {undo_step}: it is an undo"):
        amend(s.log, undo_step, dice="1d20: 17", signer=None)
    with pytest.raises(Refused, match=f"amend step {ayla}: it was undone: it doesn't count now"):
        amend(s.log, ayla, dice="1d20: 17", signer=None)
    assert list(s.log.lines()) == before


def test_a_command_naming_a_step_that_still_counts_or_later_draws_is_refused_by_the_rules():
    s, bo, ayla = hurt_goblin_fight()
    note = Command(kind="note", params={"text": "x"})
    with pytest.raises(Refused, match=f"step {bo} \\(amended\\) still counts"):
        s.execute(msgspec.structs.replace(note, amends=bo, draws=bo))
    s.undo()
    with pytest.raises(Refused, match="takes the draws of step"):
        s.execute(msgspec.structs.replace(note, amends=bo, draws=ayla))  # a later step's draws
    with pytest.raises(Refused, match="names both"):
        s.execute(msgspec.structs.replace(note, amends=ayla))


def test_a_forged_draws_in_an_amended_log_is_a_finding_of_the_audit():
    from tests.test_audit_findings import log_of, rechained

    s, typed = typed_seven_three_rounds_ago()
    report = amend(s.log, typed, dice="1d20: 17", signer=None)
    rolled = next(r for r in report.redecided if any(d.source == "engine" for d in rolls_of(s.log, r.now)))
    raw = list(s.log.lines())

    def forged(draws):
        def forge(i, event):  # a re-decided step claims other draws than its own place's
            if isinstance(event, CommandIssued) and event.command.amends == rolled.step:
                return msgspec.structs.replace(event, command=msgspec.structs.replace(event.command, draws=draws))
            return event

        return audit(log_of(rechained(raw, forge))).findings

    assert [f.kind for f in forged(typed)][:1] == ["dice"]  # another undone step's draws: not what was rolled
    refused = forged(2)  # a step that still counts: the rules refuse it
    assert refused[0].kind == "unfollowed" and "step 2 (whose draws it takes) still counts" in refused[0].message


def test_the_steps_an_amendment_can_take_are_the_live_ones_with_their_round_and_command():
    s, bo, ayla = hurt_goblin_fight()
    listed = list(steps(s.log))
    assert [n for n, *_ in listed] == [n for n in s.projection.undo if n > 1]
    assert listed[-2][2:] == (1, "act bo strike g1 (dice 1d20: 1)")
    assert said(Command(kind="act", actor="bo", action="move", params={"to": "door", "n": 2})) == (
        "act bo move to=door n=2"
    )


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(example=st.sampled_from(EXAMPLES), at=st.floats(min_value=0, max_value=1, exclude_max=True))
def test_amending_a_step_with_its_own_command_and_dice_changes_nothing_of_the_final_state(example, at):
    log = MemoryLog()
    s = Session(log, signer=None)
    for command in read_encounter(example):
        s.execute(command)
    s.do("begin")
    s.play_out()
    final = msgspec.to_builtins(s.state.as_recorded())
    live = [n for n in s.projection.undo if n > 1]
    step = live[int(at * len(live))]
    report = amend(log, step, signer=None)
    assert report.stopped is None and report.changes == ()
    assert not any(r.changed for r in (report.corrected, *report.redecided))
    assert msgspec.to_builtins(Session(log).state.as_recorded()) == final
    assert audit(log, workers=1).clean


def run(*args: str):
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def test_the_command_line_amends_prints_what_changed_and_refuses_in_one_line(tmp_path):
    path = str(tmp_path / "fight.jsonl")
    s, typed = typed_seven_three_rounds_ago()
    log = open_log(path)
    log.append(list(s.log.lines()), 1)
    log.close()
    listed = run("amend", path)
    assert f"step {typed:>5}" in listed.output and "act ayla strike g1 (dice 1d20: 7)" in listed.output
    done = run("amend", path, str(typed), "--dice", "1d20: 17")
    assert done.exit_code == 0, done.output
    assert f"step {typed} amended by step " in done.output and "what changed: Goblin 1: " in done.output
    audited = run("audit", path)
    assert audited.exit_code == 0 and f"amended: decided in place of step {typed}" in audited.output
    assert run("audit", path, "--strict").exit_code == 1
    size = Path(path).stat().st_size
    refused = run("amend", path, str(typed), "--dice", "1d20: 17")
    assert refused.exit_code == 1
    assert refused.output.count("\n") == 1 and "it was undone" in refused.output
    assert run("amend", path, str(typed)).exit_code == 2
    assert Path(path).stat().st_size == size
