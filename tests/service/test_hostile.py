"""A hostile client against the running service on the real servers: no
input answers 500, a refusal writes nothing, floods are throttled and then
cut off, quotas hold, and the leaderboard cannot be farmed."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any
from urllib.parse import quote

import pytest
import websockets
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from muggins.infra.embedded import EmbeddedNats
from tests.support.clients import SeatClient, unpacked
from tests.support.service import Running, serve
from tests.support.tables import create, sit
from tests.support.waits import eventually

#: What the database holds that a refusal must not change.
COUNTED = ("events", "players", "seat_tokens", "due", "presence", "hints", "hand_analyses")

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-2**70, max_value=2**70)
    | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner,
                                                                 max_size=4),
    max_leaves=12,
)
#: Ids: real-looking, and every kind of wrong.
ids = st.one_of(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyzABC0123456789", min_size=1, max_size=40),
    st.text(min_size=1, max_size=60),
    st.sampled_from(["..", "a b", "a\tb", "x" * 4200, "*", ">", "a.b", "-g1", "abc-table"]),
)
create_bodies = st.one_of(
    st.fixed_dictionaries({}, optional={
        "preset": st.one_of(st.text(max_size=50), st.sampled_from(
            ["playelephant", "muggins", "block", "draw", "five-up"]), json_values),
        "seats": st.one_of(st.integers(-5, 10), st.text(max_size=3), json_values),
        "partnerships": st.one_of(st.booleans(), st.sampled_from(["false", "true", 0, 1])),
        "overrides": st.one_of(
            st.dictionaries(st.sampled_from(["target", "max_pip", "seats", "name", "preset",
                                             "partnerships", "tiles_per_seat", "muggins_rule",
                                             "nonsense"]), json_values, max_size=3),
            json_values),
        "bots": st.one_of(st.lists(st.fixed_dictionaries(
            {"seat": st.integers(-2, 6)}, optional={"level": st.text(max_size=8)}), max_size=5),
            json_values),
        "turn_clock_seconds": st.one_of(st.integers(-10, 10_000), json_values),
    }),
    json_values,
)
seat_bodies = st.one_of(
    st.fixed_dictionaries({"name": st.one_of(st.text(max_size=60), json_values)}, optional={
        "player": st.one_of(json_values, st.fixed_dictionaries(
            {"player_id": st.text(max_size=70), "secret": st.text(max_size=140)}))}),
    json_values,
)
rotate_bodies = st.one_of(
    st.fixed_dictionaries({"secret": st.one_of(st.text(max_size=140), json_values)},
                          optional={"player_id": json_values}),
    json_values,
)
queries = st.dictionaries(st.sampled_from(["limit", "page", "per_page", "preset", "lang",
                                           "since"]),
                          st.one_of(st.integers(-2**70, 2**70).map(str), st.text(max_size=30)),
                          max_size=3)


#: Every count in one query: the fuzz reads them after each of its 1,200
#: requests, and seven round trips each were a fifth of its time.
COUNTS_QUERY = "SELECT " + ", ".join(f"(SELECT count(*) FROM {name}) AS {name}" for name in COUNTED)


async def counts(service: Running) -> dict[str, int]:
    row = await service.infra.pool.fetchrow(COUNTS_QUERY)
    assert row is not None
    return {name: row[name] for name in COUNTED}


async def settled(service: Running) -> dict[str, int]:
    """The counts once the service's own work after a request is done (a seat
    taken begins a game, and the scheduler deals it a moment after the
    answer): a refusal is then judged on what the request alone wrote.
    Settled is three readings alike, 0.1 s apart: a deal that lands later
    than one reading would otherwise be blamed on the next request."""
    last = await counts(service)
    alike = 1
    for _ in range(50):
        await asyncio.sleep(0.1)
        now = await counts(service)
        alike = alike + 1 if now == last else 1
        if alike == 3:
            return now
        last = now
    raise AssertionError(f"the service kept writing after a request: {last}")


@pytest.mark.slow
async def test_no_request_answers_500_and_a_refusal_writes_nothing(
    database_url: str, nats_server: EmbeddedNats, caplog: pytest.LogCaptureFixture
) -> None:
    # Nothing moves on its own while the fuzz runs (a few minutes at most):
    # bots that never move, and the turn clock, the grace and the absence wait
    # at their longest (a seated person's 30 s turn clock once ran out
    # mid-fuzz, and its takeover was counted against a refusal).
    async with serve(database_url, nats_server.url, bot_delay=3600, turn_clock_seconds=600,
                     grace_period=3600, absence_wait=24 * 3600,
                     idle_close=7 * 24 * 3600) as service:
        await fuzz_every_route(service, caplog)


async def fuzz_every_route(service: Running, caplog: pytest.LogCaptureFixture) -> None:
    table = await create(service, bots=[{"seat": 1}])
    real = table["table_id"]
    loop = asyncio.get_running_loop()
    requests: list[tuple[str, str, Any, dict[str, str]]] = []

    @settings(max_examples=1200, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def generate(data: st.DataObject) -> None:
        # Percent-encoded: the server gets every character as it is (NUL, CR ...).
        table_id = quote(data.draw(st.one_of(ids, st.just(real))), safe="")
        route = data.draw(st.sampled_from(
            ["create", "seat", "get", "view", "seating", "lobby", "leaderboard", "replay",
             "analysis", "events", "presets", "page", "replay-page", "static", "health",
             "rotate"]))
        query = data.draw(queries)
        if route == "rotate":
            player_id = quote(data.draw(st.one_of(ids, st.uuids().map(str))), safe="")
            requests.append(("POST", f"/players/{player_id}/secret",
                             data.draw(rotate_bodies), query))
        elif route == "create":
            requests.append(("POST", "/tables", data.draw(create_bodies), query))
        elif route == "seat":
            seat = data.draw(st.one_of(st.integers(-3, 8), st.integers(2**40, 2**80)))
            requests.append(("POST", f"/tables/{table_id}/seats/{seat}",
                             data.draw(seat_bodies), query))
        elif route in ("replay", "analysis"):
            game, hand = data.draw(st.integers(-2, 2**70)), data.draw(st.integers(-2, 2**70))
            requests.append(("GET", f"/tables/{table_id}/games/{game}/hands/{hand}/{route}",
                             None, query))
        elif route == "events":  # a real table's stream never ends: other ids only
            wrong = quote(data.draw(ids.filter(lambda i: i != real)), safe="")
            requests.append(("GET", f"/tables/{wrong}/events", None, query))
        else:
            hand = data.draw(st.integers(-2, 2**70))
            path = {"get": f"/tables/{table_id}", "view": f"/tables/{table_id}/view",
                    "seating": f"/tables/{table_id}/seating", "lobby": "/lobby",
                    "leaderboard": "/leaderboard", "presets": "/presets",
                    "page": data.draw(st.sampled_from([f"/play/{table_id}",
                                                       f"/watch/{table_id}", "/"])),
                    "replay-page": f"/replay/{table_id}/{hand}",
                    "static": f"/static/{table_id}",
                    "health": data.draw(st.sampled_from(["/healthz", "/readyz", "/metrics",
                                                         "/schema/openapi.json"]))}[route]
            requests.append(("GET", path, None, query))

    generate()
    assert len(requests) >= 1000
    caplog.set_level(logging.ERROR)
    before = await settled(service)
    for method, path, body, query in requests:
        response = await service.http.request(
            method, path, params=query,
            content=None if body is None else json.dumps(body).encode(),
            headers={"content-type": "application/json"})
        assert response.status_code < 500, (method, path, body, response.text)
        if response.status_code >= 400:
            assert await counts(service) == before, (method, path, body, response.text)
            if response.headers.get("content-type", "").startswith("application/json"):
                assert response.json().get("code"), response.text
        elif method == "GET":
            # A reading writes nothing (so it needs no settling: waiting a
            # tenth of a second after each of the fuzz's readings was most of
            # its minute).
            assert await counts(service) == before, (method, path, query, response.text)
        else:
            before = await settled(service)
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]
    del loop


async def test_no_websocket_message_breaks_a_socket(
    service: Running, caplog: pytest.LogCaptureFixture
) -> None:
    """Every message a seat or a spectator may send, and garbage: each gets
    an answer or is a valid command; a socket is closed only for breaking
    the protocol too often (1008), never for an error of ours (1011)."""
    table = await create(service, bots=[{"seat": 1}])
    table_id = table["table_id"]
    granted = await sit(service, table_id, 0, "Fuzz")
    messages: list[Any] = []

    @settings(max_examples=300, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.one_of(
        st.fixed_dictionaries({"type": st.sampled_from(
            ["play", "muggins", "since", "rematch", "back", "hello", "hint", "chat", "ping",
             "decide", "nope"])},
            optional={"tile": json_values, "end": json_values, "claim": json_values,
                      "known_version": json_values, "version": json_values,
                      "token": json_values, "text": st.one_of(st.text(max_size=300),
                                                              json_values),
                      "phrase": json_values, "name": json_values,
                      "choice": st.one_of(st.sampled_from(["bot", "seat", "end"]),
                                          json_values)}),
        json_values))
    def generate(message: Any) -> None:
        messages.append(message)

    generate()
    caplog.set_level(logging.ERROR)
    closes: list[int] = []
    replies: list[Any] = []

    async def collect(socket: Any) -> None:
        """Every reply the socket sends, until it is closed."""
        try:
            async for frame in socket:
                replies.extend(unpacked(json.loads(frame)))
        except websockets.ConnectionClosed:
            pass
        if socket.close_code not in (None, 1000):
            closes.append(socket.close_code)

    for reader in ("play", "watch"):
        socket, collecting = None, None
        for message in messages:
            if socket is None or socket.close_code is not None:
                if collecting is not None:
                    await collecting
                socket = await websockets.connect(f"{service.ws_url}/tables/{table_id}/{reader}")
                collecting = asyncio.create_task(collect(socket))
                if reader == "play":
                    await socket.send(json.dumps({"type": "hello", "token": granted["token"]}))
            try:
                await socket.send(json.dumps(message))
                await asyncio.sleep(0.005)  # a steady flood, not a wait for anything
            except websockets.ConnectionClosed:
                pass
        assert socket is not None and collecting is not None
        await socket.close()
        await collecting
    # Closed only for breaking the protocol too often (1008), and so at least
    # once: 600 messages, most of them refused, are more than 20 refusals a minute.
    assert closes and set(closes) == {1008}, closes
    # Every reply read is well formed, each refusal with its stable code.
    refusals = [r for r in replies if r.get("type") == "error"]
    assert len(refusals) >= 20 * len(closes), (len(refusals), closes)
    for reply in replies:
        assert isinstance(reply, dict) and reply.get("type"), reply
    for refusal in refusals:
        assert refusal.get("code") and refusal.get("message"), refusal
    # The table still plays: a fresh connection gets its view.
    player = await SeatClient.connect(service.ws_url, table_id, granted["token"])
    assert player.messages[0]["type"] == "welcome"
    await player.close()
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]


async def test_an_oversized_hello_is_refused_quietly(
    service: Running, caplog: pytest.LogCaptureFixture
) -> None:
    table = await create(service, bots=[{"seat": 1}])
    caplog.set_level(logging.ERROR)
    async with websockets.connect(f"{service.ws_url}/tables/{table['table_id']}/play") as ws:
        await ws.send(json.dumps({"type": "hello", "token": "x" * 20_000}))
        reply = json.loads(await asyncio.wait_for(ws.recv(), 5))
        assert reply["code"] == "message-too-large"
        with pytest.raises(websockets.ConnectionClosed):
            await asyncio.wait_for(ws.recv(), 5)
    # Once the service has let the socket go, nothing was logged as an error.
    await eventually(lambda: not service.runtime.sessions, what="the socket let go")
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_garbage_frames_get_the_socket_closed(service: Running) -> None:
    table = await create(service, bots=[{"seat": 1}])
    granted = await sit(service, table["table_id"], 0, "Spam")
    player = await SeatClient.connect(service.ws_url, table["table_id"], granted["token"])
    with pytest.raises(websockets.ConnectionClosed) as closed:
        for _ in range(2000):
            await player.ws.send("{not json")
        for _ in range(2000):
            await player.receive(timeout=5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
    errors = [m for m in player.messages if m["type"] == "error"]
    assert 0 < len(errors) <= 25, "each bad frame got its reply, up to the limit"


async def test_a_spectator_looping_since_is_throttled_then_cut_off(service: Running) -> None:
    table = await create(service, bots=[{"seat": 0}, {"seat": 1}])
    async with websockets.connect(f"{service.ws_url}/tables/{table['table_id']}/watch",
                                  max_size=2**22) as spectator:
        received = 0
        with pytest.raises(websockets.ConnectionClosed) as closed:
            for _ in range(2000):
                await spectator.send(json.dumps({"type": "since", "version": 0}))
            while True:
                await asyncio.wait_for(spectator.recv(), 10)
                received += 1
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
        # 2,000 resends asked: a handful granted, the rest refused, then closed.
        assert received < 3000


async def test_table_creation_beyond_the_quota_is_429(
    database_url: str, nats_server: EmbeddedNats
) -> None:
    async with serve(database_url, nats_server.url, tables_per_minute=5) as service:
        answers = [(await service.http.post("/tables", json={})).status_code
                   for _ in range(7)]
        assert answers[:5] == [201] * 5 and answers[5:] == [429, 429]
        refused = await service.http.post("/tables", json={})
        assert refused.json()["code"] == "rate-limited"
        assert (await service.http.get("/lobby")).status_code == 200  # reading is not limited


async def test_a_forwarded_for_header_is_believed_from_trusted_proxies_only(
    database_url: str, nats_server: EmbeddedNats
) -> None:
    """Issue #22: a client on the service's own host named itself anew in
    X-Forwarded-For on every request and was never limited."""
    fresh = (f"203.0.113.{n}" for n in range(1, 200))
    async with serve(database_url, nats_server.url,
                     tables_per_minute=5) as service:  # trusts no proxy
        answers = [(await service.http.post("/tables", json={},
                                            headers={"X-Forwarded-For": next(fresh)})).status_code
                   for _ in range(7)]
        assert answers == [201] * 5 + [429] * 2
    async with serve(database_url, nats_server.url, tables_per_minute=5,
                     trusted_proxies="127.0.0.1") as service:
        # Each forwarded address is its own client...
        answers = [(await service.http.post("/tables", json={},
                                            headers={"X-Forwarded-For": next(fresh)})).status_code
                   for _ in range(7)]
        assert answers == [201] * 7
        # ...and one of them is limited, whatever it writes before the proxy's entry.
        answers = [(await service.http.post(
            "/tables", json={},
            headers={"X-Forwarded-For": f"{next(fresh)}, 198.51.100.1"})).status_code
            for _ in range(7)]
        assert answers == [201] * 5 + [429] * 2
        # A header that is not a list of addresses: the proxy itself is the client.
        garbage = (await service.http.post("/tables", json={},
                                           headers={"X-Forwarded-For": "<nonsense>"}))
        assert garbage.status_code == 201


async def test_sockets_per_address_are_limited(
    database_url: str, nats_server: EmbeddedNats
) -> None:
    async with serve(database_url, nats_server.url, sockets_per_address=3) as service:
        table = await create(service, bots=[{"seat": 0}, {"seat": 1}])
        url = f"{service.ws_url}/tables/{table['table_id']}/watch"
        held = [await websockets.connect(url) for _ in range(3)]
        async with websockets.connect(url) as extra:
            reply = await SeatClient(extra, -1).until(lambda m: m["type"] == "error", 5)
            assert reply["code"] == "too-many-sockets"
        events = await service.http.get(f"/tables/{table['table_id']}/events")
        assert events.status_code == 429
        for socket in held:
            await socket.close()


async def test_the_leaderboard_cannot_be_farmed(service: Running) -> None:
    # A table with a knob changed is custom: it says so, and is never rated.
    custom = await create(service, bots=[{"seat": 0}, {"seat": 1}],
                          overrides={"target": 1, "tiles_per_seat": 1})
    assert custom["preset"] == "custom"
    # Relabelling, a clash with the seating, and unknown presets are refused.
    for body in ({"overrides": {"preset": "playelephant"}}, {"overrides": {"seats": 3}},
                 {"overrides": {"name": "x"}}, {"preset": "<b>" + "x" * 30 + "</b>"},
                 {"preset": "block", "overrides": {"preset": "playelephant"}}):
        answer = await service.http.post("/tables", json=body)
        assert answer.status_code == 400, (body, answer.text)
    # The custom game is played to its end, and no board rates it.
    async def over() -> bool:
        info = (await service.http.get(f"/tables/{custom['table_id']}")).json()
        return info["status"] in ("finished", "closed")

    await eventually(over, within=30, what="the custom game's end")
    store = service.runtime.infra.store
    head = await store.head_position()

    async def projected() -> bool:  # the leaderboard's projector has seen the end
        return await store.checkpoint("projector:leaderboard") >= head

    await eventually(projected, what="the leaderboard catching up")
    board = await service.http.get("/leaderboard", params={"preset": "playelephant"})
    assert board.status_code == 200 and board.json()["total"] == 0, board.text
    # A custom table has no board to ask for.
    assert (await service.http.get("/leaderboard", params={"preset": "custom"})).status_code \
        == 400
    presets = (await service.http.get("/leaderboard")).json()["presets"]
    assert all(p["preset"] != "custom" for p in presets)


async def test_wrong_types_are_refused_not_coerced(service: Running) -> None:
    for body in ({"seats": "2"}, {"partnerships": "false"}, {"turn_clock_seconds": "30"},
                 {"bots": [{"seat": "1"}]}):
        answer = await service.http.post("/tables", json=body)
        assert answer.status_code == 400, (body, answer.text)
    table = await create(service)
    answer = await service.http.post(f"/tables/{table['table_id']}/seats/0",
                                     json={"name": 5})
    assert answer.status_code == 400


async def test_the_share_links_point_at_what_answers(service: Running) -> None:
    table = await create(service, bots=[{"seat": 1}])
    granted = await sit(service, table["table_id"], 0, "Ana")
    async with websockets.connect(granted["play_link"]) as socket:
        await socket.send(json.dumps({"type": "hello", "token": granted["token"]}))
        assert json.loads(await asyncio.wait_for(socket.recv(), 5))["type"] == "welcome"
    page = await service.http.get(table["share_link"].removeprefix(service.url))
    assert page.status_code == 200


async def test_an_address_closed_for_abuse_waits_before_it_connects_again(
    database_url: str, nats_server: EmbeddedNats
) -> None:
    async with serve(database_url, nats_server.url, penalty_seconds=3.0) as service:
        table = await create(service, bots=[{"seat": 0}, {"seat": 1}])
        url = f"{service.ws_url}/tables/{table['table_id']}/watch"
        async with websockets.connect(url) as flooder:
            with pytest.raises(websockets.ConnectionClosed):
                for _ in range(200):
                    await flooder.send("garbage")
                while True:
                    await asyncio.wait_for(flooder.recv(), 5)
        async with websockets.connect(url) as again:
            reply = json.loads(await asyncio.wait_for(again.recv(), 5))
            assert reply["code"] == "too-many-sockets"

        async def welcomed_again() -> bool:  # once the penalty (3 s) is over
            async with websockets.connect(url) as later:
                first = await SeatClient(later, -1).receive(5)
                return bool(first["type"] == "welcome")

        await eventually(welcomed_again, within=10, every=0.5,
                         what="a new socket once the penalty is over")
