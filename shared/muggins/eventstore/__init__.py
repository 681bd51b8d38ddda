"""The event store: PostgreSQL, append-only, gap-free global order."""

from muggins.eventstore.records import ConcurrencyError, RecordedEvent
from muggins.eventstore.store import EventStore, StoreUnavailable

__all__ = ["ConcurrencyError", "EventStore", "RecordedEvent", "StoreUnavailable"]
