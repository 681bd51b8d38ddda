"""The event store: PostgreSQL, append-only, gap-free global order."""

from muggins.eventstore.store import ConcurrencyError, EventStore, RecordedEvent, StoreUnavailable

__all__ = ["ConcurrencyError", "EventStore", "RecordedEvent", "StoreUnavailable"]
