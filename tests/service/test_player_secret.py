"""POST /players/{id}/secret: a player rotates their identity's secret
("sign out my other browsers").  The old secret stops working at once; every
refusal answers its stable code and writes nothing; it is rate-limited per
client address like table creation."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from muggins.infra.embedded import EmbeddedNats
from tests.support.service import Running, serve
from tests.support.tables import create, sit


async def an_identity(service: Running) -> dict[str, str]:
    table = await create(service, bots=[{"seat": 1}])
    granted = await sit(service, table["table_id"], 0, "Ana")
    return {"player_id": granted["player_id"], "secret": granted["player_secret"]}


async def sit_as(service: Running, identity: dict[str, str]) -> Any:
    table = await create(service, bots=[{"seat": 1}])
    return await service.http.post(f"/tables/{table['table_id']}/seats/0",
                                   json={"name": "Ana", "player": identity})


async def players(service: Running) -> list[tuple[str, bytes]]:
    rows = await service.infra.pool.fetch(
        "SELECT player_id::text, secret_hash FROM players ORDER BY player_id")
    return [(row[0], bytes(row[1])) for row in rows]


async def test_a_new_secret_and_the_old_one_refused_at_once(service: Running) -> None:
    identity = await an_identity(service)
    rotated = await service.http.post(f"/players/{identity['player_id']}/secret",
                                      json={"secret": identity["secret"]})
    assert rotated.status_code == 200, rotated.text
    answer = rotated.json()
    assert answer["player_id"] == identity["player_id"]
    assert answer["secret"] and answer["secret"] != identity["secret"]
    # Another browser still holding the old secret: signed out.
    old = await sit_as(service, identity)
    assert old.status_code == 403 and old.json()["code"] == "bad-token"
    again = await service.http.post(f"/players/{identity['player_id']}/secret",
                                    json={"secret": identity["secret"]})
    assert again.status_code == 403 and again.json()["code"] == "bad-token"
    # The new one is the same player.
    new = await sit_as(service, {**identity, "secret": answer["secret"]})
    assert new.status_code == 201 and new.json()["player_id"] == identity["player_id"]
    assert new.json()["player_secret"] is None


async def test_every_refusal_has_its_code_and_writes_nothing(service: Running) -> None:
    identity = await an_identity(service)
    player_id, secret = identity["player_id"], identity["secret"]
    path = f"/players/{player_id}/secret"
    refusals: list[tuple[str, Any, int, str]] = [
        # Malformed ids: no such player, before any SQL.
        ("/players/nope/secret", {"secret": secret}, 404, "no-such-player"),
        (f"/players/{player_id}x/secret", {"secret": secret}, 404, "no-such-player"),
        (f"/players/{player_id.replace('-', '')}/secret", {"secret": secret}, 404,
         "no-such-player"),
        (f"/players/{'{'}{player_id}{'}'}/secret", {"secret": secret}, 404, "no-such-player"),
        ("/players/%00/secret", {"secret": secret}, 404, "no-such-player"),
        # Wrong secrets, and an id nobody has (which ids exist is not told).
        (path, {"secret": "guess"}, 403, "bad-token"),
        (path, {"secret": secret[:-1]}, 403, "bad-token"),
        (f"/players/{uuid.uuid4()}/secret", {"secret": secret}, 403, "bad-token"),
        # Malformed bodies.
        (path, {}, 400, "bad-request"),
        (path, {"secret": ""}, 400, "bad-request"),
        (path, {"secret": 5}, 400, "bad-request"),
        (path, {"secret": None}, 400, "bad-request"),
        (path, {"secret": "x" * 129}, 400, "bad-request"),
        (path, {"secret": secret, "player_id": player_id}, 400, "bad-request"),
        (path, [secret], 400, "bad-request"),
        (path, "not json", 400, "bad-request"),
    ]
    before = await players(service)
    for target, body, status, code in refusals:
        content = body.encode() if isinstance(body, str) else None
        response = await service.http.post(
            target, content=content, json=None if content else body,
            headers={"content-type": "application/json"})
        assert (response.status_code, response.json().get("code")) == (status, code), (
            target, body, response.text)
        assert await players(service) == before, (target, body)
    # Nothing changed: the secret still works.
    assert (await sit_as(service, identity)).status_code == 201


async def test_two_rotations_at_once_one_wins(service: Running) -> None:
    identity = await an_identity(service)
    answers = await asyncio.gather(*(
        service.http.post(f"/players/{identity['player_id']}/secret",
                          json={"secret": identity["secret"]}) for _ in range(4)))
    # Each read the same stored secret; the first to write it wins, the
    # others find it changed and write nothing.
    assert sorted(answer.status_code for answer in answers) == [200, 403, 403, 403]
    winner = next(answer.json()["secret"] for answer in answers if answer.status_code == 200)
    assert (await sit_as(service, {**identity, "secret": winner})).status_code == 201


async def test_rotations_are_limited_per_address(
    database_url: str, nats_server: EmbeddedNats
) -> None:
    limit = 3
    async with serve(database_url, nats_server.url,
                     secret_rotations_per_minute=limit) as service:
        identity = await an_identity(service)
        answers = []
        for number in range(limit + 2):
            # A header naming another client each time changes nothing: no proxy is trusted.
            response = await service.http.post(
                f"/players/{identity['player_id']}/secret", json={"secret": identity["secret"]},
                headers={"X-Forwarded-For": f"203.0.113.{number}"})
            if response.status_code == 200:
                identity["secret"] = response.json()["secret"]
            answers.append((response.status_code, response.json().get("code")))
        assert answers[:limit] == [(200, None)] * limit
        assert answers[limit:] == [(429, "rate-limited")] * 2
        # Table creation counts apart.
        assert (await service.http.post("/tables", json={})).status_code == 201
