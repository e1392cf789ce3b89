"""The read model's values: what a new encounter stands at, what a snapshot of it keeps, and
how the players' view shows a side's health.

Each test here fails against a mutant of `projections/state.py` that the rest of the suite
let through (docs/mutation.md).
"""

from __future__ import annotations

import msgspec
import pytest

from combatlog.projections.state import Combatant, Condition, Encounter, Held, Pending, PlayerView


def test_a_new_encounter_stands_in_setup_at_round_0_in_the_first_pass_with_no_one_declaring():
    e = Encounter()
    assert (e.phase, e.round, e.action_pass, e.surprise_round, e.declaring) == ("setup", 0, 1, False, False)


@pytest.mark.parametrize(
    "value",
    [
        Encounter(),
        Combatant(id="g1", name="G", side="goblins"),
        Condition(name="prone"),
        Pending(id="3", actor="g1", action="strike"),
        Held(target="g1", amount=2),
        PlayerView(),
    ],
    ids=lambda v: type(v).__name__,
)
def test_a_state_value_is_frozen_and_encodes_only_what_differs_from_its_defaults(value):
    required = {
        f: getattr(value, f)
        for f in value.__struct_fields__
        if f in ("id", "name", "side", "actor", "action", "target", "amount")
    }
    assert msgspec.json.decode(msgspec.json.encode(value)) == required
    with pytest.raises(AttributeError):
        setattr(value, value.__struct_fields__[0], None)


def test_a_combatant_is_active_until_defeated_or_removed():
    c = Combatant(id="g1", name="G", side="goblins")
    assert c.active
    assert not msgspec.structs.replace(c, defeated="slain").active
    assert not msgspec.structs.replace(c, removed=True).active


def test_a_sides_health_shows_as_set_else_exact_with_a_player_character_and_as_a_level_without():
    state = Encounter(
        combatants={
            "ayla": Combatant(id="ayla", name="Ayla", side="party", kind="pc"),
            "g1": Combatant(id="g1", name="G", side="goblins"),
        }
    )
    view = PlayerView(hp={"goblins": "hidden"})
    assert view.hp_of(state, "goblins") == "hidden"
    assert view.hp_of(state, "party") == "exact"
    assert PlayerView().hp_of(state, "goblins") == "level"
    assert PlayerView(hp={"party": "level"}).hp_of(state, "party") == "level"
