"""Every stored event's codec: which events the store holds, who may read
each, and their bytes.

The event store carries bytes (muggins.eventstore.records.NewEvent); this is
the one place that turns the domain's events into them and back, for all
three kinds of stream (muggins.domain.streams): a game's (muggins.rules.events),
a table's own (muggins.domain.table_events) and its chat (muggins.domain.chat).
An event's type is its class name, unique across the three.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeAlias, get_args

import msgspec

from muggins.domain.chat import ChatEvent, ChatSaid
from muggins.domain.table_events import AnyTableEvent, TableEvent
from muggins.eventstore.records import NewEvent, RecordedEvent
from muggins.rules.events import AnyEvent, Event, audience, redact

#: Every event any stream holds: a game's, a table's own, a chat's.
StoredEvent: TypeAlias = Event | TableEvent | ChatEvent


class UnknownEvent(ValueError):
    """A stored event of a type no codec knows (a newer release wrote it)."""


_encode = msgspec.json.Encoder().encode
_GAME_TYPES: tuple[type[Event], ...] = get_args(AnyEvent)
_game_decoder = msgspec.json.Decoder(AnyEvent)
_DECODERS: dict[str, msgspec.json.Decoder[Any]] = {
    kind.__name__: msgspec.json.Decoder(kind)
    for kind in (*_GAME_TYPES, *get_args(AnyTableEvent), ChatSaid)
}


def audience_of(event: StoredEvent) -> str:
    """Who may read ``event``: "public", "audit" or "seat:N" (only a game's
    deals, draws, seeds and boneyard are not public)."""
    if not isinstance(event, Event):
        return "public"
    who = audience(event)
    return who if isinstance(who, str) else f"seat:{who}"


def encoded(event: StoredEvent) -> NewEvent:
    """``event`` as the store takes it."""
    return NewEvent(type(event).__name__, _encode(event), audience_of(event))


def encoded_all(events: Iterable[StoredEvent]) -> list[NewEvent]:
    return [encoded(event) for event in events]


def decoded(recorded: RecordedEvent) -> StoredEvent:
    """The event ``recorded`` holds (UnknownEvent for a type no codec knows)."""
    decoder = _DECODERS.get(recorded.event_type)
    if decoder is None:
        raise UnknownEvent(f"no codec knows events of type {recorded.event_type[:64]!r}")
    event: StoredEvent = decoder.decode(recorded.payload)
    return event


def game_event(recorded: RecordedEvent) -> AnyEvent:
    """The game event ``recorded`` holds, read by its payload's own tag (a
    record rebuilt from a bus message carries no event type)."""
    return _game_decoder.decode(recorded.payload)


def public_payload(recorded: RecordedEvent) -> bytes:
    """The JSON a reader outside ``recorded``'s audience gets: the event with
    its secret removed (the bus publishes it on the public subject)."""
    if recorded.audience == "public":
        return bytes(recorded.payload)
    event = decoded(recorded)
    assert isinstance(event, Event), "only a game's events are ever not public"
    return _encode(redact(event))
