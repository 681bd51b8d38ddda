"""The projections' common ground: the ``Projection`` protocol, its connection, queries and gauges.

Every read model implements ``Projection`` and writes through the runner's
connection.  This lives apart from muggins.projections.runner, which follows
the store and the bus's bell, so that what reads the read models (the
lobby's HTTP handlers, the operator's commands, the metrics) does not
import NATS's client with them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

import asyncpg
from prometheus_client import Counter, Gauge

from muggins.eventstore.records import RecordedEvent
from muggins.infra.sql import load_queries

QUERIES = load_queries(Path(__file__).parent / "queries.sql")

#: A connection lent by the pool: projections write through the runner's.
Connection = asyncpg.pool.PoolConnectionProxy

LAG = Gauge("muggins_projector_lag_events", "Events stored but not yet projected",
            ["projector"])
APPLIED = Counter("muggins_projector_events_total", "Events projected", ["projector"])


class Projection(Protocol):
    """What a projector builds and where it keeps it."""

    name: str

    async def project(self, connection: Connection, page: list[RecordedEvent]) -> None:
        """Fold one page of events into the read model, inside the runner's transaction."""

    async def forget(self, connection: Connection) -> None:
        """Drop the whole read model (before a rebuild)."""

    def lost_track(self) -> None:
        """Forget whatever was kept in memory from earlier pages: the read
        model may have changed since without this runner (another runner's
        pages, a rebuild, a transaction that did not commit)."""
