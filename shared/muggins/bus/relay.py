"""The relay (transactional outbox): publishes every stored event to
JetStream, in global order, exactly once as far as JetStream's readers see.

It is a catch-up reader of the store with its checkpoint in PostgreSQL
(reader ``bus-relay``): it reads events after the checkpoint, publishes
each with its event id as ``Nats-Msg-Id``, waits for JetStream's
acknowledgements, then saves the checkpoint.  A crash between publishing and
saving republishes a few events, which JetStream drops as duplicates; NATS
being down only delays publishing, and the relay picks up where it stopped.
It wakes on the store's NOTIFY and also polls, so nothing waits for long.
After each page it rings the bell (``bell``: one small core-NATS message on
BELL_SUBJECT), which wakes the projectors wherever they run: one message a
page instead of every event delivered to, and acknowledged by, each
projector's JetStream consumer (a tenth of the service's CPU at 500 tables).

Only one relay publishes at a time, whatever the number of processes: the
one holding a PostgreSQL session advisory lock.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import time
from collections.abc import Awaitable, Callable
from typing import Any

import structlog
from nats.js import JetStreamContext
from prometheus_client import Histogram

from muggins.bus import RELAY_READER
from muggins.bus.jetstream import Redactor, bus_down, messages_for, outage
from muggins.eventstore.records import RecordedEvent
from muggins.eventstore.store import EventStore
from muggins.infra.latency import LATENCY_BUCKETS
from muggins.infra.retry import Backoff, Retry
from muggins.infra.waiting import first_of

_RELAY_LOCK = 7431020612
#: The pauses between attempts when the relay keeps failing: short at first
#: (a NATS cluster elects a stream leader in a few seconds), at most this.
FIRST_BACKOFF = 0.25
MAX_BACKOFF = 5.0

log = structlog.get_logger(__name__)

#: A move's step between its append and its delivery to the table's
#: followers: from the start of the append (``recorded_at``, the database's
#: clock: the append's own lock wait and commit are in it) to JetStream's ack.
PUBLISHED = Histogram(
    "muggins_relay_publish_seconds",
    "From the start of an event's append (the database's clock) to JetStream's "
    "acknowledgement of it (the first event of each page published)",
    buckets=LATENCY_BUCKETS)


class Relay:
    def __init__(
        self,
        store: EventStore,
        js: JetStreamContext | Callable[[], JetStreamContext],
        redacted: Redactor,
        *,
        batch_size: int = 500,
        poll_interval: float = 1.0,
        publish_timeout: float = 5.0,
        checkpoint_interval: float = 0.25,
        is_connected: Callable[[], bool] = lambda: True,
        bell: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.store = store
        #: Rung after each page published: wakes the projectors (None: nobody listens).
        self._bell = bell
        #: What the public subject carries of an event that is not public.
        self._redacted = redacted
        #: Whether NATS is connected now: while it is not, nothing is published
        #: (a publish while the client reconnects can fail after taking one
        #: of the client's in-flight permits, which is then never given back).
        self._is_connected = is_connected
        #: JetStream, or where to get the current one (the bus makes a new
        #: connection, and so a new context, if its client ever closes).
        self._js = js
        self.batch_size = batch_size
        self.poll_interval = poll_interval
        self.publish_timeout = publish_timeout
        #: How often the position reached is saved while busy (always when idle).
        #: Saving less often only means republishing a little more after a crash.
        self.checkpoint_interval = checkpoint_interval
        self._wakeup = asyncio.Event()
        self._position: int | None = None
        self._saved = 0
        self._saved_at = 0.0
        self.published = 0

    async def publish_pending(self) -> int:
        """Publish everything after the position reached; return how many events."""
        if self._position is None:
            self._position = self._saved = await self.store.checkpoint(RELAY_READER)
        total = 0
        while True:
            page = await self.store.read_all(self._position, self.batch_size)
            if not page:
                await self._save_checkpoint(force=True)
                return total
            # A full page may end halfway through an append: its last event
            # waits for the next page, which tells where that append ends.
            recorded = page[:-1] if len(page) == self.batch_size > 1 else page
            if not self._is_connected():  # NATS is away: the next wake-up or poll tries again
                await self._save_checkpoint(force=True)
                return total
            acks: list[asyncio.Future[Any]] = []
            js = self._js() if callable(self._js) else self._js
            try:
                # One deadline for the page: publishing included, as the
                # client waits for an in-flight permit when all are taken.
                # (Not one per message: a timer per publish cost p99 34 ->
                # 117 ms at 200 tables.)
                async with asyncio.timeout(self.publish_timeout):
                    for index, event in enumerate(recorded):
                        after = page[index + 1] if index + 1 < len(page) else None
                        for subject, message_id, body in messages_for(
                                event, self._redacted, _ends_append(event, after)):
                            acks.append(await js.publish_async(
                                subject, body, headers={"Nats-Msg-Id": message_id}))
                    await asyncio.gather(*acks)
                PUBLISHED.observe(max(0.0, (datetime.datetime.now(datetime.UTC)
                                            - recorded[0].recorded_at).total_seconds()))
            finally:
                # An ack that never comes (a stream leader killed mid-publish)
                # holds one of the client's in-flight permits until it is
                # cancelled: without this, after a few thousand, publishing
                # waited forever (seen killing a NATS node under play).
                for ack in acks:
                    if not ack.done():
                        ack.cancel()
            self._position = recorded[-1].position
            total += len(recorded)
            self.published += len(recorded)
            await self._save_checkpoint(force=False)
            await self._ring()

    async def _ring(self) -> None:
        """Tell the projectors there is more in the store; a bus away only
        leaves them to their poll."""
        if self._bell is None:
            return
        try:
            await self._bell()
        except Exception as error:
            if not bus_down(error):
                raise

    async def _save_checkpoint(self, force: bool) -> None:
        now = time.monotonic()
        if self._position is None or self._position == self._saved:
            return
        if force or now - self._saved_at >= self.checkpoint_interval:
            await self.store.save_checkpoint(RELAY_READER, self._position)
            self._saved, self._saved_at = self._position, now


    def _notified(self, *_: object) -> None:
        self._wakeup.set()

    async def run(self, stop: asyncio.Event) -> None:
        """Publish until ``stop`` is set, through NATS and PostgreSQL outages:
        each failure that passes is logged and tried again after a pause
        (muggins.infra.retry, "relay").  A bug (a failure that is no outage: a
        query the database refuses, say) ends the relay with its traceback
        logged; its process reports it (muggins.infra.background) and another
        process's relay takes the lock over."""
        retry = Retry("relay", outage, backoff=Backoff(FIRST_BACKOFF, MAX_BACKOFF), stop=stop,
                      message="relay could not publish; retrying")
        while not stop.is_set():
            try:
                await self._publish_while_leader(stop, retry)
            except Exception as error:
                await retry.failed(error)  # raises a bug
                self._position = None  # read the checkpoint again: another relay may have led

    async def _publish_while_leader(self, stop: asyncio.Event, retry: Retry) -> None:
        """Become the one relay that publishes (a session advisory lock), then
        publish until ``stop`` or until the lock's connection is lost.  NATS
        away only pauses publishing (the lock is kept); the database away
        gives the lock up (the caller competes for it again)."""
        async with self.store.pool.acquire() as connection:
            while not stop.is_set():
                if await connection.fetchval("SELECT pg_try_advisory_lock($1)", _RELAY_LOCK):
                    break
                # Another process's relay publishes.
                await retry.pause(self.poll_interval)
            else:
                return
            await connection.add_listener("muggins_events", self._notified)
            log.info("relay publishing", reader=RELAY_READER)
            try:
                while not stop.is_set():
                    if connection.is_closed():  # the lock went with it: compete again
                        raise ConnectionError("the relay's lock connection was lost")
                    # Cleared before reading, so a NOTIFY that lands while we
                    # publish makes the wait below return at once.
                    self._wakeup.clear()
                    try:
                        await self.publish_pending()
                    except Exception as error:
                        if not bus_down(error):
                            raise  # the database away (or a bug): the caller decides
                        await retry.failed(error)
                        continue
                    retry.succeeded()
                    await first_of(stop, self._wakeup, seconds=self.poll_interval)
            finally:
                with contextlib.suppress(Exception):
                    await connection.remove_listener("muggins_events", self._notified)
                    await connection.execute("SELECT pg_advisory_unlock($1)", _RELAY_LOCK)


def _ends_append(event: RecordedEvent, after: RecordedEvent | None) -> bool:
    """Whether ``event`` is the last of its append: an append's events have
    consecutive positions, one stream and one commit time."""
    return after is None or after.stream_id != event.stream_id or (
        after.recorded_at != event.recorded_at)
