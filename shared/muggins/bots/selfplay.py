"""Bots playing whole games against each other, reproducibly from one seed."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

import msgspec

from muggins.bots.ladder import EXPERT_BUDGET_MS, BotLevel
from muggins.bots.levels import Bot, make_bot, tell
from muggins.rules.commands import CallMuggins, StartHand
from muggins.rules.events import Event
from muggins.rules.game import apply, play, start_game
from muggins.rules.ruleset import Ruleset
from muggins.rules.shuffle import hand_seed
from muggins.rules.state import GameState

#: A game that has not ended after this many hands is a bug, not a long game.
MAX_HANDS = 1000


class RunawayGame(RuntimeError):
    """A self-play game that did not end within MAX_HANDS hands."""


def bot_rng(game_seed: bytes, seat: int) -> random.Random:
    """A seat's bot randomness, derived from the game seed (Random(int) is
    reproducible across Python versions for ``random()``)."""
    return random.Random(int.from_bytes(game_seed, "big") ^ (seat + 1))


def make_bots(levels: Sequence[BotLevel], game_seed: bytes, *,
              budget_ms: float = EXPERT_BUDGET_MS, iterations: int | None = None) -> list[Bot]:
    return [make_bot(level, bot_rng(game_seed, seat), budget_ms=budget_ms, iterations=iterations)
            for seat, level in enumerate(levels)]


class CommandResult(msgspec.Struct, frozen=True):
    """The events one command caused, and who issued it ("bot:N" or "system")."""

    actor: str
    events: list[Event]


def play_game_commands(
    ruleset: Ruleset, game_seed: bytes, bots: Sequence[Bot]
) -> Iterator[CommandResult]:
    """One game the bots play, command by command; hand seeds from ``game_seed``."""
    state, events = start_game(ruleset)
    for bot in bots:
        tell(bot, events)
    yield CommandResult("system", events)
    while state.phase != "game-over":
        if state.phase == "between-hands":
            if state.hands_played >= MAX_HANDS:
                raise RunawayGame(f"no winner after {MAX_HANDS} hands")
            seed = hand_seed(game_seed, state.hands_played + 1).hex()
            state, events = play(state, StartHand(seed=seed))
            for bot in bots:
                tell(bot, events)
            yield CommandResult("system", events)
            continue
        caller = _muggins_caller(state, bots)
        if caller is not None:
            state, events = apply(state, CallMuggins(seat=caller))
            for bot in bots:
                tell(bot, events)
            yield CommandResult(f"bot:{caller}", events)
            continue
        assert state.hand is not None
        seat = state.hand.turn
        state, events = play(state, bots[seat].choose(state))
        for bot in bots:
            tell(bot, events)
        yield CommandResult(f"bot:{seat}", events)


def play_game(ruleset: Ruleset, game_seed: bytes, bots: Sequence[Bot]) -> Iterator[Event]:
    """Every event of one game the bots play, hand seeds derived from ``game_seed``."""
    for result in play_game_commands(ruleset, game_seed, bots):
        yield from result.events


def _muggins_caller(state: GameState, bots: Sequence[Bot]) -> int | None:
    """The first opponent, in seat order from the one on turn, whose bot calls muggins."""
    hand = state.hand
    if hand is None or hand.pending is None:
        return None
    seats = state.ruleset.seats
    for offset in range(seats):
        seat = (hand.turn + offset) % seats
        if bots[seat].calls_muggins(state, seat):
            return seat
    return None
