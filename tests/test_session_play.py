"""Automatic play: the game master's ruling when no one acts (never after the end), the stall
rule, the step limit, and a signed step's count.

Each test here fails against a mutant of `engine/session.py` that the rest of the suite let
through (docs/mutation.md).
"""

from __future__ import annotations

import pytest

from combatlog.engine import Refused
from combatlog.engine.turns import STALL_ROUNDS, stall_outcome
from combatlog.events import Command, CommandIssued, Note, decode_line
from tests.builders import lines, new_session


def test_with_no_one_acting_auto_takes_the_rulers_command_but_never_after_the_end(monkeypatch):
    s = new_session(seed=7)  # set up, not begun: no one acts
    note = Command(kind="note", params={"text": "the GM waits"}, by="policy")
    monkeypatch.setattr(s.rules, "ruling_policy", lambda state: note)
    s.auto()
    assert decode_line(lines(s)[-1]).event == Note(text="the GM waits", by="policy")
    monkeypatch.setattr(s.rules, "ruling_policy", lambda state: None)
    with pytest.raises(Refused, match="no one is taking a turn"):
        s.auto()
    monkeypatch.setattr(s.rules, "ruling_policy", lambda state: note)
    s.do("end", outcome="called off")
    with pytest.raises(Refused, match=r"no one is taking a turn \(phase end\)"):
        s.auto()


def test_a_fight_where_no_one_is_hurt_ends_as_a_draw_after_the_stall_rounds(monkeypatch):
    s = new_session(seed=7, begin=True)
    monkeypatch.setattr(s.rules, "policy", lambda state, actor: Command(kind="end_turn", actor=actor.id, by="policy"))
    before = sum(b'"CommandIssued"' in line for line in lines(s))
    steps = s.play_out()
    assert s.state.phase == "end" and s.state.outcome == stall_outcome("no one was hurt")
    assert s.state.round == 1 + STALL_ROUNDS
    assert steps == sum(b'"CommandIssued"' in line for line in lines(s)) - before


def test_a_hurt_in_a_round_starts_the_stall_count_again(monkeypatch):
    s = new_session(seed=7, begin=True)
    real = s.rules.policy
    hurt = {"done": False}

    def policy(state, actor):
        if state.round == 3 and not hurt["done"]:
            hurt["done"] = True
            return real(state, actor)  # a strike in round 3: someone may be hurt
        return Command(kind="end_turn", actor=actor.id, by="policy")

    monkeypatch.setattr(s.rules, "policy", policy)
    s.play_out()
    damaged = any(c.damage > 0 for c in s.state.combatants.values())
    assert damaged and s.state.round == 3 + 1 + STALL_ROUNDS  # quiet rounds counted from round 4


def test_play_out_stops_after_exactly_the_steps_it_was_allowed():
    s = new_session(seed=7, begin=True)
    before = len(lines(s))
    with pytest.raises(RuntimeError, match="didn't end within 3 steps"):
        s.play_out(max_steps=3)
    steps = {decode_line(line).step for line in lines(s)[before:]}
    assert len(steps) == 3


def test_a_signed_step_announces_its_signature_among_its_events(tmp_path):
    pytest.importorskip("cryptography")
    from combatlog.engine import Session
    from combatlog.replays import MemoryLog
    from combatlog.replays.signing import keygen, signer

    keygen(tmp_path / "gm.pem")
    s = Session(MemoryLog(), signer=signer(tmp_path / "gm.pem"))
    s.do("create", rules="skirmish", options={}, seed=7)
    envs = [decode_line(line) for line in lines(s)]
    assert [e.seq for e in envs] == [1, 2, 3]
    assert type(envs[0].event) is CommandIssued and envs[0].event.events == 3
