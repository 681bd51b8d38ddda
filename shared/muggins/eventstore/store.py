"""Append and read events in PostgreSQL (asyncpg).

Appends go through the ``append_events`` SQL function (migration 0001): one
round trip, one transaction.  A global advisory lock, held until commit,
hands out positions one transaction at a time, so positions are gap-free and
in commit order: a catch-up reader that has seen position n never later finds
an event below n (docs/eventstore.md).

Each stream is a hash chain (migration 0007, docs/fairness.md): the
application hashes each event's content (``event_digest``), the database
chains the digests with the position and commit time it assigns
(``chain_link``), so an edit to any stored field shows.  One more chain runs
over the whole store in position order (migration 0014, ``global_link``), so
that a stream rewritten with its chain recomputed, or a tail cut off, shows
against a signed checkpoint or a player's receipt (muggins.evidence).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import uuid
from collections.abc import Sequence
from pathlib import Path

import asyncpg
import msgspec

from muggins.eventstore.records import (
    ConcurrencyError,
    Due,
    NewEvent,
    RecordedEvent,
    check_append,
    event_digest,
)
from muggins.infra.sql import load_queries

QUERIES = load_queries(Path(__file__).parent / "queries.sql")


#: Failures that pass: the database away, restarting or slow for a moment, a
#: connection dropped, a transaction the server chose to abort.  What meets
#: one is retried (background loops) or told to try again (HTTP 503).  Any
#: other PostgresError (a syntax error, an undefined column, a violated
#: check) is a bug: it is logged with its traceback and answered as one.
TRANSIENT: tuple[type[Exception], ...] = (
    OSError,
    # asyncpg's command_timeout and every asyncio.timeout around a query.
    TimeoutError,
    # "connection is closed", "pool is closing", "another operation is in progress".
    asyncpg.InterfaceError,
    # A connection caught mid-operation by a server shutting down (seen when
    # PostgreSQL was restarted under load): the next try is clean.
    asyncpg.exceptions.InternalClientError,
    # Class 08: the connection failed, was refused or is gone.
    asyncpg.PostgresConnectionError,
    # Class 57: the server is starting up (CannotConnectNowError), shutting
    # down (AdminShutdown, CrashShutdown) or cancelled the statement
    # (QueryCanceledError: asyncpg cancels one that outlives command_timeout).
    asyncpg.exceptions.OperatorInterventionError,
    # Class 40: the server aborted the transaction; the same one again may pass.
    asyncpg.exceptions.SerializationError,
    asyncpg.exceptions.DeadlockDetectedError,
    # max_connections reached: others will let go.
    asyncpg.TooManyConnectionsError,
)


class StoreUnavailable(Exception):
    """PostgreSQL cannot be reached; the message says where and why."""


def store_down(error: BaseException) -> bool:
    """Whether ``error`` is the database away for a moment: a TRANSIENT
    failure, or StoreUnavailable caused by one (not a refused password or a
    migration the role may not run: those wait for nobody)."""
    if isinstance(error, StoreUnavailable):
        return isinstance(error.__cause__, TRANSIENT)
    return isinstance(error, TRANSIENT)


def _record(row: asyncpg.Record) -> RecordedEvent:
    return RecordedEvent(
        position=row[0],
        event_id=str(row[1]),
        stream_id=row[2],
        stream_version=row[3],
        event_type=row[4],
        payload=msgspec.Raw(row[5].encode()),
        audience=row[6],
        actor=row[7],
        correlation_id=str(row[8]) if row[8] else None,
        causation_id=str(row[9]) if row[9] else None,
        recorded_at=row[10],
        chain=row[11],
        global_chain=row[12],
    )


async def _keep_session(connection: asyncpg.Connection) -> None:
    """Nothing to reset when a connection goes back to the pool: no code here
    leaves session state behind (the relay holds its connection for good), and
    asyncpg's default reset costs a query on every release."""


async def create_pool(url: str, *, min_size: int = 1, max_size: int = 10) -> asyncpg.Pool:
    """A connection pool, or StoreUnavailable naming the server and the reason."""
    try:
        pool = await asyncpg.create_pool(
            url,
            min_size=min_size,
            max_size=max_size,
            command_timeout=30,
            timeout=10,
            reset=_keep_session,
        )
    except (OSError, asyncpg.PostgresError, TimeoutError) as error:
        safe = url.split("@")[-1]
        raise StoreUnavailable(f"cannot reach PostgreSQL at {safe}: {error}") from error
    assert pool is not None
    return pool


class _PendingAppend(msgspec.Struct):
    stream_id: str
    expected_version: int
    event_ids: list[uuid.UUID]
    event_types: list[str]
    payloads: list[str]
    audiences: list[str]
    #: event_digest of each event, for the hash chain.
    digests: list[bytes]
    actor: str
    correlation_id: uuid.UUID | None
    causation_id: uuid.UUID | None
    due: Due | None
    #: Append only if this other stream is still at this version (None: no guard).
    guard: tuple[str, int] | None
    done: asyncio.Future[list[RecordedEvent]]

    def streams(self) -> tuple[str, ...]:
        """The streams this append writes or is judged by."""
        return (self.stream_id, self.guard[0]) if self.guard else (self.stream_id,)


class EventStore:
    """The append-only event store over an asyncpg pool.

    Appends made at the same time (by many tables' commands in one process)
    are written together in one transaction, which shares one WAL flush
    among them; each append still succeeds or fails on its own.
    """

    def __init__(self, pool: asyncpg.Pool, max_batch: int = 128, writers: int = 2) -> None:
        self.pool = pool
        self.max_batch = max_batch
        #: Transactions in flight at once: while one waits for its commit to
        #: reach the disk, the next is already on its way to the lock.
        self.writers = writers
        self._queue: list[_PendingAppend] = []
        self._wakeup = asyncio.Event()
        self._writer_tasks: list[asyncio.Task[None]] = []

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
        """Append ``events`` (encoded by muggins.domain.codec) to a stream at
        ``expected_version``, all or nothing.

        Raises ConcurrencyError (and writes nothing) if the stream is not at
        ``expected_version`` any more, or if ``guard`` (another stream and
        its version: what the events were decided on besides their own
        stream) moved on; ValueError for what no store takes
        (muggins.eventstore.records.check_append).  ``due`` is written with
        the events, in the same transaction, and only if they are.
        """
        check_append(stream_id, expected_version, events, actor, guard)
        if not events:
            return []
        event_ids = [uuid.uuid4() for _ in events]
        correlation = uuid.UUID(correlation_id) if correlation_id else None
        causation = uuid.UUID(causation_id) if causation_id else None
        event_types = [event.event_type for event in events]
        payloads = [event.payload.decode() for event in events]
        audiences = [event.audience for event in events]
        digests = [
            event_digest(
                stream_id=stream_id,
                stream_version=expected_version + index + 1,
                event_type=event_types[index],
                payload=payloads[index],
                audience=audiences[index],
                actor=actor,
                # As PostgreSQL writes a uuid: lowercase, with hyphens.
                correlation_id=str(correlation) if correlation else None,
                causation_id=str(causation) if causation else None,
                event_id=str(event_ids[index]),
            )
            for index in range(len(events))
        ]
        pending = _PendingAppend(
            stream_id=stream_id,
            expected_version=expected_version,
            event_ids=event_ids,
            event_types=event_types,
            payloads=payloads,
            audiences=audiences,
            digests=digests,
            actor=actor,
            correlation_id=correlation,
            causation_id=causation,
            due=due,
            guard=guard,
            done=asyncio.get_running_loop().create_future(),
        )
        self._queue.append(pending)
        if not self._writer_tasks:
            self._writer_tasks = [
                asyncio.create_task(self._write_queued(), name=f"event-store-writer-{n}")
                for n in range(self.writers)
            ]
        self._wakeup.set()
        return await pending.done

    async def close(self) -> None:
        """Finish the appends under way, then stop the writer task."""
        while self._queue:
            await asyncio.sleep(0.001)
        for task in self._writer_tasks:
            task.cancel()
        for task in self._writer_tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._writer_tasks = []

    async def _write_queued(self) -> None:
        while True:
            await self._wakeup.wait()
            if not self._queue:
                self._wakeup.clear()
                continue
            while self._queue:
                batch = self._take_batch()
                try:
                    await self._write(batch)
                except Exception as error:  # every waiting writer hears of it
                    for pending in batch:
                        if not pending.done.done():
                            pending.done.set_exception(error)

    def _take_batch(self) -> list[_PendingAppend]:
        """The next appends to write together: in arrival order, up to
        max_batch, at most one per stream, counting the streams they are
        guarded by (a second waits for the next transaction, where it sees
        the first one's outcome: a guard is judged on committed events)."""
        batch: list[_PendingAppend] = []
        streams: set[str] = set()
        rest: list[_PendingAppend] = []
        for pending in self._queue:
            touched = pending.streams()
            if len(batch) < self.max_batch and streams.isdisjoint(touched):
                batch.append(pending)
                streams.update(touched)
            else:
                rest.append(pending)
        self._queue[:] = rest
        return batch

    async def _write(self, batch: list[_PendingAppend]) -> None:
        # Without a guard in the batch, the function of before the guards
        # (a database at migration 0007 to 0014 has only that one).
        guards = ([[p.guard[0] if p.guard else None for p in batch],
                   [p.guard[1] if p.guard else None for p in batch]]
                  if any(p.guard for p in batch) else [])
        async with self.pool.acquire() as connection:
            rows = await connection.fetch(
                QUERIES["append_guarded" if guards else "append"],
                [p.stream_id for p in batch],
                [p.expected_version for p in batch],
                [len(p.event_ids) for p in batch],
                [p.actor for p in batch],
                [p.correlation_id for p in batch],
                [p.causation_id for p in batch],
                [i for p in batch for i in p.event_ids],
                [t for p in batch for t in p.event_types],
                [x for p in batch for x in p.payloads],
                [a for p in batch for a in p.audiences],
                [d for p in batch for d in p.digests],
                [p.due.key if p.due else None for p in batch],
                [p.due.seconds if p.due else None for p in batch],
                [p.due.earliest if p.due else False for p in batch],
                *guards,
            )
        for row in rows:
            pending = batch[row["batch"] - 1]
            if pending.done.done():  # the writer gave up waiting (cancelled)
                continue
            first = row["first_position"]
            if first is None:
                moved = row["current_version"] != pending.expected_version
                pending.done.set_exception(
                    ConcurrencyError(
                        pending.stream_id,
                        pending.expected_version,
                        f"it is at version {row['current_version']}",
                    )
                    if moved or pending.guard is None
                    else ConcurrencyError(  # the stream it was decided on besides its own
                        pending.guard[0],
                        pending.guard[1],
                        f"it guarded an append to {pending.stream_id}",
                    )
                )
                continue
            pending.done.set_result(
                [
                    RecordedEvent(
                        position=first + index,
                        event_id=str(pending.event_ids[index]),
                        stream_id=pending.stream_id,
                        stream_version=pending.expected_version + index + 1,
                        event_type=pending.event_types[index],
                        payload=msgspec.Raw(pending.payloads[index].encode()),
                        audience=pending.audiences[index],
                        actor=pending.actor,
                        correlation_id=str(pending.correlation_id)
                        if pending.correlation_id
                        else None,
                        causation_id=str(pending.causation_id) if pending.causation_id else None,
                        recorded_at=row["recorded_at"],
                    )
                    for index in range(len(pending.event_ids))
                ]
            )

    async def read_stream(
        self, stream_id: str, after_version: int = 0, limit: int = 100_000
    ) -> list[RecordedEvent]:
        """A stream's events after ``after_version``, in version order."""
        rows = await self.pool.fetch(QUERIES["read_stream"], stream_id, after_version, limit)
        return [_record(row) for row in rows]

    async def read_all(self, after_position: int = 0, limit: int = 1000) -> list[RecordedEvent]:
        """Every stream's events after ``after_position``, in global order."""
        rows = await self.pool.fetch(QUERIES["read_all"], after_position, limit)
        return [_record(row) for row in rows]

    async def event_at_position(self, position: int) -> RecordedEvent | None:
        """The event stored at a global position (None: there is none)."""
        row = await self.pool.fetchrow(QUERIES["event_at_position"], position)
        return _record(row) if row is not None else None

    async def stream_event(self, stream_id: str, version: int) -> RecordedEvent | None:
        """One event of a stream, by version (None: there is none)."""
        row = await self.pool.fetchrow(QUERIES["stream_event"], stream_id, version)
        return _record(row) if row is not None else None

    async def last_hand_end(self, stream_id: str) -> RecordedEvent | None:
        """A game stream's last HandEnded or GameEnded (None: no hand has ended)."""
        row = await self.pool.fetchrow(QUERIES["last_hand_end"], stream_id)
        return _record(row) if row is not None else None

    async def chain_links(self, first: int, last: int) -> list[tuple[int, bytes, bytes]]:
        """(position, chain, global_chain) of every event from ``first`` to
        ``last``, in position order: what the global chain is recomputed from."""
        rows = await self.pool.fetch(QUERIES["chain_links"], first, last)
        return [(row[0], bytes(row[1]), bytes(row[2])) for row in rows]

    async def global_chains_at(self, positions: Sequence[int]) -> dict[int, bytes]:
        """The global chain value at each of ``positions`` that has an event."""
        rows = await self.pool.fetch(QUERIES["global_chains_at"], list(positions))
        return {row[0]: bytes(row[1]) for row in rows}

    async def stream_version(self, stream_id: str) -> int:
        return int(await self.pool.fetchval(QUERIES["stream_version"], stream_id))

    async def head_position(self) -> int:
        return int(await self.pool.fetchval(QUERIES["head_position"]))

    async def due_at(self, key: str) -> datetime.datetime | None:
        """When the row ``key`` of table ``due`` is due (None: nothing is)."""
        value: datetime.datetime | None = await self.pool.fetchval(QUERIES["due_at"], key)
        return value

    async def checkpoint(self, reader: str) -> int:
        value = await self.pool.fetchval(QUERIES["get_checkpoint"], reader)
        return int(value) if value is not None else 0

    async def save_checkpoint(self, reader: str, position: int) -> None:
        await self.pool.execute(QUERIES["set_checkpoint"], reader, position)
