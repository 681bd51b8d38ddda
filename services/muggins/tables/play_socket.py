"""A seat's WebSocket: hello, commands in, that seat's events and views out.

The seat's events come from a GameFollower (the same sequencer spectators
use); commands go to Commands and Seating.  A seat a bot plays is taken back
only by a valid move or an explicit "I'm back" ({"type": "back"}); both
re-arm the turn clock (docs/service.md, "Bots, clocks and absences").
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass

import msgspec
import structlog
from litestar.connection import WebSocket
from litestar.exceptions import WebSocketDisconnect
from nats.aio.msg import Msg

from muggins.bus.connection import BusSubscription
from muggins.logs import log_context
from muggins.rules.commands import AnyCommand, CallMuggins, Play
from muggins.rules.errors import IllegalMove
from muggins.rules.events import Event, HandStarted, event_encoder, visible_to
from muggins.rules.game import decide, forced_move
from muggins.streams import spectators_subject
from muggins.tables.chat import chat_bucket
from muggins.tables.errors import TRANSIENT, HintsOff, Refusal, StaleView
from muggins.tables.follower import GameFollower
from muggins.tables.http import client_address
from muggins.tables.limits import POLICY_VIOLATION, Strikes, TokenBucket
from muggins.tables.protocol import (
    Back,
    CallMugginsMessage,
    Chat,
    ChatLine,
    ErrorMessage,
    GameStartedMessage,
    Hello,
    Hint,
    HintRequest,
    Ping,
    PlayTile,
    Pong,
    Rematch,
    Since,
    SpectatorsMessage,
    ViewMessage,
    Welcome,
    client_message_decoder,
    encode,
    event_message,
    spectator_count_decoder,
)
from muggins.tables.runtime import Runtime
from muggins.views import GameView, game_view

log = structlog.get_logger(__name__)

MAX_MESSAGE_BYTES = 4096


@dataclass(frozen=True)
class Closing:
    """What the sender does after the messages before it: close the socket."""

    code: int
    reason: str


TOO_SLOW = Closing(1013, "you fell too far behind: reconnect with since")
FOLLOWER_FAILED = Closing(1011, "the table cannot be followed just now: reconnect")
#: Messages a seat's socket may have waiting before it is cut off as too slow.
OUTBOX_LIMIT = 5000
HELLO_TIMEOUT = 10.0


class PlaySession:
    """One seat's WebSocket."""

    def __init__(self, socket: WebSocket, runtime: Runtime, table_id: str) -> None:  # type: ignore[type-arg]
        self.socket = socket
        self.runtime = runtime
        self.table_id = table_id
        #: The seat this socket plays (known after hello).
        self.seat = -1
        #: The table's follower in this process, shared with its other readers
        #: (set once the seat is known).
        self.follower: GameFollower | None = None
        #: What the follower has this seat send, in order; a sender task sends
        #: it, so that no slow socket holds up the table's other readers.
        self.outbox: asyncio.Queue[str | Closing] = asyncio.Queue(OUTBOX_LIMIT)
        self.subscriptions: list[BusSubscription] = []
        self.commands = TokenBucket(runtime.options.commands_per_second,
                                    runtime.options.command_burst)
        #: Refused messages: past the limit the socket is closed.
        self.strikes = Strikes()
        self.send_lock = asyncio.Lock()
        #: What the last view showed: (game, version, table version, spectators).
        self.last_view: tuple[int, int, int, int] | None = None
        #: How many watch the table, by the process they watch through.
        self.spectator_counts: dict[str, int] = {}
        self.chat_bucket = chat_bucket()
        #: The last hint given (one search per position, however often asked).
        self.last_hint: Hint | None = None
        self.hinting: asyncio.Task[None] | None = None

    @property
    def game(self) -> int:
        return self.following.game

    @property
    def version(self) -> int | None:
        """The version this seat's view is at (None before it has one)."""
        return self.follower.version if self.follower is not None else None

    @property
    def following(self) -> GameFollower:
        assert self.follower is not None, "the seat's follower starts after hello"
        return self.follower

    @property
    def watching(self) -> int:
        return sum(self.spectator_counts.values())

    async def close(self, code: int, reason: str) -> None:
        await self.socket.close(code, reason)

    async def send(self, message: object) -> None:
        """Send at once (replies to this socket's own messages)."""
        async with self.send_lock:
            await self.socket.send_data(encode(message).decode())

    def post(self, message: object) -> None:
        """Queue for the sender (what the follower has this seat see): never
        blocks; a client that lets OUTBOX_LIMIT messages pile up is cut off."""
        try:
            self.outbox.put_nowait(encode(message).decode())
        except asyncio.QueueFull:
            self.outbox = asyncio.Queue(1)
            self.outbox.put_nowait(TOO_SLOW)  # the sender closes the socket

    async def send_loop(self) -> None:
        while True:
            text = await self.outbox.get()
            if isinstance(text, Closing):
                await self.socket.close(text.code, text.reason)
                return
            async with self.send_lock:
                await self.socket.send_data(text)

    async def fail(self, code: str, message: str, close: int | None = None) -> None:
        with contextlib.suppress(Exception):
            await self.send(ErrorMessage(code, message))
            if close is not None:
                await self.socket.close(close, message[:120])

    # ------------------------------------------------------------ life

    async def run(self) -> None:
        try:
            async with asyncio.timeout(HELLO_TIMEOUT):
                raw = await self.socket.receive_data(mode="text")
        except TimeoutError:
            await self.fail("hello-expected", "send hello with your seat token first", 1008)
            return
        hello = await self.decode(raw)
        if not isinstance(hello, Hello):
            await self.fail("hello-expected", "the first message must be hello", 1008)
            return
        try:
            self.seat = await self.runtime.seating.seat_for_token(self.table_id, hello.token)
        except Refusal as error:
            await self.fail("bad-token", str(error), 1008)
            return
        except TRANSIENT:
            await self.fail("unavailable", "the table cannot be reached just now: "
                            "reconnect in a moment", 1013)
            return
        with log_context(table=self.table_id, seat=self.seat):
            presence = self.runtime.presence
            await presence.connected(self.table_id, self.seat)
            followers = self.runtime.followers
            try:
                feeds = self.runtime.feeds
                self.spectator_counts[feeds.process] = feeds.watching(self.table_id)
                since, seen_game = hello.since, hello.game
                try:
                    await followers.join(
                        self.table_id, self,
                        on_join=lambda follower: self.welcome(follower, since, seen_game))
                except TRANSIENT:
                    await self.fail("unavailable", "the table cannot be reached just now: "
                                    "reconnect in a moment", 1013)
                    return
                self.subscriptions.append(await self.runtime.infra.bus.subscribe(
                    spectators_subject(self.table_id), self.on_spectators))
                await self.join_chat()
                await self.serve_both_ways()
            finally:
                if self.hinting is not None:
                    self.hinting.cancel()
                for subscription in self.subscriptions:
                    with contextlib.suppress(Exception):
                        await subscription.unsubscribe()
                await followers.leave(self.table_id, self)
                await presence.disconnected(self.table_id, self.seat)

    async def serve_both_ways(self) -> None:
        """Read commands and push events until either side stops; then stop both."""
        tasks = [asyncio.create_task(self.receive_loop()),
                 asyncio.create_task(self.send_loop())]
        done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        for task in pending:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for task in done:
            error = task.exception()
            if error is not None and not isinstance(error, WebSocketDisconnect):
                log.error("connection failed", error=repr(error))
                with contextlib.suppress(Exception):
                    await self.socket.close(1011, "internal error")

    async def welcome(self, follower: GameFollower, since: int | None,
                      seen_game: int | None = None) -> None:
        """The first messages (run as the seat joins the follower: nothing
        is told meanwhile)."""
        self.follower = follower
        if since is not None and seen_game is not None and seen_game != follower.game:
            since = 0  # the client's versions are another game's: all of this one
        assert follower.table is not None
        clock = follower.table.state.turn_clock_seconds
        if follower.state is None or since is None or since >= follower.version:
            view = self._view() if follower.state is not None else None
            self.post(Welcome(self.table_id, self.seat, follower.game, follower.version,
                              view, clock, follower.seconds_to_move()))
            if view is not None:
                self.last_view = self._view_key()
            return
        # A reconnect: everything after ``since`` in order, as this seat may
        # see it, then the view; live events continue after that.
        self.post(Welcome(self.table_id, self.seat, follower.game, since, None, clock))
        await self.resend(since)

    async def resend(self, since: int) -> None:
        follower = self.following
        for version in range(since + 1, follower.version + 1):
            await self.on_event(follower, version, follower.events[version - 1])
        self.last_view = None
        await self.push_view()

    # ------------------------------------------------------------ what the follower tells

    async def on_game(self, follower: GameFollower) -> None:
        assert follower.table is not None
        self.post(GameStartedMessage(follower.game))
        self.post(Welcome(self.table_id, self.seat, follower.game, 0, None,
                          follower.table.state.turn_clock_seconds))

    async def on_event(self, follower: GameFollower, version: int, event: Event) -> None:
        seen = visible_to(event, self.seat)
        self.post(event_message(follower.game, version, event_encoder.encode(seen),
                                follower.actors[version - 1], follower.count_parts[version - 1]))

    async def on_settled(self, follower: GameFollower) -> None:
        await self.push_view()

    async def on_failed(self, follower: GameFollower) -> None:
        """The table's follower ended by a bug (logged): the page reconnects
        and gets a new one, from the store."""
        self.post(ErrorMessage("unavailable", FOLLOWER_FAILED.reason))
        with contextlib.suppress(asyncio.QueueFull):
            self.outbox.put_nowait(FOLLOWER_FAILED)

    def _view_key(self) -> tuple[int, int, int, int]:
        follower = self.following
        table = follower.table
        return (follower.game, follower.version, table.version if table else 0, self.watching)

    def _view(self) -> GameView:
        follower = self.following
        assert follower.state is not None and follower.table is not None
        table = follower.table.state
        return game_view(follower.state, self.seat, table.names, table.bots)

    async def push_view(self) -> None:
        follower = self.following
        if follower.state is None or self._view_key() == self.last_view:
            return
        self.last_view = self._view_key()
        self.post(ViewMessage(follower.game, follower.version, self._view(),
                              follower.seconds_to_move(), self.watching))

    async def join_chat(self) -> None:
        """Hear the chat from now on, after the lines said lately (the page
        drops a line it has twice).  The chat is a courtesy: if the store
        cannot give it now, the game goes on without."""
        chat = self.runtime.chat
        self.subscriptions.append(await chat.listen(self.table_id, self.on_chat))
        try:
            for line in await chat.recent(self.table_id):
                self.post(line)
        except TRANSIENT as error:
            log.warning("the chat's recent lines could not be read", error=repr(error))

    async def on_chat(self, line: ChatLine) -> None:
        self.post(line)

    async def on_spectators(self, message: Msg) -> None:
        with contextlib.suppress(msgspec.ValidationError, msgspec.DecodeError):
            count = spectator_count_decoder.decode(message.data)
            before = self.watching
            self.spectator_counts[count.process] = count.count
            if self.watching != before:
                with contextlib.suppress(Exception):  # the socket may be closing
                    await self.send(SpectatorsMessage(self.watching))

    # ------------------------------------------------------------ commands

    async def decode(self, raw: str | bytes) -> object:
        if len(raw) > MAX_MESSAGE_BYTES:
            await self.fail("message-too-large", f"messages are at most {MAX_MESSAGE_BYTES} bytes",
                            1009)
            raise WebSocketDisconnect(detail="message too large")
        try:
            return client_message_decoder.decode(raw)
        except (msgspec.ValidationError, msgspec.DecodeError) as error:
            await self.strike("bad-message", str(error)[:300])
            return None

    async def strike(self, code: str, message: str) -> None:
        """Tell the client what was refused; past the limit, close the socket."""
        if self.strikes.add():
            self.runtime.sockets.send_away(client_address(self.socket))
            await self.fail(code, "too many refused messages: goodbye", POLICY_VIOLATION)
            raise WebSocketDisconnect(detail="closed for too many refused messages")
        await self.send(ErrorMessage(code, message, self.version))

    async def receive_loop(self) -> None:
        while True:
            raw = await self.socket.receive_data(mode="text")
            message = await self.decode(raw)
            if message is None:
                continue
            if not self.commands.take():
                await self.strike("rate-limited", "too many messages: slow down")
                continue
            try:
                await self.handle(message)
            except IllegalMove as error:
                await self.send(ErrorMessage(error.code, str(error), self.version))
            except Refusal as error:
                await self.send(ErrorMessage(error.code, str(error), self.version))
            except TRANSIENT as error:
                log.warning("a command could not be carried out now", error=repr(error))
                await self.send(ErrorMessage(
                    "unavailable", "the table cannot be reached just now: try again",
                    self.version))

    async def handle(self, message: object) -> None:
        command: AnyCommand | None = None
        known: int | None = None
        if isinstance(message, PlayTile):
            command = Play(self.seat, message.tile, message.end, message.claim)
            known = message.known_version
        elif isinstance(message, CallMugginsMessage):
            command = CallMuggins(seat=self.seat)
            known = message.known_version
        elif isinstance(message, Since):
            wanted = message.version
            await self.following.resync(lambda: self.resend(min(wanted, self.following.version)))
            return
        elif isinstance(message, Rematch):
            await self.runtime.commands.rematch(self.table_id, after_game=self.game)
            return
        elif isinstance(message, Back):
            await self.come_back("back")
            return
        elif isinstance(message, Ping):
            await self.send(Pong())
            return
        elif isinstance(message, HintRequest):
            self.start_hint()
            return
        elif isinstance(message, Chat):
            table = self.following.table
            if table is None:
                raise Refusal("the chat cannot be reached here")
            seat = table.state.seats[self.seat]
            await self.runtime.chat.say(
                self.table_id, enabled=table.state.chat, bucket=self.chat_bucket,
                name=seat.name or seat.display_name or f"seat {self.seat + 1}", seat=self.seat,
                text=message.text, phrase=message.phrase)
            return
        elif isinstance(message, Hello):
            await self.fail("already-seated", "hello comes once, first")
            return
        if command is None:
            return
        table = self.following.table
        if table is not None and table.state.seats[self.seat].takeover is not None:
            # Only a move the rules accept brings the player back: anything
            # else leaves the bot playing (and the table moving).
            state = self.following.state
            if state is None or known != self.following.version:
                await self.following.resync()
                state = self.following.state
            if state is None:
                raise IllegalMove("the game is about to start")
            if known is not None and known != self.following.version:
                raise StaleView(f"your view is at version {known}, the table at "
                                f"{self.following.version}: catch up first")
            decide(state, command)
            await self.come_back("move")
        await self.runtime.commands.submit(
            self.table_id, command, actor=f"seat:{self.seat}", known_version=known,
            expected_game=self.game)

    def start_hint(self) -> None:
        """Think of a hint beside the socket's loop (the search takes its
        budget; pings and moves are answered meanwhile), one at a time."""
        if self.hinting is not None and not self.hinting.done():
            return
        self.hinting = asyncio.create_task(self.hint())

    async def hint(self) -> None:
        """The expert's suggestion for this seat's turn, once per position."""
        try:
            follower = self.following
            state = follower.state
            if state is None or not state.ruleset.hints:
                raise HintsOff("hints are for casual tables: this one has none")
            hand = state.hand
            if (hand is None or state.phase != "playing" or hand.turn != self.seat
                    or not follower.at_append_end or forced_move(state) is not None):
                raise IllegalMove("a hint is for your own turn, when you have a play to choose")
            key = (follower.game, follower.version)
            if self.last_hint is None or (self.last_hint.game, self.last_hint.version) != key:
                started = max((i for i, e in enumerate(follower.events)
                               if isinstance(e, HandStarted)), default=0)
                best = await self.runtime.bots.suggest(
                    state, follower.events[started:], f"{self.table_id}/{key[0]}/{key[1]}")
                self.last_hint = Hint(key[0], key[1], best.tile, best.end, best.scores_now,
                                      round(best.expected_points, 1))
            await self.send(self.last_hint)
        except (IllegalMove, Refusal) as refused:
            await self.fail(refused.code, str(refused))
        except Exception as error:  # the expert failed: say so, the table goes on
            log.error("a hint could not be thought out", error=repr(error), exc_info=error)
            await self.fail("hint-unavailable", "no hint can be given just now")

    async def come_back(self, how: str) -> None:
        state = self.following.state
        hand = 0
        if state is not None:
            hand = state.hand.number if state.hand is not None else state.hands_played
        await self.runtime.seating.player_returned(
            self.table_id, self.seat, "move" if how == "move" else "back", self.game, hand)
