"""What a bot's step costs the scheduler: between two of its own moves a
table's bot reads neither the table's stream nor the game's again (the due
row's query tells which versions the store has, and the process holds them),
and the expert thinks during its human-like pause, not after it."""

from __future__ import annotations

import asyncio
import sys
from collections import Counter
from typing import Any

import pytest

from muggins.domain.codec import game_event
from muggins.domain.streams import game_stream, table_stream
from muggins.infra.embedded import EmbeddedNats
from muggins.replay.record import StoredEvent
from muggins.replay.verify import verify_game
from muggins.tables import scheduler as scheduler_module
from muggins.tables.next_step import Step, next_step
from muggins.tables.scheduler import THOUGHT_AHEAD
from tests.support.service import Running, serve
from tests.support.tables import create


async def test_a_bots_steps_read_no_stream_this_process_holds(service: Running) -> None:
    store = service.runtime.commands.store
    assert store is service.runtime.seating.store  # one store: every read is counted
    reads: Counter[str] = Counter()
    read_stream = store.read_stream

    async def counted(stream: str, *arguments: Any, **options: Any) -> Any:
        reads[stream] += 1
        return await read_stream(stream, *arguments, **options)

    store.read_stream = counted  # type: ignore[method-assign, assignment]
    try:
        table = await create(service, bots=[{"seat": 0, "level": "greedy"},
                                            {"seat": 1, "level": "greedy"}])
        table_id = table["table_id"]
        game = service.runtime.commands
        for _ in range(400):  # two greedy bots at no pause: a hand in well under a second
            known = game._games.get(game_stream(table_id, 1))
            if known is not None and known.version >= 60:
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the bots did not play 60 events")
    finally:
        store.read_stream = read_stream  # type: ignore[method-assign]
    moves = known.version
    # A few reads as the game begins (3 seen), never one a step: the
    # scheduler before this read both streams at every step (45 each here).
    assert reads[game_stream(table_id, 1)] <= 5, reads
    assert reads[table_stream(table_id)] <= 5, reads
    assert moves >= 60


def _thought(outcome: str) -> float:
    return THOUGHT_AHEAD.labels(outcome)._value.get()  # type: ignore[no-any-return]


async def test_the_expert_thinks_during_its_pause_and_its_move_uses_that_thought(
    database_url: str, nats_server: EmbeddedNats, monkeypatch: pytest.MonkeyPatch,
) -> None:
    used, wasted = _thought("used"), _thought("wasted")
    # Who derives a table's next step: an append derives it once and hands
    # it to the scheduler with its wake-up, so thinking ahead never derives
    # it again (it did, once an append).
    derived_by: Counter[str] = Counter()

    def counted_next_step(*arguments: Any) -> Any:
        derived_by[sys._getframe(1).f_code.co_name] += 1
        return next_step(*arguments)

    monkeypatch.setattr(scheduler_module, "next_step", counted_next_step)
    # Pauses of 0.6 s, not 0.3: a thought is used only if it began within
    # the pause, and on a loaded machine (four workers on two cores) the
    # loop once began a few only after it (4 used of the 5 asked).  And 45
    # events, not 30: 30 gave 6-7 thoughts used on a quiet machine, and in
    # five workers on two cores one began late again (4 used).
    async with serve(database_url, nats_server.url, bot_delay=0.6) as service:
        table = await create(service, bots=[{"seat": 0, "level": "expert"},
                                            {"seat": 1, "level": "greedy"}])
        stream = game_stream(table["table_id"], 1)
        for _ in range(1200):
            recorded = await service.runtime.commands.store.read_stream(stream)
            if len(recorded) >= 45:
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the bots did not play 45 events")
    # Every expert move after the greedy bot's (its pause is the workers')
    # took the decision thought during it; only the first of a hand, due at
    # once after the deal's pause, may be thought anew.
    assert _thought("used") - used >= 5
    assert _thought("wasted") - wasted == 0  # each was thought for the version it met
    assert derived_by["_think_ahead"] == 0, derived_by
    assert derived_by["_advance"] >= 5, derived_by
    verdict = verify_game([StoredEvent(r.stream_version, game_event(r)) for r in recorded])
    assert verdict.ok, verdict.problems


async def test_a_step_derived_before_another_append_is_derived_again(
    database_url: str, nats_server: EmbeddedNats,
) -> None:
    """A wake-up's step counts only at the versions it was derived at: a seat
    taken over (or back) between an append and its wake-up changes what is
    due, and the scheduler derives it again rather than trust the old one."""
    async with serve(database_url, nats_server.url, bot_delay=4.0) as service:
        scheduler = service.runtime.scheduler
        assert scheduler is not None
        table = await create(service, bots=[{"seat": 0, "level": "expert"},
                                            {"seat": 1, "level": "expert"}])
        table_id = table["table_id"]
        for _ in range(200):  # dealt, and the leader's move thought during its 4 s pause
            if table_id in scheduler._thought:
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the expert did not think its first move ahead")
        known = service.runtime.seating.known(table_id)
        assert known is not None
        game = service.runtime.commands.known_game(table_id, known.state.game)
        assert game is not None and game.state is not None and game.state.hand is not None
        versions = (known.version, game.number, game.version)
        seat = game.state.hand.turn
        wrong = Step("clock-out", 4.0, seat)  # what a person's seat would have been due

        def forgotten() -> None:
            scheduler._forget_thought(table_id)
            scheduler._weighed.pop(table_id, None)

        # Derived at other versions: derived again, and the expert thinks.
        forgotten()
        scheduler.soon(table_id, 4.0, (wrong, (versions[0] - 1, versions[1], versions[2])))
        assert table_id in scheduler._thought
        # Derived at these very versions: taken as it is (nothing to think).
        forgotten()
        scheduler.soon(table_id, 4.0, (wrong, versions))
        assert table_id not in scheduler._thought
