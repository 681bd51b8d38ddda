"""The table service: tables, seats, commands, bots and clocks.

Commands come in, the rules engine decides, events go to the event store
(and out on the bus through the relay).  A game's state is rebuilt from its
stream; the cache is only a head start, always brought up to the store's
version before a decision.  Appends carry the expected version: a conflict
(another process moved first) is retried against the fresh state for the
server's own moves, and refused as a stale view for a player's.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import random
import secrets
import time
import uuid
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import asyncpg
import msgspec
import structlog

from muggins.bots import GreedyBot, make_bot
from muggins.eventstore.store import ConcurrencyError, EventStore
from muggins.logs import log_context
from muggins.rules.commands import AnyCommand, CallMuggins, StartHand
from muggins.rules.describe import Language, describe
from muggins.rules.errors import IllegalMove, InvalidRuleset
from muggins.rules.events import SeatedPlayer
from muggins.rules.game import fold, play, start_game
from muggins.rules.presets import preset
from muggins.rules.ruleset import Ruleset
from muggins.rules.state import GameState
from muggins.sql import load_queries
from muggins.tables.protocol import (
    CreateTable,
    RuleLine,
    SeatGranted,
    SeatSummary,
    TableInfo,
    TakeSeat,
    clean_name,
)

QUERIES = load_queries(Path(__file__).parent / "queries.sql")
TABLE_CACHE_SECONDS = 5.0
#: Games (and tables) whose state a process keeps at hand; older ones are
#: rebuilt from the store when needed again.
MAX_CACHED_GAMES = 5000
#: How often the turn clocks are looked at.
CLOCK_TICK = 0.25
log = structlog.get_logger(__name__)


class TableNotFound(LookupError):
    pass


class SeatUnavailable(ValueError):
    pass


class BadRequest(ValueError):
    pass


class BadToken(PermissionError):
    pass


class StaleView(IllegalMove):
    code = "stale-view"


def game_stream(table_id: str, game: int) -> str:
    return f"{table_id}-g{game}"


def control_subject(table_id: str) -> str:
    """Where a table announces that it started a new game (core NATS)."""
    return f"muggins.control.{table_id}"


def spectators_subject(table_id: str) -> str:
    """Where each process says how many watch a table through it (core NATS)."""
    return f"muggins.spectators.{table_id}"


def token_hash(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


@dataclass
class Seat:
    seat: int
    bot_level: str | None
    name: str | None
    player_id: str | None
    bot_playing: bool

    @property
    def is_bot(self) -> bool:
        return self.bot_level is not None or self.bot_playing


@dataclass
class TableRecord:
    table_id: str
    ruleset: Ruleset
    turn_clock_seconds: int
    game: int
    seats: list[Seat]

    @property
    def names(self) -> list[str | None]:
        return [s.name if s.bot_level is None else f"bot ({s.bot_level})" for s in self.seats]

    @property
    def bots(self) -> list[bool]:
        return [s.is_bot for s in self.seats]

    @property
    def players(self) -> tuple[SeatedPlayer, ...]:
        """Who sits where, as a game's first event records it (bots by level)."""
        return tuple(
            SeatedPlayer(seat=s.seat, player_id=s.player_id or f"bot:{s.bot_level}",
                         name=name or "?", bot=s.bot_level is not None)
            for s, name in zip(self.seats, self.names, strict=True)
        )


@dataclass(frozen=True)
class TurnClock:
    """The seat on turn must move by ``deadline`` or a bot plays for it."""

    game: int
    version: int
    seat: int
    deadline: float


@dataclass
class ServiceOptions:
    #: Where people reach the service, for share links.
    base_url: str = "http://127.0.0.1:8000"
    #: A bot's human-like pause before it moves (0 in tests).
    bot_delay: float = 0.8
    #: The pause after a hand ends before the next is dealt.
    hand_pause: float = 2.0
    #: How long a disconnected player has to come back before a bot takes over.
    grace_period: float = 30.0
    #: Run the projectors in this process (the embedded, single-process set-up).
    projectors: bool = True
    #: "all": players, spectators and everything else.  "spectators": only what
    #: spectators and the lobby read (no commands, no bots, no projectors), so
    #: that a crowd of spectators runs beside the players' process, not in it.
    role: Literal["all", "spectators"] = "all"
    #: Commands one connection may send: a burst, then this many a second.
    commands_per_second: float = 10.0
    command_burst: float = 20.0
    #: Randomness for hand seeds (the OS by default; tests may fix it).
    new_seed: Callable[[], str] = field(default=lambda: secrets.token_hex(32))


class TableService:
    def __init__(
        self,
        pool: asyncpg.Pool,
        store: EventStore,
        options: ServiceOptions,
        announce: Callable[[str, int], Awaitable[None]] | None = None,
    ) -> None:
        self.pool = pool
        self.store = store
        self.options = options
        #: Tells every process's connections that a table started a new game.
        self.announce = announce
        self._states: dict[str, tuple[int, GameState]] = {}
        self._tables: dict[str, tuple[float, TableRecord]] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        #: (table, game) -> (version, monotonic time) when the current turn began.
        self._turn_started: dict[str, tuple[int, float]] = {}
        self._connections: dict[tuple[str, int], int] = {}
        self._clocks: dict[str, TurnClock] = {}
        self._clock_task: asyncio.Task[None] | None = None
        self._closing = False

    # ------------------------------------------------------------ tables

    async def create_table(self, request: CreateTable) -> TableInfo:
        try:
            ruleset = preset(request.preset, request.seats, request.partnerships,
                             **request.overrides)
        except InvalidRuleset as error:
            raise BadRequest(str(error)) from None
        bot_seats = {bot.seat: bot.level for bot in request.bots}
        if any(seat >= ruleset.seats for seat in bot_seats):
            raise BadRequest(f"bot seats must be between 0 and {ruleset.seats - 1}")
        if len(bot_seats) != len(request.bots):
            raise BadRequest("a seat is listed twice among the bots")
        table_id = secrets.token_urlsafe(9).replace("-", "x").replace("_", "y")
        async with self.pool.acquire() as connection, connection.transaction():
            await connection.execute(
                QUERIES["insert_table"], table_id, msgspec.json.encode(ruleset).decode(),
                request.turn_clock_seconds,
            )
            for seat in range(ruleset.seats):
                level = bot_seats.get(seat)
                await connection.execute(
                    QUERIES["insert_seat"], table_id, seat, level,
                    f"bot ({level})" if level else None, level is not None,
                )
        log.info("table created", table=table_id, preset=ruleset.preset, bots=len(bot_seats))
        if len(bot_seats) == ruleset.seats:
            await self._start_next_game(table_id, 0)
        return await self.info(table_id)

    async def table(self, table_id: str, *, fresh: bool = False) -> TableRecord:
        """Who sits where.  Cached for a few seconds (seats change rarely; what
        this process changes it forgets at once), unless ``fresh``."""
        cached = self._tables.get(table_id)
        if cached is not None and not fresh and time.monotonic() < cached[0]:
            return cached[1]
        row = await self.pool.fetchrow(QUERIES["get_table"], table_id)
        if row is None:
            raise TableNotFound(f"there is no table {table_id!r}")
        seats = [
            Seat(r["seat"], r["bot_level"], r["name"],
                 str(r["player_id"]) if r["player_id"] else None, r["bot_playing"])
            for r in await self.pool.fetch(QUERIES["get_seats"], table_id)
        ]
        record = TableRecord(
            table_id, msgspec.json.decode(row[1], type=Ruleset), row[2], row[3], seats
        )
        # Expiry spread over a few seconds, so that tables created together do
        # not all go back to the database in the same instant.
        expires = time.monotonic() + TABLE_CACHE_SECONDS * (0.75 + 0.5 * random.random())
        self._tables.pop(table_id, None)
        self._tables[table_id] = (expires, record)
        while len(self._tables) > MAX_CACHED_GAMES:
            del self._tables[next(iter(self._tables))]
        return record

    def forget_table(self, table_id: str) -> None:
        self._tables.pop(table_id, None)

    def links(self, table_id: str) -> tuple[str, str]:
        base = self.options.base_url.rstrip("/")
        return f"{base}/play/{table_id}", f"{base}/watch/{table_id}"

    async def info(self, table_id: str, language: Language = "en") -> TableInfo:
        record = await self.table(table_id)
        status = "waiting"
        if record.game:
            _, state = await self.state(table_id, record.game)
            status = "finished" if state.phase == "game-over" else "playing"
        share, watch = self.links(table_id)
        return TableInfo(
            table_id=table_id,
            preset=record.ruleset.preset,
            status=status,  # type: ignore[arg-type]
            game=record.game,
            turn_clock_seconds=record.turn_clock_seconds,
            rules=[RuleLine(topic, text) for topic, text in describe(record.ruleset, language)],
            ruleset=msgspec.structs.asdict(record.ruleset),
            seats=[
                SeatSummary(s.seat, record.names[s.seat], s.is_bot, s.bot_level,
                            s.name is None and s.bot_level is None)
                for s in record.seats
            ],
            share_link=share,
            spectator_link=watch,
        )

    async def take_seat(self, table_id: str, seat: int, request: TakeSeat) -> SeatGranted:
        try:
            name = clean_name(request.name)
        except ValueError as error:
            raise BadRequest(str(error)) from None
        record = await self.table(table_id)
        if not 0 <= seat < record.ruleset.seats:
            last = record.ruleset.seats - 1
            raise BadRequest(f"seat {seat} does not exist: seats are 0 to {last}")
        player_id, player_secret = await self._player(request)
        token = secrets.token_urlsafe(32)
        taken = await self.pool.fetchval(
            QUERIES["take_seat"], table_id, seat, name, uuid.UUID(player_id), token_hash(token)
        )
        self.forget_table(table_id)
        if taken is None:
            raise SeatUnavailable(f"seat {seat} is taken")
        log.info("seat taken", table=table_id, seat=seat)
        if await self.pool.fetchval(QUERIES["free_seats"], table_id) == 0:
            await self._start_next_game(table_id, 0)
        share, _ = self.links(table_id)
        return SeatGranted(table_id, seat, token, player_id, player_secret,
                           share.replace("http", "ws", 1) + "/play")

    async def _player(self, request: TakeSeat) -> tuple[str, str | None]:
        """The player's identity: theirs if they proved it, else a new one."""
        if request.player is None:
            player_id, secret = str(uuid.uuid4()), secrets.token_urlsafe(24)
            await self.pool.execute(
                QUERIES["insert_player"], uuid.UUID(player_id), token_hash(secret)
            )
            return player_id, secret
        try:
            wanted = uuid.UUID(request.player.player_id)
        except ValueError:
            raise BadRequest("player_id is not an id this service gave out") from None
        stored = await self.pool.fetchval(QUERIES["player_secret_hash"], wanted)
        if stored is None or not secrets.compare_digest(
            bytes(stored), token_hash(request.player.secret)
        ):
            raise BadToken("that player id and secret do not match")
        return str(wanted), None

    async def seat_for_token(self, table_id: str, token: str) -> int:
        await self.table(table_id)
        seat = await self.pool.fetchval(QUERIES["find_seat_by_token"], table_id, token_hash(token))
        if seat is None:
            raise BadToken("that seat token is not valid for this table")
        return int(seat)

    async def rematch(self, table_id: str) -> int:
        record = await self.table(table_id, fresh=True)
        _, state = await self.state(table_id, record.game)
        if state.phase != "game-over":
            raise IllegalMove("the game is not over yet")
        return await self._start_next_game(table_id, record.game)

    async def _start_next_game(self, table_id: str, current: int) -> int:
        game = await self.pool.fetchval(QUERIES["start_game"], table_id, current)
        self.forget_table(table_id)
        if game is None:  # another request or process started it
            return (await self.table(table_id)).game
        record = await self.table(table_id)
        _, events = start_game(record.ruleset, record.players)
        with contextlib.suppress(ConcurrencyError):  # another process wrote it first
            await self.store.append(game_stream(table_id, game), 0, events, actor="system")
        log.info("game started", table=table_id, game=game)
        if self.announce is not None:
            await self.announce(table_id, int(game))
        self._spawn(self._deal(table_id, game, 1, delay=0.0))
        return int(game)

    # ------------------------------------------------------------ state

    async def state(
        self, table_id: str, game: int, at_least: int | None = None
    ) -> tuple[int, GameState]:
        """The game's version and state, brought up to the store's latest (or
        taken from the cache when it is already at ``at_least`` or later)."""
        stream = game_stream(table_id, game)
        cached = self._states.get(stream)
        if cached is not None and at_least is not None and cached[0] >= at_least:
            return cached
        after = cached[0] if cached else 0
        recorded = await self.store.read_stream(stream, after)
        if cached and not recorded:
            return cached
        if not cached and not recorded:
            raise TableNotFound(f"table {table_id!r} has no game {game}")
        state = cached[1] if cached else None
        state = fold((r.event() for r in recorded), state)
        version = recorded[-1].stream_version if recorded else after
        self._remember(stream, version, state)
        return version, state

    def _remember(self, stream: str, version: int, state: GameState) -> None:
        """Cache a game's state; the least recently changed go first past the bound."""
        self._states.pop(stream, None)
        self._states[stream] = (version, state)
        while len(self._states) > MAX_CACHED_GAMES:
            del self._states[next(iter(self._states))]

    def cached_version(self, table_id: str, game: int) -> int | None:
        cached = self._states.get(game_stream(table_id, game))
        return cached[0] if cached else None

    def _lock(self, table_id: str) -> asyncio.Lock:
        return self._locks.setdefault(table_id, asyncio.Lock())

    # ------------------------------------------------------------ commands

    async def submit(
        self,
        table_id: str,
        command: AnyCommand,
        *,
        actor: str,
        known_version: int | None = None,
        expected_game: int | None = None,
        correlation_id: str | None = None,
    ) -> int:
        """Decide and append a command; return the new version.

        ``known_version`` (a player's): the version the player saw; a view
        that is behind is refused.  Without it (the server's own moves), a
        conflict is retried against the fresh state.
        """
        correlation_id = correlation_id or str(uuid.uuid4())
        with log_context(table=table_id, correlation_id=correlation_id):
            async with self._lock(table_id):
                for attempt in range(5):
                    # The cache first: the append's expected version is the
                    # store's check, and a conflict sends us back to the store.
                    record = await self.table(table_id, fresh=attempt > 0)
                    if expected_game is not None and record.game != expected_game:
                        record = await self.table(table_id, fresh=True)
                    if expected_game is not None and record.game != expected_game:
                        raise StaleView(f"game {expected_game} is over; the table plays game "
                                        f"{record.game} now")
                    if record.game == 0:
                        raise IllegalMove("the game starts when every seat is taken")
                    cached = self.cached_version(table_id, record.game)
                    trust_cache = attempt == 0 and cached is not None and (
                        known_version is None or known_version <= cached
                    )
                    version, state = await self.state(
                        table_id, record.game, at_least=cached if trust_cache else None
                    )
                    if known_version is not None and known_version != version:
                        raise StaleView(
                            f"your view is at version {known_version}, the table at {version}: "
                            "catch up first"
                        )
                    new_state, events = play(state, command)
                    stream = game_stream(table_id, record.game)
                    try:
                        await self.store.append(stream, version, events, actor=actor,
                                                correlation_id=correlation_id)
                    except ConcurrencyError:
                        # Another process moved first: the next attempt reads the store.
                        continue
                    new_version = version + len(events)
                    self._remember(stream, new_version, new_state)
                    log.info("command applied", actor=actor, command=type(command).__name__,
                             version=new_version)
                    self._after_change(table_id, record, new_version, new_state)
                    return new_version
                raise IllegalMove("the table is too busy: try again")

    # ------------------------------------------------------------ what happens next

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        if self._closing:
            coroutine.close()
            return
        # A fresh context: the server's own moves must not log as the seat
        # whose command scheduled them.
        task: asyncio.Task[None] = asyncio.get_running_loop().create_task(
            coroutine, context=contextvars.Context()
        )
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _after_change(
        self, table_id: str, record: TableRecord, version: int, state: GameState
    ) -> None:
        key = table_id
        if state.phase == "between-hands":
            self._spawn(self._deal(table_id, record.game, state.hands_played + 1,
                                   delay=self.options.hand_pause))
            return
        if state.phase != "playing" or state.hand is None:
            return
        self._turn_started[key] = (version, time.monotonic())
        hand = state.hand
        if hand.pending is not None:
            for seat in range(record.ruleset.seats):
                if record.seats[seat].is_bot and record.ruleset.side_of(seat) != \
                        record.ruleset.side_of(hand.pending.seat):
                    self._spawn(self._bot_call(table_id, record.game, version, seat))
                    break
        seat = hand.turn
        if record.seats[seat].is_bot:
            self._spawn(self._bot_move(table_id, record.game, version, seat,
                                       self.options.bot_delay))
        else:
            self._clocks[table_id] = TurnClock(
                record.game, version, seat, time.monotonic() + record.turn_clock_seconds
            )
            if self._clock_task is None:
                self._clock_task = asyncio.get_running_loop().create_task(
                    self._watch_clocks(), context=contextvars.Context()
                )

    def seconds_left(self, table_id: str, version: int, clock: int) -> float | None:
        started = self._turn_started.get(table_id)
        if started is None or started[0] != version:
            return None
        return max(0.0, clock - (time.monotonic() - started[1]))

    async def _deal(self, table_id: str, game: int, hand: int, delay: float) -> None:
        await asyncio.sleep(delay)
        _, state = await self.state(table_id, game)
        if state.phase != "between-hands" or state.hands_played + 1 != hand:
            return
        with contextlib.suppress(IllegalMove, StaleView):
            await self.submit(table_id, StartHand(seed=self.options.new_seed()), actor="system",
                              expected_game=game)

    async def _bot_move(self, table_id: str, game: int, version: int, seat: int,
                        delay: float) -> None:
        await asyncio.sleep(delay)
        record = await self.table(table_id, fresh=True)
        if record.game != game or not record.seats[seat].is_bot:
            return
        current, state = await self.state(table_id, game)
        if current != version or state.hand is None or state.hand.turn != seat:
            return
        level = record.seats[seat].bot_level or "greedy"
        bot = make_bot(level, random.Random(f"{table_id}/{game}/{version}"))  # type: ignore[arg-type]
        command = bot.choose(state)
        with contextlib.suppress(IllegalMove):
            await self.submit(table_id, command, actor=f"bot:{seat}", expected_game=game)

    async def _bot_call(self, table_id: str, game: int, version: int, seat: int) -> None:
        await asyncio.sleep(self.options.bot_delay / 2)
        current, state = await self.state(table_id, game)
        if current != version or not GreedyBot().calls_muggins(state, seat):
            return
        with contextlib.suppress(IllegalMove):
            await self.submit(table_id, CallMuggins(seat=seat), actor=f"bot:{seat}",
                              expected_game=game)

    async def _watch_clocks(self) -> None:
        """One task watches every table's turn clock (not one sleeping task a
        move: thousands of those would weigh on the whole process)."""
        while not self._closing:
            await asyncio.sleep(CLOCK_TICK)
            now = time.monotonic()
            for table_id, clock in list(self._clocks.items()):
                if clock.deadline > now:
                    continue
                del self._clocks[table_id]
                self._spawn(self._clock_ran_out(table_id, clock))

    async def _clock_ran_out(self, table_id: str, clock: TurnClock) -> None:
        if (self.cached_version(table_id, clock.game) or 0) > clock.version:
            return  # moved on (as this process knows without asking the store)
        current, _ = await self.state(table_id, clock.game)
        if current != clock.version:
            return
        log.info("turn clock ran out: a bot takes the seat", table=table_id, seat=clock.seat)
        await self.take_over(table_id, clock.seat, "turn clock")

    async def take_over(self, table_id: str, seat: int, why: str) -> None:
        """A bot plays the seat until its player comes back."""
        await self.pool.execute(QUERIES["set_bot_playing"], table_id, seat, True)
        self.forget_table(table_id)
        record = await self.table(table_id)
        if not record.game:
            return
        version, state = await self.state(table_id, record.game)
        log.info("bot took over", table=table_id, seat=seat, why=why)
        if state.phase == "playing" and state.hand is not None and state.hand.turn == seat:
            self._spawn(self._bot_move(table_id, record.game, version, seat, 0.0))

    async def reclaim(self, table_id: str, seat: int) -> None:
        await self.pool.execute(QUERIES["set_bot_playing"], table_id, seat, False)
        self.forget_table(table_id)

    # ------------------------------------------------------------ connections

    def connected(self, table_id: str, seat: int) -> None:
        key = (table_id, seat)
        self._connections[key] = self._connections.get(key, 0) + 1

    def disconnected(self, table_id: str, seat: int) -> None:
        key = (table_id, seat)
        self._connections[key] = max(0, self._connections.get(key, 0) - 1)
        if self._connections[key] == 0:
            self._spawn(self._grace(table_id, seat))

    async def _grace(self, table_id: str, seat: int) -> None:
        await asyncio.sleep(self.options.grace_period)
        if self._connections.get((table_id, seat), 0) == 0:
            await self.take_over(table_id, seat, "left the table")

    async def close(self) -> None:
        self._closing = True
        if self._clock_task is not None:
            self._clock_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._clock_task
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
