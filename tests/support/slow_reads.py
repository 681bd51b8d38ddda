"""An in-memory store whose stream reads can be held back: a read that began
before an append ends after it, as happens between tasks of one process."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

from muggins.eventstore.memory import MemoryEventStore
from muggins.eventstore.records import RecordedEvent

T = TypeVar("T")


class SlowReads(MemoryEventStore):
    """``held(read)`` starts ``read``, whose stream read answers what was
    there when it began, but only once ``release()`` is called."""

    def __init__(self) -> None:
        super().__init__()
        self._release = asyncio.Event()
        self._holding = False

    async def held(self, read: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        """``read`` started, up to its stream read, which waits for ``release``;
        the store's other reads go on."""
        self._release = asyncio.Event()
        self._holding = True
        task = asyncio.create_task(read)
        await asyncio.sleep(0)  # the read's first step: it asks the store
        self._holding = False
        return task

    def release(self) -> None:
        self._release.set()

    async def read_stream(self, stream_id: str, after_version: int = 0,
                          limit: int = 100_000) -> list[RecordedEvent]:
        answer = await super().read_stream(stream_id, after_version, limit)
        if self._holding:
            await self._release.wait()
        return answer
