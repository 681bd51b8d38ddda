"""The bots' strength: the expert against the greedy bot, and the level ladder.

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

``--ladder``: the levels a person chooses from (muggins.bots.levels), each
against greedy and against the level below it (easy against random), on
the same deals, duplicate as above: ``--games`` per match (LADDER_GAMES
unless told), ``--levels`` for some of them, ``--budget-ms`` for the expert
(its level's own, EXPERT_BUDGET_MS, unless told).
The bars: each level's share against the one below has its interval's low
end above 50%, and easy's against greedy its high end below 50%.

    python -m tests.benchmarks.bench_expert --ladder
    python -m tests.benchmarks.bench_expert --ladder --levels hard,expert --games 200

``--against-frozen``: the expert at ``--budget-ms`` (20 unless told)
against the frozen expert of 2026-12-02 at its 200 ms strength
(tests/benchmarks/frozen_yardstick.py: a fixed 5,900 simulations a
decision), playelephant 2 seats, duplicate as above (1,000 games unless
told).  The bar (issue #27): at least 50% of the games won.

    python -m tests.benchmarks.bench_expert --against-frozen
    python -m tests.benchmarks.bench_expert --against-frozen --budget-ms 35 --games 400
    python -m tests.benchmarks.bench_expert --against-frozen --set exploration=55

``--opponent``: another level than greedy across the table.  With
``expert`` and a ``--set``, a change to the search plays the search as it
is, at the same budget, on the same deals (no bar judged): how a change is
screened before the longer matches.

    python -m tests.benchmarks.bench_expert --preset playelephant --budget-ms 20 \
        --games 1000 --first-deal 10000 --opponent expert --set exploration=55

``--smoke``: one deal per seating (each played from both sides) at 5 ms a
decision, in two processes, then the ladder's matches at one deal each:
then one deal against the frozen expert (interpreted, at a few
simulations: its compiled build is the real size's only): the same path,
every game played to its end with the searching levels deciding and
searching; the bars not judged.
"""

from __future__ import annotations

import argparse
import functools
import math
import multiprocessing
import random
import sys
import time
from collections.abc import Callable, Sequence

import msgspec

from muggins.bots.ladder import (
    BOT_LEVELS,
    EXPERT_BUDGET_MS,
    LADDER,
    SAME_AS,
    SEARCHING,
    BotLevel,
    LadderLevel,
)
from muggins.bots.levels import Bot, GreedyBot, make_bot
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
from tests.benchmarks.frozen_yardstick import FROZEN_ITERATIONS, frozen_bot, load

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
#: ``--ladder``: the seating and the games per match, unless told.
LADDER_SEATING: tuple[str, int, bool] = ("playelephant", 2, False)
LADDER_GAMES = 400
#: The bot below the ladder's lowest level, to measure that one against.
BELOW_THE_LADDER: BotLevel = "random"
#: ``--against-frozen``: the seating and the games.
FROZEN_SEATING: tuple[str, int, bool] = ("playelephant", 2, False)
FROZEN_GAMES = 1000
#: Issue #27: the new expert at a tenth of the old one's 200 ms ...
FROZEN_BUDGET_MS = 20.0
#: ... wins at least half the games.
FROZEN_BAR = 0.5
#: At smoke size the frozen expert runs interpreted, this many simulations a decision.
FROZEN_SMOKE_ITERATIONS = 30


class Setup(msgspec.Struct, frozen=True):
    preset: str
    seats: int
    partnerships: bool
    budget_ms: float
    iterations: int | None
    generic: bool
    settings: SearchSettings
    #: The level measured: None for the expert as the fields above make it
    #: (``iterations``, ``generic`` and ``settings`` apply to it alone).
    level: BotLevel | None = None
    #: The level it plays against.
    opponent: BotLevel = "greedy"
    #: Instead of ``opponent``: the frozen expert at this many simulations a decision.
    frozen_iterations: int | None = None

    @property
    def opponent_name(self) -> str:
        """The other side's name in the report."""
        if self.frozen_iterations is None:
            return self.opponent
        return f"the frozen expert ({self.frozen_iterations:,} simulations a decision)"

    @property
    def measured(self) -> str:
        """The measured side's name in the report."""
        if self.level is not None:
            return self.level
        return "generic ISMCTS (random playouts)" if self.generic else "expert"

    @property
    def searches(self) -> bool:
        """Whether the measured side searches (so its decisions are timed)."""
        return self.level is None or self.level in SEARCHING


class GameResult(msgspec.Struct, frozen=True):
    """One game: whether the measured side won, points per hand, decisions' effort."""

    measured_won: bool
    drawn: bool
    #: The game reached its GameEnded (self-play's loop stops only at game over).
    ended: bool
    hands: int
    measured_points: int
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


class Share(msgspec.Struct, frozen=True):
    """Games the measured side won of those played, with the 95% interval."""

    wins: int
    played: int
    low: float
    high: float

    def __str__(self) -> str:
        return f"{self.wins / self.played:.1%} [{self.low:.1%}, {self.high:.1%}]"


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


def _measured_bot(setup: Setup, rng: random.Random) -> Bot:
    """A seat of the measured side: the expert as ``setup`` makes it, or a level."""
    if setup.level is None:
        return TimedExpert(ExpertBot(
            rng, budget_ms=setup.budget_ms, iterations=setup.iterations,
            clock=time.perf_counter, settings=setup.settings,
        ), learns=not setup.generic)
    bot = make_bot(setup.level, rng, budget_ms=setup.budget_ms, clock=time.perf_counter)
    return TimedExpert(bot, learns=True) if isinstance(bot, ExpertBot) else bot


def play_one(setup: Setup, deal: int, measured_side: int) -> GameResult:
    """One game of deal ``deal`` with the measured side playing side ``measured_side``
    (the game loop is self-play's, as ``muggins simulate`` plays it)."""
    rules: Ruleset = preset(setup.preset, setup.seats, setup.partnerships)
    game_seed = game_seed_from_text(f"bench-expert/{setup.preset}/{setup.seats}/{deal}")
    bots: list[Bot] = []
    experts: list[TimedExpert] = []
    for seat in range(rules.seats):
        rng = random.Random(deal * 31 + seat)
        if rules.side_of(seat) == measured_side:
            bot = _measured_bot(setup, rng)
            if isinstance(bot, TimedExpert):
                experts.append(bot)
            bots.append(bot)
        elif setup.frozen_iterations is not None:
            bots.append(frozen_bot(rng, setup.frozen_iterations))
        elif setup.opponent == "greedy":
            bots.append(GreedyBot())
        else:
            bots.append(make_bot(setup.opponent, rng, budget_ms=setup.budget_ms,
                                 iterations=setup.iterations, clock=time.perf_counter))
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
    others = sum(points) - points[measured_side]
    return GameResult(
        measured_won=winner == measured_side,
        drawn=winner is None,
        ended=ended,
        hands=hands,
        measured_points=points[measured_side],
        other_points=others // max(1, rules.side_count - 1),
        decision_seconds=[s for e in experts for s in e.decision_seconds],
        iterations=sum(e.iterations for e in experts),
        search_seconds=sum(e.search_seconds for e in experts),
    )


def _play_task(task: tuple[Setup, int, int]) -> GameResult:
    setup, deal, side = task
    return play_one(setup, deal, side)


def run(setup: Setup, games: int, processes: int, first_deal: int = 0,
        judged: bool = True, initializer: Callable[[], object] | None = None,
        ) -> tuple[bool | None, list[str], Share]:
    """Play ``games`` games (rounded up to whole duplicates) and print the figures.

    Deals are numbered from ``first_deal``, so a later run can add new deals to
    an earlier one's instead of replaying them.

    True or False: the bar for this seating was met or missed; None: it has
    none, or it is not ``judged``.  Then what went wrong whatever the bar: a
    game that did not end, had no hand, or where a searching side never
    decided.  Last, the measured side's share of the games.
    """
    rules = preset(setup.preset, setup.seats, setup.partnerships)
    sides = rules.side_count
    deals = max(1, math.ceil(games / sides))
    tasks = [(setup, deal, side) for deal in range(first_deal, first_deal + deals)
             for side in range(sides)]
    began = time.perf_counter()
    results: list[GameResult] = []
    with multiprocessing.Pool(processes, initializer=initializer) as pool:
        for result in pool.imap(_play_task, tasks, chunksize=1):
            results.append(result)
            # A long run says how it goes (to stderr, so the report stays clean).
            if len(results) % 50 == 0:
                won = sum(r.measured_won for r in results)
                print(f"  ... {len(results)}/{len(tasks)} games, {won / len(results):.1%} won, "
                      f"{time.perf_counter() - began:.0f} s", file=sys.stderr, flush=True)
    wall = time.perf_counter() - began
    played = len(results)
    wins = sum(r.measured_won for r in results)
    drawn = sum(r.drawn for r in results)
    low, high = wilson(wins, played)
    share = Share(wins, played, low, high)
    hands = sum(r.hands for r in results)
    decisions = [s for r in results for s in r.decision_seconds]
    iterations = sum(r.iterations for r in results)
    search_seconds = sum(r.search_seconds for r in results)
    seating = f"{setup.seats} seats" + (" in partnerships" if setup.partnerships else "")
    broken = [f"{setup.preset}, {seating}: {count} {what}" for what, count in (
        ("games that did not end", sum(not r.ended for r in results)),
        ("games without a hand", sum(not r.hands for r in results)),
        (f"games where {setup.measured} never decided",
         sum(not r.decision_seconds for r in results) if setup.searches else 0),
    ) if count]
    if setup.searches and not iterations:
        broken.append(f"{setup.preset}, {seating}: {setup.measured} never searched")
    effort = (
        f"{setup.iterations} iterations per decision"
        if setup.iterations is not None
        else f"{setup.budget_ms:g} ms per decision"
    )
    if setup.level is not None:
        effort = (f"the expert level {setup.budget_ms:g} ms per decision"
                  if "expert" in (setup.level, setup.opponent) else "fixed effort")
    print(f"\n{setup.measured} vs {setup.opponent_name}: {setup.preset}, {seating}, {effort}")
    print(f"  games:                {played} ({deals} deals x {sides} seatings, deals "
          f"{first_deal}-{first_deal + deals - 1}), "
          f"{wall:.0f} s on {processes} process(es)")
    print(f"  games won:            {wins / played:6.1%}  95% CI [{low:.1%}, {high:.1%}]"
          + (f"  ({drawn} drawn)" if drawn else ""))
    print(f"  points per hand:      {sum(r.measured_points for r in results) / hands:6.1f} "
          f"for {setup.measured}'s side, {sum(r.other_points for r in results) / hands:.1f} "
          f"for the other side's (per side)")
    if decisions:
        print(f"  time per decision:    mean {1000 * sum(decisions) / len(decisions):.1f} ms, "
              f"p99 {1000 * percentile(decisions, 0.99):.1f} ms ({len(decisions)} decisions)")
    if search_seconds:
        print(f"  playouts per second:  {iterations / search_seconds:,.0f} "
              f"(simulated hands while searching)")
    if setup.level is not None:
        return None, broken, share
    # The bars are against greedy (or the frozen expert): another opponent is a comparison.
    bar = BARS.get((setup.preset, setup.seats, setup.partnerships)) \
        if setup.opponent == "greedy" else None
    if setup.frozen_iterations is not None:
        bar = FROZEN_BAR
    elif setup.preset == "playelephant" and setup.seats == 2 and setup.opponent == "greedy":
        reference = GENERIC_REFERENCE.get(setup.budget_ms) if setup.iterations is None else None
        figures = ", ".join(f"~{share:.0%} at {ms:g} ms" for ms, share in GENERIC_REFERENCE.items())
        print(f"  generic ISMCTS (issue #16's measure): {figures}"
              + (f"; here {wins / played:.1%} at the same budget" if reference else ""))
    for line in broken:
        print(f"  BROKEN: {line}")
    if bar is None or setup.generic:
        return None, broken, share
    if not judged:
        print(f"  bar: >= {bar:.0%} of games won: not judged at smoke size")
        return None, broken, share
    met = wins / played >= bar
    print(f"  bar: >= {bar:.0%} of games won: {'met' if met else 'MISSED'}"
          + ("" if low >= bar else f" (the interval's low end {low:.1%} is below it)"))
    return met, broken, share


def below(level: LadderLevel) -> BotLevel:
    """The level ``level`` must clearly beat: the one below it on the ladder."""
    rung = LADDER.index(level)
    return LADDER[rung - 1] if rung else BELOW_THE_LADDER


def _share_words(share: Share | None) -> str:
    return "the same bot" if share is None else str(share)


def run_ladder(levels: Sequence[LadderLevel], seating: tuple[str, int, bool], games: int,
               budget_ms: float, processes: int, first_deal: int = 0,
               judged: bool = True) -> tuple[bool, list[str]]:
    """Each of ``levels`` against greedy and against the level below it, on
    the same deals; then the ladder in one table.  Whether every bar was met
    (always True when not ``judged``), and what went wrong."""
    name, seats, partners = seating
    broken: list[str] = []
    lines: list[str] = []
    met = True
    # A match between the same two bots (medium is greedy) is played once.
    played: dict[tuple[BotLevel, BotLevel], Share] = {}
    for level in levels:
        shares: dict[BotLevel, Share | None] = {}
        for opponent in ("greedy", below(level)):
            bots = (SAME_AS.get(level, level), SAME_AS.get(opponent, opponent))
            if bots[0] == bots[1]:
                shares[opponent] = None  # the same bot: half the games by construction
            elif bots not in played:
                setup = Setup(name, seats, partners, budget_ms, None, False, SearchSettings(),
                              level=level, opponent=opponent)
                _, wrong, played[bots] = run(setup, games, processes, first_deal, judged)
                broken += wrong
            shares[opponent] = played.get(bots)
        against_greedy, against_below = shares["greedy"], shares[below(level)]
        # Bars: clearly above the level below; easy, clearly below greedy.
        bars = [against_below is not None and against_below.low > 0.5]
        if level == LADDER[0]:
            bars.append(against_greedy is not None and against_greedy.high < 0.5)
        verdict = "" if not judged else ("  clearly stronger" if all(bars) else "  NOT CLEAR")
        met = met and (all(bars) or not judged)
        lines.append(f"  {level:<8} {_share_words(against_greedy):<24} {below(level):<8} "
                     f"{_share_words(against_below):<24}{verdict}")
    seating_words = f"{name}, {seats} seats" + (" in partnerships" if partners else "")
    print(f"\nthe level ladder: {seating_words}, games won with 95% intervals "
          f"(the expert {budget_ms:g} ms per decision)")
    print(f"  {'level':<8} {'vs greedy':<24} {'vs the level below':<33}")
    for line in lines:
        print(line)
    return met, broken


def run_against_frozen(budget_ms: float, games: int, processes: int, first_deal: int,
                       settings: SearchSettings | None = None) -> int:
    """The expert at ``budget_ms`` (with ``settings``: today's unless given)
    against the frozen expert at its 200 ms strength (compiled for speed
    where mypyc can build it); 0 when the bar is met."""
    how = load(compiled=True)
    print(f"the frozen expert runs {how}, {FROZEN_ITERATIONS:,} simulations a decision")
    name, seats, partners = FROZEN_SEATING
    setup = Setup(name, seats, partners, budget_ms, None, False, settings or SearchSettings(),
                  frozen_iterations=FROZEN_ITERATIONS)
    met, broken, _ = run(setup, games, processes, first_deal, initializer=load)
    print("\nbar met" if met and not broken else "\nBAR MISSED")
    return 0 if met and not broken else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=None, help="games per seating, rounded "
                        "up to whole duplicates (default: the issue's 2000, 1000 and 1000)")
    parser.add_argument("--preset", default=None, help="one preset (default: the three bars)")
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--partnerships", action="store_true")
    parser.add_argument("--budget-ms", type=float, default=None,
                        help="the expert's ms a decision (200; with --against-frozen 20, "
                        "with --ladder the level's own)")
    parser.add_argument("--iterations", type=int, default=None,
                        help="fixed simulations per decision instead of a time budget")
    parser.add_argument("--first-deal", type=int, default=0,
                        help="number deals from here, to add new deals to an earlier run")
    parser.add_argument("--processes", type=int, default=max(1, multiprocessing.cpu_count()))
    parser.add_argument("--generic", action="store_true",
                        help="the issue's yardstick: ISMCTS with random playouts")
    parser.add_argument("--set", action="append", default=[], metavar="KNOB=VALUE",
                        help="a SearchSettings field, e.g. --set greedy_rate=0.7")
    parser.add_argument("--opponent", default="greedy", choices=BOT_LEVELS,
                        help="the level the expert plays (greedy; `expert` plays it against "
                        "the expert of the default settings, to try a --set)")
    parser.add_argument("--ladder", action="store_true",
                        help="the level ladder: each level against greedy and the level below")
    parser.add_argument("--levels", default=",".join(LADDER),
                        help="with --ladder: the levels measured, comma-separated")
    parser.add_argument("--against-frozen", action="store_true",
                        help="the expert (--budget-ms, 20 unless told) against the frozen "
                        "expert of 2026-12-02 at its 200 ms strength")
    parser.add_argument("--smoke", action="store_true",
                        help="tiny sizes, the same path (whatever --games, --budget-ms, "
                        "--iterations and --processes say); the bars not judged")
    args = parser.parse_args(argv)
    smoke = args.smoke
    if args.budget_ms is None:
        # The bars of issue #16 were set at 200 ms; the ladder's expert is the level as served.
        args.budget_ms = (FROZEN_BUDGET_MS if args.against_frozen
                          else EXPERT_BUDGET_MS if args.ladder else 200.0)
    if smoke:
        args.games, args.budget_ms = SMOKE_GAMES, SMOKE_BUDGET_MS
        args.iterations, args.processes = None, SMOKE_PROCESSES
    names = [name.strip() for name in args.levels.split(",") if name.strip()]
    unknown = [name for name in names if name not in LADDER]
    if unknown:
        parser.error(f"unknown levels {', '.join(unknown)}; choose from {', '.join(LADDER)}")
    levels = [level for level in LADDER if level in names]
    knobs: dict[str, object] = dict(GENERIC) if args.generic else {}
    for item in args.set:
        name, _, value = item.partition("=")
        knobs[name] = value
    # Not strict: "0.7" becomes a float, "true" a bool, as the field asks.
    settings = msgspec.convert(knobs, SearchSettings, strict=False)
    if args.against_frozen and not smoke:
        return run_against_frozen(args.budget_ms, args.games or FROZEN_GAMES, args.processes,
                                  args.first_deal, settings)
    if args.ladder and not smoke:
        seating = ((args.preset, args.seats, args.partnerships) if args.preset is not None
                   else LADDER_SEATING)
        met, broken = run_ladder(levels, seating, args.games or LADDER_GAMES, args.budget_ms,
                                 args.processes, args.first_deal)
        for line in broken:
            print(f"BROKEN: {line}")
        print("\nladder clear" if met and not broken else "\nLADDER NOT CLEAR")
        return 0 if met and not broken else 1
    if args.preset is None:
        seatings = list(BARS)
    else:
        seatings = [(args.preset, args.seats, args.partnerships)]
    results = []
    for name, seats, partners in seatings:
        # The yardstick as it was measured: shared deals only with more than two seats.
        seating_settings = (msgspec.structs.replace(settings, shared_deals=seats > 2)
                            if args.generic else settings)
        setup = Setup(name, seats, partners, args.budget_ms, args.iterations, args.generic,
                      seating_settings, opponent=args.opponent)
        games = args.games or GAMES.get((name, seats, partners), 200)
        results.append(run(setup, games, args.processes, args.first_deal, judged=not smoke))
    broken = [line for _, lines, _ in results for line in lines]
    if smoke:
        _, ladder_broken = run_ladder(levels, LADDER_SEATING, args.games, args.budget_ms,
                                      args.processes, judged=False)
        broken += ladder_broken
        name, seats, partners = FROZEN_SEATING
        frozen = Setup(name, seats, partners, args.budget_ms, None, False, SearchSettings(),
                       frozen_iterations=FROZEN_SMOKE_ITERATIONS)
        interpreted = functools.partial(load, compiled=False)
        broken += run(frozen, args.games, args.processes, judged=False,
                      initializer=interpreted)[1]
        print("\nsmoke run: ok" if not broken else f"\nSMOKE RUN BROKEN: {'; '.join(broken)}")
        return 1 if broken else 0
    missed = [met for met, _, _ in results if met is False]
    if args.opponent != "greedy":
        print(f"\nno bar judged against {args.opponent}" if not broken else "\nBROKEN")
        return 1 if broken else 0
    print("\nbars met" if not missed and not broken else "\nBARS MISSED")
    return 1 if missed or broken else 0


if __name__ == "__main__":
    sys.exit(main())
