"""Every bundled rule system under random legal and illegal commands.

A Hypothesis state machine starts each system's bundled example encounter (seeded, begun)
and drives it with the automatic policy, a person's commands (any action of the system by
any combatant at any targets, ending turns, notes), undo and redo; the oracle is the stack
of states seen after each step. After every step: the live state equals the replay of the
log, the log audits clean, and a refused command appended nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from combatlog.engine import Refused, Session
from combatlog.engine.dice import DiceError
from combatlog.engine.encounter_file import read_encounter
from combatlog.events import Command
from combatlog.projections import replay
from combatlog.replays import MemoryLog
from combatlog.replays.audit import audit

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SYSTEMS = {
    "starflight": EXAMPLES / "starflight-patrol.toml",
    "infinite-realms": EXAMPLES / "infinite-realms-road.toml",
    "swords-of-infinity": EXAMPLES / "swords-of-infinity-ambush.toml",
    "straalara": EXAMPLES / "straalara-bridge.toml",
    "triptycho": EXAMPLES / "triptycho-cistern.toml",
}


# options each system's machine also tries (beside the example's own)
VARIANTS = {
    "starflight": ({}, {"timing": "simultaneous"}),
    "straalara": ({}, {"passes": "interleaved"}),
    "triptycho": ({}, {"order": "rolled"}),
}


def started(path: Path, seed: int, options: dict) -> Session:
    s = Session(MemoryLog())
    for command in read_encounter(path, seed=seed):
        if command.kind == "create" and options:
            params = dict(command.params)
            params["options"] = {**params.get("options", {}), **options}
            command = Command(kind="create", params=params, by=command.by)
        s.execute(command)
    if s.state.phase in ("setup", "surprise"):
        s.do("begin")
    return s


def lines(s: Session) -> list[bytes]:
    return list(s.log.lines())


def machine_for(system: str) -> type[RuleBasedStateMachine]:
    path = SYSTEMS[system]

    class SystemMachine(RuleBasedStateMachine):
        @initialize(seed=st.integers(0, 10_000), variant=st.sampled_from(VARIANTS.get(system, ({},))))
        def start(self, seed, variant):
            self.s = started(path, seed, variant)
            self.ids = tuple(self.s.state.combatants) + ("nobody",)
            self.done = [self.s.state]
            self.undone: list = []

        def _took_step(self):
            self.done.append(self.s.state)
            self.undone.clear()

        @precondition(lambda self: self.s.state.phase != "end")
        @rule()
        def policy_acts(self):
            try:
                self.s.auto()
            except Refused:
                return  # no one acts and no ruling the policy can make: nothing was written
            self._took_step()

        @rule(data=st.data())
        def a_person_commands(self, data):
            state = self.s.state
            actor = data.draw(st.sampled_from(self.ids), label="actor")
            names = ["end_turn"]
            if actor in state.combatants:
                names = [a.name for a in self.s.rules.actions(state, state.combatants[actor])] + ["nonsense"]
            action = data.draw(st.sampled_from(names), label="action")
            targets = tuple(data.draw(st.lists(st.sampled_from(self.ids), max_size=2), label="targets"))
            if action == "end_turn":
                command = Command(kind="end_turn", actor=actor)
            else:
                command = Command(kind="act", actor=actor, action=action, targets=targets)
            before = lines(self.s)
            try:
                self.s.execute(command)
            except (Refused, DiceError):
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

        @invariant()
        def the_log_replays_to_the_live_state_and_audits_clean(self):
            assert replay(self.s.log).state == self.s.state
            report = audit(self.s.log, workers=1)
            assert report.clean, [str(f) for f in report.findings]

    SystemMachine.__name__ = f"{system.title().replace('-', '')}Machine"
    return SystemMachine


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_a_rule_system_under_random_commands_replays_and_audits_clean_after_every_step(system):
    machine = machine_for(system)
    machine.TestCase.settings = settings(
        max_examples=30, stateful_step_count=30, deadline=None, suppress_health_check=[HealthCheck.too_slow]
    )
    machine.TestCase().runTest()
