"""Spectators: a WebSocket and Server-Sent Events over the table's feed.

The plumbing is the socket session's (muggins.tables.socket_session) and
the feed is one per table per process (muggins.tables.feeds); what a
spectator's socket adds is small: join the feed (from a version, to resume),
send what the feed queues, resend from a version on "since", and talk in
the chat under a name that is not a seated player's.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import AsyncIterator

from litestar import Request, get, websocket
from litestar.connection import WebSocket
from litestar.exceptions import HTTPException
from litestar.params import FromPath, FromQuery
from litestar.response import ServerSentEvent, ServerSentEventMessage
from litestar.status_codes import HTTP_400_BAD_REQUEST

from muggins.domain import streams
from muggins.domain.chat import speaker_name
from muggins.tables.admission import Payer, Throttled
from muggins.tables.chat import refuse_a_seated_name
from muggins.tables.client_address import client_address
from muggins.tables.errors import (
    BadRequest,
    RateLimited,
    Refusal,
    SpectatorsWatch,
    TooManySockets,
)
from muggins.tables.feeds import Spectator, SpectatorFeeds, TableFeed
from muggins.tables.http import refused, runtime_of
from muggins.tables.limits import SocketKind, SocketLease
from muggins.tables.protocol import Chat
from muggins.tables.runtime import Runtime
from muggins.tables.socket_session import TOO_SLOW, Closing, SocketSession, serve_socket

#: Seconds between SSE comments that keep idle connections (and proxies) open.
SSE_KEEPALIVE = 15.0


class SpectatorHandler:
    """What a spectator's socket does on top of the session."""

    kind: SocketKind = "watch"

    def __init__(self, runtime: Runtime, table: str, since: int | None,
                 game: int | None) -> None:
        self.runtime = runtime
        self.asked_for = table
        self.since = since
        self.game = game
        self.feed: TableFeed | None = None
        #: The spectator's place in the feed; a resume ("since") replaces it.
        self.current: Spectator | None = None

    def version(self) -> int | None:
        return None

    async def start(self, session: SocketSession) -> None:
        checked = streams.table_id(self.asked_for)
        if self.since is not None and self.since < 0:
            raise BadRequest("since is a version: 0 or more")
        if self.game is not None and not 0 <= self.game <= streams.MAX_GAME:
            raise BadRequest(f"game is a game number: 0 to {streams.MAX_GAME}")
        self.feed, self.current = await self.runtime.feeds.join(checked, self.since, self.game)
        session.source = self.next_message

    async def next_message(self) -> str | Closing:
        """The next frame the feed queued for this spectator (or, cut off: close)."""
        while True:
            spectator = self.current
            assert spectator is not None
            frame = await spectator.next()
            if spectator is not self.current:
                continue  # replaced by a resume: what it held is not wanted now
            return TOO_SLOW if frame is None else frame.text

    async def resume(self, session: SocketSession, version: int) -> None:
        assert self.feed is not None and self.current is not None
        # One resend in flight at a time: a loop of "since 0" must not turn
        # the feed into an amplifier.
        if self.current.waiting():
            raise RateLimited("one resend at a time: wait for the last")
        replaced = self.current
        self.current = self.feed.join(version, self.feed.game, chat=False)
        self.feed.leave(replaced)
        replaced.offer(None)  # wakes the send loop, which moves to the new place

    async def handle(self, session: SocketSession, message: object) -> None:
        raise SpectatorsWatch("spectators watch: they cannot play")

    async def say(self, session: SocketSession, chat: Chat) -> None:
        assert self.feed is not None
        heard = self.feed.following.table
        if heard is None:
            raise Refusal("the chat cannot be reached here")
        name = speaker_name(chat.name, "spectator")
        # A name the feed knows as seated is refused without a read (such a
        # refusal is no strike: a loop of them must cost the store nothing).
        refuse_a_seated_name(heard.state, name)
        # Then the table as the store has it now, not as this feed last heard:
        # a spectator could take the name of a person who had just sat down
        # (a test's line in the name of "Guest 417", sent just after they sat,
        # was stored in a fresh-clone run).
        table = await self.runtime.seating.table(self.feed.table_id, fresh=True)
        await self.runtime.chat.say(
            self.feed.table_id, table.state, name=name,
            seat=None, text=chat.text, phrase=chat.phrase,
            payers=[session.socket_payer, session.address_payer])

    async def finish(self, session: SocketSession) -> None:
        if self.feed is not None and self.current is not None:
            with contextlib.suppress(Exception):
                await self.runtime.feeds.leave(self.feed, self.current)


@websocket("/tables/{table_id:str}/watch")
async def watch_socket(
    socket: WebSocket,  # type: ignore[type-arg]
    table_id: FromPath[str],
    since: FromQuery[int | None] = None,
    game: FromQuery[int | None] = None,
) -> None:
    """A spectator's socket (docs/service.md, "Spectators")."""
    runtime = runtime_of(socket)
    await serve_socket(socket, runtime, SpectatorHandler(runtime, table_id, since, game))


def _resume_point(last_event_id: str | None, since: str | None) -> tuple[int | None, int | None]:
    """(game, version) from a Last-Event-ID or ?since= of the form "game.version"."""
    raw = last_event_id or since
    if not raw:
        return None, None
    game, _, version = raw.partition(".")
    if not (game.isascii() and game.isdigit() and version.isascii() and version.isdigit()
            and len(raw) <= 24):
        raise HTTPException(status_code=HTTP_400_BAD_REQUEST,
                            detail="resume from an id of the form GAME.VERSION, e.g. 2.57")
    return int(game), int(version)


class EventStream:
    """One spectator over Server-Sent Events: its place in the feed and its
    socket count, given back exactly once, when the stream ends, or when
    its body is dropped without having started (a client gone before the
    first byte: no ``finally`` of the body ever runs then)."""

    def __init__(self, feeds: SpectatorFeeds, feed: TableFeed, spectator: Spectator,
                 lease: SocketLease) -> None:
        self.feeds = feeds
        self.feed = feed
        self.spectator = spectator
        self.lease = lease
        self.ended = False

    def body(self) -> AsyncIterator[ServerSentEventMessage]:
        messages = self._messages()
        weakref.finalize(messages, self.end)
        return messages

    async def _messages(self) -> AsyncIterator[ServerSentEventMessage]:
        try:
            while True:
                try:
                    frame = await self.spectator.next(SSE_KEEPALIVE)
                except TimeoutError:
                    yield ServerSentEventMessage(data=None, comment="still here")
                    continue
                if frame is None:
                    return  # cut off as too slow: the browser reconnects with its last id
                for message in frame.messages:  # SSE has events of its own: one each
                    yield ServerSentEventMessage(data=message.json, event=message.kind,
                                                 id=message.event_id)
        finally:
            self.end()

    def end(self) -> None:
        if self.ended:
            return
        self.ended = True
        self.lease.release()
        self.feeds.leave_soon(self.feed, self.spectator)


@get("/tables/{table_id:str}/events", summary="A table's public events as Server-Sent Events",
     description="The public view, then every public event and chat line as it happens.  "
                 "Each event's id is GAME.VERSION: reconnect with it (Last-Event-ID) to get "
                 "exactly what was missed.")
async def table_events(
    request: Request,  # type: ignore[type-arg]
    table_id: FromPath[str],
    since: FromQuery[str | None] = None,
) -> ServerSentEvent:
    game, version = _resume_point(request.headers.get("last-event-id"), since)
    checked = streams.table_id(table_id)
    runtime = runtime_of(request)
    address = client_address(request)
    try:
        runtime.admission.admit("socket", [Payer("address", address)])
    except Throttled as error:
        raise refused(error) from None
    lease = runtime.sockets.lease(address, "events")
    if lease is None:
        raise refused(TooManySockets("too many connections from your address"))
    try:
        feed, spectator = await runtime.feeds.join(checked, version, game)
    except BaseException as error:
        lease.release()
        if isinstance(error, Refusal):
            raise refused(error) from None
        raise
    stream = EventStream(runtime.feeds, feed, spectator, lease)
    return ServerSentEvent(stream.body(), headers={"Cache-Control": "no-store",
                                                   "X-Accel-Buffering": "no"})
