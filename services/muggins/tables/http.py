"""Thin HTTP handlers: create a table, read it, sit, the lobby, a game's
public view, the leaderboard.

Every id and parameter is checked here, at the edge, before it reaches SQL,
a subject or the rules: a table id by muggins.domain.streams.table_id (one of the
wrong format is a 404 like an unknown one, answered by the app), and every
refusal answers 4xx with a stable ``code``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Literal, TypeVar

import asyncpg
import msgspec
from asyncpg.pool import PoolConnectionProxy
from litestar import Request, Response, get, post
from litestar.connection import WebSocket
from litestar.exceptions import HTTPException
from litestar.params import FromPath, FromQuery, JSONBody

from muggins.client.pages import checked_language
from muggins.domain import streams
from muggins.domain.streams import table_stream
from muggins.domain.table_life import LifeKind, table_life
from muggins.domain.views import RuleLine
from muggins.projections.leaderboard import is_rated
from muggins.projections.projection import QUERIES as VIEW_QUERIES
from muggins.rules.describe import PRESET_SUMMARIES, Language, describe
from muggins.rules.errors import IllegalMove
from muggins.rules.presets import DEFAULT_PRESET, PRESETS
from muggins.rules.ruleset import Ruleset
from muggins.tables.admission import Throttled
from muggins.tables.errors import (
    BadRequest,
    GameNotFound,
    GameNotOver,
    PlayerNotFound,
    Refusal,
    TableNotFound,
)
from muggins.tables.life_view import life_view
from muggins.tables.names import table_name, table_title
from muggins.tables.protocol import (
    CreateTable,
    LeaderboardLine,
    LeaderboardPage,
    Lobby,
    LobbyTable,
    NewSecret,
    OpenDispute,
    PlayingTable,
    PresetBoard,
    PublicTableView,
    RatingChange,
    RatingChanges,
    ResolveDispute,
    RotateSecret,
    SeatGranted,
    SeatingEntry,
    SeatSummary,
    TableInfo,
    TakeSeat,
)
from muggins.tables.runtime import Runtime
from muggins.tables.seating import is_player_id, seating_history

#: The deepest leaderboard page anyone may ask for (beyond it: 400).
MAX_PAGE = 100_000
Body = TypeVar("Body", CreateTable, TakeSeat, RotateSecret, OpenDispute, ResolveDispute)


decode_ruleset = msgspec.json.Decoder(Ruleset).decode


def runtime_of(request: Request | WebSocket) -> Runtime:  # type: ignore[type-arg]
    return request.app.state.runtime  # type: ignore[no-any-return]


def checked_player_id(player_id: str) -> str:
    """``player_id`` if it is of the player id format; else PlayerNotFound (404)."""
    if not is_player_id(player_id):
        raise PlayerNotFound("there is no such player: a player id is a UUID")
    return player_id


@asynccontextmanager
async def read_snapshot(pool: asyncpg.Pool) -> AsyncIterator[PoolConnectionProxy]:
    """A connection whose reads all see one instant of the read models.

    A page and its total read one after the other would disagree whenever a
    projector folds an event in between (a total of 2 over no lines)."""
    async with pool.acquire() as connection, \
            connection.transaction(isolation="repeatable_read", readonly=True):
        yield connection


def refused(error: Refusal | IllegalMove) -> HTTPException:
    """A refusal as an HTTP answer: its status, its reason and its stable
    code; a spent budget's with its wait, as ``Retry-After`` and as the
    answer's ``retry_after`` (seconds), for a page to say in its language."""
    status = error.status if isinstance(error, Refusal) else 409
    extra: dict[str, object] = {"code": error.code}
    headers = None
    if isinstance(error, Throttled):
        extra["retry_after"] = error.seconds
        headers = {"Retry-After": str(error.seconds)}
    return HTTPException(status_code=status, detail=str(error), extra=extra, headers=headers)


async def throttled(error: Throttled) -> HTTPException:
    """A spent budget as a 429 with Retry-After, after a short wait: a client
    that asks again at once, without end, asks a few times a second per
    connection, not hundreds (a sleeping request costs this side next to
    nothing)."""
    await asyncio.sleep(min(error.retry_after, REFUSED_WAIT))
    return refused(error)


async def table_info(runtime: Runtime, table_id: str, language: Language = "en") -> TableInfo:
    held = await runtime.seating.table(table_id)
    table = held.state
    game = (await runtime.commands.game(table_id, table.game)).state if table.game else None
    life = table_life(table, game)
    return TableInfo(
        table_id=table_id,
        preset=table.ruleset.preset,
        status=STATUS_OF_LIFE[life.kind],
        game=table.game,
        turn_clock_seconds=table.turn_clock_seconds,
        rules=[RuleLine(topic, text) for topic, text in describe(table.ruleset, language)],
        ruleset=msgspec.structs.asdict(table.ruleset),
        seats=[SeatSummary(s.seat, s.display_name, s.is_bot, s.bot_level, s.free)
               for s in table.seats],
        share_link=runtime.share_link(table_id),
        spectator_link=runtime.watch_link(table_id),
        title=table_title(table.ruleset, table.made_from, language),
        name=table_name(table_id, table.host, language),
        chat=table.chat,
        closed_reason=life.reason,
        life=life_view(held, game, runtime.commands.timings),
    )


#: The HTTP status of each state of a table's life (the names clients know).
STATUS_OF_LIFE: dict[LifeKind, Literal["waiting", "playing", "paused", "finished", "closed"]] = {
    "waiting": "waiting", "playing": "playing", "paused": "paused",
    "between-games": "finished", "closed": "closed",
}


async def strictly(request: Request, kind: type[Body]) -> Body:  # type: ignore[type-arg]
    """The request's body decoded strictly: litestar has already checked it
    against ``kind``, but leniently ("2" passes for 2, "false" for false);
    the documented types are the only ones accepted."""
    try:
        return msgspec.json.decode(await request.body(), type=kind)
    except (msgspec.ValidationError, msgspec.DecodeError) as error:
        raise refused(BadRequest(f"the body does not match the schema: {error}"[:300])) \
            from None


@post("/tables", summary="Create a table", description="A table from a preset, with bots.")
async def create_table(
    request: Request, data: JSONBody[CreateTable],  # type: ignore[type-arg]
    lang: FromQuery[str] = "en",
) -> TableInfo:
    runtime = runtime_of(request)
    language = checked_language(lang)
    data = await strictly(request, CreateTable)
    try:
        table = await runtime.seating.open_table(data, runtime.settings.turn_clock_seconds)
    except Refusal as error:
        raise refused(error) from None
    await runtime.commands.begin(table)
    return await table_info(runtime, table.state.table_id, language)


@get("/tables/{table_id:str}", summary="A table: its rules in words and its seats")
async def get_table(
    request: Request, table_id: FromPath[str], lang: FromQuery[str] = "en"  # type: ignore[type-arg]
) -> TableInfo:
    language = checked_language(lang)
    try:
        return await table_info(runtime_of(request), streams.table_id(table_id), language)
    except Refusal as error:
        raise refused(error) from None


@get("/tables/{table_id:str}/seating",
     summary="The table's own events: who sat where, bots taking over, players returning",
     description="For settling a dispute about who (a person, or a bot and why) played a seat.")
async def table_seating(
    request: Request, table_id: FromPath[str]  # type: ignore[type-arg]
) -> list[SeatingEntry]:
    recorded = await runtime_of(request).infra.store.read_stream(
        table_stream(streams.table_id(table_id)))
    if not recorded:
        raise refused(TableNotFound(f"there is no table {table_id}"))
    return seating_history(recorded)


@post("/tables/{table_id:str}/seats/{seat:int}", summary="Take a free seat")
async def take_seat(
    request: Request,  # type: ignore[type-arg]
    table_id: FromPath[str],
    seat: FromPath[int],
    data: JSONBody[TakeSeat],
) -> SeatGranted:
    runtime = runtime_of(request)
    data = await strictly(request, TakeSeat)
    try:
        granted, table = await runtime.seating.take_seat(streams.table_id(table_id), seat,
                                                         data)
    except Refusal as error:
        raise refused(error) from None
    await runtime.commands.begin(table)
    return msgspec.structs.replace(granted, play_link=runtime.play_socket_link(table_id))


@post("/players/{player_id:str}/secret", status_code=200,
      summary="A new secret for a player identity (sign out every other browser)",
      description="The body proves the current secret; the answer is the new one, and the "
                  "old one is refused from now on (403 bad-token), wherever it is kept.")
async def rotate_secret(
    request: Request,  # type: ignore[type-arg]
    player_id: FromPath[str],
    data: JSONBody[RotateSecret],
) -> NewSecret:
    runtime = runtime_of(request)
    data = await strictly(request, RotateSecret)
    try:
        checked = checked_player_id(player_id)
        secret = await runtime.seating.rotate_secret(checked, data.secret)
    except Refusal as error:
        raise refused(error) from None
    return NewSecret(checked.lower(), secret)


@get("/lobby", summary="Open tables with free seats, and tables being played",
     description="Open tables page by page (`page`, `limit` a page), tables where "
                 "somebody already waits first; the newest tables being played.  Each "
                 "with its name and the game it plays, in the language `lang`.")
async def lobby(
    request: Request,  # type: ignore[type-arg]
    limit: FromQuery[int] = 50,
    page: FromQuery[int] = 1,
    lang: FromQuery[str] = "en",
) -> Lobby:
    language = checked_language(lang)
    if not 1 <= page <= MAX_PAGE:
        raise refused(BadRequest(f"page is 1 to {MAX_PAGE}"))
    runtime = runtime_of(request)
    limit = max(1, min(limit, 200))
    async with read_snapshot(runtime.infra.pool) as connection:
        open_rows = await connection.fetch(VIEW_QUERIES["open_tables"], limit,
                                           (page - 1) * limit)
        playing_rows = await connection.fetch(VIEW_QUERIES["playing"], limit)
        total = await connection.fetchval(VIEW_QUERIES["open_tables_count"])
    open_tables = []
    for row in open_rows:
        ruleset = decode_ruleset(row["ruleset"])
        open_tables.append(LobbyTable(
            row["table_id"], ruleset.preset, row["seats"], row["free"],
            runtime.share_link(row["table_id"]), row["people"], row["in_progress"],
            msgspec.json.decode(row["scores"]) if row["scores"] else [],
            name=table_name(row["table_id"], row["host_name"], language),
            title=table_title(ruleset, row["made_from"], language)))
    playing = [
        PlayingTable(row["table_id"], row["game"], row["version"],
                     msgspec.Raw(row["public_view"].encode()),
                     runtime.watch_link(row["table_id"]), list(row["names"] or []),
                     row["preset"] or "",
                     name=table_name(row["table_id"], row["host_name"], language),
                     title=table_title(decode_ruleset(row["ruleset"]), row["made_from"],
                                       language))
        for row in playing_rows
    ]
    return Lobby(open_tables, playing, page, total)


@get("/tables/{table_id:str}/view", summary="The public view of a table's game (read model)")
async def table_view(
    request: Request, table_id: FromPath[str]  # type: ignore[type-arg]
) -> PublicTableView:
    row = await runtime_of(request).infra.pool.fetchrow(VIEW_QUERIES["table_view"],
                                                        streams.table_id(table_id))
    if row is None:
        raise refused(TableNotFound(f"no game has been played at table {table_id} yet"))
    return PublicTableView(table_id, row["game"], row["version"], row["phase"], row["preset"],
                           PRESET_SUMMARIES.get(row["preset"], ""),
                           msgspec.Raw(row["ruleset"].encode()),
                           msgspec.Raw(row["public_view"].encode()))


@get("/leaderboard", summary="Ratings and records per player, one board per preset",
     description="Sorted by rating (openskill mu - 3 sigma). Pages start at 1.")
async def leaderboard(
    request: Request,  # type: ignore[type-arg]
    preset: FromQuery[str] = DEFAULT_PRESET,
    page: FromQuery[int] = 1,
    per_page: FromQuery[int] = 25,
) -> LeaderboardPage:
    if preset not in PRESETS:
        raise refused(BadRequest(f"unknown preset {preset[:40]!r}; choose from "
                                 f"{', '.join(PRESETS)}"))
    if not 1 <= page <= MAX_PAGE or not 1 <= per_page <= 100:
        raise refused(BadRequest(f"page is 1 to {MAX_PAGE}; per_page is 1 to 100"))
    offset = (page - 1) * per_page
    # One snapshot for the page, its total and the presets: read one by one, a
    # game the projector folds in between would show a total of 2 over no lines.
    async with read_snapshot(runtime_of(request).infra.pool) as connection:
        rows = await connection.fetch(VIEW_QUERIES["leaderboard_page"], preset, per_page,
                                      offset)
        total = await connection.fetchval(VIEW_QUERIES["leaderboard_size"], preset)
        presets = await connection.fetch(VIEW_QUERIES["leaderboard_presets"])
    lines = [
        LeaderboardLine(
            rank=offset + index + 1, player_id=row["player_id"], name=row["name"],
            bot=row["bot"], rating=round(row["rating"], 3), mu=round(row["mu"], 3),
            sigma=round(row["sigma"], 3), games=row["games"], won=row["won"],
            drawn=row["drawn"], hands=row["hands"],
            points_per_hand=round(row["points"] / row["hands"], 2) if row["hands"] else 0.0,
            best_play=row["best_play"], abandoned=row["abandoned"],
        )
        for index, row in enumerate(rows)
    ]
    boards = [PresetBoard(row["preset"], row["players"]) for row in presets]
    return LeaderboardPage(preset, page, per_page, total, lines, boards)


@get("/tables/{table_id:str}/games/{game:int}/ratings",
     summary="What an ended game did to its players' ratings",
     description='status "rated" with each rated player\'s rating (mu - 3 sigma) before and '
                 'after; "updating" while the leaderboard has not folded the game yet (ask '
                 'again); "unrated" for a game that rates nobody. 404 no-such-table or '
                 'no-such-game, 409 game-not-over.')
async def game_ratings(
    request: Request, table_id: FromPath[str], game: FromPath[int]  # type: ignore[type-arg]
) -> RatingChanges:
    runtime = runtime_of(request)
    table = streams.table_id(table_id)
    try:
        if not 1 <= game <= streams.MAX_GAME:
            raise GameNotFound(f"there is no game {game}: games are numbered from 1")
        held = await runtime.seating.table(table)
        if game > held.state.game:
            raise GameNotFound(f"table {table} has no game {game} (yet)")
        state = (await runtime.commands.game(table, game)).state
        if state is None:
            raise GameNotFound(f"table {table} has no game {game} (yet)")
        if state.phase != "game-over":
            raise GameNotOver(f"game {game} at table {table} is still being played")
    except Refusal as error:
        raise refused(error) from None
    stream = streams.game_stream(table, game)
    # One instant of the leaderboard: its lines and whether it folded the game.
    async with read_snapshot(runtime.infra.pool) as connection:
        rows = await connection.fetch(VIEW_QUERIES["game_ratings"], stream)
        folded = await connection.fetchval(VIEW_QUERIES["game_folded"], stream)
    if rows:
        changes = [RatingChange(row["seat"], row["player_id"], row["name"], row["bot"],
                                round(row["before"], 3), round(row["after"], 3)) for row in rows]
        return RatingChanges(table, game, "rated", changes)
    # Folded and nobody rated (played on with a bot), or never a rated game.
    if folded or not is_rated(state.ruleset):
        return RatingChanges(table, game, "unrated")
    return RatingChanges(table, game, "updating")


#: The longest a refused costly request (an analysis, an evidence file) waits
#: before its 429 (seconds).
REFUSED_WAIT = 2.0


@get("/tables/{table_id:str}/games/{game:int}/hands/{hand:int}/analysis",
     summary="A finished hand's decisions as the expert judges them",
     description="Thought once per hand and kept; a few new analyses a minute per address "
                 "(429 with Retry-After beyond).")
async def hand_analysis(
    request: Request,  # type: ignore[type-arg]
    table_id: FromPath[str], game: FromPath[int], hand: FromPath[int],
) -> Response[bytes]:
    try:
        answer = await runtime_of(request).analyses.analysis(request, table_id, game, hand)
    except Throttled as error:
        raise await throttled(error) from None
    except Refusal as error:
        raise refused(error) from None
    return Response(answer, media_type="application/json")
