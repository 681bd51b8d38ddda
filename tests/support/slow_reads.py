"""An in-memory store whose stream reads can be held back: a read that began
before an append ends after it, as happens between tasks of one process."""

from __future__ import annotations

import asyncio

from muggins.eventstore.memory import MemoryEventStore
from muggins.eventstore.records import RecordedEvent


class SlowReads(MemoryEventStore):
    """While ``hold`` is set, a stream read answers what was there when it
    began, but only once ``release`` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()
        self.hold = False

    async def read_stream(self, stream_id: str, after_version: int = 0,
                          limit: int = 100_000) -> list[RecordedEvent]:
        answer = await super().read_stream(stream_id, after_version, limit)
        if self.hold:
            await self.release.wait()
        return answer
