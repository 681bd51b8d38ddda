"""Keeps a projector's read model up to date, exactly once per event.

Each page of events is folded in memory and written, with the checkpoint,
in one transaction that first locks the checkpoint row and checks it still
says where the page starts.  So a page delivered twice, a runner restarted
mid-page or killed outright, or two runners at once, all leave the same read
model as one clean pass: an event at or below the checkpoint is never
applied again.

The event store is the source: the runner reads it after its checkpoint.
The bus only rings a bell when something new is there (the relay's one core
message a page, BELL_SUBJECT); when the bus is quiet or away, a poll of the
store covers it.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import asyncpg
import nats.errors
import nats.js.errors
import structlog
from nats.js import JetStreamContext

from muggins.domain.streams import ALL_EVENT_SUBJECTS, BELL_SUBJECT
from muggins.eventstore.records import RecordedEvent
from muggins.eventstore.store import TRANSIENT, EventStore, store_down
from muggins.infra.retry import Backoff, Retry
from muggins.infra.waiting import first_of
from muggins.projections.projection import APPLIED, LAG, QUERIES, Projection

log = structlog.get_logger(__name__)

#: Seconds between lag lines in the log while a projector is behind.
LAG_LOG_EVERY = 10.0
#: The longest pause between attempts while the database is away.
MAX_BACKOFF = 5.0
#: Failures of the bell (the bus's wake-up) that pass: NATS away or slow.
#: It only rings; the store poll covers its silence.
BELL_FAILURES: tuple[type[BaseException], ...] = (nats.errors.Error, OSError, TimeoutError)
#: The least time from one catch-up to the next while the bell keeps
#: ringing: under load a projector reads one bigger page every quarter of a
#: second instead of one page per append (each catch-up is a read and a
#: transaction; with the bell and a catch-up a page, the projectors took 17%
#: of the service's CPU at 500 tables, against 14% with their old consumers).
#: A read model a quarter of a second behind is still fresh for the lobby and
#: the leaderboard.
GATHER_SECONDS = 0.25
#: The durable JetStream consumer each projector had before the bell
#: (``projector-NAME``): removed after the projector's first catch-up, as
#: nothing reads it.  (A process of the old version still running during a
#: rolling upgrade may make it again: the next start removes it.)
OLD_CONSUMER_PREFIX = "projector-"
#: The most the removal may take (NATS away or electing a leader): it is
#: only tidying, never worth holding a projector or a shutdown for.
OLD_CONSUMER_SECONDS = 2.0


class Bell(Protocol):
    """Where the bell rings: the process's bus (muggins.bus.Bus or its in-memory twin)."""

    async def subscribe(self, subject: str, cb: Callable[[Any], Awaitable[None]]) -> Any: ...


class ProjectorRunner:
    """Feeds one projection every stored event once, in order, and keeps its checkpoint."""

    def __init__(self, pool: asyncpg.Pool, store: EventStore, projection: Projection,
                 page_size: int = 2000) -> None:
        self.pool = pool
        self.store = store
        self.projection = projection
        self.name = projection.name
        self.reader = f"projector:{projection.name}"
        self.page_size = page_size
        self._lag_logged_at = 0.0
        #: Where the last page this runner committed ended: a page that starts
        #: there follows it with nothing else written between (every write to
        #: a read model moves the checkpoint), so the projection may trust
        #: what it kept from it.
        self._committed_through: int | None = None

    async def checkpoint(self) -> int:
        return await self.store.checkpoint(self.reader)

    async def rebuild(self) -> None:
        """Drop the read model and its checkpoint: the next catch-up starts at event 0."""
        async with self.pool.acquire() as connection, connection.transaction():
            await self.projection.forget(connection)
            await connection.execute(QUERIES["reset_checkpoint"], self.reader)

    async def catch_up(self, on_page: Callable[[int, int], None] | None = None) -> int:
        """Project everything after the checkpoint; return how many events.

        Live, this runs at most every GATHER_SECONDS while the bell rings, so it spends as few
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
        if after != self._committed_through:
            self.projection.lost_track()
        self._committed_through = None  # until this page commits
        async with self.pool.acquire() as connection, connection.transaction():
            await connection.execute(QUERIES["create_checkpoint"], self.reader)
            current = await connection.fetchval(QUERIES["lock_checkpoint"], self.reader)
            if current != after:
                return False
            await self.projection.project(connection, page)
            await connection.execute(QUERIES["move_checkpoint"], self.reader,
                                     page[-1].position)
        self._committed_through = page[-1].position
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

    async def follow(self, stop: asyncio.Event, bell: Bell | None = None,
                     poll_interval: float = 1.0,
                     old_consumers: JetStreamContext | None = None,
                     gather: float = GATHER_SECONDS) -> None:
        """Catch up, then keep up until ``stop``: woken by the ``bell``'s
        subject (BELL_SUBJECT), polling the store every ``poll_interval``,
        at most one catch-up every ``gather`` seconds.

        The database away is waited out (muggins.infra.retry,
        "projector-NAME").  A bug (a page the projection or the database
        refuses for good) ends the runner with its traceback logged: a page
        cannot be skipped without the read model missing its events for
        ever, so its process reports it (``muggins project`` exits with an
        error; ``muggins serve`` names it on /readyz and stops) instead of
        retrying for ever.  ``old_consumers``: JetStream, where the durable
        consumer of the bell before this one is removed (once, after the
        first catch-up, within OLD_CONSUMER_SECONDS).
        """
        retry = Retry(f"projector-{self.name}", store_down,
                      backoff=Backoff(poll_interval / 4, MAX_BACKOFF), stop=stop,
                      message="projector could not catch up; retrying")
        with contextlib.suppress(*TRANSIENT):
            await self.report_lag()  # how far behind it starts, in the log
        rung = asyncio.Event()

        async def ring(_message: object) -> None:
            rung.set()

        # Listening before the first read: a bell rung meanwhile is not lost.
        subscription: Any = await self._listen(bell, ring) if bell is not None else None
        loop = asyncio.get_running_loop()
        try:
            while not stop.is_set():
                # Cleared before reading: a bell during the catch-up means another.
                rung.clear()
                started = loop.time()
                try:
                    await self.catch_up()
                except Exception as error:
                    await retry.failed(error)  # raises a bug
                    continue
                retry.succeeded()
                if bell is not None and subscription is None:
                    subscription = await self._listen(bell, ring)
                if old_consumers is not None:  # after the first catch-up: never before it
                    await self._remove_old_consumer(old_consumers)
                    old_consumers = None
                await first_of(stop, rung, seconds=poll_interval)
                rest = started + gather - loop.time()
                if rest > 0:  # rung soon after the last: let a page gather
                    await retry.pause(rest)
        finally:
            if subscription is not None:
                with contextlib.suppress(Exception):  # the bus closing meanwhile
                    await subscription.unsubscribe()

    async def _listen(self, bell: Bell, ring: Callable[[Any], Awaitable[None]]) -> Any:
        """Subscribe to the bell (made again by the bus after a reconnect);
        None if the bus is away now: the next round tries again, the poll
        covers meanwhile."""
        try:
            return await bell.subscribe(BELL_SUBJECT, ring)
        except BELL_FAILURES as error:
            log.info("projector could not listen for the bell yet", projector=self.name,
                     error=repr(error))
            return None

    async def _remove_old_consumer(self, js: JetStreamContext) -> None:
        durable = f"{OLD_CONSUMER_PREFIX}{self.name}"
        try:
            async with asyncio.timeout(OLD_CONSUMER_SECONDS):
                stream = await js.find_stream_name_by_subject(ALL_EVENT_SUBJECTS)
                await js.delete_consumer(stream, durable)
        except nats.js.errors.NotFoundError:
            return
        except BELL_FAILURES as error:  # the bus away: tried at the next start
            log.info("projector could not remove its old consumer", projector=self.name,
                     error=repr(error))
            return
        log.info("projector's old JetStream consumer removed", consumer=durable)
