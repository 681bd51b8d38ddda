"""GET /leaderboard: the leaderboard projector's board, per preset, in pages."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.support.clients import SeatClient
from tests.support.service import Running
from tests.support.tables import create, sit


async def board_when(service: Running, ready: Any, **params: Any) -> dict[str, Any]:
    for _ in range(300):  # the projector follows the games in this process
        response = await service.http.get("/leaderboard", params=params)
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        if ready(body):
            return body
        await asyncio.sleep(0.05)
    raise AssertionError(f"the board never got there: {body}")


async def test_finished_games_reach_the_board_with_bots_marked(service: Running) -> None:
    await create(service, bots=[{"seat": 0}, {"seat": 1, "level": "random"}])
    table = await create(service, preset="block", bots=[{"seat": 1}])
    granted = await sit(service, table["table_id"], 0, "Ana")
    player = await SeatClient.connect(service.ws_url, table["table_id"], granted["token"])
    await player.play_until_game_over()
    await player.close()
    bots = await board_when(service, lambda b: b["total"] == 2)
    assert bots["preset"] == "playelephant"
    assert {line["player_id"] for line in bots["players"]} == {"bot:medium", "bot:random"}
    assert all(line["bot"] and line["games"] == 1 for line in bots["players"])
    assert [line["rank"] for line in bots["players"]] == [1, 2]
    assert bots["players"][0]["rating"] >= bots["players"][1]["rating"]
    block = await board_when(service, lambda b: b["total"] == 2, preset="block")
    ana = next(line for line in block["players"] if not line["bot"])
    assert ana["player_id"] == granted["player_id"] and ana["name"] == "Ana"
    assert ana["hands"] >= 1 and ana["points_per_hand"] >= 0 and ana["best_play"] % 5 == 0
    assert {(b["preset"], b["players"]) for b in block["presets"]} == {
        ("block", 2), ("playelephant", 2)}
    # Pages: one line each, in rank order.
    second = (await service.http.get("/leaderboard", params={"preset": "block", "page": 2,
                                                             "per_page": 1})).json()
    assert [line["rank"] for line in second["players"]] == [2]
    beyond = (await service.http.get("/leaderboard", params={"page": 9})).json()
    assert beyond["players"] == [] and beyond["total"] == 2


async def test_bad_leaderboard_requests_are_clear_400s(service: Running) -> None:
    for params in ({"preset": "chess"}, {"page": 0}, {"per_page": 1000}, {"page": "x"}):
        response = await service.http.get("/leaderboard", params=params)
        assert response.status_code == 400, (params, response.text)
