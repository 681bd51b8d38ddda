"""A table's own events: who sits where, bots taking over, games begun.

A table is an event stream (``<table>-table``, muggins.domain.streams) beside its
games' streams.  Its state is a fold of ``evolve_table`` over these events,
like a game's: nothing about a table lives anywhere else (the ``tables`` and
``seats`` rows are a read model for the lobby, rebuilt from these).  So a
disputed hand can be settled on who sat where, and who (a person, or a bot
and why) made each move.

Every table event is public: nothing secret goes in (seat tokens and player
secrets are kept, hashed, outside the events).  docs/events.md lists them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

import msgspec

from muggins.rules.events import SeatedPlayer
from muggins.rules.ruleset import Ruleset

#: Why a bot plays a person's seat: the turn clock ran out, or the player
#: left (no connection for the grace period).
TakeoverReason = Literal["clock", "absent"]
#: How a player took their seat back: by a valid move, or by saying so.
ReturnReason = Literal["move", "back"]
#: Why a table closed: its game is over and nobody plays on (or nobody can:
#: bots only); its game was ended without a winner; every person at it left;
#: nobody sat down for a long while.
CloseReason = Literal["finished", "abandoned", "everyone-left", "idle"]
#: What the people who stayed chose for a game paused by a missing person:
#: play on with the bot in that seat, or give the seat to a new person from
#: the lobby (either way the game is then unrated for everyone), or end the
#: game (abandoned by the person who left).
AbsenceChoice = Literal["bot", "seat", "end"]
#: An operator's word on a dispute: the player was right (the record is not
#: what was dealt or played by the rules), or the record stands.
Verdict = Literal["upheld", "rejected"]
#: The longest reason a player may give, and the longest note an operator may.
MAX_DISPUTE_REASON = 500
MAX_RESOLUTION_NOTE = 2000


class TableEvent(msgspec.Struct, frozen=True, gc=False, kw_only=True, tag=True,
                 tag_field="type"):
    """Base of a table's own events; the tag is the class name (as a game's
    events, muggins.rules.events: one codec reads both, muggins.domain.codec)."""


class BotAtSeat(msgspec.Struct, frozen=True, gc=False):
    seat: int
    level: str


class TableOpened(TableEvent, frozen=True, kw_only=True):
    """A table is set: its rules, its clock, and the seats bots hold from the start."""

    ruleset: Ruleset
    turn_clock_seconds: int
    bots: tuple[BotAtSeat, ...] = ()
    #: Whether the table has a chat (muggins.domain.chat).
    chat: bool = True
    #: The expert bot's thinking time per decision here (None: the service's).
    bot_budget_ms: int | None = None
    #: The preset the table was made from: its name stays what people read
    #: when changed knobs make the ruleset "custom" (None: not recorded).
    made_from: str | None = None


class SeatTaken(TableEvent, frozen=True, kw_only=True):
    """A person sat down (their player id and the name they gave)."""

    seat: int
    player_id: str
    name: str


class GameBegun(TableEvent, frozen=True, kw_only=True):
    """Game ``game`` begins at the table (the first when every seat is taken,
    then one per rematch); its events are the stream ``<table>-g<game>``."""

    game: int


class BotTookOver(TableEvent, frozen=True, kw_only=True):
    """A bot plays a person's seat from now on, until they come back."""

    seat: int
    reason: TakeoverReason
    #: Where the game stood: the game, its version and the hand.
    game: int
    version: int
    hand: int
    #: The turn clock ran out twice on the same turn: the bot keeps the seat
    #: to the end of this hand, whatever the player says.
    for_the_hand: bool = False


class PlayerReturned(TableEvent, frozen=True, kw_only=True):
    """The person takes their seat back from the bot."""

    seat: int
    reason: ReturnReason


class AbsenceDecided(TableEvent, frozen=True, kw_only=True):
    """The people still seated chose what becomes of a game paused for
    ``seats`` (whose persons had gone): the first choice is the one kept."""

    game: int
    seats: tuple[int, ...]
    choice: AbsenceChoice
    #: The seat of the person who chose.
    by_seat: int


class RematchAsked(TableEvent, frozen=True, kw_only=True):
    """The person at ``seat`` asks for another game after ``game``: it
    begins (GameBegun, in the same append) once every person still seated
    has asked."""

    seat: int
    game: int


class TableClosed(TableEvent, frozen=True, kw_only=True):
    """The table is closed for good: it takes no command, deals no hand and
    runs no bot from now on (muggins.domain.table_life)."""

    reason: CloseReason


class HandSealed(TableEvent, frozen=True, kw_only=True):
    """A hand of game ``game`` ended, and this is where its record stood: the
    game stream's version and chain value at the hand's last event (HandEnded,
    or GameEnded after it), the whole store's position and chain value there,
    and the site's signature over them.  So the table stream vouches for its
    games (a game cut short or swapped shows against it), and this is the
    receipt every seat is given (muggins.evidence.receipts, docs/fairness.md)."""

    game: int
    hand: int
    version: int
    #: Hex, as the receipt carries them.
    chain: str
    position: int
    global_chain: str
    #: The hand ended the game.
    game_over: bool = False
    signed_at: str
    key_id: str
    signature: str


class DisputeOpened(TableEvent, frozen=True, kw_only=True):
    """A person seated at the table says a hand was not dealt or played
    fair.  ``dispute`` numbers the table's disputes from 1."""

    dispute: int
    seat: int
    player_id: str
    #: The person's name at the table when they disputed.
    name: str
    game: int
    hand: int
    reason: str
    #: The receipt the person kept for the hand, as their browser sent it
    #: (JSON; None: they had none): what they were given, for the operator
    #: to hold the record to (docs/fairness.md, "Disputes").
    receipt: str | None = None


class DisputeResolved(TableEvent, frozen=True, kw_only=True):
    """An operator's verdict on a dispute, with a note the player reads."""

    dispute: int
    verdict: Verdict
    note: str
    #: Who resolved it (an operator's name, as they gave it).
    by: str


AnyTableEvent = (TableOpened | SeatTaken | GameBegun | BotTookOver | PlayerReturned
                 | AbsenceDecided | RematchAsked | TableClosed | HandSealed | DisputeOpened
                 | DisputeResolved)
table_event_decoder = msgspec.json.Decoder(AnyTableEvent)

BOT_PLAYER_PREFIX = "bot:"
#: What a bot seat is called at the table: a name per seat, so that two bots
#: are told apart (the page marks them as bots and shows their level).
BOT_NAMES = ("Ada", "Bruno", "Carmen", "Dario")


def bot_name(seat: int) -> str:
    return BOT_NAMES[seat % len(BOT_NAMES)]


def bot_record_name(level: str) -> str:
    """A bot as games and the leaderboard record it: every bot of a level is
    one player there."""
    return f"bot ({level})"


class SeatState(msgspec.Struct, frozen=True, gc=False):
    seat: int
    #: A bot seat from the start: its level; None for a person's seat.
    bot_level: str | None = None
    player_id: str | None = None
    name: str | None = None
    #: A bot plays this person's seat now, and why.
    takeover: TakeoverReason | None = None
    #: The last turn clock that ran out on this seat: (game, version).
    last_timeout: tuple[int, int] | None = None
    #: The bot keeps the seat until this (game, hand) is over.
    held_until: tuple[int, int] | None = None

    @property
    def is_bot(self) -> bool:
        """A bot plays the seat now (a bot seat, or a person's taken over)."""
        return self.bot_level is not None or self.takeover is not None

    @property
    def free(self) -> bool:
        return self.bot_level is None and self.player_id is None

    @property
    def display_name(self) -> str | None:
        return bot_name(self.seat) if self.bot_level is not None else self.name


class DisputeState(msgspec.Struct, frozen=True, gc=False):
    opened: DisputeOpened
    resolved: DisputeResolved | None = None


class TableState(msgspec.Struct, frozen=True, gc=False):
    table_id: str
    ruleset: Ruleset
    turn_clock_seconds: int
    seats: tuple[SeatState, ...]
    #: The game being played: 0 until every seat is taken.
    game: int = 0
    chat: bool = True
    bot_budget_ms: int | None = None
    #: Closed for good, and why (None while the table is open).
    closed: CloseReason | None = None
    #: What was chosen for the current game when a person went missing
    #: (None: nothing yet).  "bot": the game plays on, unrated.
    absence_choice: AbsenceChoice | None = None
    #: The seat of the person who chose it.
    absence_chosen_by: int | None = None
    #: The seats whose person asked for another game after the current one.
    rematch_asked: tuple[int, ...] = ()
    #: Every hand sealed at the table, in order (the players' receipts).
    seals: tuple[HandSealed, ...] = ()
    #: Every dispute opened at the table, in order, with its resolution.
    disputes: tuple[DisputeState, ...] = ()
    #: The preset the table was made from (TableOpened.made_from).
    made_from: str | None = None
    #: The name of the first person who sat here: the table is known by it
    #: (muggins.tables.names), even after they leave.
    host: str | None = None

    def last_sealed_hand(self, game: int) -> int:
        """The number of the last hand of ``game`` sealed (0: none)."""
        for sealed in reversed(self.seals):
            if sealed.game == game:
                return sealed.hand
            if sealed.game < game:
                break
        return 0

    @property
    def names(self) -> list[str | None]:
        return [s.display_name for s in self.seats]

    @property
    def bots(self) -> list[bool]:
        return [s.is_bot for s in self.seats]

    @property
    def free_seats(self) -> int:
        return sum(s.free for s in self.seats)

    @property
    def people(self) -> tuple[SeatState, ...]:
        """The seats a person holds (whether they play it now or a bot does)."""
        return tuple(s for s in self.seats if s.player_id is not None)

    @property
    def missing(self) -> tuple[int, ...]:
        """The seats whose person has gone (a bot took them for absence)."""
        return tuple(s.seat for s in self.people if s.takeover == "absent")

    @property
    def still_seated(self) -> tuple[int, ...]:
        """The seats whose person is still at the table (not gone)."""
        return tuple(s.seat for s in self.people if s.takeover != "absent")

    @property
    def everyone_left(self) -> bool:
        """People sat here, and every one of them has gone (a bot plays each
        seat because its person was away for the grace period)."""
        return bool(self.people) and not self.still_seated

    @property
    def players(self) -> tuple[SeatedPlayer, ...]:
        """Who sits where, as a game's first event records it (bots by level)."""
        return tuple(
            SeatedPlayer(seat=s.seat,
                         player_id=s.player_id or f"{BOT_PLAYER_PREFIX}{s.bot_level}",
                         name=(bot_record_name(s.bot_level) if s.bot_level is not None
                               else s.name or "?"),
                         bot=s.bot_level is not None)
            for s in self.seats
        )

    def seat_of(self, player_id: str) -> int | None:
        return next((s.seat for s in self.seats if s.player_id == player_id), None)


def _with_seat(state: TableState, seat: SeatState) -> TableState:
    seats = list(state.seats)
    seats[seat.seat] = seat
    return msgspec.structs.replace(state, seats=tuple(seats))


def evolve_table(state: TableState | None, event: TableEvent, table_id: str = "") -> TableState:
    """The table after one more of its events (events are facts: no checks)."""
    if isinstance(event, TableOpened):
        levels = {bot.seat: bot.level for bot in event.bots}
        return TableState(
            table_id=table_id,
            ruleset=event.ruleset,
            turn_clock_seconds=event.turn_clock_seconds,
            seats=tuple(SeatState(seat, bot_level=levels.get(seat))
                        for seat in range(event.ruleset.seats)),
            chat=event.chat,
            bot_budget_ms=event.bot_budget_ms,
            made_from=event.made_from,
        )
    if state is None:
        raise ValueError(f"a table stream must begin with TableOpened, not {type(event).__name__}")
    if isinstance(event, SeatTaken):
        if state.host is None:
            state = msgspec.structs.replace(state, host=event.name)
        return _with_seat(state, msgspec.structs.replace(
            state.seats[event.seat], player_id=event.player_id, name=event.name))
    if isinstance(event, GameBegun):
        return msgspec.structs.replace(state, game=event.game, absence_choice=None,
                                       absence_chosen_by=None, rematch_asked=())
    if isinstance(event, RematchAsked):
        return msgspec.structs.replace(
            state, rematch_asked=tuple(sorted({*state.rematch_asked, event.seat})))
    if isinstance(event, AbsenceDecided):
        decided = msgspec.structs.replace(state, absence_choice=event.choice,
                                          absence_chosen_by=event.by_seat)
        if event.choice == "seat":  # the seats are free for new people
            for given_up in event.seats:
                decided = _with_seat(decided, SeatState(given_up))
        return decided
    if isinstance(event, BotTookOver):
        seat = state.seats[event.seat]
        return _with_seat(state, msgspec.structs.replace(
            seat,
            takeover=event.reason,
            last_timeout=(event.game, event.version) if event.reason == "clock"
            else seat.last_timeout,
            held_until=(event.game, event.hand) if event.for_the_hand else seat.held_until,
        ))
    if isinstance(event, TableClosed):
        return msgspec.structs.replace(state, closed=event.reason)
    if isinstance(event, HandSealed):
        return msgspec.structs.replace(state, seals=(*state.seals, event))
    if isinstance(event, DisputeOpened):
        return msgspec.structs.replace(state, disputes=(*state.disputes, DisputeState(event)))
    if isinstance(event, DisputeResolved):
        disputes = tuple(
            msgspec.structs.replace(d, resolved=event) if d.opened.dispute == event.dispute
            else d for d in state.disputes)
        return msgspec.structs.replace(state, disputes=disputes)
    if isinstance(event, PlayerReturned):
        return _with_seat(state, msgspec.structs.replace(
            state.seats[event.seat], takeover=None, held_until=None))
    raise ValueError(f"not a table event: {type(event).__name__}")


def fold_table(events: Iterable[TableEvent], table_id: str,
               state: TableState | None = None) -> TableState:
    for event in events:
        state = evolve_table(state, event, table_id)
    if state is None:
        raise ValueError(f"table {table_id} has no events")
    return state
