"""An event store in memory, for fast tests: what PostgreSQL's store does,
held to it by one contract suite (tests/contract/test_event_store.py).

Same appends (all or nothing, expected versions, guards, what becomes due),
same gap-free positions, same reads, same hash chains (per stream and
global), same checkpoints.  It keeps nothing when the process ends and
serves one process: it is never the service's store.
"""

from __future__ import annotations

import datetime
import uuid
from collections.abc import Sequence

import msgspec

from muggins.eventstore.records import (
    GENESIS_CHAIN,
    ConcurrencyError,
    Due,
    NewEvent,
    RecordedEvent,
    chain_link,
    check_append,
    event_digest,
    global_link,
    recorded_at_text,
)


class MemoryEventStore:
    """The event store's contract, in a list."""

    def __init__(self) -> None:
        self._events: list[RecordedEvent] = []
        self._streams: dict[str, list[RecordedEvent]] = {}
        self._checkpoints: dict[str, int] = {}
        self._due: dict[str, datetime.datetime] = {}
        self._last_time = datetime.datetime.fromtimestamp(0, datetime.UTC)

    def _now(self) -> datetime.datetime:
        # Strictly increasing at microseconds, as commit times of successive
        # appends are (the chain hashes the time at that precision).
        now = datetime.datetime.now(datetime.UTC)
        if now <= self._last_time:
            now = self._last_time + datetime.timedelta(microseconds=1)
        self._last_time = now
        return now

    async def append(
        self,
        stream_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        *,
        actor: str,
        correlation_id: str | None = None,
        causation_id: str | None = None,
        due: Due | None = None,
        guard: tuple[str, int] | None = None,
    ) -> list[RecordedEvent]:
        """As muggins.eventstore.store.EventStore.append."""
        events = tuple(events)
        check_append(stream_id, expected_version, events, actor, guard)
        if not events:
            return []
        correlation = str(uuid.UUID(correlation_id)) if correlation_id else None
        causation = str(uuid.UUID(causation_id)) if causation_id else None
        now = self._now()
        event_ids = [str(uuid.uuid4()) for _ in events]
        digests = [
            event_digest(
                stream_id=stream_id, stream_version=expected_version + index + 1,
                event_type=event.event_type, payload=event.payload, audience=event.audience,
                actor=actor, correlation_id=correlation, causation_id=causation,
                event_id=event_ids[index])
            for index, event in enumerate(events)
        ]  # before anything is judged or kept: a payload that is no JSON fails here
        stream = self._streams.get(stream_id, [])
        if len(stream) != expected_version:
            raise ConcurrencyError(stream_id, expected_version, f"it is at version {len(stream)}")
        if guard is not None and len(self._streams.get(guard[0], [])) != guard[1]:
            raise ConcurrencyError(guard[0], guard[1], f"it guarded an append to {stream_id}")
        chain = stream[-1].chain if stream else GENESIS_CHAIN
        whole = self._events[-1].global_chain if self._events else GENESIS_CHAIN
        assert chain is not None and whole is not None
        written: list[RecordedEvent] = []
        for index, event in enumerate(events):
            position = len(self._events) + 1
            chain = chain_link(chain, digests[index], position, recorded_at_text(now))
            whole = global_link(whole, chain)
            recorded = RecordedEvent(
                position=position, event_id=event_ids[index], stream_id=stream_id,
                stream_version=expected_version + index + 1, event_type=event.event_type,
                payload=msgspec.Raw(event.payload), audience=event.audience, actor=actor,
                correlation_id=correlation, causation_id=causation, recorded_at=now,
                chain=chain, global_chain=whole)
            self._events.append(recorded)
            self._streams.setdefault(stream_id, []).append(recorded)
            written.append(msgspec.structs.replace(recorded, chain=None, global_chain=None))
        if due is not None:
            self._make_due(due, now)
        return written

    def _make_due(self, due: Due, now: datetime.datetime) -> None:
        if due.seconds is None:
            self._due.pop(due.key, None)
            return
        at = now + datetime.timedelta(seconds=max(due.seconds, 0))
        if due.earliest and due.key in self._due:
            at = min(at, self._due[due.key])
        self._due[due.key] = at

    async def close(self) -> None:
        """Nothing is under way between awaits."""

    async def read_stream(
        self, stream_id: str, after_version: int = 0, limit: int = 100_000
    ) -> list[RecordedEvent]:
        return self._streams.get(stream_id, [])[max(after_version, 0):][:limit]

    async def read_all(self, after_position: int = 0, limit: int = 1000) -> list[RecordedEvent]:
        return self._events[max(after_position, 0):][:limit]

    async def event_at_position(self, position: int) -> RecordedEvent | None:
        return self._events[position - 1] if 1 <= position <= len(self._events) else None

    async def stream_event(self, stream_id: str, version: int) -> RecordedEvent | None:
        stream = self._streams.get(stream_id, [])
        return stream[version - 1] if 1 <= version <= len(stream) else None

    async def last_hand_end(self, stream_id: str) -> RecordedEvent | None:
        return next((event for event in reversed(self._streams.get(stream_id, []))
                     if event.event_type in ("HandEnded", "GameEnded")), None)

    async def chain_links(self, first: int, last: int) -> list[tuple[int, bytes, bytes]]:
        return [(event.position, event.chain or b"", event.global_chain or b"")
                for event in self._events[max(first, 1) - 1:max(last, 0)]]

    async def global_chains_at(self, positions: Sequence[int]) -> dict[int, bytes]:
        return {position: self._events[position - 1].global_chain or b""
                for position in positions if 1 <= position <= len(self._events)}

    async def stream_version(self, stream_id: str) -> int:
        return len(self._streams.get(stream_id, []))

    async def head_position(self) -> int:
        return len(self._events)

    async def checkpoint(self, reader: str) -> int:
        return self._checkpoints.get(reader, 0)

    async def save_checkpoint(self, reader: str, position: int) -> None:
        # As the SQL: a checkpoint never moves back.
        if position > self._checkpoints.get(reader, 0):
            self._checkpoints[reader] = position

    async def due_at(self, key: str) -> datetime.datetime | None:
        return self._due.get(key)
