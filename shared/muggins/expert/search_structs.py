"""What the search is told and what it answers: frozen msgspec Structs.

They live apart from ``muggins.expert.search`` because that module is
compiled with mypyc (hatch_build.py), and a Struct defined in a compiled
module would no longer be frozen.
"""

from __future__ import annotations

import msgspec


class SearchSettings(msgspec.Struct, frozen=True, kw_only=True):
    """How hard and how the expert searches.  ``iterations`` set: that many
    simulations (with shared deals, up to the next whole deal), whatever the
    clock (deterministic for a seed); else as many as ``budget_ms`` allows."""

    iterations: int | None = None
    #: The expert level's default, ``muggins.bots.ladder.EXPERT_BUDGET_MS``
    #: (which this pure package may not import; tests/bots hold them equal).
    budget_ms: float = 20.0
    #: UCB1's exploration constant, in points of reward: 55 against 35 won
    #: 51.4% of 2,000 games at 1,000 simulations and 51.9% of 1,000 at 20 ms,
    #: and against the frozen expert (35, 5,900 simulations) 50.7% of 2,000
    #: at 20 ms, where 35 won 47.3% of 1,000 (docs/bots.md; 35 was once
    #: measured better than 18 and 60 against greedy).
    exploration: float = 55.0
    #: Chance that a simulated player takes the best-scoring play (else any play).
    greedy_rate: float = 0.85
    #: Reward for winning the game inside a simulation, in points.
    game_bonus: float = 100.0
    #: Play every root play on each sampled deal (same luck for each) rather
    #: than choosing one root play per deal by UCB1.  Measured: 4 seats in
    #: partnerships, 300 simulations, 74% of games won against 66.5%; 2 seats
    #: at 20 ms, 51.7% and 51.2% of two 1,000-game matches against UCB1 at
    #: the root (docs/bots.md).
    shared_deals: bool = True
    #: Below 1: deals where an opponent passed up points it held are kept
    #: with this probability per such choice (``sampler``); 1 turns it off.
    missed_points_weight: float = 0.2


class MoveStats(msgspec.Struct, frozen=True):
    """What the search found about one of the root's plays."""

    move: int
    visits: int
    #: Mean reward (points for the side minus the others', game bonus included).
    value: float
    #: Mean points for the side minus the others' to the hand's end (no game bonus).
    points: float


class SearchResult(msgspec.Struct, frozen=True):
    """Each root play's statistics (in legal order), the best, and the effort."""

    moves: tuple[MoveStats, ...]
    best: int
    iterations: int
    #: Moves played in all the simulations (tree and playouts).
    simulated_moves: int
