"""Properties of the whole: replay equals live, snapshots, undo and redo, determinism.

The stateful test drives random legal and illegal commands through the skirmish test
system under every order and timing strategy, against an oracle that is just a stack of
the states seen after each step, and checks the invariants after every step.
"""

from __future__ import annotations

import contextlib

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from combatlog.engine import Refused
from combatlog.events import Command
from combatlog.projections import Projection, dump_snapshot, fold, load_snapshot
from combatlog.projections.bulk import fold_lines
from combatlog.replays import MemoryLog
from combatlog.replays.audit import audit
from combatlog.replays.cursor import Cursor, envelopes, replay
from tests.builders import ORDERS, TIMINGS, lines, new_session

ACTIONS = ("strike", "shoot", "move", "guard", "fireball")
IDS = ("ayla", "bo", "g1", "g2", "nobody")

person_commands = st.one_of(
    st.builds(
        lambda a, x, t: Command(kind="act", actor=a, action=x, targets=t, params={"to": "ford"}),
        st.sampled_from(IDS),
        st.sampled_from(ACTIONS),
        st.lists(st.sampled_from(IDS), max_size=2).map(tuple),
    ),
    st.builds(lambda a: Command(kind="end_turn", actor=a), st.sampled_from(IDS + (None,))),
    st.just(Command(kind="note", params={"text": "hm"})),
)
commands = st.one_of(person_commands, st.just(Command(kind="undo")), st.just(Command(kind="redo")))


def run(order: str, timing: str, seed: int, script: list[Command]):
    """Play `script` (refused commands are skipped) with the policy filling in between."""
    s = new_session(seed=seed, order=order, timing=timing, begin=True)
    for command in script:
        with contextlib.suppress(Refused):
            s.execute(command)
        if s.state.phase != "end" and s.state.acting:
            s.auto()
    return s


scenario = st.tuples(
    st.sampled_from(ORDERS), st.sampled_from(TIMINGS), st.integers(0, 10_000), st.lists(commands, max_size=12)
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario)
def test_the_live_state_equals_the_replay_of_its_log(sc):
    s = run(*sc[:3], sc[3])
    assert replay(s.log).state == s.state


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario, st.floats(0, 1))
def test_a_snapshot_plus_the_tail_equals_the_full_fold(sc, where):
    s = run(*sc[:3], sc[3])
    all_envelopes = list(envelopes(s.log))
    cut = int(where * len(all_envelopes))
    head = fold(all_envelopes[:cut])
    full = fold(all_envelopes)
    resumed = fold(all_envelopes[cut:], Projection(head.snapshot(), head.history))
    assert resumed.state == full.state and resumed.undo == full.undo and resumed.redo == full.redo
    # through bytes the snapshot carries no undo history: a tail that undoes nothing still folds
    restored = load_snapshot(dump_snapshot(head))
    assert restored.snapshot() == head.snapshot()
    tail = all_envelopes[cut:]
    if not any(type(e.event).__name__ in ("StepUndone", "StepRedone") for e in tail):
        assert fold(tail, restored).state == full.state


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario)
def test_undo_then_redo_leaves_the_projection_unchanged(sc):
    s = run(*sc[:3], sc[3])
    if not s.projection.undo or s.projection.undo[-1] <= 6:
        return
    before = s.state
    s.undo()
    s.redo()
    assert s.state == before


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(ORDERS), st.sampled_from(TIMINGS), st.integers(0, 10_000), st.integers(1, 6))
def test_k_undos_give_the_state_k_steps_back(order, timing, seed, k):
    s = new_session(seed=seed, order=order, timing=timing, begin=True)
    seen = [s.state]
    for _ in range(k):
        if s.state.phase == "end":
            break
        s.auto()
        seen.append(s.state)
    for back in range(1, len(seen)):
        s.undo()
        assert s.state == seen[-1 - back]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario)
def test_the_same_seed_and_commands_give_a_byte_identical_log(sc):
    assert lines(run(*sc[:3], sc[3])) == lines(run(*sc[:3], sc[3]))


class EncounterMachine(RuleBasedStateMachine):
    """Random commands against an oracle: a stack of the states after each step."""

    @initialize(order=st.sampled_from(ORDERS), timing=st.sampled_from(TIMINGS), seed=st.integers(0, 10_000))
    def start(self, order, timing, seed):
        self.s = new_session(seed=seed, order=order, timing=timing, begin=True)
        self.done = [self.s.state]  # states after each live step taken here
        self.undone: list = []

    def _took_step(self):
        self.done.append(self.s.state)
        self.undone.clear()

    @precondition(lambda self: self.s.state.phase != "end" and bool(self.s.state.acting))
    @rule()
    def policy_acts(self):
        self.s.auto()
        self._took_step()

    @rule(command=person_commands)
    def a_person_commands(self, command):
        before = lines(self.s)
        state = self.s.state
        try:
            self.s.execute(command)
        except Refused:
            assert lines(self.s) == before and self.s.state == state
        else:
            self._took_step()

    @precondition(lambda self: len(self.done) > 1)
    @rule()
    def undo(self):
        self.s.undo()
        self.undone.append(self.done.pop())
        assert self.s.state == self.done[-1]

    @precondition(lambda self: bool(self.undone))
    @rule()
    def redo(self):
        self.s.redo()
        self.done.append(self.undone.pop())
        assert self.s.state == self.done[-1]

    @precondition(lambda self: self.s.state.phase == "end")
    @rule()
    def commands_after_the_end_are_refused(self):
        before = lines(self.s)
        try:
            self.s.do("end_turn")
        except Refused as exc:
            assert "over" in str(exc)
        assert lines(self.s) == before

    @invariant()
    def the_log_replays_to_the_live_state_and_audits_clean(self):
        assert replay(self.s.log).state == self.s.state
        report = audit(self.s.log)
        assert report.clean, [str(f) for f in report.findings]

    @invariant()
    def a_cursor_with_snapshots_agrees_with_the_full_fold(self):
        log = self.s.log
        cursor = Cursor(log, every=5)
        last = cursor.last
        for seq in (last // 3, last // 2, last):
            truth = MemoryLog()
            truth._lines = list(log.lines(1, seq))
            assert cursor.state(seq) == replay(truth).state

    @invariant()
    def damage_held_only_within_a_round(self):
        state = self.s.state
        assert all(c.damage >= 0 for c in state.combatants.values())
        if state.phase == "end":
            assert not state.held


TestEncounterMachine = EncounterMachine.TestCase
TestEncounterMachine.settings = settings(
    max_examples=60, stateful_step_count=30, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _outcome(fold_all):
    """What folding a log gave: the projection's every field, or the error's type and message."""
    p = Projection(keep=3)  # a small undo window, so undo and redo reach past it
    try:
        fold_all(p)
    except Exception as exc:
        error = (type(exc).__name__, str(exc))
    else:
        error = None
    history = {k: tuple(v) for k, v in p.history.items()}
    return error, p.state, p.seq, p.step, p.digest, list(p.undo), list(p.redo), history


# Lines of a played log, then some of them dropped, doubled, swapped or garbled.
edits = st.lists(st.tuples(st.sampled_from(["drop", "double", "swap", "garble"]), st.integers(0, 10_000)), max_size=3)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario, edits)
def test_the_bulk_fold_of_lines_is_the_event_by_event_fold_even_on_broken_logs(sc, changes):
    from combatlog.events import line_decoder

    s = run(*sc[:3], sc[3])
    raw = list(s.log.lines())
    for what, at in changes:
        i = at % len(raw)
        if what == "drop":
            del raw[i]
        elif what == "double":
            raw.insert(i, raw[i])
        elif what == "swap" and i + 1 < len(raw):
            raw[i], raw[i + 1] = raw[i + 1], raw[i]
        elif what == "garble":
            raw[i] = raw[i][: len(raw[i]) // 2]
    decode = line_decoder()

    def one_by_one(p: Projection) -> None:
        for n, line in enumerate(raw, 1):
            try:
                envelope = decode(line)
            except Exception as exc:
                from combatlog.events import CorruptLog

                raise CorruptLog(f"seq {n}: can't decode the line ({exc})", n) from None
            p.apply(envelope)

    assert _outcome(lambda p: fold_lines(p, raw, decode)) == _outcome(one_by_one)
