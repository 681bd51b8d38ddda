"""Verifying stored hands: the replay tool's rules work per hand.

Stores self-played games (playelephant, 2 and 4 seats, and muggins) through
the real event store until 10,000 hands are there, reads them back (timed
apart: database reads do not count), then verifies every hand: commitment,
deal and draws from the seed, every move and score by the rules, stream order.
The bar: under 1 ms of rules work per hand.  ``--smoke``: a few games, the
same path, every hand still verified; the bar not judged.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections import defaultdict

from muggins.bots.selfplay import make_bots, play_game
from muggins.domain.codec import game_event
from muggins.replay.record import StoredEvent
from muggins.replay.verify import verify_game
from muggins.rules.events import Event, HandEnded
from muggins.rules.presets import preset
from muggins.rules.shuffle import game_seed_from_text
from tests.benchmarks.common import scratch_store, store_games

HANDS = 10_000
SETUPS = [("playelephant", 2, False), ("playelephant", 4, True), ("muggins", 3, False)]


def games_until(hands: int) -> list[list[Event]]:
    games = []
    total = 0
    number = 0
    while total < hands:
        name, seats, partners = SETUPS[number % len(SETUPS)]
        seed = game_seed_from_text(f"bench-replay/{number}")
        events = list(play_game(preset(name, seats, partners), seed,
                                make_bots(["greedy"] * seats, seed)))
        games.append(events)
        total += sum(isinstance(e, HandEnded) for e in events)
        number += 1
    return games


async def main(smoke: bool = False) -> int:
    games = games_until(30 if smoke else HANDS)
    hands = sum(isinstance(e, HandEnded) for game in games for e in game)
    async with scratch_store() as store:
        await store_games(store, games, "g")
        began = time.perf_counter()
        streams: dict[str, list[StoredEvent]] = defaultdict(list)
        after = 0
        while page := await store.read_all(after, 5000):
            for recorded in page:
                streams[recorded.stream_id].append(
                    StoredEvent(recorded.stream_version, game_event(recorded))
                )
            after = page[-1].position
        read_seconds = time.perf_counter() - began
    began = time.perf_counter()
    checked = 0
    for stored in streams.values():
        verdict = verify_game(stored)
        assert verdict.ok, verdict.problems
        checked += len(verdict.hands)
    verify_seconds = time.perf_counter() - began
    per_hand_ms = verify_seconds / checked * 1000
    print(f"stored: {len(streams)} games, {hands} hands, "
          f"{sum(len(s) for s in streams.values())} events")
    print(f"reading them back (not counted): {read_seconds:.1f} s")
    print(f"verified {checked} hands in {verify_seconds:.2f} s: {checked / verify_seconds:,.0f} "
          f"hands/s, {per_hand_ms:.3f} ms per hand (bar: under 1 ms)")
    if smoke:
        print("smoke run: ok")
        return 0
    met = per_hand_ms < 1.0
    print("bar met" if met else "BAR MISSED")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main(smoke="--smoke" in sys.argv)))
