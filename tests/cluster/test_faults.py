"""The local cluster broken on purpose while games run through HAProxy: a
NATS node killed, a service replica killed (with a browser at one of its
tables), PostgreSQL restarted, a rolling restart.  After each, every game
ends, verifies, holds each confirmed play exactly once, and no table was
silent for long (tests/cluster/play.py)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
import time
import urllib.request

import pytest
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy
from nats.js.errors import ServiceUnavailableError
from playwright.async_api import Page, async_playwright

from muggins.bus import RELAY_READER
from muggins.bus.jetstream import STREAM_NAME, connect, messages_for
from muggins.cluster.local import Instance, LocalCluster
from muggins.domain.codec import public_payload
from muggins.eventstore.store import EventStore
from tests.cluster.play import SCENARIO, no_unhandled_errors, play_through
from tests.support.browser import CHROMIUM_FLAGS, Pages, chromium_path
from tests.support.clients import loopback_http
from tests.support.pages import create_from_lobby, play_a_move
from tests.support.pages import sit as sit_in_the_page
from tests.support.scripted_players import ScriptedHuman, create_table, human_table, sit
from tests.support.waits import eventually

#: One worker starts the local cluster once for all of these (a session fixture).
pytestmark = pytest.mark.xdist_group("cluster")


def _stream_state(node: Instance) -> tuple[int, str | None]:
    """(last sequence, leader) of the stream as ``node`` holds it."""
    url = f"http://127.0.0.1:{node.monitor_port}/jsz?streams=true"
    with urllib.request.urlopen(url, timeout=2) as response:
        report = json.load(response)
    for account in report.get("account_details", []):
        for stream in account.get("stream_detail", []):
            if stream["name"] == STREAM_NAME:
                return int(stream["state"]["last_seq"]), stream.get("cluster", {}).get("leader")
    return 0, None


async def _bus_copies(cluster: LocalCluster, first_sequence: int) -> dict[str, int]:
    """How many times each message id is in the stream from ``first_sequence`` on."""
    client = await connect(cluster.nats_url)
    try:
        js = client.jetstream()
        info = await js.stream_info(STREAM_NAME)
        last = info.state.last_seq
        subscription = await js.pull_subscribe(
            ">", stream=STREAM_NAME,
            config=ConsumerConfig(deliver_policy=DeliverPolicy.BY_START_SEQUENCE,
                                  opt_start_seq=first_sequence,
                                  ack_policy=AckPolicy.NONE))
        copies: dict[str, int] = {}
        seen = first_sequence - 1
        deadline = time.monotonic() + 60
        while seen < last:
            try:
                fetched = await subscription.fetch(1000, timeout=5)
            except ServiceUnavailableError:
                # A node just back: the new consumer's replicas are still
                # electing a leader (seen once as a 503 right after the kill).
                assert time.monotonic() < deadline, "the stream stayed unavailable"
                await asyncio.sleep(0.5)
                continue
            for message in fetched:
                seen = message.metadata.sequence.stream
                message_id = (message.headers or {}).get("Nats-Msg-Id", "")
                copies[message_id] = copies.get(message_id, 0) + 1
        await subscription.unsubscribe()
        return copies
    finally:
        await client.drain()


async def test_a_nats_node_killed_under_play_loses_and_doubles_nothing(
    cluster: LocalCluster, cluster_store: EventStore
) -> None:
    nodes = cluster.instances("nats")
    first_sequence = _stream_state(nodes[0])[0] + 1
    start_position = await cluster_store.head_position()
    victim_name = ""

    async def kill_the_stream_leader() -> str:
        nonlocal victim_name
        leader = _stream_state(nodes[0])[1] or nodes[0].name
        victim_name = leader
        await asyncio.to_thread(cluster.kill, leader)
        await asyncio.sleep(5)  # games go on with two of three
        await asyncio.to_thread(cluster.start, leader)
        return f"after NATS node {leader} (the stream's leader) was SIGKILLed for 5 s"

    await play_through(cluster, cluster_store, kill_the_stream_leader)

    # The node that came back caught up with the others.
    victim = cluster.instance(victim_name)
    others = [node for node in nodes if node.name != victim_name]
    deadline = time.monotonic() + 30
    while True:
        expected = max(_stream_state(node)[0] for node in others)
        if _stream_state(victim)[0] == expected or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.5)
    assert _stream_state(victim)[0] == expected, f"{victim_name} did not catch up"

    # Every event stored since the start is on the bus exactly once per audience.
    stored = []
    position = start_position
    while page := await cluster_store.read_all(position, 1000):
        stored += page
        position = page[-1].position
    async def relayed() -> bool:  # the relay has published up to the last stored event
        return await cluster_store.checkpoint(RELAY_READER) >= position

    await eventually(relayed, within=30, what="the relay publishing the last events")
    copies = await _bus_copies(cluster, first_sequence)
    wanted = {message_id for recorded in stored
              for _s, message_id, _b in messages_for(recorded, public_payload)}
    missing = wanted - set(copies)
    doubled = {message_id: n for message_id, n in copies.items() if n > 1}
    assert not missing, f"{len(missing)} of {len(wanted)} messages never reached the bus"
    assert not doubled, f"messages on the bus more than once: {list(doubled.items())[:5]}"
    no_unhandled_errors(cluster)


async def test_a_service_replica_killed_its_people_and_browsers_carry_on_elsewhere(
    cluster: LocalCluster, cluster_store: EventStore
) -> None:
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=chromium_path(),
                                                   args=CHROMIUM_FLAGS)
        pages = Pages(browser, cluster.url)
        # The page's own socket errors while its server dies are expected.
        pages.expect_error(r"WebSocket|ERR_CONNECTION|503|502|Failed to load resource")
        page = await pages.open("/")
        sockets: list[str] = []
        page.on("websocket", lambda socket: sockets.append(socket.url))
        # A game to 1000: still going when the kills are over (to 250 against
        # a quick bot, it could end first, and the page then rightly stands still).
        await create_from_lobby(page, target=1000)
        await page.click("#go-to-table")
        await sit_in_the_page(page, "Ana")
        stop = asyncio.Event()
        playing = asyncio.create_task(_keep_playing(page, stop))
        try:
            async def kill_each_replica() -> str:
                for replica in cluster.instances("service"):
                    await asyncio.to_thread(cluster.kill, replica.name)
                    await asyncio.sleep(2)
                    await asyncio.to_thread(cluster.start, replica.name)
                    await asyncio.sleep(2.5)  # HAProxy's two good checks
                # The browser was cut off and reconnected through HAProxy by
                # itself, and play goes on there (checked now: later its game
                # may be over).
                play_sockets = [url for url in sockets if url.endswith("/play")]
                assert len(play_sockets) >= 2, f"the page never reconnected: {sockets}"
                await _moves_on(page, changes=2, within=30)
                return "after each service replica in turn was SIGKILLed and restarted"

            # Games to 250: the people are still playing when the second
            # replica dies (to 100 on a busy machine, they could all be over).
            humans = await play_through(cluster, cluster_store, kill_each_replica,
                                        dataclasses.replace(SCENARIO, target=250))
            assert any(human.connections > 1 for human in humans)
        finally:
            stop.set()
            await playing
            await pages.close()
            await browser.close()
        unexpected = pages.unexpected_errors()
        assert not unexpected, "console errors:\n" + "\n".join(unexpected)
    no_unhandled_errors(cluster)


async def _moves_on(page: Page, *, changes: int, within: float) -> None:
    """The page's version changes ``changes`` times within ``within`` seconds
    (a change, not a rise: a new game starts again from version 1)."""
    deadline = time.monotonic() + within
    seen = await page.get_attribute("body", "data-version")
    while changes:
        assert time.monotonic() < deadline, "the page stopped moving after the kills"
        await asyncio.sleep(0.2)
        now = await page.get_attribute("body", "data-version")
        if now != seen:
            seen, changes = now, changes - 1


async def _keep_playing(page: Page, stop: asyncio.Event) -> None:
    """The person plays whenever it is their turn (the clock never runs out)."""
    while not stop.is_set():
        try:
            moved = await play_a_move(page)
        except Exception:  # the page is between states: next time
            moved = False
        if not moved:
            await asyncio.sleep(0.1)


async def test_postgres_restarted_every_table_resumes_nothing_acknowledged_lost(
    cluster: LocalCluster, cluster_store: EventStore
) -> None:
    async def restart_postgres() -> str:
        await asyncio.to_thread(cluster.stop_postgres)
        await asyncio.sleep(3)
        await asyncio.to_thread(cluster.start_postgres)
        return "after PostgreSQL was stopped for 3 s and started again"

    await play_through(cluster, cluster_store, restart_postgres)
    no_unhandled_errors(cluster)


async def test_a_rolling_restart_while_games_run_stalls_nothing(
    cluster: LocalCluster, cluster_store: EventStore
) -> None:
    async def roll() -> str:
        restarted = await asyncio.to_thread(lambda: list(cluster.roll()))
        return f"after a rolling restart of {', '.join(restarted)}"

    await play_through(cluster, cluster_store, roll)
    no_unhandled_errors(cluster)


async def test_metrics_and_logs_an_operator_reads(cluster: LocalCluster) -> None:
    """Every service replica's /metrics has the operator's series once a
    person has played there; its JSON log lines carry the table, game,
    version and a correlation id."""
    ws_url = cluster.url.replace("http", "ws", 1)
    async with loopback_http(base_url=cluster.url, timeout=10) as http:
        humans = []
        for n in range(4):  # least connections: some land on each replica
            table_id = await create_table(http, **human_table(100, 30))
            humans.append(ScriptedHuman([ws_url], table_id,
                                        await sit(http, table_id, 0, f"Player {n}")))
        tasks = [asyncio.create_task(human.run(time.monotonic() + 4)) for human in humans]
        scraped: list[str] = []

        async def every_replica_timed_a_move() -> bool:
            scraped[:] = [(await http.get(f"http://127.0.0.1:{replica.port}/metrics")).text
                          for replica in cluster.instances("service")]
            return all(re.search(r"^muggins_command_to_broadcast_seconds_count [1-9]", text,
                                 re.MULTILINE) for text in scraped)

        await eventually(every_replica_timed_a_move, within=20, every=0.5,
                         what="a move timed on every replica")
        await asyncio.gather(*tasks)
    text = "\n".join(scraped)
    for name in ("muggins_moves_total", "muggins_command_to_broadcast_seconds_bucket",
                 'muggins_open_sockets{kind="play"}', "muggins_relay_lag_events",
                 "muggins_projector_lag_events", "muggins_due_tables",
                 "muggins_overdue_tables", "muggins_oldest_overdue_seconds"):
        assert re.search(rf"^{re.escape(name)}", text, re.MULTILINE), f"/metrics lacks {name}"
    counts = re.findall(r"^muggins_command_to_broadcast_seconds_count (\S+)", text, re.MULTILINE)
    assert sum(float(count) for count in counts) > 0, "no command was timed to its broadcast"
    lines = [json.loads(line) for instance in cluster.instances("service")
             for line in (cluster.logs / f"{instance.name}.log").read_text().splitlines()
             if line.startswith("{")]
    applied = [line for line in lines if line.get("event") == "command applied"]
    assert applied and all({"table", "game", "version", "correlation_id"} <= set(line)
                           for line in applied)
