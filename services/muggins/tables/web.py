"""HTTP and WebSocket: thin handlers over the TableService.

``create_app(settings)`` wires everything (STYLE.md 7); nothing happens at
import time.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import msgspec
import structlog
from litestar import Litestar, Request, Response, get, post, websocket
from litestar.connection import WebSocket
from litestar.exceptions import HTTPException, WebSocketDisconnect
from litestar.openapi import OpenAPIConfig
from litestar.params import FromPath, FromQuery, JSONBody
from litestar.response import ServerSentEvent, ServerSentEventMessage
from litestar.status_codes import (
    HTTP_400_BAD_REQUEST,
    HTTP_403_FORBIDDEN,
    HTTP_404_NOT_FOUND,
    HTTP_409_CONFLICT,
    HTTP_503_SERVICE_UNAVAILABLE,
)
from litestar.types import ControllerRouterHandler
from nats.aio.msg import Msg
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from muggins.bootstrap import Infrastructure, infrastructure
from muggins.bus.jetstream import bus_message_decoder, subject
from muggins.client.pages import checked_language, client_routes
from muggins.logs import log_context
from muggins.projections.read_models import PROJECTIONS
from muggins.projections.runner import QUERIES as VIEW_QUERIES
from muggins.projections.runner import ProjectorRunner
from muggins.rules.commands import AnyCommand, CallMuggins, Play
from muggins.rules.describe import PRESET_SUMMARIES
from muggins.rules.errors import IllegalMove
from muggins.rules.events import event_encoder, visible_to
from muggins.rules.presets import DEFAULT_PRESET, PRESETS
from muggins.settings import Settings
from muggins.tables.protocol import (
    CallMugginsMessage,
    CreateTable,
    ErrorMessage,
    EventMessage,
    GameStartedMessage,
    Hello,
    PlayTile,
    Rematch,
    SeatGranted,
    Since,
    SpectatorCount,
    SpectatorsMessage,
    TableInfo,
    TakeSeat,
    ViewMessage,
    Welcome,
    client_message_decoder,
    encode,
)
from muggins.tables.service import (
    BadRequest,
    BadToken,
    SeatUnavailable,
    ServiceOptions,
    TableNotFound,
    TableService,
    control_subject,
    game_stream,
    spectators_subject,
)
from muggins.tables.spectators import SpectatorFeeds, TableSeats
from muggins.views import game_view

log = structlog.get_logger(__name__)

MAX_MESSAGE_BYTES = 4096
MAX_BODY_BYTES = 64 * 1024
#: Seconds of silence after which a connection checks it missed nothing.
IDLE_CHECK = 1.0
#: ... and every this many checks it asks the store even if nothing hints at it.
STORE_CHECK_EVERY = 5
HELLO_TIMEOUT = 10.0


@dataclass
class Runtime:
    infra: Infrastructure
    service: TableService
    feeds: SpectatorFeeds
    projectors: list[ProjectorRunner] = field(default_factory=list)
    sessions: set[PlaySession] = field(default_factory=set)


_decode_count = msgspec.json.Decoder(SpectatorCount).decode


def _runtime(request: Request | WebSocket) -> Runtime:  # type: ignore[type-arg]
    return request.app.state.runtime  # type: ignore[no-any-return]


def _http_error(error: Exception) -> HTTPException:
    status = {
        TableNotFound: HTTP_404_NOT_FOUND,
        SeatUnavailable: HTTP_409_CONFLICT,
        BadRequest: HTTP_400_BAD_REQUEST,
        BadToken: HTTP_403_FORBIDDEN,
    }.get(type(error), HTTP_409_CONFLICT)
    return HTTPException(status_code=status, detail=str(error))


@post("/tables", summary="Create a table", description="A table from a preset, with bots.")
async def create_table(
    request: Request, data: JSONBody[CreateTable]  # type: ignore[type-arg]
) -> TableInfo:
    try:
        return await _runtime(request).service.create_table(data)
    except (BadRequest, IllegalMove) as error:
        raise _http_error(error) from None


@get("/tables/{table_id:str}", summary="A table: its rules in words and its seats")
async def get_table(
    request: Request, table_id: FromPath[str], lang: FromQuery[str] = "en"  # type: ignore[type-arg]
) -> TableInfo:
    language = checked_language(lang)
    try:
        return await _runtime(request).service.info(table_id, language)
    except TableNotFound as error:
        raise _http_error(error) from None


@post("/tables/{table_id:str}/seats/{seat:int}", summary="Take a free seat")
async def take_seat(
    request: Request,  # type: ignore[type-arg]
    table_id: FromPath[str],
    seat: FromPath[int],
    data: JSONBody[TakeSeat],
) -> SeatGranted:
    try:
        return await _runtime(request).service.take_seat(table_id, seat, data)
    except (TableNotFound, SeatUnavailable, BadRequest, BadToken) as error:
        raise _http_error(error) from None


class Health(msgspec.Struct, frozen=True):
    status: str
    postgres: str = "unknown"
    nats: str = "unknown"


@get("/healthz", summary="The process is alive")
async def healthz() -> Health:
    return Health("ok")


@get("/readyz", summary="PostgreSQL and NATS are reachable")
async def readyz(request: Request) -> Response[Health]:  # type: ignore[type-arg]
    runtime = _runtime(request)
    postgres = "ok"
    try:
        async with asyncio.timeout(2):
            await runtime.infra.pool.fetchval("SELECT 1")
    except Exception as error:  # any failure means not ready
        postgres = f"unavailable: {error or 'no answer within 2 s'}"
    nats = "ok" if runtime.infra.nats.is_connected else "unavailable: disconnected"
    ready = postgres == "ok" and nats == "ok"
    return Response(
        Health("ready" if ready else "not ready", postgres, nats),
        status_code=200 if ready else HTTP_503_SERVICE_UNAVAILABLE,
    )


class LobbyTable(msgspec.Struct, frozen=True):
    table_id: str
    preset: str
    seats: int
    free_seats: int
    link: str


class PlayingTable(msgspec.Struct, frozen=True):
    table_id: str
    game: int
    version: int
    view: msgspec.Raw
    watch_link: str
    #: Who sits where now (the view itself comes from the events, which carry no names).
    names: list[str | None] = []


class Lobby(msgspec.Struct, frozen=True):
    open: list[LobbyTable]
    playing: list[PlayingTable]


@get("/lobby", summary="Open tables with free seats, and tables being played")
async def lobby(
    request: Request, limit: FromQuery[int] = 50  # type: ignore[type-arg]
) -> Lobby:
    runtime = _runtime(request)
    limit = max(1, min(limit, 200))
    pool = runtime.infra.pool
    service = runtime.service
    open_tables = [
        LobbyTable(row[0], msgspec.json.decode(row[1])["preset"], row[3], row[2],
                   service.links(row[0])[0])
        for row in await pool.fetch(VIEW_QUERIES["open_tables"], limit)
        if row[2] > 0
    ]
    playing = [
        PlayingTable(row[0], row[1], row[2], msgspec.Raw(row[3].encode()),
                     service.links(row[0])[1], list(row[4] or []))
        for row in await pool.fetch(VIEW_QUERIES["playing"], limit)
    ]
    return Lobby(open_tables, playing)


class PublicTableView(msgspec.Struct, frozen=True):
    table_id: str
    game: int
    version: int
    phase: str
    preset: str
    #: The preset in one sentence (English), for a lobby or a spectator.
    summary: str
    #: Every knob of the rules (docs/presets.md).
    ruleset: msgspec.Raw
    view: msgspec.Raw


@get("/tables/{table_id:str}/view", summary="The public view of a table's game (read model)")
async def table_view(
    request: Request, table_id: FromPath[str]  # type: ignore[type-arg]
) -> PublicTableView:
    row = await _runtime(request).infra.pool.fetchrow(VIEW_QUERIES["table_view"], table_id)
    if row is None:
        raise HTTPException(status_code=HTTP_404_NOT_FOUND,
                            detail=f"no game has been played at table {table_id!r} yet")
    return PublicTableView(table_id, row[0], row[1], row[3], row[4],
                           PRESET_SUMMARIES.get(row[4], ""), msgspec.Raw(row[5].encode()),
                           msgspec.Raw(row[2].encode()))


class LeaderboardLine(msgspec.Struct, frozen=True):
    rank: int
    player_id: str
    name: str
    #: A bot (all bots of one level are one player).
    bot: bool
    #: mu - 3 sigma (openskill Plackett-Luce): what the board is sorted by.
    rating: float
    mu: float
    sigma: float
    games: int
    won: int
    drawn: int
    hands: int
    points_per_hand: float
    best_play: int


class PresetBoard(msgspec.Struct, frozen=True):
    preset: str
    players: int


class LeaderboardPage(msgspec.Struct, frozen=True):
    preset: str
    page: int
    per_page: int
    total: int
    players: list[LeaderboardLine]
    #: Every preset with a leaderboard, and how many players are on it.
    presets: list[PresetBoard]


@get("/leaderboard", summary="Ratings and records per player, one board per preset",
     description="Sorted by rating (openskill mu - 3 sigma). Pages start at 1.")
async def leaderboard(
    request: Request,  # type: ignore[type-arg]
    preset: FromQuery[str] = DEFAULT_PRESET,
    page: FromQuery[int] = 1,
    per_page: FromQuery[int] = 25,
) -> LeaderboardPage:
    if preset not in PRESETS:
        raise HTTPException(status_code=HTTP_400_BAD_REQUEST,
                            detail=f"unknown preset {preset!r}; choose from "
                                   f"{', '.join(PRESETS)}")
    if page < 1 or not 1 <= per_page <= 100:
        raise HTTPException(status_code=HTTP_400_BAD_REQUEST,
                            detail="page starts at 1; per_page is 1 to 100")
    pool = _runtime(request).infra.pool
    offset = (page - 1) * per_page
    rows = await pool.fetch(VIEW_QUERIES["leaderboard_page"], preset, per_page, offset)
    lines = [
        LeaderboardLine(
            rank=offset + index + 1, player_id=row["player_id"], name=row["name"],
            bot=row["bot"], rating=round(row["rating"], 3), mu=round(row["mu"], 3),
            sigma=round(row["sigma"], 3), games=row["games"], won=row["won"],
            drawn=row["drawn"], hands=row["hands"],
            points_per_hand=round(row["points"] / row["hands"], 2) if row["hands"] else 0.0,
            best_play=row["best_play"],
        )
        for index, row in enumerate(rows)
    ]
    total = await pool.fetchval(VIEW_QUERIES["leaderboard_size"], preset)
    boards = [PresetBoard(row[0], row[1])
              for row in await pool.fetch(VIEW_QUERIES["leaderboard_presets"])]
    return LeaderboardPage(preset, page, per_page, total, lines, boards)


@get("/metrics", summary="Prometheus metrics", media_type="text/plain; version=0.0.4")
async def metrics(request: Request) -> Response[bytes]:  # type: ignore[type-arg]
    for runner in _runtime(request).projectors:
        with contextlib.suppress(Exception):
            await runner.report_lag(log_now=False)
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)


class PlaySession:
    """One seat's WebSocket: commands in, that seat's events and views out."""

    def __init__(self, socket: WebSocket, runtime: Runtime, table_id: str) -> None:  # type: ignore[type-arg]
        self.socket = socket
        self.runtime = runtime
        self.service = runtime.service
        self.table_id = table_id
        #: The seat this socket plays (known after hello).
        self.seat = -1
        self.game = 0
        self.sent_version = 0
        self.viewed_version = -1
        self.idle_checks = 0
        self.pending: dict[int, bytes] = {}
        self.inbox: asyncio.Queue[tuple[str, bytes, str]] = asyncio.Queue()
        self.subscriptions: list[object] = []
        self.rate = runtime.service.options.commands_per_second
        self.burst = runtime.service.options.command_burst
        self.tokens = self.burst
        self.refilled = time.monotonic()
        self.send_lock = asyncio.Lock()
        #: How many watch the table, by the process they watch through.
        self.spectator_counts: dict[str, int] = {}

    async def send(self, message: object) -> None:
        async with self.send_lock:
            await self.socket.send_data(encode(message).decode())

    async def fail(self, code: str, message: str, close: int | None = None) -> None:
        with contextlib.suppress(Exception):
            await self.send(ErrorMessage(code, message))
            if close is not None:
                await self.socket.close(close, message[:120])

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
            self.seat = await self.service.seat_for_token(self.table_id, hello.token)
        except (BadToken, TableNotFound) as error:
            await self.fail("bad-token", str(error), 1008)
            return
        with log_context(table=self.table_id, seat=self.seat):
            record = await self.service.table(self.table_id, fresh=True)
            if record.seats[self.seat].bot_playing and record.seats[self.seat].bot_level is None:
                await self.service.reclaim(self.table_id, self.seat)
            self.service.connected(self.table_id, self.seat)
            try:
                await self.start(hello.since)
                await self.serve_both_ways()
            finally:
                for subscription in self.subscriptions:
                    with contextlib.suppress(Exception):
                        await subscription.unsubscribe()  # type: ignore[attr-defined]
                self.service.disconnected(self.table_id, self.seat)

    async def serve_both_ways(self) -> None:
        """Read commands and push events until either side stops; then stop both."""
        tasks = [asyncio.create_task(self.receive_loop()), asyncio.create_task(self.push_loop())]
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

    async def start(self, since: int | None) -> None:
        nc = self.runtime.infra.nats
        self.subscriptions.append(
            await nc.subscribe(control_subject(self.table_id), cb=self.on_control)
        )
        self.subscriptions.append(
            await nc.subscribe(spectators_subject(self.table_id), cb=self.on_spectators)
        )
        feeds = self.runtime.feeds
        self.spectator_counts[feeds.process] = feeds.watching(self.table_id)
        record = await self.service.table(self.table_id)
        await self.follow(record.game, since)

    async def follow(self, game: int, since: int | None) -> None:
        """Subscribe to a game's subjects, then catch up from the store."""
        # The first two (table control, spectator counts) stay for the session.
        for subscription in self.subscriptions[2:]:
            with contextlib.suppress(Exception):
                await subscription.unsubscribe()  # type: ignore[attr-defined]
        del self.subscriptions[2:]
        self.game = game
        self.pending.clear()
        record = await self.service.table(self.table_id)
        if game == 0:
            await self.send(Welcome(self.table_id, self.seat, 0, 0, None,
                                    record.turn_clock_seconds))
            return
        stream = game_stream(self.table_id, game)
        nc = self.runtime.infra.nats
        for audience in ("public", f"seat:{self.seat}"):
            self.subscriptions.append(
                await nc.subscribe(subject(stream, audience), cb=self.on_event)
            )
        version, state = await self.service.state(self.table_id, game)
        if since is None or since >= version:
            # A fresh start: the view now, then live events after it.
            view = game_view(state, self.seat, record.names, record.bots)
            self.viewed_version = version
            await self.send(Welcome(self.table_id, self.seat, game, version, view,
                                    record.turn_clock_seconds))
            self.sent_version = version
            return
        # A reconnect: everything after ``since`` in order, as this seat may see
        # it, then the view; live events continue after that.
        await self.send(Welcome(self.table_id, self.seat, game, since, None,
                                record.turn_clock_seconds))
        for recorded in await self.service.store.read_stream(stream, since):
            if recorded.stream_version > version:
                break
            event = visible_to(recorded.event(), self.seat)
            await self.send(EventMessage(game, recorded.stream_version,
                                         msgspec.Raw(event_encoder.encode(event))))
        self.sent_version = version
        await self.push_view()

    async def on_control(self, message: Msg) -> None:
        await self.inbox.put(("control", message.data, ""))

    async def on_spectators(self, message: Msg) -> None:
        await self.inbox.put(("spectators", message.data, ""))

    @property
    def watching(self) -> int:
        return sum(self.spectator_counts.values())

    async def on_event(self, message: Msg) -> None:
        await self.inbox.put(("event", message.data, message.subject))

    async def push_loop(self) -> None:
        while True:
            try:
                async with asyncio.timeout(IDLE_CHECK):  # not wait_for: see Spectator.next
                    kind, data, subject_name = await self.inbox.get()
            except TimeoutError:
                await self.repair()
                continue
            await self.take(kind, data, subject_name)
            # The view follows the last of a burst, whatever that last message
            # was (one this seat skips, a count, a new game): never left unsent.
            if self.inbox.empty() and not self.pending:
                await self.push_view()

    async def take(self, kind: str, data: bytes, subject_name: str) -> None:
        """One message from the bus: a spectator count, a new game or an event."""
        if kind == "spectators":
            with contextlib.suppress(msgspec.ValidationError, msgspec.DecodeError):
                count = _decode_count(data)
                before = self.watching
                self.spectator_counts[count.process] = count.count
                if self.watching != before:
                    await self.send(SpectatorsMessage(self.watching))
            return
        if kind == "control":
            game = int(data.decode())
            if game > self.game:
                await self.send(GameStartedMessage(game))
                await self.follow(game, 0)
            return
        bus = bus_message_decoder.decode(data)
        if bus.stream_id != game_stream(self.table_id, self.game):
            return
        own = f"seat:{self.seat}"
        if subject_name.endswith(".public") and bus.audience == own:
            return  # this seat gets the full copy on its own subject
        if bus.stream_version > self.sent_version:
            self.pending[bus.stream_version] = bytes(bus.event)
        while self.sent_version + 1 in self.pending:
            self.sent_version += 1
            await self.send(EventMessage(self.game, self.sent_version,
                                         msgspec.Raw(self.pending.pop(self.sent_version))))

    async def repair(self) -> None:
        """The bus delivers at most once: when quiet, make sure nothing was missed.

        Every IDLE_CHECK seconds of silence, if this process knows of newer
        events (or every few checks regardless, for moves made through another
        process), read them from the store, the source of truth, and send them.
        """
        if self.game == 0:
            return
        self.idle_checks += 1
        known = self.service.cached_version(self.table_id, self.game) or 0
        if known <= self.sent_version and self.idle_checks % STORE_CHECK_EVERY:
            return
        stream = game_stream(self.table_id, self.game)
        caught_up = False
        for recorded in await self.service.store.read_stream(stream, self.sent_version):
            if recorded.stream_version != self.sent_version + 1:
                break
            event = visible_to(recorded.event(), self.seat)
            self.sent_version = recorded.stream_version
            self.pending.pop(self.sent_version, None)
            await self.send(EventMessage(self.game, self.sent_version,
                                         msgspec.Raw(event_encoder.encode(event))))
            caught_up = True
        if caught_up:
            log.warning("events missed on the bus were sent from the store",
                        version=self.sent_version)
            await self.push_view()

    async def push_view(self) -> None:
        record = await self.service.table(self.table_id)
        version, state = await self.service.state(self.table_id, self.game,
                                                  at_least=self.sent_version)
        if version != self.sent_version or version == self.viewed_version:
            return  # more events are on their way (the view follows them), or sent already
        self.viewed_version = version
        view = game_view(state, self.seat, record.names, record.bots)
        left = self.service.seconds_left(self.table_id, version, record.turn_clock_seconds)
        await self.send(ViewMessage(self.game, version, view, left, self.watching))

    async def decode(self, raw: str | bytes) -> object:
        if len(raw) > MAX_MESSAGE_BYTES:
            await self.fail("message-too-large", f"messages are at most {MAX_MESSAGE_BYTES} bytes",
                            1009)
            raise WebSocketDisconnect(detail="message too large")
        try:
            return client_message_decoder.decode(raw)
        except (msgspec.ValidationError, msgspec.DecodeError) as error:
            await self.fail("bad-message", str(error))
            return None

    def allowed(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.refilled) * self.rate)
        self.refilled = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    async def receive_loop(self) -> None:
        while True:
            raw = await self.socket.receive_data(mode="text")
            message = await self.decode(raw)
            if message is None:
                continue
            if not self.allowed():
                await self.fail("rate-limited", "too many messages: slow down")
                continue
            await self.handle(message)

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
            await self.follow(self.game, message.version)
            return
        elif isinstance(message, Rematch):
            try:
                await self.service.rematch(self.table_id)
            except IllegalMove as error:
                await self.fail(error.code, str(error))
            return
        elif isinstance(message, Hello):
            await self.fail("already-seated", "hello comes once, first")
            return
        if command is None:
            return
        record = await self.service.table(self.table_id)
        if record.seats[self.seat].bot_playing and record.seats[self.seat].bot_level is None:
            await self.service.reclaim(self.table_id, self.seat)  # the player is back
        try:
            await self.service.submit(self.table_id, command, actor=f"seat:{self.seat}",
                                      known_version=known, expected_game=self.game)
        except IllegalMove as error:
            await self.send(ErrorMessage(error.code, str(error), self.sent_version))


async def _watch_socket_loop(socket: WebSocket, runtime: Runtime, table_id: str,  # type: ignore[type-arg]
                             since: int | None) -> None:
    """Send the feed to one spectator; read only ``since`` (to resume) from it."""
    feeds = runtime.feeds
    feed, first = await feeds.join(table_id, since)
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

    async def receive_loop() -> None:
        while True:
            raw = await socket.receive_data(mode="text")
            message: object = None
            if len(raw) <= MAX_MESSAGE_BYTES:
                with contextlib.suppress(msgspec.ValidationError, msgspec.DecodeError):
                    message = client_message_decoder.decode(raw)
            if isinstance(message, Since):
                replaced = current[0]
                current[0] = feed.join(message.version, feed.game)
                feed.leave(replaced)
                replaced.offer(None)  # wakes the send loop, which moves to the new place
                continue
            await socket.send_data(encode(ErrorMessage(
                "spectator", "spectators watch: they cannot play")).decode())

    with log_context(table=table_id, reader="spectator"):
        tasks = [asyncio.create_task(send_loop()), asyncio.create_task(receive_loop())]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            await feeds.leave(feed, current[0])


@websocket("/tables/{table_id:str}/watch")
async def watch_socket(
    socket: WebSocket,  # type: ignore[type-arg]
    table_id: FromPath[str],
    since: FromQuery[int | None] = None,
) -> None:
    await socket.accept()
    runtime = _runtime(socket)
    try:
        await _watch_socket_loop(socket, runtime, table_id, since)
    except TableNotFound as error:
        with contextlib.suppress(Exception):
            await socket.send_data(encode(ErrorMessage("no-such-table", str(error))).decode())
            await socket.close(1008, "no such table")
    except WebSocketDisconnect:
        pass


#: Seconds between SSE comments that keep idle connections (and proxies) open.
SSE_KEEPALIVE = 15.0


def _resume_point(last_event_id: str | None, since: str | None) -> tuple[int | None, int | None]:
    """(game, version) from a Last-Event-ID or ?since= of the form "game.version"."""
    raw = last_event_id or since
    if not raw:
        return None, None
    game, _, version = raw.partition(".")
    if not (game.isdigit() and version.isdigit()):
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
    runtime = _runtime(request)
    try:
        feed, spectator = await runtime.feeds.join(table_id, version, game)
    except TableNotFound as error:
        raise _http_error(error) from None

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
            await runtime.feeds.leave(feed, spectator)

    return ServerSentEvent(messages(), headers={"Cache-Control": "no-store",
                                                "X-Accel-Buffering": "no"})


@websocket("/tables/{table_id:str}/play")
async def play_socket(socket: WebSocket, table_id: FromPath[str]) -> None:  # type: ignore[type-arg]
    await socket.accept()
    runtime = _runtime(socket)
    session = PlaySession(socket, runtime, table_id)
    runtime.sessions.add(session)
    try:
        await session.run()
    finally:
        runtime.sessions.discard(session)


def create_app(
    settings: Settings,
    options: ServiceOptions | None = None,
    infra: Infrastructure | None = None,
) -> Litestar:
    """The table service as an ASGI app: all wiring happens here."""
    options = options or ServiceOptions()

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as stack:
            ready = (
                infra
                if infra is not None
                else await stack.enter_async_context(infrastructure(settings))
            )

            async def announce(table_id: str, game: int) -> None:
                await ready.nats.publish(control_subject(table_id), str(game).encode())

            service = TableService(ready.pool, ready.store, options, announce)

            async def seats_of(table_id: str) -> TableSeats:
                record = await service.table(table_id, fresh=True)
                return TableSeats(record.game, record.names, record.bots,
                                  record.turn_clock_seconds)

            feeds = SpectatorFeeds(ready.nats, ready.store, seats_of)
            projectors = (
                [ProjectorRunner(ready.pool, ready.store, make()) for make in PROJECTIONS.values()]
                if options.projectors and options.role == "all"
                else []
            )
            runtime = Runtime(ready, service, feeds, projectors)
            app.state.runtime = runtime
            stop_projecting = asyncio.Event()
            projecting = [
                asyncio.create_task(runner.follow(stop_projecting, ready.js))
                for runner in projectors
            ]
            try:
                yield
            finally:
                stop_projecting.set()
                for task in projecting:
                    with contextlib.suppress(Exception):
                        async with asyncio.timeout(10):
                            await task
                for session in list(runtime.sessions):
                    with contextlib.suppress(Exception):
                        await session.socket.close(1001, "the server is shutting down")
                await feeds.close()
                await service.close()

    def too_deep(request: Request, error: RecursionError) -> Response[dict[str, object]]:  # type: ignore[type-arg]
        return Response({"status_code": 400, "detail": "the request body is nested too deeply"},
                        status_code=HTTP_400_BAD_REQUEST)

    readers: list[ControllerRouterHandler] = [
        get_table, healthz, readyz, watch_socket, table_events, lobby, table_view, leaderboard,
        metrics,
    ]
    players: list[ControllerRouterHandler] = [create_table, take_seat, play_socket]
    return Litestar(
        route_handlers=readers + (players if options.role == "all" else []) + client_routes(),
        exception_handlers={RecursionError: too_deep},
        lifespan=[lifespan],
        request_max_body_size=MAX_BODY_BYTES,
        openapi_config=OpenAPIConfig(title="muggins", version="0.1.0", path="/schema"),
        debug=False,
    )
