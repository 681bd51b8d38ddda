"""Spectators' feeds: one per watched table per process, shared by every
spectator whatever their number.

A feed is a GameFollower's reader: per event it makes the public copy and
encodes it once; what one change of the table brings (its events, then the
public view) goes to every spectator's queue as one frame, encoded once, so
a crowd costs one send per spectator per move.  The table's chat comes
through the same follower and the same queues.  A spectator that
cannot keep up is cut off (and reconnects with the last version it saw)
rather than slowing anybody else.  Nothing here touches the players'
command path: the feeds read the bus, and the store only to start and to
fill a gap, so they can run in a process of their own
(``muggins serve --role spectators``).
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections import deque
from dataclasses import dataclass

import structlog

from muggins.bus.connection import Bus
from muggins.bus.jetstream import BUS_TRANSIENT
from muggins.domain.streams import spectators_subject
from muggins.domain.views import game_view
from muggins.rules.events import Event, event_encoder, visible_to
from muggins.tables.chat import RECENT
from muggins.tables.follower import Followers, GameFollower, start_once
from muggins.tables.life_view import life_view
from muggins.tables.next_step import Timings
from muggins.tables.protocol import (
    ChatLine,
    EventMessage,
    GameStartedMessage,
    LifeView,
    SpectatorCount,
    ViewMessage,
    Welcome,
    encode,
    event_message,
)

log = structlog.get_logger(__name__)

#: Messages a spectator may have waiting before it is cut off as too slow.
SPECTATOR_BACKLOG = 2000
#: Seconds between repeats of each process's spectator counts, for players who
#: connected since (changes are told at once).
COUNT_EVERY = 10.0
#: Seconds within which a change of the count is told (changes meanwhile join it).
COUNT_COALESCE = 0.5


@dataclass(eq=False)
class FeedMessage:
    """One message for spectators, encoded once: ``kind`` is its type tag."""

    kind: str
    game: int
    version: int
    json: str

    @property
    def event_id(self) -> str | None:
        """The id an SSE client sends back as Last-Event-ID: game and version
        (none for a chat line: it is not a place in the game to resume from)."""
        return None if self.kind == "chat" else f"{self.game}.{self.version}"


def _message(message: Welcome | EventMessage | ViewMessage | GameStartedMessage | ChatLine,
             game: int, version: int) -> FeedMessage:
    kind = {Welcome: "welcome", EventMessage: "event", ViewMessage: "view",
            GameStartedMessage: "game", ChatLine: "chat"}[type(message)]
    return FeedMessage(kind, game, version, encode(message).decode())


#: Messages one frame holds at most (a long catch-up is sent in several).
FRAME_MESSAGES = 64


class FeedFrame:
    """What a spectator is sent at once: one message, or several as a JSON
    array (docs/service.md, "Spectators"), its text made once for all."""

    __slots__ = ("_text", "messages")

    def __init__(self, messages: list[FeedMessage]) -> None:
        self.messages = messages
        self._text: str | None = None

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = (self.messages[0].json if len(self.messages) == 1
                          else "[" + ",".join(m.json for m in self.messages) + "]")
        return self._text


def frames(messages: list[FeedMessage]) -> list[FeedFrame]:
    """``messages`` in frames of at most FRAME_MESSAGES."""
    return [FeedFrame(messages[first:first + FRAME_MESSAGES])
            for first in range(0, len(messages), FRAME_MESSAGES)]


class Spectator:
    """One spectator's place in a feed: the frames waiting for it, or cut off.

    A deque and the one task that may wait on it, not an asyncio.Queue: a
    crowd is told of every frame, one wake-up each, and the queue's own
    bookkeeping was a fifth of a spectators' process's work at 2,000 of them.
    ``None`` in the frames means "no more" (the feed closed, or a resume
    replaced this place)."""

    __slots__ = ("_waiter", "cut_off", "frames")

    def __init__(self) -> None:
        self.frames: deque[FeedFrame | None] = deque()
        self.cut_off = False
        self._waiter: asyncio.Future[None] | None = None

    def offer(self, frame: FeedFrame | None) -> bool:
        """Queue ``frame``; False (and cut off) if SPECTATOR_BACKLOG wait already."""
        if len(self.frames) >= SPECTATOR_BACKLOG:
            self.cut_off = True
            self._wake()
            return False
        self.frames.append(frame)
        self._wake()
        return True

    def waiting(self) -> bool:
        """Whether frames wait to be sent."""
        return bool(self.frames)

    def _wake(self) -> None:
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def next(self, timeout: float | None = None) -> FeedFrame | None:
        """The next frame; None when the feed cut this spectator off or closed."""
        while True:
            if self.cut_off:
                return None
            if self.frames:
                return self.frames.popleft()
            self._waiter = asyncio.get_running_loop().create_future()
            if timeout is None:  # a socket's send loop, once per frame: no timer to make
                await self._waiter
                continue
            # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow a
            # cancellation that lands as the message arrives, and a feed that
            # survives its cancel keeps the server from shutting down.
            async with asyncio.timeout(timeout):
                await self._waiter


class TableFeed:
    """The public side of one table, live, for any number of spectators: a
    reader of the table's follower that keeps the public messages encoded."""

    def __init__(self, table_id: str, followers: Followers, timings: Timings) -> None:
        self.table_id = table_id
        self.followers = followers
        self.timings = timings
        self.follower: GameFollower | None = None
        #: The current game's public messages: events[v - 1] is version v.
        self.events: list[FeedMessage] = []
        self.view: FeedMessage | None = None
        self.spectators: set[Spectator] = set()
        #: Its follower ended by a bug: nobody joins it any more.
        self.failed = False
        #: The lines said lately, encoded (a joining spectator gets them).
        self.chat: deque[FeedMessage] = deque(maxlen=RECENT)
        #: What the change being told has brought so far: sent as one frame
        #: when it has settled.
        self.pending: list[FeedMessage] = []

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
        self.chat.extend(_message(line, self.game, self.version) for line in follower.chat)

    async def close(self) -> None:
        await self.followers.leave(self.table_id, self)
        for spectator in list(self.spectators):
            spectator.offer(None)
        self.spectators.clear()

    # ------------------------------------------------------------ spectators

    def join(self, since: int | None = None, game: int | None = None, *,
             chat: bool = True) -> Spectator:
        """A new spectator, its queue holding the welcome and what it missed
        (and, with ``chat``, the lines said lately).

        ``since`` is the last version the spectator saw of ``game`` (the
        current game if not given): it then gets exactly the events after it.
        """
        # What is pending goes out first, to those already here: the new
        # spectator's catch-up below then covers it, and nothing comes twice.
        self._flush()
        spectator = Spectator()
        first: list[FeedMessage] = []
        if game is not None and game != self.game:
            since = None  # another game: start afresh with its view
        if since is None or since >= self.version or since < 0:
            view = self._view_message().view if self.following.state is not None else None
            first.append(_message(
                Welcome(self.table_id, None, self.game, self.version, view, self.clock,
                        self.following.seconds_to_move(), self._life()),
                self.game, self.version))
        else:
            first.append(_message(
                Welcome(self.table_id, None, self.game, since, None, self.clock),
                self.game, since))
            first += self.events[since:]
            if self.view is not None:
                first.append(self.view)
        if chat:
            # The lines said lately, after the welcome (the page drops one it has twice).
            first += self.chat
        for frame in frames(first):
            spectator.offer(frame)
        self.spectators.add(spectator)
        return spectator

    def leave(self, spectator: Spectator) -> None:
        self.spectators.discard(spectator)

    def _tell(self, message: FeedMessage) -> None:
        """Add ``message`` to the change being told (sent when it settles)."""
        self.pending.append(message)
        if len(self.pending) >= FRAME_MESSAGES:
            self._flush()

    def _flush(self) -> None:
        """Send what the change has brought, as one frame to every spectator."""
        if not self.pending:
            return
        frame, self.pending = FeedFrame(self.pending), []
        for spectator in list(self.spectators):
            if not spectator.offer(frame):
                self.spectators.discard(spectator)
                log.info("a spectator fell too far behind and was cut off",
                         table=self.table_id)

    # ------------------------------------------------------------ what the follower tells

    async def on_game(self, follower: GameFollower) -> None:
        self.events, self.view = [], None
        self._tell(_message(GameStartedMessage(self.game), self.game, 0))
        self._tell(_message(Welcome(self.table_id, None, self.game, 0, None, self.clock),
                            self.game, 0))

    async def on_event(self, follower: GameFollower, version: int, event: Event) -> None:
        self._tell(self._add_event(version, event, follower.actors[version - 1],
                                   follower.count_parts[version - 1]))

    async def on_settled(self, follower: GameFollower) -> None:
        if follower.state is not None:
            self.view = _message(self._view_message(), self.game, self.version)
            self._tell(self.view)
        self._flush()

    async def on_chat(self, follower: GameFollower, line: ChatLine) -> None:
        message = _message(line, self.game, self.version)
        self.chat.append(message)
        self._tell(message)
        self._flush()  # a line is told at once (after what came before it)

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
                           follower.seconds_to_move(), spectators=len(self.spectators),
                           life=self._life())

    def _life(self) -> LifeView | None:
        follower = self.following
        if follower.table is None:
            return None
        return life_view(follower.table, follower.state, self.timings)


class SpectatorFeeds:
    """This process's feeds, one per watched table, closed when nobody watches."""

    def __init__(self, bus: Bus, followers: Followers, timings: Timings) -> None:
        self.bus = bus
        self.followers = followers
        self.timings = timings
        #: Names this process in spectator counts on the bus.
        self.process = uuid.uuid4().hex
        self._feeds: dict[str, TableFeed] = {}
        self._starting: dict[str, asyncio.Task[TableFeed]] = {}
        self._repeating: asyncio.Task[None] | None = None
        #: Tasks of this object's own (leaving for dropped streams, counts told soon).
        self._tasks: set[asyncio.Task[None]] = set()
        #: Feeds whose players will hear the count soon (one message a second at most).
        self._telling: set[str] = set()

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
        feed = TableFeed(table_id, self.followers, self.timings)
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

    async def join(self, table_id: str, since: int | None = None, game: int | None = None,
                   *, chat: bool = True) -> tuple[TableFeed, Spectator]:
        """A new spectator of the table (see TableFeed.join); the players are told."""
        feed = await self.feed(table_id)
        spectator = feed.join(since, game, chat=chat)
        self._count_changed(feed)
        return feed, spectator

    def leave_soon(self, feed: TableFeed, spectator: Spectator) -> None:
        """``leave``, for a spectator whose own task is gone (an event stream
        dropped): out of the feed now, the rest in a task kept here."""
        feed.leave(spectator)
        try:
            self._keep(asyncio.get_running_loop().create_task(self.leave(feed, spectator)))
        except RuntimeError:  # no loop: the process is ending, and the feed with it
            return

    async def leave(self, feed: TableFeed, spectator: Spectator) -> None:
        feed.leave(spectator)
        self._count_changed(feed)
        if not feed.spectators and self._feeds.get(feed.table_id) is feed:
            del self._feeds[feed.table_id]
            await feed.close()

    def _count_changed(self, feed: TableFeed) -> None:
        """The players hear the new count within COUNT_COALESCE seconds: a
        crowd coming or going is one message to them, not one per spectator."""
        if feed.table_id in self._telling:
            return
        self._telling.add(feed.table_id)

        async def tell() -> None:
            try:
                await asyncio.sleep(COUNT_COALESCE)
                await self._tell_players(feed)
            finally:
                self._telling.discard(feed.table_id)

        self._keep(asyncio.get_running_loop().create_task(tell()))

    def _keep(self, task: asyncio.Task[None]) -> None:
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

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
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for feed in list(self._feeds.values()):
            await feed.close()
        self._feeds.clear()
