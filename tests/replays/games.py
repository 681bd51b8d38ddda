"""Simulated games stored through the real event store, for the replay tests."""

from __future__ import annotations

from muggins.bots.ladder import BotLevel
from muggins.bots.selfplay import make_bots, play_game_commands
from muggins.domain.codec import encoded_all
from muggins.eventstore.store import EventStore
from muggins.replay.record import StoredEvent
from muggins.replay.source import load_game
from muggins.rules.presets import preset
from muggins.rules.shuffle import game_seed_from_text


async def store_game(
    store: EventStore,
    table: str,
    name: str,
    seats: int = 2,
    partners: bool = False,
    bot: BotLevel = "greedy",
    seed: str = "replay",
) -> list[StoredEvent]:
    rules = preset(name, seats, partners)
    game_seed = game_seed_from_text(f"{seed}/{table}")
    version = 0
    for result in play_game_commands(rules, game_seed, make_bots([bot] * seats, game_seed)):
        await store.append(table, version, encoded_all(result.events), actor=result.actor)
        version += len(result.events)
    return await load_game(store, table)
