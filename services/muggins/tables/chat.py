"""A table's chat in the service: say (limited), read the recent lines, listen.

The chat is a stream of its own beside the table's (muggins.streams), so a
burst of talk never contends with the seating for the table stream's next
version.  Every process appends and listens alike: a line said through one
replica reaches the readers of every other over the bus.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import msgspec
import structlog
from nats.aio.msg import Msg

from muggins.bus.connection import Bus, BusSubscription
from muggins.bus.jetstream import bus_message_decoder
from muggins.chat import ChatRefused, ChatSaid, chat_decoder, chat_said
from muggins.eventstore.store import ConcurrencyError, EventStore, RecordedEvent
from muggins.streams import chat_stream, stream_subjects
from muggins.tables.errors import ChatOff, ChatRateLimited, ChatRejected
from muggins.tables.limits import TokenBucket
from muggins.tables.protocol import ChatLine

log = structlog.get_logger(__name__)

#: Lines a reader gets when it joins.
RECENT = 50
#: How fast one socket may talk: a few at once, then one every two seconds.
CHAT_PER_SECOND = 0.5
CHAT_BURST = 4
#: Appends retried when another process wrote the chat's next version first.
APPEND_TRIES = 8


def chat_bucket() -> TokenBucket:
    """What one socket may say."""
    return TokenBucket(CHAT_PER_SECOND, CHAT_BURST)


def chat_line(version: int, event: ChatSaid, recorded_at: str) -> ChatLine:
    return ChatLine(version, event.name, event.seat, event.text, event.phrase, recorded_at)


def _line(recorded: RecordedEvent) -> ChatLine:
    return chat_line(recorded.stream_version, chat_decoder.decode(recorded.payload),
                     recorded.recorded_at.isoformat())


class TableChat:
    def __init__(self, store: EventStore, bus: Bus) -> None:
        self.store = store
        self.bus = bus

    async def say(self, table_id: str, *, enabled: bool, bucket: TokenBucket, name: str,
                  seat: int | None, text: str | None, phrase: str | None) -> None:
        """Append one line (a Refusal says why not: off, too fast, not a message)."""
        if not enabled:
            raise ChatOff("chat is turned off at this table")
        try:
            event = chat_said(name, seat, text, phrase)
        except ChatRefused as refused:
            raise ChatRejected(refused) from None
        if not bucket.take():
            raise ChatRateLimited("you are talking too fast: wait a moment")
        stream = chat_stream(table_id)
        actor = f"seat:{seat}" if seat is not None else "spectator"
        for _ in range(APPEND_TRIES):
            version = await self.store.stream_version(stream)
            try:
                await self.store.append(stream, version, [event], actor=actor)
                return
            except ConcurrencyError:
                continue  # someone spoke at the same moment: after them
        raise ChatRateLimited("the table is talking too fast: try again")

    async def recent(self, table_id: str) -> list[ChatLine]:
        """The last RECENT lines, oldest first."""
        stream = chat_stream(table_id)
        version = await self.store.stream_version(stream)
        recorded = await self.store.read_stream(stream, max(0, version - RECENT))
        return [_line(r) for r in recorded]

    async def listen(self, table_id: str,
                     deliver: Callable[[ChatLine], Awaitable[None]]) -> BusSubscription:
        """Call ``deliver`` with every line said from now on."""

        async def on_message(message: Msg) -> None:
            try:
                bus = bus_message_decoder.decode(message.data)
                line = chat_line(bus.stream_version, chat_decoder.decode(bus.event),
                                 bus.recorded_at)
            except (msgspec.ValidationError, msgspec.DecodeError) as error:
                log.warning("a chat message that is not a line", table=table_id,
                            error=repr(error))
                return
            await deliver(line)

        return await self.bus.subscribe(stream_subjects(chat_stream(table_id)), on_message)
