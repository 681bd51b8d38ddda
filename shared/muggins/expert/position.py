"""A search-only position: one hand in play with every tile placed, as ints
and lists, for the expert's simulations.

Why another representation: a search plays tens of thousands of hands per
decision, and the engine's immutable GameState is rebuilt (a new state, hand
and layout) on every move.  Here a tile is its index in the canonical set
(``tile_set``), a hand is a bitmask of those indices, and a move is one int
(``tile << 6 | end``), so "what fits" is one ``&`` and a simulation mutates
a private copy.  The counting and placing rules are the engine's
(``muggins.rules.placing``, ``layout``'s docstring), written over these
lists; tests/expert/test_position.py checks over thousands of random
positions of every preset that both give the same legal plays, counts,
scores and hand endings.

Never built from hidden tiles by the bot itself: ``from_state`` is for tests
(a whole GameState), the bot fills the hidden hands from a sampled deal.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from muggins.rules.layout import CLOSED, LEAD, Layout
from muggins.rules.ruleset import Ruleset
from muggins.rules.scoring import points_for_count
from muggins.rules.state import GameState
from muggins.rules.tiles import Tile, tile_set

#: A move's end field when the tile is led (there is no end yet).
LEAD_END: Final = 63
#: Bits of a move that hold the end; the tile index is above them.
END_BITS: Final = 6


def move_code(tile_index: int, end: int | None) -> int:
    """The int a move is in a Position: the tile's index and the arm (LEAD_END to lead)."""
    return tile_index << END_BITS | (LEAD_END if end is None else end)


def move_tile(move: int) -> int:
    return move >> END_BITS


def move_end(move: int) -> int | None:
    end = move & LEAD_END
    return None if end == LEAD_END else end


class TileTables:
    """What a ruleset's set and scoring look like as lookup tables.

    Built once per ruleset (``tables_for``) and shared by every position.
    """

    __slots__ = (
        "all_tiles",
        "blocked_award",
        "doubles_become_spinners",
        "draws",
        "every_double_spins",
        "hand_award",
        "has",
        "high",
        "immediate_target",
        "low",
        "points",
        "rounding",
        "ruleset",
        "seats",
        "side",
        "side_count",
        "target",
        "target_points",
        "tiles",
        "value",
    )

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset
        self.tiles: tuple[Tile, ...] = tile_set(ruleset.max_pip)
        self.low = [t.low for t in self.tiles]
        self.high = [t.high for t in self.tiles]
        self.value = [t.low + t.high for t in self.tiles]
        self.all_tiles = (1 << len(self.tiles)) - 1
        #: has[n]: the tiles with a half n, as a mask.
        self.has = [0] * (ruleset.max_pip + 1)
        for index, tile in enumerate(self.tiles):
            self.has[tile.low] |= 1 << index
            self.has[tile.high] |= 1 << index
        # The most arms a layout can have: two, and two per spinner.
        doubles = ruleset.max_pip + 1
        arms = 2 + 2 * (doubles if ruleset.spinner == "every-double" else 1)
        # Every arm's tip a double, and a double lead's pips besides.
        most = (arms + 1) * 2 * ruleset.max_pip
        self.points = [points_for_count(c, ruleset.scoring) for c in range(most + 1)]
        self.seats = ruleset.seats
        self.side = [ruleset.side_of(seat) for seat in range(ruleset.seats)]
        self.side_count = ruleset.side_count
        self.doubles_become_spinners = ruleset.spinner != "none"
        self.every_double_spins = ruleset.spinner == "every-double"
        self.draws = ruleset.drawing == "draw"
        self.target = ruleset.target
        #: The target as a plain int (no target: never reached), for the hot path.
        self.target_points: int = ruleset.target if ruleset.target is not None else 1 << 60
        self.immediate_target = ruleset.target is not None and ruleset.target_check == "immediate"
        self.hand_award = ruleset.hand_award
        self.blocked_award = ruleset.blocked_award
        self.rounding = ruleset.rounding

    def index(self, tile: Tile) -> int:
        """A tile's place in the canonical set."""
        low, high = tile
        n = self.ruleset.max_pip + 1
        # Rows of the canonical order: row a holds (a, a) .. (a, N).
        return low * n - low * (low - 1) // 2 + (high - low)

    def mask(self, tiles: Sequence[Tile]) -> int:
        mask = 0
        for tile in tiles:
            mask |= 1 << self.index(tile)
        return mask

    def tiles_of(self, mask: int) -> list[Tile]:
        """The tiles of a mask, in the canonical order."""
        return [self.tiles[i] for i in indices(mask)]


_TABLES: dict[Ruleset, TileTables] = {}
#: Rulesets whose tables are kept (a long-lived worker meets many custom ones).
_TABLES_KEPT = 64


def tables_for(ruleset: Ruleset) -> TileTables:
    """The (cached) tables of ``ruleset``."""
    tables = _TABLES.get(ruleset)
    if tables is None:
        if len(_TABLES) >= _TABLES_KEPT:
            _TABLES.clear()
        tables = _TABLES[ruleset] = TileTables(ruleset)
    return tables


def indices(mask: int) -> list[int]:
    """The set bits of ``mask``, lowest first."""
    found = []
    while mask:
        lowest = mask & -mask
        found.append(lowest.bit_length() - 1)
        mask ^= lowest
    return found


def round_to_five(pips: int) -> int:
    return (pips + 2) // 5 * 5


class Position:
    """A hand in play with every tile placed; mutable, for one simulation.

    ``copy`` before playing on a position someone else keeps.  Spinners are
    lists [arm, position, first short arm, number, opened]; arm is LEAD for
    a spinner led.
    """

    __slots__ = (
        "arm_lengths",
        "boneyard",
        "contributions",
        "count",
        "ends",
        "game_winner",
        "hand_over",
        "hands",
        "lead",
        "lead_double_pips",
        "must_lead",
        "open_mask",
        "passes",
        "scores",
        "spinners",
        "tables",
        "turn",
    )

    tables: TileTables
    hands: list[int]
    #: Drawn from the end (``pop``): the order is the sampled deal's.
    boneyard: list[int]
    lead: int
    must_lead: int
    ends: list[int]
    #: What each arm adds to the count now (the lead double's own pips aside).
    contributions: list[int]
    arm_lengths: list[int]
    spinners: list[list[int]]
    #: Both halves of a double lead while one of its long sides is free, else 0.
    lead_double_pips: int
    count: int
    open_mask: int
    turn: int
    passes: int
    scores: list[int]
    hand_over: bool
    #: The side that won the game in this simulation; -1: none yet, or a drawn game.
    game_winner: int

    def copy(self) -> Position:
        other = Position.__new__(Position)
        other.tables = self.tables
        other.hands = self.hands[:]
        other.boneyard = self.boneyard[:]
        other.lead = self.lead
        other.must_lead = self.must_lead
        other.ends = self.ends[:]
        other.contributions = self.contributions[:]
        other.arm_lengths = self.arm_lengths[:]
        other.spinners = [s[:] for s in self.spinners]
        other.lead_double_pips = self.lead_double_pips
        other.count = self.count
        other.open_mask = self.open_mask
        other.turn = self.turn
        other.passes = self.passes
        other.scores = self.scores[:]
        other.hand_over = self.hand_over
        other.game_winner = self.game_winner
        return other

    # ------------------------------------------------------------ queries

    def legal_moves(self) -> list[int]:
        """The seat on turn's plays, in the engine's order (tiles by index, then arms)."""
        hand = self.hands[self.turn]
        if self.lead < 0:
            if self.must_lead >= 0:
                return [self.must_lead << END_BITS | LEAD_END]
            return [t << END_BITS | LEAD_END for t in indices(hand)]
        has = self.tables.has
        moves = []
        for end, number in enumerate(self.ends):
            if number >= 0:
                fits = hand & has[number]
                while fits:
                    lowest = fits & -fits
                    fits ^= lowest
                    moves.append((lowest.bit_length() - 1) << END_BITS | end)
        if len(moves) > 1:
            moves.sort()  # tile (index) first, then the arm: the engine's order
        return moves

    def count_after(self, move: int) -> int:
        """The count if ``move`` were played now."""
        tile = move >> END_BITS
        end = move & LEAD_END
        tables = self.tables
        a = tables.low[tile]
        b = tables.high[tile]
        if end == LEAD_END:
            return a + b
        number = self.ends[end]
        after = a + a if a == b else (b if a == number else a)
        count = self.count + after - self.contributions[end]
        if end < 2 and self.lead_double_pips and not self.arm_lengths[end] and self.arm_lengths[
            1 - end
        ]:
            count -= self.lead_double_pips
        return count

    def points_after(self, move: int) -> int:
        """What ``move`` scores for its count."""
        return self.tables.points[self.count_after(move)]

    # ------------------------------------------------------------ moves

    def play(self, move: int) -> None:
        """Play ``move`` (legal), score it, and make the forced draws and passes after it."""
        tables = self.tables
        tile = move >> END_BITS
        end = move & LEAD_END
        seat = self.turn
        if end == LEAD_END:
            self._lead(tile)
        else:
            self._place(tile, end)
        self.must_lead = -1
        # Whole-item assignments, not ``hands[seat] &= …``: compiled code
        # would do the augmented form on boxed objects.
        hands = self.hands
        left = hands[seat] & ~(1 << tile)
        hands[seat] = left
        self.passes = 0
        points = tables.points[self.count]
        if points:
            side = tables.side[seat]
            scores = self.scores
            score = scores[side] + points
            scores[side] = score
            if tables.immediate_target and score >= tables.target_points:
                self.hand_over = True
                self.game_winner = self._leading_side()
                return
        if not left:
            self._domino(seat)
            return
        seat += 1
        if seat == tables.seats:
            seat = 0
        self.turn = seat
        if hands[seat] & self.open_mask:
            return  # the usual case: the next seat has a play
        self.advance()

    def advance(self) -> None:
        """Make every forced draw and pass until a seat has a play or the hand ends."""
        tables = self.tables
        while not self.hand_over and self.lead >= 0:
            seat = self.turn
            if self.hands[seat] & self.open_mask:
                return
            if tables.draws and self.boneyard:
                hands = self.hands
                hands[seat] = hands[seat] | 1 << self.boneyard.pop()
                continue
            self.passes += 1
            if self.passes >= tables.seats:
                self._blocked()
                return
            self.turn = (seat + 1) % tables.seats

    def _lead(self, tile: int) -> None:
        tables = self.tables
        a = tables.low[tile]
        b = tables.high[tile]
        self.lead = tile
        if a == b:
            self.lead_double_pips = a + b
            if tables.doubles_become_spinners:
                self.ends = [b, a, CLOSED, CLOSED]
                self.contributions = [0, 0, 0, 0]
                self.arm_lengths = [0, 0, 0, 0]
                self.spinners = [[LEAD, 0, 2, a, 0]]
            else:
                self.ends = [b, a]
                self.contributions = [0, 0]
                self.arm_lengths = [0, 0]
        else:
            self.lead_double_pips = 0
            self.ends = [b, a]
            self.contributions = [b, a]
            self.arm_lengths = [0, 0]
        self.count = a + b
        self.open_mask = tables.has[a] | tables.has[b]

    def _place(self, tile: int, end: int) -> None:
        tables = self.tables
        a = tables.low[tile]
        b = tables.high[tile]
        ends = self.ends
        lengths = self.arm_lengths
        number = ends[end]
        after = a + a if a == b else (b if a == number else a)
        count = self.count + after - self.contributions[end]
        if end < 2 and self.lead_double_pips and not lengths[end] and lengths[1 - end]:
            count -= self.lead_double_pips
            self.lead_double_pips = 0  # both long sides of the double lead are covered now
        self.count = count
        self.contributions[end] = after
        ends[end] = b if a == number else a
        lengths[end] = lengths[end] + 1
        spinners = self.spinners
        had_spinner = bool(spinners)
        for spinner in spinners:
            if not spinner[4]:
                arm = spinner[0]
                if arm == LEAD:
                    covered = lengths[0] > 0 and lengths[1] > 0
                else:
                    covered = lengths[arm] > spinner[1] + 1
                if covered:
                    spinner[4] = 1
                    ends[spinner[2]] = ends[spinner[2] + 1] = spinner[3]
        if a == b and (
            tables.every_double_spins or (tables.doubles_become_spinners and not had_spinner)
        ):
            first_short = len(ends)
            contributions = self.contributions
            for _ in range(2):
                ends.append(CLOSED)
                contributions.append(0)
                lengths.append(0)
            spinners.append([end, lengths[end] - 1, first_short, a, 0])
        has = tables.has
        mask = 0
        for showing in ends:
            if showing >= 0:
                mask |= has[showing]
        self.open_mask = mask

    # ------------------------------------------------------------ end of hand

    def _leading_side(self) -> int:
        """The side with the most points (the first on a tie), as the engine names it."""
        scores = self.scores
        leader = 0
        for side in range(1, len(scores)):
            if scores[side] > scores[leader]:
                leader = side
        return leader

    def _award(self, side: int, blocked: bool) -> int:
        tables = self.tables
        if tables.hand_award == "one-point":
            return 1
        value = tables.value
        opponents: list[int] = []
        own: list[int] = []
        for seat, hand in enumerate(self.hands):
            pips = _pips(hand, value)
            if tables.side[seat] == side:
                own.append(pips)
            else:
                opponents.append(pips)
        if not blocked or tables.blocked_award == "opponents":
            return _rounded(opponents, tables.rounding)
        if tables.blocked_award == "pips-of-others":
            return _rounded(opponents, "none")
        return max(0, _rounded(opponents, tables.rounding) - _rounded(own, tables.rounding))

    def _domino(self, seat: int) -> None:
        side = self.tables.side[seat]
        scores = self.scores
        scores[side] = scores[side] + self._award(side, blocked=False)
        self.hand_over = True
        self._end_game(side)

    def _blocked(self) -> None:
        tables = self.tables
        value = tables.value
        side_pips = [0] * tables.side_count
        for seat, hand in enumerate(self.hands):
            side = tables.side[seat]
            side_pips[side] = side_pips[side] + _pips(hand, value)
        lowest = min(side_pips)
        winners = [side for side, pips in enumerate(side_pips) if pips == lowest]
        winner = -1
        if len(winners) == 1:
            winner = winners[0]
            scores = self.scores
            scores[winner] = scores[winner] + self._award(winner, blocked=True)
        self.hand_over = True
        self._end_game(winner)

    def _end_game(self, hand_winner: int) -> None:
        """Whether the hand just finished ends the game, as the engine decides it."""
        target = self.tables.target
        if target is None:
            self.game_winner = hand_winner
            return
        scores = self.scores
        leader = self._leading_side()
        top = scores[leader]
        if top < target:
            return
        for side in range(len(scores)):
            if side != leader and scores[side] == top:
                return  # a tie at the top: the game goes on
        self.game_winner = leader

    def game_over(self) -> bool:
        """Whether the game ended in this simulation (a single-hand game ends with its hand)."""
        return self.hand_over and (self.game_winner >= 0 or self.tables.target is None)


def _pips(hand: int, value: list[int]) -> int:
    """The pips of the tiles in ``hand`` (a mask)."""
    pips = 0
    while hand:
        lowest = hand & -hand
        pips += value[lowest.bit_length() - 1]
        hand ^= lowest
    return pips


def _rounded(pips: list[int], rounding: str) -> int:
    """Pips as an award counts them: rounded to five in all, or each
    opponent's apart, or as they are (any other ``rounding``)."""
    total = 0
    for p in pips:
        total += round_to_five(p) if rounding == "per-opponent" else p
    return round_to_five(total) if rounding == "total" else total


def position_from(
    tables: TileTables,
    layout: Layout,
    hands: Sequence[int],
    boneyard: Sequence[int],
    turn: int,
    passes: int,
    scores: Sequence[int],
    must_lead: Tile | None,
) -> Position:
    """A position with these hands and boneyard (drawn from its end) on ``layout``."""
    position = Position.__new__(Position)
    position.tables = tables
    position.hands = list(hands)
    position.boneyard = list(boneyard)
    position.must_lead = -1 if must_lead is None else tables.index(must_lead)
    position.turn = turn
    position.passes = passes
    position.scores = list(scores)
    position.hand_over = False
    position.game_winner = -1
    position.spinners = []
    if layout.lead is None:
        position.lead = -1
        position.ends = []
        position.contributions = []
        position.arm_lengths = []
        position.lead_double_pips = 0
        position.count = 0
        position.open_mask = 0
        return position
    lead = layout.lead
    position.lead = tables.index(lead)
    position.ends = list(layout.ends)
    position.arm_lengths = [len(arm) for arm in layout.arms]
    lead_double = lead.low == lead.high
    position.lead_double_pips = (
        lead.low + lead.high if lead_double and not (layout.arms[0] and layout.arms[1]) else 0
    )
    contributions = []
    for arm, tiles in enumerate(layout.arms):
        if tiles:
            tip = tiles[-1]
            contributions.append(tip.low * 2 if tip.low == tip.high else layout.ends[arm])
        elif arm < 2 and not lead_double:
            contributions.append(layout.ends[arm])
        else:
            contributions.append(0)
    position.contributions = contributions
    for spinner in layout.spinners:
        opened = 1 if layout.ends[spinner.short_arms[0]] != CLOSED else 0
        position.spinners.append(
            [spinner.arm, spinner.position, spinner.short_arms[0], spinner.tile.low, opened]
        )
    position.count = layout.count
    mask = 0
    for showing in layout.ends:
        if showing >= 0:
            mask |= tables.has[showing]
    position.open_mask = mask
    return position


def from_state(state: GameState, rng: random.Random | None = None) -> Position:
    """The position of a whole GameState (every hand; for tests and benchmarks).

    The boneyard is drawn in the engine's order unless ``rng`` shuffles it.
    """
    hand = state.hand
    assert hand is not None, "no hand is being played"
    tables = tables_for(state.ruleset)
    # The engine draws from the front; a Position pops from the end.
    boneyard = [tables.index(t) for t in reversed(hand.boneyard)]
    if rng is not None:
        rng.shuffle(boneyard)
    return position_from(
        tables,
        hand.layout,
        [tables.mask(tiles) for tiles in hand.hands],
        boneyard,
        hand.turn,
        hand.passes,
        state.scores,
        hand.must_lead,
    )
