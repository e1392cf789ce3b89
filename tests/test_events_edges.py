"""The events layer's small helpers, at their edges: a lost race's message, who may read a private
event, the schema's definition names, and a chain of upcasters.

Each test here fails against a mutant of `events/log.py`, `events/privacy.py`,
`events/schema.py` or `events/upcast.py` that the rest of the suite let through
(docs/mutation.md).
"""

from __future__ import annotations

import pytest

from combatlog.events import DiceRolled, Note
from combatlog.events import upcast as upcast_module
from combatlog.events.log import someone_else
from combatlog.events.privacy import GM, NOBODY, TABLE, GameMaster, Seat, owner_of, redact
from combatlog.events.schema import json_schema
from combatlog.events.upcast import register_upcaster, upcast

# --- a writer that lost the race ------------------------------------------------------------------------


def test_a_lost_race_names_the_one_seq_or_the_seqs_someone_else_added():
    assert someone_else("fight.db", 5, 6).startswith("fight.db: someone else added steps (seq 5) since")
    assert someone_else("fight.db", 5, 9).startswith("fight.db: someone else added steps (seqs 5-8) since")
    assert someone_else("fight.db", 5, 3) == (
        "fight.db: the log now ends before seq 5 (its next is 3): "
        "cut or replaced since it was read; nothing was applied"
    )


# --- private events ------------------------------------------------------------------------------------------

SIDES = {"ayla": "party", "g1": "goblins"}.get


def _secret() -> DiceRolled:
    return DiceRolled(expression="1d20", faces=(17,), total=17, purpose="stealth", private_to="ayla")


def test_a_private_event_is_whole_for_the_game_master_and_its_owners_side_and_redacted_for_the_rest():
    secret = _secret()
    assert redact(secret, GM, SIDES) is secret
    assert redact(secret, Seat(sides=frozenset({"party"})), SIDES) is secret
    assert redact(secret, Seat(combatants=frozenset({"ayla"})), SIDES) is secret
    assert redact(secret, Seat(sides=frozenset({"goblins"})), SIDES) == secret.redacted()
    assert redact(secret, Seat(combatants=frozenset({"g1"})), SIDES) == secret.redacted()
    assert redact(secret, NOBODY, SIDES) == secret.redacted()
    assert NOBODY is TABLE and not NOBODY.may_see("ayla", SIDES)


def test_a_public_event_has_no_owner_and_is_whole_for_everyone():
    note = Note(text="the bridge holds")
    assert owner_of(note) is None and owner_of(_secret()) == "ayla"
    assert redact(note, NOBODY, SIDES) is note


def test_viewers_are_values_that_can_key_a_cache_of_views():
    views = {GM: "everything", Seat(sides=frozenset({"party"})): "the party's", TABLE: "the table's"}
    assert views[GameMaster()] == "everything"
    assert views[Seat(sides=frozenset({"party"}))] == "the party's"
    assert Seat(combatants=frozenset({"bo"})) not in views


# --- the schema ------------------------------------------------------------------------------------------------


def test_the_schemas_definitions_have_short_names_that_every_reference_finds():
    import json
    import re

    schema = json_schema()
    defs = schema["$defs"]
    assert schema["$ref"] == "#/$defs/Envelope"
    assert {"Envelope", "Note", "DiceRolled"} <= set(defs)
    assert all("[" not in name and len(name) <= 60 for name in defs)
    refs = set(re.findall(r'"#/\$defs/([^"]+)"', json.dumps(schema)))
    assert refs and refs <= set(defs)


# --- upcasters ----------------------------------------------------------------------------------------------------


def test_an_old_shape_runs_every_upcaster_up_to_today_in_order_and_a_gap_names_its_step(monkeypatch):
    monkeypatch.setattr(upcast_module, "_upcasters", {})
    register_upcaster("Probe", 1, lambda d: {**d, "steps": [*d.get("steps", []), "1->2"]})
    register_upcaster("Probe", 2, lambda d: {**d, "steps": [*d["steps"], "2->3"]})
    assert upcast("Probe", 1, 3, {"type": "Probe"})["steps"] == ["1->2", "2->3"]
    assert upcast("Probe", 3, 3, {"type": "Probe"}) == {"type": "Probe"}
    with pytest.raises(LookupError, match="^no upcaster for Probe from version 3 to 4$"):
        upcast("Probe", 1, 4, {"type": "Probe"})
    with pytest.raises(ValueError, match="already has an upcaster from version 1"):
        register_upcaster("Probe", 1, lambda d: d)


def test_a_long_or_generic_definition_name_is_cut_to_its_first_word_without_taking_another_ones():
    from combatlog.events.schema import _short_names

    at_most = "A" * 60
    too_long = "Envelope_" + "B" * 52
    schema = {
        "$ref": f"#/$defs/{too_long}",
        "$defs": {at_most: {"type": "object"}, too_long: {"type": "object"}, "Envelope": {"type": "string"}},
    }
    short = _short_names(schema)
    assert set(short["$defs"]) == {at_most, "Envelope", "Envelope_"}
    assert short["$ref"] == "#/$defs/Envelope_" and short["$defs"]["Envelope"] == {"type": "string"}
