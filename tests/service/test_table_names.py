"""What people read for a table (issue #25, items 7 and 8): its name ("Ana's
table", or words drawn from its id, never the id) and the game it plays ("All
Fives · casual"), the same on every answer that carries them, in the language
asked; refusals of a language we do not speak."""

from __future__ import annotations

from typing import Any

from muggins.infra.embedded import EmbeddedNats
from muggins.tables.names import table_name
from tests.support.service import Running, serve
from tests.support.tables import create, sit
from tests.support.waits import eventually


async def lobby(service: Running, lang: str = "en") -> dict[str, Any]:
    answer = await service.http.get("/lobby", params={"lang": lang, "limit": 200})
    assert answer.status_code == 200, answer.text
    return answer.json()  # type: ignore[no-any-return]


def listed(page: dict[str, Any], table_id: str, part: str = "open") -> dict[str, Any] | None:
    return next((t for t in page[part] if t["table_id"] == table_id), None)


def test_a_name_from_the_id_is_words_and_stays_the_same() -> None:
    names = {table_name(f"table{n:04d}", None) for n in range(200)}
    assert len(names) > 100  # far from one name for every table
    for table_id in ("lLjNCd5fKNEh", "abcd1234WXYZ"):
        english, spanish = table_name(table_id, None), table_name(table_id, None, "es")
        assert english == table_name(table_id, None) and english.endswith(" table")
        assert spanish.startswith("Mesa de") and table_id not in english + spanish
    assert table_name("lLjNCd5fKNEh", "Ana") == "Ana's table"
    assert table_name("lLjNCd5fKNEh", "Ana", "es") == "Mesa de Ana"


def test_a_guests_table_is_named_in_the_readers_language() -> None:
    """A guest who typed no name sat as "Guest 417" or "Invitado 417" (the
    words of their page): the number is the name, read in each language."""
    for sat_as in ("Guest 417", "Invitado 417"):
        assert table_name("lLjNCd5fKNEh", sat_as) == "Guest 417's table"
        assert table_name("lLjNCd5fKNEh", sat_as, "es") == "Mesa de Invitado 417"
    # A name that only starts like a guest's is a name as typed.
    assert table_name("lLjNCd5fKNEh", "Guest 417 Ana", "es") == "Mesa de Guest 417 Ana"


async def test_a_table_is_named_for_the_first_person_who_sat(service: Running) -> None:
    table = await create(service, seats=4, partnerships=True, bots=[{"seat": 1}])
    table_id = table["table_id"]
    assert table["name"] == table_name(table_id, None) and table_id not in table["name"]
    assert table["title"] == "All Fives"
    await sit(service, table_id, 2, "Ana")
    await sit(service, table_id, 0, "Bea")  # a lower seat later: still Ana's table
    english = (await service.http.get(f"/tables/{table_id}")).json()
    spanish = (await service.http.get(f"/tables/{table_id}", params={"lang": "es"})).json()
    assert english["name"] == "Ana's table" and spanish["name"] == "Mesa de Ana"
    assert spanish["title"] == "Dominó a cincos"

    async def in_the_lobby() -> dict[str, Any] | None:
        shown = listed(await lobby(service, "es"), table_id)
        # Both sittings projected (the projector may show Ana's before Bea's).
        return shown if shown and shown["free_seats"] == 1 else None

    shown = await eventually(in_the_lobby, what="the lobby showing both sittings")
    assert shown["name"] == "Mesa de Ana" and shown["title"] == "Dominó a cincos"


async def test_a_casual_table_keeps_its_presets_name(service: Running) -> None:
    casual = await create(service, bots=[{"seat": 1}], overrides={"hints": True})
    assert casual["preset"] == "custom"  # never rated, as before
    assert casual["title"] == "All Fives · casual"
    spanish = (await service.http.get(f"/tables/{casual['table_id']}",
                                      params={"lang": "es"})).json()
    assert spanish["title"] == "Dominó a cincos · amistosa"
    changed = await create(service, preset="sniff", bots=[{"seat": 1}],
                           overrides={"hints": True, "target": 100})
    assert changed["title"] == "Sniff (Muggins with a spinner) · casual · custom rules"
    plain = await create(service, preset="block", bots=[{"seat": 1}])
    assert plain["title"] == "Block dominoes"

    async def in_the_lobby() -> dict[str, Any] | None:
        return listed(await lobby(service), casual["table_id"])

    shown = await eventually(in_the_lobby, what="the casual table in the lobby")
    assert shown["title"] == "All Fives · casual"


async def test_games_being_played_carry_their_names(
    database_url: str, nats_server: EmbeddedNats
) -> None:
    # Bots that take their time: without a pause, two bots may end their
    # game before a busy machine's lobby has shown it being played (seen
    # under four workers on two cores).
    async with serve(database_url, nats_server.url, bot_delay=1.0) as service:
        table = await create(service, bots=[{"seat": 0}, {"seat": 1, "level": "random"}])

        async def playing() -> dict[str, Any] | None:
            return listed(await lobby(service, "es"), table["table_id"], "playing")

        shown = await eventually(playing, what="the bots' game among those being played")
        assert shown["name"] == table_name(table["table_id"], None, "es")
        assert shown["title"] == "Dominó a cincos"


async def test_a_language_we_do_not_speak_is_refused_and_changes_nothing(
    service: Running,
) -> None:
    before = (await lobby(service))["open_total"]
    for answer in (
        await service.http.get("/lobby", params={"lang": "xx"}),
        await service.http.post("/tables", params={"lang": "fr"}, json={"bots": [{"seat": 1}]}),
        await service.http.get("/presets", params={"lang": "x" * 5000}),
    ):
        assert answer.status_code == 400, answer.text
        assert answer.json()["code"] == "unknown-language"
    assert (await lobby(service))["open_total"] == before
