"""Where each projector keeps what it builds: the SQL around the pure folds.

Each class loads what a page of events touches, folds the page with the
projector's pure functions and writes the result, all on the runner's
connection, inside the transaction that also moves its checkpoint.
"""

from __future__ import annotations

import uuid

import msgspec

from muggins.domain.codec import game_event
from muggins.domain.streams import game_stream, parse_chat_stream, parse_table_stream
from muggins.domain.table_events import (
    AbsenceDecided,
    BotTookOver,
    GameBegun,
    PlayerReturned,
    SeatTaken,
    TableClosed,
    TableEvent,
    TableOpened,
    bot_name,
    table_event_decoder,
)
from muggins.eventstore.records import RecordedEvent
from muggins.projections import leaderboard, table_views
from muggins.projections.leaderboard import GameTally, Standing
from muggins.projections.projection import QUERIES, Connection, Projection
from muggins.projections.table_views import TableViewDocument
from muggins.rules.events import GameEnded, SeatedPlayer
from muggins.rules.stored_state import decode_state, encode_state

_encode = msgspec.json.Encoder().encode
_decode_tally = msgspec.json.Decoder(GameTally).decode
_decode_players = msgspec.json.Decoder(tuple[SeatedPlayer, ...]).decode


def games_only(page: list[RecordedEvent]) -> list[RecordedEvent]:
    """The page's game events (a table's own stream is the seating projector's)."""
    return [event for event in page if parse_table_stream(event.stream_id) is None
            and parse_chat_stream(event.stream_id) is None]


#: Games whose documents the table-views projector keeps at hand between pages.
REMEMBERED_DOCUMENTS = 5000


class TableViews:
    """Every game's state and public view (table_views)."""

    name = table_views.NAME

    def __init__(self, remembered: int = REMEMBERED_DOCUMENTS) -> None:
        #: The documents it wrote last, least recently written first: decoding
        #: each page's games from the database again cost 7% of the service's
        #: CPU at 500 tables.  Trusted only while the runner's pages follow
        #: one another (lost_track).
        self._remembered: dict[str, TableViewDocument] = {}
        self._limit = remembered

    def lost_track(self) -> None:
        self._remembered.clear()

    async def project(self, connection: Connection, page: list[RecordedEvent]) -> None:
        page = games_only(page)
        streams = sorted({event.stream_id for event in page})
        documents: dict[str, TableViewDocument | None] = {
            stream: self._remembered.get(stream) for stream in streams}
        unknown = [stream for stream, document in documents.items() if document is None]
        for row in await connection.fetch(QUERIES["load_documents"], unknown) if unknown else ():
            documents[row[0]] = TableViewDocument(
                row[0], row[1], row[2], row[3], row[4], decode_state(row[5]),
                _decode_players(row[6]),
            )
        for event in page:
            document = documents[event.stream_id]
            if document is not None and event.stream_version <= document.version:
                continue  # seen already (a replay): nothing to do
            documents[event.stream_id] = table_views.apply(document, event)
        changed = [d for d in documents.values() if d is not None]
        await connection.execute(
            QUERIES["save_documents"],
            [d.stream_id for d in changed],
            [d.table_id for d in changed],
            [d.game for d in changed],
            [d.version for d in changed],
            [d.position for d in changed],
            [encode_state(d.state).decode() for d in changed],
            [_encode(d.public_view).decode() for d in changed],
            [d.state.phase for d in changed],
            [_encode(d.players).decode() for d in changed],
        )
        for document in changed:
            self._remembered.pop(document.stream_id, None)  # to the end: written last
            self._remembered[document.stream_id] = document
        while len(self._remembered) > self._limit:
            del self._remembered[next(iter(self._remembered))]

    async def forget(self, connection: Connection) -> None:
        await connection.execute(QUERIES["forget_table_views"])
        self.lost_track()


class Leaderboard:
    """Ratings and records per player and preset (leaderboard, leaderboard_games)."""

    name = leaderboard.NAME

    async def project(self, connection: Connection, page: list[RecordedEvent]) -> None:
        # The games' events, and the tables' (who left, what was chosen, closes).
        page = [event for event in page if parse_chat_stream(event.stream_id) is None]
        streams = sorted({event.stream_id for event in page})
        tallies: dict[str, GameTally | None] = dict.fromkeys(streams)
        #: Rated games and tables: the last version counted.
        counted: dict[str, int] = {}
        for row in await connection.fetch(QUERIES["load_tallies"], streams):
            counted[row[0]] = row[1]
            tallies[row[0]] = _decode_tally(row[2]) if row[2] is not None else None
        tables = sorted({table for event in page
                         if (table := parse_table_stream(event.stream_id))})
        if tables:  # the games going on at them: what a table's event changes
            for row in await connection.fetch(QUERIES["open_tallies"],
                                              [f"{table}-g%" for table in tables]):
                if tallies.get(row[0]) is None:
                    counted[row[0]] = row[1]
                    tallies[row[0]] = _decode_tally(row[2])
        outcomes: list[tuple[GameTally, GameEnded | tuple[int, ...]]] = []
        for recorded in page:
            stream = recorded.stream_id
            if recorded.stream_version <= counted.get(stream, 0):
                continue  # counted already (delivered again): nothing to do
            table_id = parse_table_stream(stream)
            if table_id is not None:
                _table_event(table_id, table_event_decoder.decode(recorded.payload), tallies,
                             outcomes)
                counted[stream] = recorded.stream_version
                continue
            event = game_event(recorded)
            current = tallies[stream]
            if isinstance(event, GameEnded):
                if current is not None:
                    outcomes.append((current, event))
                    counted[stream] = recorded.stream_version
                tallies[stream] = None
                continue
            tallies[stream] = leaderboard.tally(current, stream, event, recorded.actor)
            if tallies[stream] is not None:
                counted[stream] = recorded.stream_version
        standings = await self._standings(connection, [game for game, _ in outcomes])
        changed: dict[tuple[str, str], Standing] = {}
        #: Each ended game's rating changes, for its game-over screen.
        changes: list[leaderboard.RatingChange] = []
        for game, outcome in outcomes:  # in order: each rates from the one before
            by_player = {key[1]: s for key, s in standings.items() if key[0] == game.preset}
            after = (leaderboard.rate(game, outcome, by_player)
                     if isinstance(outcome, GameEnded)
                     else leaderboard.abandon(game, outcome, by_player))
            if isinstance(outcome, GameEnded):
                changes += leaderboard.rating_changes(game, by_player, after)
            for standing in after:
                key = (standing.preset, standing.player_id)
                standings[key] = changed[key] = standing
        if changes:
            await connection.execute(
                QUERIES["save_game_ratings"], [c.stream_id for c in changes],
                [c.player_id for c in changes], [c.seat for c in changes],
                [c.name for c in changes], [c.bot for c in changes],
                [c.before for c in changes], [c.after for c in changes])
        rated = sorted(counted)
        await connection.execute(
            QUERIES["save_tallies"], rated, [counted[s] for s in rated],
            [_encode(t).decode() if (t := tallies.get(s)) is not None else None
             for s in rated],
        )
        rows = list(changed.values())
        await connection.execute(
            QUERIES["save_standings"],
            [s.preset for s in rows], [s.player_id for s in rows], [s.name for s in rows],
            [s.bot for s in rows], [s.mu for s in rows], [s.sigma for s in rows],
            [s.rating for s in rows], [s.games for s in rows], [s.won for s in rows],
            [s.drawn for s in rows], [s.hands for s in rows], [s.points for s in rows],
            [s.best_play for s in rows], [s.abandoned for s in rows],
        )

    async def _standings(self, connection: Connection, games: list[GameTally]
                         ) -> dict[tuple[str, str], Standing]:
        keys = sorted({(g.preset, p.player_id) for g in games for p in g.players})
        if not keys:
            return {}
        rows = await connection.fetch(QUERIES["load_standings"], [k[0] for k in keys],
                                      [k[1] for k in keys])
        return {(row[0], row[1]): Standing(*row) for row in rows}

    async def forget(self, connection: Connection) -> None:
        await connection.execute(QUERIES["forget_leaderboard"])

    def lost_track(self) -> None:
        pass  # keeps nothing between pages


class TableSeating:
    """Who sits where at each table, for the lobby (tables, seats): from the
    tables' own streams (muggins.domain.table_events)."""

    name = "seating"

    async def project(self, connection: Connection, page: list[RecordedEvent]) -> None:
        for recorded in page:
            table_id = parse_table_stream(recorded.stream_id)
            if table_id is None:
                continue
            event = table_event_decoder.decode(recorded.payload)
            if isinstance(event, TableOpened):
                await connection.execute(
                    QUERIES["seating_open"], table_id, _encode(event.ruleset).decode(),
                    event.turn_clock_seconds, recorded.recorded_at, event.made_from)
                levels = {bot.seat: bot.level for bot in event.bots}
                seats = list(range(event.ruleset.seats))
                await connection.execute(
                    QUERIES["seating_seats"], table_id, seats, [levels.get(s) for s in seats],
                    [bot_name(s) if s in levels else None for s in seats])
            elif isinstance(event, SeatTaken):
                await connection.execute(QUERIES["seating_taken"], table_id, event.seat,
                                         event.name, uuid.UUID(event.player_id))
                await connection.execute(QUERIES["seating_host"], table_id, event.name)
            elif isinstance(event, GameBegun):
                await connection.execute(QUERIES["seating_game"], table_id, event.game)
            elif isinstance(event, TableClosed):
                await connection.execute(QUERIES["seating_closed"], table_id, event.reason)
            elif isinstance(event, AbsenceDecided) and event.choice == "seat":
                await connection.execute(QUERIES["seating_freed"], table_id, list(event.seats))
            elif isinstance(event, BotTookOver | PlayerReturned):
                await connection.execute(QUERIES["seating_bot_playing"], table_id, event.seat,
                                         isinstance(event, BotTookOver))

    async def forget(self, connection: Connection) -> None:
        await connection.execute(QUERIES["forget_seating"])

    def lost_track(self) -> None:
        pass  # keeps nothing between pages


def _table_event(table_id: str, event: TableEvent, tallies: dict[str, GameTally | None],
                 outcomes: list[tuple[GameTally, GameEnded | tuple[int, ...]]]) -> None:
    """What a table's event changes of its game's tally: who is away, a
    choice for them, an abandonment (added to ``outcomes``, in order)."""

    def playing(game: int | None) -> str | None:
        """The stream of the table's game going on (``game`` if known), if rated."""
        if game is not None:
            stream = game_stream(table_id, game)
            return stream if tallies.get(stream) is not None else None
        going = [s for s, t in tallies.items() if t is not None
                 and s.startswith(f"{table_id}-g")]
        return max(going, key=lambda s: int(s.rsplit("-g", 1)[1]), default=None)

    match event:
        case BotTookOver(reason="absent", game=game):
            stream = playing(game)
        case PlayerReturned() | TableClosed():
            stream = playing(None)
        case AbsenceDecided(game=game):
            stream = playing(game)
        case _:
            return
    if stream is None:
        return
    current = tallies[stream]
    assert current is not None
    if isinstance(event, BotTookOver):
        tallies[stream] = msgspec.structs.replace(
            current, away=tuple(sorted({*current.away, event.seat})))
    elif isinstance(event, PlayerReturned):
        tallies[stream] = msgspec.structs.replace(
            current, away=tuple(s for s in current.away if s != event.seat))
    elif isinstance(event, AbsenceDecided):
        # Charged: those who left during this game and were not charged yet
        # (a person already gone when it began never played it).
        leavers = tuple(s for s in event.seats if s in current.away)
        if event.choice in ("bot", "seat"):  # played on without them: unrated for everyone
            current = msgspec.structs.replace(
                current, unrated=True,
                away=tuple(s for s in current.away if s not in leavers),
                charged=tuple(sorted({*current.charged, *leavers})))
            tallies[stream] = current
        else:
            tallies[stream] = None
        if leavers:
            outcomes.append((current, leavers))
    elif isinstance(event, TableClosed):
        leavers = tuple(s for s in current.away if s not in current.charged)
        if leavers:  # closed with the game on: those away abandoned it
            outcomes.append((current, leavers))
        tallies[stream] = None


#: Every projector, by the name `muggins project` knows it by.
PROJECTIONS: dict[str, type[Projection]] = {
    TableViews.name: TableViews,
    Leaderboard.name: Leaderboard,
    TableSeating.name: TableSeating,
}
