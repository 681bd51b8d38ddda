"""The bots of every level (the levels' names: muggins.bots.ladder).

The ladder a person chooses from, weakest first (docs/bots.md has each
level's measured strength):

- ``easy``: a beginner's game: greedy's play, except that a share of its
  decisions is any legal play (and then, under the muggins rule, it may
  forget to claim); it calls muggins only half the time.
- ``medium``: the greedy bot: the most points now, then the heaviest tile.
- ``hard``: the expert's search with a small fixed number of simulations.
- ``expert``: the expert's search with its whole time budget.

Each level but the expert is a fixed amount of thinking, so its strength does
not depend on how busy the machine is.  ``random`` and ``greedy`` are kept as
reference bots: yardsticks for tests and benchmarks, and the levels tables
stored before the ladder name (the lobby offers the ladder alone).  All play
through the same commands as people; their only randomness is the Random
they are given.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from typing import Protocol

from muggins.bots.ladder import BOT_LEVELS, EXPERT_BUDGET_MS, SAME_AS, BotLevel
from muggins.expert.bot import ExpertBot
from muggins.rules.commands import AnyCommand, CallMuggins, Play
from muggins.rules.events import Event
from muggins.rules.game import can_call_muggins, legal_moves, points_if_played
from muggins.rules.state import GameState

#: ``easy``: the share of its decisions played at random (the rest greedy's).
#: Chosen by measurement (bench_expert --ladder): clearly weaker than greedy,
#: and still clearly stronger than playing at random.
EASY_RANDOM_SHARE = 0.5
#: ``hard``: the expert's simulations per decision.  Fixed, so that a busy
#: machine does not make it weaker; few enough that the expert, with its
#: whole budget, is clearly stronger (bench_expert --ladder).
HARD_ITERATIONS = 100


class Bot(Protocol):
    def choose(self, state: GameState) -> AnyCommand:
        """The move for the seat on turn."""

    def calls_muggins(self, state: GameState, seat: int) -> bool:
        """Whether this bot, sitting at ``seat``, calls muggins now."""


def _with_claim(state: GameState, play: Play, remember: bool = True) -> Play:
    """The play with its points claimed, as the muggins rule asks."""
    if not state.ruleset.muggins_rule or not remember:
        return play
    points = points_if_played(state, play)
    return Play(seat=play.seat, tile=play.tile, end=play.end, claim=points or None)


class RandomBot:
    """Any legal move, uniformly; under the muggins rule it forgets to claim
    one scoring play in five, so that opponents have something to call."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, state: GameState) -> AnyCommand:
        moves = [m for m in legal_moves(state) if not isinstance(m, CallMuggins)]
        move = moves[int(self.rng.random() * len(moves))]
        if isinstance(move, Play):
            return _with_claim(state, move, remember=self.rng.random() >= 0.2)
        return move

    def calls_muggins(self, state: GameState, seat: int) -> bool:
        return can_call_muggins(state, seat) and self.rng.random() < 0.5


class GreedyBot:
    """The most points now; among equals the heaviest tile; then the first listed."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng

    def choose(self, state: GameState) -> AnyCommand:
        moves = [m for m in legal_moves(state) if not isinstance(m, CallMuggins)]
        plays = [m for m in moves if isinstance(m, Play)]
        if not plays:
            return moves[0]
        best = max(
            plays,
            key=lambda p: (points_if_played(state, p), p.tile.low + p.tile.high, p.tile.high),
        )
        return _with_claim(state, best)

    def calls_muggins(self, state: GameState, seat: int) -> bool:
        return can_call_muggins(state, seat)


class EasyBot:
    """A beginner: greedy's play, but ``random_share`` of its decisions any
    legal play, as the random bot makes it (a forgotten claim included); it
    notices an opponent's under-claim half the time."""

    def __init__(self, rng: random.Random, random_share: float) -> None:
        self.rng = rng
        self.random_share = random_share
        self.careless = RandomBot(rng)
        self.careful = GreedyBot(rng)

    def choose(self, state: GameState) -> AnyCommand:
        if self.rng.random() < self.random_share:
            return self.careless.choose(state)
        return self.careful.choose(state)

    def calls_muggins(self, state: GameState, seat: int) -> bool:
        return self.careless.calls_muggins(state, seat)


def make_bot(level: BotLevel, rng: random.Random, *, budget_ms: float = EXPERT_BUDGET_MS,
             iterations: int | None = None,
             clock: Callable[[], float] | None = None) -> Bot:
    """A bot of ``level``.  The expert thinks ``budget_ms`` of ``clock``
    (``time.perf_counter`` unless given) per decision, or exactly
    ``iterations`` simulations (then it is deterministic for ``rng``).
    ``hard`` always thinks its own HARD_ITERATIONS: neither applies to it."""
    match SAME_AS.get(level, level):
        case "random":
            return RandomBot(rng)
        case "greedy":
            return GreedyBot(rng)
        case "easy":
            return EasyBot(rng, EASY_RANDOM_SHARE)
        case "hard":
            return ExpertBot(rng, iterations=HARD_ITERATIONS)
        case "expert":
            return ExpertBot(rng, budget_ms=budget_ms, iterations=iterations,
                             clock=clock or (time.perf_counter if iterations is None else None))
    raise ValueError(f"unknown bot level {level!r}; choose from {', '.join(BOT_LEVELS)}")


def tell(bot: Bot, events: Sequence[Event]) -> None:
    """Let a bot that learns from the hand's events (the expert) see them as
    they happen; it keeps only what every seat may see."""
    observe = getattr(bot, "observe", None)
    if observe is not None:
        observe(events)
