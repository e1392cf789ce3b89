"""The decide path's short cuts answer as the long way does: a rules version read once per
text, a dice text found in the parse cache however it was written, a lean session's test for
a step that hurt anyone, and the end check that stops at a second side."""

from __future__ import annotations

from combatlog.engine import dice
from combatlog.engine.dice import parse
from combatlog.engine.lean import LeanSession
from combatlog.engine.protocol import RuleSystem
from combatlog.engine.session import Session
from combatlog.events import Command
from combatlog.projections import Combatant, Encounter
from combatlog.replays import MemoryLog
from tests.builders import new_session


def test_a_rules_version_gate_reads_each_version_as_its_own_number_every_time():
    asked = []
    for version in ("1", "2", "beta", None, "2", "1", "10", "beta", "1"):
        state = Encounter(rules="skirmish", rules_version=version)
        asked.append((version, RuleSystem.since(state, 2)))
    # None reads as "1"; a text that isn't a number opens every gate; "10" is ten, not one-zero
    assert asked == [
        ("1", False),
        ("2", True),
        ("beta", True),
        (None, False),
        ("2", True),
        ("1", False),
        ("10", True),
        ("beta", True),
        ("1", False),
    ]


def test_a_dice_text_however_written_is_the_same_parsed_expression_and_the_cache_stays_bounded():
    dice._parsed.clear()
    first = parse("2d6+1")
    for spelling in (" 2d6+1", "2D6+1", "2d6 + 1", "2d6+1 "):
        assert parse(spelling) is first
    assert parse(" 2D6 + 1 ").text == "2d6+1"
    for n in range(dice.PARSE_CACHE + 10):  # as many spellings as the cache holds, and more
        parse(" " * (n % 7) + "2d6+1" + " " * (n // 7))
        assert len(dice._parsed) <= dice.PARSE_CACHE
    assert parse("2d6+1") == first


def test_a_lean_session_finds_the_steps_that_hurt_anyone_as_a_session_does():
    session, lean = Session(MemoryLog()), LeanSession()
    for command in _commands(new_session(seed=11)):  # the same creation and roster on both
        session.execute(command)
        lean.execute(command)
    session.execute(Command(kind="begin"))
    lean.execute(Command(kind="begin"))
    hurt = 0
    while session.state.phase != "end":
        logged, bare = session.auto(), lean.auto()
        assert [e.event for e in logged[1:]] == bare  # the same step, its CommandIssued aside
        assert session.hurt(logged) == lean.hurt(bare)
        hurt += lean.hurt(bare)
    assert 0 < hurt < session.projection.step  # some steps hurt someone, some didn't


def _commands(session: Session) -> list[Command]:
    """The commands a session's log holds, in order."""
    from combatlog.events import CommandIssued
    from combatlog.events.envelope import line_decoder

    decode = line_decoder()
    return [env.event.command for env in map(decode, session.log.lines(1, None)) if type(env.event) is CommandIssued]


def test_the_default_end_check_names_the_one_side_standing_or_a_draw():
    rules = RuleSystem()

    def state(*who: tuple[str, str, str | None, bool]) -> Encounter:
        return Encounter(
            combatants={
                cid: Combatant(id=cid, name=cid, side=side, defeated=down, removed=gone)
                for cid, side, down, gone in who
            }
        )

    a, b = ("a", "party", None, False), ("b", "goblins", None, False)
    down_b, gone_b = ("b", "goblins", "down", False), ("b", "goblins", None, True)
    c = ("c", "party", None, False)
    assert rules.outcome(state(a, b)) is None
    assert rules.outcome(state(a, c, b)) is None  # the second side found third in the roster
    assert rules.outcome(state(a, down_b)) == ("victory", "party")
    assert rules.outcome(state(gone_b, a)) == ("victory", "party")
    assert rules.outcome(state(("a", "party", "down", False), down_b)) == ("draw", None)
    assert rules.outcome(state()) == ("draw", None)


def test_a_lean_session_refuses_a_forged_die_in_one_line_as_a_session_does():
    from combatlog.engine import Refused
    from combatlog.engine.dice import RecordedDice
    from combatlog.events import DiceRolled

    forged = DiceRolled(expression="1d20+3", faces=(25,), total=28, purpose="initiative", source="entered")
    refusals = []
    for session in (new_session(seed=7), LeanSession()):
        if isinstance(session, LeanSession):
            for command in _commands(new_session(seed=7)):
                session.execute(command)
        try:
            session.execute(Command(kind="begin"), RecordedDice([forged]))
        except Refused as exc:
            refusals.append(str(exc))
    assert len(refusals) == 2 and refusals[0] == refusals[1]
    assert "shows 25, which a d20 can't show" in refusals[0]


def test_only_damage_above_zero_or_a_defeat_counts_as_hurting_someone():
    """The stall rule counts rounds in which no one was hurt: a hit for 0 (all absorbed) isn't one."""
    from combatlog.events import CombatantDefeated, DamageApplied, Note

    lean = LeanSession()
    assert not lean.hurt([DamageApplied(target="g1", amount=0), Note(text="a graze")])
    assert not lean.hurt([DamageApplied(target="g1", amount=-2)])  # healed
    assert lean.hurt([Note(text="..."), DamageApplied(target="g1", amount=1)])
    assert lean.hurt([CombatantDefeated(combatant="g1", how="down")])
