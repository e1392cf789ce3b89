"""A combatant's stats and an encounter's options, typed once by the fold and kept on the state.

The fold makes each rule system's model when `CombatantAdded` and `EncounterCreated` are
folded, leniently, so that a log an older release wrote (a stat the model no longer knows, a
value that no longer converts) still loads; what was recorded stays beside the model.
"""

from __future__ import annotations

import msgspec

from combatlog.engine.rules.skirmish.model import Options, Stats
from combatlog.engine.typed import DiceExpr, lenient
from combatlog.events import CombatantAdded, EncounterCreated
from combatlog.projections import Projection
from combatlog.projections.fold import apply, typed_state
from combatlog.projections.state import Encounter

from .builders import new_session


def _folded(stats: dict, options: dict | None = None) -> Encounter:
    state = apply(Encounter(), EncounterCreated(rules="skirmish", rules_version="3", options=options or {}))
    return apply(state, CombatantAdded(id="g1", name="Goblin", side="goblins", stats=stats))


def test_a_combatant_added_holds_its_stats_as_the_model_and_as_given():
    c = _folded({"hp": 7, "damage": "1d4"}).combatants["g1"]
    assert c.stats == Stats(hp=7, damage=DiceExpr("1d4"))
    assert (c.stats.defense, c.stats.attack) == (10, 0)  # the model's defaults, written once
    assert c.given_stats == {"hp": 7, "damage": "1d4"}


def test_an_encounters_options_are_the_model_with_every_default_and_as_recorded():
    state = _folded({"hp": 7}, {"order": "action-points"})
    assert state.options == Options(order="action-points")
    assert state.options.ties == "standard"
    assert state.given_options == {"order": "action-points"}


def test_a_stat_an_older_release_recorded_that_the_model_does_not_know_is_left_out():
    c = _folded({"hp": 7, "morale": 9}).combatants["g1"]
    assert c.stats == Stats(hp=7)
    assert c.given_stats == {"hp": 7, "morale": 9}


def test_a_stat_that_no_longer_converts_takes_the_models_default_and_the_rest_stays():
    c = _folded({"hp": 7, "attack": 3, "damage": "2q6"}).combatants["g1"]
    assert (c.stats.hp, c.stats.attack, c.stats.damage) == (7, 3, "1d6")


def test_stats_missing_a_required_stat_still_fold_and_stay_as_given():
    c = _folded({"attack": 3}).combatants["g1"]
    assert c.stats == {"attack": 3} == c.given_stats


def test_the_lenient_conversion_never_raises_on_what_a_log_holds():
    convert = lenient(Stats)
    assert convert(["not", "a", "table"]) == ["not", "a", "table"]
    assert convert({"hp": "seven"}) == {"hp": "seven"}


def test_a_state_as_recorded_has_the_stats_and_options_as_given_and_nothing_of_the_models():
    recorded = msgspec.to_builtins(_folded({"hp": 7, "damage": "1d4"}, {"order": "reverse"}).as_recorded())
    assert recorded["options"] == {"order": "reverse"}
    assert recorded["combatants"]["g1"]["stats"] == {"hp": 7, "damage": "1d4"}
    assert "given_stats" not in recorded["combatants"]["g1"] and "given_options" not in recorded


def test_a_snapshot_read_back_from_bytes_makes_the_models_again_from_what_was_recorded():
    s = new_session(begin=True)
    snap = s.projection.snapshot()
    back = msgspec.msgpack.decode(msgspec.msgpack.encode(snap, enc_hook=str), type=type(snap))
    assert type(next(iter(back.state.combatants.values())).stats) is dict  # plain data until typed
    assert typed_state(back.state) == s.state
    assert Projection(back).state == s.state
