"""The envelope a stored event travels in, its canonical bytes, the digest chain, and codecs.

A stored event is one line of JSON (one row in SQLite), the *line*:

    {"seq":7,"step":3,"v":1,"event":{"type":"DamageApplied",...},"digest":"<64 hex>"}

- `seq` counts events of one encounter from 1; `step` is the number of the command that
  produced the event (the unit of undo); `at` appears only when a clock was given; `v` is
  the version of the event's shape; `digest` seals the chain.
- The *canonical bytes* of an event are its line without the final `,"digest":"…"` member
  (that is, everything before `,"digest":"` followed by `}`). They are produced once, when
  the event is sealed: compact JSON, UTF-8, envelope fields in the order above, event
  fields in their declared order with the `type` tag first and fields equal to their
  defaults left out, the keys of every mapping sorted.
- `digest` = SHA-256 over the previous event's digest (64 lowercase hex characters as
  ASCII; for seq 1, 64 zeros) followed by this event's canonical bytes, in lowercase hex.

A verifier needs nothing of this package: cut the digest member off each line, hash,
compare, carry the digest on.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any, Generic, TypeVar

import msgspec

from combatlog.events import catalogue
from combatlog.events.catalogue import Event
from combatlog.events.upcast import upcast

GENESIS = "0" * 64
_DIGEST_MEMBER = b',"digest":"'
_TAIL_LEN = len(_DIGEST_MEMBER) + 64 + 2  # ,"digest":"<64 hex>"}

E = TypeVar("E")


class Envelope(msgspec.Struct, Generic[E], frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """One stored event: where it sits in the log, which step made it, and its seal."""

    seq: int
    step: int
    at: str | None = None
    v: int
    event: E
    digest: str


class _Body(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """The envelope without its digest: what the digest is computed over."""

    seq: int
    step: int
    at: str | None = None
    v: int
    event: Event


class _Loose(msgspec.Struct, frozen=True, kw_only=True):
    """An envelope whose event is left as plain data, for upcasting old shapes."""

    seq: int
    step: int
    at: str | None = None
    v: int = 1
    event: dict[str, Any]
    digest: str


_encoder = msgspec.json.Encoder(order="deterministic")
_mp_encoder = msgspec.msgpack.Encoder(order="deterministic")
_loose_decoder = msgspec.json.Decoder(_Loose)


def digest_of(previous: str, canonical: bytes) -> str:
    """Return the digest sealing `canonical` after an event whose digest was `previous`."""
    return hashlib.sha256(previous.encode("ascii") + canonical).hexdigest()


def seal(previous: str, seq: int, step: int, event: Event, at: str | None = None) -> tuple[bytes, Envelope[Any]]:
    """Seal `event` as number `seq` after digest `previous`; returns (its line, its envelope)."""
    body = _encoder.encode(_Body(seq=seq, step=step, at=at, v=type(event).version, event=event))
    digest = digest_of(previous, body)
    line = body[:-1] + _DIGEST_MEMBER + digest.encode("ascii") + b'"}'
    return line, Envelope(seq=seq, step=step, at=at, v=type(event).version, event=event, digest=digest)


def canonical_bytes(line: bytes) -> tuple[bytes, str]:
    """Split a stored line into (canonical bytes, the digest it claims).

    Raises ValueError when the line doesn't end in a digest member.
    """
    tail = line[-_TAIL_LEN:]
    if len(line) <= _TAIL_LEN or not tail.startswith(_DIGEST_MEMBER) or not line.endswith(b'"}'):
        raise ValueError("the line does not end with its digest member")
    return line[:-_TAIL_LEN] + b"}", tail[len(_DIGEST_MEMBER) : -2].decode("ascii")


_sha256 = hashlib.sha256
_LINE_END = b'"}'
_HEX = b"0123456789abcdef"


def check_link(previous: bytes, line: bytes) -> tuple[bytes, bool]:
    """Check one link of the digest chain: (the digest `line` claims, whether it seals the line after `previous`).

    Digests are taken and given as their 64 hex digits in ASCII bytes (GENESIS for the first
    line): an audit checks a million links, and bytes spare a copy and a decode per line.
    Raises ValueError when the line doesn't end in a digest member of 64 lowercase hex digits
    (so the claimed bytes are the digest the line decodes to).
    """
    if len(line) <= _TAIL_LEN or line[-_TAIL_LEN:-66] != _DIGEST_MEMBER or line[-2:] != _LINE_END:
        raise ValueError("the line does not end with its digest member")
    claimed = line[-66:-2]
    if claimed.translate(None, _HEX):
        raise ValueError("the line's digest is not 64 lowercase hex digits")
    h = _sha256(previous)
    h.update(line[:-_TAIL_LEN])
    h.update(b"}")
    return claimed, h.hexdigest().encode("ascii") == claimed


_decoder_cache: tuple[int, Any] | None = None


def line_decoder() -> Any:
    """Return a function `bytes -> Envelope` for the current event union (built once per union).

    Old event shapes are upcast to the current ones; the returned function raises
    msgspec.DecodeError/ValidationError (or LookupError for a missing upcaster) on a bad line.

    The function's `typed` attribute is msgspec's own decoder for the current union: a bulk
    fold may call it directly and call the function itself only when `typed` raises
    ValidationError or gives an envelope whose `v` isn't its event's `version` (then
    re-reading `typed`, which a growing union replaces).
    """
    global _decoder_cache
    generation = catalogue.generation()
    if _decoder_cache is not None and _decoder_cache[0] == generation:
        return _decoder_cache[1]
    current: list[Any] = []  # [generation, typed decoder, types by tag], refreshed when the union grows

    def refresh() -> None:
        current[:] = [
            catalogue.generation(),
            msgspec.json.Decoder(Envelope[catalogue.event_union()]).decode,  # type: ignore[misc]
            {cls.__struct_config__.tag: cls for cls in catalogue.event_types()},
        ]
        for fn in made:
            fn.typed = current[1]

    made: list[Any] = []  # the decode function below, once defined

    refresh()
    validation_error = msgspec.ValidationError
    created = current[2]["EncounterCreated"]

    def slow(line: bytes) -> Envelope[Any]:
        loose = _loose_decoder.decode(line)
        tag = loose.event.get("type")
        cls = current[2].get(tag)
        if cls is None and current[0] != catalogue.generation():
            refresh()  # the union grew since this decoder was made (a rule system was loaded)
            cls = current[2].get(tag)
        if cls is None and isinstance(tag, str) and catalogue.resolve(tag):
            refresh()  # a rule system registered its events: decode with the larger union from now on
            cls = current[2].get(tag)
        if cls is None:
            raise msgspec.ValidationError(f"unknown event type {tag!r}")
        if loose.v > cls.version:
            # a shape from a later release: read as today's it could mean something else
            raise msgspec.ValidationError(
                f"{tag} version {loose.v} is newer than this release reads (version {cls.version}); "
                "upgrade combatlog to read this log"
            )
        data = upcast(str(tag), loose.v, cls.version, loose.event)
        event = msgspec.convert(data, cls)
        return Envelope(seq=loose.seq, step=loose.step, at=loose.at, v=loose.v, event=event, digest=loose.digest)

    def decode(line: bytes) -> Envelope[Any]:
        try:
            envelope: Envelope[Any] = current[1](line)
        except validation_error:
            return slow(line)
        if envelope.v != envelope.event.version:
            return slow(line)
        if type(envelope.event) is created:  # the log names its rule system: its events may be loaded
            catalogue.named(envelope.event.rules)
        return envelope

    decode.typed = current[1]  # type: ignore[attr-defined]
    made.append(decode)
    _decoder_cache = (generation, decode)
    return decode


def decode_line(line: bytes) -> Envelope[Any]:
    """Decode one stored line into an Envelope (see `line_decoder` for errors)."""
    decode: Callable[[bytes], Envelope[Any]] = line_decoder()
    return decode(line)


def encode_msgpack(envelope: Envelope[Any]) -> bytes:
    """Encode an envelope as MessagePack (a transport; the digest still seals the JSON line)."""
    return _mp_encoder.encode(envelope)


_mp_cache: tuple[int, Any] | None = None


def decode_msgpack(data: bytes) -> Envelope[Any]:
    """Decode a MessagePack envelope made by `encode_msgpack`."""
    global _mp_cache
    generation = catalogue.generation()
    if _mp_cache is None or _mp_cache[0] != generation:
        _mp_cache = (generation, msgspec.msgpack.Decoder(Envelope[catalogue.event_union()]).decode)  # type: ignore[misc]
    envelope: Envelope[Any] = _mp_cache[1](data)
    return envelope


class _Step(msgspec.Struct):
    step: int


_step_decoder = msgspec.json.Decoder(_Step)


def step_of(line: bytes) -> int:
    """The step a stored line belongs to, read without decoding its event."""
    return _step_decoder.decode(line).step
