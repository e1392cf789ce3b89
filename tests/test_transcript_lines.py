"""The transcript's lines, event by event: what a reader of a fight's story sees (and, with
`dice`, every roll), told at its step's end, in the order the table lived it."""

from __future__ import annotations

from combatlog.engine import Session
from combatlog.replays.transcript import render, tell, transcript
from tests.builders import fighter, new_session


def lines(session: Session, dice: bool = False) -> list[str]:
    return [text for _, text in transcript(session.log, dice=dice)]


def after(session: Session, mark: int, dice: bool = False) -> list[str]:
    """The lines told for the events after seq `mark`."""
    return [text for seq, text in transcript(session.log, dice=dice) if seq > mark]


def test_surprise_is_told_either_way():
    s = new_session()
    mark = s.log.head()[0]
    s.do("surprise", sides=[])
    assert "No one is surprised." in after(s, mark)
    other = new_session()
    mark = other.log.head()[0]
    other.do("surprise", sides=["goblins"])
    assert "Surprised: goblins." in after(other, mark)


def test_the_players_view_a_ruling_and_an_override_read_as_said():
    s = new_session(begin=True)
    mark = s.log.head()[0]
    s.do("view", side="goblins", hp="level")
    s.do("view", side="party", hp="hidden")
    s.do("view", combatant="g1", hidden=True)
    s.do("view", combatant="g1", hidden=False)
    s.do("ruling", topic="cover", decision="half", text="behind the cart")
    s.do("ruling", topic="light", decision="dim")
    told = after(s, mark)
    assert told == [
        "Players' view: goblins's health shown as levels.",
        "Players' view: party's health shown hidden.",
        "Players' view: Goblin 1 hidden.",
        "Players' view: Goblin 1 shown.",
        "GM ruling (cover): half - behind the cart",
        "GM ruling (light): dim",
    ]


def test_damage_a_recovery_and_a_location_are_told_with_the_name():
    s = new_session(begin=True)
    mark = s.log.head()[0]
    s.do("override", reason="a falling beam", damage={"target": "g1", "amount": 3})
    s.do("override", reason="a potion", damage={"target": "g1", "amount": -2})
    told = after(s, mark)
    assert "  Goblin 1 takes 3 damage." in told
    assert "  Goblin 1 recovers 2." in told
    assert not any("recovers -" in line or "takes -" in line for line in told)


def test_with_dice_every_roll_is_told_and_a_typed_one_says_so():
    s = new_session(begin=True)
    actor = s.state.acting[0]
    target = next(c.id for c in s.state.active() if c.side != s.state.combatants[actor].side)
    mark = s.log.head()[0]
    s.do("act", actor=actor, action="strike", targets=(target,), entered=((20,), (6,)))
    name = s.state.combatants[actor].name
    rolls = [line for line in after(s, mark, dice=True) if line.startswith(f"  {name}: ")]
    assert len(rolls) == 2 and all(line.endswith(" (entered)") for line in rolls), rolls
    assert "[20]" in rolls[0] and "[6]" in rolls[1]
    assert not any(" [" in line for line in after(s, mark))  # without dice, no roll is told
    engine = [line for line in lines(s, dice=True) if " = " in line and "initiative" in line]
    assert engine and not any(line.endswith("(entered)") for line in engine)  # the engine's own


def test_held_damage_is_told_at_the_round_s_end_and_with_dice_as_held():
    s = new_session(begin=True, timing="simultaneous")
    for _ in range(12):
        if s.state.phase == "end":
            break
        s.auto()
    told_dice, told = lines(s, dice=True), lines(s)
    held = [line for line in told_dice if line.endswith(", held to the round's end.")]
    assert held, told_dice
    assert not any("held to the round's end" in line for line in told)  # told once it lands
    assert any(" damage." in line for line in told)


def test_a_secret_roll_is_told_as_secret_to_a_viewer_without_its_faces():
    from pathlib import Path

    from combatlog.engine.encounter_file import read_encounter
    from combatlog.events.privacy import NOBODY
    from combatlog.replays import MemoryLog

    s = Session(MemoryLog())
    for command in read_encounter(Path(__file__).resolve().parents[1] / "examples" / "triptycho-cistern.toml"):
        s.execute(command)
    s.do("begin")
    shared = [t for _, t in transcript(s.log, dice=True, viewer=NOBODY)]
    secret = [t for t in shared if "rolls in secret (draws a card)" in t]
    assert secret and all(" [" not in t for t in secret)
    gm = [t for _, t in transcript(s.log, dice=True)]
    assert not any("in secret" in t for t in gm) and any("draws a card" in t and " [" in t for t in gm)


def _envelopes(s: Session):
    from combatlog.projections import envelopes

    return envelopes(s.log)


def test_a_live_stream_without_its_log_is_told_the_same():
    s = new_session(begin=True)
    for _ in range(5):
        s.auto()
    assert list(tell(_envelopes(s))) == list(transcript(s.log))


def test_markdown_keeps_a_name_s_quotes_and_escapes_its_markup():
    roster = [fighter("q1", "x", name='Old "Red" <b>', hp=5), fighter("q2", "y", hp=5)]
    s = new_session(combatants=roster)
    md = "\n".join(render(lines(s), fmt="markdown"))
    assert 'Old "Red" &lt;b&gt;' in md


def test_nothing_is_zero_damage_recovered():
    s = new_session(begin=True)
    mark = s.log.head()[0]
    s.do("override", reason="a glancing blow", damage={"target": "g1", "amount": 0})
    assert "  Goblin 1 takes 0 damage." in after(s, mark)


def _simultaneous(rounds: int = 6) -> Session:
    s = new_session(begin=True, timing="simultaneous")
    for _ in range(rounds):
        if s.state.phase == "end":
            break
        s.auto()
    return s


def test_simultaneous_actions_are_told_declared_then_resolved_then_their_damage_in_seq_order():
    from combatlog.events import ActionDeclared, DamageApplied
    from combatlog.projections import envelopes

    s = _simultaneous()
    told = list(transcript(s.log))
    seqs = [seq for seq, _ in told]
    assert all(type(seq) is int for seq in seqs) and seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    events = {e.seq: e.event for e in envelopes(s.log)}
    declared = [(seq, text) for seq, text in told if text.endswith("(declared).")]
    assert declared and all(type(events[seq]) is ActionDeclared for seq, _ in declared)
    damage = [seq for seq, text in told if text.endswith(" damage.")]
    assert damage and all(type(events[seq]) is DamageApplied for seq in damage)
    first_round = [text for _, text in told][: [t for _, t in told].index("Round 2.")]
    resolved = [i for i, t in enumerate(first_round) if ": hit" in t or ": miss" in t]
    hurt = [i for i, t in enumerate(first_round) if t.endswith(" damage.")]
    assert resolved and hurt and max(resolved) < min(hurt)  # held to the round's end, told after


def test_a_live_simultaneous_fight_is_told_step_by_step_by_each_step_s_end():
    from combatlog.projections import envelopes

    s = _simultaneous(10)
    stream = list(envelopes(s.log))
    fed = 0

    def feed():
        nonlocal fed
        for envelope in stream:
            fed += 1
            yield envelope

    last_of_step = {}
    for e in stream:
        last_of_step[e.step] = e.seq
    step_of = {e.seq: e.step for e in stream}
    told = [(seq, text, fed) for seq, text in tell(feed(), log=s.log)]
    assert [(seq, text) for seq, text, _ in told] == list(transcript(s.log))
    for seq, text, fed_then in told:  # nothing waits for a later step to be read
        assert fed_then <= last_of_step[step_of[seq]] or text.endswith("(declared)."), (seq, text)


def test_a_recovery_of_one_is_a_recovery():
    s = new_session(begin=True)
    mark = s.log.head()[0]
    s.do("override", reason="a bandage", damage={"target": "g1", "amount": -1})
    assert after(s, mark) == ["GM override: a bandage (damage).", "  Goblin 1 recovers 1."]


def test_each_declaration_names_its_own_actor_and_one_left_open_at_the_end_is_told():
    from combatlog.events import ActionDeclared
    from combatlog.projections import envelopes

    s = _simultaneous()
    events = {e.seq: e.event for e in envelopes(s.log)}
    names = {cid: c.name for cid, c in s.state.combatants.items()}
    told = list(transcript(s.log))
    declared = [(seq, text) for seq, text in told if text.endswith("(declared).")]
    assert declared and all(text.startswith(names[events[seq].actor] + " ") for seq, text in declared)
    last = max(seq for seq, e in events.items() if type(e) is ActionDeclared)
    cut = list(transcript(s.log, stop=last))  # the log read up to a declaration not yet resolved
    assert cut[-1][0] == last and cut[-1][1].startswith(names[events[last].actor] + " ") and cut[-1][1].endswith(".")


def test_undos_deeper_than_the_kept_history_are_told_from_the_log(monkeypatch):
    from combatlog.projections import Projection

    monkeypatch.setattr(Projection, "KEEP", 1)
    monkeypatch.setattr(Projection, "MARK_EVERY", 1 << 20)  # no marks: from the log's start
    s = new_session(begin=True)
    for _ in range(4):
        s.auto()
    steps = list(s.projection.undo[-3:])
    for _ in range(3):
        s.undo()
    told = [text for _, text in transcript(s.log)]
    assert [t for t in told if t.startswith("Undone: ")] == [f"Undone: step {n}." for n in reversed(steps)]


def test_an_action_resolved_in_its_own_turn_is_one_line_at_its_declaration_then_what_it_did():
    from combatlog.events import ActionDeclared, ActionResolved, DamageApplied
    from combatlog.projections import envelopes

    s = new_session(begin=True)
    mark = s.log.head()[0]
    s.auto()
    events = [(e.seq, e.event) for e in envelopes(s.log) if e.seq > mark]
    declared = next(seq for seq, e in events if type(e) is ActionDeclared)
    outcome = next(e.outcome for _, e in events if type(e) is ActionResolved)
    hits = [(seq, e) for seq, e in events if type(e) is DamageApplied]
    actor = s.state.combatants[next(e for _, e in events if type(e) is ActionDeclared).actor].name
    told = [(seq, text) for seq, text in transcript(s.log) if seq > mark]
    assert told[0][1].startswith(f"{actor} strikes ")
    assert told[0][0] == declared and told[0][1].endswith(f": {outcome}.") and "(declared)" not in told[0][1]
    assert [seq for seq, _ in told[1 : 1 + len(hits)]] == [seq for seq, _ in hits]  # then what it did, in order


# --- damage held until a tier ends is told under the tier that dealt it ----------------------


def _straalara_blow_that_incapacitates():
    """Straalara: a (score 15) hits b (8) for 3 health levels, past b's one level; b's attack,
    in the next tier, is lost (tests/test_straalara.py)."""
    from tests.test_straalara import NO, attack, begin, f, st

    s = st(f("a", "x"), f("b", "y"), health_levels=[{"name": "Hurt", "penalty": -1}])
    begin(s, 10, 3)
    attack(s, "b", "a", stance="partial", defense="none")
    attack(s, "a", "b", stance="partial", faces=(9, 9, 2, 2, 2, 2) + (7, 7, 7, 2, 2) + NO * 3)
    return s


TIER_TOLD = [
    "A attacks B: 2 successes; damage 5 dice: 3 − 0 soaked = 3 health levels.",
    "  B takes 3 damage.",
    "  B is incapacitated.",
    "B attacks A: lost: B is incapacitated.",
    "The encounter ends: victory, won by x.",
]


def test_a_tier_s_damage_is_told_under_its_action_not_the_next_tier_s():
    s = _straalara_blow_that_incapacitates()
    told = list(transcript(s.log))
    assert [text for _, text in told][-5:] == TIER_TOLD
    seqs = [seq for seq, _ in told[-5:]]
    assert seqs[1:3] == sorted(seqs[1:3]) and seqs[2] < seqs[3]  # each line at its own event


def test_markdown_and_html_put_a_tier_s_damage_under_its_action_too():
    s = _straalara_blow_that_incapacitates()
    md = list(render(lines(s), fmt="markdown"))
    assert md[-5:] == [
        "- A attacks B: 2 successes; damage 5 dice: 3 − 0 soaked = 3 health levels.",
        "  - B takes 3 damage.",
        "  - B is incapacitated.",
        "- B attacks A: lost: B is incapacitated.",
        "- The encounter ends: victory, won by x.",
    ]
    page = list(render(lines(s), fmt="html"))
    at = page.index("<p>A attacks B: 2 successes; damage 5 dice: 3 − 0 soaked = 3 health levels.</p>")
    assert page[at + 1 : at + 4] == [
        '<p class="detail">B takes 3 damage.</p>',
        '<p class="detail">B is incapacitated.</p>',
        "<p>B attacks A: lost: B is incapacitated.</p>",
    ]


def test_with_dice_damage_held_for_a_tier_says_so_and_is_told_again_where_it_counts():
    s = _straalara_blow_that_incapacitates()
    told = lines(s, dice=True)
    held = told.index("  B takes 3 damage, held until its tier has acted.")
    assert told[held + 1].startswith("  -> 2 successes") and told[held + 2] == "  B takes 3 damage."
    assert not any("held to the round's end" in line for line in told)


def test_a_tier_of_two_is_told_whole_then_its_damage_then_the_next_tier():
    from tests.test_straalara import attack, begin, defend, f, st

    track = [{"name": "Hurt", "penalty": -1}, {"name": "Crippled", "penalty": -5}]
    s = st(f("a", "x"), f("b", "y"), f("c", "x", wits=1), health_levels=track)
    begin(s, 5, 5, 1)  # a and b 10, one tier; c 5
    defend(s, "c", defense="none")
    attack(s, "a", "b", defense="none")
    hit, damage, soak = (8, 8, 8, 2, 2, 2), (7, 7, 7, 2, 2, 2), (2, 2, 2)
    attack(s, "b", "a", defense="none", faces=hit + damage + soak + hit + damage + soak)
    told = lines(s)
    first = next(i for i, line in enumerate(told) if line.startswith("A attacks B: "))
    assert told[first + 1].startswith("B attacks A: ")
    assert told[first + 2 : first + 4] == ["  B takes 3 damage.", "  A takes 3 damage."]
    assert told[first + 4 : first + 6] == ["  A is incapacitated.", "  B is incapacitated."] or told[
        first + 4 : first + 6
    ] == ["  B is incapacitated.", "  A is incapacitated."]
    assert told[first + 6].startswith("C ")
