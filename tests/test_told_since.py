"""What `do` and `play` print after a step is the transcript's own lines for it, told on from
the projection as it stood before the step, without reading the log from its first line."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from combatlog.cli.main import told_since
from combatlog.engine import Refused, Session
from combatlog.engine.encounter_file import read_encounter
from combatlog.events import Command
from combatlog.replays import MemoryLog
from tests.test_rule_systems_stateful import SYSTEMS, VARIANTS
from tests.test_views import EXAMPLES

CASES = [(name, options) for name in sorted(SYSTEMS) for options in VARIANTS.get(name, ({},))]
CASES.append(("skirmish", {"timing": "simultaneous"}))


@pytest.mark.parametrize(("system", "options"), CASES, ids=[f"{n}-{o}" for n, o in CASES])
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 500), undo_every=st.integers(3, 9))
def test_a_step_is_told_the_same_from_the_projection_before_it_as_from_the_whole_log(system, options, seed, undo_every):
    path = SYSTEMS.get(system, EXAMPLES / "skirmish-ambush.toml")
    s = Session(MemoryLog(), signer=None)
    for command in read_encounter(path, seed=seed):
        if command.kind == "create" and options:
            command = Command(
                kind="create", params={**command.params, "options": {**command.params.get("options", {}), **options}}
            )
        s.execute(command)
    s.do("begin")
    for i in range(40):
        if s.state.phase == "end":
            break
        before, seq = s.projection.snapshot(), s.projection.seq
        try:
            s.execute(Command(kind="undo")) if i % undo_every == undo_every - 1 else s.auto()
        except Refused:
            continue
        assert told_since(s, before) == told_since(s, seq), (system, i)
