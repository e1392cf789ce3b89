"""Order and timing strategies, each rule on its own: names, refusals, who declares, who acts next."""

from __future__ import annotations

import dataclasses

import msgspec
import pytest

from combatlog.engine import DiceError, ScriptedDice, make_timing
from combatlog.engine.order import ActionPointOrder, Entry, make_order, rank
from combatlog.engine.timing import Timing
from combatlog.events import Command, DiceRolled, InitiativeRolled
from tests import builders
from tests.builders import PARTY, new_session

AYLA, BO, G1, G2 = PARTY


# --- timing ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("timing", "name"),
    [
        (make_timing("turn"), "turn"),
        (make_timing("simultaneous"), "simultaneous"),
        (make_timing("mixed", {"movement": "turn", "shooting": "simultaneous"}), "mixed"),
        (make_timing("mixed", {"melee": "simultaneous"}), "mixed"),
        (make_timing("mixed", {"movement": "turn"}), "turn"),
        (Timing(default="simultaneous", per_category={"melee": "simultaneous"}), "simultaneous"),
    ],
)
def test_a_timing_is_named_by_how_its_categories_resolve(timing, name):
    assert timing.name == name


def test_a_timing_with_every_category_simultaneous_but_turn_by_default_is_mixed():
    # uncategorised actions still resolve at once: not every action waits for the round's end
    per = {c: "simultaneous" for c in ("movement", "shooting", "melee")}
    assert make_timing("mixed", per).name == "mixed"
    assert Timing(default="simultaneous", per_category=per).name == "simultaneous"


@pytest.mark.parametrize(
    ("timing", "immediate"),
    [
        (make_timing("turn"), True),
        (make_timing("simultaneous"), False),
        (make_timing("mixed", {"movement": "turn"}), True),
        (make_timing("mixed", {"melee": "simultaneous"}), False),
        (Timing(default="simultaneous", per_category={"melee": "turn"}), False),
    ],
)
def test_only_a_timing_turn_based_throughout_resolves_every_action_as_declared(timing, immediate):
    assert timing.all_immediate is immediate


@pytest.mark.parametrize(("kind", "declaring"), [("turn", False), ("simultaneous", True), ("mixed", True)])
def test_a_turn_declares_unless_every_action_resolves_at_once(kind, declaring):
    s = new_session(timing=kind, begin=True)
    assert s.state.acting
    assert s.state.declaring is declaring


@pytest.mark.parametrize(
    "build",
    [
        lambda: Timing(default="sometimes"),
        lambda: Timing(per_category={"melee": "sometimes"}),
        lambda: Timing(default="turn", per_category={"movement": "turn", "shooting": "later"}),
    ],
)
def test_an_unknown_mode_is_refused_naming_it(build):
    with pytest.raises(ValueError, match="unknown timing '(sometimes|later)'; use turn or simultaneous"):
        build()


def test_a_mixed_timing_refuses_a_category_it_does_not_know():
    with pytest.raises(ValueError, match="unknown category 'magic'; use movement, shooting or melee"):
        make_timing("mixed", {"melee": "turn", "magic": "simultaneous"})


def test_a_timing_is_frozen_so_one_shared_by_every_encounter_cannot_be_changed():
    timing = make_timing("turn")
    with pytest.raises(dataclasses.FrozenInstanceError):
        timing.default = "simultaneous"  # type: ignore[misc]
    assert timing.all_immediate


def _begin(session, faces):
    return session.execute(Command(kind="begin"), dice=ScriptedDice(faces))


# --- initiative and its ties ------------------------------------------------------------


def _rolled(out, cls):
    return [e.event for e in out if isinstance(e.event, cls)]


def test_without_group_initiative_a_grouped_npc_rolls_alone_and_its_roll_names_no_group():
    s = new_session(combatants=[AYLA, G1, G2])
    out = _begin(s, [10, 4, 9])
    rolls = _rolled(out, InitiativeRolled)
    assert [(r.combatants, r.group) for r in rolls] == [(("ayla",), None), (("g1",), None), (("g2",), None)]


def test_a_group_rolls_once_with_its_first_members_initiative_and_that_member_rolls_it():
    g1 = {**G1, "stats": {**G1["stats"], "init": 5}}
    g2 = {**G2, "stats": {**G2["stats"], "init": -3}}
    s = new_session(combatants=[AYLA, g1, g2], group_initiative=True)
    out = _begin(s, [10, 4])  # ayla 10+3, the goblins 4+5 (g1's bonus, not g2's)
    rolls = _rolled(out, InitiativeRolled)
    assert [(r.combatants, r.value, r.group) for r in rolls] == [(("ayla",), 13, None), (("g1", "g2"), 9, "goblins")]
    dice = [r for r in _rolled(out, DiceRolled) if r.purpose == "initiative"]
    assert [d.by for d in dice] == ["ayla", "g1"]


def test_a_rule_system_whose_order_names_no_group_initiative_rolls_each_grouped_npc_alone():
    # Swords of Infinity's order is ranked without group initiative: wolves of one pack roll each
    base = {"vitality": 30, "dexterity": 40, "awareness": 30, "weapons": [{"name": "axe", "skill": 10, "power": 70}]}
    s = builders.encounter(
        "swords-of-infinity",
        builders.fighter("a", "A", defaults=base),
        builders.fighter("w1", "B", group="pack", defaults=base),
        builders.fighter("w2", "B", group="pack", defaults=base),
    )
    events = builders.forced(s, "begin", [10, 20, 30])  # three rolls, one each
    assert [e.combatants for e in events if isinstance(e, InitiativeRolled)] == [("a",), ("w1",), ("w2",)]


def test_equal_initiative_goes_to_the_higher_stat_a_tie_rule_names():
    base = {"vitality": 30, "dexterity": 40, "weapons": [{"name": "axe", "skill": 10, "power": 70}]}
    s = builders.encounter(
        "swords-of-infinity",
        builders.fighter("a", "A", awareness=30, defaults=base),
        builders.fighter("b", "B", awareness=35, defaults=base),
    )
    builders.forced(s, "begin", [10, 10])  # both roll 10: b's awareness is higher
    assert s.state.order == (("b",), ("a",))


class _Table:
    """What `rank` asks of a draft: rolls, with forced faces; records who rolled."""

    def __init__(self, faces):
        self.dice = ScriptedDice(faces)
        self.by = []

    def roll(self, expression, purpose, by=None):
        self.by.append(by)
        return self.dice.roll(expression, purpose, by)


def _entry(cid, value, *, pc=False, **stats):
    return Entry(ids=tuple(cid.split("+")), value=value, pc=pc, stats=stats)


def test_a_combatant_without_the_stat_a_tie_rule_names_counts_it_as_0():
    table = _Table([])
    entries = [_entry("low", 10, agility=-1), _entry("none", 10), _entry("high", 10, agility=1)]
    assert rank(table, entries, ["higher:agility"]) == (("high",), ("none",), ("low",))


def test_a_tie_rules_stat_is_everything_after_its_first_colon():
    table = _Table([])
    entries = [_entry("a", 10, **{"a:b": 1, "a": 9}), _entry("b", 10, **{"a:b": 5, "a": 0})]
    assert rank(table, entries, ["higher:a:b"]) == (("b",), ("a",))


def test_a_roll_off_rule_rolls_everything_after_its_first_colon():
    with pytest.raises(DiceError):
        rank(_Table([1, 2]), [_entry("a", 10), _entry("b", 10)], ["rolloff:1d6:x"])


def test_pcs_first_puts_every_pc_ahead_of_every_npc_and_leaves_the_rest_tied():
    entries = [_entry("n1", 8), _entry("p1", 8, pc=True), _entry("n2", 8), _entry("p2", 8, pc=True)]
    assert rank(_Table([]), entries, ["pc_first"]) == (("p1", "p2"), ("n1", "n2"))


def test_a_group_in_a_roll_off_rolls_by_its_first_member():
    table = _Table([2, 5])
    tiers = rank(table, [_entry("g1+g2+g3", 12), _entry("ayla", 12)], ["rolloff:1d6"])
    assert tiers == (("ayla",), ("g1", "g2", "g3")) and table.by == ["g1", "ayla"]


def test_roll_offs_that_keep_tying_stop_after_50_and_leave_the_tied_sharing_a_tier():
    # 50 is what every recorded log was decided with: a re-decided log must ask for as many dice
    table = _Table([4] * 100)
    tiers = rank(table, [_entry("a", 12), _entry("b", 12), _entry("c", 15)], ["rolloff:1d6"])
    assert tiers == (("c",), ("a", "b"))
    assert table.dice.queue == [] and len(table.by) == 100


def test_a_roll_off_clear_at_the_50th_round_still_splits_the_tie():
    table = _Table([4] * 98 + [2, 5])
    tiers = rank(table, [_entry("a", 12), _entry("b", 12)], ["rolloff:1d6"])
    assert tiers == (("b",), ("a",)) and table.dice.queue == []


def test_three_tied_roll_off_until_each_is_clear_the_remaining_pair_again():
    table = _Table([3, 3, 1, 2, 6])  # a and b tie on 3 above c; then b beats a
    tiers = rank(table, [_entry("a", 9), _entry("b", 9), _entry("c", 9)], ["rolloff:1d6"])
    assert tiers == (("b",), ("a",), ("c",)) and table.dice.queue == []


# --- action points --------------------------------------------------------------------


def _ap_state(*who):
    """A skirmish under action points whose combatants have these (resources, initiative)."""
    s = new_session(order="action-points", combatants=[AYLA, BO, G1, G2][: len(who)])
    state = s.state
    combatants = dict(state.combatants)
    for cid, (resources, initiative) in zip(list(combatants), who):
        combatants[cid] = msgspec.structs.replace(combatants[cid], resources=resources, initiative=initiative)
    return msgspec.structs.replace(state, combatants=combatants)


def test_action_points_rank_the_most_left_first_then_initiative_then_the_order_added():
    state = _ap_state(({"ap": 2}, 5), ({"ap": 4}, 1), ({"ap": 2}, 9), ({"ap": 2}, 5))
    assert ActionPointOrder("ap").ranking(state) == ["bo", "g1", "ayla", "g2"]


def test_a_combatant_without_action_points_ranks_after_one_with_a_single_point():
    state = _ap_state(({}, 20), ({"ap": 1}, 1))
    order = ActionPointOrder("ap")
    assert order.ranking(state) == ["bo", "ayla"]
    assert order.next_actors(state, lambda c: True) == ("bo",)


def test_no_initiative_yet_counts_as_0_against_a_negative_or_a_positive_one():
    assert ActionPointOrder("ap").ranking(_ap_state(({"ap": 3}, None), ({"ap": 3}, 1))) == ["bo", "ayla"]
    assert ActionPointOrder("ap").ranking(_ap_state(({"ap": 3}, -1), ({"ap": 3}, None))) == ["bo", "ayla"]
    assert ActionPointOrder("ap").ranking(_ap_state(({"ap": 3}, -1), ({"ap": 3}, 0))) == ["bo", "ayla"]
    assert ActionPointOrder("ap").ranking(_ap_state(({"ap": 3}, 0), ({"ap": 3}, 1))) == ["bo", "ayla"]


def test_no_one_without_action_points_is_given_a_turn():
    state = _ap_state(({}, 20), ({"ap": 0}, 10))
    assert ActionPointOrder("ap").ranking(state) == ["ayla", "bo"]  # none left either way: initiative
    assert ActionPointOrder("ap").next_actors(state, lambda c: True) == ()


def test_a_tier_acting_together_starts_with_only_those_who_may_act_and_havent():
    from combatlog.engine.order import RankedOrder
    from combatlog.projections import Combatant, Encounter

    roster = {cid: Combatant(id=cid, name=cid, side=side) for cid, side in (("a", "x"), ("b", "y"), ("c", "x"))}
    state = Encounter(combatants=roster, order=(("a", "b"), ("c",)))
    everyone = lambda c: True
    assert RankedOrder().next_actors(state, everyone) == ("a", "b")
    assert RankedOrder().next_actors(state, lambda c: c.id != "b") == ("a",)
    assert RankedOrder().next_actors(msgspec.structs.replace(state, acted=("a",)), everyone) == ("b",)
    assert RankedOrder().next_actors(msgspec.structs.replace(state, acted=("a", "b")), everyone) == ("c",)
    reverse = make_order("reverse")
    assert reverse.next_actors(state, everyone) == ("c",)  # declared from the lowest tier up
