"""The processes the expert thinks in: they end with the service, and a
failing expert never holds a table up."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from muggins.rules.commands import Play, StartHand
from muggins.rules.game import play, start_game
from muggins.rules.presets import preset
from muggins.tables.bot_workers import BotWorkers

STARTS_A_POOL_AND_DIES = """
import asyncio, os
from muggins.tables.bot_workers import BotWorkers

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
    assert workers.budget(200) == 20  # never under the floor
    assert workers.budget(10) == 10  # a table's own budget below the floor stays
