"""The expert bot at a table: it thinks in a worker process, plays whole
games through the service, and takes over a person's seat."""

from __future__ import annotations

from muggins.domain.streams import game_stream
from tests.support.service import Running
from tests.support.tables import create, game_finished, sit, verify_store


async def test_an_expert_seat_plays_a_whole_game_against_greedy(
    service: Running, database_url: str
) -> None:
    table = await create(service, overrides={"target": 100},
                         bots=[{"seat": 0, "level": "expert"}, {"seat": 1, "level": "greedy"}])
    table_id = table["table_id"]
    assert table["seats"][0]["bot_level"] == "expert"
    await game_finished(service, table_id)
    await verify_store(database_url, game_stream(table_id, 1))
    recorded = await service.infra.store.read_stream(game_stream(table_id, 1))
    assert {r.actor for r in recorded} >= {"bot:0", "bot:1"}


async def test_a_partnership_of_experts_under_the_muggins_rule(
    service: Running, database_url: str
) -> None:
    table = await create(service, preset="classic-muggins", seats=4, partnerships=True,
                         overrides={"target": 60}, bot_budget_ms=15,
                         bots=[{"seat": s, "level": "expert" if s % 2 == 0 else "random"}
                               for s in range(4)])
    table_id = table["table_id"]
    await game_finished(service, table_id, within=120)
    await verify_store(database_url, game_stream(table_id, 1))


async def test_the_expert_takes_over_a_seat_whose_clock_ran_out(
    service: Running, database_url: str
) -> None:
    table = await create(service, overrides={"target": 60}, turn_clock_seconds=1,
                         bots=[{"seat": 1, "level": "greedy"}])
    table_id = table["table_id"]
    await sit(service, table_id, 0, "Gone")  # and never plays
    await game_finished(service, table_id)
    await verify_store(database_url, game_stream(table_id, 1))
    seating = (await service.http.get(f"/tables/{table_id}/seating")).json()
    assert any(entry["event"]["type"] == "BotTookOver" for entry in seating)


async def test_hints_on_a_casual_table_only_and_never_rated(service: Running) -> None:
    from muggins.projections.leaderboard import is_rated
    from muggins.rules.presets import preset
    from tests.support.clients import SeatClient

    assert not is_rated(preset("playelephant", 2, False, hints=True))
    for hints in (True, False):
        table = await create(service, bots=[{"seat": 1}], overrides={"hints": hints})
        granted = await sit(service, table["table_id"], 0, "Ana")
        ana = await SeatClient.connect(service.ws_url, table["table_id"], granted["token"])
        while not ana.my_turn():
            await ana.receive()
        await ana.send({"type": "hint"})
        answer = await ana.until(lambda m: m["type"] in ("hint", "error"), timeout=30)
        if not hints:
            assert answer["type"] == "error" and answer["code"] == "hints-off"
            await ana.close()
            continue
        assert answer["type"] == "hint", answer
        assert answer["version"] == ana.version
        assert view_has(ana, answer["tile"], answer["end"])
        rules = (await service.http.get(f"/tables/{table['table_id']}")).json()["rules"]
        assert rules[-1]["topic"] == "Hints"
        await ana.close()


def view_has(player: object, tile: list[int], end: int | None) -> bool:
    view = getattr(player, "view", None) or {}
    return any(p["tile"] == tile and p["end"] == end for p in view.get("legal", []))
