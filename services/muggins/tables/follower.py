"""One table's events in version order, for every reader of it in this
process: the seats' sockets and the table's spectator feed.

The table's chat comes the same way: one subscription per table per process
serves every socket, seats and spectators alike, and the last lines said are
kept here so that a socket that joins reads them without a query.

A follower subscribes to the table's own stream and its current game's
stream (every audience: it folds the full events once, and each reader shows
only what it may), puts what the bus delivers in version order, fills any
gap from the event store (the bus delivers at most once; the store is the
truth), and tells each reader, in order: a new game began, an event, and
"settled" after each burst (time to show a view).  When the table begins a
new game, the follower moves to it by itself.

``Followers`` keeps one follower per table in a process, shared by all its
readers, and runs it while anyone reads.  A reader joins under the
follower's lock, so it starts from a state no event is missing from and
none is told twice.  Readers must not block: they queue what they send.

The store or the bus away is waited out (muggins.infra.retry, "follower").  A
bug (an event that will not fold, say) ends that table's follower: it is
logged with its traceback, each reader is told (``on_failed``: a seat's
socket is closed, to reconnect), and the next reader starts a new follower
from the store, so one table's bug neither spins nor stops the others.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import time
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Protocol, TypeVar

import structlog
from nats.aio.msg import Msg

from muggins.bus.connection import Bus, BusSubscription
from muggins.bus.jetstream import BusMessage, bus_message_decoder, outage
from muggins.domain.codec import game_event
from muggins.domain.streams import chat_stream, game_stream, stream_subjects, table_stream
from muggins.domain.views import count_parts
from muggins.eventstore.records import RecordedEvent
from muggins.eventstore.store import TRANSIENT, EventStore
from muggins.infra.logs import log_context
from muggins.infra.retry import Backoff, Retry
from muggins.rules.events import Event, TilePlayed
from muggins.rules.game import evolve
from muggins.rules.state import GameState
from muggins.tables.chat import RECENT, line_of
from muggins.tables.errors import TableNotFound
from muggins.tables.metrics import DELIVERED, BroadcastClock
from muggins.tables.next_step import seconds_to_move, turn_began
from muggins.tables.protocol import ChatLine
from muggins.tables.seating import Table, table_from

log = structlog.get_logger(__name__)

Started = TypeVar("Started")

#: Seconds to wait for a version the bus seems to have skipped before asking the store.
GAP_WAIT = 0.2
#: Seconds a follower nobody reads goes on following before it stops.
LINGER = 15.0
#: Pauses after a follower failed for a moment (the store or the bus away).
FOLLOWER_BACKOFF = Backoff(first=0.25, cap=5.0)


class Reader(Protocol):
    """What a follower tells its reader, in this order for each change."""

    async def on_game(self, follower: GameFollower) -> None:
        """The table began a new game (``follower.game``); its events follow."""

    async def on_event(self, follower: GameFollower, version: int, event: Event) -> None:
        """The current game's next event (full: the reader shows what it may)."""

    async def on_settled(self, follower: GameFollower) -> None:
        """A burst is over: the state, table and clock are as of now."""

    async def on_chat(self, follower: GameFollower, line: ChatLine) -> None:
        """A line said at the table (in the chat stream's order)."""
    async def on_failed(self, follower: GameFollower) -> None:
        """The follower stopped (a bug, logged): nothing more will be told."""


class GameFollower:
    def __init__(self, table_id: str, bus: Bus, store: EventStore, *,
                 idle_check: float = 1.0, store_check_every: int = 5,
                 broadcast_clock: BroadcastClock | None = None) -> None:
        self.table_id = table_id
        #: Told when a view went out (the command-to-broadcast histogram).
        self.broadcast_clock = broadcast_clock or BroadcastClock()
        self.bus = bus
        self.store = store
        #: Who is told: each reader hears every change once, in order.
        self.readers: set[Reader] = set()
        #: Seconds of silence after which the follower checks it missed nothing ...
        self.idle_check = idle_check
        #: ... asking the store every this many checks even if nothing hints at a gap.
        self.store_check_every = store_check_every
        self.table: Table | None = None
        self.game = 0
        self.version = 0
        self.state: GameState | None = None
        #: The current game's events so far, in order: events[v - 1] is version v.
        self.events: list[Event] = []
        #: Who caused each of them, as recorded ("seat:N", "bot:N", "system").
        self.actors: list[str] = []
        #: For each play, what the count after it adds up (views.count_parts).
        self.count_parts: list[list[int] | None] = []
        self.last_event_at: datetime.datetime | None = None
        self._inbox: asyncio.Queue[tuple[bytes, str]] = asyncio.Queue()
        self._table_pending: dict[int, RecordedEvent] = {}
        self._game_pending: dict[int, RecordedEvent] = {}
        self._seen = 0
        #: Versions of the current game that end an append: views only there.
        self._append_ends: set[int] = set()
        #: Something changed that the reader has not been told settled yet.
        self._unsettled = False
        self._idle = 0
        self._table_subscription: BusSubscription | None = None
        #: Held while the readers are told anything, and while one joins:
        #: each hears of each change once, in order, whoever asks (the bus,
        #: the idle check, a resync).
        self.lock = asyncio.Lock()
        self._game_subscription: BusSubscription | None = None
        self._chat_subscription: BusSubscription | None = None
        #: The last RECENT lines said, oldest first (what a joining reader is shown).
        self.chat: deque[ChatLine] = deque(maxlen=RECENT)
        #: The chat stream's version told so far, and lines come early.
        self.chat_version = 0
        self._chat_pending: dict[int, RecordedEvent] = {}
        #: Whether the chat's recent lines were read (at the start, or since).
        self._chat_known = False
        #: Readers waiting to join (Followers.join): not stopped under them.
        self.joining = 0

    # ------------------------------------------------------------ life

    async def start(self) -> None:
        """Subscribe, then read the table and its game from the store
        (TableNotFound if there is no such table)."""
        self._table_subscription = await self.bus.subscribe(
            stream_subjects(table_stream(self.table_id)), self._on_message)
        recorded = await self.store.read_stream(table_stream(self.table_id))
        if not recorded:
            raise TableNotFound(f"there is no table {self.table_id}")
        self.table = table_from(self.table_id, recorded)
        self._chat_subscription = await self.bus.subscribe(
            stream_subjects(chat_stream(self.table_id)), self._on_message)
        await self._read_chat(recent_only=True)
        self._fold_chat()
        await self._follow(self.table.state.game)
        self._fold_game()  # the reader starts from this state: nothing to tell yet
        if self.game:
            # What was appended before anyone here followed the table was
            # broadcast to nobody: not a command waiting for its broadcast.
            self.broadcast_clock.forget(game_stream(self.table_id, self.game), self.version)

    async def run(self) -> None:
        """Deliver everything after ``start`` to the reader, until cancelled."""
        while True:
            waiting = (bool(self._game_pending or self._table_pending or self._chat_pending)
                   or self._unsettled
                       or self._seen > self.version)
            try:
                async with asyncio.timeout(GAP_WAIT if waiting else self.idle_check):
                    data, subject = await self._inbox.get()
            except TimeoutError:
                self._idle += 1
                if waiting or self._idle % self.store_check_every == 0:
                    async with self.lock:
                        await self._catch_up_from_store()
                continue
            self._idle = 0
            async with self.lock:
                self._take(data, subject)
                if self._inbox.empty():
                    await self._settle()

    async def close(self) -> None:
        for subscription in (self._table_subscription, self._game_subscription,
                             self._chat_subscription):
            if subscription is not None:
                with contextlib.suppress(Exception):
                    await subscription.unsubscribe()

    async def resync(self, then: Callable[[], Awaitable[None]] | None = None) -> None:
        """Ask the store for anything the bus has not brought yet (telling the
        readers), then do ``then``: both while nothing else is told."""
        async with self.lock:
            await self._catch_up_from_store()
            if then is not None:
                await then()

    @property
    def at_append_end(self) -> bool:
        """Whether the game is where an append left it (not halfway through one)."""
        return self.version == 0 or self.version in self._append_ends

    def seconds_to_move(self) -> float | None:
        """What is left of the seat on turn's clock (None: no person's clock runs)."""
        if self.table is None or self.state is None or self.last_event_at is None:
            return None
        hand = self.state.hand
        changed = self.table.changed_at.get(hand.turn) if hand is not None else None
        began = turn_began(self.last_event_at, changed)
        waited = (datetime.datetime.now(datetime.UTC) - began).total_seconds()
        return seconds_to_move(self.table.state, self.state, waited)

    # ------------------------------------------------------------ following

    async def _on_message(self, message: Msg) -> None:
        await self._inbox.put((message.data, message.subject))

    async def _follow(self, game: int) -> None:
        """Move to ``game``: subscribe to its subjects, then read what is stored."""
        if self._game_subscription is not None:
            with contextlib.suppress(Exception):
                await self._game_subscription.unsubscribe()
            self._game_subscription = None
        self.game, self.version, self.state = game, 0, None
        self.events, self.actors, self.count_parts, self.last_event_at = [], [], [], None
        self._game_pending, self._seen, self._append_ends = {}, 0, set()
        if game == 0:
            return
        self._game_subscription = await self.bus.subscribe(
            stream_subjects(game_stream(self.table_id, game)), self._on_message)
        await self._read_game()

    async def _read_game(self) -> None:
        """The current game's events after the version reached, from the store."""
        try:
            stored = await self.store.read_stream(game_stream(self.table_id, self.game),
                                                  self.version)
        except TRANSIENT as error:  # the store away: the idle checks read it later
            log.warning("could not read a game from the store", table=self.table_id,
                        game=self.game, error=repr(error))
            self._seen = max(self._seen, self.version + 1)  # look again soon
            return
        for recorded in stored:
            self._game_pending.setdefault(recorded.stream_version, recorded)
            self._seen = max(self._seen, recorded.stream_version)
        # What the store has ends where an append ended.
        if stored:
            self._append_ends.add(stored[-1].stream_version)
        elif not self._game_pending:
            self._append_ends.add(self.version)

    def _take(self, data: bytes, subject: str) -> None:
        try:
            bus = bus_message_decoder.decode(data)
        except Exception as error:  # a message not of ours: say so, carry on
            log.warning("a bus message that is not an event", table=self.table_id,
                        error=repr(error))
            return
        recorded = _recorded(bus)
        if bus.stream_id == chat_stream(self.table_id):
            if bus.stream_version > self.chat_version:
                self._chat_pending[bus.stream_version] = recorded
        elif bus.stream_id == table_stream(self.table_id):
            if self.table is not None and bus.stream_version > self.table.version:
                self._table_pending[bus.stream_version] = recorded
        elif (bus.stream_id == game_stream(self.table_id, self.game)
              and bus.stream_version > self.version):
            self._seen = max(self._seen, bus.stream_version)
            if bus.last_of_append:
                self._append_ends.add(bus.stream_version)
            # A secret event comes twice: redacted on the public subject and
            # whole on its own; the whole one is the one to fold.
            if bus.audience == "public" or not subject.endswith(".public"):
                self._game_pending[bus.stream_version] = recorded
                if recorded.recorded_at.tzinfo is not None:  # (a message not of ours may lack it)
                    DELIVERED.observe(max(0.0, (datetime.datetime.now(datetime.UTC)
                                                - recorded.recorded_at).total_seconds()))

    async def _catch_up_from_store(self) -> None:
        if self.table is not None:
            try:
                for recorded in await self.store.read_stream(table_stream(self.table_id),
                                                             self.table.version):
                    self._table_pending.setdefault(recorded.stream_version, recorded)
            except TRANSIENT as error:  # the store away: the next check tries again
                log.warning("could not read the store to fill a gap", table=self.table_id,
                            error=repr(error))
                return
        if self.game:
            await self._read_game()
        # The chat too: a line the bus skipped is in the store.
        await self._read_chat(recent_only=not self._chat_known)
        await self._settle()

    async def _read_chat(self, *, recent_only: bool = False) -> None:
        """The chat's lines after the version told (only the last RECENT at the start)."""
        stream = chat_stream(self.table_id)
        try:
            after = self.chat_version
            if recent_only:
                after = max(self.chat_version,
                            await self.store.stream_version(stream) - RECENT)
                self.chat_version = after
                self._chat_pending = {version: line for version, line
                                      in self._chat_pending.items() if version > after}
            for recorded in await self.store.read_stream(stream, after):
                self._chat_pending.setdefault(recorded.stream_version, recorded)
            self._chat_known = True
        except TRANSIENT as error:  # the store away: the next check tries again
            log.warning("could not read the chat from the store", table=self.table_id,
                        error=repr(error))

    def _fold_chat(self) -> list[ChatLine]:
        """The chat's lines next in line, kept as the recent ones."""
        told: list[ChatLine] = []
        while self.chat_version + 1 in self._chat_pending:
            recorded = self._chat_pending.pop(self.chat_version + 1)
            self.chat_version += 1
            try:
                line = line_of(recorded)
            except Exception as error:  # not a line of ours: skipped, said
                log.warning("a chat event that is not a line", table=self.table_id,
                            error=repr(error))
                continue
            self.chat.append(line)
            told.append(line)
        return told

    async def _settle(self) -> None:
        """Fold what is next in line, tell the readers, then say it settled."""
        for line in self._fold_chat():
            for reader in list(self.readers):
                await self._tell(reader, reader.on_chat(self, line))
        changed = self._fold_table()
        changed = await self._deliver() or changed
        while self.table is not None and self.table.state.game > self.game:
            if self.game:  # the game being left: all of it first
                await self._read_game()
                await self._deliver()
            await self._follow(self.table.state.game)
            for reader in list(self.readers):
                await self._tell(reader, reader.on_game(self))
            await self._deliver()
            changed = True
        self._unsettled = self._unsettled or changed
        if self._unsettled and self.at_append_end:
            self._unsettled = False
            for reader in list(self.readers):
                await self._tell(reader, reader.on_settled(self))
            if self.game:
                self.broadcast_clock.broadcast(game_stream(self.table_id, self.game),
                                               self.version)

    async def _deliver(self) -> bool:
        """Fold the current game's events next in line and tell each reader each."""
        start = self.version
        if not self._fold_game():
            return False
        for version in range(start + 1, self.version + 1):
            event = self.events[version - 1]
            for reader in list(self.readers):
                await self._tell(reader, reader.on_event(self, version, event))
        return True

    async def _tell(self, reader: Reader, told: Awaitable[None]) -> None:
        """One reader's failure is its own: the others are told all the same."""
        try:
            await told
        except Exception as error:
            log.error("a reader failed to take a change; it is dropped", table=self.table_id,
                      error=repr(error), exc_info=error)
            self.readers.discard(reader)
            with contextlib.suppress(Exception):  # told, so that it closes and reconnects
                await reader.on_failed(self)

    def _fold_table(self) -> bool:
        if self.table is None:
            return False
        batch: list[RecordedEvent] = []
        while self.table.version + len(batch) + 1 in self._table_pending:
            batch.append(self._table_pending.pop(self.table.version + len(batch) + 1))
        if not batch:
            return False
        self.table = self.table.after(batch)
        return True

    def _fold_game(self) -> bool:
        start = self.version
        while self.version + 1 in self._game_pending:
            recorded = self._game_pending.pop(self.version + 1)
            event = game_event(recorded)
            self.state = evolve(self.state, event)
            self.events.append(event)
            self.actors.append(recorded.actor)
            hand = self.state.hand
            self.count_parts.append(count_parts(hand.layout) if isinstance(event, TilePlayed)
                                    and hand is not None else None)
            self.version += 1
            self.last_event_at = recorded.recorded_at
        return self.version != start


def _recorded(bus: BusMessage) -> RecordedEvent:
    """A bus message as the store would have given it (what a fold needs)."""
    return RecordedEvent(
        position=bus.position, event_id=bus.event_id, stream_id=bus.stream_id,
        stream_version=bus.stream_version, event_type="", payload=bus.event,
        audience=bus.audience, actor=bus.actor, correlation_id=None, causation_id=None,
        recorded_at=datetime.datetime.fromisoformat(bus.recorded_at),
    )



class Followers:
    """This process's followers, one per table, each run while anyone reads it."""

    def __init__(self, bus: Bus, store: EventStore,
                 broadcast_clock: BroadcastClock | None = None) -> None:
        self.broadcast_clock = broadcast_clock or BroadcastClock()
        self.bus = bus
        self.store = store
        self._followers: dict[str, tuple[GameFollower, asyncio.Task[None]]] = {}
        self._starting: dict[str, asyncio.Task[GameFollower]] = {}
        #: Followers nobody reads, to be stopped unless someone joins first.
        self._stopping: dict[str, asyncio.Task[None]] = {}

    def __len__(self) -> int:
        return len(self._followers)

    async def join(self, table_id: str, reader: Reader,
                   on_join: Callable[[GameFollower], Awaitable[None]] | None = None
                   ) -> GameFollower:
        """``reader`` follows the table from now on; ``on_join`` runs first, with
        nothing told meanwhile (where the reader shows its first state).
        TableNotFound if there is no such table."""
        while True:
            follower = await self._follower(table_id)
            # Counted while it waits for the lock: the last reader leaving
            # meanwhile must not stop the follower this one is joining.
            follower.joining += 1
            try:
                async with follower.lock:
                    entry = self._followers.get(table_id)
                    if entry is None or entry[0] is not follower:
                        continue  # it was stopped meanwhile (a bug): a new one
                    if on_join is not None:
                        await on_join(follower)
                    follower.readers.add(reader)
                    return follower
            finally:
                follower.joining -= 1

    async def leave(self, table_id: str, reader: Reader) -> None:
        entry = self._followers.get(table_id)
        if entry is None:
            return
        follower = entry[0]
        if reader not in follower.readers:
            return  # a reader of an earlier follower (stopped since): nothing of this one
        follower.readers.discard(reader)
        if not follower.readers and not follower.joining:
            self._stop_unless_joined(table_id, follower)

    def _stop_unless_joined(self, table_id: str, follower: GameFollower) -> None:
        """Stop ``follower`` LINGER seconds from now if nobody reads it then: a
        page that reconnects, or a client that opens a socket per request,
        finds it still following instead of starting it (its subscriptions,
        its reads of the whole game) again each time."""
        if table_id in self._stopping:
            return

        async def stop() -> None:
            await asyncio.sleep(LINGER)
            entry = self._followers.get(table_id)
            if (entry is not None and entry[0] is follower and not follower.readers
                    and not follower.joining):
                del self._followers[table_id]
                await _stop(follower, entry[1])

        stopping = asyncio.get_running_loop().create_task(stop(), name=f"unfollow-{table_id}")
        self._stopping[table_id] = stopping
        stopping.add_done_callback(lambda _: self._stopping.pop(table_id, None))

    async def _follower(self, table_id: str) -> GameFollower:
        entry = self._followers.get(table_id)
        if entry is not None:
            return entry[0]
        return await start_once(self._starting, table_id, self._start)

    async def _start(self, table_id: str) -> GameFollower:
        follower = GameFollower(table_id, self.bus, self.store,
                                broadcast_clock=self.broadcast_clock)
        try:
            await follower.start()
        except BaseException:
            await follower.close()
            raise
        task = asyncio.create_task(self._keep_running(follower), name=f"follower-{table_id}")
        self._followers[table_id] = (follower, task)
        return follower

    async def _keep_running(self, follower: GameFollower) -> None:
        """Run ``follower`` through outages; a bug ends it (see the module's doc)."""
        retry = Retry("follower", outage, backoff=FOLLOWER_BACKOFF,
                      message="a follower could not go on; retrying")
        with log_context(table=follower.table_id):
            while True:
                started = time.monotonic()
                try:
                    await follower.run()
                except Exception as error:
                    if time.monotonic() - started > FOLLOWER_BACKOFF.cap:
                        retry.succeeded()  # it ran well since the last failure
                    if outage(error):
                        await retry.failed(error)
                        continue
                    retry.bug(error)
                    await self._failed(follower)
                    return

    async def _failed(self, follower: GameFollower) -> None:
        """A follower ended by a bug: it is forgotten (the next reader starts
        a new one) and each of its readers is told."""
        entry = self._followers.get(follower.table_id)
        if entry is not None and entry[0] is follower:
            del self._followers[follower.table_id]
        async with follower.lock:
            readers, follower.readers = list(follower.readers), set()
            for reader in readers:
                await follower._tell(reader, reader.on_failed(follower))
        await follower.close()

    async def close(self) -> None:
        for stopping in list(self._stopping.values()):
            stopping.cancel()
        for follower, task in list(self._followers.values()):
            await _stop(follower, task)
        self._followers.clear()


async def start_once(starting: dict[str, asyncio.Task[Started]], key: str,
                     start: Callable[[str], Coroutine[Any, Any, Started]]) -> Started:
    """What ``start(key)`` gives, started once however many ask for it at the
    same moment (``starting`` holds the starts under way).  Shielded: one
    asker that gives up does not cancel the start for the others."""
    task = starting.get(key)
    if task is None:
        task = starting[key] = asyncio.create_task(start(key))
    try:
        return await asyncio.shield(task)
    finally:
        if task.done():
            starting.pop(key, None)


async def _stop(follower: GameFollower, task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await task
    await follower.close()
