"""Hints: the expert's suggestion for a person's turn at a casual table.

One hint per seat per position (game and version), shared by every socket
and every process: the first one thought is kept in the database
(``hints``), and asking again, from any tab or replica, reads it back.  A
new hint is costly work: it is charged to the seat, the person's identity
and the client's address (muggins.tables.admission), and thought in the
spare-time worker, after the bots.
"""

from __future__ import annotations

from collections.abc import Sequence

import asyncpg
import msgspec
import structlog

from muggins.rules.errors import IllegalMove
from muggins.rules.events import Event, HandStarted
from muggins.rules.game import forced_move
from muggins.rules.state import GameState
from muggins.tables.admission import Admission, OnceAtATime, Payer, count
from muggins.tables.bot_workers import SpareTimeBusy, SpareTimeWorker
from muggins.tables.errors import HintsOff, Refusal
from muggins.tables.follower import GameFollower
from muggins.tables.protocol import Hint
from muggins.tables.seating import QUERIES

log = structlog.get_logger(__name__)

_hint_decoder = msgspec.json.Decoder(Hint)


class HintUnavailable(Refusal):
    code = "hint-unavailable"
    status = 503


class Hints:
    def __init__(self, pool: asyncpg.Pool, admission: Admission, thinker: SpareTimeWorker) -> None:
        self.pool = pool
        self.admission = admission
        self.thinker = thinker
        #: Hints being thought in this process: a second asker waits for the first.
        self._working: OnceAtATime[tuple[str, int, int, int], Hint] = OnceAtATime()

    async def hint(self, follower: GameFollower, seat: int, payers: list[Payer]) -> Hint:
        """The hint for ``seat``'s turn as the follower has the game now (a
        Refusal says why there is none)."""
        state = follower.state
        if state is None or not state.ruleset.hints:
            raise HintsOff("hints are for casual tables: this one has none")
        hand = state.hand
        if (hand is None or state.phase != "playing" or hand.turn != seat
                or not follower.at_append_end or forced_move(state) is not None):
            raise IllegalMove("a hint is for your own turn, when you have a play to choose")
        key = (follower.table_id, follower.game, follower.version, seat)
        stored = await self.pool.fetchval(QUERIES["stored_hint"], *key)
        if stored is not None:
            count("hint", "cached")
            return _hint_decoder.decode(stored)
        # Each asker pays for a hint not kept yet (the budget's refusal is
        # the asker's own, never shared with another asking the same).
        self.admission.admit("hint", payers)
        started = max((i for i, e in enumerate(follower.events) if isinstance(e, HandStarted)),
                      default=0)
        events = follower.events[started:]
        return await self._working.answer(key, lambda: self._think(key, state, events, payers))

    async def _think(self, key: tuple[str, int, int, int], state: GameState,
                     events: Sequence[Event], payers: list[Payer]) -> Hint:
        try:
            address = next((payer.key for payer in payers if payer.kind == "address"), "")
            best = await self.thinker.suggest(state, events, "/".join(map(str, key[:3])),
                                              payer=address)
        except SpareTimeBusy:
            count("hint", "busy")
            raise HintUnavailable("the expert has too many hints to think about: "
                                  "try again in a moment") from None
        except Exception:
            count("hint", "failed")
            raise
        hint = Hint(key[1], key[2], best.tile, best.end, best.scores_now,
                    round(best.expected_points, 1))
        kept = await self.pool.fetchval(QUERIES["keep_hint"], *key, msgspec.json.encode(hint))
        if kept is None:
            # Another process kept one in the same instant (its row was not in
            # this statement's snapshot): that one is the answer.
            kept = await self.pool.fetchval(QUERIES["stored_hint"], *key)
        return hint if kept is None else _hint_decoder.decode(kept)
