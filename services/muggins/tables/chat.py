"""A table's chat in the service: say a line, within every limit it has.

The chat is a stream of its own beside the table's (muggins.domain.streams), so a
burst of talk never contends with the seating for the table stream's next
version.  Every process appends alike; readers hear the lines through the
table's follower (muggins.tables.follower), one subscription per table per
process.

A line is a row kept for ever (it is part of the record a player may
dispute, in the hash chain), so what may be said is bounded three ways:

* per speaker (socket and address) and, for spectators together, per
  table: the admission policy's budgets (muggins.tables.admission), with
  spectators held tighter than the players;
* per table, across every process: at most TABLE_BURST lines in any
  TABLE_WINDOW seconds, checked against the stored lines' own times (by
  the database's clock);
* per table, for ever: MAX_LINES lines.  At the per-table rate that is
  over an hour and a half of non-stop talk, many times what a game's table
  says (a few dozen lines), and it bounds one table's chat to about half a
  megabyte however long it lives.  The chat then says it is full.

Spectators stop at half of each of the table's bounds, so that however
many talk, the players keep the other half.  A spectator may not speak
under a name that reads as someone seated at the table (muggins.domain.chat.reads_as),
and the page marks every spectator's line as one.
"""

from __future__ import annotations

import asyncpg

from muggins.domain.chat import ChatRefused, ChatSaid, chat_decoder, chat_said, reads_as
from muggins.domain.codec import encoded_all
from muggins.domain.streams import chat_stream
from muggins.domain.table_events import TableState
from muggins.eventstore.records import ConcurrencyError, RecordedEvent
from muggins.eventstore.store import EventStore
from muggins.tables.admission import Admission, Payer
from muggins.tables.errors import (
    ChatFull,
    ChatNameTaken,
    ChatOff,
    ChatRateLimited,
    ChatRejected,
)
from muggins.tables.names import person_name
from muggins.tables.protocol import ChatLine
from muggins.tables.seating import QUERIES

#: Lines a reader gets when it joins.
RECENT = 50
#: Every speaker of a table together, across processes: this many lines in
#: any window of this many seconds.
TABLE_BURST = 10
TABLE_WINDOW = 30.0
#: Lines a table's chat keeps, in all (see the module's doc).
MAX_LINES = 2000
#: Appends retried when another process wrote the chat's next version first.
APPEND_TRIES = 8


def chat_line(version: int, event: ChatSaid, recorded_at: str) -> ChatLine:
    return ChatLine(version, event.name, event.seat, event.text, event.phrase, recorded_at)


def line_of(recorded: RecordedEvent) -> ChatLine:
    """A stored (or relayed) chat event as the line readers see."""
    return chat_line(recorded.stream_version, chat_decoder.decode(recorded.payload),
                     recorded.recorded_at.isoformat())


def refuse_a_seated_name(table: TableState, name: str) -> None:
    """ChatNameTaken if a spectator's ``name`` reads as someone seated at
    ``table`` (as readers read them: "Invitado 417" is "Guest 417" on an
    English page)."""
    seated = [person_name(taken) for taken in table.names if taken is not None]
    if reads_as(person_name(name), seated):
        raise ChatNameTaken(f"{name!r} reads as someone seated at the table: "
                            "watch under another name")


class TableChat:
    def __init__(self, pool: asyncpg.Pool, store: EventStore, admission: Admission) -> None:
        self.pool = pool
        self.store = store
        self.admission = admission

    async def say(self, table_id: str, table: TableState, *, name: str, seat: int | None,
                  text: str | None, phrase: str | None, payers: list[Payer]) -> None:
        """Append one line (a Refusal says why not; nothing is written then)."""
        if not table.chat:
            raise ChatOff("chat is turned off at this table")
        try:
            event = chat_said(name, seat, text, phrase)
        except ChatRefused as refused:
            raise ChatRejected(refused) from None
        if seat is None:
            refuse_a_seated_name(table, name)
            self.admission.admit("chat-spectator", [*payers, Payer("table", table_id)])
        else:
            self.admission.admit("chat-seat", payers)
        stream = chat_stream(table_id)
        actor = f"seat:{seat}" if seat is not None else "spectator"
        for _ in range(APPEND_TRIES):
            version = await self.store.stream_version(stream)
            await self._check_table_limits(stream, version, spectator=seat is None)
            try:
                await self.store.append(stream, version, encoded_all([event]), actor=actor)
                return
            except ConcurrencyError:
                continue  # someone spoke at the same moment: after them
        raise ChatRateLimited("the table is talking too fast: try again")

    async def _check_table_limits(self, stream: str, version: int, *, spectator: bool) -> None:
        """The table's own bounds.  Spectators stop at half of each, so that
        however many of them talk, the players keep the other half."""
        cap = MAX_LINES // 2 if spectator else MAX_LINES
        burst = TABLE_BURST // 2 if spectator else TABLE_BURST
        if version >= cap:
            raise ChatFull(f"this table's chat is full ({version} lines)")
        if version < burst:
            return
        # The line ``burst`` back said within the window: one more is too many.
        if await self.pool.fetchval(QUERIES["chat_line_said_within"], stream,
                                    version - burst + 1, TABLE_WINDOW):
            raise ChatRateLimited("this table is talking too fast: wait a moment")
