"""A watch on the event store that says which tables move, finish or are
stuck, and checks each finished game whole (the fault tests and the cluster's).
"""


from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import asyncpg

from muggins.domain.codec import game_event
from muggins.domain.streams import game_stream
from muggins.eventstore.records import RecordedEvent
from muggins.eventstore.store import EventStore, create_pool
from muggins.evidence.checkpoints import public_keys
from muggins.evidence.receipts import receipts_of
from muggins.replay.record import StoredEvent
from muggins.replay.source import load_table_record
from muggins.replay.table_verify import TableVerdict, verify_table
from muggins.replay.verify import verify_game
from tests.support.waits import eventually

#: How often the store is asked how far each table got.
POLL_EVERY = 0.5


# ---------------------------------------------------------------- the store's view


@dataclass
class TableProgress:
    """How far one table's game got, as the store says."""

    table_id: str
    game: int = 1
    version: int = 0
    last_type: str = "nothing"
    changed_at: float = field(default_factory=time.monotonic)
    over: bool = False

    @property
    def stream(self) -> str:
        return game_stream(self.table_id, self.game)


class StoreWatch:
    """Reads the event store to tell which tables move, finish or are stuck."""

    def __init__(self, store: EventStore) -> None:
        self.store = store

    async def poll(self, tables: Iterable[TableProgress], limit: int = 8) -> None:
        gate = asyncio.Semaphore(limit)

        async def one(table: TableProgress) -> None:
            if table.over:
                return
            async with gate:
                new = await self.store.read_stream(table.stream, table.version)
            if new:
                table.version = new[-1].stream_version
                table.last_type = new[-1].event_type
                table.changed_at = time.monotonic()
                table.over = table.last_type == "GameEnded"

        await asyncio.gather(*(one(table) for table in tables))

    async def wait_under_way(self, tables: Sequence[TableProgress], *, played: float,
                             within: float = 60.0) -> None:
        """Until every table's game has begun (a first event), then ``played``
        seconds more of play: the fault that follows lands mid-game.  A busy
        machine starts games later; a fixed wait alone would sometimes land
        before one of them began.  AssertionError naming them if any game
        ended meanwhile: the fault would then not land mid-game."""
        async def begun() -> bool:
            await self.poll(tables)
            return all(table.version > 0 for table in tables)

        await eventually(begun, within=within, what="every table's game under way")
        await asyncio.sleep(played)  # play on for a while: this wait is the point
        await self.poll(tables)
        ended = [t for t in tables if t.over]
        assert not ended, (
            "harness: games ended before the fault began (make them longer, or "
            "start the short ones last): "
            + ", ".join(f"table {t.table_id} at version {t.version}" for t in ended)
        )

    async def wait_finished(self, tables: Sequence[TableProgress], *, within: float,
                            stall: float, after: str, since: float | None = None) -> float:
        """Seconds until every table's game ended.  AssertionError naming each
        unfinished table if one saw no new event for ``stall`` seconds (counted
        from its last event, or from ``since`` if later), or ``within``
        seconds pass."""
        started = time.monotonic()
        since = started if since is None else since
        while True:
            await self.poll(tables)
            now = time.monotonic()
            waiting = [t for t in tables if not t.over]
            if not waiting:
                return now - started
            stuck = [t for t in waiting if now - max(t.changed_at, since) > stall]
            if stuck or now - started > within:
                lines = [
                    f"table {t.table_id} stuck at game {t.game} version {t.version} "
                    f"(last event {t.last_type}) for {now - max(t.changed_at, since):.0f} s"
                    for t in waiting
                ]
                reason = (f"no new event for {stall:.0f} s" if stuck
                          else f"not over within {within:.0f} s")
                raise AssertionError(
                    f"{len(waiting)} of {len(tables)} tables did not finish {after} "
                    f"({reason}):\n  " + "\n  ".join(lines)
                )
            await asyncio.sleep(POLL_EVERY)

    async def checked_game(self, table_id: str, game: int = 1) -> list[RecordedEvent]:
        """The stored game, held to the rules: versions 1..n without a gap, every
        hand dealt fair and every move legal (the replay verifier), ended."""
        recorded = await self.store.read_stream(game_stream(table_id, game))
        versions = [r.stream_version for r in recorded]
        assert versions == list(range(1, len(recorded) + 1)), (
            f"table {table_id} game {game}: versions are not 1..{len(recorded)}: "
            f"{_gaps(versions)}"
        )
        verdict = verify_game([StoredEvent(r.stream_version, game_event(r)) for r in recorded])
        assert verdict.ok, f"table {table_id} game {game} fails verification: {verdict.problems}"
        assert recorded and recorded[-1].event_type == "GameEnded", (
            f"table {table_id} game {game} is not over: last event "
            f"{recorded[-1].event_type if recorded else 'none'}"
        )
        # The table whole, once its last hand is sealed (the table's next step
        # after the game's end): every stream as appended, every seal signed
        # and matching its game, whatever was killed or paused meanwhile.
        async def sealed_and_verified() -> TableVerdict | None:
            record = await load_table_record(self.store, table_id)
            receipts = [r for r in receipts_of(table_id, record.table_events) if r.game == game]
            if not receipts or receipts[-1].version != versions[-1]:
                return None
            return verify_table(record, await public_keys(self.store.pool))

        whole = await eventually(sealed_and_verified, within=30,
                                 what=f"table {table_id}'s last hand sealed")
        assert whole is not None and whole.ok, f"table {table_id} does not verify whole: {whole}"
        return recorded


def _gaps(versions: list[int]) -> str:
    missing = sorted(set(range(1, max(versions, default=0) + 1)) - set(versions))
    doubled = sorted({v for v in versions if versions.count(v) > 1})
    return f"missing {missing[:10]}, doubled {doubled[:10]}"


@contextlib.asynccontextmanager
async def store_at(database_url: str) -> Any:
    """An EventStore on its own small pool (closed afterwards)."""
    pool: asyncpg.Pool = await create_pool(database_url, max_size=8)
    try:
        yield EventStore(pool)
    finally:
        await pool.close()

