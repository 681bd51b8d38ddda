"""A league of bot-played games for the projection tests (tests/projections/):
five people and a greedy bot, ``game_with`` to put chosen players into a whole
game, ``store_league`` to store many such games interleaved, and ``BOARD``,
the query that reads the leaderboard back in a fixed order."""

from __future__ import annotations

import random

import msgspec

from muggins.eventstore.store import EventStore
from muggins.rules.events import GameStarted, SeatedPlayer
from muggins.rules.presets import preset
from tests.projections.streams import Batches, game_batches, store_interleaved

BOARD = ("SELECT preset, player_id, name, bot, mu, sigma, games, won, drawn, hands, points, "
         "best_play, abandoned FROM leaderboard ORDER BY preset, player_id")

PEOPLE = [SeatedPlayer(seat=0, player_id=f"p{i}", name=f"Player {i}") for i in range(5)]
GREEDY = SeatedPlayer(seat=0, player_id="bot:greedy", name="bot (greedy)", bot=True)


def seated(players: list[SeatedPlayer]) -> tuple[SeatedPlayer, ...]:
    return tuple(msgspec.structs.replace(p, seat=s) for s, p in enumerate(players))


def game_with(players: tuple[SeatedPlayer, ...], name: str, seed: str,
              partners: bool = False) -> Batches:
    """A whole bot-played game whose first event names ``players``."""
    batches = game_batches(preset(name, len(players), partners), seed)
    first = batches[0][1][0]
    assert isinstance(first, GameStarted)
    batches[0][1][0] = GameStarted(ruleset=first.ruleset, players=players)
    return batches


async def store_league(store: EventStore, games: int, seed: int = 7) -> None:
    """``games`` games among five people and a bot, two at a time, interleaved."""
    rng = random.Random(seed)
    streams = []
    for number in range(games):
        pair = rng.sample([*PEOPLE, GREEDY], 2)
        name = "playelephant" if number % 3 else "block"
        streams.append((f"league{number}-g1", game_with(seated(pair), name, f"league/{number}")))
    await store_interleaved(store, streams)
