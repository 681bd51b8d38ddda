"""GET /tables/{id}/games/{game}/ratings: what an ended game did to its
players' ratings, for the game-over screen (issue #25 item 6), on the real
servers.  The leaderboard projector folds a game a moment after it ends:
until then the answer is "updating", never a number it does not have."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.support.clients import SeatClient
from tests.support.service import Running
from tests.support.tables import create, sit


async def ratings(service: Running, table_id: str, game: int = 1) -> dict[str, Any]:
    response = await service.http.get(f"/tables/{table_id}/games/{game}/ratings")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def folded(service: Running, table_id: str) -> tuple[list[str], dict[str, Any]]:
    """Every status seen until the answer settles, and the settled answer."""
    seen: list[str] = []
    for _ in range(300):
        body = await ratings(service, table_id)
        seen.append(body["status"])
        if body["status"] != "updating":
            return seen, body
        assert body["changes"] == []  # no number before the leaderboard has one
        await asyncio.sleep(0.05)
    raise AssertionError(f"still updating: {seen[-3:]}")


async def played_to_the_end(service: Running, **spec: Any) -> tuple[str, dict[str, Any]]:
    table = await create(service, bots=[{"seat": 1}], **spec)
    granted = await sit(service, table["table_id"], 0, "Ana")
    player = await SeatClient.connect(service.ws_url, table["table_id"], granted["token"])
    await player.play_until_game_over(timeout=120)
    await player.close()
    return table["table_id"], granted


async def test_a_rated_game_gives_each_players_rating_before_and_after(service: Running) -> None:
    table_id, granted = await played_to_the_end(service, preset="block")
    seen, body = await folded(service, table_id)
    assert set(seen) <= {"updating", "rated"}, seen
    assert body["status"] == "rated" and body["table_id"] == table_id and body["game"] == 1
    by_seat = {change["seat"]: change for change in body["changes"]}
    assert set(by_seat) == {0, 1}
    ana, bot = by_seat[0], by_seat[1]
    assert (ana["player_id"], ana["name"], ana["bot"]) == (granted["player_id"], "Ana", False)
    assert bot["player_id"] == "bot:medium" and bot["bot"]
    assert ana["before"] != ana["after"] and bot["before"] != bot["after"]
    # The same numbers as the leaderboard's (after: the rating it now shows).
    board = (await service.http.get("/leaderboard", params={"preset": "block"})).json()
    line = next(p for p in board["players"] if p["player_id"] == granted["player_id"])
    assert round(line["rating"], 3) == round(ana["after"], 3)
    # Asked again: the same answer (a game is folded once).
    assert await ratings(service, table_id) == body


async def test_a_custom_game_is_unrated(service: Running) -> None:
    table_id, _ = await played_to_the_end(service, preset="block", overrides={"target": 30})
    body = await ratings(service, table_id)
    assert body == {"table_id": table_id, "game": 1, "status": "unrated", "changes": []}


async def test_refusals_are_stable_4xx_codes(service: Running) -> None:
    table = await create(service, bots=[{"seat": 1}])
    await sit(service, table["table_id"], 0, "Ana")
    table_id = table["table_id"]
    for path, status, code in [
        ("/tables/nosuchtable1/games/1/ratings", 404, "no-such-table"),
        ("/tables/x!/games/1/ratings", 404, "no-such-table"),
        (f"/tables/{table_id}/games/0/ratings", 404, "no-such-game"),
        (f"/tables/{table_id}/games/7/ratings", 404, "no-such-game"),
        (f"/tables/{table_id}/games/99999999999/ratings", 404, "no-such-game"),
        (f"/tables/{table_id}/games/1/ratings", 409, "game-not-over"),
    ]:
        response = await service.http.get(path)
        assert (response.status_code, response.json().get("code")) == (status, code), (
            path, response.text)
    response = await service.http.get(f"/tables/{table_id}/games/one/ratings")
    assert 400 <= response.status_code < 500, response.text
