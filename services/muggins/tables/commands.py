"""A command in: the game's state from its stream, the rules decide, the
events are appended with the expected version and with what becomes due.

The per-process cache of game states is only a head start: a decision is
made on the state at the version the append expects, and the store refuses
the append if the stream moved on meanwhile (another process, a bot, the
clock).  The server's own moves are then retried against the fresh state; a
player's is refused as a stale view.
"""

from __future__ import annotations

import asyncio
import datetime
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

import structlog

from muggins.domain.codec import encoded_all, game_event
from muggins.domain.streams import game_stream, table_stream
from muggins.domain.table_events import AbsenceChoice
from muggins.domain.table_life import table_life
from muggins.eventstore.records import ConcurrencyError, Due, Store
from muggins.infra.logs import log_context
from muggins.rules.commands import AnyCommand, StartHand
from muggins.rules.errors import IllegalMove
from muggins.rules.events import Event, GameStarted, HandStarted
from muggins.rules.game import fold, play, start_game
from muggins.rules.state import GameState
from muggins.tables.errors import (
    TRANSIENT,
    AlreadyDecided,
    NothingToDecide,
    SeatHeldByBot,
    StaleView,
    WaitFirst,
    YouLeft,
)
from muggins.tables.latest_versions import LatestVersions
from muggins.tables.life_view import choices_from
from muggins.tables.metrics import APPENDED, MOVES, BroadcastClock
from muggins.tables.next_step import Step, Timings, next_step
from muggins.tables.seating import Seating, Table
from muggins.tables.wakeups import Wakeups

#: Games whose state a process keeps at hand; older ones are rebuilt from
#: the store when needed again.
MAX_CACHED_GAMES = 5000
#: Attempts at a table append that others keep beating.
APPEND_ATTEMPTS = 5
log = structlog.get_logger(__name__)


@dataclass(frozen=True)
class Game:
    """A game as its stream has it: ``state`` None while the stream is empty."""

    number: int
    version: int
    state: GameState | None
    #: When its last event was recorded (the store's clock).
    last_event_at: datetime.datetime | None
    #: The current hand's events (from its HandStarted): what the expert
    #: learns from (it keeps only what its seat may see).
    hand_events: tuple[Event, ...] = ()


def hand_number(state: GameState) -> int:
    """The hand being played, or the last one played between hands."""
    return state.hand.number if state.hand is not None else state.hands_played


def hand_events_after(before: tuple[Event, ...], events: Sequence[Event]) -> tuple[Event, ...]:
    """The current hand's events once ``events`` follow ``before``."""
    kept = list(before)
    for event in events:
        if isinstance(event, HandStarted | GameStarted):
            kept = []
        kept.append(event)
    return tuple(kept)


class Commands:
    def __init__(self, store: Store, seating: Seating, timings: Timings,
                 broadcast_clock: BroadcastClock | None = None,
                 wakeups: Wakeups | None = None) -> None:
        self.store = store
        #: Times each command to its broadcast (muggins_command_to_broadcast_seconds).
        self.broadcast_clock = broadcast_clock or BroadcastClock()
        self.seating = seating
        self.timings = timings
        self._games: LatestVersions[Game] = LatestVersions(MAX_CACHED_GAMES)
        self._locks: dict[str, asyncio.Lock] = {}
        #: Told of every append that makes something due (see muggins.tables.wakeups).
        self.wakeups = wakeups or seating.wakeups

    # ------------------------------------------------------------ state

    async def game(self, table_id: str, number: int, at_least: int | None = None) -> Game:
        """Game ``number`` brought up to the store's latest (or taken from the
        cache when it is at ``at_least`` or later already)."""
        stream = game_stream(table_id, number)
        cached = self._games.get(stream)
        if cached is not None and at_least is not None and cached.version >= at_least:
            return cached
        after = cached.version if cached else 0
        recorded = await self.store.read_stream(stream, after)
        if not recorded:
            # Nothing after what this process held when the read began; it
            # may hold a later version now (an append while the read was out).
            return self._games.get(stream) or cached or Game(number, 0, None, None)
        events = [game_event(r) for r in recorded]
        state = fold(events, cached.state if cached else None)
        game = Game(number, recorded[-1].stream_version, state, recorded[-1].recorded_at,
                    hand_events_after(cached.hand_events if cached else (), events))
        return self._games.keep(stream, game)

    def known_game(self, table_id: str, number: int) -> Game | None:
        """Game ``number`` as this process last had it, if it has it (no read)."""
        return self._games.get(game_stream(table_id, number))

    def _lock(self, table_id: str) -> asyncio.Lock:
        lock = self._locks.get(table_id)
        if lock is None:
            if len(self._locks) > MAX_CACHED_GAMES:  # drop the idle ones
                for key in [k for k, v in self._locks.items() if not v.locked()]:
                    del self._locks[key]
            lock = self._locks[table_id] = asyncio.Lock()
        return lock

    def _due_after(self, table: Table, state: GameState) -> tuple[Step | None, Due]:
        """What the table must do next once these events are in (time 0: now),
        and its due row.  The step goes with the wake-up too: the scheduler
        thinks a bot's move ahead from it rather than derive it again."""
        step = next_step(table.state, state, 0.0, self.timings)
        return step, Due(table.state.table_id, None if step is None else max(0.0, step.after))

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
        for_bot: int | None = None,
        person: int | None = None,
    ) -> int:
        """Decide and append a command; return the new version.

        ``known_version``: the version the command was decided on (a
        player's view, or the state a bot chose from); a view that is behind
        is refused as stale.  Without it, a conflict is retried against the
        fresh state.  ``for_bot``: the seat a bot plays, refused if its
        person took it back meanwhile.  ``person``: the seat whose person
        sends it; if a bot holds that seat, only a move the rules accept
        takes the seat back (anything else leaves the bot playing, and the
        table moving).
        """
        correlation_id = correlation_id or str(uuid.uuid4())
        came_in = time.monotonic()
        with log_context(table=table_id, correlation_id=correlation_id):
            async with self._lock(table_id):
                # The table as this process knows it first: the append's guard
                # checks that the table's stream is still where it was (who
                # plays each seat decides what becomes due next), which spares
                # a read of it per move.  After a conflict, or a refusal the
                # table as known might have caused, the store's.
                as_known = True
                for attempt in range(APPEND_ATTEMPTS):
                    table = (await self.seating.table_as_known(table_id) if as_known
                             else await self.seating.table(table_id, fresh=True))
                    try:
                        game, new_state, events, reclaim = await self._decide(
                            table, command, attempt=attempt, known_version=known_version,
                            expected_game=expected_game, for_bot=for_bot, person=person)
                    except (StaleView, IllegalMove, SeatHeldByBot):
                        if not as_known:
                            raise
                        as_known = False
                        continue
                    step, due = self._due_after(table, new_state)
                    stream = game_stream(table_id, game.number)
                    try:
                        recorded = await self.store.append(
                            stream, game.version, encoded_all(events), actor=actor,
                            correlation_id=correlation_id, due=due,
                            guard=(table_stream(table_id), table.version))
                    except ConcurrencyError:
                        as_known = False  # another process moved first: the store's next
                        continue
                    new_version = recorded[-1].stream_version
                    APPENDED.observe(time.monotonic() - came_in)
                    self.broadcast_clock.started(stream, new_version, came_in)
                    MOVES.labels(type(command).__name__, actor.partition(":")[0]).inc()
                    self._games.keep(stream, Game(game.number, new_version, new_state,
                                                recorded[-1].recorded_at,
                                                hand_events_after(game.hand_events, events)))
                    self.wakeups.due(table_id, due.seconds, None if step is None else
                                     (step, (table.version, game.number, new_version)))
                    log.info("command applied", actor=actor, command=type(command).__name__,
                             game=game.number, version=new_version)
                    if reclaim:
                        # After the move, never before: a move refused takes nothing back.
                        assert person is not None
                        await self._reclaimed(table_id, person, game.number, new_state)
                    return new_version
                raise IllegalMove("the table is too busy: try again")

    async def _decide(
        self, table: Table, command: AnyCommand, *, attempt: int, known_version: int | None,
        expected_game: int | None, for_bot: int | None, person: int | None,
    ) -> tuple[Game, GameState, list[Event], bool]:
        """The command judged on ``table`` and its game: the game it was
        decided on, the state and events after it, and whether it takes a
        person's seat back from the bot.  Refuses (StaleView, IllegalMove,
        SeatHeldByBot, TableClosedRefusal) and writes nothing."""
        table.refuse_if_closed()
        table_id = table.state.table_id
        if expected_game is not None and table.state.game != expected_game:
            raise StaleView(f"game {expected_game} is over; the table plays "
                            f"game {table.state.game} now")
        if for_bot is not None and not table.state.seats[for_bot].is_bot:
            raise StaleView(f"seat {for_bot}'s player took the seat back")
        if table.state.game == 0:
            raise IllegalMove("the game starts when every seat is taken")
        # The cache when it is where the command was decided (the append's
        # expected version is the store's check); after a conflict, the store.
        game = await self.game(table_id, table.state.game,
                               at_least=known_version if attempt == 0 else None)
        if game.state is None:
            raise IllegalMove("the game is about to start")
        if known_version is not None and known_version != game.version:
            raise StaleView(f"your view is at version {known_version}, the table at "
                            f"{game.version}: catch up first")
        if (isinstance(command, StartHand)
                and table_life(table.state, game.state).kind == "paused"):
            # Derived before a person was found gone: no deal now.
            raise IllegalMove("the game is paused: a person is missing")
        new_state, events = play(game.state, command)
        reclaim = person is not None and table.state.seats[person].takeover is not None
        if reclaim and person is not None and table.state.seats[person].held_until == (
                game.number, hand_number(game.state)):
            raise SeatHeldByBot("your turn clock ran out twice on one turn: the bot plays "
                                "your seat to the end of this hand, and you are back from "
                                "the next")
        return game, new_state, list(events), reclaim

    async def _reclaimed(self, table_id: str, seat: int, game: int, state: GameState) -> None:
        """The person's accepted move takes their seat back from the bot.  A
        failure here leaves the move made and the bot in the seat (it plays
        on until "I'm back"): logged, not the mover's refusal."""
        try:
            await self.seating.player_returned(table_id, seat, "move", game, hand_number(state))
        except SeatHeldByBot as error:
            log.warning("a move was made but the seat stays with the bot", seat=seat,
                        error=repr(error))
        except TRANSIENT as error:
            log.warning("a move was made but the seat stays with the bot", seat=seat,
                        error=repr(error))

    async def come_back(self, table_id: str, seat: int) -> None:
        """The person at ``seat`` says "I'm back": the bot gives the seat back
        (SeatHeldByBot while it keeps it to the end of the hand)."""
        table = await self.seating.table(table_id, fresh=True)
        game = await self.game(table_id, table.state.game) if table.state.game else None
        state = game.state if game is not None else None
        await self.seating.player_returned(table_id, seat, "back", table.state.game,
                                           hand_number(state) if state is not None else 0)

    async def decide(self, table_id: str, seat: int, choice: AbsenceChoice) -> None:
        """The person at ``seat`` chooses for a game paused by a missing
        person (muggins.domain.table_life): the first choice wins; a second one, a
        choice before the wait is over, by the person who left, or when
        nothing is paused is refused and writes nothing."""
        for _ in range(APPEND_ATTEMPTS):
            table = await self.seating.table(table_id, fresh=True)
            table.refuse_if_closed()
            game = await self.game(table_id, table.state.game) if table.state.game else None
            life = table_life(table.state, game.state if game is not None else None)
            if seat in life.missing:
                raise YouLeft("you left this game: say you are back to play on")
            if table.state.absence_choice is not None:  # the first choice stands
                raise AlreadyDecided(f"it was decided already: {table.state.absence_choice}")
            if life.kind != "paused" or not life.missing:
                raise NothingToDecide("nobody is missing: the game goes on")
            opens = choices_from(table, life.missing, self.timings)
            now = datetime.datetime.now(datetime.UTC)
            if opens is not None and now < opens:
                raise WaitFirst(f"the choice opens in {(opens - now).total_seconds():.0f} s: "
                                "the person who left may still come back")
            try:
                await self.seating.decide_absence(table, life.missing, choice, seat)
            except ConcurrencyError:
                continue  # somebody else chose, or came back: derived anew
            return
        raise IllegalMove("the table is too busy: try again")

    async def start_game(self, table: Table) -> None:
        """The table's current game's first event (GameStarted), once."""
        table_id, number = table.state.table_id, table.state.game
        state, events = start_game(table.state.ruleset, table.state.players)
        step, due = self._due_after(table, state)
        stream = game_stream(table_id, number)
        try:
            recorded = await self.store.append(stream, 0, encoded_all(events),
                                               actor="system", due=due)
        except ConcurrencyError:
            return  # started already (another process, or an earlier attempt)
        self._games.keep(stream, Game(number, recorded[-1].stream_version, state,
                                    recorded[-1].recorded_at, tuple(events)))
        self.wakeups.due(table_id, due.seconds, None if step is None else
                         (step, (table.version, number, recorded[-1].stream_version)))
        log.info("game started", table=table_id, game=number)

    async def begin(self, table: Table) -> None:
        """Start the table's game now if it has begun and has no events yet
        (the scheduler would, a moment later: this spares the wait)."""
        if not table.state.game:
            return
        try:
            if (await self.game(table.state.table_id, table.state.game)).state is None:
                await self.start_game(table)
        except TRANSIENT as error:  # the scheduler starts it when it can
            log.warning("could not start the game now; the scheduler will",
                        table=table.state.table_id, error=repr(error))

    async def rematch(self, table_id: str, seat: int, after_game: int | None = None) -> int:
        """The person at ``seat`` asks for another game with the same seats,
        once the game is over; the next game begins when every person still
        seated has asked.  Returns the game the table is at then.

        ``after_game``: the game the asker saw end; if the next one has begun
        meanwhile, that one is the answer (and nothing is written).
        """
        for _ in range(APPEND_ATTEMPTS):
            table = await self.seating.table(table_id, fresh=True)
            table.refuse_if_closed()
            if after_game is not None and table.state.game > after_game:
                return table.state.game
            game = await self.game(table_id, table.state.game)
            if game.state is None or game.state.phase != "game-over":
                raise IllegalMove("the game is not over yet")
            try:
                table = await self.seating.ask_rematch(table, seat)
            except ConcurrencyError:
                continue
            await self.begin(table)
            return table.state.game
        raise IllegalMove("the table is too busy: try again")
