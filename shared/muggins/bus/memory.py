"""A bus in memory, for fast tests: what muggins.bus.connection.Bus does for
its publishers and subscribers, held to it by one contract suite
(tests/contract/test_bus.py).

Subjects are checked as the real bus checks them; ``*`` matches one token
and ``>`` the rest; each subscriber gets the messages in the order they
were published, each from its own delivery task, as nats-py delivers.  It
also takes the relay's JetStream publishes (``publish_async``, a message id
published twice is dropped, as JetStream's duplicate window does), so the
relay can run from the in-memory store to it.  One process only.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec

from muggins.bus.connection import check_subject


class MemoryMessage(msgspec.Struct, frozen=True, gc=False):
    """What a subscriber is given: nats-py's Msg has these two too."""

    subject: str
    data: bytes


Handler = Callable[[Any], Awaitable[None]]


def subject_matches(pattern: str, subject: str) -> bool:
    """Whether NATS delivers a message on ``subject`` to a subscription on ``pattern``."""
    wanted, tokens = pattern.split("."), subject.split(".")
    for index, token in enumerate(wanted):
        if token == ">":
            return len(tokens) > index
        if index >= len(tokens) or (token != "*" and token != tokens[index]):
            return False
    return len(tokens) == len(wanted)


class MemorySubscription:
    """One subscriber's subject, callback and queue of messages to deliver."""

    def __init__(self, bus: MemoryBus, subject: str, cb: Handler) -> None:
        self.subject = subject
        self.cb = cb
        self._bus = bus
        self._queue: asyncio.Queue[MemoryMessage] = asyncio.Queue()
        self._task = asyncio.create_task(self._deliver(), name=f"memory-bus:{subject}")

    @property
    def active(self) -> bool:
        return not self._task.done()

    async def _deliver(self) -> None:
        while True:
            message = await self._queue.get()
            try:
                await self.cb(message)
            except Exception:  # as nats-py: a callback's error does not end the subscription
                self._bus.callback_errors += 1

    async def unsubscribe(self) -> None:
        self._bus._subscriptions.discard(self)
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task


class MemoryBus:
    """Publish and subscribe within one process."""

    def __init__(self) -> None:
        self._subscriptions: set[MemorySubscription] = set()
        self._seen_ids: set[str] = set()
        self._closed = False
        #: Callbacks that raised (each is counted and the subscription goes on).
        self.callback_errors = 0

    async def start(self, timeout: float = 10.0) -> None:
        """Nothing to connect to."""

    @property
    def is_connected(self) -> bool:
        return not self._closed

    async def close(self) -> None:
        self._closed = True
        for subscription in list(self._subscriptions):
            await subscription.unsubscribe()

    async def publish(self, subject: str, data: bytes) -> None:
        check_subject(subject, wildcards=False)
        if self._closed:
            raise ConnectionError("the bus is closed")
        for subscription in list(self._subscriptions):
            if subject_matches(subscription.subject, subject):
                subscription._queue.put_nowait(MemoryMessage(subject, data))

    async def subscribe(self, subject: str, cb: Handler) -> MemorySubscription:
        check_subject(subject, wildcards=True)
        if self._closed:
            raise ConnectionError("the bus is closed")
        subscription = MemorySubscription(self, subject, cb)
        self._subscriptions.add(subscription)
        return subscription

    async def publish_async(self, subject: str, payload: bytes,
                            headers: dict[str, str] | None = None) -> asyncio.Future[None]:
        """As JetStream's publish: a message id seen before is acknowledged
        and not delivered again."""
        message_id = (headers or {}).get("Nats-Msg-Id")
        if message_id is None or message_id not in self._seen_ids:
            if message_id is not None:
                self._seen_ids.add(message_id)
            await self.publish(subject, payload)
        acknowledged: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        acknowledged.set_result(None)
        return acknowledged
