"""A seat's WebSocket: hello, commands in, that seat's events and views out.

The plumbing is the socket session's (muggins.tables.socket_session); this
is what a seat adds to it: the hello with the seat token, the seat's view
of each event (from the table's GameFollower, the same one spectators'
feeds read), its commands (to Commands, which also owns the rule that a
valid move takes a seat back from a bot), "I'm back", rematch, hints
(muggins.tables.hints) and the chat under the seat's name.
"""

from __future__ import annotations

import asyncio
import contextlib

import msgspec
import structlog
from litestar import websocket
from litestar.connection import WebSocket
from litestar.exceptions import WebSocketDisconnect
from litestar.params import FromPath
from nats.aio.msg import Msg

from muggins.bus.connection import BusSubscription
from muggins.domain import streams
from muggins.domain.streams import TableId, spectators_subject
from muggins.domain.views import GameView, game_view
from muggins.evidence.receipts import receipt_of
from muggins.rules.commands import AnyCommand, CallMuggins, Play
from muggins.rules.errors import IllegalMove
from muggins.rules.events import Event, event_encoder, visible_to
from muggins.tables.admission import Payer
from muggins.tables.errors import Refusal
from muggins.tables.follower import GameFollower
from muggins.tables.http import runtime_of
from muggins.tables.life_view import life_view
from muggins.tables.limits import SocketKind
from muggins.tables.protocol import (
    Back,
    CallMugginsMessage,
    Chat,
    ChatLine,
    Decide,
    DisputesMessage,
    GameStartedMessage,
    Hello,
    HintRequest,
    LifeView,
    PlayTile,
    ReceiptsMessage,
    Rematch,
    SpectatorsMessage,
    ViewMessage,
    Welcome,
    event_message,
    spectator_count_decoder,
)
from muggins.tables.runtime import Runtime
from muggins.tables.socket_session import Refused, SocketSession, serve_socket

log = structlog.get_logger(__name__)

#: How a seat's socket ends when its table's follower failed.
FOLLOWER_FAILED = "the table cannot be followed just now: reconnect"

HELLO_TIMEOUT = 10.0


class SeatHandler:
    """What a seat's socket does on top of the session."""

    kind: SocketKind = "play"

    def __init__(self, runtime: Runtime, table: str) -> None:
        self.runtime = runtime
        #: As the client gave it; checked when the socket starts.
        self.asked_for = table
        self.table_id = TableId("")
        self.session: SocketSession | None = None
        #: The seat this socket plays (known after hello), and who its person is.
        self.seat = -1
        self.player_id: str | None = None
        #: The table's follower in this process, shared with its other readers.
        self.follower: GameFollower | None = None
        self.subscriptions: list[BusSubscription] = []
        #: What the last view showed: (game, version, table version, spectators).
        self.last_view: tuple[int, int, int, int] | None = None
        #: How many watch the table, by the process they watch through.
        self.spectator_counts: dict[str, int] = {}
        self.hinting: asyncio.Task[None] | None = None
        self.present = False
        #: How many of the table's receipts this socket was sent.
        self.receipts_sent = 0
        #: The disputes (opened, resolved) this socket was told of.
        self.disputes_told = (0, 0)

    @property
    def following(self) -> GameFollower:
        assert self.follower is not None, "the seat's follower starts after hello"
        return self.follower

    @property
    def game(self) -> int:
        return self.following.game

    @property
    def watching(self) -> int:
        return sum(self.spectator_counts.values())

    def version(self) -> int | None:
        return self.follower.version if self.follower is not None else None

    def _post(self, message: object) -> None:
        assert self.session is not None
        self.session.post(message)

    # ------------------------------------------------------------ life

    async def start(self, session: SocketSession) -> None:
        self.session = session
        # NoSuchTable: refused like an unknown table.
        self.table_id = streams.table_id(self.asked_for)
        try:
            hello = await session.receive_first(HELLO_TIMEOUT)
        except TimeoutError:
            raise Refused("hello-expected", "send hello with your seat token first") from None
        if not isinstance(hello, Hello):
            raise Refused("hello-expected", "the first message must be hello")
        try:
            self.seat = await self.runtime.seating.seat_for_token(self.table_id, hello.token)
        except Refusal as error:
            raise Refused("bad-token", str(error)) from None
        await self.runtime.presence.connected(self.table_id, self.seat)
        self.present = True
        self.spectator_counts[self.runtime.feeds.process] = self.runtime.feeds.watching(
            self.table_id)
        since, seen_game = hello.since, hello.game
        await self.runtime.followers.join(
            self.table_id, self, on_join=lambda follower: self._welcome(follower, since,
                                                                        seen_game))
        self.subscriptions.append(await self.runtime.infra.bus.subscribe(
            spectators_subject(self.table_id), self.on_spectators))

    async def finish(self, session: SocketSession) -> None:
        if self.hinting is not None:
            self.hinting.cancel()
        for subscription in self.subscriptions:
            with contextlib.suppress(Exception):
                await subscription.unsubscribe()
        if self.follower is not None:
            with contextlib.suppress(Exception):
                await self.runtime.followers.leave(self.table_id, self)
        if self.present:
            await self.runtime.presence.disconnected(self.table_id, self.seat)

    async def _welcome(self, follower: GameFollower, since: int | None,
                       seen_game: int | None = None) -> None:
        """The first messages (run as the seat joins the follower: nothing
        is told meanwhile): the welcome and the view, or what was missed;
        then the chat's recent lines (the page drops a line it has twice)."""
        self.follower = follower
        self.player_id = (follower.table.state.seats[self.seat].player_id
                          if follower.table is not None else None)
        if since is not None and seen_game is not None and seen_game != follower.game:
            since = 0  # the client's versions are another game's: all of this one
        assert follower.table is not None
        clock = follower.table.state.turn_clock_seconds
        if follower.state is None or since is None or since >= follower.version:
            view = self._view() if follower.state is not None else None
            self._post(Welcome(self.table_id, self.seat, follower.game, follower.version,
                               view, clock, follower.seconds_to_move(), self._life()))
            if view is not None:
                self.last_view = self._view_key()
        else:
            # A reconnect: everything after ``since`` in order, as this seat may
            # see it, then the view; live events continue after that.
            self._post(Welcome(self.table_id, self.seat, follower.game, since, None, clock))
            await self._resend(since)
        self._push_receipts()
        for line in follower.chat:
            self._post(line)

    def _push_receipts(self) -> None:
        """The table's receipts this socket has not been sent (all of them at
        first): every seat keeps every hand's (docs/fairness.md, "Receipts");
        and word that its disputes changed, when they did."""
        table = self.following.table
        seals = table.state.seals if table is not None else ()
        if len(seals) > self.receipts_sent:
            self._post(ReceiptsMessage([receipt_of(self.table_id, sealed)
                                        for sealed in seals[self.receipts_sent:]]))
            self.receipts_sent = len(seals)
        disputes = table.state.disputes if table is not None else ()
        told = (len(disputes), sum(d.resolved is not None for d in disputes))
        if told != self.disputes_told:
            self._post(DisputesMessage(*told))
            self.disputes_told = told

    async def resume(self, session: SocketSession, version: int) -> None:
        await self.following.resync(
            lambda: self._resend(min(version, self.following.version)))

    async def _resend(self, since: int) -> None:
        follower = self.following
        for version in range(since + 1, follower.version + 1):
            await self.on_event(follower, version, follower.events[version - 1])
        self.last_view = None
        await self._push_view()

    # ------------------------------------------------------------ what the follower tells

    async def on_game(self, follower: GameFollower) -> None:
        assert follower.table is not None
        self._post(GameStartedMessage(follower.game))
        self._post(Welcome(self.table_id, self.seat, follower.game, 0, None,
                           follower.table.state.turn_clock_seconds))

    async def on_event(self, follower: GameFollower, version: int, event: Event) -> None:
        seen = visible_to(event, self.seat)
        self._post(event_message(follower.game, version, event_encoder.encode(seen),
                                 follower.actors[version - 1], follower.count_parts[version - 1]))

    async def on_settled(self, follower: GameFollower) -> None:
        await self._push_view()
        self._push_receipts()

    async def on_chat(self, follower: GameFollower, line: ChatLine) -> None:
        self._post(line)

    async def on_failed(self, follower: GameFollower) -> None:
        """The table's follower ended by a bug (logged): the page reconnects
        and gets a new one, from the store."""
        assert self.session is not None
        self.session.close_after_sent(FOLLOWER_FAILED, "unavailable")

    def _view_key(self) -> tuple[int, int, int, int]:
        follower = self.following
        table = follower.table
        return (follower.game, follower.version, table.version if table else 0, self.watching)

    def _view(self) -> GameView:
        follower = self.following
        assert follower.state is not None and follower.table is not None
        table = follower.table.state
        return game_view(follower.state, self.seat, table.names, table.bots)

    async def _push_view(self) -> None:
        follower = self.following
        if follower.state is None or self._view_key() == self.last_view:
            return
        self.last_view = self._view_key()
        self._post(ViewMessage(follower.game, follower.version, self._view(),
                               follower.seconds_to_move(), self.watching, self._life()))

    def _life(self) -> LifeView | None:
        follower = self.following
        if follower.table is None:
            return None
        return life_view(follower.table, follower.state, self.runtime.commands.timings)

    async def on_spectators(self, message: Msg) -> None:
        with contextlib.suppress(msgspec.ValidationError, msgspec.DecodeError):
            count = spectator_count_decoder.decode(message.data)
            before = self.watching
            self.spectator_counts[count.process] = count.count
            if self.watching != before and self.session is not None:
                self._post(SpectatorsMessage(self.watching))  # queued: a slow reader waits alone

    # ------------------------------------------------------------ messages

    async def handle(self, session: SocketSession, message: object) -> None:
        command: AnyCommand | None = None
        known: int | None = None
        if isinstance(message, PlayTile):
            command = Play(self.seat, message.tile, message.end, message.claim)
            known = message.known_version
        elif isinstance(message, CallMugginsMessage):
            command = CallMuggins(seat=self.seat)
            known = message.known_version
        elif isinstance(message, Rematch):
            await self.runtime.commands.rematch(self.table_id, self.seat, after_game=self.game)
        elif isinstance(message, Back):
            await self.runtime.commands.come_back(self.table_id, self.seat)
        elif isinstance(message, Decide):
            await self.runtime.commands.decide(self.table_id, self.seat, message.choice)
        elif isinstance(message, HintRequest):
            self._start_hint(session)
        elif isinstance(message, Hello):
            raise Refusal("hello comes once, first")
        if command is not None:
            await self.runtime.commands.submit(
                self.table_id, command, actor=f"seat:{self.seat}", known_version=known,
                expected_game=self.game, person=self.seat)

    async def say(self, session: SocketSession, chat: Chat) -> None:
        table = self.following.table
        if table is None:
            raise Refusal("the chat cannot be reached here")
        seat = table.state.seats[self.seat]
        await self.runtime.chat.say(
            self.table_id, table.state, name=seat.name or seat.display_name
            or f"seat {self.seat + 1}", seat=self.seat, text=chat.text, phrase=chat.phrase,
            payers=[session.socket_payer, session.address_payer])

    def _start_hint(self, session: SocketSession) -> None:
        """Think of a hint beside the socket's loop (pings and moves are
        answered meanwhile), one at a time per socket."""
        if self.hinting is not None and not self.hinting.done():
            return
        self.hinting = asyncio.create_task(self._hint(session))

    async def _hint(self, session: SocketSession) -> None:
        payers = [Payer("seat", f"{self.table_id}/{self.seat}"), session.address_payer]
        if self.player_id is not None:
            payers.append(Payer("identity", self.player_id))
        try:
            hint = await self.runtime.hints.hint(self.following, self.seat, payers)
        except (IllegalMove, Refusal) as refused:
            await session.refuse(refused)
            return
        except Exception as error:  # the expert failed: say so, the table goes on
            log.error("a hint could not be thought out", error=repr(error), exc_info=error)
            await session.fail("hint-unavailable", "no hint can be given just now")
            return
        try:
            await session.send(hint)
        except (OSError, RuntimeError, WebSocketDisconnect):
            # The socket went while the hint was thought (a flooder's habit):
            # nothing is lost, the hint is kept for its seat and position, and
            # asking again reads it.  Not the expert's failure.
            log.info("a hint's socket went before it was told", seat=self.seat)


@websocket("/tables/{table_id:str}/play")
async def play_socket(socket: WebSocket, table_id: FromPath[str]) -> None:  # type: ignore[type-arg]
    """A seat's socket (docs/service.md, "The play socket")."""
    runtime = runtime_of(socket)
    await serve_socket(socket, runtime, SeatHandler(runtime, table_id))
