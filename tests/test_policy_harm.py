"""The automatic players never hurt their own side of their own accord while a harmless move
is open to them: in every state a seeded automatic fight of each bundled encounter goes
through, the policy's command, tried with several dice, must not surely hurt the actor's
side (a fall, a blow on an ally) when ending the turn, tried the same way, hurts no one of it.

"Surely": on every dice tried. An attack that may go wrong (a critical miss wounding its own
striker) is a risk the policy takes to fight at all, not a harm it chooses; a fall down a
drop hurts on any dice.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from combatlog.engine import Refused
from combatlog.engine.decide import decided_step
from combatlog.engine.dice import DiceError, SeededDice
from combatlog.engine.encounter_file import read_encounter
from combatlog.engine.lean import LeanSession
from combatlog.events import Command, DamageApplied
from combatlog.simulate.run import MAX_STEPS

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
ENCOUNTERS = sorted(EXAMPLES.glob("*.toml"))
DICE = (101, 202, 303, 404)  # the dice seeds each command is tried with


def own_harm(session: LeanSession, command: Command, side: str, dice_seed: int) -> int | None:
    """The damage `command` would deal now to combatants of `side` other than by an enemy's hand
    (a fall, a friend's blow), with the dice seeded `dice_seed`; None when it is refused."""
    state = session.state
    try:
        events = decided_step(session.view, command, SeededDice(dice_seed, session.step + 1), session.rules).events
    except (Refused, DiceError):
        return None
    hurt = 0
    for e in events:
        if type(e) is DamageApplied and e.amount > 0 and state.combatants[e.target].side == side:
            by = state.combatants.get(e.source or "")
            if by is None or by.side == side:
                hurt += e.amount
    return hurt


def surely_harms(session: LeanSession, command: Command, side: str) -> bool:
    harms = [own_harm(session, command, side, d) for d in DICE]
    return all(h is not None and h > 0 for h in harms)


def harmless(session: LeanSession, command: Command, side: str) -> bool:
    harms = [own_harm(session, command, side, d) for d in DICE]
    return all(h == 0 for h in harms)


@pytest.mark.parametrize("encounter", ENCOUNTERS, ids=lambda p: p.stem)
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**32))
def test_the_automatic_player_hurts_its_own_side_only_when_nothing_harmless_is_open(encounter, seed):
    session = LeanSession()
    for command in read_encounter(encounter, seed=seed):
        session.execute(command)
    session.execute(Command(kind="begin"))
    for _ in range(MAX_STEPS):
        state = session.state
        if state.phase == "end":
            break
        if state.acting:
            actor = state.combatants[state.acting[0]]
            chosen = session.rules.policy(state, actor)
            if surely_harms(session, chosen, actor.side):
                stay = Command(kind="end_turn", actor=actor.id, by="policy")
                assert not harmless(session, stay, actor.side), (
                    f"{encounter.stem}, seed {seed}, round {state.round}: {actor.name} chose "
                    f"{chosen.action or chosen.kind} {dict(chosen.params)}, which hurts its own side, "
                    "while ending the turn hurts no one"
                )
        session.auto()
