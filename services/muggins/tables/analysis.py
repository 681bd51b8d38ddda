"""A finished hand's analysis: every decision as the expert judges it.

Thought once per hand and kept in the database (``hand_analyses``), so a
second request, through any process, is a read.  A new analysis is the
costliest work the site does: each is charged to the client's address
(429 with Retry-After past its budget), and thought in
the spare-time worker at the lowest priority, after the bots and the hints
(muggins.tables.admission).
"""

from __future__ import annotations

import asyncpg
import structlog
from litestar import Request

from muggins.client.pages import stored_game
from muggins.domain import streams
from muggins.domain.streams import HandRef, NoSuchHand
from muggins.eventstore.store import EventStore
from muggins.replay.record import HandInPlay, RecordError
from muggins.replay.verify import slice_of
from muggins.rules.game import fold
from muggins.tables.admission import Admission, OnceAtATime, Payer, count
from muggins.tables.bot_workers import SpareTimeBusy, SpareTimeWorker
from muggins.tables.client_address import client_address
from muggins.tables.errors import Refusal
from muggins.tables.seating import QUERIES

log = structlog.get_logger(__name__)


class AnalysisUnavailable(Refusal):
    code = "analysis-unavailable"
    status = 503


class Analyses:
    def __init__(self, store: EventStore, admission: Admission,
                 thinker: SpareTimeWorker) -> None:
        self.store = store
        self.pool: asyncpg.Pool = store.pool
        self.admission = admission
        self.thinker = thinker
        #: Analyses being thought in this process: a second asker waits for the first.
        self._working: OnceAtATime[HandRef, bytes] = OnceAtATime()

    async def analysis(self, request: Request, table_id: str, game: int,  # type: ignore[type-arg]
                       hand: int) -> bytes:
        """The hand's analysis as JSON (a Refusal or HTTPException says why not).

        Reading one already thought is free; thinking a new one is charged
        to the client's address (Throttled past its budget)."""
        key = streams.hand_ref(table_id, game, hand)  # NoSuchTable, NoSuchHand: 404
        address = client_address(request)
        payer = [Payer("address", address)]
        # Every request pays a little before it costs a query; a new analysis
        # pays more, before its game is loaded.  A refusal is the asker's own,
        # never shared with another asking for the same hand.
        self.admission.admit("analysis-request", payer)
        kept = await self.pool.fetchval(QUERIES["stored_analysis"], *key)
        if kept is not None:
            count("analysis", "cached")
            return bytes(kept)
        self.admission.admit("analysis", payer)
        return await self._working.answer(key, lambda: self._think(self.store, key, address))

    async def _think(self, store: EventStore, key: HandRef, address: str) -> bytes:
        table_id, game, hand = key
        stored = await stored_game(store, key)
        try:
            part = slice_of(stored, hand)
        except RecordError as error:
            raise NoSuchHand(str(error)) from None
        if not part.finished:
            raise HandInPlay(f"hand {hand} is still being played: it can be analysed when it ends")
        before = fold(entry.event for entry in stored[: part.start])
        events = [entry.event for entry in stored[part.start : part.stop]]
        try:
            result = await self.thinker.analyse(before, events, f"{table_id}/{game}",
                                                payer=address)
        except SpareTimeBusy:
            count("analysis", "busy")
            raise AnalysisUnavailable("the analyst has too many hands waiting: "
                                      "try again in a minute") from None
        except Exception as failure:
            count("analysis", "failed")
            log.error("a hand could not be analysed", table=table_id, game=game, hand=hand,
                      error=repr(failure), exc_info=failure)
            raise AnalysisUnavailable("the hand cannot be analysed just now") from None
        await self.pool.execute(QUERIES["keep_analysis"], *key, result)
        return result
