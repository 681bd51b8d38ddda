"""A table's life: the one state it is in, derived from its streams alone.

Every part that asks "what is this table doing" asks here: the HTTP status,
the lobby (through the read model the same events build), the scheduler's
next step and the commands a closed table refuses.  It is a pure function
of the table's fold and its current game's fold, beside them, so any
process reaches the same answer.

    waiting        the seats are not all taken yet (no game has begun)
    playing        a game is on (a bot finishes the hand of a person who left)
    paused         between hands, a person is missing: no deal until they
                   come back or those who stayed choose (AbsenceDecided);
                   or the seat was given up for a new person, who has not
                   sat down yet
    between-games  the game is over; a rematch may follow
    closed         for good, with why (muggins.domain.table_events.CloseReason)
"""

from __future__ import annotations

from typing import Literal

import msgspec

from muggins.domain.table_events import CloseReason, TableState
from muggins.rules.state import GameState

LifeKind = Literal["waiting", "playing", "paused", "between-games", "closed"]


class TableLife(msgspec.Struct, frozen=True):
    kind: LifeKind
    #: Why it closed (only when closed).
    reason: CloseReason | None = None
    #: The seats whose person has gone (a bot plays them meanwhile).
    missing: tuple[int, ...] = ()


def _between_hands(game: GameState) -> bool:
    return game.phase == "between-hands" or game.hand is None


def table_life(table: TableState, game: GameState | None) -> TableLife:
    """The one state ``table`` is in, its current game (None: not started) being ``game``."""
    missing = table.missing
    if table.closed is not None:
        return TableLife("closed", table.closed, missing)
    if table.game == 0:
        return TableLife("waiting", missing=missing)
    if game is not None and game.phase == "game-over":
        return TableLife("between-games", missing=missing)
    if game is not None and _between_hands(game) and (
            (missing and table.absence_choice != "bot") or table.free_seats):
        return TableLife("paused", missing=missing)
    return TableLife("playing", missing=missing)


def closing_now(table: TableState, game: GameState | None) -> CloseReason | None:
    """Why the table must close as soon as it can, or None.

    Nobody's bots play to an empty room: when every person at the table has
    gone, the table closes once the hand a bot finished for them is over;
    a table of bots alone (an exhibition) closes when its game is over.
    A table whose game is over and whose people stay (a rematch may come),
    or one still waiting for people, closes only after a while (the
    scheduler's idle wait: muggins.tables.next_step)."""
    if table.closed is not None or table.game == 0 or game is None:
        return None
    over = game.phase == "game-over"
    if not table.people and over:
        return "finished"
    if table.everyone_left and (over or _between_hands(game)):
        return "everyone-left"
    return None
