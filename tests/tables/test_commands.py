"""Commands decided on the table as a process knows it, the append guarded by
the table's version: what another process changed at the table is never
decided around (two processes, one store, no service or scheduler; the
in-memory store and keys, which tests/contract holds to PostgreSQL's)."""

from __future__ import annotations

import pytest

from muggins.domain.streams import table_stream
from muggins.eventstore.memory import MemoryEventStore
from muggins.rules.commands import StartHand
from muggins.rules.game import legal_moves
from muggins.tables.commands import Commands, Game
from muggins.tables.metrics import BroadcastClock
from muggins.tables.next_step import Timings
from muggins.tables.protocol import CreateTable, TakeSeat
from muggins.tables.seat_keys import MemorySeatKeys
from muggins.tables.seating import Seating
from muggins.tables.wakeups import Wakeups
from tests.support.slow_reads import SlowReads


@pytest.fixture
def memory_store() -> MemoryEventStore:
    return MemoryEventStore()


#: The keys every "process" shares, as they share PostgreSQL's tables.
KEYS = MemorySeatKeys()


def process(store: MemoryEventStore) -> tuple[Seating, Commands]:
    """One process's seating and commands (each with its own caches)."""
    seating = Seating(KEYS, store)
    return seating, Commands(store, seating, Timings(), BroadcastClock(), Wakeups())


async def hand_begun(seating: Seating, commands: Commands) -> str:
    """A table of two people, Ana and Bea, its first hand begun: its id."""
    table = await seating.open_table(CreateTable(seats=2))
    table_id = table.state.table_id
    for seat, name in ((0, "Ana"), (1, "Bea")):
        _, table = await seating.take_seat(table_id, seat, TakeSeat(name=name))
    await commands.begin(table)
    await commands.submit(table_id, StartHand(seed="ab" * 32), actor="system")
    return table_id


async def test_a_move_on_a_table_another_process_changed_is_decided_on_the_change(
        memory_store: MemoryEventStore) -> None:
    """Process B gives seat 0 to a bot after A last read the table; A's
    person at seat 0 then moves.  Decided on A's table as it knew it, the
    move would leave the bot in the seat; the guard sends A to the store,
    and the move takes the seat back, as a move by the person does."""
    seating_a, commands_a = process(memory_store)
    table_id = await hand_begun(seating_a, commands_a)
    game = await commands_a.game(table_id, 1)
    assert game.state is not None and game.state.hand is not None
    mover = game.state.hand.turn
    known = await seating_a.table_as_known(table_id)

    seating_b, _ = process(memory_store)
    assert await seating_b.take_over(table_id, mover, "absent", game=1, version=game.version,
                                     hand=1)
    assert (await seating_a.table_as_known(table_id)).version == known.version  # A knows nothing

    version = await commands_a.submit(table_id, legal_moves(game.state)[0],
                                      actor=f"seat:{mover}", known_version=game.version,
                                      person=mover)
    assert version > game.version
    after = await seating_a.table(table_id, fresh=True)
    assert after.state.seats[mover].takeover is None  # the person's move took it back
    kinds = [r.event_type for r in await memory_store.read_stream(table_stream(table_id))]
    assert kinds[-2:] == ["BotTookOver", "PlayerReturned"]


async def test_a_refusal_from_the_table_as_known_is_checked_against_the_store(
        memory_store: MemoryEventStore) -> None:
    """A's table as it knew it has no game begun; B's seating began one.  A
    command A would refuse on what it knew is judged on the store's table."""
    seating_a, commands_a = process(memory_store)
    table = await seating_a.open_table(CreateTable(seats=2))
    table_id = table.state.table_id
    _, table = await seating_a.take_seat(table_id, 0, TakeSeat(name="Ana"))
    seating_b, commands_b = process(memory_store)
    _, table_b = await seating_b.take_seat(table_id, 1, TakeSeat(name="Bea"))
    await commands_b.begin(table_b)
    assert (await seating_a.table_as_known(table_id)).state.game == 0
    assert await commands_a.submit(table_id, StartHand(seed="ab" * 32), actor="system") > 1


async def test_a_game_read_overtaken_by_a_move_does_not_put_the_older_game_back() -> None:
    """A's read of the game begins after B's move and ends after A's own
    next move: the game A holds stays the later one."""
    store = SlowReads()
    seating_a, commands_a = process(store)
    table_id = await hand_begun(seating_a, commands_a)
    started = await commands_a.game(table_id, 1)
    _, commands_b = process(store)
    await move(commands_b, table_id, started)
    slow_read = await store.held(commands_a.game(table_id, 1))
    later = await move(commands_a, table_id, await commands_b.game(table_id, 1))
    assert not slow_read.done()  # held across the move
    store.release()
    assert (await slow_read).version == later  # the latest this process knows
    held = commands_a.known_game(table_id, 1)
    assert held is not None and held.version == later
    # A read that finds nothing after what A held when it began answers
    # what A holds when it ends.
    empty_read = await store.held(commands_a.game(table_id, 1))
    latest = await move(commands_a, table_id, held)
    assert not empty_read.done()
    store.release()
    assert (await empty_read).version == latest > later


async def move(commands: Commands, table_id: str, game: Game) -> int:
    """The first legal move of the seat to play, as its person; the new version."""
    assert game.state is not None and game.state.hand is not None
    mover = game.state.hand.turn
    return await commands.submit(table_id, legal_moves(game.state)[0], actor=f"seat:{mover}",
                                 known_version=game.version, person=mover)
