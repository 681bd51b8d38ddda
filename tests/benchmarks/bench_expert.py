"""The expert bot's strength: duplicate matches against the greedy bot.

Each deal (a game seed: every hand's seed derives from it) is played once
per side the expert can take, the expert's seats swapped (for partnerships
the expert pair sits 0+2, then 1+3), so the luck of the tiles cancels.
Games run in parallel processes.  Reported: the expert's share of games won
with a 95% Wilson interval, average points per hand for each side, the
time per expert decision (mean and 99th percentile), and simulated hands
(playouts) per second of search.

    python -m tests.benchmarks.bench_expert                      # the three bars, 200 ms
    python -m tests.benchmarks.bench_expert --preset muggins --games 100 --budget-ms 50
    python -m tests.benchmarks.bench_expert --iterations 400 --processes 2
    python -m tests.benchmarks.bench_expert --generic            # the generic ISMCTS yardstick

The bars (issue #16): playelephant 2 seats >= 80% of games won, playelephant
4 seats in partnerships >= 70%, muggins 2 seats >= 70%; a generic ISMCTS
with random playouts measured ~65% at 35 ms per move and ~80% at 200 ms,
and the expert must beat it at the same budget.  ``--generic`` runs that
yardstick here (random playouts, no game weight, no proofs from draws and
passes).  Exits 1 when a bar is missed.  Never collected by pytest (its
name does not start with ``test_``).

``--smoke``: one deal per seating (each played from both sides) at 5 ms a
decision, in two processes: the same path, every game played to its end
with the expert deciding and searching; the bars not judged.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import sys
import time
from collections.abc import Sequence

import msgspec

from muggins.bots.levels import Bot, GreedyBot
from muggins.bots.selfplay import play_game_commands
from muggins.expert.bot import ExpertBot
from muggins.expert.search_structs import SearchSettings
from muggins.rules.commands import AnyCommand
from muggins.rules.events import GameEnded, HandStarted, PointsScored
from muggins.rules.presets import preset
from muggins.rules.ruleset import Ruleset
from muggins.rules.shuffle import game_seed_from_text
from muggins.rules.state import GameState
from tests.benchmarks.common import percentile

#: (preset, seats, partnerships) -> the share of games the expert must win.
BARS: dict[tuple[str, int, bool], float] = {
    ("playelephant", 2, False): 0.80,
    ("playelephant", 4, True): 0.70,
    ("muggins", 2, False): 0.70,
}
#: The games the issue asks for, per seating (``--games`` plays fewer, for a quick look).
GAMES: dict[tuple[str, int, bool], int] = {
    ("playelephant", 2, False): 2000,
    ("playelephant", 4, True): 1000,
    ("muggins", 2, False): 1000,
}
#: The generic ISMCTS (random playouts) the issue measured: budget ms -> share won.
GENERIC_REFERENCE = {35.0: 0.65, 200.0: 0.80}
#: What ``--generic`` changes: the issue's yardstick, not the expert.
GENERIC = {"greedy_rate": 0.0, "game_bonus": 0.0, "missed_points_weight": 1.0}
#: ``--smoke``: games per seating (rounded up to one deal), ms per decision, processes.
SMOKE_GAMES, SMOKE_BUDGET_MS, SMOKE_PROCESSES = 1, 5.0, 2


class Setup(msgspec.Struct, frozen=True):
    preset: str
    seats: int
    partnerships: bool
    budget_ms: float
    iterations: int | None
    generic: bool
    settings: SearchSettings


class GameResult(msgspec.Struct, frozen=True):
    """One game: whether the expert's side won, points per hand, decisions' effort."""

    expert_won: bool
    drawn: bool
    #: The game reached its GameEnded (self-play's loop stops only at game over).
    ended: bool
    hands: int
    expert_points: int
    other_points: int
    decision_seconds: list[float]
    iterations: int
    search_seconds: float


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    denominator = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denominator
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denominator
    return centre - half, centre + half


class TimedExpert:
    """An expert whose decisions are timed; the generic yardstick is told
    nothing of the hand's events (no proofs from draws and passes)."""

    def __init__(self, expert: ExpertBot, learns: bool) -> None:
        self.expert = expert
        self.decision_seconds: list[float] = []
        self.iterations = 0
        self.search_seconds = 0.0
        if learns:
            self.observe = expert.observe

    def choose(self, state: GameState) -> AnyCommand:
        began = time.perf_counter()
        command = self.expert.choose(state)
        took = time.perf_counter() - began
        self.decision_seconds.append(took)
        search = self.expert.last_search
        if search is not None and search.iterations:
            self.iterations += search.iterations
            self.search_seconds += took
        self.expert.last_search = None
        return command

    def calls_muggins(self, state: GameState, seat: int) -> bool:
        return self.expert.calls_muggins(state, seat)


def play_one(setup: Setup, deal: int, expert_side: int) -> GameResult:
    """One game of deal ``deal`` with the expert playing side ``expert_side``
    (the game loop is self-play's, as ``muggins simulate`` plays it)."""
    rules: Ruleset = preset(setup.preset, setup.seats, setup.partnerships)
    game_seed = game_seed_from_text(f"bench-expert/{setup.preset}/{setup.seats}/{deal}")
    bots: list[Bot] = []
    experts: list[TimedExpert] = []
    for seat in range(rules.seats):
        if rules.side_of(seat) == expert_side:
            expert = TimedExpert(ExpertBot(
                random.Random(deal * 31 + seat), budget_ms=setup.budget_ms,
                iterations=setup.iterations, clock=time.perf_counter, settings=setup.settings,
            ), learns=not setup.generic)
            experts.append(expert)
            bots.append(expert)
        else:
            bots.append(GreedyBot())
    points = [0] * rules.side_count
    hands = 0
    winner: int | None = None
    ended = False
    for result in play_game_commands(rules, game_seed, bots):
        for event in result.events:
            if isinstance(event, PointsScored):
                points[event.side] += event.points
            elif isinstance(event, HandStarted):
                hands += 1
            elif isinstance(event, GameEnded):
                winner, ended = event.winner_side, True
    others = sum(points) - points[expert_side]
    return GameResult(
        expert_won=winner == expert_side,
        drawn=winner is None,
        ended=ended,
        hands=hands,
        expert_points=points[expert_side],
        other_points=others // max(1, rules.side_count - 1),
        decision_seconds=[s for e in experts for s in e.decision_seconds],
        iterations=sum(e.iterations for e in experts),
        search_seconds=sum(e.search_seconds for e in experts),
    )


def _play_task(task: tuple[Setup, int, int]) -> GameResult:
    setup, deal, side = task
    return play_one(setup, deal, side)


def run(setup: Setup, games: int, processes: int, first_deal: int = 0,
        judged: bool = True) -> tuple[bool | None, list[str]]:
    """Play ``games`` games (rounded up to whole duplicates) and print the figures.

    Deals are numbered from ``first_deal``, so a later run can add new deals to
    an earlier one's instead of replaying them.

    True or False: the bar for this seating was met or missed; None: it has
    none, or it is not ``judged``.  Then what went wrong whatever the bar: a
    game that did not end, had no hand, or where the expert never decided.
    """
    rules = preset(setup.preset, setup.seats, setup.partnerships)
    sides = rules.side_count
    deals = max(1, math.ceil(games / sides))
    tasks = [(setup, deal, side) for deal in range(first_deal, first_deal + deals)
             for side in range(sides)]
    began = time.perf_counter()
    results: list[GameResult] = []
    with multiprocessing.Pool(processes) as pool:
        for result in pool.imap(_play_task, tasks, chunksize=1):
            results.append(result)
            # A long run says how it goes (to stderr, so the report stays clean).
            if len(results) % 50 == 0:
                won = sum(r.expert_won for r in results)
                print(f"  ... {len(results)}/{len(tasks)} games, {won / len(results):.1%} won, "
                      f"{time.perf_counter() - began:.0f} s", file=sys.stderr, flush=True)
    wall = time.perf_counter() - began
    played = len(results)
    wins = sum(r.expert_won for r in results)
    drawn = sum(r.drawn for r in results)
    low, high = wilson(wins, played)
    hands = sum(r.hands for r in results)
    decisions = [s for r in results for s in r.decision_seconds]
    iterations = sum(r.iterations for r in results)
    search_seconds = sum(r.search_seconds for r in results)
    seating = f"{setup.seats} seats" + (" in partnerships" if setup.partnerships else "")
    broken = [f"{setup.preset}, {seating}: {count} {what}" for what, count in (
        ("games that did not end", sum(not r.ended for r in results)),
        ("games without a hand", sum(not r.hands for r in results)),
        ("games where the expert never decided", sum(not r.decision_seconds for r in results)),
    ) if count]
    if not iterations:
        broken.append(f"{setup.preset}, {seating}: the expert never searched")
    effort = (
        f"{setup.iterations} iterations per decision"
        if setup.iterations is not None
        else f"{setup.budget_ms:g} ms per decision"
    )
    kind = "generic ISMCTS (random playouts)" if setup.generic else "expert"
    print(f"\n{kind} vs greedy: {setup.preset}, {seating}, {effort}")
    print(f"  games:                {played} ({deals} deals x {sides} seatings, deals "
          f"{first_deal}-{first_deal + deals - 1}), "
          f"{wall:.0f} s on {processes} process(es)")
    print(f"  games won:            {wins / played:6.1%}  95% CI [{low:.1%}, {high:.1%}]"
          + (f"  ({drawn} drawn)" if drawn else ""))
    print(f"  points per hand:      {sum(r.expert_points for r in results) / hands:6.1f} "
          f"for the expert's side, {sum(r.other_points for r in results) / hands:.1f} "
          f"for greedy's (per side)")
    if decisions:
        print(f"  time per decision:    mean {1000 * sum(decisions) / len(decisions):.1f} ms, "
              f"p99 {1000 * percentile(decisions, 0.99):.1f} ms ({len(decisions)} decisions)")
    if search_seconds:
        print(f"  playouts per second:  {iterations / search_seconds:,.0f} "
              f"(simulated hands while searching)")
    bar = BARS.get((setup.preset, setup.seats, setup.partnerships))
    if setup.preset == "playelephant" and setup.seats == 2:
        reference = GENERIC_REFERENCE.get(setup.budget_ms) if setup.iterations is None else None
        figures = ", ".join(f"~{share:.0%} at {ms:g} ms" for ms, share in GENERIC_REFERENCE.items())
        print(f"  generic ISMCTS (issue #16's measure): {figures}"
              + (f"; here {wins / played:.1%} at the same budget" if reference else ""))
    for line in broken:
        print(f"  BROKEN: {line}")
    if bar is None or setup.generic:
        return None, broken
    if not judged:
        print(f"  bar: >= {bar:.0%} of games won: not judged at smoke size")
        return None, broken
    met = wins / played >= bar
    print(f"  bar: >= {bar:.0%} of games won: {'met' if met else 'MISSED'}"
          + ("" if low >= bar else f" (the interval's low end {low:.1%} is below it)"))
    return met, broken


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=None, help="games per seating, rounded "
                        "up to whole duplicates (default: the issue's 2000, 1000 and 1000)")
    parser.add_argument("--preset", default=None, help="one preset (default: the three bars)")
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--partnerships", action="store_true")
    parser.add_argument("--budget-ms", type=float, default=200.0)
    parser.add_argument("--iterations", type=int, default=None,
                        help="fixed simulations per decision instead of a time budget")
    parser.add_argument("--first-deal", type=int, default=0,
                        help="number deals from here, to add new deals to an earlier run")
    parser.add_argument("--processes", type=int, default=max(1, multiprocessing.cpu_count()))
    parser.add_argument("--generic", action="store_true",
                        help="the issue's yardstick: ISMCTS with random playouts")
    parser.add_argument("--set", action="append", default=[], metavar="KNOB=VALUE",
                        help="a SearchSettings field, e.g. --set greedy_rate=0.7")
    parser.add_argument("--smoke", action="store_true",
                        help="tiny sizes, the same path (whatever --games, --budget-ms, "
                        "--iterations and --processes say); the bars not judged")
    args = parser.parse_args(argv)
    smoke = args.smoke
    if smoke:
        args.games, args.budget_ms = SMOKE_GAMES, SMOKE_BUDGET_MS
        args.iterations, args.processes = None, SMOKE_PROCESSES
    knobs: dict[str, object] = dict(GENERIC) if args.generic else {}
    for item in args.set:
        name, _, value = item.partition("=")
        knobs[name] = value
    # Not strict: "0.7" becomes a float, "true" a bool, as the field asks.
    settings = msgspec.convert(knobs, SearchSettings, strict=False)
    if args.preset is None:
        seatings = list(BARS)
    else:
        seatings = [(args.preset, args.seats, args.partnerships)]
    results = []
    for name, seats, partners in seatings:
        setup = Setup(name, seats, partners, args.budget_ms, args.iterations, args.generic,
                      settings)
        games = args.games or GAMES.get((name, seats, partners), 200)
        results.append(run(setup, games, args.processes, args.first_deal, judged=not smoke))
    broken = [line for _, lines in results for line in lines]
    if smoke:
        print("\nsmoke run: ok" if not broken else f"\nSMOKE RUN BROKEN: {'; '.join(broken)}")
        return 1 if broken else 0
    missed = [met for met, _ in results if met is False]
    print("\nbars met" if not missed and not broken else "\nBARS MISSED")
    return 1 if missed or broken else 0


if __name__ == "__main__":
    sys.exit(main())
