"""The table chat: everyone seated and watching reads it; it is limited,
stored in the table's chat stream, and can be turned off per table."""

from __future__ import annotations

from typing import Any

from muggins.domain.chat import CHAT_MAX
from muggins.domain.streams import chat_stream
from tests.support.clients import SeatClient
from tests.support.service import Running
from tests.support.tables import create, sit, watch


async def two_players(service: Running, **spec: Any) -> tuple[str, SeatClient, SeatClient]:
    table = await create(service, **spec)
    table_id = table["table_id"]
    ana = await sit(service, table_id, 0, "Ana")
    bea = await sit(service, table_id, 1, "Bea")
    return (table_id, await SeatClient.connect(service.ws_url, table_id, ana["token"]),
            await SeatClient.connect(service.ws_url, table_id, bea["token"]))


async def next_chat(reader: SeatClient, timeout: float = 10) -> dict[str, Any]:
    return await reader.until(lambda m: m["type"] == "chat", timeout)


async def test_a_line_reaches_both_players_and_a_spectator_and_is_kept(service: Running) -> None:
    table_id, ana, bea = await two_players(service)
    spectator = await watch(service, table_id)
    await ana.send({"type": "chat", "text": "  hola\u202e  mesa\x07 "})
    for reader in (ana, bea, spectator):
        line = await next_chat(reader)
        assert (line["name"], line["seat"], line["text"]) == ("Ana", 0, "hola mesa")
    await spectator.send({"type": "chat", "phrase": "gg", "name": "Carla"})
    for reader in (ana, bea):
        line = await next_chat(reader)
        assert (line["name"], line["seat"], line["phrase"]) == ("Carla", None, "gg")
    # Stored: a reader who comes later gets the lines said before.
    late = await watch(service, table_id)
    try:
        said = [await next_chat(late), await next_chat(late)]
    except TimeoutError:
        raise AssertionError(late.messages) from None
    assert [s["id"] for s in said] == [1, 2]
    stored = await service.infra.store.read_stream(chat_stream(table_id))
    assert [r.event_type for r in stored] == ["ChatSaid", "ChatSaid"]
    await spectator.close()
    await late.close()


async def test_too_fast_too_long_or_empty_is_refused_and_changes_nothing(
    service: Running,
) -> None:
    table_id, ana, _ = await two_players(service)
    for message, code in (({"text": "x" * (CHAT_MAX + 1)}, "chat-too-long"),
                          ({"text": " \n\t "}, "chat-empty"),
                          ({"phrase": "insult"}, "chat-phrase"),
                          ({}, "chat-empty")):
        await ana.send({"type": "chat", **message})
        error = await ana.until(lambda m: m["type"] in ("error", "chat"))
        assert error["type"] == "error" and error["code"] == code, error
    codes: list[str] = []
    for n in range(8):
        await ana.send({"type": "chat", "text": f"line {n}"})
    while len(codes) < 8:
        message = await ana.until(lambda m: m["type"] in ("error", "chat"))
        codes.append(message["type"] if message["type"] == "chat" else message["code"])
    assert codes.count("chat") == 4 and codes.count("chat-rate-limited") == 4, codes
    stored = await service.infra.store.read_stream(chat_stream(table_id))
    assert len(stored) == 4
    # The game itself goes on: the socket was not closed for chatting too much.
    await ana.send({"type": "ping"})
    assert (await ana.until(lambda m: m["type"] == "pong"))["type"] == "pong"


async def test_a_table_without_chat_refuses_every_line(service: Running) -> None:
    table_id, ana, _ = await two_players(service, chat=False)
    info = (await service.http.get(f"/tables/{table_id}")).json()
    assert info["chat"] is False
    await ana.send({"type": "chat", "phrase": "hi"})
    error = await ana.until(lambda m: m["type"] == "error")
    assert error["code"] == "chat-off"
    spectator = await watch(service, table_id)
    await spectator.send({"type": "chat", "text": "hello", "name": "x"})
    error = await spectator.until(lambda m: m["type"] == "error")
    assert error["code"] == "chat-off"
    assert await service.infra.store.read_stream(chat_stream(table_id)) == []
    await spectator.close()
