"""Keeps a projector's read model up to date, exactly once per event.

Each page of events is folded in memory and written, with the checkpoint,
in one transaction that first locks the checkpoint row and checks it still
says where the page starts.  So a page delivered twice, a runner restarted
mid-page or killed outright, or two runners at once, all leave the same read
model as one clean pass: an event at or below the checkpoint is never
applied again.

The event store is the source: the runner reads it after its checkpoint.
JetStream (a durable consumer on the public subjects) only rings the bell
when something new is there; when the bus is quiet or has lost messages, a
poll of the store covers it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol, TypeVar

import asyncpg
import nats.errors
import nats.js.errors
import structlog
from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from prometheus_client import Counter, Gauge

from muggins.domain.streams import ALL_PUBLIC_SUBJECTS
from muggins.eventstore.records import RecordedEvent
from muggins.eventstore.store import TRANSIENT, EventStore, store_down
from muggins.infra.retry import Backoff, Retry
from muggins.infra.settings import Settings
from muggins.infra.sql import load_queries

QUERIES = load_queries(Path(__file__).parent / "queries.sql")
Made = TypeVar("Made")
log = structlog.get_logger(__name__)

#: A connection lent by the pool: projections write through the runner's.
Connection = asyncpg.pool.PoolConnectionProxy

LAG = Gauge("muggins_projector_lag_events", "Events stored but not yet projected",
            ["projector"])
APPLIED = Counter("muggins_projector_events_total", "Events projected", ["projector"])
#: Seconds between lag lines in the log while a projector is behind.
LAG_LOG_EVERY = 10.0
#: The longest pause between attempts while the database is away.
MAX_BACKOFF = 5.0
#: What can go wrong with the bell (the bus's wake-up): any NATS error, the
#: connection, a timeout.  It only rings; the store poll covers its silence.
BELL_FAILURES: tuple[type[BaseException], ...] = (nats.errors.Error, OSError, TimeoutError)


def consumer_config(settings: Settings) -> ConsumerConfig:
    """The projectors' durable consumer, from the settings.  It only rings a
    bell, so it starts at new messages (history is read from the store).
    Each message is acked: one ack per fetch (AckPolicy.ALL) was tried and
    measured slower through HAProxy (200 tables, one replica: p99 254 ms
    against 96 ms the same hour)."""
    return ConsumerConfig(deliver_policy=DeliverPolicy.NEW, ack_policy=AckPolicy.EXPLICIT,
                          ack_wait=settings.consumer_ack_wait,
                          max_ack_pending=settings.consumer_max_ack_pending)


class Projection(Protocol):
    """What a projector builds and where it keeps it."""

    name: str

    async def project(self, connection: Connection, page: list[RecordedEvent]) -> None:
        """Fold one page of events into the read model, inside the runner's transaction."""

    async def forget(self, connection: Connection) -> None:
        """Drop the whole read model (before a rebuild)."""


class ProjectorRunner:
    """Feeds one projection every stored event once, in order, and keeps its checkpoint."""

    def __init__(self, pool: asyncpg.Pool, store: EventStore, projection: Projection,
                 page_size: int = 2000, consumer: ConsumerConfig | None = None,
                 stream: str | None = None) -> None:
        self.pool = pool
        #: The JetStream stream its bell's consumer reads (setting stream_name).
        self.stream = stream or Settings().stream_name
        #: The bell's durable consumer (its name is set here).
        self.consumer = consumer or consumer_config(Settings())
        self.store = store
        self.projection = projection
        self.name = projection.name
        self.reader = f"projector:{projection.name}"
        self.page_size = page_size
        self._lag_logged_at = 0.0

    async def checkpoint(self) -> int:
        return await self.store.checkpoint(self.reader)

    async def rebuild(self) -> None:
        """Drop the read model and its checkpoint: the next catch-up starts at event 0."""
        async with self.pool.acquire() as connection, connection.transaction():
            await self.projection.forget(connection)
            await connection.execute(QUERIES["reset_checkpoint"], self.reader)

    async def catch_up(self, on_page: Callable[[int, int], None] | None = None) -> int:
        """Project everything after the checkpoint; return how many events.

        Live, this runs on every bell from the bus, so it spends as few
        queries as it can: one read per page and one transaction, and no
        second read when a page came back short (that was all there was).
        """
        applied = 0
        after = await self.checkpoint()
        while True:
            page = await self.store.read_all(after, self.page_size)
            if not page:
                break
            if await self.apply_page(after, page):
                applied += len(page)
                APPLIED.labels(self.name).inc(len(page))
                after = page[-1].position
            else:
                after = await self.checkpoint()  # another runner moved it on
            if on_page is not None:
                on_page(applied, page[-1].position)
            if len(page) < self.page_size:
                break
            if time.monotonic() - self._lag_logged_at >= LAG_LOG_EVERY:
                await self.report_lag()  # a long catch-up says how far it still has to go
        LAG.labels(self.name).set(0)  # caught up, as of the last read
        return applied

    async def apply_page(self, after: int, page: list[RecordedEvent]) -> bool:
        """Project one page and move the checkpoint, in one transaction; False
        if another runner got there first (nothing is written then)."""
        async with self.pool.acquire() as connection, connection.transaction():
            await connection.execute(QUERIES["create_checkpoint"], self.reader)
            current = await connection.fetchval(QUERIES["lock_checkpoint"], self.reader)
            if current != after:
                return False
            await self.projection.project(connection, page)
            await connection.execute(QUERIES["move_checkpoint"], self.reader,
                                     page[-1].position)
        return True

    async def report_lag(self, log_now: bool = True) -> int:
        """Events stored but not projected yet: to /metrics always, and to the
        log when behind (``log_now``; catch-ups do it at most every
        LAG_LOG_EVERY seconds)."""
        lag = max(0, await self.store.head_position() - await self.checkpoint())
        LAG.labels(self.name).set(lag)
        if lag and log_now:
            self._lag_logged_at = time.monotonic()
            log.info("projector lag", projector=self.name, lag=lag)
        return lag

    async def follow(self, stop: asyncio.Event,
                     js: JetStreamContext | Callable[[], JetStreamContext] | None = None,
                     poll_interval: float = 1.0) -> None:
        """Catch up, then keep up until ``stop``: woken by the bus, polling the store.

        ``js`` is JetStream or where to get the current one (a rebuilt bus
        has a new one): a bell that stops ringing is subscribed again.  The
        database away is waited out (muggins.infra.retry, "projector-NAME").  A bug
        (a page the projection or the database refuses for good) ends the
        runner with its traceback logged: a page cannot be skipped without
        the read model missing its events for ever, so its process reports
        it (``muggins project`` exits with an error; ``muggins serve``
        names it on /readyz and stops) instead of retrying for ever.
        """
        retry = Retry(f"projector-{self.name}", store_down,
                      backoff=Backoff(poll_interval / 4, MAX_BACKOFF), stop=stop,
                      message="projector could not catch up; retrying")
        with contextlib.suppress(*TRANSIENT):
            await self.report_lag()  # how far behind it starts, in the log
        bell: Any = None
        try:
            while not stop.is_set():
                try:
                    await self.catch_up()
                except Exception as error:
                    await retry.failed(error)  # raises a bug
                    continue
                retry.succeeded()
                if js is not None and bell is None:
                    bell = await self._subscribe(js() if callable(js) else js)
                if bell is None:
                    await retry.pause(poll_interval)
                    continue
                try:
                    messages = await _unless_stopped(stop, bell.fetch(500, timeout=poll_interval))
                except TimeoutError:
                    continue  # quiet: poll the store anyway
                except BELL_FAILURES as error:  # the bus away: the store poll covers it
                    log.info("projector bell lost; subscribing again", error=repr(error))
                    await self._unsubscribe(bell)
                    bell = None
                    await retry.pause(poll_interval)
                    continue
                if messages is None:
                    break  # stopped while waiting: a shutdown does not wait out the fetch
                for message in messages:
                    with contextlib.suppress(*BELL_FAILURES):
                        await message.ack()
        finally:
            await self._unsubscribe(bell)

    async def _subscribe(self, js: JetStreamContext) -> Any:
        durable = f"projector-{self.name}"
        try:
            await self._update_consumer(js, durable)
            return await js.pull_subscribe(ALL_PUBLIC_SUBJECTS, durable=durable,
                                           config=self.consumer)
        except BELL_FAILURES as error:  # no bell for now: the store poll covers it
            log.info("projector could not subscribe to the bus", error=repr(error))
            return None

    async def _update_consumer(self, js: JetStreamContext, durable: str) -> None:
        """A durable consumer made earlier takes the settings' ack wait and
        pending limit (pull_subscribe applies them only when it creates one)."""
        try:
            info = await js.consumer_info(self.stream, durable)
        except nats.js.errors.NotFoundError:
            return  # pull_subscribe makes it, with the settings
        if info.config.ack_policy != self.consumer.ack_policy:
            # Fixed once made: a bell may be made again (history is in the store).
            await js.delete_consumer(self.stream, durable)
            log.info("projector's consumer made again for its ack policy", projector=self.name)
            return
        wanted = (self.consumer.ack_wait, self.consumer.max_ack_pending)
        if (info.config.ack_wait, info.config.max_ack_pending) == wanted:
            return
        await js.add_consumer(self.stream, dataclasses.replace(
            info.config, ack_wait=wanted[0], max_ack_pending=wanted[1]))
        log.info("projector's consumer updated to the settings", projector=self.name,
                 ack_wait=wanted[0], max_ack_pending=wanted[1])

    @staticmethod
    async def _unsubscribe(bell: Any) -> None:
        if bell is not None:
            with contextlib.suppress(Exception):  # or a drain would wait for it
                await bell.unsubscribe()


async def _unless_stopped(stop: asyncio.Event, waited: Awaitable[Made]) -> Made | None:
    """``waited``'s result, or None as soon as ``stop`` is set (``waited`` cancelled)."""
    work = asyncio.ensure_future(waited)
    stopping = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({work, stopping}, return_when=asyncio.FIRST_COMPLETED)
    except BaseException:  # cancelled from outside: nothing is left running
        work.cancel()
        raise
    finally:
        stopping.cancel()
    if work.done():
        return work.result()
    work.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await work
    return None
