"""What the browser's pages ask the API for: presets in words, a table in
Spanish, a finished hand to replay."""

from __future__ import annotations

import httpx

from muggins.tables.seating import new_table_id
from tests.support.service import Running
from tests.support.tables import create, human_vs_bot
from tests.support.waits import eventually


async def test_presets_in_words_for_a_seating_and_language(service: Running) -> None:
    english = (await service.http.get("/presets", params={"seats": 4})).json()
    assert [p["preset"] for p in english if p["default"]] == ["playelephant"]
    playelephant = next(p for p in english if p["preset"] == "playelephant")
    assert not playelephant["available"] and "partnership" in playelephant["reason"]
    spanish = (await service.http.get("/presets", params={"seats": 4, "partnerships": "true",
                                                          "lang": "es"})).json()
    playelephant = next(p for p in spanish if p["preset"] == "playelephant")
    assert playelephant["available"] and playelephant["rules"][1]["topic"] == "Jugadores"
    for params in ({"lang": "fr"}, {"seats": 9}, {"seats": "two"}):
        assert (await service.http.get("/presets", params=params)).status_code == 400


async def test_a_table_in_spanish(service: Running) -> None:
    table = await create(service, bots=[{"seat": 1}])
    info = (await service.http.get(f"/tables/{table['table_id']}", params={"lang": "es"})).json()
    assert info["rules"][0]["topic"] == "Variante"
    bad = await service.http.get(f"/tables/{table['table_id']}", params={"lang": "xx"})
    assert bad.status_code == 400


async def test_a_hand_is_replayed_only_once_it_is_over(service: Running) -> None:
    table_id, player = await human_vs_bot(service)
    path = f"/tables/{table_id}/games/1/hands/1/replay"

    async def once_dealt() -> httpx.Response | None:
        answer = await service.http.get(path)
        return None if answer.status_code == 404 else answer

    answer = await eventually(once_dealt, within=30, every=0.02, what="hand 1 dealt")
    assert answer is not None
    assert answer.status_code == 409 and "still being played" in answer.json()["detail"]
    assert answer.json()["code"] == "hand-not-over"  # the pages' words for it
    analysis_path = f"/tables/{table_id}/games/1/hands/1/analysis"
    early = await service.http.get(analysis_path)
    assert (early.status_code, early.json()["code"]) == (409, "hand-not-over")
    await player.play_until_game_over()
    # The expert's analysis: asked twice, the same (the second from memory,
    # and analyse_hand is deterministic: tests/replays/test_analysis.py).
    judged = await service.http.get(analysis_path, timeout=60)
    assert judged.status_code == 200, judged.text
    assert judged.json()["hand"] == 1 and judged.json()["decisions"]
    assert (await service.http.get(analysis_path)).json() == judged.json()
    # Each id checked, the answer's stable code naming which is not there
    # (a table never made, though its id is well formed: no-such-table).  An
    # analysis asked of a hand not there costs its asker an analysis all the
    # same (a burst of four: no more asked here than that).
    unknown_table = new_table_id()
    for bad, code, what in (
            ("/tables/nope!/games/1/hands/1", "no-such-table", ("analysis", "replay")),
            (f"/tables/{unknown_table}/games/1/hands/1", "no-such-table", ("replay",)),
            (f"/tables/{table_id}/games/9/hands/1", "no-such-game", ("analysis", "replay")),
            (f"/tables/{table_id}/games/1/hands/99", "no-such-hand", ("analysis", "replay"))):
        for end in what:
            answer = await service.http.get(f"{bad}/{end}")
            assert (answer.status_code, answer.json()["code"]) == (404, code), (bad, end)
    replay = (await service.http.get(path)).json()
    assert replay["status"] == "fair" and replay["names"][0] == "Ana"
    assert len(replay["seed"]) == 64 and replay["steps"][0]["event"]["type"] == "HandStarted"
    dealt = replay["steps"][-1]
    assert dealt["event"]["type"] in ("HandEnded", "GameEnded")
    first_play = next(i for i, step in enumerate(replay["steps"])
                      if step["event"]["type"] == "TilePlayed")
    dealt_hands = replay["steps"][first_play - 1]["hands"]
    assert [len(hand) for hand in dealt_hands] == [7, 7]  # every hand is shown
    await player.close()
