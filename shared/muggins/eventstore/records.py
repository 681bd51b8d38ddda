"""What every event store shares: an event to append, an event as stored, the
refusals, and the hash chain's arithmetic.

The store carries bytes: an event to append is its type, its JSON and its
audience (``NewEvent``), encoded by the domain's codec (muggins.domain.codec),
so nothing here knows a game, a table or a chat.  PostgreSQL
(muggins.eventstore.store) and the in-memory store
(muggins.eventstore.memory) both build on these, and one contract suite
(tests/contract) holds them to the same behaviour.
"""

from __future__ import annotations

import datetime
import hashlib
import re
from collections.abc import Sequence
from typing import Protocol

import msgspec

STREAM_ID_PATTERN = r"[A-Za-z0-9_-]{1,64}"
_STREAM_ID = re.compile(STREAM_ID_PATTERN)
#: Who may read an event (the events table's check, migration 0001).
_AUDIENCE = re.compile(r"public|audit|seat:[0-9]+")
#: Who caused an event (the events table's check, migrations 0001, 0009, 0014).
_ACTOR = re.compile(r"seat:[0-9]+|bot:[0-9]+|system|spectator|operator")


class ConcurrencyError(Exception):
    """The stream moved on since the writer read it: nothing was written."""

    def __init__(self, stream_id: str, expected_version: int, detail: str = "") -> None:
        super().__init__(
            f"stream {stream_id} is no longer at version {expected_version}"
            + (f": {detail}" if detail else "")
        )
        self.stream_id = stream_id
        self.expected_version = expected_version


class NewEvent(msgspec.Struct, frozen=True, gc=False):
    """An event to append, encoded: its type, its JSON, who may read it."""

    event_type: str
    #: The event's JSON (an object).
    payload: bytes
    #: "public", "audit" or "seat:N".
    audience: str


class RecordedEvent(msgspec.Struct, frozen=True, gc=False):
    """An event as stored: where it stands and who caused it."""

    position: int
    event_id: str
    stream_id: str
    stream_version: int
    event_type: str
    #: The event's JSON, as stored (PostgreSQL's jsonb may reorder its keys:
    #: compare decoded payloads, never bytes).
    payload: msgspec.Raw
    audience: str
    actor: str
    correlation_id: str | None
    causation_id: str | None
    recorded_at: datetime.datetime
    #: The stream's hash chain after this event (``chain_link``).  Every read
    #: carries it; what ``append`` returns does not (the store computes it).
    chain: bytes | None = None
    #: The whole store's chain after this event (``global_link``); as ``chain``.
    global_chain: bytes | None = None


class Due(msgspec.Struct, frozen=True):
    """What an append makes due, written in the append's own transaction
    (table ``due``, migration 0006): the row ``key`` becomes due ``seconds``
    after the commit; ``seconds`` None removes the row (nothing is due).
    ``earliest`` keeps an earlier due time already there."""

    key: str
    seconds: float | None
    earliest: bool = False


#: The chain value "before the first event" of every stream.
GENESIS_CHAIN = bytes(32)

_encode_sorted = msgspec.json.Encoder(order="sorted").encode


def canonical_json(value: object) -> bytes:
    """RFC 8785 canonical JSON for what events hold (integers, strings,
    booleans, null, arrays, objects): keys sorted, no whitespace, UTF-8;
    the same bytes as Python's ``json.dumps(value, sort_keys=True,
    separators=(",", ":"), ensure_ascii=False)`` (tested)."""
    return _encode_sorted(value)


def event_digest(
    *,
    stream_id: str,
    stream_version: int,
    event_type: str,
    payload: bytes | str,
    audience: str,
    actor: str,
    correlation_id: str | None,
    causation_id: str | None,
    event_id: str,
) -> bytes:
    """SHA-256 of the canonical JSON of everything the application stores of
    an event; ``payload`` is the event's JSON (any key order or spacing)."""
    content = {
        "actor": actor,
        "audience": audience,
        "causation_id": causation_id,
        "correlation_id": correlation_id,
        "event_id": event_id,
        "event_type": event_type,
        "payload": _payload(payload),
        "stream_id": stream_id,
        "stream_version": stream_version,
    }
    return hashlib.sha256(canonical_json(content)).digest()


def _payload(payload: bytes | str) -> object:
    try:
        return msgspec.json.decode(payload)
    except msgspec.DecodeError as error:
        raise ValueError(f"an event's payload is not JSON: {error}") from None


def recorded_at_text(recorded_at: datetime.datetime) -> str:
    """A commit time as the chain hashes it: UTC, microseconds, ``Z``."""
    return recorded_at.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def chain_link(previous: bytes, digest: bytes, position: int, recorded_at: str) -> bytes:
    """The chain value after an event (as the SQL function ``event_chain_link``
    computes it): SHA-256 of the previous value, the event's digest, and its
    position and commit time (``recorded_at_text``) as ASCII."""
    return hashlib.sha256(
        previous + digest + f"{position} {recorded_at}".encode()
    ).digest()


def recomputed_chain(entry: RecordedEvent, previous: bytes) -> bytes | None:
    """The chain value ``entry``'s stored fields give after ``previous`` (None
    when they do not even parse: a payload that is no JSON, an id no UUID)."""
    try:
        digest = event_digest(
            stream_id=entry.stream_id, stream_version=entry.stream_version,
            event_type=entry.event_type, payload=bytes(entry.payload), audience=entry.audience,
            actor=entry.actor, correlation_id=entry.correlation_id,
            causation_id=entry.causation_id, event_id=entry.event_id)
    except (ValueError, msgspec.DecodeError):
        return None
    return chain_link(previous, digest, entry.position, recorded_at_text(entry.recorded_at))


def global_link(previous: bytes, chain: bytes) -> bytes:
    """The whole store's chain value after an event (as migration 0014
    computes it): SHA-256 of the value before it (the event at the position
    before; 32 zero bytes before position 1) and the event's stream chain value."""
    return hashlib.sha256(previous + chain).digest()


def check_stream_id(stream_id: str) -> None:
    """ValueError unless ``stream_id`` may name a stream."""
    if not _STREAM_ID.fullmatch(stream_id):
        raise ValueError(
            f"stream id {stream_id!r} must be 1-64 letters, digits, '-' or '_' "
            "(it becomes a NATS subject token)"
        )


def check_append(stream_id: str, expected_version: int, events: Sequence[NewEvent],
                 actor: str, guard: tuple[str, int] | None) -> None:
    """ValueError, before anything is written, for an append no store takes:
    a stream id, version, actor or audience out of form, a payload that is
    not a JSON object."""
    check_stream_id(stream_id)
    if guard is not None:
        check_stream_id(guard[0])
        if guard[0] == stream_id:
            raise ValueError("an append cannot be guarded by its own stream")
    if expected_version < 0:
        raise ValueError(f"expected version {expected_version} is below 0")
    if not _ACTOR.fullmatch(actor):
        raise ValueError(f"actor {actor[:40]!r} must be seat:N, bot:N, system, spectator "
                         "or operator")
    for event in events:
        if not _AUDIENCE.fullmatch(event.audience):
            raise ValueError(f"audience {event.audience[:40]!r} must be public, audit or seat:N")
        if not event.event_type or len(event.event_type) > 64:
            raise ValueError("an event type is 1 to 64 characters")
        if not event.payload.lstrip().startswith(b"{"):
            raise ValueError(f"the payload of a {event.event_type} is not a JSON object")


class Store(Protocol):
    """What every event store does for its callers: PostgreSQL's
    (muggins.eventstore.store) and the in-memory twin (muggins.eventstore.memory)."""

    async def append(self, stream_id: str, expected_version: int, events: Sequence[NewEvent],
                     *, actor: str, correlation_id: str | None = None,
                     causation_id: str | None = None, due: Due | None = None,
                     guard: tuple[str, int] | None = None) -> list[RecordedEvent]: ...

    async def read_stream(self, stream_id: str, after_version: int = 0,
                          limit: int = 100_000) -> list[RecordedEvent]: ...

    async def read_all(self, after_position: int = 0,
                       limit: int = 1000) -> list[RecordedEvent]: ...

    async def event_at_position(self, position: int) -> RecordedEvent | None: ...

    async def stream_event(self, stream_id: str, version: int) -> RecordedEvent | None: ...

    async def last_hand_end(self, stream_id: str) -> RecordedEvent | None: ...

    async def stream_version(self, stream_id: str) -> int: ...

    async def head_position(self) -> int: ...

    async def checkpoint(self, reader: str) -> int: ...

    async def save_checkpoint(self, reader: str, position: int) -> None: ...

    async def close(self) -> None: ...
