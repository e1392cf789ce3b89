"""Events: codecs, the digest chain as the README specifies it, the schema, versions."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings

from combatlog.events import (
    GENESIS,
    DamageApplied,
    Event,
    canonical_bytes,
    decode_line,
    decode_msgpack,
    encode_msgpack,
    event_types,
    json_schema,
    register_event,
    register_upcaster,
    seal,
)
from combatlog.replays import JsonlLog
from combatlog.replays.audit import audit
from combatlog.replays.cursor import replay

from .strategies import any_event

FIXTURES = Path(__file__).parent / "fixtures"


@settings(max_examples=300)
@given(any_event())
def test_every_event_round_trips_through_the_json_line_and_msgpack_codecs(event):
    line, envelope = seal(GENESIS, 1, 1, event)
    assert decode_line(line) == envelope
    assert decode_line(line).event == event
    assert decode_msgpack(encode_msgpack(envelope)) == envelope


def test_every_event_type_is_frozen_tagged_and_versioned():
    for cls in event_types():
        config = cls.__struct_config__
        # core events and the first systems' are tagged by their class name; newer systems'
        # tags carry the system's name as a prefix (straalara.StanceDeclared)
        assert config.frozen and config.tag_field == "type"
        assert config.tag == cls.__name__ or config.tag.split(".")[-1] == cls.__name__ and "." in config.tag
        assert isinstance(cls.version, int) and cls.version >= 1


def test_an_event_cannot_be_changed_once_made():
    event = DamageApplied(target="a", amount=3)
    with pytest.raises(AttributeError):
        event.amount = 4  # type: ignore[misc]


def verify_like_the_readme(path: Path) -> int:
    """An independent verifier written from the README alone: stdlib json and hashlib only."""
    previous = "0" * 64
    count = 0
    for n, raw in enumerate(path.read_bytes().split(b"\n")[:-1], start=1):
        member = b',"digest":"'
        cut = raw.rindex(member)
        claimed = raw[cut + len(member) : -2].decode()
        canonical = raw[:cut] + b"}"
        assert json.loads(raw)["seq"] == n
        assert json.loads(raw)["digest"] == claimed
        assert hashlib.sha256(previous.encode() + canonical).hexdigest() == claimed, f"seq {n}"
        previous = claimed
        count += 1
    return count


def test_a_log_verifies_with_nothing_but_the_readme_and_the_standard_library(tmp_path):
    from tests.builders import new_session

    session = new_session(begin=True)
    session.play_out()
    path = tmp_path / "fight.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in session.log.lines()))
    assert verify_like_the_readme(path) == session.log.head()[0]


def test_canonical_bytes_are_the_line_without_its_digest_member():
    line, envelope = seal(GENESIS, 1, 1, DamageApplied(target="a", amount=3), at="2026-01-01T00:00:00Z")
    body, digest = canonical_bytes(line)
    event = b'"event":{"type":"DamageApplied","target":"a","amount":3}'
    assert body == b'{"seq":1,"step":1,"at":"2026-01-01T00:00:00Z","v":1,' + event + b"}"
    assert digest == envelope.digest == hashlib.sha256(GENESIS.encode() + body).hexdigest()


def test_the_schema_describes_every_event_type_and_the_envelope():
    schema = json_schema()
    text = json.dumps(schema)
    for cls in event_types():
        assert f'"{cls.__name__}"' in text
    for field in ("seq", "step", "digest", "v"):
        assert f'"{field}"' in text


def test_a_rule_system_event_type_joins_the_union_and_decodes():
    class Taunted(Event):
        """Test-only: someone was taunted."""

        target: str

    register_event(Taunted)
    line, envelope = seal(GENESIS, 1, 1, Taunted(target="x"))
    assert decode_line(line).event == Taunted(target="x")
    with pytest.raises(ValueError, match="already taken"):
        register_event(type("Taunted", (Event,), {"__annotations__": {"x": int}}))


class Shoved(Event):
    """Test-only, at version 2: a shove measured in feet (version 1 counted 5-ft squares)."""

    version = 2
    target: str
    feet: int


def _shoved_v1_to_v2(data: dict) -> dict:
    data["feet"] = data.pop("squares") * 5
    return data


register_event(Shoved)
register_upcaster("Shoved", 1, _shoved_v1_to_v2)


def test_a_version_1_fixture_file_decodes_through_its_upcaster():
    # tests/fixtures/v1-shoved.jsonl was sealed when Shoved counted squares (version 1)
    lines = (FIXTURES / "v1-shoved.jsonl").read_bytes().split(b"\n")[:-1]
    events = [decode_line(line) for line in lines]
    assert [e.v for e in events] == [1, 1]
    assert events[0].event == Shoved(target="g1", feet=10)
    assert events[1].event == Shoved(target="g2", feet=5)


def test_the_version_1_core_fixture_still_replays_and_audits_clean():
    # tests/fixtures/v1-skirmish.jsonl: a whole skirmish encounter saved with version 1 of
    # every core event; a format change that breaks old logs fails here.
    log = JsonlLog(FIXTURES / "v1-skirmish.jsonl", create=False)
    projection = replay(log)
    assert projection.state.outcome == "victory"
    assert projection.state.winner == "party"
    report = audit(log)
    assert report.clean, [str(f) for f in report.findings]


def test_an_event_version_from_a_later_release_is_refused_not_read_as_todays(tmp_path):
    from combatlog.events import CorruptLog
    from combatlog.projections import replay
    from combatlog.replays import JsonlLog
    from tests.builders import new_session

    s = new_session(begin=True)
    lines = list(s.log.lines())
    with pytest.raises(Exception, match=r"CombatantAdded version 7 is newer than this release reads \(version 1\)"):
        decode_line(lines[3].replace(b'"v":1', b'"v":7', 1))
    path = tmp_path / "future.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in lines[:3] + [lines[3].replace(b'"v":1', b'"v":7', 1)]))
    with pytest.raises(CorruptLog, match=r"seq 4: .*newer than this release reads"):
        replay(JsonlLog(path, create=False))
