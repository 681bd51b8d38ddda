"""The level ladder through the service: a table takes the ladder's names
(the searching ones think in the bots' workers) and shows them on its seats;
an unknown level is refused with 400 and writes nothing."""

from __future__ import annotations

from muggins.bots.ladder import LADDER
from muggins.domain.streams import game_stream
from tests.support.service import Running
from tests.support.tables import create, game_finished, verify_store


async def test_a_table_of_the_ladders_levels_plays_to_the_end(
    service: Running, database_url: str
) -> None:
    table = await create(service, seats=4, partnerships=True, overrides={"target": 50},
                         bot_budget_ms=15,
                         bots=[{"seat": seat, "level": level} for seat, level in enumerate(LADDER)])
    assert [s["bot_level"] for s in table["seats"]] == list(LADDER)
    await game_finished(service, table["table_id"], within=120)
    await verify_store(database_url, game_stream(table["table_id"], 1))


async def test_a_bot_without_a_level_is_medium(service: Running) -> None:
    table = await create(service, bots=[{"seat": 1}])
    assert table["seats"][1]["bot_level"] == "medium"


async def test_an_unknown_level_is_refused_and_writes_nothing(service: Running) -> None:
    async def stored() -> int:
        return await service.infra.pool.fetchval("SELECT count(*) FROM events")  # type: ignore[no-any-return]

    before = await stored()
    for level in ("grandmaster", "Expert", "", 3):
        answer = await service.http.post("/tables", json={
            "bots": [{"seat": 1, "level": level}]})
        assert answer.status_code == 400, answer.text
        assert answer.json()["code"] == "bad-request"
        # Refused by the schema, as every body that does not match it: the
        # stable code, and where the body went wrong.
        assert [problem["key"] for problem in answer.json()["extra"]] == ["bots[0].level"]
    assert await stored() == before
