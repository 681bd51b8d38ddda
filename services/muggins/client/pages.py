"""The browser's pages and what only they need from the API.

The pages are static HTML, CSS and JavaScript modules under ``static/``
(no build step: what is committed is what runs).  Each page route answers
the same file for any id; the page reads the id from its address.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import structlog
from litestar import Request, Response, get
from litestar.connection import ASGIConnection
from litestar.exceptions import HTTPException, NotFoundException
from litestar.handlers.base import BaseRouteHandler
from litestar.params import FromPath, FromQuery
from litestar.static_files import create_static_files_router
from litestar.status_codes import (
    HTTP_400_BAD_REQUEST,
    HTTP_404_NOT_FOUND,
)
from litestar.types import ControllerRouterHandler

from muggins.client.guide import Guide, guide
from muggins.domain.streams import HandRef, NoSuchHand, NoSuchTable, hand_ref, table_stream
from muggins.domain.views import RuleLine
from muggins.replay.browser import HandReplay, hand_replay
from muggins.replay.record import HandInPlay, RecordError, StoredEvent
from muggins.replay.source import load_game
from muggins.rules.describe import (
    LANGUAGES,
    Language,
    describe,
    preset_summary,
    preset_title,
    seating_words,
)
from muggins.rules.errors import InvalidRuleset
from muggins.rules.presets import DEFAULT_PRESET, PRESETS, preset

log = structlog.get_logger(__name__)
STATIC = Path(__file__).parent / "static"
#: Pages are small and change with each release: always revalidated.
NO_CACHE = {"Cache-Control": "no-cache"}


def page(name: str) -> Response[bytes]:
    return Response((STATIC / name).read_bytes(), media_type="text/html",
                    headers=NO_CACHE)


@get("/", include_in_schema=False)
async def lobby_page() -> Response[bytes]:
    return page("lobby.html")


@get(["/play/{table_id:str}", "/watch/{table_id:str}"], include_in_schema=False)
async def table_page(table_id: FromPath[str]) -> Response[bytes]:
    return page("table.html")


@get("/replay/{table_id:str}/{hand:int}", include_in_schema=False)
async def replay_page(table_id: FromPath[str], hand: FromPath[int]) -> Response[bytes]:
    return page("replay.html")


def checked_language(lang: str) -> Language:
    """A ?lang= value, or a 400 naming the languages there are."""
    if lang not in LANGUAGES:
        raise HTTPException(status_code=HTTP_400_BAD_REQUEST,
                            detail=f"unknown language {lang[:20]!r}; choose from "
                                   f"{', '.join(LANGUAGES)}",
                            extra={"code": "unknown-language"})
    return lang


class PresetChoice(msgspec.Struct, frozen=True):
    preset: str
    #: Its name as players know it, and what it is in one sentence (in the language asked).
    title: str
    summary: str
    default: bool
    #: False when the preset does not allow this seating (``reason`` says why).
    available: bool
    reason: str | None
    rules: list[RuleLine]


@get("/presets", summary="Every preset, its rules in words, for a seating and language")
async def presets(
    seats: FromQuery[int] = 2, partnerships: FromQuery[bool] = False,
    lang: FromQuery[str] = "en",
) -> list[PresetChoice]:
    language = checked_language(lang)
    if not 2 <= seats <= 4:
        raise HTTPException(status_code=HTTP_400_BAD_REQUEST, detail="seats is 2, 3 or 4")
    choices = []
    for name in PRESETS:
        try:
            rules = preset(name, seats, partnerships)
        except InvalidRuleset:
            choices.append(PresetChoice(name, preset_title(name, language),
                                        preset_summary(name, language), name == DEFAULT_PRESET,
                                        False, seating_words(name, language), []))
            continue
        choices.append(PresetChoice(
            name, preset_title(name, language), preset_summary(name, language),
            name == DEFAULT_PRESET, True, None,
            [RuleLine(topic, text) for topic, text in describe(rules, language)],
        ))
    return choices


@get("/tables/{table_id:str}/games/{game:int}/hands/{hand:int}/replay",
     summary="A finished hand, step by step with every hand visible, and its verification")
async def replay_data(
    request: Request,  # type: ignore[type-arg]
    table_id: FromPath[str], game: FromPath[int], hand: FromPath[int],
) -> HandReplay:
    stored = await stored_game(request.app.state.runtime.infra.store,
                               hand_ref(table_id, game, hand))
    try:
        return hand_replay(stored, table_id, game, hand)
    except HandInPlay:
        raise  # the app answers it: 409 hand-not-over
    except RecordError as error:
        raise NoSuchHand(str(error)) from None


@get(["/operator", "/operator/{table_id:str}/{number:int}"], include_in_schema=False)
async def operator_page() -> Response[bytes]:
    """The operators' page (its API asks for the operator token)."""
    return page("operator.html")


@get("/guide/{name:str}", include_in_schema=False)
async def guide_page(name: FromPath[str]) -> Response[bytes]:
    return page("guide.html")


@get("/guides/{name:str}", summary="A preset's guide: rules, worked examples, tips, questions")
async def guide_data(name: FromPath[str], lang: FromQuery[str] = "en") -> Guide:
    language = checked_language(lang)
    try:
        return guide(name, language)
    except LookupError:
        raise HTTPException(status_code=HTTP_404_NOT_FOUND,
                            detail=f"there is no game {name[:40]!r}") from None


async def stored_game(store: Any, hand: HandRef) -> list[StoredEvent]:
    """The game of ``hand``, as stored: a 404 no-such-table for a table that
    was never made, no-such-game for a table without that game."""
    try:
        return list(await load_game(store, hand.game_stream))
    except RecordError:
        if not await store.stream_version(table_stream(hand.table)):
            raise NoSuchTable(f"there is no table {hand.table!r}") from None
        raise HTTPException(status_code=HTTP_404_NOT_FOUND,
                            detail=f"table {hand.table!r} has no game {hand.game}",
                            extra={"code": "no-such-game"}) from None


async def plain_file_name(connection: ASGIConnection, _: BaseRouteHandler) -> None:  # type: ignore[type-arg]
    """Static files are short plain names: anything else is not there (the
    file system would refuse a name too long with an error, not a 404).
    A coroutine: litestar runs a plain function guard in its thread pool."""
    name = connection.url.path.removeprefix("/static/")
    if len(name) > 100 or not name.isprintable() or "\\" in name:
        raise NotFoundException("no such file")


def client_routes() -> list[ControllerRouterHandler]:
    """Everything the browser client adds to the app."""
    static = create_static_files_router(path="/static", directories=[STATIC],
                                        include_in_schema=False, guards=[plain_file_name])
    return [lobby_page, table_page, replay_page, guide_page, presets, replay_data, guide_data,
            operator_page, static]
