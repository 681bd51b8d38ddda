"""Spectators: one feed per watched table per process, shared by every
spectator, served over a WebSocket and over Server-Sent Events.

A feed is a GameFollower's reader: per event it makes the public copy,
encodes it once and hands it to every spectator's queue, whatever their
number; a spectator that cannot keep up is cut off (and reconnects with the
last version it saw) rather than slowing anybody else.  Nothing here
touches the players' command path: the feeds read the bus, and the store
only to start and to fill a gap, so they can run in a process of their own
(``muggins serve --role spectators``).
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import msgspec
import structlog
from litestar import Request, get, websocket
from litestar.connection import WebSocket
from litestar.exceptions import HTTPException, WebSocketDisconnect
from litestar.params import FromPath, FromQuery
from litestar.response import ServerSentEvent, ServerSentEventMessage
from litestar.status_codes import HTTP_400_BAD_REQUEST

from muggins.bus.connection import Bus, BusSubscription
from muggins.bus.jetstream import BUS_TRANSIENT
from muggins.chat import speaker_name
from muggins.logs import log_context
from muggins.rules.events import Event, event_encoder, visible_to
from muggins.streams import spectators_subject
from muggins.tables.chat import TableChat, chat_bucket
from muggins.tables.errors import TRANSIENT, BadRequest, Refusal, TooManySockets
from muggins.tables.follower import Followers, GameFollower, start_once
from muggins.tables.http import (
    checked_id,
    client_address,
    refuse_socket,
    refused,
    runtime_of,
)
from muggins.tables.limits import POLICY_VIOLATION, SocketsPerAddress, Strikes, TokenBucket
from muggins.tables.protocol import (
    Chat,
    ChatLine,
    ErrorMessage,
    EventMessage,
    GameStartedMessage,
    Ping,
    Pong,
    Since,
    SpectatorCount,
    ViewMessage,
    Welcome,
    client_message_decoder,
    encode,
    event_message,
)
from muggins.views import game_view

log = structlog.get_logger(__name__)

#: Messages a spectator may have waiting before it is cut off as too slow.
SPECTATOR_BACKLOG = 2000
#: Seconds between repeats of each process's spectator counts, for players who
#: connected since (changes are told at once).
COUNT_EVERY = 10.0
#: Seconds between SSE comments that keep idle connections (and proxies) open.
SSE_KEEPALIVE = 15.0
MAX_MESSAGE_BYTES = 4096
#: Resends ("since") a spectator may ask for: a burst, then this many a second.
SINCE_BURST = 3
SINCE_PER_SECOND = 1.0


@dataclass(eq=False)
class FeedMessage:
    """One message for spectators, encoded once: ``kind`` is its type tag."""

    kind: str
    game: int
    version: int
    json: str

    @property
    def event_id(self) -> str:
        """The id an SSE client sends back as Last-Event-ID: game and version."""
        return f"{self.game}.{self.version}"


def _message(message: Welcome | EventMessage | ViewMessage | GameStartedMessage,
             game: int, version: int) -> FeedMessage:
    kind = {Welcome: "welcome", EventMessage: "event", ViewMessage: "view",
            GameStartedMessage: "game"}[type(message)]
    return FeedMessage(kind, game, version, encode(message).decode())


@dataclass(eq=False)
class Spectator:
    """One spectator's place in a feed: a queue of messages, or cut off."""

    queue: asyncio.Queue[FeedMessage | None] = field(
        default_factory=lambda: asyncio.Queue(SPECTATOR_BACKLOG)
    )
    cut_off: bool = False

    def offer(self, message: FeedMessage | None) -> bool:
        try:
            self.queue.put_nowait(message)
        except asyncio.QueueFull:
            self.cut_off = True
            return False
        return True

    async def next(self, timeout: float | None = None) -> FeedMessage | None:
        """The next message; None when the feed cut this spectator off or closed."""
        if self.cut_off:
            return None
        # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow a
        # cancellation that lands as the message arrives, and a feed that
        # survives its cancel keeps the server from shutting down.
        async with asyncio.timeout(timeout):
            return await self.queue.get()


class TableFeed:
    """The public side of one table, live, for any number of spectators: a
    reader of the table's follower that keeps the public messages encoded."""

    def __init__(self, table_id: str, followers: Followers) -> None:
        self.table_id = table_id
        self.followers = followers
        self.follower: GameFollower | None = None
        #: The current game's public messages: events[v - 1] is version v.
        self.events: list[FeedMessage] = []
        self.view: FeedMessage | None = None
        self.spectators: set[Spectator] = set()
        #: Its follower ended by a bug: nobody joins it any more.
        self.failed = False

    @property
    def following(self) -> GameFollower:
        assert self.follower is not None, "a feed follows its table once started"
        return self.follower

    @property
    def game(self) -> int:
        return self.following.game

    @property
    def version(self) -> int:
        return self.following.version

    @property
    def clock(self) -> int:
        table = self.following.table
        return table.state.turn_clock_seconds if table is not None else 0

    # ------------------------------------------------------------ life

    async def start(self) -> None:
        await self.followers.join(self.table_id, self, on_join=self._begin)

    async def _begin(self, follower: GameFollower) -> None:
        """What the table holds when the feed joins its follower."""
        self.follower = follower
        for version, event in enumerate(follower.events, start=1):
            self._add_event(version, event, follower.actors[version - 1],
                            follower.count_parts[version - 1])
        if follower.state is not None:
            self.view = _message(self._view_message(), self.game, self.version)

    async def close(self) -> None:
        await self.followers.leave(self.table_id, self)
        for spectator in list(self.spectators):
            spectator.offer(None)
        self.spectators.clear()

    # ------------------------------------------------------------ spectators

    def join(self, since: int | None = None, game: int | None = None) -> Spectator:
        """A new spectator, its queue holding the welcome and what it missed.

        ``since`` is the last version the spectator saw of ``game`` (the
        current game if not given): it then gets exactly the events after it.
        """
        spectator = Spectator()
        if game is not None and game != self.game:
            since = None  # another game: start afresh with its view
        if since is None or since >= self.version or since < 0:
            view = self._view_message().view if self.following.state is not None else None
            spectator.offer(_message(
                Welcome(self.table_id, None, self.game, self.version, view, self.clock,
                        self.following.seconds_to_move()),
                self.game, self.version))
        else:
            spectator.offer(_message(
                Welcome(self.table_id, None, self.game, since, None, self.clock),
                self.game, since))
            for message in self.events[since:]:
                spectator.offer(message)
            if self.view is not None:
                spectator.offer(self.view)
        self.spectators.add(spectator)
        return spectator

    def leave(self, spectator: Spectator) -> None:
        self.spectators.discard(spectator)

    def _broadcast(self, message: FeedMessage) -> None:
        for spectator in list(self.spectators):
            if not spectator.offer(message):
                self.spectators.discard(spectator)
                log.info("a spectator fell too far behind and was cut off",
                         table=self.table_id)

    # ------------------------------------------------------------ what the follower tells

    async def on_game(self, follower: GameFollower) -> None:
        self.events, self.view = [], None
        self._broadcast(_message(GameStartedMessage(self.game), self.game, 0))
        self._broadcast(_message(Welcome(self.table_id, None, self.game, 0, None, self.clock),
                                 self.game, 0))

    async def on_event(self, follower: GameFollower, version: int, event: Event) -> None:
        self._broadcast(self._add_event(version, event, follower.actors[version - 1],
                                        follower.count_parts[version - 1]))

    async def on_settled(self, follower: GameFollower) -> None:
        if follower.state is not None:
            self.view = _message(self._view_message(), self.game, self.version)
            self._broadcast(self.view)

    async def on_failed(self, follower: GameFollower) -> None:
        """The follower ended by a bug (logged): every spectator is cut off
        (and reconnects), and the next one starts a new feed."""
        self.failed = True
        for spectator in list(self.spectators):
            spectator.offer(None)
        self.spectators.clear()

    def _add_event(self, version: int, event: Event, actor: str,
                   parts: list[int] | None) -> FeedMessage:
        public = visible_to(event, "public")
        message = _message(
            event_message(self.game, version, event_encoder.encode(public), actor, parts),
            self.game, version)
        self.events.append(message)
        return message

    def _view_message(self) -> ViewMessage:
        follower = self.following
        assert follower.state is not None and follower.table is not None
        table = follower.table.state
        return ViewMessage(self.game, self.version,
                           game_view(follower.state, None, table.names, table.bots),
                           follower.seconds_to_move(), spectators=len(self.spectators))


class SpectatorFeeds:
    """This process's feeds, one per watched table, closed when nobody watches."""

    def __init__(self, bus: Bus, followers: Followers) -> None:
        self.bus = bus
        self.followers = followers
        #: Names this process in spectator counts on the bus.
        self.process = uuid.uuid4().hex
        self._feeds: dict[str, TableFeed] = {}
        self._starting: dict[str, asyncio.Task[TableFeed]] = {}
        self._repeating: asyncio.Task[None] | None = None

    def watching(self, table_id: str) -> int:
        feed = self._feeds.get(table_id)
        return len(feed.spectators) if feed is not None else 0

    async def feed(self, table_id: str) -> TableFeed:
        """The table's feed, started if nobody watched it yet (TableNotFound if no table)."""
        feed = self._feeds.get(table_id)
        if feed is not None and not feed.failed:
            return feed
        if feed is not None:  # its follower failed; it left it already
            del self._feeds[table_id]
        return await start_once(self._starting, table_id, self._start)

    async def _start(self, table_id: str) -> TableFeed:
        feed = TableFeed(table_id, self.followers)
        try:
            await feed.start()
        except BaseException:
            await feed.close()
            raise
        self._feeds[table_id] = feed
        if self._repeating is None:
            self._repeating = asyncio.create_task(self._repeat_counts())
        return feed

    async def _repeat_counts(self) -> None:
        """Every COUNT_EVERY seconds, each feed's count again (for players
        who connected since)."""
        while True:
            await asyncio.sleep(COUNT_EVERY)
            for feed in list(self._feeds.values()):
                await self._tell_players(feed)

    async def join(self, table_id: str, since: int | None = None,
                   game: int | None = None) -> tuple[TableFeed, Spectator]:
        """A new spectator of the table (see TableFeed.join); the players are told."""
        feed = await self.feed(table_id)
        spectator = feed.join(since, game)
        await self._tell_players(feed)
        return feed, spectator

    async def leave(self, feed: TableFeed, spectator: Spectator) -> None:
        feed.leave(spectator)
        await self._tell_players(feed)
        if not feed.spectators and self._feeds.get(feed.table_id) is feed:
            del self._feeds[feed.table_id]
            await feed.close()

    async def _tell_players(self, feed: TableFeed) -> None:
        """The table's players hear how many watch through this process: a
        courtesy, so the bus away skips it (the next count says the same);
        a bug is logged with its traceback, and the spectators go on."""
        try:
            await self.bus.publish(spectators_subject(feed.table_id), encode(
                SpectatorCount(self.process, len(feed.spectators))))
        except BUS_TRANSIENT:
            pass
        except Exception as error:
            log.error("a spectator count could not be sent", table=feed.table_id,
                      error=repr(error), exc_info=error)

    async def close(self) -> None:
        if self._repeating is not None:
            self._repeating.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._repeating
        for feed in list(self._feeds.values()):
            await feed.close()
        self._feeds.clear()


# ---------------------------------------------------------------- handlers


async def _watch_socket_loop(socket: WebSocket, feeds: SpectatorFeeds,  # type: ignore[type-arg]
                             sockets: SocketsPerAddress, table_id: str,
                             since: int | None, chat: TableChat | None = None,
                             game: int | None = None) -> None:
    """Send the feed to one spectator; read only ``since`` (to resume) from it."""
    feed, first = await feeds.join(table_id, since, game)
    #: The spectator's place in the feed; a resume ("since") replaces it.
    current = [first]

    async def send_loop() -> None:
        while True:
            spectator = current[0]
            message = await spectator.next()
            if spectator is not current[0]:
                continue  # replaced by a resume: what it held is not wanted now
            if message is None:
                await socket.close(1013, "you fell behind: reconnect with since")
                return
            await socket.send_data(message.json)
            if not welcomed:
                # The chat after the welcome, so that the page knows the table.
                welcomed.append(True)
                for line in early:
                    await hear(line)
                early.clear()

    resends = TokenBucket(SINCE_PER_SECOND, SINCE_BURST)
    talk = chat_bucket()
    listening: list[BusSubscription] = []
    #: Chat lines that came before the welcome went out (sent right after it).
    early: list[ChatLine] = []
    welcomed: list[bool] = []
    pings = TokenBucket(1.0, 5)
    strikes = Strikes()

    async def refuse(code: str, text: str) -> None:
        if strikes.add():
            sockets.send_away(client_address(socket))
            await socket.close(POLICY_VIOLATION, "too many refused messages")
            raise WebSocketDisconnect(detail="closed for too many refused messages")
        await socket.send_data(encode(ErrorMessage(code, text)).decode())

    async def receive_loop() -> None:
        while True:
            raw = await socket.receive_data(mode="text")
            message: object = None
            if len(raw) <= MAX_MESSAGE_BYTES:
                with contextlib.suppress(msgspec.ValidationError, msgspec.DecodeError):
                    message = client_message_decoder.decode(raw)
            if isinstance(message, Chat):
                await say(message)
                continue
            if isinstance(message, Ping):
                if not pings.take():
                    await refuse("rate-limited", "too many pings")
                    continue
                await socket.send_data(encode(Pong()).decode())
                continue
            if not isinstance(message, Since):
                await refuse("spectator", "spectators watch: they cannot play")
                continue
            # One resend in flight at a time, and a few a second: a loop of
            # "since 0" must not turn the feed into an amplifier.
            if not current[0].queue.empty() or not resends.take():
                await refuse("rate-limited", "one resend at a time: wait for the last")
                continue
            replaced = current[0]
            current[0] = feed.join(message.version, feed.game)
            feed.leave(replaced)
            replaced.offer(None)  # wakes the send loop, which moves to the new place

    async def say(message: Chat) -> None:
        table = feed.following.table
        if chat is None:
            return
        try:
            await chat.say(table_id, enabled=table is not None and table.state.chat,
                           bucket=talk, name=speaker_name(message.name, "spectator"), seat=None,
                           text=message.text, phrase=message.phrase)
        except Refusal as refused:
            await refuse(refused.code, str(refused))  # a flood of refused lines is sent away
        except TRANSIENT:
            await socket.send_data(encode(ErrorMessage(
                "unavailable", "the chat cannot be reached just now: try again")).decode())

    async def hear(line: ChatLine) -> None:
        if not welcomed:
            early.append(line)
            return
        with contextlib.suppress(Exception):  # the socket may be closing
            await socket.send_data(encode(line).decode())

    async def join_chat(chat: TableChat) -> None:
        listening.append(await chat.listen(table_id, hear))
        try:
            for line in await chat.recent(table_id):
                await hear(line)
        except TRANSIENT as error:
            log.warning("the chat's recent lines could not be read", error=repr(error))

    with log_context(table=table_id, reader="spectator"):
        if chat is not None:
            try:
                await join_chat(chat)
            except Exception:
                await feeds.leave(feed, current[0])
                raise
        tasks = [asyncio.create_task(send_loop()), asyncio.create_task(receive_loop())]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            for subscription in listening:
                with contextlib.suppress(Exception):
                    await subscription.unsubscribe()
            await feeds.leave(feed, current[0])


@websocket("/tables/{table_id:str}/watch")
async def watch_socket(
    socket: WebSocket,  # type: ignore[type-arg]
    table_id: FromPath[str],
    since: FromQuery[int | None] = None,
    game: FromQuery[int | None] = None,
) -> None:
    await socket.accept()
    runtime = runtime_of(socket)
    try:
        checked_id(table_id)
        if since is not None and since < 0:
            raise BadRequest("since is a version: 0 or more")
        if game is not None and not 0 <= game <= 1_000_000:
            raise BadRequest("game is a game number: 0 to 1000000")
        with runtime.sockets.slot(client_address(socket), "watch") as allowed:
            if not allowed:
                await refuse_socket(socket, "too-many-sockets",
                                    "too many connections from your address")
                return
            await _watch_socket_loop(socket, runtime.feeds, runtime.sockets, table_id, since,
                                     runtime.chat, game)
    except Refusal as error:
        with contextlib.suppress(Exception):
            await socket.send_data(encode(ErrorMessage(error.code, str(error))).decode())
            await socket.close(1008, error.code)
    except TRANSIENT:
        with contextlib.suppress(Exception):
            await socket.send_data(encode(ErrorMessage(
                "unavailable", "the table cannot be reached just now: reconnect")).decode())
            await socket.close(1013, "try again later")
    except WebSocketDisconnect:
        pass


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


@get("/tables/{table_id:str}/events", summary="A table's public events as Server-Sent Events",
     description="The public view, then every public event as it happens.  Each message's "
                 "id is GAME.VERSION: reconnect with it (Last-Event-ID) to get exactly what "
                 "was missed.")
async def table_events(
    request: Request,  # type: ignore[type-arg]
    table_id: FromPath[str],
    since: FromQuery[str | None] = None,
) -> ServerSentEvent:
    game, version = _resume_point(request.headers.get("last-event-id"), since)
    runtime = runtime_of(request)
    feeds = runtime.feeds
    address = client_address(request)
    if not runtime.sockets.take(address, "events"):
        raise refused(TooManySockets("too many connections from your address"))
    try:
        feed, spectator = await feeds.join(checked_id(table_id), version, game)
    except BaseException as error:
        runtime.sockets.give_back(address, "events")
        if isinstance(error, Refusal):
            raise refused(error) from None
        raise

    async def messages() -> AsyncIterator[ServerSentEventMessage]:
        try:
            while True:
                try:
                    message = await spectator.next(SSE_KEEPALIVE)
                except TimeoutError:
                    yield ServerSentEventMessage(data=None, comment="still here")
                    continue
                if message is None:
                    return  # cut off as too slow: the browser reconnects with its last id
                yield ServerSentEventMessage(data=message.json, event=message.kind,
                                             id=message.event_id)
        finally:
            runtime.sockets.give_back(address, "events")
            await feeds.leave(feed, spectator)

    return ServerSentEvent(messages(), headers={"Cache-Control": "no-store",
                                                "X-Accel-Buffering": "no"})
