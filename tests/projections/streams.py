"""Games for the projector tests: played by bots, stored as tables play at once."""

from __future__ import annotations

import asyncio

from muggins.bots.selfplay import make_bots, play_game_commands
from muggins.domain.codec import encoded_all
from muggins.eventstore.store import EventStore
from muggins.rules.events import Event
from muggins.rules.ruleset import Ruleset
from muggins.rules.shuffle import game_seed_from_text

Batches = list[tuple[str, list[Event]]]


def game_batches(rules: Ruleset, seed: str) -> Batches:
    """A whole game by greedy bots: (actor, events) per command."""
    game_seed = game_seed_from_text(seed)
    return [(r.actor, list(r.events)) for r in
            play_game_commands(rules, game_seed, make_bots(["greedy"] * rules.seats, game_seed))]


async def store_interleaved(store: EventStore, games: list[tuple[str, Batches]]) -> int:
    """Store the games' commands round-robin, as tables play at once; return the event count."""
    versions = dict.fromkeys((stream for stream, _ in games), 0)
    total = 0
    step = 0
    while any(step < len(batches) for _, batches in games):
        appends = []
        for stream, batches in games:
            if step < len(batches):
                actor, events = batches[step]
                appends.append(store.append(stream, versions[stream], encoded_all(events),
                               actor=actor))
                versions[stream] += len(events)
                total += len(events)
        await asyncio.gather(*appends)
        step += 1
    return total
