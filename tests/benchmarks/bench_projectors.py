"""Projector rebuild speed: events per second over 100,000 stored events.

Stores self-played games until 100,000 events are there, then rebuilds the
table-views read model from event 0 (read, fold, write with the checkpoint,
page by page) and prints the rate.  The bar (projectors issue): at least
20,000 events/s for the table-view projector on this machine.
"""

from __future__ import annotations

import asyncio
import sys
import time

from muggins.projections.read_models import TableViews
from muggins.projections.runner import ProjectorRunner
from muggins.rules.events import Event
from muggins.rules.presets import preset
from muggins.rules.shuffle import game_seed_from_text
from muggins.selfplay import make_bots, play_game
from tests.benchmarks.common import scratch_store, store_games

EVENTS = 100_000


def games() -> list[list[Event]]:
    result: list[list[Event]] = []
    total = 0
    number = 0
    while total < EVENTS:
        seats = 2 if number % 2 else 4
        rules = preset("playelephant", seats, seats == 4)
        seed = game_seed_from_text(f"bench-projectors/{number}")
        events = list(play_game(rules, seed, make_bots(["greedy"] * seats, seed)))
        result.append(events)
        total += len(events)
        number += 1
    return result


async def main() -> int:
    played = games()
    async with scratch_store() as store:
        await store_games(store, played, "b")
        total = await store.head_position()
        runner = ProjectorRunner(store.pool, store, TableViews())
        await runner.rebuild()
        began = time.perf_counter()
        count = await runner.catch_up()
        seconds = time.perf_counter() - began
    rate = count / seconds
    print(f"table-views: rebuilt {count} events ({total} stored, {len(played)} games) "
          f"in {seconds:.1f} s: {rate:,.0f} events/s (bar: 20,000)")
    met = rate >= 20_000
    print("bar met" if met else "BAR MISSED")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
