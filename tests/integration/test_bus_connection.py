"""The Bus against a real NATS server: rebuilt after a protocol error closes
nats-py's client for good, carried through a server restart, refusing bad
subjects before they reach the server, and quiet after close()."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator

import nats.errors
import pytest
import structlog
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg

from muggins.bus.connection import Bus, MessageHandler, check_subject
from muggins.bus.jetstream import connect
from muggins.infra.embedded import EmbeddedNats, free_port
from tests.support.waits import eventually

#: Short, so a closed client is noticed within a test's patience.
REBUILD_CHECK = 0.1

#: A subject past the server's 4 KiB maximum control line: SUB with it is a
#: protocol error, after which the server hangs up and nats-py closes for good.
OVERLONG_SUBJECT = "x." + "a" * 4200


def unique_subject(label: str) -> str:
    """A subject no other test (or earlier run on the shared server) uses."""
    return f"muggins.test.bus.{label}.{uuid.uuid4().hex[:12]}"


def into(queue: asyncio.Queue[Msg]) -> MessageHandler:
    async def put(msg: Msg) -> None:
        queue.put_nowait(msg)

    return put


async def next_message(queue: asyncio.Queue[Msg], within: float = 5.0) -> Msg:
    try:
        async with asyncio.timeout(within):
            return await queue.get()
    except TimeoutError:
        pytest.fail(f"no message within {within} s")


async def publish_from(client: NatsClient, subject: str, data: bytes) -> None:
    """Publish and wait until the server has it (the PING after it came back)."""
    await client.publish(subject, data)
    await client.flush()


def leftover_tasks(before: set[asyncio.Task[object]]) -> set[asyncio.Task[object]]:
    return {
        task
        for task in asyncio.all_tasks() - before
        if not task.done() and task is not asyncio.current_task()
    }


@pytest.fixture
async def bus(nats_server: EmbeddedNats) -> AsyncIterator[Bus]:
    the_bus = Bus(nats_server.url, name="muggins-test", rebuild_check=REBUILD_CHECK)
    await the_bus.start()
    yield the_bus
    await the_bus.close()


async def test_a_protocol_error_closes_the_client_and_the_bus_rebuilds_it(
    bus: Bus, nats_client: NatsClient
) -> None:
    kept_subject, dropped_subject = unique_subject("kept"), unique_subject("dropped")
    kept: asyncio.Queue[Msg] = asyncio.Queue()
    dropped: asyncio.Queue[Msg] = asyncio.Queue()
    await bus.subscribe(kept_subject, into(kept))
    gone = await bus.subscribe(dropped_subject, into(dropped))
    await gone.unsubscribe()
    assert not gone.active

    old = bus.client
    with structlog.testing.capture_logs() as logs:
        # Straight on the client, past the Bus's checks: nats-py 2.16 sends it.
        with contextlib.suppress(nats.errors.Error):
            await old.subscribe(OVERLONG_SUBJECT)
        await eventually(lambda: old.is_closed, within=5, what="the server closes the client")
        assert "maximum control line" in str(old.last_error).lower()
        await eventually(lambda: bus.rebuilds >= 1 and bus.is_connected, within=5,
                         what="the Bus rebuilds its connection")
    assert bus.client is not old
    assert old.is_closed  # nats-py itself never came back
    events = [entry["event"] for entry in logs]
    assert "NATS connection closed; rebuilding" in events
    assert "NATS connection rebuilt" in events
    assert bus.js is not None

    await bus.client.flush()  # the re-made SUB has reached the server
    # One publisher, one order: the dropped subject first, so by the time the
    # kept message arrives a wrongly re-made subscription would have its message.
    await publish_from(nats_client, dropped_subject, b"must not arrive")
    await publish_from(nats_client, kept_subject, b"after the rebuild")
    assert (await next_message(kept)).data == b"after the rebuild"
    await asyncio.sleep(0.2)  # the dropped subject's message had this long to come: it may not
    assert dropped.empty()

    # Through the Bus as well, on the new client.
    await bus.publish(kept_subject, b"through the bus")
    assert (await next_message(kept)).data == b"through the bus"


BAD_SUBJECTS = [
    pytest.param("", id="empty"),
    pytest.param("muggins.bad subject", id="space"),
    pytest.param("muggins.bad\tsubject", id="tab"),
    pytest.param("muggins.x\r\nPUB muggins.injected 1", id="crlf"),
    pytest.param("muggins.\x00nul", id="nul"),
    pytest.param("muggins.\x7fdel", id="del"),
    pytest.param("muggins.\u00a0nbsp", id="unicode-space"),
    pytest.param("muggins..double", id="empty-token"),
    pytest.param(".muggins.leading", id="leading-dot"),
    pytest.param("muggins.trailing.", id="trailing-dot"),
    pytest.param("x." + "a" * 255, id="257-characters"),
    pytest.param(OVERLONG_SUBJECT, id="4202-characters"),
]


@pytest.mark.parametrize("subject", BAD_SUBJECTS)
async def test_bad_subjects_are_refused_before_anything_is_sent(bus: Bus, subject: str) -> None:
    client = bus.client
    sent_before = dict(client.stats)
    with pytest.raises(ValueError, match="NATS subject"):
        await bus.publish(subject, b"x")
    with pytest.raises(ValueError, match="NATS subject"):
        await bus.subscribe(subject, into(asyncio.Queue()))
    assert client.stats["out_msgs"] == sent_before["out_msgs"]
    assert client.stats["out_bytes"] == sent_before["out_bytes"]

    # Still the same, open connection, and it works.
    await client.flush()
    assert bus.client is client and bus.is_connected and not client.is_closed
    good = unique_subject("good")
    received: asyncio.Queue[Msg] = asyncio.Queue()
    await bus.subscribe(good, into(received))
    await bus.publish(good, b"fine")
    assert (await next_message(received)).data == b"fine"
    assert bus.rebuilds == 0


def test_subject_rules_at_the_edges() -> None:
    check_subject("a" * 256, wildcards=False)
    check_subject("muggins.table.*.public", wildcards=True)
    check_subject("muggins.table.>", wildcards=True)
    check_subject("muggins.tablé.ünïcode", wildcards=False)
    for wildcarded in ("muggins.*", "muggins.>"):
        with pytest.raises(ValueError, match="wildcard"):
            check_subject(wildcarded, wildcards=False)
    for misplaced in ("muggins.>.x", "muggins.ab*", "muggins.a>"):
        with pytest.raises(ValueError, match="misplaced wildcard"):
            check_subject(misplaced, wildcards=True)


async def test_a_subscription_survives_a_server_restart(nats_server: EmbeddedNats) -> None:
    bus = Bus(nats_server.url, name="muggins-test", rebuild_check=REBUILD_CHECK)
    await bus.start()
    subject = unique_subject("restart")
    received: asyncio.Queue[Msg] = asyncio.Queue()
    restarted = False
    try:
        await bus.subscribe(subject, into(received))
        nats_server.kill()
        await eventually(lambda: not bus.is_connected, within=5,
                         what="the Bus sees the server gone")
        await asyncio.sleep(2.0)  # the outage: the server away this long
        await asyncio.to_thread(nats_server.start)
        restarted = True
        await eventually(lambda: bus.is_connected, within=8, what="nats-py reconnects")
        assert bus.rebuilds == 0  # nats-py's own reconnect did it, not a rebuild
        await bus.client.flush()  # the replayed SUB has reached the new server

        publisher = await connect(nats_server.url)
        try:
            await publish_from(publisher, subject, b"after the restart")
        finally:
            await publisher.drain()
        assert (await next_message(received)).data == b"after the restart"
    finally:
        if not restarted:  # other tests share this server: leave it running
            nats_server.start()
        await bus.close()


async def test_the_bus_retries_until_nats_answers_and_close_stops_the_retrying(
    nats_server: EmbeddedNats,
) -> None:
    before = asyncio.all_tasks()
    bus = Bus(nats_server.url, name="muggins-test", rebuild_check=REBUILD_CHECK)
    await bus.start(timeout=1.0)  # also each rebuild attempt's limit
    subject = unique_subject("retry")
    received: asyncio.Queue[Msg] = asyncio.Queue()
    await bus.subscribe(subject, into(received))
    try:
        # Nothing listens there: every rebuild attempt fails until it is put back.
        bus._url = f"nats://127.0.0.1:{free_port()}"
        with structlog.testing.capture_logs() as logs:
            await bus.client.close()
            await eventually(
                lambda: any(
                    entry["event"] == "NATS connection rebuild failed; retrying" for entry in logs
                ),
                within=5, what="a failed rebuild is logged",
            )
            assert not bus.is_connected and bus.rebuilds == 0
            bus._url = nats_server.url
            await eventually(lambda: bus.is_connected, within=5,
                             what="the rebuild succeeds once NATS answers")
        assert bus.rebuilds == 1
        await bus.client.flush()
        await bus.publish(subject, b"back")
        assert (await next_message(received)).data == b"back"

        # Failing again, then closed in the middle of the retrying.
        bus._url = f"nats://127.0.0.1:{free_port()}"
        await bus.client.close()
        await asyncio.sleep(REBUILD_CHECK * 3)  # the watchdog retrying, a few rounds
    finally:
        await bus.close()
    await asyncio.sleep(REBUILD_CHECK * 3)  # rounds in which a survivor would rebuild: none may
    assert bus.rebuilds == 1
    assert not leftover_tasks(before)


async def test_close_stops_everything(nats_server: EmbeddedNats) -> None:
    before = asyncio.all_tasks()
    bus = Bus(nats_server.url, name="muggins-test", rebuild_check=REBUILD_CHECK)
    await bus.start()
    subscription = await bus.subscribe(unique_subject("close"), into(asyncio.Queue()))
    client = bus.client

    await bus.close()
    assert client.is_closed and not bus.is_connected
    assert not subscription.active
    assert not leftover_tasks(before)  # the watchdog is gone already, not on its way out
    await asyncio.sleep(REBUILD_CHECK * 5)  # several watchdog rounds, had it survived
    assert bus.rebuilds == 0 and bus.client is client
    assert not leftover_tasks(before)

    with pytest.raises(nats.errors.ConnectionClosedError):
        await bus.publish(unique_subject("close"), b"too late")
    with pytest.raises(nats.errors.ConnectionClosedError):
        await bus.subscribe(unique_subject("close"), into(asyncio.Queue()))
    await bus.close()  # a second close is harmless
