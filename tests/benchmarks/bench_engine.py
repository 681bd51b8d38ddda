"""Random-playout speed of the rules engine against OpenSpiel's pure-Python
``python_block_dominoes``, measured in the same run on the same machine.

Prints complete random hands per second for ``block`` (2 seats) and
``playelephant`` (2 and 4 seats), the OpenSpiel rate, and the ratios issue
#27 sets as bars: block >= 15x OpenSpiel (target 20x), playelephant (2
seats) >= 10x OpenSpiel (the first rules-engine issue's were 10x and 5x).
Single process; each rate is the best of a few timed rounds, so a passing
hiccup of the machine does not decide it, and the rounds take turns (one of
each contender, then the next of each): a machine whose speed drifts during
the run (this one's did by a tenth between runs) slows every contender
alike instead of whichever ran last.
``--smoke``: short rounds, no bars judged; where OpenSpiel is not installed
the smoke run says so and measures the rules engine alone.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable

from muggins.infra import compiled
from muggins.rules.commands import StartHand
from muggins.rules.game import legal_plays, play, start_game
from muggins.rules.presets import preset
from muggins.rules.shuffle import hand_seed

ROUND_SECONDS = 1.2
ROUNDS = 5
#: Issue #27's bars, as multiples of OpenSpiel's rate in the same run.
BLOCK_BAR = 15.0
BLOCK_TARGET = 20.0
ELEPHANT_BAR = 10.0


Contender = Callable[[float], tuple[int, float]]


def best_rates(contenders: dict[str, Contender]) -> dict[str, float]:
    """Each contender's best hands-per-second of ROUNDS timed rounds, the
    rounds taken in turns."""
    for run_for in contenders.values():
        run_for(0.2)  # warm up
    rates: dict[str, list[float]] = {label: [] for label in contenders}
    for _ in range(ROUNDS):
        for label, run_for in contenders.items():
            hands, elapsed = run_for(ROUND_SECONDS)
            rates[label].append(hands / elapsed)
    return {label: max(measured) for label, measured in rates.items()}


def muggins_playouts(name: str, seats: int, partners: bool) -> Contender:
    rules = preset(name, seats, partners)
    rng = random.Random(2026)
    game_seed = b"benchmark-seed-for-random-hands"

    def run_for(seconds: float) -> tuple[int, float]:
        hands = 0
        start = time.perf_counter()
        deadline = start + seconds
        while time.perf_counter() < deadline:
            state, _ = start_game(rules)
            while (phase := state.phase) != "game-over":
                if phase == "between-hands":
                    hands += 1
                    seed = hand_seed(game_seed, hands).hex()
                    state, _ = play(state, StartHand(seed=seed))
                    continue
                plays = legal_plays(state)
                state, _ = play(state, plays[int(rng.random() * len(plays))])
        return hands, time.perf_counter() - start

    return run_for


def open_spiel_playouts() -> Contender:
    import pyspiel  # the optional yardstick: pip install 'muggins[bench]'
    from open_spiel.python.games import block_dominoes  # noqa: F401  registers the game

    game = pyspiel.load_game("python_block_dominoes")
    rng = random.Random(2026)

    def run_for(seconds: float) -> tuple[int, float]:
        hands = 0
        start = time.perf_counter()
        deadline = start + seconds
        while time.perf_counter() < deadline:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    action = outcomes[int(rng.random() * len(outcomes))][0]
                else:
                    actions = state.legal_actions()
                    action = actions[int(rng.random() * len(actions))]
                state.apply_action(action)
            hands += 1
        return hands, time.perf_counter() - start

    return run_for


def main(smoke: bool = False) -> int:
    global ROUND_SECONDS, ROUNDS
    if smoke:
        ROUND_SECONDS, ROUNDS = 0.2, 1
    open_spiel: Contender | None
    try:
        open_spiel = open_spiel_playouts()
    except ImportError:
        print("open-spiel is not installed: run `python3 deploy/dev.py bench`, which installs it")
        if not smoke:
            return 2
        open_spiel = None
    contenders = {
        "muggins block, 2 seats": muggins_playouts("block", 2, False),
        "muggins playelephant, 2 seats": muggins_playouts("playelephant", 2, False),
        "muggins playelephant, 4 seats": muggins_playouts("playelephant", 4, True),
    }
    if open_spiel is not None:
        contenders["OpenSpiel python_block_dominoes"] = open_spiel
    results = best_rates(contenders)
    print(f"rules engine: {compiled.describe()}")
    for label, rate in results.items():
        print(f"{label:<34} {rate:>10,.0f} random hands/s")
    if smoke:
        assert all(rate > 0 for rate in results.values()), results
        print("smoke run: ok")
        return 0
    base = results["OpenSpiel python_block_dominoes"]
    block_ratio = results["muggins block, 2 seats"] / base
    elephant_ratio = results["muggins playelephant, 2 seats"] / base
    elephant4_ratio = results["muggins playelephant, 4 seats"] / base
    print(f"block / OpenSpiel:            {block_ratio:5.1f}x  (bar: {BLOCK_BAR:.0f}x, "
          f"target {BLOCK_TARGET:.0f}x)")
    print(f"playelephant 2 / OpenSpiel:   {elephant_ratio:5.1f}x  (bar: {ELEPHANT_BAR:.0f}x)")
    print(f"playelephant 4 / OpenSpiel:   {elephant4_ratio:5.1f}x  (no bar)")
    met = block_ratio >= BLOCK_BAR and elephant_ratio >= ELEPHANT_BAR
    print("bars met" if met else "BARS MISSED")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main(smoke="--smoke" in sys.argv))
