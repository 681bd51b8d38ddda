"""Spectator feeds: one per watched table per process, shared by every spectator.

A feed follows its table's current game on the bus (all of the game's
subjects, so it can fold the full events into the state it needs for the
public view), keeps the game's public messages already encoded, and hands
each spectator a queue.  Per event it decodes, folds and encodes once,
whatever the number of spectators; a spectator that cannot keep up is cut
off (and reconnects with the last version it saw) rather than slowing
anybody else.  Nothing here touches the players' command path: the feed
reads the bus, and the event store only to start and to fill a gap the bus
left.  So the feeds can run in a process of their own (``muggins serve
--role spectators``).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import msgspec
import structlog
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg

from muggins.bus.jetstream import bus_message_decoder
from muggins.eventstore.store import EventStore
from muggins.rules.events import Event, event_decoder, event_encoder, visible_to
from muggins.rules.game import evolve
from muggins.rules.state import GameState
from muggins.tables.protocol import (
    EventMessage,
    GameStartedMessage,
    SpectatorCount,
    ViewMessage,
    Welcome,
    encode,
)
from muggins.tables.service import control_subject, game_stream, spectators_subject
from muggins.views import game_view

log = structlog.get_logger(__name__)

#: Messages a spectator may have waiting before it is cut off as too slow.
SPECTATOR_BACKLOG = 2000
#: Seconds to wait for a message the bus seems to have skipped before asking the store.
GAP_WAIT = 0.2
#: Seconds of silence after which the store is asked whether anything was missed.
IDLE_CHECK = 5.0
#: Seconds between repeats of each process's spectator counts, for players who
#: connected since (changes are told at once).
COUNT_EVERY = 10.0

GAME_SUBJECTS = "muggins.table.{stream}.>"


class TableSeats(msgspec.Struct, frozen=True):
    """What a feed needs of a table besides its game: names, bots, the clock."""

    game: int
    names: list[str | None]
    bots: list[bool]
    turn_clock_seconds: int


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
    """The public side of one table, live, for any number of spectators."""

    def __init__(
        self,
        table_id: str,
        nats: NatsClient,
        store: EventStore,
        seats_of: Callable[[str], Awaitable[TableSeats]],
    ) -> None:
        self.table_id = table_id
        self.nats = nats
        self.store = store
        self.seats_of = seats_of
        self.game = 0
        self.version = 0
        self.state: GameState | None = None
        self.seats: TableSeats | None = None
        #: The current game's public messages: events[v - 1] is version v.
        self.events: list[FeedMessage] = []
        self.view: FeedMessage | None = None
        self.spectators: set[Spectator] = set()
        self.turn_began = time.monotonic()
        self._full: dict[int, Event] = {}
        self._seen = 0
        self._inbox: asyncio.Queue[tuple[str, bytes, str]] = asyncio.Queue()
        self._subscriptions: list[object] = []
        self._task: asyncio.Task[None] | None = None

    # ------------------------------------------------------------ life

    async def start(self) -> None:
        self._subscriptions.append(await self.nats.subscribe(
            control_subject(self.table_id), cb=self._on_control))
        self.seats = await self.seats_of(self.table_id)
        await self._follow(self.seats.game)
        await self._read_store()
        self._task = asyncio.create_task(self._run())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        for subscription in self._subscriptions:
            with contextlib.suppress(Exception):
                await subscription.unsubscribe()  # type: ignore[attr-defined]
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
        clock = self.seats.turn_clock_seconds if self.seats else 0
        if game is not None and game != self.game:
            since = None  # another game: start afresh with its view
        if since is None or since >= self.version or since < 0:
            view = None
            if self.state is not None:
                view = self._view_message().view
            spectator.offer(_message(
                Welcome(self.table_id, None, self.game, self.version, view, clock),
                self.game, self.version))
        else:
            spectator.offer(_message(Welcome(self.table_id, None, self.game, since, None, clock),
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

    # ------------------------------------------------------------ following

    async def _on_control(self, message: Msg) -> None:
        await self._inbox.put(("control", message.data, ""))

    async def _on_event(self, message: Msg) -> None:
        await self._inbox.put(("event", message.data, message.subject))

    async def _follow(self, game: int) -> None:
        """Switch to ``game``: subscribe to its subjects, then read what is stored."""
        for subscription in self._subscriptions[1:]:
            with contextlib.suppress(Exception):
                await subscription.unsubscribe()  # type: ignore[attr-defined]
        del self._subscriptions[1:]
        self.game, self.version, self.state = game, 0, None
        self.events, self.view, self._full, self._seen = [], None, {}, 0
        if game == 0:
            return
        stream = game_stream(self.table_id, game)
        self._subscriptions.append(await self.nats.subscribe(
            GAME_SUBJECTS.format(stream=stream), cb=self._on_event))

    async def _run(self) -> None:
        while True:
            waiting = self._seen > self.version
            try:
                async with asyncio.timeout(GAP_WAIT if waiting else IDLE_CHECK):
                    kind, data, subject_name = await self._inbox.get()
            except TimeoutError:
                with contextlib.suppress(Exception):  # the store may be away: try again later
                    await self._read_store()
                continue
            try:
                if kind == "control":
                    await self._on_new_game(int(data.decode()))
                else:
                    self._take(data, subject_name)
                if self._inbox.empty():
                    self._advance()
            except Exception as error:  # one bad message must not stop the feed
                log.error("spectator feed could not use a message", table=self.table_id,
                          error=repr(error))

    async def _on_new_game(self, game: int) -> None:
        if game <= self.game:
            return
        self.seats = await self.seats_of(self.table_id)
        await self._follow(game)
        self._broadcast(_message(GameStartedMessage(game), game, 0))
        clock = self.seats.turn_clock_seconds
        self._broadcast(_message(Welcome(self.table_id, None, game, 0, None, clock), game, 0))
        await self._read_store()

    def _take(self, data: bytes, subject_name: str) -> None:
        bus = bus_message_decoder.decode(data)
        if bus.stream_id != game_stream(self.table_id, self.game):
            return
        version = bus.stream_version
        if version <= self.version:
            return
        self._seen = max(self._seen, version)
        # On the public subject a secret event comes redacted; its full copy
        # comes on the seat or audit subject, and that is the one to fold.
        if not subject_name.endswith(".public") or bus.audience == "public":
            self._full[version] = event_decoder.decode(bus.event)

    async def _read_store(self) -> None:
        if self.game == 0:
            return
        stream = game_stream(self.table_id, self.game)
        for recorded in await self.store.read_stream(stream, self.version):
            self._full.setdefault(recorded.stream_version, recorded.event())
            self._seen = max(self._seen, recorded.stream_version)
        self._advance()

    def _advance(self) -> None:
        """Fold every event that is next in line; send them, then the view."""
        start = self.version
        while self.version + 1 in self._full:
            event = self._full.pop(self.version + 1)
            self.state = evolve(self.state, event)
            self.version += 1
            public = visible_to(event, "public")
            self.events.append(_message(
                EventMessage(self.game, self.version, msgspec.Raw(event_encoder.encode(public))),
                self.game, self.version))
        if self.version == start:
            return
        self.turn_began = time.monotonic()
        for message in self.events[start:]:
            self._broadcast(message)
        if self.state is not None:
            self.view = _message(self._view_message(), self.game, self.version)
            self._broadcast(self.view)

    def _view_message(self) -> ViewMessage:
        assert self.state is not None and self.seats is not None
        seats = self.state.ruleset.seats
        names = (self.seats.names + [None] * seats)[:seats]
        bots = (self.seats.bots + [False] * seats)[:seats]
        left = None
        if self.state.phase == "playing":
            elapsed = time.monotonic() - self.turn_began
            left = max(0.0, self.seats.turn_clock_seconds - elapsed)
        return ViewMessage(self.game, self.version, game_view(self.state, None, names, bots),
                           left, spectators=len(self.spectators))


class SpectatorFeeds:
    """This process's feeds, one per watched table, closed when nobody watches."""

    def __init__(
        self,
        nats: NatsClient,
        store: EventStore,
        seats_of: Callable[[str], Awaitable[TableSeats]],
    ) -> None:
        self.nats = nats
        self.store = store
        self.seats_of = seats_of
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
        if feed is not None:
            return feed
        starting = self._starting.get(table_id)
        if starting is None:
            starting = asyncio.create_task(self._start(table_id))
            self._starting[table_id] = starting
        try:
            return await asyncio.shield(starting)
        finally:
            if starting.done():
                self._starting.pop(table_id, None)

    async def _start(self, table_id: str) -> TableFeed:
        feed = TableFeed(table_id, self.nats, self.store, self.seats_of)
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
        while True:
            await asyncio.sleep(COUNT_EVERY)
            for feed in list(self._feeds.values()):
                with contextlib.suppress(Exception):  # the bus may be away: next time
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
        with contextlib.suppress(Exception):  # the bus may be away; the count is a courtesy
            await self._tell_players(feed)
        if not feed.spectators and self._feeds.get(feed.table_id) is feed:
            del self._feeds[feed.table_id]
            await feed.close()

    async def _tell_players(self, feed: TableFeed) -> None:
        await self.nats.publish(spectators_subject(feed.table_id), encode(
            SpectatorCount(self.process, len(feed.spectators))))

    async def close(self) -> None:
        if self._repeating is not None:
            self._repeating.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._repeating
        for feed in list(self._feeds.values()):
            await feed.close()
        self._feeds.clear()
