"""The processes the expert thinks in: they end with the service, and a
failing expert never holds a table up."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from muggins.bots.ladder import EXPERT_BUDGET_MS
from muggins.rules.commands import Play, StartHand
from muggins.rules.game import play, start_game
from muggins.rules.presets import preset
from muggins.tables.bot_workers import (
    AHEAD,
    DUE_NOW,
    MIN_BUDGET_MS,
    BotWorkers,
    WorkerTurns,
    fork_server_fits,
    worker_processes,
)
from muggins.tables.metrics import BOT_BUDGET, BOT_DECISIONS

STARTS_A_POOL_AND_DIES = """
import asyncio, os
from muggins.tables.bot_workers import AHEAD, DUE_NOW, BotWorkers, WorkerTurns

async def main():
    workers = BotWorkers(1)
    await workers.start()
    print(*[p.pid for p in workers._executor()._processes.values()], flush=True)
    os._exit(0)  # killed, as far as the workers can tell: nobody shuts them down

asyncio.run(main())
"""


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:  # a zombie is gone too
        return stat.read().split()[2] != "Z"


def test_the_workers_end_when_the_service_is_gone() -> None:
    started = subprocess.run([sys.executable, "-c", STARTS_A_POOL_AND_DIES],
                             capture_output=True, text=True, timeout=60, check=True)
    pids = [int(pid) for pid in started.stdout.split()]
    assert pids
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in pids):
        assert time.monotonic() < deadline, "a bot worker outlived the service"
        time.sleep(0.1)


async def test_in_a_temporary_directory_too_long_for_the_fork_servers_socket_the_workers_spawn(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A TMPDIR with no room for the fork server's socket path once stopped
    the table service ("AF_UNIX path too long"): the workers are spawned
    instead, and think as well."""
    long_folder = tmp_path / ("t" * 100)
    long_folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(long_folder))
    assert not fork_server_fits()
    assert worker_processes().get_start_method() == "spawn"
    state, _ = start_game(preset("playelephant", 2, False))
    state, events = play(state, StartHand(seed="ab" * 32))
    workers = BotWorkers(1)
    try:
        await workers.start()  # the fork server's start failed here
        assert isinstance(await workers.move("expert", state, events, "seed"), Play)
    finally:
        workers.close()
    monkeypatch.setattr(tempfile, "tempdir", "/tmp")
    assert fork_server_fits()


async def test_a_failing_expert_gives_way_to_greedy(monkeypatch: pytest.MonkeyPatch) -> None:
    state, _ = start_game(preset("playelephant", 2, False))
    state, events = play(state, StartHand(seed="ab" * 32))
    workers = BotWorkers(1)

    async def broken(*_: object) -> bytes:
        raise RuntimeError("no deal is consistent with this knowledge")

    monkeypatch.setattr(workers, "_in_worker", broken)
    command = await workers.move("expert", state, events, "seed")
    assert isinstance(command, Play)  # greedy's play: the table goes on
    workers.close()


def test_under_load_each_decision_gets_its_share_of_the_workers_time() -> None:
    workers = BotWorkers(2, budget_ms=200)
    assert workers.budget(200) == 200  # nobody waits
    workers.waiting = 2
    assert workers.budget(200) == 200  # as many as there are workers
    workers.waiting = 8
    assert workers.budget(200) == 50
    workers.waiting = 500
    assert workers.budget(200) == MIN_BUDGET_MS  # never under the floor
    assert workers.budget(3) == 3  # a budget below the floor stays (a table's is 10 ms at least)
    # The default budget is above the floor: a busy site shortens it too.
    assert MIN_BUDGET_MS < EXPERT_BUDGET_MS
    assert workers.budget(EXPERT_BUDGET_MS) == MIN_BUDGET_MS


def test_a_decision_asked_during_the_bots_pause_keeps_its_budget_while_the_queue_fits_it() -> None:
    """Thought ahead (the scheduler's), a decision has the bot's pause to
    spare: the workers' time until it is needed is shared too."""
    workers = BotWorkers(1, budget_ms=200)
    workers.waiting = 5  # a second of work before the fifth answer, in a 800 ms pause
    assert workers.budget(200, slack_ms=800) == 200
    workers.waiting = 10
    assert workers.budget(200, slack_ms=800) == 100
    assert workers.budget(200) == 20  # asked when due: the same share as ever (200 / 10)


async def test_only_a_budgeted_level_counts_as_waiting_for_the_workers_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """hard searches a fixed few simulations (a few ms): counted as a whole
    budget it would cut the experts' share for work it never does."""
    state, _ = start_game(preset("playelephant", 2, False))
    state, events = play(state, StartHand(seed="ab" * 32))
    workers = BotWorkers(1)
    seen: dict[str, int] = {}

    async def counted(_: int, __: object, level: str, *___: object) -> bytes:
        seen[level] = workers.waiting
        raise RuntimeError("not thought here")  # greedy moves instead

    monkeypatch.setattr(workers, "_in_worker", counted)
    for level in ("hard", "expert"):
        assert isinstance(await workers.move(level, state, events, "seed"), Play)
    assert seen == {"hard": 0, "expert": 1}
    assert workers.waiting == 0
    workers.close()


async def test_each_expert_decision_is_counted_as_full_or_shortened(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The operator's measure of capacity: how many decisions had their whole
    budget (muggins_bot_decisions_total), which bench_service reports."""
    state, _ = start_game(preset("playelephant", 2, False))
    state, events = play(state, StartHand(seed="ab" * 32))
    workers = BotWorkers(1, budget_ms=200)
    budgets: list[float] = []

    async def noted(_: int, __: object, level: str, state_json: bytes, events_json: bytes,
                    seed: str, budget_ms: float) -> bytes:
        budgets.append(budget_ms)
        raise RuntimeError("not thought here")  # greedy moves instead

    monkeypatch.setattr(workers, "_in_worker", noted)

    def counted(budget: str) -> float:
        return BOT_DECISIONS.labels(budget)._value.get()  # type: ignore[no-any-return]

    full, shortened = counted("full"), counted("shortened")
    await workers.move("expert", state, events, "seed")  # alone: the whole budget
    workers.waiting = 3  # three more wait for the one worker: a quarter each
    await workers.move("expert", state, events, "seed")
    assert budgets == [200, 50]
    assert (counted("full") - full, counted("shortened") - shortened) == (1, 1)
    # The last budget by when it was asked: one thought during the pause
    # (its slack fits the queue) apart from one due now (shortened).
    await workers.move("expert", state, events, "seed", slack_ms=800)
    assert budgets[-1] == 200
    assert BOT_BUDGET.labels("ahead")._value.get() == 200
    assert BOT_BUDGET.labels("due-now")._value.get() == 50
    workers.close()


async def test_the_workers_take_decisions_due_now_before_those_asked_ahead() -> None:
    """A decision thought ahead during a bot's pause must never make a move
    that is due now wait: the pool itself takes jobs only in the order asked."""
    turns = WorkerTurns(1)
    await turns.take(AHEAD)  # the one worker thinks ahead
    order: list[str] = []

    async def wait(name: str, rank: int) -> None:
        await turns.take(rank)
        order.append(name)

    ahead = asyncio.create_task(wait("ahead", AHEAD))
    given_up = asyncio.create_task(wait("given up", DUE_NOW))
    due_now = asyncio.create_task(wait("due now", DUE_NOW))
    await asyncio.sleep(0)
    given_up.cancel()  # its asker stopped waiting: its place passes on
    await asyncio.sleep(0)
    turns.end()  # the first thought is over
    await asyncio.sleep(0)
    assert order == ["due now"]
    turns.end()
    await asyncio.sleep(0)
    assert order == ["due now", "ahead"]
    turns.end()
    assert turns.free == 1 and not ahead.cancelled() and due_now.done()


async def test_a_turn_given_to_a_cancelled_asker_passes_on() -> None:
    turns = WorkerTurns(1)
    await turns.take(DUE_NOW)
    first = asyncio.create_task(turns.take(DUE_NOW))
    second = asyncio.create_task(turns.take(AHEAD))
    await asyncio.sleep(0)
    turns.end()  # given to the first...
    first.cancel()  # ...which is cancelled before it runs
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert first.cancelled() and second.done()
    turns.end()
    assert turns.free == 1
