"""The bots: ``random`` plays any legal tile, ``greedy`` takes the most
points now, then sheds the heaviest tile, ``expert`` searches the hidden
tiles from what its seat may know (muggins.expert).  All play through the
same commands as people; their only randomness is the Random they are given."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from typing import Literal, Protocol

from muggins.expert.bot import ExpertBot
from muggins.rules.commands import AnyCommand, CallMuggins, Play
from muggins.rules.events import Event
from muggins.rules.game import can_call_muggins, legal_moves, points_if_played
from muggins.rules.state import GameState

BotLevel = Literal["random", "greedy", "expert"]
BOT_LEVELS: tuple[BotLevel, ...] = ("random", "greedy", "expert")
#: The expert's thinking time per decision, unless told otherwise.
EXPERT_BUDGET_MS = 200.0


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


def make_bot(level: BotLevel, rng: random.Random, *, budget_ms: float = EXPERT_BUDGET_MS,
             iterations: int | None = None,
             clock: Callable[[], float] | None = None) -> Bot:
    """A bot of ``level``.  The expert thinks ``budget_ms`` of ``clock``
    (``time.perf_counter`` unless given) per decision, or exactly
    ``iterations`` simulations (then it is deterministic for ``rng``)."""
    if level == "random":
        return RandomBot(rng)
    if level == "greedy":
        return GreedyBot(rng)
    if level == "expert":
        return ExpertBot(rng, budget_ms=budget_ms, iterations=iterations,
                         clock=clock or (time.perf_counter if iterations is None else None))
    raise ValueError(f"unknown bot level {level!r}; choose from {', '.join(BOT_LEVELS)}")


def tell(bot: Bot, events: Sequence[Event]) -> None:
    """Let a bot that learns from the hand's events (the expert) see them as
    they happen; it keeps only what every seat may see."""
    observe = getattr(bot, "observe", None)
    if observe is not None:
        observe(events)
