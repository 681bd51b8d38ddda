"""Publishing to JetStream through the relay, against real NATS and PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import AsyncIterator
from pathlib import Path

import msgspec
import pytest
import structlog
from nats.aio.client import Client as NatsClient
from nats.js import JetStreamContext

from muggins.bots.selfplay import make_bots, play_game
from muggins.bus import RELAY_READER
from muggins.bus.jetstream import (
    STREAM_CONFIG,
    STREAM_NAME,
    BusMessage,
    BusUnavailable,
    bus_message_decoder,
    connect,
    ensure_stream,
)
from muggins.bus.relay import Relay
from muggins.domain.codec import encoded_all, public_payload
from muggins.eventstore.store import EventStore
from muggins.infra.embedded import EmbeddedNats
from muggins.rules.events import (
    BoneyardStacked,
    SeedSealed,
    TileDrawn,
    TilesDealt,
    event_decoder,
)
from muggins.rules.presets import preset
from muggins.rules.shuffle import game_seed_from_text
from tests.integration.events import MOVE


async def all_messages(js: JetStreamContext, subject: str = "muggins.table.>") -> list[
    tuple[str, dict[str, str], BusMessage]
]:
    """Every message the stream holds on ``subject``, in stream order."""
    info = await js.stream_info(STREAM_NAME)
    wanted = info.state.messages
    messages = []
    subscription = await js.subscribe(subject, ordered_consumer=True)
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                message = await subscription.next_msg(timeout=0.5)
            except TimeoutError:
                break
            decoded = bus_message_decoder.decode(message.data)
            messages.append((message.subject, dict(message.headers or {}), decoded))
            if subject == "muggins.table.>" and len(messages) >= wanted:
                break
    finally:
        await subscription.unsubscribe()
    return messages


async def test_stream_is_configured_explicitly(js: JetStreamContext) -> None:
    info = await js.stream_info(STREAM_NAME)
    assert info.config.storage == STREAM_CONFIG.storage
    assert info.config.duplicate_window == STREAM_CONFIG.duplicate_window
    assert info.config.max_age == STREAM_CONFIG.max_age
    assert info.config.subjects == ["muggins.table.>"]
    await ensure_stream(js)  # idempotent


async def test_relay_publishes_each_event_once_in_order(
    store: EventStore, js: JetStreamContext
) -> None:
    for table in ("t1", "t2"):
        await store.append(table, 0, encoded_all(MOVE), actor="seat:0")
    relay = Relay(store, js, public_payload)
    assert await relay.publish_pending() == 4
    assert await relay.publish_pending() == 0
    # A relay that crashed before saving its checkpoint republishes: JetStream drops it.
    await store.pool.execute("DELETE FROM checkpoints WHERE reader = $1", RELAY_READER)
    assert await Relay(store, js, public_payload).publish_pending() == 4
    messages = await all_messages(js)
    assert [m.position for _, _, m in messages] == [1, 2, 3, 4]
    assert [s for s, _, _ in messages] == ["muggins.table.t1.public"] * 2 + [
        "muggins.table.t2.public"
    ] * 2
    assert all(h["Nats-Msg-Id"] == m.event_id for _, h, m in messages)
    assert event_decoder.decode(messages[0][2].event) == MOVE[0]


@contextlib.asynccontextmanager
async def running(relay: Relay) -> AsyncIterator[asyncio.Event]:
    stop = asyncio.Event()
    task = asyncio.create_task(relay.run(stop))
    try:
        yield stop
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)


async def wait_until(condition: object, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if await condition():  # type: ignore[operator]
            return
        await asyncio.sleep(0.05)
    raise AssertionError("condition not met in time")


async def test_relay_loses_and_duplicates_nothing_when_nats_dies(
    store: EventStore, tmp_path: Path
) -> None:
    server = EmbeddedNats(tmp_path / "nats")
    server.start()
    client = await connect(server.url)
    try:
        js = client.jetstream()
        await ensure_stream(js)
        relay = Relay(store, js, public_payload, poll_interval=0.1, publish_timeout=1.0)
        async with running(relay):
            version = 0
            for _ in range(20):
                await store.append("outage", version, encoded_all(MOVE), actor="seat:0")
                version += 2

            async def caught_up() -> bool:
                return await store.checkpoint(RELAY_READER) == version

            await wait_until(caught_up)
            server.kill()  # SIGKILL: the server dies mid-stream
            for _ in range(30):
                await store.append("outage", version, encoded_all(MOVE), actor="seat:0")
                version += 2
            await asyncio.sleep(0.5)
            assert await store.checkpoint(RELAY_READER) < version
            server.start()  # same port, same store directory
            await wait_until(caught_up, 30)
        messages = await all_messages(js)
        positions = [m.position for _, _, m in messages]
        assert positions == list(range(1, version + 1)), "lost or duplicated events"
        assert len({m.event_id for _, _, m in messages}) == version
    finally:
        await client.close()
        server.stop()


async def test_public_subject_never_carries_a_hidden_tile_or_the_seed(
    store: EventStore, js: JetStreamContext
) -> None:
    rules = preset("playelephant", 4, partnerships=True)
    game_seed = game_seed_from_text("bus-hidden")
    events = list(play_game(rules, game_seed, make_bots(["greedy"] * 4, game_seed)))
    # Store the game in command-sized batches, as the service will.
    for start in range(0, len(events), 3):
        await store.append("hidden", start, encoded_all(events[start : start + 3]), actor="system")
    await Relay(store, js, public_payload).publish_pending()
    public = await all_messages(js, "muggins.table.hidden.public")
    assert len(public) == len(events)
    for _, _, message in public:
        event = event_decoder.decode(message.event)
        if isinstance(event, TilesDealt | BoneyardStacked):
            assert event.tiles is None and event.tile_count > 0
        if isinstance(event, TileDrawn):
            assert event.tile is None
        if isinstance(event, SeedSealed):
            assert event.seed is None
        raw = msgspec.json.decode(message.event)
        assert raw.get("seed") in (None, *[e.seed for e in events if hasattr(e, "seed")])
    # Seat 2's subject holds exactly its own deals and draws, in full.
    seat_two = await all_messages(js, "muggins.table.hidden.seat.2")
    private = [event_decoder.decode(m.event) for _, _, m in seat_two]
    assert private and all(getattr(e, "seat", None) == 2 for e in private)
    assert all(
        (e.tiles if isinstance(e, TilesDealt) else e.tile) is not None  # type: ignore[union-attr]
        for e in private
    )
    audit = await all_messages(js, "muggins.table.hidden.audit")
    assert {type(event_decoder.decode(m.event)).__name__ for _, _, m in audit} == {
        "SeedSealed", "BoneyardStacked"
    }


async def test_unreachable_nats_is_a_clear_error() -> None:
    with pytest.raises(BusUnavailable, match=re.escape("cannot reach NATS at nats://127.0.0.1:9")):
        await connect("nats://127.0.0.1:9", timeout=1.5)


async def test_closing_the_connection_is_not_reported_as_an_outage(
    nats_server: EmbeddedNats,
) -> None:
    client = await connect(nats_server.url, timeout=5)
    with structlog.testing.capture_logs() as logs:
        await client.close()
    assert [entry["event"] for entry in logs] == ["NATS connection closed"]
    assert all(entry["log_level"] != "warning" for entry in logs)


async def test_acks_that_never_come_do_not_pile_up_and_stall_the_relay(
    store: EventStore, nats_client: NatsClient
) -> None:
    """A stream leader killed mid-publish: some acks fail at once, others
    never come.  The relay gives the missing ones up (cancels them) before
    it tries again: before, they kept holding the client's in-flight
    permits, and past a few thousand publishing waited forever.  Here no
    stream takes the subjects: t1's messages go to a silent subscriber (no
    ack ever), t2's to nobody (refused at once)."""
    from nats.js.errors import NoStreamResponseError

    js = nats_client.jetstream(publish_async_max_pending=8)
    with contextlib.suppress(Exception):
        await js.delete_stream(STREAM_NAME)
    silent = await nats_client.subscribe("muggins.table.t1.>")
    try:
        for table in ("t1", "t2"):
            await store.append(table, 0, encoded_all(MOVE), actor="seat:0")
        relay = Relay(store, js, public_payload, publish_timeout=1.0)
        for _ in range(6):  # 2 acks lost a try, 8 permits: the 5th try would wait forever
            async with asyncio.timeout(5):
                with pytest.raises(NoStreamResponseError):
                    await relay.publish_pending()
            await asyncio.sleep(0.05)  # a cancelled future's callbacks run on the next turn
            assert js.publish_async_pending() == 0
    finally:
        await silent.unsubscribe()
        await ensure_stream(js)


async def test_the_relays_bell_wakes_a_projector_and_its_old_consumer_goes(
    store: EventStore, js: JetStreamContext, nats_server: EmbeddedNats
) -> None:
    """The projectors' wake-up is one core message a page from the relay
    (each projector's JetStream consumer, which took every event and an ack
    for each, cost a tenth of the service's CPU at 500 tables): it wakes a
    projector whose poll is a minute away, and the old consumer is removed."""
    from nats.js.api import ConsumerConfig
    from nats.js.errors import NotFoundError

    from muggins.bus.connection import Bus
    from muggins.domain.streams import ALL_PUBLIC_SUBJECTS, BELL_SUBJECT
    from muggins.eventstore.records import RecordedEvent
    from muggins.projections.projection import Connection
    from muggins.projections.runner import ProjectorRunner
    from tests.support.waits import eventually

    class Positions:
        """A read model of the positions seen (the store's test moves are no game)."""

        name = "positions"

        def __init__(self) -> None:
            self.seen: list[int] = []

        async def project(self, connection: Connection, page: list[RecordedEvent]) -> None:
            self.seen += [event.position for event in page]

        async def forget(self, connection: Connection) -> None:
            self.seen.clear()

        def lost_track(self) -> None:
            pass

    durable = "projector-positions"
    await js.add_consumer(STREAM_NAME, ConsumerConfig(durable_name=durable,
                                                      filter_subject=ALL_PUBLIC_SUBJECTS))
    bus = Bus(nats_server.url)
    await bus.start()
    relay = Relay(store, js, public_payload, bell=lambda: bus.publish(BELL_SUBJECT, b""))
    projection = Positions()
    runner = ProjectorRunner(store.pool, store, projection)
    rounds = 0
    catch_up = runner.catch_up

    async def counted() -> int:
        nonlocal rounds
        rounds += 1
        return await catch_up()

    runner.catch_up = counted  # type: ignore[method-assign,assignment]
    stop = asyncio.Event()
    following = asyncio.create_task(
        runner.follow(stop, bus, poll_interval=60, old_consumers=js))
    try:
        async def old_consumer_gone() -> bool:
            try:
                await js.consumer_info(STREAM_NAME, durable)
            except NotFoundError:
                return True
            return False

        # Removed after the first catch-up (never holding it up).
        await eventually(old_consumer_gone, what="the old consumer removed")
        assert rounds == 1
        await store.append("t1", 0, encoded_all(MOVE), actor="seat:0")
        head = await store.head_position()

        await relay.publish_pending()  # publishes the page, and rings

        async def rung_and_projected() -> bool:
            # Rung again each round: the relay rings only after a page, and
            # the first bell may come before the projector listens.
            await bus.publish(BELL_SUBJECT, b"")
            return await runner.checkpoint() == head

        await eventually(rung_and_projected, within=5, every=0.2,
                         what="the bell waking the projector")
        assert rounds >= 2
        assert projection.seen == list(range(1, head + 1))
    finally:
        stop.set()
        await following
        await bus.close()
