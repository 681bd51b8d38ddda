"""The bus's contract: NATS (muggins.bus.connection.Bus) and the in-memory
bus pass the same tests, and so does the relay from each store to its bus
(every stored event once, in order, the public subject redacted).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import msgspec
import pytest

from muggins.bus.connection import Bus
from muggins.bus.jetstream import STREAM_CONFIG, bus_message_decoder, ensure_stream
from muggins.bus.memory import MemoryBus, subject_matches
from muggins.bus.relay import Relay
from muggins.domain.codec import encoded_all, public_payload
from muggins.eventstore.memory import MemoryEventStore
from muggins.rules.events import PointsScored, TileDrawn
from muggins.rules.tiles import Tile
from tests.support.waits import eventually

IMPLEMENTATIONS = [
    pytest.param("memory"),
    pytest.param("nats", marks=pytest.mark.servers),
]


@pytest.fixture(params=IMPLEMENTATIONS)
def nats_url(request: pytest.FixtureRequest) -> str | None:
    """The real server's address, or None for the in-memory bus.  (Chosen in a
    plain fixture: the servers' fixtures start outside the test's event loop.)"""
    if request.param == "memory":
        return None
    url: str = request.getfixturevalue("nats_server").url
    return url


@pytest.fixture
async def bus(nats_url: str | None) -> AsyncIterator[Any]:
    the_bus: Any = MemoryBus() if nats_url is None else Bus(nats_url, name="contract")
    await the_bus.start()
    yield the_bus
    await the_bus.close()


class Inbox:
    def __init__(self) -> None:
        self.messages: list[tuple[str, bytes]] = []

    async def __call__(self, message: Any) -> None:
        self.messages.append((message.subject, message.data))


async def delivered(inbox: Inbox, count: int) -> list[tuple[str, bytes]]:
    await eventually(lambda: len(inbox.messages) >= count, within=10,
                     what=f"{count} messages delivered")
    return inbox.messages


async def test_a_subscriber_gets_what_its_subject_matches_in_order(bus: Any) -> None:
    one, star, rest = Inbox(), Inbox(), Inbox()
    await bus.subscribe("c.t1.public", one)
    await bus.subscribe("c.*.public", star)
    await bus.subscribe("c.>", rest)
    for subject, body in [("c.t1.public", b"1"), ("c.t2.public", b"2"),
                          ("c.t1.seat.0", b"3"), ("d.t1.public", b"4"),
                          ("c.t1.public", b"5")]:
        await bus.publish(subject, body)
    assert await delivered(rest, 4) == [("c.t1.public", b"1"), ("c.t2.public", b"2"),
                                        ("c.t1.seat.0", b"3"), ("c.t1.public", b"5")]
    assert await delivered(star, 3) == [("c.t1.public", b"1"), ("c.t2.public", b"2"),
                                        ("c.t1.public", b"5")]
    assert await delivered(one, 2) == [("c.t1.public", b"1"), ("c.t1.public", b"5")]


async def test_after_unsubscribing_nothing_more_comes(bus: Any) -> None:
    inbox, witness = Inbox(), Inbox()
    subscription = await bus.subscribe("u.x", inbox)
    await bus.subscribe("u.x", witness)
    await bus.publish("u.x", b"before")
    await delivered(inbox, 1)
    await subscription.unsubscribe()
    assert not subscription.active
    await bus.publish("u.x", b"after")
    await delivered(witness, 2)
    assert inbox.messages == [("u.x", b"before")]


async def test_a_failing_callback_does_not_end_its_subscription(bus: Any) -> None:
    seen: list[bytes] = []

    async def fussy(message: Any) -> None:
        seen.append(message.data)
        if message.data == b"bad":
            raise RuntimeError("a bug in one callback")

    await bus.subscribe("f.x", fussy)
    for body in (b"bad", b"good"):
        await bus.publish("f.x", body)
    await eventually(lambda: seen == [b"bad", b"good"], within=10, what="both delivered")


@pytest.mark.parametrize(("subject", "wildcards"), [
    ("", True), ("a..b", True), ("a b", True), ("a.\x00", True), ("x" * 300, True),
    ("a.*", False), ("a.>", False), ("a.>.b", True), ("a.b*", True)])
async def test_a_subject_the_server_would_refuse_is_refused_before_sending(
        bus: Any, subject: str, wildcards: bool) -> None:
    async def nothing(message: Any) -> None:
        raise AssertionError("delivered")

    with pytest.raises(ValueError):
        if wildcards:
            await bus.subscribe(subject, nothing)
        else:
            await bus.publish(subject, b"x")
    assert bus.is_connected


@pytest.mark.parametrize(("pattern", "subject", "matches"), [
    ("a.b", "a.b", True), ("a.b", "a.b.c", False), ("a.*", "a.b", True),
    ("a.*", "a.b.c", False), ("a.>", "a.b.c", True), ("a.>", "a", False),
    ("*.b", "a.b", True), (">", "a", True)])
def test_the_in_memory_bus_matches_as_nats_does(pattern: str, subject: str,
                                                matches: bool) -> None:
    assert subject_matches(pattern, subject) is matches


@pytest.fixture
def relay_store(nats_url: str | None, request: pytest.FixtureRequest) -> Any:
    """The store the relay reads: in memory beside the in-memory bus, else PostgreSQL."""
    return MemoryEventStore() if nats_url is None else request.getfixturevalue("store")


@pytest.fixture
async def store_and_bus(relay_store: Any, bus: Any) -> tuple[Any, Any, Any]:
    """A store, the bus its relay publishes to, and what the relay publishes through."""
    if isinstance(bus, MemoryBus):
        return relay_store, bus, bus
    await ensure_stream(bus.js, STREAM_CONFIG)
    return relay_store, bus, bus.js


async def test_the_relay_publishes_every_event_once_in_order_redacted_by_audience(
        store_and_bus: tuple[Any, Any, Any]) -> None:
    store, bus, publisher = store_and_bus
    public, seat = Inbox(), Inbox()
    await bus.subscribe("muggins.table.Tab1-g1.public", public)
    await bus.subscribe("muggins.table.Tab1-g1.seat.1", seat)
    await store.append("Tab1-g1", 0, encoded_all([
        TileDrawn(1, 1, Tile(2, 5)),
        PointsScored(hand=1, side=0, seat=1, points=10, reason="count")]), actor="seat:1")
    relay = Relay(store, publisher, public_payload)
    assert await relay.publish_pending() == 2
    assert await Relay(store, publisher, public_payload).publish_pending() == 0  # checkpoint
    messages = [bus_message_decoder.decode(body) for _, body in await delivered(public, 2)]
    assert [(m.stream_version, m.audience, m.last_of_append) for m in messages] == [
        (1, "seat:1", False), (2, "public", True)]
    assert msgspec.json.decode(messages[0].event) == {
        "type": "TileDrawn", "hand": 1, "seat": 1, "tile": None}
    [(_, private)] = await delivered(seat, 1)
    assert msgspec.json.decode(bus_message_decoder.decode(private).event)["tile"] == [2, 5]
