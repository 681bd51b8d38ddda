"""The event store's contract: PostgreSQL's store and the in-memory one pass
the same tests, so a test that runs on the in-memory store says something
about the real one.

Appends (all or nothing, expected versions, guards, what becomes due), gap-free
positions in commit order, reads by stream and by position, checkpoints,
the hash chains, and refusals of what no store takes.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import msgspec
import pytest

from muggins.eventstore.memory import MemoryEventStore
from muggins.eventstore.records import (
    GENESIS_CHAIN,
    ConcurrencyError,
    Due,
    NewEvent,
    global_link,
    recomputed_chain,
)

IMPLEMENTATIONS = [
    pytest.param("memory"),
    pytest.param("postgres", marks=pytest.mark.servers),
]


@pytest.fixture(params=IMPLEMENTATIONS)
def event_store(request: pytest.FixtureRequest) -> Any:
    """Each store the contract holds (PostgreSQL's as the service connects)."""
    if request.param == "memory":
        return MemoryEventStore()
    return request.getfixturevalue("store")


def said(number: int, audience: str = "public") -> NewEvent:
    return NewEvent("Said", msgspec.json.encode({"n": number, "text": f"line {number}"}),
                    audience)


def payloads(recorded: list[Any]) -> list[Any]:
    return [msgspec.json.decode(entry.payload) for entry in recorded]


async def test_appends_are_numbered_without_gaps_and_read_back(event_store: Any) -> None:
    first = await event_store.append("talk-1", 0, [said(1), said(2)], actor="system")
    other = await event_store.append("talk-2", 0, [said(3, "seat:1")], actor="seat:1")
    more = await event_store.append("talk-1", 2, [said(4)], actor="bot:0")
    assert [e.position for e in first + other + more] == [1, 2, 3, 4]
    assert [e.stream_version for e in first + more] == [1, 2, 3]
    stream = await event_store.read_stream("talk-1")
    assert payloads(stream) == [{"n": 1, "text": "line 1"}, {"n": 2, "text": "line 2"},
                                {"n": 4, "text": "line 4"}]
    assert [(e.actor, e.audience, e.event_type) for e in stream] == [
        ("system", "public", "Said"), ("system", "public", "Said"), ("bot:0", "public", "Said")]
    assert [e.event_id for e in stream] == [e.event_id for e in first + more]
    assert payloads(await event_store.read_stream("talk-1", after_version=1, limit=1)) == [
        {"n": 2, "text": "line 2"}]
    assert [e.position for e in await event_store.read_all(after_position=1, limit=2)] == [2, 3]
    assert (await event_store.event_at_position(3)).stream_id == "talk-2"
    assert await event_store.event_at_position(5) is None
    assert (await event_store.stream_event("talk-1", 3)).position == 4
    assert await event_store.stream_event("talk-1", 4) is None
    assert await event_store.stream_version("talk-1") == 3
    assert await event_store.stream_version("nobody") == 0
    assert await event_store.read_stream("nobody") == []
    assert await event_store.head_position() == 4
    assert await event_store.append("talk-1", 3, [], actor="system") == []


async def test_ids_and_times_come_back_as_given(event_store: Any) -> None:
    correlation, causation = str(uuid.uuid4()), str(uuid.uuid4())
    written = await event_store.append("ids-1", 0, [said(1)], actor="spectator",
                                       correlation_id=correlation.upper(),
                                       causation_id=causation)
    [stored] = await event_store.read_stream("ids-1")
    assert (stored.correlation_id, stored.causation_id) == (correlation, causation)
    assert (written[0].correlation_id, written[0].causation_id) == (correlation, causation)
    assert stored.recorded_at == written[0].recorded_at
    assert stored.recorded_at.tzinfo is not None


async def test_a_stale_version_writes_nothing(event_store: Any) -> None:
    await event_store.append("race-1", 0, [said(1)], actor="system")
    for stale in (0, 2):
        with pytest.raises(ConcurrencyError) as refused:
            await event_store.append("race-1", stale, [said(2), said(3)], actor="system")
        assert refused.value.stream_id == "race-1" and refused.value.expected_version == stale
    assert await event_store.stream_version("race-1") == 1
    assert await event_store.head_position() == 1


async def test_of_two_appends_at_one_version_exactly_one_is_written(event_store: Any) -> None:
    outcomes = await asyncio.gather(
        *(event_store.append("race-2", 0, [said(n)], actor="system") for n in range(5)),
        return_exceptions=True)
    assert sum(not isinstance(outcome, Exception) for outcome in outcomes) == 1
    assert all(isinstance(outcome, ConcurrencyError | list) for outcome in outcomes)
    assert await event_store.stream_version("race-2") == 1


async def test_a_guard_is_judged_on_its_own_stream(event_store: Any) -> None:
    await event_store.append("seats-1", 0, [said(1)], actor="system")
    written = await event_store.append("game-1", 0, [said(2)], actor="seat:0",
                                       guard=("seats-1", 1))
    assert written[0].stream_version == 1
    await event_store.append("seats-1", 1, [said(3)], actor="system")
    with pytest.raises(ConcurrencyError) as refused:
        await event_store.append("game-1", 1, [said(4)], actor="seat:0", guard=("seats-1", 1))
    assert refused.value.stream_id == "seats-1"
    assert await event_store.stream_version("game-1") == 1
    # A guard on a stream that does not exist yet holds at version 0.
    await event_store.append("game-2", 0, [said(5)], actor="system", guard=("nothing", 0))


async def test_every_event_is_chained_in_its_stream_and_in_the_store(event_store: Any) -> None:
    for round_ in range(3):
        for stream in ("chain-a", "chain-b"):
            version = await event_store.stream_version(stream)
            await event_store.append(stream, version, [said(round_), said(round_ + 10, "audit")],
                                     actor="system")
    every = await event_store.read_all()
    previous: dict[str, bytes] = {}
    whole = GENESIS_CHAIN
    for entry in every:
        assert entry.chain == recomputed_chain(entry, previous.get(entry.stream_id,
                                                                    GENESIS_CHAIN))
        previous[entry.stream_id] = entry.chain
        whole = global_link(whole, entry.chain)
        assert entry.global_chain == whole
    links = await event_store.chain_links(2, 4)
    assert [(p, c, g) for p, c, g in links] == [
        (e.position, e.chain, e.global_chain) for e in every[1:4]]
    assert await event_store.global_chains_at([1, 12, 99]) == {
        1: every[0].global_chain, 12: every[11].global_chain}


async def test_the_last_hand_end_of_a_stream(event_store: Any) -> None:
    assert await event_store.last_hand_end("game-9") is None
    await event_store.append("game-9", 0, [
        said(1), NewEvent("HandEnded", b'{"hand":1}', "public"), said(2),
        NewEvent("GameEnded", b'{"scores":[]}', "public"), said(3)], actor="system")
    assert (await event_store.last_hand_end("game-9")).stream_version == 4


async def test_checkpoints_only_move_forward(event_store: Any) -> None:
    assert await event_store.checkpoint("reader") == 0
    await event_store.save_checkpoint("reader", 7)
    await event_store.save_checkpoint("reader", 3)
    assert await event_store.checkpoint("reader") == 7
    assert await event_store.checkpoint("another") == 0


async def test_what_an_append_makes_due(event_store: Any) -> None:
    assert await event_store.due_at("table:x") is None
    [first] = await event_store.append("due-1", 0, [said(1)], actor="system",
                                       due=Due("table:x", 30))
    due = await event_store.due_at("table:x")
    assert 29.9 <= (due - first.recorded_at).total_seconds() <= 30.1
    # "earliest" keeps an earlier time already there, and takes an earlier one.
    await event_store.append("due-1", 1, [said(2)], actor="system",
                             due=Due("table:x", 300, earliest=True))
    assert await event_store.due_at("table:x") == due
    [third] = await event_store.append("due-1", 2, [said(3)], actor="system",
                                       due=Due("table:x", 5, earliest=True))
    assert await event_store.due_at("table:x") < due
    # Without "earliest" the new time stands; None removes the row.
    await event_store.append("due-1", 3, [said(4)], actor="system", due=Due("table:x", 600))
    assert (await event_store.due_at("table:x") - third.recorded_at).total_seconds() > 500
    await event_store.append("due-1", 4, [said(5)], actor="system", due=Due("table:x", None))
    assert await event_store.due_at("table:x") is None
    # A refused append makes nothing due.
    with pytest.raises(ConcurrencyError):
        await event_store.append("due-1", 0, [said(6)], actor="system", due=Due("table:y", 1))
    assert await event_store.due_at("table:y") is None


@pytest.mark.parametrize(("stream", "version", "events", "actor", "guard"), [
    ("bad stream", 0, [said(1)], "system", None),
    ("x" * 65, 0, [said(1)], "system", None),
    ("ok-1", -1, [said(1)], "system", None),
    ("ok-1", 0, [said(1)], "somebody", None),
    ("ok-1", 0, [said(1, "everyone")], "system", None),
    ("ok-1", 0, [NewEvent("Said", b"[1, 2]", "public")], "system", None),
    ("ok-1", 0, [NewEvent("Said", b"{not json", "public")], "system", None),
    ("ok-1", 0, [NewEvent("", b"{}", "public")], "system", None),
    ("ok-1", 0, [said(1)], "system", ("ok-1", 0)),
    ("ok-1", 0, [said(1)], "system", ("bad guard", 0)),
], ids=["space", "long", "version", "actor", "audience", "array", "json", "type", "self-guard",
        "guard-id"])
async def test_what_no_store_takes_is_refused_and_writes_nothing(
        event_store: Any, stream: str, version: int, events: list[NewEvent], actor: str,
        guard: tuple[str, int] | None) -> None:
    with pytest.raises(ValueError):
        await event_store.append(stream, version, [said(0), *events], actor=actor, guard=guard)
    assert await event_store.head_position() == 0
