"""Games for the expert's tests: played with the engine, the experts told the events."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from muggins.bots.levels import Bot, GreedyBot
from muggins.expert.bot import ExpertBot
from muggins.expert.search_structs import SearchSettings
from muggins.rules.commands import AnyCommand, CallMuggins, StartHand
from muggins.rules.events import Event
from muggins.rules.game import apply, play, start_game
from muggins.rules.ruleset import Ruleset
from muggins.rules.shuffle import hand_seed
from muggins.rules.state import GameState

#: Few simulations: the tests check behaviour, not strength.
QUICK = SearchSettings(iterations=24)


def quick_expert(seed: int, iterations: int = 24) -> ExpertBot:
    return ExpertBot(random.Random(seed), iterations=iterations, settings=QUICK)


def decisions(
    rules: Ruleset,
    game_seed: bytes,
    bots: list[Bot],
    max_hands: int = 2,
    on_decision: Callable[[GameState, list[Event], AnyCommand], None] | None = None,
) -> Iterator[tuple[GameState, AnyCommand]]:
    """Play a game (at most ``max_hands`` hands); yield each state and the command
    its bot chose.  Every ExpertBot observes every event; ``apply`` refuses an
    illegal command, so a game that finishes made only legal ones."""
    state, _ = start_game(rules)
    hand_events: list[Event] = []
    experts = [bot for bot in bots if isinstance(bot, ExpertBot)]

    def observed(new: list[Event]) -> None:
        for expert in experts:
            expert.observe(new)
        hand_events.extend(new)

    hands = 0
    while state.phase != "game-over":
        if state.phase == "between-hands":
            if hands >= max_hands:
                return
            hands += 1
            state, new = play(state, StartHand(seed=hand_seed(game_seed, hands).hex()))
            hand_events.clear()
            observed(new)
            continue
        hand = state.hand
        assert hand is not None
        callers = [s for s in range(rules.seats) if bots[s].calls_muggins(state, s)]
        if callers:
            state, new = apply(state, CallMuggins(seat=callers[0]))
            observed(new)
            continue
        command = bots[hand.turn].choose(state)
        if on_decision is not None:
            on_decision(state, list(hand_events), command)
        yield state, command
        state, new = play(state, command)
        observed(new)


def expert_and_greedy(rules: Ruleset, seed: int) -> list[Bot]:
    """Experts on side 0's seats (every even seat, or seat 0 alone), greedy elsewhere."""
    return [
        quick_expert(seed * 10 + seat) if rules.side_of(seat) == 0 else GreedyBot()
        for seat in range(rules.seats)
    ]
