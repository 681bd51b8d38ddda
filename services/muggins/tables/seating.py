"""The table's own stream: who sits where, bots taking over, players
returning, games begun (muggins.domain.table_events).

Every change is an event appended with the stream's expected version, so
two requests (or processes) racing for one seat cannot both win, and the
table's history settles any dispute about who sat where.  The secrets beside
it (seat tokens, player secrets) are kept hashed in their own tables, never
in an event.
"""

from __future__ import annotations

import datetime
import hashlib
import re
import secrets
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import msgspec
import structlog

from muggins.domain.codec import encoded_all
from muggins.domain.streams import table_stream
from muggins.domain.table_events import (
    AbsenceChoice,
    AbsenceDecided,
    BotAtSeat,
    BotTookOver,
    CloseReason,
    DisputeOpened,
    DisputeResolved,
    GameBegun,
    HandSealed,
    PlayerReturned,
    RematchAsked,
    ReturnReason,
    SeatTaken,
    TableClosed,
    TableEvent,
    TableOpened,
    TableState,
    TakeoverReason,
    evolve_table,
    table_event_decoder,
)
from muggins.eventstore.records import ConcurrencyError, Due, RecordedEvent, Store
from muggins.infra.sql import load_queries
from muggins.rules.errors import InvalidRuleset
from muggins.rules.presets import preset
from muggins.rules.ruleset import Ruleset
from muggins.tables.errors import (
    BadRequest,
    BadToken,
    SeatHeldByBot,
    SeatUnavailable,
    TableBusy,
    TableClosedRefusal,
    TableNotFound,
)
from muggins.tables.latest_versions import LatestVersions
from muggins.tables.next_step import Timings
from muggins.tables.protocol import CreateTable, SeatGranted, SeatingEntry, TakeSeat, clean_name
from muggins.tables.seat_keys import SeatKeys
from muggins.tables.wakeups import Wakeups

QUERIES = load_queries(Path(__file__).parent / "queries.sql")
#: How long a table read from the store is used without asking again (only
#: for reads: every change is checked by the append's expected version).
TABLE_FRESH_SECONDS = 1.0
MAX_CACHED_TABLES = 5000
#: Attempts at an append that another request keeps beating.
APPEND_ATTEMPTS = 5
log = structlog.get_logger(__name__)


#: Knobs a table sets with their own fields, or never: not through overrides.
NOT_OVERRIDABLE = frozenset({"preset", "seats", "partnerships"})


def table_rules(request: CreateTable) -> Ruleset:
    """The table's ruleset: the preset for its seating, with the overrides.

    A ruleset that differs from the preset's own in any knob is "custom": it
    says so in its name, and no leaderboard rates its games.
    """
    unknown = request.overrides.keys() - Ruleset.__struct_fields__
    if unknown:
        shown = ", ".join(sorted(repr(key[:30]) for key in unknown)[:5])
        raise BadRequest(f"unknown rule knob(s): {shown}")
    clash = NOT_OVERRIDABLE & request.overrides.keys()
    if clash:
        raise BadRequest(f"{', '.join(sorted(clash))} cannot be overridden: the preset is "
                         "named by `preset`, the seating by `seats` and `partnerships`")
    try:
        exact = preset(request.preset, request.seats, request.partnerships)
        ruleset = preset(request.preset, request.seats, request.partnerships,
                         **request.overrides)
    except InvalidRuleset as error:
        raise BadRequest(str(error)[:300]) from None
    if ruleset != exact:
        ruleset = msgspec.structs.replace(ruleset, preset="custom")
    return ruleset


def token_hash(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


#: A player id as the service gives it out: a UUID, written the usual way.
PLAYER_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
                       re.IGNORECASE | re.ASCII)


def is_player_id(text: str) -> bool:
    return PLAYER_ID.fullmatch(text) is not None


def new_player_secret() -> str:
    return secrets.token_urlsafe(24)


def new_table_id() -> str:
    """12 letters and digits (muggins.domain.streams documents the format)."""
    return secrets.token_urlsafe(9).replace("-", "x").replace("_", "y")


@dataclass
class Table:
    """A table as its stream has it: the state, its version, and when each
    seat last changed hands between its player and a bot (the turn's clock,
    or the bot's pause, starts again then)."""

    state: TableState
    version: int
    changed_at: dict[int, datetime.datetime] = field(default_factory=dict)
    read_at: float = 0.0
    #: When its last event was recorded (the store's clock): a table waiting
    #: for people closes a while after it (muggins.tables.next_step).
    last_event_at: datetime.datetime | None = None

    def after(self, recorded: Sequence[RecordedEvent]) -> Table:
        state, changed = self.state, dict(self.changed_at)
        for entry in recorded:
            event = table_event_decoder.decode(entry.payload)
            state = evolve_table(state, event, state.table_id)
            if isinstance(event, PlayerReturned | BotTookOver):
                changed[event.seat] = entry.recorded_at
        version = recorded[-1].stream_version if recorded else self.version
        last = recorded[-1].recorded_at if recorded else self.last_event_at
        return Table(state, version, changed, time.monotonic(), last)

    def refuse_if_closed(self) -> None:
        if self.state.closed is not None:
            raise TableClosedRefusal(f"this table is closed ({self.state.closed}): "
                                     "its replays stay open to everyone")


def table_from(table_id: str, recorded: Sequence[RecordedEvent]) -> Table:
    """A table from its stream's events (the first is TableOpened)."""
    first = table_event_decoder.decode(recorded[0].payload)
    start = Table(evolve_table(None, first, table_id), recorded[0].stream_version,
                  last_event_at=recorded[0].recorded_at)
    return start.after(recorded[1:])


class Seating:
    """Tables: opened, sat at, taken over, returned to; read from their streams."""

    def __init__(self, keys: SeatKeys, store: Store,
                 wakeups: Wakeups | None = None, timings: Timings | None = None) -> None:
        #: Players' secrets and seats' tokens (hashed), kept beside the stream.
        self.keys = keys
        self.store = store
        #: The service's pauses (muggins.tables.next_step): a table waiting for
        #: people closes ``idle_close`` after its last event, and every
        #: seating append sets its row again.
        self.timings = timings or Timings()
        self._tables: LatestVersions[Table] = LatestVersions(MAX_CACHED_TABLES)
        #: Told of every append that makes something due (the scheduler's
        #: quick path; the due row itself is what counts).
        self.wakeups = wakeups or Wakeups()

    # ------------------------------------------------------------ reading

    async def table(self, table_id: str, *, fresh: bool = False,
                    at_least: int | None = None) -> Table:
        """The table, from the store (TableNotFound if it has no stream).

        Kept for a second (``fresh`` asks the store anyway): only reads use
        it; a change is checked against the store by its expected version.
        ``at_least``: the version the store has now, found otherwise; what
        this process holds at it is taken as it is, however old its read.
        """
        cached = self._tables.get(table_id)
        if cached is not None and at_least is not None and cached.version >= at_least:
            return cached
        if cached is not None and not fresh and at_least is None and (
            time.monotonic() - cached.read_at < TABLE_FRESH_SECONDS
        ):
            return cached
        after = cached.version if cached else 0
        recorded = await self.store.read_stream(table_stream(table_id), after)
        if cached is None:
            if not recorded:
                raise TableNotFound(f"there is no table {table_id}")
            table = table_from(table_id, recorded)
        else:
            table = cached.after(recorded)
        return self._tables.keep(table_id, table)

    def known(self, table_id: str) -> Table | None:
        """The table as this process last had it, if it has it (no read)."""
        return self._tables.get(table_id)

    async def table_as_known(self, table_id: str) -> Table:
        """The table as this process last had it, however old (the store's if
        it has none): for a change appended with the table's version as its
        guard, which the store checks (EventStore.append)."""
        cached = self._tables.get(table_id)
        return cached if cached is not None else await self.table(table_id)

    async def _append(self, table: Table, events: list[TableEvent], *, actor: str,
                      due: Due | None = None) -> Table:
        """Append to the table's stream at the version ``table`` was read at
        (ConcurrencyError if it moved on: nothing written)."""
        table_id = table.state.table_id
        recorded = await self.store.append(table_stream(table_id), table.version,
                                           encoded_all(events), actor=actor, due=due)
        updated = table.after(recorded)
        # The caller gets its own append's table (its next append is guarded
        # by that version), whatever later one this process may hold by now.
        self._tables.keep(table_id, updated)
        if due is not None:
            self.wakeups.due(due.key, due.seconds)
        return updated

    # ------------------------------------------------------------ changes

    async def open_table(self, request: CreateTable, default_clock: int = 30) -> Table:
        ruleset = table_rules(request)
        bots = {bot.seat: bot.level for bot in request.bots}
        if any(seat >= ruleset.seats for seat in bots):
            raise BadRequest(f"bot seats must be between 0 and {ruleset.seats - 1}")
        if len(bots) != len(request.bots):
            raise BadRequest("a seat is listed twice among the bots")
        table_id = new_table_id()
        events: list[TableEvent] = [TableOpened(
            ruleset=ruleset, turn_clock_seconds=request.turn_clock_seconds or default_clock,
            bots=tuple(BotAtSeat(seat, level) for seat, level in sorted(bots.items())),
            chat=request.chat,
            bot_budget_ms=request.bot_budget_ms,
            made_from=request.preset,
        )]
        full = len(bots) == ruleset.seats
        if full:
            events.append(GameBegun(game=1))
        due = Due(table_id, 0.0 if full else self.timings.idle_close)
        recorded = await self.store.append(table_stream(table_id), 0, encoded_all(events),
                                           actor="system", due=due)
        table = table_from(table_id, recorded)
        self._tables.keep(table_id, table)
        self.wakeups.due(table_id, due.seconds)
        log.info("table opened", table=table_id, preset=ruleset.preset, bots=len(bots))
        return table

    async def take_seat(self, table_id: str, seat: int, request: TakeSeat
                        ) -> tuple[SeatGranted, Table]:
        """The seat for the person asking (SeatUnavailable, TableBusy, BadRequest, BadToken
        if not), and the table after it."""
        try:
            name = clean_name(request.name)
        except ValueError as error:
            raise BadRequest(str(error)) from None
        table = await self.table(table_id, fresh=True)
        table.refuse_if_closed()
        seats = table.state.ruleset.seats
        if not 0 <= seat < seats:
            raise BadRequest(f"seat {seat} does not exist: seats are 0 to {seats - 1}")
        player_id, player_secret = await self._identity(request)
        self._check_free(table, seat, player_id)
        token = secrets.token_urlsafe(32)
        hashed = token_hash(token)
        # The identity and the token first: whoever wins the seat below must
        # be able to use them.  A request that loses the race takes them away
        # again; one cut short otherwise (the database gone, the process
        # killed) may have won, so they stay.
        await self.keys.grant(table_id, hashed, seat, player_id,
                              token_hash(player_secret) if player_secret is not None else None)
        try:
            table = await self._seat(table, seat, player_id, name)
        except (SeatUnavailable, TableBusy, TableClosedRefusal):
            await self.keys.withdraw(table_id, hashed,
                                     player_id if player_secret is not None else None)
            raise
        log.info("seat taken", table=table_id, seat=seat)
        return SeatGranted(table_id, seat, token, player_id, player_secret, ""), table

    def _check_free(self, table: Table, seat: int, player_id: str) -> None:
        if not table.state.seats[seat].free:
            raise SeatUnavailable(f"seat {seat} is taken")
        sitting = table.state.seat_of(player_id)
        if sitting is not None:
            raise SeatUnavailable(f"you sit at seat {sitting} of this table already")

    async def _seat(self, table: Table, seat: int, player_id: str, name: str) -> Table:
        for _ in range(APPEND_ATTEMPTS):
            table.refuse_if_closed()
            self._check_free(table, seat, player_id)
            events: list[TableEvent] = [SeatTaken(seat=seat, player_id=player_id, name=name)]
            full = table.state.free_seats == 1
            # The last seat: the first game begins; or, a seat given up mid-game
            # (AbsenceDecided "seat") taken: the paused game goes on.
            if full and table.state.game == 0:
                events.append(GameBegun(game=1))
            try:
                return await self._append(
                    table, events, actor=f"seat:{seat}",
                    # Somebody sat down: the idle wait starts again.
                    due=Due(table.state.table_id, 0.0, earliest=True) if full
                    else Due(table.state.table_id, self.timings.idle_close),
                )
            except ConcurrencyError:
                table = await self.table(table.state.table_id, fresh=True)
        raise TableBusy("the table is busy: try again")

    async def _identity(self, request: TakeSeat) -> tuple[str, str | None]:
        """The player's id: theirs if they proved it, else a new one (and its secret)."""
        if request.player is None:
            return str(uuid.uuid4()), new_player_secret()
        if not is_player_id(request.player.player_id):
            raise BadRequest("player_id is not an id this service gave out")
        wanted = uuid.UUID(request.player.player_id)
        await self._proven_secret_hash(wanted, request.player.secret)
        return str(wanted), None

    async def _proven_secret_hash(self, player_id: uuid.UUID, secret: str) -> bytes:
        """The stored hash of the player's secret, if ``secret`` is it; else
        BadToken (an unknown player too: which ids exist is nobody's business)."""
        stored = await self.keys.secret_hash(str(player_id))
        # Compared in constant time: the time taken says nothing of how close a guess was.
        if stored is None or not secrets.compare_digest(stored, token_hash(secret)):
            raise BadToken("that player id and secret do not match")
        return stored

    async def rotate_secret(self, player_id: str, secret: str) -> str:
        """A new secret for the identity whose current ``secret`` is given
        (``player_id`` of the id format); the old one stops working at once,
        in every browser that holds it.  BadToken if the secret is not the
        identity's (nothing changes)."""
        wanted = uuid.UUID(player_id)
        old_hash = await self._proven_secret_hash(wanted, secret)
        fresh = new_player_secret()
        if not await self.keys.rotate(str(wanted), old_hash, token_hash(fresh)):
            raise BadToken("that secret was changed meanwhile (another browser asked too)")
        log.info("player secret rotated", player=str(wanted))
        return fresh

    async def seat_for_token(self, table_id: str, token: str) -> int:
        """The seat ``token`` was granted for, while its player still holds it."""
        table = await self.table(table_id)
        key = await self.keys.seat_key(table_id, token_hash(token))
        if key is None:
            raise BadToken("that seat token is not valid for this table")
        seat = key.seat
        if table.state.seats[seat].player_id != key.player_id:
            table = await self.table(table_id, fresh=True)
            if table.state.seats[seat].player_id != key.player_id:
                raise BadToken("that seat token is not valid for this table")
        return seat

    async def take_over(self, table_id: str, seat: int, reason: TakeoverReason, *,
                        game: int, version: int, hand: int) -> bool:
        """A bot plays a person's seat from now on; False if there was nothing to do."""
        for _ in range(APPEND_ATTEMPTS):
            table = await self.table(table_id, fresh=True)
            held = table.state.seats[seat]
            # A seat the clock gave a bot is still its person's; their
            # leaving (absent) is news: it pauses the game at the hand's end.
            if (held.bot_level is not None or held.player_id is None
                    or held.takeover == "absent" or (held.takeover and reason == "clock")
                    or table.state.closed is not None):
                return False
            again = reason == "clock" and held.last_timeout == (game, version)
            event = BotTookOver(seat=seat, reason=reason, game=game, version=version, hand=hand,
                                for_the_hand=again)
            try:
                await self._append(table, [event], actor="system",
                                   due=Due(table_id, 0.0, earliest=True))
            except ConcurrencyError:
                continue
            log.info("a bot took the seat", table=table_id, seat=seat, why=reason,
                     for_the_hand=again)
            return True
        return False

    async def player_returned(self, table_id: str, seat: int, reason: ReturnReason,
                              game: int, hand: int) -> bool:
        """The person takes their seat back from the bot; False if it was theirs.

        SeatHeldByBot while the bot keeps the seat to the end of the hand.
        """
        for _ in range(APPEND_ATTEMPTS):
            table = await self.table(table_id, fresh=True)
            table.refuse_if_closed()
            held = table.state.seats[seat]
            if held.takeover is None:
                return False
            if held.held_until == (game, hand):
                raise SeatHeldByBot(
                    "your turn clock ran out twice on one turn: the bot plays your seat to "
                    "the end of this hand, and you are back from the next")
            try:
                await self._append(table, [PlayerReturned(seat=seat, reason=reason)],
                                   actor=f"seat:{seat}", due=Due(table_id, 0.0, earliest=True))
            except ConcurrencyError:
                continue
            log.info("the player took the seat back", table=table_id, seat=seat, how=reason)
            return True
        return False

    async def begin_rematch(self, table: Table) -> Table:
        """The next game, asked for by everyone still seated (the scheduler's
        step when the last who had not asked left), as read at ``table``'s
        version (ConcurrencyError if it moved on)."""
        table.refuse_if_closed()
        return await self._append(table, [GameBegun(game=table.state.game + 1)],
                                  actor="system",
                                  due=Due(table.state.table_id, 0.0, earliest=True))

    async def ask_rematch(self, table: Table, seat: int) -> Table:
        """The person at ``seat`` asks for another game, as read at
        ``table``'s version (ConcurrencyError if it moved on): the next game
        begins (GameBegun) in the same append once every person still
        seated has asked.  Asking takes the seat back from a bot."""
        table.refuse_if_closed()
        state = table.state
        table_id = state.table_id
        events: list[TableEvent] = []
        if state.seats[seat].takeover is not None:
            events.append(PlayerReturned(seat=seat, reason="back"))
        if seat not in state.rematch_asked:
            events.append(RematchAsked(seat=seat, game=state.game))
        asked = {*state.rematch_asked, seat}
        everyone = {*state.still_seated, seat} <= asked
        if everyone:
            events.append(GameBegun(game=state.game + 1))
        if not events:
            return table  # asked already: nothing to write
        return await self._append(
            table, events, actor=f"seat:{seat}",
            due=Due(table_id, 0.0, earliest=True) if everyone else None)

    async def decide_absence(self, table: Table, seats: tuple[int, ...],
                             choice: AbsenceChoice, by_seat: int) -> Table:
        """Record what those who stayed chose for the game paused for
        ``seats``, as read at ``table``'s version (ConcurrencyError if it
        moved on: somebody else chose, or the person came back).  "end"
        closes the table (abandoned) in the same append."""
        table_id = table.state.table_id
        events: list[TableEvent] = [AbsenceDecided(game=table.state.game, seats=seats,
                                              choice=choice, by_seat=by_seat)]
        if choice == "end":
            events.append(TableClosed(reason="abandoned"))
        decided = await self._append(
            table, events, actor=f"seat:{by_seat}",
            due=Due(table_id, 0.0, earliest=True))
        log.info("absence decided", table=table_id, choice=choice, by=by_seat,
                 missing=list(seats))
        return decided

    async def close(self, table: Table, reason: CloseReason) -> Table:
        """Close the table for good (TableClosed), as read at ``table``'s
        version: ConcurrencyError if it moved on meanwhile (a person sat down,
        came back: the step is derived anew).  Nothing is due there again,
        but the seal of a hand that ended just before."""
        # Due at once: a hand that ended just before is sealed even now
        # (muggins.tables.next_step); then nothing is due there again.
        closed = await self._append(table, [TableClosed(reason=reason)], actor="system",
                                    due=Due(table.state.table_id, 0.0, earliest=True))
        log.info("table closed", table=table.state.table_id, reason=reason)
        return closed


    async def seal(self, table: Table, sealed: HandSealed) -> Table:
        """Record a hand's seal (muggins.tables.seals), as read at ``table``'s
        version (ConcurrencyError if it moved on: another process sealed it,
        or a person acted; derived anew)."""
        return await self._append(table, [sealed], actor="system",
                                  due=Due(table.state.table_id, 0.0, earliest=True))

    async def open_dispute(self, table: Table, seat: int, game: int, hand: int,
                           reason: str, receipt: str | None = None) -> Table:
        """A dispute of one hand by the person in ``seat`` (checked by the
        caller: muggins.tables.disputes)."""
        player_id = table.state.seats[seat].player_id
        assert player_id is not None
        opened = DisputeOpened(dispute=len(table.state.disputes) + 1, seat=seat,
                               player_id=player_id, name=table.state.seats[seat].name or "?",
                               game=game, hand=hand, reason=reason, receipt=receipt)
        updated = await self._append(table, [opened], actor=f"seat:{seat}")
        log.info("dispute opened", table=table.state.table_id, dispute=opened.dispute,
                 game=game, hand=hand)
        return updated

    async def resolve_dispute(self, table: Table, resolved: DisputeResolved) -> Table:
        updated = await self._append(table, [resolved], actor="operator")
        log.info("dispute resolved", table=table.state.table_id, dispute=resolved.dispute,
                 verdict=resolved.verdict)
        return updated


def seating_history(recorded: Sequence[RecordedEvent]) -> list[SeatingEntry]:
    """The table's events with who caused each and when (for people)."""
    return [
        SeatingEntry(r.stream_version, r.actor, r.recorded_at.isoformat(),
                     msgspec.to_builtins(table_event_decoder.decode(r.payload)))
        for r in recorded
    ]
