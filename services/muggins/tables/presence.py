"""Who is connected to which seat, kept where every process can see it.

Each process counts its own sockets per seat in ``presence`` and renews its
own life in ``service_processes``; a process that stops renewing (it died)
takes its sockets with it.  The scheduler asks which seats have had no live
socket anywhere for the grace period, and a bot takes those over.  Counting
is a courtesy on top of the turn clock: if a count is lost (the database
away at that instant), the clock still moves the table on.
"""

from __future__ import annotations

import asyncpg
import structlog

from muggins.tables.errors import TRANSIENT
from muggins.tables.seating import QUERIES

log = structlog.get_logger(__name__)

#: Seconds a process's life is renewed for, each time (it renews every third of it).
LIFE_SECONDS = 15.0


class Presence:
    def __init__(self, pool: asyncpg.Pool, process_id: str) -> None:
        self.pool = pool
        self.process_id = process_id

    async def connected(self, table_id: str, seat: int) -> None:
        try:
            await self.pool.execute(QUERIES["connected"], table_id, seat, self.process_id)
        except TRANSIENT as error:
            log.warning("could not record a connection", table=table_id, seat=seat,
                        error=repr(error))

    async def disconnected(self, table_id: str, seat: int) -> None:
        try:
            await self.pool.execute(QUERIES["disconnected"], table_id, seat, self.process_id)
        except TRANSIENT as error:
            log.warning("could not record a disconnection", table=table_id, seat=seat,
                        error=repr(error))

    async def renew(self) -> None:
        """This process is alive for LIFE_SECONDS more."""
        await self.pool.execute(QUERIES["alive"], self.process_id, LIFE_SECONDS)

    async def absent(self, grace: float, limit: int = 200) -> list[tuple[str, int]]:
        """(table, seat) of players with no live socket for ``grace`` seconds."""
        rows = await self.pool.fetch(QUERIES["absent_seats"], grace, limit)
        return [(row["table_id"], row["seat"]) for row in rows]

    async def forget_absence(self, table_id: str, seat: int) -> None:
        await self.pool.execute(QUERIES["forget_absence"], table_id, seat)

    async def close(self) -> None:
        """This process stops: its sockets are gone (closed), and so is it."""
        try:
            await self.pool.execute(QUERIES["process_stopped"], self.process_id)
            await self.pool.execute(QUERIES["gone"], self.process_id)
        except TRANSIENT as error:
            log.warning("could not record this process's end", error=repr(error))
