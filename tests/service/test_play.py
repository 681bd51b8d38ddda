"""Whole games through the real service: HTTP to sit, WebSocket to play."""

from __future__ import annotations

import asyncio

from tests.support.clients import SeatClient
from tests.support.service import Running
from tests.support.tables import create, sit, verify_store


async def test_a_person_plays_a_whole_game_against_a_bot(
    service: Running, database_url: str
) -> None:
    table = await create(service, preset="playelephant", seats=2,
                         bots=[{"seat": 1, "level": "greedy"}])
    assert table["status"] == "waiting" and table["seats"][1]["bot"] is True
    assert table["share_link"].endswith(f"/play/{table['table_id']}")
    assert table["spectator_link"].endswith(f"/watch/{table['table_id']}")
    assert any(line["topic"] == "Scoring" for line in table["rules"])
    granted = await sit(service, table["table_id"], 0, "Ana")
    player = await SeatClient.connect(service.ws_url, table["table_id"], granted["token"])
    await player.play_until_game_over()
    assert player.view is not None and player.view["winner_side"] in (0, 1)
    assert not player.errors, player.errors
    hands = await verify_store(database_url, f"{table['table_id']}-g1")
    assert hands >= 1
    info = (await service.http.get(f"/tables/{table['table_id']}")).json()
    assert info["status"] == "finished"
    await player.close()


async def test_four_seats_in_partnerships(service: Running, database_url: str) -> None:
    table = await create(service, preset="playelephant", seats=4, partnerships=True,
                         bots=[{"seat": 1}, {"seat": 3, "level": "random"}])
    tokens = [(await sit(service, table["table_id"], seat, f"P{seat}"))["token"]
              for seat in (0, 2)]
    players = [await SeatClient.connect(service.ws_url, table["table_id"], token)
               for token in tokens]
    await asyncio.gather(*(p.play_until_game_over(90) for p in players))
    for p in players:
        assert not p.errors, p.errors
    await verify_store(database_url, f"{table['table_id']}-g1")
