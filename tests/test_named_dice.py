"""Dice given for a named roll (`damage by bo: 6`): which roll a name names, where named dice go
beside typed and seeded ones, and what a name that names no roll, or a roll no one named, says."""

from __future__ import annotations

import pytest

from combatlog.engine import Refused, ScriptedDice
from combatlog.engine.rollnames import read_name, split_named
from combatlog.events import Command, DiceRolled
from combatlog.replays.audit import audit
from tests.builders import PARTY, lines, new_session

AYLA, BO, G1, G2 = PARTY
INITIATIVE = {"ayla": 15, "bo": 3, "g1": 4, "g2": 2}  # ayla 18, g1 6, bo 4, g2 4: ayla first


@pytest.mark.parametrize(
    ("name", "purpose", "by", "names"),
    [
        ("damage by bo", "strike damage to g1", "bo", True),
        ("damage by bo", "strike damage to g1", "ayla", False),  # another's
        ("strike at g1 by ayla", "strike at g1", "ayla", True),
        ("strike at g2 by ayla", "strike at g1", "ayla", False),
        ("Strike AT g1 by AYLA", "strike at g1", "ayla", True),  # any case
        ("strike g1", "strike at g1", "bo", True),  # other words may come between; anyone's
        ("g1 strike", "strike at g1", "bo", False),  # but in the purpose's order
        ("strik", "strike at g1", "bo", False),  # whole words
        ("by bo", "initiative", "bo", True),  # Bo's next roll, whatever it is for
        ("acrobatics by gm", "the game master's Acrobatics", None, True),  # no combatant's
        ("acrobatics by gm", "Acrobatics: a jump", "vela", False),
        ("need 40", "longsword at b3 (need 40 or less)", "aldric", True),
    ],
)
def test_a_name_is_words_of_the_rolls_purpose_in_order_and_who_rolls_it(name, purpose, by, names):
    found = read_name(name)
    assert found is not None and found.names(purpose, by) is names


@pytest.mark.parametrize("label", ["", "  ", "1d8", "2d10z", "(1d20+5)*2", "d%"])
def test_a_label_that_reads_as_dice_names_the_dice_not_a_roll(label):
    assert read_name(label) is None


def test_only_the_labels_that_name_a_roll_are_taken_from_the_typed_rolls():
    named, rest, labels = split_named(((5,), (7, 9), (2,)), ("damage by bo", "2d10", ""))
    assert [(n.text, f) for n, f in named] == [("damage by bo", (5,))]
    assert rest == ((7, 9), (2,)) and labels == ("2d10", "")
    assert split_named(((5,),), ("1d8",)) == ([], ((5,),), ("1d8",))
    assert split_named(((5,),), ("damage by bo",))[1:] == (None, None)


def _begun(seed=None, **options):
    s = new_session(seed=seed, **options)
    names = tuple(f"initiative by {cid}" for cid in reversed(s.state.combatants))  # given in any order
    s.do("begin", entered=tuple((INITIATIVE[n.split()[-1]],) for n in names), entered_for=names)
    return s


def _rolls(envelopes):
    rolled = [e.event for e in envelopes if type(e.event) is DiceRolled]
    return [(r.purpose, r.by, r.faces, r.source) for r in rolled]


def test_named_dice_go_to_the_roll_they_name_whatever_the_order_they_were_given_in():
    s = _begun()
    assert s.state.order == (("ayla",), ("g1",), ("bo",), ("g2",))  # bo and g2 tie at 4: PCs first
    out = s.do(
        "act", actor="ayla", action="strike", targets=("g1",), entered=((5,), (17,)), entered_for=("damage", "strike")
    )
    assert _rolls(out) == [
        ("strike at g1", "ayla", (17,), "entered"),
        ("strike damage to g1", "ayla", (5,), "entered"),
    ]
    assert audit(s.log, workers=1).clean


def test_in_a_simultaneous_round_each_combatants_dice_go_to_its_own_rolls():
    # g1 declares last, which resolves both strikes: dice typed in order would go to Ayla's
    # strike first; named, g1's 19 goes to g1's strike whichever resolves first
    s = _begun(timing="simultaneous", combatants=[AYLA, G1])
    s.do("act", actor="ayla", action="strike", targets=("g1",))
    out = s.do(
        "act",
        actor="g1",
        action="strike",
        targets=("ayla",),
        entered=((19,), (4,), (15,), (8,)),
        entered_for=("strike by g1", "damage by g1", "strike by ayla", "damage by ayla"),
    )
    assert _rolls(out) == [
        ("strike at g1", "ayla", (15,), "entered"),
        ("strike damage to g1", "ayla", (8,), "entered"),
        ("strike at ayla", "g1", (19,), "entered"),
        ("strike damage to ayla", "g1", (4,), "entered"),
    ]


def test_typed_rolls_without_a_name_go_in_order_beside_the_named_ones():
    s = _begun()
    out = s.do("act", actor="ayla", action="strike", targets=("g1",), entered=((5,), (17,)), entered_for=("damage", ""))
    assert [r[2] for r in _rolls(out)] == [(17,), (5,)]


def test_in_a_seeded_encounter_the_engine_rolls_what_no_name_names():
    s = _begun(seed=3)
    out = s.do("act", actor="ayla", action="strike", targets=("g1",), entered=((20,),), entered_for=("strike by ayla",))
    assert [(r[2], r[3]) for r in _rolls(out)][0] == ((20,), "entered")
    assert _rolls(out)[1][3] == "engine"
    assert audit(s.log, workers=1).clean


def test_a_name_that_names_no_roll_is_refused_naming_it_and_the_rolls_asked_and_nothing_is_appended():
    s = _begun()
    before = lines(s)
    with pytest.raises(Refused) as err:
        s.do(
            "act",
            actor="ayla",
            action="strike",
            targets=("g1",),
            entered=((2,), (6,)),
            entered_for=("strike by ayla", "damage by bo"),
        )
    assert str(err.value) == (
        "act: 'damage by bo: 6' went to no roll; it rolled 1d20+4 (strike at g1) by ayla; name a roll by "
        "words of what it is for and who rolls it, as 'strike at g1 by ayla: N'"
    )
    assert lines(s) == before


def test_a_roll_no_dice_named_is_refused_naming_it_and_the_dice_given():
    s = _begun()
    with pytest.raises(Refused) as err:
        s.do("act", actor="ayla", action="strike", targets=("g1",), entered=((5,),), entered_for=("damage by ayla",))
    assert str(err.value) == (
        "act: no dice were given for 1d20+4 (strike at g1) by ayla; name it, as 'strike at g1 by ayla: N'; "
        "given: 'damage by ayla: 5'"
    )


def test_named_faces_that_dont_fit_the_roll_are_refused_naming_both():
    s = _begun()
    with pytest.raises(Refused, match=r"'strike by ayla: 21': 21 can't come up on a d20; 1d20\+4 \(strike at g1\)"):
        s.do("act", actor="ayla", action="strike", targets=("g1",), entered=((21,),), entered_for=("strike by ayla",))


def test_a_named_roll_survives_an_undo_and_a_redo_with_the_same_dice():
    s = _begun()
    s.do("act", actor="ayla", action="strike", targets=("g1",), entered=((17,), (5,)), entered_for=("strike", "damage"))
    after = s.state
    s.undo()
    s.redo()
    assert s.state == after


def test_dice_typed_without_names_still_go_to_the_first_rolls_that_match():
    s = new_session(seed=None, timing="simultaneous", combatants=[AYLA, G1])
    s.execute(Command(kind="begin"), dice=ScriptedDice([15, 4]))
    s.do("act", actor="ayla", action="strike", targets=("g1",))
    out = s.do("act", actor="g1", action="strike", targets=("ayla",), entered=((19,), (4,), (15,), (6,)))
    assert [r[1:3] for r in _rolls(out)] == [("ayla", (19,)), ("ayla", (4,)), ("g1", (15,)), ("g1", (6,))]


def test_a_refusal_lists_the_dice_typed_without_a_name_too_and_the_roll_each_went_to():
    """Typed dice without a name go to the rolls they match, in order: when a later roll finds
    none, the refusal lists them beside the named ones, each with the roll that took it, so the
    game master sees that the 18 meant for Bo went to Ayla's attack."""
    s = _begun()
    with pytest.raises(Refused) as err:
        s.do("act", actor="ayla", action="strike", targets=("g1",), entered=((18,), (5,)), entered_for=("", "by g2"))
    assert str(err.value) == (
        "act: no dice were given for 1d8 (strike damage to g1) by ayla; name it, as 'strike damage to g1 by ayla: N'; "
        "given: 'by g2: 5', '18' (to 1d20+4 (strike at g1) by ayla)"
    )
