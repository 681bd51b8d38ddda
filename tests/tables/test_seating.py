"""Seating on the in-memory store and keys: races for a seat, what a lost
race takes back, tokens valid only while their player holds the seat, and
secrets that stop working once rotated (muggins.tables.seating)."""

from __future__ import annotations

import asyncio

import pytest

from muggins.domain.streams import table_stream
from muggins.eventstore.memory import MemoryEventStore
from muggins.tables.errors import BadRequest, BadToken, SeatUnavailable, TableBusy
from muggins.tables.protocol import BotSeat, CreateTable, PlayerIdentity, TakeSeat
from muggins.tables.seat_keys import MemorySeatKeys
from muggins.tables.seating import Seating, token_hash
from tests.support.slow_reads import SlowReads


@pytest.fixture
def keys() -> MemorySeatKeys:
    return MemorySeatKeys()


@pytest.fixture
def seating(keys: MemorySeatKeys) -> Seating:
    return Seating(keys, MemoryEventStore())


async def test_of_many_racing_for_one_seat_one_sits_and_the_others_keep_nothing(
        seating: Seating, keys: MemorySeatKeys) -> None:
    table_id = (await seating.open_table(CreateTable(seats=2))).state.table_id
    outcomes = await asyncio.gather(
        *(seating.take_seat(table_id, 0, TakeSeat(name=f"P{n}")) for n in range(6)),
        return_exceptions=True)
    won = [outcome for outcome in outcomes if not isinstance(outcome, BaseException)]
    assert len(won) == 1
    # Each loser finds the seat taken (or, had it lost every try to the
    # others' writes, the table busy): refused either way.
    assert all(isinstance(outcome, (SeatUnavailable, TableBusy)) for outcome in outcomes
               if isinstance(outcome, BaseException))
    granted, table = won[0]
    assert table.state.seats[0].player_id == granted.player_id
    # Only the winner's token and identity are kept.
    assert len(keys._tokens) == 1 and len(keys._players) == 1
    assert await seating.seat_for_token(table_id, granted.token) == 0
    stream = await seating.store.read_stream(table_stream(table_id))
    assert [r.event_type for r in stream] == ["TableOpened", "SeatTaken"]


async def test_a_token_is_good_at_its_own_table_only_while_its_player_sits(
        seating: Seating) -> None:
    first = (await seating.open_table(CreateTable(seats=2))).state.table_id
    other = (await seating.open_table(CreateTable(seats=2))).state.table_id
    granted, _ = await seating.take_seat(first, 1, TakeSeat(name="Ana"))
    assert await seating.seat_for_token(first, granted.token) == 1
    with pytest.raises(BadToken):
        await seating.seat_for_token(other, granted.token)
    with pytest.raises(BadToken):
        await seating.seat_for_token(first, granted.token + "x")
    # The same person sits at the other table with their identity: a new token.
    assert granted.player_secret is not None
    again, _ = await seating.take_seat(other, 0, TakeSeat(name="Ana", player=PlayerIdentity(
        player_id=granted.player_id, secret=granted.player_secret)))
    assert again.player_id == granted.player_id and again.player_secret is None
    assert again.token != granted.token
    # ... but not a second seat at the first table.
    with pytest.raises(SeatUnavailable):
        await seating.take_seat(first, 0, TakeSeat(name="Ana", player=PlayerIdentity(
            player_id=granted.player_id, secret=granted.player_secret)))


async def test_a_wrong_secret_or_a_strange_id_sits_nobody(seating: Seating,
                                                          keys: MemorySeatKeys) -> None:
    table_id = (await seating.open_table(CreateTable(seats=2))).state.table_id
    granted, _ = await seating.take_seat(table_id, 0, TakeSeat(name="Ana"))
    with pytest.raises(BadToken):
        await seating.take_seat(table_id, 1, TakeSeat(name="Eve", player=PlayerIdentity(
            player_id=granted.player_id, secret="guess")))
    with pytest.raises(BadRequest):
        await seating.take_seat(table_id, 1, TakeSeat(name="Eve", player=PlayerIdentity(
            player_id="not-an-id", secret="guess")))
    assert (await seating.table(table_id, fresh=True)).state.seats[1].free
    assert len(keys._tokens) == 1


async def test_a_rotated_secret_stops_working_at_once(seating: Seating,
                                                      keys: MemorySeatKeys) -> None:
    table_id = (await seating.open_table(CreateTable(seats=2))).state.table_id
    granted, _ = await seating.take_seat(table_id, 0, TakeSeat(name="Ana"))
    assert granted.player_secret is not None
    fresh = await seating.rotate_secret(granted.player_id, granted.player_secret)
    assert await keys.secret_hash(granted.player_id) == token_hash(fresh)
    with pytest.raises(BadToken):
        await seating.rotate_secret(granted.player_id, granted.player_secret)
    other = (await seating.open_table(CreateTable(seats=2))).state.table_id
    with pytest.raises(BadToken):
        await seating.take_seat(other, 0, TakeSeat(name="Ana", player=PlayerIdentity(
            player_id=granted.player_id, secret=granted.player_secret)))
    await seating.take_seat(other, 0, TakeSeat(name="Ana", player=PlayerIdentity(
        player_id=granted.player_id, secret=fresh)))


async def test_a_read_overtaken_by_an_append_does_not_put_the_older_table_back(
        keys: MemorySeatKeys) -> None:
    # Seen in CI: a rematch began game 2, and a read of the table begun just
    # before it ended just after it, leaving game 1 held for reads.  Here a
    # table with no game yet begins game 1 while a read is out.
    store = SlowReads()
    seating = Seating(keys, store)
    opened = await seating.open_table(CreateTable(seats=2, bots=[BotSeat(seat=1)]))
    table_id = opened.state.table_id
    slow_read = await store.held(seating.table(table_id, fresh=True))
    later = await seating.begin_rematch(opened)
    assert not slow_read.done()  # held across the append
    store.release()
    assert (await slow_read).version == later.version  # the later table, not its own read
    assert later.state.game == opened.state.game + 1
    held = seating.known(table_id)
    assert held is not None and held.version == later.version
    assert (await seating.table(table_id)).state.game == later.state.game
