"""Projector rebuild speed: events per second over 100,000 stored events.

Stores self-played games until 100,000 events are there (each naming its
players, drawn from a pool of 50 people and the bots, so the leaderboard has
real work), then rebuilds each projector's read model from event 0 (read,
fold, write with the checkpoint, page by page) and prints its rate.  The bar
(projectors issue): at least 20,000 events/s for the table-view projector on
this machine.  ``--smoke``: a few hundred events, the same path; the bar not
judged.
"""

from __future__ import annotations

import asyncio
import sys
import time

from muggins.bots.selfplay import make_bots, play_game
from muggins.projections.read_models import PROJECTIONS
from muggins.projections.runner import ProjectorRunner
from muggins.rules.events import Event, GameStarted, SeatedPlayer
from muggins.rules.presets import preset
from muggins.rules.shuffle import game_seed_from_text
from tests.benchmarks.common import scratch_store, store_games

EVENTS = 100_000


def games(events_wanted: int = EVENTS) -> list[list[Event]]:
    result: list[list[Event]] = []
    total = 0
    number = 0
    while total < events_wanted:
        seats = 2 if number % 2 else 4
        rules = preset("playelephant", seats, seats == 4)
        seed = game_seed_from_text(f"bench-projectors/{number}")
        events = list(play_game(rules, seed, make_bots(["greedy"] * seats, seed)))
        result.append(events)
        total += len(events)
        number += 1
    return result


def with_players(number: int, events: list[Event]) -> list[Event]:
    """The game with a roster in its first event: people from a pool of 50, some bots."""
    first = events[0]
    assert isinstance(first, GameStarted)
    players = []
    for seat in range(first.ruleset.seats):
        person = (number * 7 + seat * 13) % 53
        players.append(
            SeatedPlayer(seat=seat, player_id=f"person-{person}", name=f"Person {person}")
            if person < 50
            else SeatedPlayer(seat=seat, player_id="bot:greedy", name="bot (greedy)", bot=True)
        )
    return [GameStarted(ruleset=first.ruleset, players=tuple(players)), *events[1:]]


async def main(smoke: bool = False) -> int:
    played = [with_players(n, events)
              for n, events in enumerate(games(500 if smoke else EVENTS))]
    rates = {}
    async with scratch_store() as store:
        await store_games(store, played, "b")
        total = await store.head_position()
        for name, projection in PROJECTIONS.items():
            runner = ProjectorRunner(store.pool, store, projection())
            await runner.rebuild()
            began = time.perf_counter()
            count = await runner.catch_up()
            seconds = time.perf_counter() - began
            assert count == total, f"{name} folded {count} of {total} events"
            rates[name] = count / seconds
            print(f"{name}: rebuilt {count} events ({total} stored, {len(played)} games) "
                  f"in {seconds:.1f} s: {rates[name]:,.0f} events/s", flush=True)
    if smoke:
        print("smoke run: ok")
        return 0
    met = rates["table-views"] >= 20_000
    print("bar (table-views at least 20,000 events/s): " + ("met" if met else "MISSED"))
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main(smoke="--smoke" in sys.argv)))
