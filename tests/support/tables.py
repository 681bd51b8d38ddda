"""Tables through the real service's API, for the tests under tests/service/,
tests/browser/ and tests/replays/ that need one: create a table and take a
seat over HTTP, watch it or play against a bot over WebSocket, wait for a
seat to change hands, wait for a game to end, and verify a finished game
straight from the store."""

from __future__ import annotations

import asyncio
from typing import Any

import websockets

from muggins.domain.codec import game_event
from muggins.domain.streams import game_stream
from muggins.eventstore.store import EventStore, create_pool
from muggins.replay.record import StoredEvent
from muggins.replay.verify import verify_game
from muggins.rules.events import GameEnded
from tests.support.clients import SeatClient
from tests.support.service import Running
from tests.support.waits import eventually


async def create(service: Running, **spec: Any) -> dict[str, Any]:
    response = await service.http.post("/tables", json=spec)
    assert response.status_code == 201, response.text
    return response.json()  # type: ignore[no-any-return]


async def sit(service: Running, table_id: str, seat: int, name: str) -> dict[str, Any]:
    response = await service.http.post(f"/tables/{table_id}/seats/{seat}", json={"name": name})
    assert response.status_code == 201, response.text
    return response.json()  # type: ignore[no-any-return]


async def verify_store(database_url: str, stream: str) -> int:
    pool = await create_pool(database_url)
    try:
        recorded = await EventStore(pool).read_stream(stream)
    finally:
        await pool.close()
    verdict = verify_game([StoredEvent(r.stream_version, game_event(r)) for r in recorded])
    assert verdict.ok, verdict.problems
    return len(verdict.hands)


async def human_vs_bot(service: Running, **spec: Any) -> tuple[str, SeatClient]:
    table = await create(service, bots=[{"seat": 1}], **spec)
    granted = await sit(service, table["table_id"], 0, "Ana")
    return table["table_id"], await SeatClient.connect(service.ws_url, table["table_id"],
                                                       granted["token"])


async def seat_is_bot(service: Running, table_id: str, seat: int, wanted: bool,
                      within: float = 10.0) -> None:
    """Wait until the API shows seat ``seat`` played by a bot (or not)."""
    deadline = asyncio.get_running_loop().time() + within
    while True:
        info = (await service.http.get(f"/tables/{table_id}")).json()
        if info["seats"][seat]["bot"] is wanted:
            return
        assert asyncio.get_running_loop().time() < deadline, info["seats"]
        await asyncio.sleep(0.1)


async def watch(service: Running, table_id: str, since: int | None = None) -> SeatClient:
    query = f"?since={since}" if since is not None else ""
    ws = await websockets.connect(f"{service.ws_url}/tables/{table_id}/watch{query}")
    spectator = SeatClient(ws, -1)
    welcome = await spectator.receive()
    assert welcome["type"] == "welcome" and welcome["seat"] is None
    return spectator


async def game_finished(service: Running, table_id: str, within: float = 90) -> None:
    """Wait for the table's game 1 to end."""

    async def ended() -> bool:
        recorded = await service.infra.store.read_stream(game_stream(table_id, 1))
        return bool(recorded) and isinstance(game_event(recorded[-1]), GameEnded)

    await eventually(ended, within=within, every=0.2,
                     what=f"the end of table {table_id}'s game 1")
