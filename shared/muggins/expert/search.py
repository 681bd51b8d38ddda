"""The search: information-set Monte Carlo tree search over sampled deals.

One tree for the whole decision (single-observer ISMCTS, Cowling, Powley
and Whitehouse 2012).  Each sampled deal is consistent with the seat's
knowledge (``sampler``) and is played after every root play (below); below
the root the walk chooses only moves that deal allows (UCB1 over the times
a move was available, so a tile an opponent holds in few deals is not
undervalued), adds one move, and plays the hand
out with a domino player's policy: mostly the play that scores most now,
the heaviest tile among equals, sometimes any play.  Every seat in the tree
plays for its side: a partnership's two seats share their reward.

The reward of a finished simulation, for each side, is the points it made
from here to the hand's end (counts and the end-of-hand award) minus what
the others made on average, plus ``game_bonus`` when the game ends inside
the simulation with that side the winner (minus a share of it for the
losers): near the target a sure game is worth more than a few points.

The root's plays are compared on equal luck (``shared_deals``): each
sampled deal is played once after every root play, with the same random
choices, and the tree grows below each.  The luck of the deal swamps the
differences UCB1 would have to find between plays that each met other
deals: with four seats (three others play between two of the seat's turns)
by far, with two by a point or two of games won (docs/bots.md).

Deterministic for a given Random in fixed-iterations mode; with a time
budget the iteration count follows the injected clock.
"""

from __future__ import annotations

import gc
import math
import random
from collections.abc import Callable
from typing import Final

from muggins.expert.knowledge import Knowledge
from muggins.expert.position import (
    END_BITS,
    LEAD_END,
    Position,
    position_from,
    tables_for,
)
from muggins.expert.sampler import DealSampler
from muggins.expert.search_random import SearchRandom
from muggins.expert.search_structs import MoveStats, SearchResult, SearchSettings

#: In budget mode the clock is read at the first whole pass (a deal played
#: after every root play) at least this many simulations after the last read
#: (the first read after the one that sets the deadline: after one pass).
CLOCK_EVERY: Final = 8
#: The share of a time budget kept for the search's last steps after its deadline.
_FINISHING_SHARE: Final = 0.05
#: ... and at least this much (ms): at 20 ms a decision, 5% left the p99
#: decision 0.6 ms over its budget with two searching processes on two cores.
_FINISHING_MS: Final = 1.5
#: What ``_descend`` reads for leads when the position is not a lead (never written).
_NO_LEADS: Final[list[int]] = []


class _Node:
    """A node of the tree: the move that led here, by the seat that made it."""

    __slots__ = ("available", "children", "points", "reward", "side", "visits")

    def __init__(self, side: int) -> None:
        self.side = side
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.available = 0
        self.reward = 0.0
        self.points = 0.0


def root_position(knowledge: Knowledge) -> Position:
    """The position as the seat sees it, other hands empty and no boneyard yet."""
    view = knowledge.view
    tables = tables_for(view.ruleset)
    hands = [0] * view.ruleset.seats
    hands[view.seat] = tables.mask(view.tiles)
    return position_from(
        tables, view.layout, hands, [], view.turn, view.passes, view.scores, view.must_lead
    )


def search(
    knowledge: Knowledge,
    settings: SearchSettings,
    rng: random.Random,
    clock: Callable[[], float] | None = None,
) -> SearchResult:
    """Search the seat's decision; ``clock`` (seconds) is needed unless iterations are fixed.

    The budget counts from the call: the sampler's set-up is part of it.
    Python's cyclic garbage collector waits while it searches: the tree's
    thousands of nodes set off full collections of the whole heap, 20-60 ms
    each, which made the p99 decision 1.5 times a 20 ms budget.  The tree
    holds no cycles (a node knows only its children), so reference counting
    frees it all the same."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _search(knowledge, settings, rng, clock)
    finally:
        if collecting:
            gc.enable()


def searching_seconds(budget_ms: float) -> float:
    """How long a search with ``budget_ms`` simulates: the last check of the
    clock may fall up to CLOCK_EVERY simulations (and the rest of a pass of
    shared deals) after the deadline, and the
    answer is built after it, so both come out of the budget (a reserve of
    _FINISHING_SHARE, at least _FINISHING_MS, at most half the budget)."""
    reserve_ms = min(budget_ms / 2, max(_FINISHING_MS, budget_ms * _FINISHING_SHARE))
    return (budget_ms - reserve_ms) / 1000.0


def _search(
    knowledge: Knowledge,
    settings: SearchSettings,
    given: random.Random,
    clock: Callable[[], float] | None,
) -> SearchResult:
    # The search draws its numbers from its own generator, seeded from the
    # Random it is given: as deterministic, and far cheaper to call.
    rng = SearchRandom.from_seed(given.getrandbits(128))
    limit = settings.iterations
    deadline = math.inf
    if limit is None:
        if clock is None:
            raise ValueError("a time budget needs a clock")
        deadline = clock() + searching_seconds(settings.budget_ms)
    view = knowledge.view
    root = root_position(knowledge)
    tables = root.tables
    moves = root.legal_moves()
    sampler = DealSampler(knowledge, settings.missed_points_weight)
    side_count = tables.side_count
    sides = tables.side
    root_scores = list(root.scores)
    my_side = sides[view.seat]
    tree = _Node(my_side)
    # Each root play has a node even if never simulated (a single play needs no search).
    for move in moves:
        tree.children[move | view.seat << 16] = _Node(my_side)
    exploration = settings.exploration
    greedy_rate = settings.greedy_rate
    bonus = settings.game_bonus
    others = max(1, side_count - 1)
    shared_deals = settings.shared_deals
    iterations = 0
    simulated = 0
    # With shared deals a pass is one simulation per root play, so the clock
    # is read by simulations done, not by passes.  Not before the first: a
    # search that simulated nothing would play its first legal move (with
    # shared deals one pass tries every play once).
    next_look = 1

    while len(moves) > 1:
        if limit is not None:
            if iterations >= limit:
                break
        elif iterations >= next_look and clock is not None:
            if clock() >= deadline:
                break
            next_look = iterations + CLOCK_EVERY
        hands, boneyard = sampler.deal(rng)
        dealt = root.copy()
        hands[view.seat] = dealt.hands[view.seat]
        dealt.hands = hands
        dealt.boneyard = boneyard
        if not shared_deals:
            iterations += 1
            path = [tree]
            simulated += _descend(tree, path, dealt, rng, exploration)
            simulated += _playout(dealt, rng, greedy_rate)
            _back_up(path, dealt, root_scores, others, bonus)
            continue
        # Every root play on the same deal, with the same random choices after
        # it: the plays are compared on equal luck.  The tree and the playout
        # draw from generators of their own, so the tree's steps below one
        # root play (how many untried plays it met) cannot shift the
        # playout's numbers from those of the others.
        tree_luck = rng.spawn()
        playout_luck = rng.spawn()
        for move in moves:
            iterations += 1
            position = dealt.copy()
            child = tree.children[move | view.seat << 16]
            child.available += 1
            position.play(move)
            path = [tree, child]
            simulated += 1 + _descend(child, path, position, tree_luck.copy(), exploration)
            simulated += _playout(position, playout_luck.copy(), greedy_rate)
            _back_up(path, position, root_scores, others, bonus)
    stats = []
    for move in moves:
        child = tree.children[move | view.seat << 16]
        visits = child.visits
        stats.append(
            MoveStats(
                move=move,
                visits=visits,
                value=child.reward / visits if visits else 0.0,
                points=child.points / visits if visits else 0.0,
            )
        )
    # UCB1's most visited.  Shared deals stop only between whole passes, so
    # there every root play has the same visits and its mean decides.
    best = max(stats, key=lambda s: (s.visits, s.value)).move if stats else 0
    return SearchResult(
        moves=tuple(stats), best=best, iterations=iterations, simulated_moves=simulated
    )


def _back_up(
    path: list[_Node], position: Position, root_scores: list[int], others: int, bonus: float
) -> None:
    """Back up the rewards of a finished simulation along ``path``: each
    side's points from the root on, against the others' average, and the
    game's bonus when the simulation ended it."""
    scores = position.scores
    sides = len(root_scores)
    gains = [scores[s] - root_scores[s] for s in range(sides)]
    total = 0
    for gain in gains:
        total += gain
    points = [g - (total - g) / others for g in gains]
    rewards = points
    if bonus and position.game_over() and position.game_winner >= 0:
        winner = position.game_winner
        rewards = [p + (bonus if s == winner else -bonus / others) for s, p in enumerate(points)]
    for visited in path:
        visited.visits += 1
        visited.reward += rewards[visited.side]
        visited.points += points[visited.side]


def _descend(
    node: _Node, path: list[_Node], position: Position, rng: SearchRandom, exploration: float
) -> int:
    """Selection and expansion from ``node``: down the tree while every move
    this deal allows has a node (UCB1 over availability), then one new node.
    Appends the nodes visited to ``path``; the moves played.

    The plays are met arm by arm, tiles lowest first, as the playout meets
    them, with no list of them (but for a lead): this is most of a
    simulation's steps in the tree.  The new node's play is a uniform pick
    of the untried ones (reservoir sampling, one draw each)."""
    played = 0
    has = position.tables.has
    while not position.hand_over:
        seat = position.turn
        seat_key = seat << 16
        children = node.children
        leads = position.legal_moves() if position.lead < 0 else _NO_LEADS
        hand = position.hands[seat]
        ends = position.ends
        arms = len(ends)
        end = -1
        fits = 0
        next_lead = 0
        untried_move = -1
        untried = 0
        best_child = None
        best_move = 0
        best_score = -math.inf
        while True:
            if leads:
                if next_lead == len(leads):
                    break
                move = leads[next_lead]
                next_lead += 1
            else:
                while not fits and end < arms - 1:
                    end += 1
                    number = ends[end]
                    if number >= 0:
                        fits = hand & has[number]
                if not fits:
                    break
                lowest = fits & -fits
                fits ^= lowest
                move = (lowest.bit_length() - 1) << END_BITS | end
            child = children.get(move | seat_key)
            if child is None:
                untried += 1
                if untried == 1 or rng.below(untried) == 0:
                    untried_move = move
                continue
            child.available += 1
            visits = child.visits
            if not visits:
                score = math.inf
            else:
                # float(): math.log of an int is a call into the interpreter.
                score = child.reward / visits + exploration * math.sqrt(
                    math.log(float(child.available)) / visits)
            if score > best_score:
                best_score = score
                best_child = child
                best_move = move
        played += 1
        if untried:
            child = _Node(position.tables.side[seat])
            child.available = 1
            children[untried_move | seat_key] = child
            position.play(untried_move)
            path.append(child)
            return played
        assert best_child is not None
        position.play(best_move)
        path.append(best_child)
        node = best_child
    return played


def _playout(position: Position, rng: SearchRandom, greedy_rate: float) -> int:
    """Play the hand out with the greedy-leaning policy; the moves played.

    The search's inner loop, so the plays and their counts are worked out
    here inline (``Position.legal_moves`` and ``count_after`` written out,
    arm by arm), with no list of plays: one pass counts them and finds the
    best-scoring, and a random play is found by a second pass.
    ``Position.play`` still makes the moves.  tests/expert/test_knowledge.py
    checks it chooses as those methods would.
    """
    played = 0
    tables = position.tables
    value = tables.value
    low = tables.low
    high = tables.high
    has = tables.has
    points_for = tables.points
    hands = position.hands
    while not position.hand_over:
        if position.lead < 0:
            moves = position.legal_moves()
            move = moves[0]
            if len(moves) > 1:
                if rng.random() < greedy_rate:
                    best = -1
                    for candidate in moves:
                        tile = candidate >> END_BITS
                        key = points_for[value[tile]] * 64 + value[tile]
                        if key > best:
                            best = key
                            move = candidate
                else:
                    move = moves[rng.below(len(moves))]
            position.play(move)
            played += 1
            continue
        hand = hands[position.turn]
        ends = position.ends
        contributions = position.contributions
        lengths = position.arm_lengths
        lead_double_pips = position.lead_double_pips
        count = position.count
        # One pass over the plays, arm by arm and tiles lowest first: how
        # many, and the first of the best-scoring (heaviest on ties).
        plays = 0
        best = -1
        best_move = 0
        for end in range(len(ends)):
            number = ends[end]
            if number < 0:
                continue
            fits = hand & has[number]
            while fits:
                lowest = fits & -fits
                fits ^= lowest
                tile = lowest.bit_length() - 1
                plays += 1
                a = low[tile]
                b = high[tile]
                after = a + a if a == b else (b if a == number else a)
                total = count + after - contributions[end]
                if end < 2 and lead_double_pips and not lengths[end] and lengths[1 - end]:
                    total -= lead_double_pips
                key = points_for[total] * 64 + value[tile]
                if key > best:
                    best = key
                    best_move = tile << END_BITS | end
        if not plays:  # never from a search (a seat on turn has a play); a guard
            raise ValueError("the seat on turn has no play: the position needs advance()")
        move = best_move
        if plays > 1 and rng.random() >= greedy_rate:
            move = _nth_play(hand, ends, has, rng.below(plays))
        position.play(move)
        played += 1
    return played


def _nth_play(hand: int, ends: list[int], has: list[int], wanted: int) -> int:
    """The play number ``wanted`` (from 0) in the playout's order: arm by
    arm, tiles lowest first.  The enumeration is written out here as in
    ``_playout`` and ``_descend`` on purpose: compiled, a shared generator
    would cost a call and a boxed int per play in the search's inner loops."""
    for end in range(len(ends)):
        number = ends[end]
        if number < 0:
            continue
        fits = hand & has[number]
        while fits:
            lowest = fits & -fits
            fits ^= lowest
            if not wanted:
                return (lowest.bit_length() - 1) << END_BITS | end
            wanted -= 1
    raise ValueError("fewer plays than counted")


def reference_playout(position: Position, rng: SearchRandom, greedy_rate: float) -> int:
    """``_playout`` written plainly with Position's methods (the tests' yardstick)."""
    played = 0
    value = position.tables.value
    while not position.hand_over:
        moves = position.legal_moves()
        if position.lead >= 0:
            moves.sort(key=lambda m: (m & LEAD_END, m >> END_BITS))  # arm first, as _playout
        if len(moves) == 1:
            move = moves[0]
        elif rng.random() < greedy_rate:
            move = max(
                moves,
                key=lambda m: (position.points_after(m) * 64 + value[m >> END_BITS],
                               -moves.index(m)),
            )
        else:
            move = moves[rng.below(len(moves))]
        position.play(move)
        played += 1
    return played
