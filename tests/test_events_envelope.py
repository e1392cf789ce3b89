"""The envelope, the codecs and the event union: bytes a log keeps for ever, and a union that grows.

Each test here fails against a mutant of `events/envelope.py` or `events/catalogue.py` that
the rest of the suite let through (docs/mutation.md).
"""

from __future__ import annotations

import hashlib
import typing
from pathlib import Path

import msgspec
import pytest

from combatlog.events import GENESIS, Command, DiceRolled, Moved, Note, catalogue, decode_line, line_decoder, seal
from combatlog.events.envelope import (
    _TAIL_LEN,
    Envelope,
    canonical_bytes,
    check_link,
    decode_msgpack,
    encode_msgpack,
)

FIXTURES = Path(__file__).parent / "fixtures"


# --- the bytes of a line ------------------------------------------------------------------------------


def test_a_line_is_its_compact_body_then_the_digest_of_genesis_and_that_body():
    body = b'{"seq":1,"step":1,"v":1,"event":{"type":"Note","text":"hi"}}'
    digest = hashlib.sha256(GENESIS.encode() + body).hexdigest()
    line, env = seal(GENESIS, 1, 1, Note(text="hi"))
    assert line == body[:-1] + b',"digest":"' + digest.encode() + b'"}'
    assert env.digest == digest and canonical_bytes(line) == (body, digest)


@pytest.mark.parametrize("path", sorted((FIXTURES / "saved-logs").glob("*.jsonl")), ids=lambda p: p.stem)
def test_every_saved_log_seals_again_to_the_same_bytes(path):
    import combatlog.replays  # noqa: F401  (installs the rule systems' event types)

    previous = GENESIS
    for line in path.read_bytes().splitlines():
        env = decode_line(line)
        assert seal(previous, env.seq, env.step, env.event, env.at)[0] == line
        previous = env.digest


def test_fields_left_at_their_defaults_stay_out_of_the_line_and_come_back_on_reading():
    moved, _ = seal(GENESIS, 1, 1, Moved(combatant="g1", to="B2"))
    assert b"distance" not in moved and decode_line(moved).event.distance == 0
    issued, _ = seal(GENESIS, 1, 1, catalogue.CommandIssued(command=Command(kind="note")))
    assert b'"events"' not in issued and decode_line(issued).event.events == 1
    roll = DiceRolled(expression="1d6", faces=(1,), total=1, purpose="hit")
    rolled, _ = seal(GENESIS, 1, 1, roll)
    assert b"botch" not in rolled and decode_line(rolled).event.botch is False


def test_a_line_without_a_version_is_read_as_version_1():
    line, _ = seal(GENESIS, 1, 1, Note(text="old"))
    assert decode_line(line.replace(b'"v":1,', b"")).event == Note(text="old")


def test_a_message_pack_envelope_has_no_time_unless_one_was_given():
    _, env = seal(GENESIS, 1, 1, Note(text="hi"))
    assert "at" not in msgspec.msgpack.decode(encode_msgpack(env))
    assert decode_msgpack(encode_msgpack(env)) == env


def test_envelopes_and_commands_are_frozen():
    _, env = seal(GENESIS, 1, 1, Note(text="hi"))
    with pytest.raises(AttributeError):
        env.seq = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        Command(kind="note").kind = "act"  # type: ignore[misc]


def test_a_private_roll_redacted_keeps_who_rolled_what_for_and_nothing_of_the_result():
    roll = DiceRolled(expression="1d6+2", faces=(6,), total=8, purpose="hit", private_to="ayla", botch=True, modifier=2)
    hidden = roll.redacted()
    encoded = msgspec.json.decode(msgspec.json.encode(hidden))
    assert encoded == {
        "type": "DiceRolled",
        "expression": "1d6+2",
        "faces": [],
        "total": 0,
        "purpose": "hit",
        "private_to": "ayla",
    }


# --- a line's digest member -----------------------------------------------------------------------------


def _sealed() -> bytes:
    return seal(GENESIS, 1, 1, Note(text="hi"))[0]


@pytest.mark.parametrize(
    "line",
    [
        pytest.param(_sealed()[-_TAIL_LEN:], id="a digest member and nothing before it"),
        pytest.param(_sealed()[:-2] + b"'}", id="not ending in a quote and a brace"),
        pytest.param(_sealed().replace(b',"digest":"', b',"digeZt":"'), id="a member of another name"),
    ],
)
def test_a_line_without_its_digest_member_is_refused_by_both_readers_of_it(line):
    with pytest.raises(ValueError, match="does not end with its digest member"):
        canonical_bytes(line)
    with pytest.raises(ValueError, match="does not end with its digest member"):
        check_link(GENESIS.encode(), line)


def test_the_shortest_line_with_a_digest_member_is_read():
    line = b"{" + _sealed()[-_TAIL_LEN:]
    body, claimed = canonical_bytes(line)
    assert body == b"{}" and check_link(GENESIS.encode(), line)[0] == claimed.encode()


# --- a union that grows while logs are read ---------------------------------------------------------------


@pytest.fixture
def probe():
    """An event type of a rule system registered during the test, and taken out after it.

    Taking it out bumps the generation once more, so no decoder cached while it was there
    is ever taken for a later union.
    """

    class MutationProbe(catalogue.Event, frozen=True):
        """A rule system's event, registered late."""

        mark: int = 0

    yield MutationProbe
    if MutationProbe in catalogue._registered:
        catalogue._registered.remove(MutationProbe)
        catalogue._generation += 1


def _probe_line(probe) -> bytes:
    return seal(GENESIS, 1, 1, probe(mark=3))[0]


def test_a_decoder_is_built_once_per_union(probe):
    first = line_decoder()
    assert line_decoder() is first
    catalogue.register_event(probe)
    assert line_decoder() is not first
    assert line_decoder().typed(_probe_line(probe)).event == probe(mark=3)  # the new union, in one pass


def test_a_decoder_made_before_a_type_was_registered_reads_it_and_keeps_reading_it_in_one_pass(probe):
    decode = line_decoder()
    catalogue.register_event(probe)
    line = _probe_line(probe)
    assert decode(line).event == probe(mark=3)
    assert decode.typed(line).event == probe(mark=3)


def test_an_unknown_tag_is_asked_of_the_resolvers_once_and_only_unknown_tags_are(probe, monkeypatch):
    asked: list[str] = []

    def resolver(tag: str) -> None:
        asked.append(tag)
        if tag == "MutationProbe":
            catalogue.register_event(probe)

    monkeypatch.setattr(catalogue, "_resolvers", [])
    catalogue.add_resolver(resolver)
    catalogue.add_resolver(resolver)
    decode = line_decoder()
    assert decode(_probe_line(probe)).event == probe(mark=3)
    assert asked == ["MutationProbe"]
    for line in (FIXTURES / "v1-skirmish.jsonl").read_bytes().splitlines():
        decode(line)  # older shapes go the slow way, but their tags are known
    assert asked == ["MutationProbe"]
    assert catalogue.resolve("NoSuchTag") is False and asked[-1] == "NoSuchTag"


def test_the_union_and_the_message_pack_decoder_take_in_a_type_registered_late(probe):
    _, env = seal(GENESIS, 1, 1, Note(text="before"))
    decode_msgpack(encode_msgpack(env))  # the decoder is cached for today's union
    catalogue.register_event(probe)
    assert probe in typing.get_args(catalogue.event_union())
    late = Envelope(seq=1, step=1, v=1, event=probe(mark=3), digest=GENESIS)
    assert decode_msgpack(encode_msgpack(late)).event == probe(mark=3)
