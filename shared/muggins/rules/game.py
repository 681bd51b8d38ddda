"""The game: state, the legal moves, ``decide`` (command -> events or a
refusal) and ``evolve`` (state + event -> state).

``apply`` is ``decide`` followed by folding ``evolve`` over the new events,
so the state a game reaches by commands equals the fold of its events: the
same function builds both.  Nothing here does I/O, reads a clock or draws
randomness except from the hand seed given with StartHand.

Orderings clients rely on (pinned by tests/rules/golden): a hand is sorted by
(low, high); ``legal_plays`` lists tiles in hand order, and for each tile the
ends by arm number.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache
from typing import Any, Final, cast

from muggins.rules import errors, placing
from muggins.rules.commands import AnyCommand, CallMuggins, Draw, Pass, Play, StartHand
from muggins.rules.events import (
    BoneyardStacked,
    Event,
    GameEnded,
    GameStarted,
    HandEnded,
    HandStarted,
    LeaderReason,
    Passed,
    PointsScored,
    SeatedPlayer,
    SeedSealed,
    TileDrawn,
    TilePlayed,
    TilesDealt,
)
from muggins.rules.layout import Layout
from muggins.rules.ruleset import Ruleset
from muggins.rules.scoring import pips, points_for_count, rounded_total
from muggins.rules.shuffle import (
    SHUFFLE_VERSION,
    commitment,
    lottery,
    seed_from_hex,
    shuffled,
)
from muggins.rules.state import GameState, HandState, MoveRules, PendingCount
from muggins.rules.tiles import Tile, tile_set
from muggins.rules.tuples import with_item, without

# Classes and functions of the uncompiled modules that the hot paths use, bound once: in
# the compiled module a Final name is a C variable, any other global a lookup
# in the module's dict at every use.
_PLAY: Final = Play
_TILE: Final = Tile
_TILE_PLAYED: Final = TilePlayed
_POINTS_SCORED: Final = PointsScored
_PASSED: Final = Passed
_TILE_DRAWN: Final = TileDrawn
_HAND_STARTED: Final = HandStarted
_SEED_SEALED: Final = SeedSealed
_TILES_DEALT: Final = TilesDealt
_BONEYARD_STACKED: Final = BoneyardStacked
_HAND_ENDED: Final = HandEnded
_GAME_ENDED: Final = GameEnded
_TILE_SET: Final = tile_set

#: The plays ``legal_plays`` made, kept for the next time: a Play is immutable,
#: the same seat, tile and end always make an equal one, and making them was
#: most of what listing the plays cost.  Slot ((seat * 16 + low) * 16 + high)
#: * _ARM_SLOTS + end, for seats 0-3, a Tile of halves 0-15 and arms below
#: _LEAD_SLOT; a lead (no end) in _LEAD_SLOT.  Anything else (a state built
#: by hand, with a bare pair for a tile or a seat out of range) gets a new
#: play each time: a kept one is shared by every game of the process.
_ARM_SLOTS: Final = 40
_LEAD_SLOT: Final = _ARM_SLOTS - 1
_KEPT_PLAYS: Final[list[Play | None]] = [None] * (4 * 16 * 16 * _ARM_SLOTS)

# ---------------------------------------------------------------- queries


def legal_plays(state: GameState) -> list[Play]:
    """Every play the seat on turn may make, in the documented order."""
    hand = state.hand
    if hand is None:  # no hand being played (GameState's invariant)
        return []
    seat = hand.turn
    tiles = hand.hands[seat]
    layout = hand.layout
    if layout.lead is None:
        must_lead = hand.must_lead
        if must_lead is not None:
            return [_play_on(seat, must_lead, must_lead[0], must_lead[1], None)]
        return [_play_on(seat, tile, tile[0], tile[1], None) for tile in tiles]
    numbers = layout.open_numbers
    ends = layout.ends
    plays = []
    for tile in tiles:
        low, high = tile
        if (numbers >> low) & 1 or (numbers >> high) & 1:
            for end, number in enumerate(ends):
                if number == low or number == high:
                    plays.append(_play_on(seat, tile, low, high, end))
    return plays


def _play_on(seat: int, tile: Tile, low: int, high: int, end: int | None) -> Play:
    """Play(seat, tile, end), ``low`` and ``high`` being the tile's halves:
    the kept one, else a new one (kept when it may be)."""
    if end is None:
        place = _LEAD_SLOT
    elif 0 <= end < _LEAD_SLOT:
        place = end
    else:
        return _PLAY(seat, tile, end)
    if not (0 <= seat < 4 and 0 <= low < 16 and 0 <= high < 16):
        return _PLAY(seat, tile, end)
    slot = ((seat * 16 + low) * 16 + high) * _ARM_SLOTS + place
    kept = _KEPT_PLAYS[slot]
    if kept is not None:
        return kept
    made = _PLAY(seat, tile, end)
    # Only a Tile of plain ints is kept: a bare pair, a bool or an int
    # subclass would compare equal and then be written out as itself in
    # every later game.  (Such a tile later gets the kept, plain one.)
    # (Read as Any: compiled, a half read as an int would be made one.)
    halves: Any = tile
    if (type(tile) is _TILE and type(halves[0]) is int and type(halves[1]) is int
            and type(seat) is int):
        _KEPT_PLAYS[slot] = made
    return made


def has_play(state: GameState, seat: int) -> bool:
    """Whether ``seat`` holds a tile that fits anywhere now."""
    hand = state.hand
    return hand is not None and _fits_anywhere(hand.layout, hand.hands[seat])


def _fits_anywhere(layout: Layout, tiles: tuple[Tile, ...]) -> bool:
    if layout.lead is None:
        return True
    numbers = layout.open_numbers
    for low, high in tiles:
        if (numbers >> low) & 1 or (numbers >> high) & 1:
            return True
    return False


def _stuck(state: GameState) -> HandState | None:
    """The hand, when the seat on turn holds nothing that fits (it must draw or pass)."""
    hand = state.hand
    if hand is None:  # no hand being played (GameState's invariant)
        return None
    if _fits_anywhere(hand.layout, hand.hands[hand.turn]):
        return None
    return hand


def _draws(rules: MoveRules, hand: HandState) -> bool:
    """Whether a seat that is stuck draws (rather than passes)."""
    return rules.drawing == "draw" and bool(hand.boneyard)


def forced_move(state: GameState) -> Draw | Pass | None:
    """The draw or pass the engine must make for the seat on turn, if any."""
    hand = _stuck(state)
    if hand is None:
        return None
    if _draws(state.move_rules, hand):
        return Draw(seat=hand.turn)
    return Pass(seat=hand.turn)


def legal_moves(state: GameState) -> list[AnyCommand]:
    """The moves open to the seat on turn: its plays, else the forced draw or pass.

    A muggins call, open to every opponent of the pending count, comes last.
    """
    hand = state.hand
    if hand is None or state.phase != "playing":
        return []
    forced = forced_move(state)
    moves: list[AnyCommand] = [forced] if forced else list(legal_plays(state))
    if can_call_muggins(state, hand.turn):
        moves.append(CallMuggins(seat=hand.turn))
    return moves


def can_call_muggins(state: GameState, seat: int) -> bool:
    hand = state.hand
    if hand is None or hand.pending is None or state.phase != "playing":
        return False
    rules = state.move_rules
    return _side(rules, seat) != _side(rules, hand.pending.seat)


def points_if_played(state: GameState, play: Play) -> int:
    """What ``play`` would score for its count (bots and hints use it)."""
    hand = state.hand
    assert hand is not None
    rules = state.move_rules
    if play.end is None:
        count = play.tile.value
    else:
        count = placing.count_after(hand.layout, play.tile, play.end)
    return points_for_count(count, rules.scoring)


# ---------------------------------------------------------------- decide


def start_game(
    ruleset: Ruleset, players: tuple[SeatedPlayer, ...] = ()
) -> tuple[GameState, list[Event]]:
    """A new game: its first event and the state it gives."""
    events: list[Event] = [GameStarted(ruleset=ruleset, players=players)]
    return fold(events), events


def decide(state: GameState, command: AnyCommand) -> list[Event]:
    """The events ``command`` causes, or an IllegalMove naming why not."""
    match command:
        case _PLAY():  # the Final name: no dictionary lookup for the commonest command
            return _decide_play(state, command)
        case Draw():
            return _decide_draw(state, command)
        case Pass():
            return _decide_pass(state, command)
        case CallMuggins():
            return _decide_muggins(state, command)
        case StartHand():
            return _decide_start_hand(state, command)
    raise errors.IllegalMove(f"unknown command {command!r}")


def _hand_on_turn(state: GameState, seat: int) -> HandState:
    """The hand in play, provided it is ``seat``'s turn."""
    if state.phase == "game-over":
        raise errors.GameOver("the game is over")
    hand = state.hand
    if hand is None:
        raise errors.HandNotInProgress("no hand is being played")
    if not 0 <= seat < state.move_rules.seats:
        raise errors.NotYourTurn(f"there is no seat {seat}")
    if seat != hand.turn:
        raise errors.NotYourTurn(f"it is seat {hand.turn}'s turn, not seat {seat}'s")
    return hand


def _decide_start_hand(state: GameState, command: StartHand) -> list[Event]:
    if state.phase == "game-over":
        raise errors.GameOver("the game is over")
    if state.phase == "playing":
        raise errors.HandInProgress("a hand is already being played")
    seed = seed_from_hex(command.seed)
    rules = state.move_rules
    tiles = _TILE_SET(rules.max_pip)
    # Shuffling the tiles' places in the canonical order shuffles the tiles
    # alike; sorting places (small ints) sorts the tiles, since the canonical
    # order is sorted.
    order = shuffled(seed, _places(len(tiles)))
    per_seat = rules.tiles_per_seat
    hands = [
        tuple([tiles[i] for i in sorted(order[s * per_seat : (s + 1) * per_seat])])
        for s in range(rules.seats)
    ]
    boneyard = tuple([tiles[i] for i in order[rules.seats * per_seat :]])
    number = state.hands_played + 1
    leader, reason, must_lead = _choose_leader(state, hands, seed)
    events: list[Event] = [
        _HAND_STARTED(
            hand=number,
            leader=leader,
            leader_reason=reason,
            must_lead=must_lead,
            commitment=commitment(seed),
            shuffle_version=SHUFFLE_VERSION,
        ),
        _SEED_SEALED(hand=number, seed=command.seed.lower()),
    ]
    for seat, dealt in enumerate(hands):
        events.append(_TILES_DEALT(hand=number, seat=seat, tile_count=len(dealt), tiles=dealt))
    events.append(_BONEYARD_STACKED(hand=number, tile_count=len(boneyard), tiles=boneyard))
    return events


@cache
def _places(count: int) -> tuple[int, ...]:
    """0 .. count - 1: the places in a set the shuffle orders (made once per set size)."""
    return tuple(range(count))


def _choose_leader(
    state: GameState, hands: list[tuple[Tile, ...]], seed: bytes
) -> tuple[int, LeaderReason, Tile | None]:
    rules = state.move_rules
    if state.hands_played == 0:
        rule: str = rules.first_leader
    else:
        if rules.next_leader == "domino-player" and state.last_domino_seat is not None:
            return state.last_domino_seat, "domino-player", None
        if rules.next_leader == "hand-winner" and state.last_winner_seat is not None:
            return state.last_winner_seat, "hand-winner", None
        rule = rules.leader_without_winner
    if rule == "lottery":
        return lottery(seed, rules.seats), "lottery", None
    if rule == "left-of-previous-leader":
        assert state.last_leader is not None
        return (state.last_leader + 1) % rules.seats, "left-of-previous-leader", None
    doubles = [(tile, seat) for seat, hand in enumerate(hands) for tile in hand if tile.is_double]
    if doubles:
        tile, seat = max(doubles)
        return seat, "highest-double", tile
    # Nobody holds a double: the heaviest tile leads; equal weights, the higher half wins.
    _, _, tile, seat = max(
        (tile.value, tile.high, tile, seat) for seat, hand in enumerate(hands) for tile in hand
    )
    return seat, "heaviest-tile", tile


def _decide_play(state: GameState, command: Play) -> list[Event]:
    return _play_decided(state, command)[0]


def _play_decided(
    state: GameState, command: Play
) -> tuple[list[Event], int, Tile, int | None, int, int | None]:
    """The events of a play, and its TilePlayed's facts (seat, tile, end,
    count, claim): ``apply`` folds those without reading them back."""
    seat = command.seat
    hand = state.hand
    if hand is None or seat != hand.turn:
        hand = _hand_on_turn(state, seat)  # raises the reason
    rules = state.move_rules
    tile = command.tile
    low, high = tile
    if low > high or type(tile) is not _TILE:  # written high half first, or a bare pair
        low, high = min(low, high), max(low, high)
        tile = Tile(low, high)
    held = hand.hands[seat]
    if tile not in held:
        max_pip = rules.max_pip
        if low < 0 or high > max_pip:
            raise errors.UnknownTile(f"{high}-{low} is not in the double-{max_pip} set")
        raise errors.TileNotInHand(f"seat {seat} does not hold the {tile}")
    layout = hand.layout
    end = command.end
    if layout.lead is None:
        if end is not None:
            raise errors.NoSuchEnd("the lead starts the layout: play it without an end")
        if hand.must_lead is not None and tile != hand.must_lead:
            raise errors.MustLeadTile(f"the {hand.must_lead} must be led")
        count = low + high
    else:
        ends = layout.ends
        if end is None or not 0 <= end < len(ends) or ends[end] < 0:
            open_ends = ", ".join(str(e) for e, _ in layout.open_ends())
            raise errors.NoSuchEnd(f"end {end} is not open; the open ends are {open_ends}")
        if ends[end] != low and ends[end] != high:
            if not has_play(state, seat):
                if _draws(rules, hand):
                    raise errors.DrawRequired(f"seat {seat} has no tile that fits and must draw")
                raise errors.MustPlay(f"seat {seat} has no tile that fits and must pass")
            raise errors.TileDoesNotMatch(f"the {tile} does not match the {ends[end]} on end {end}")
        count = placing.count_after(layout, tile, end)
    number = hand.number
    claim = command.claim
    events: list[Event] = [_TILE_PLAYED(number, seat, tile, end, count, claim)]
    points = points_for_count(count, rules.scoring) if count else 0
    if points and (claim == points or not rules.muggins_rule):
        side = _side(rules, seat)
        events.append(_POINTS_SCORED(number, side, seat, points, "count"))
        scores = _added(state.scores, side, points)
        if _target_reached_now(rules, scores, side):
            events += _target_reached_events(state, hand, scores, seat, tile)
            return events, seat, tile, end, count, claim
    else:
        scores = state.scores
    if len(held) == 1:
        remaining = list(hand.hands)
        remaining[seat] = ()
        events += _domino_events(state, hand, tuple(remaining), seat, scores)
    return events, seat, tile, end, count, claim


def _decide_draw(state: GameState, command: Draw) -> list[Event]:
    hand = _hand_on_turn(state, command.seat)
    if has_play(state, command.seat):
        raise errors.MustPlay(f"seat {command.seat} holds a tile that fits and must play it")
    if state.move_rules.drawing != "draw":
        raise errors.IllegalMove("this table does not draw: pass instead")
    if not hand.boneyard:
        raise errors.IllegalMove("the boneyard is empty: pass instead")
    return _draw_events(hand, command.seat)


def _draw_events(hand: HandState, seat: int) -> list[Event]:
    return [_TILE_DRAWN(hand=hand.number, seat=seat, tile=hand.boneyard[0])]


def _decide_pass(state: GameState, command: Pass) -> list[Event]:
    seat = command.seat
    hand = _hand_on_turn(state, seat)
    if has_play(state, seat):
        raise errors.MustPlay(f"seat {seat} holds a tile that fits and must play it")
    if _draws(state.move_rules, hand):
        raise errors.DrawRequired(f"seat {seat} must draw before passing")
    return _pass_events(state, hand, seat)


def _pass_events(state: GameState, hand: HandState, seat: int) -> list[Event]:
    events: list[Event] = [_PASSED(hand=hand.number, seat=seat)]
    if hand.passes + 1 >= state.move_rules.seats:
        events += _blocked_events(state, hand)
    return events


def _forced_events(state: GameState) -> list[Event] | None:
    """The events of the draw or pass the seat on turn must make, if it must.

    The same events ``decide`` gives for that move, without checking it again:
    the seat is stuck, which leaves it that one move.
    """
    hand = _stuck(state)
    if hand is None:
        return None
    if _draws(state.move_rules, hand):
        return _draw_events(hand, hand.turn)
    return _pass_events(state, hand, hand.turn)


def _decide_muggins(state: GameState, command: CallMuggins) -> list[Event]:
    if state.phase == "game-over":
        raise errors.GameOver("the game is over")
    hand = state.hand
    if hand is None:
        raise errors.HandNotInProgress("no hand is being played")
    if not 0 <= command.seat < state.move_rules.seats:
        raise errors.NothingToCall(f"there is no seat {command.seat}")
    if not can_call_muggins(state, command.seat):
        raise errors.NothingToCall("there is no unclaimed count an opponent of yours made")
    assert hand.pending is not None
    rules = state.move_rules
    side = _side(rules, command.seat)
    points = hand.pending.points
    events: list[Event] = [
        PointsScored(
            hand=hand.number, side=side, seat=command.seat, points=points, reason="muggins"
        )
    ]
    scores = _added(state.scores, side, points)
    if _target_reached_now(rules, scores, side):
        events += _target_reached_events(state, hand, scores, None, None)
    return events


# ---------------------------------------------------------------- end of hand


def _side(rules: MoveRules, seat: int) -> int:
    """``Ruleset.side_of(seat)``, compiled: the end-of-hand tallies ask it for every seat."""
    return seat % 2 if rules.partnerships else seat


def _side_count(rules: Ruleset) -> int:
    """``rules.side_count``, compiled (Ruleset's own code runs interpreted)."""
    return 2 if rules.partnerships else rules.seats


def _added(scores: tuple[int, ...], side: int, points: int) -> tuple[int, ...]:
    return scores[:side] + (scores[side] + points,) + scores[side + 1 :]


def _target_reached_now(rules: MoveRules, scores: tuple[int, ...], side: int) -> bool:
    return (
        rules.target is not None
        and rules.target_check == "immediate"
        and scores[side] >= rules.target
    )


def _seat_pips(hands: Iterable[tuple[Tile, ...]]) -> tuple[int, ...]:
    return tuple([pips(tiles) for tiles in hands])


def _target_reached_events(
    state: GameState,
    hand: HandState,
    scores: tuple[int, ...],
    seat: int | None,
    played: Tile | None,
) -> list[Event]:
    """The game ends at once: the hand closes with no end-of-hand award."""
    hands = list(hand.hands)
    if seat is not None and played is not None:
        hands[seat] = tuple(t for t in hands[seat] if t != played)
    winner = max(range(len(scores)), key=lambda side: scores[side])
    return [
        _HAND_ENDED(
            hand=hand.number,
            outcome="target-reached",
            winner_side=None,
            winner_seat=None,
            pips=_seat_pips(hands),
            hands=tuple(hands),
            seed=hand.seed or "",
        ),
        _GAME_ENDED(winner_side=winner, scores=scores),
    ]


def _award(rules: MoveRules, seat_pips: tuple[int, ...], side: int, blocked: bool) -> int:
    """The hand winner's award from the seats' remaining pips."""
    if rules.hand_award == "one-point":
        return 1
    opponents = [p for s, p in enumerate(seat_pips) if _side(rules, s) != side]
    if not blocked or rules.blocked_award == "opponents":
        return rounded_total(opponents, rules.rounding)
    if rules.blocked_award == "pips-of-others":
        return sum(opponents)
    own = [p for s, p in enumerate(seat_pips) if _side(rules, s) == side]
    return max(0, rounded_total(opponents, rules.rounding) - rounded_total(own, rules.rounding))


def _domino_events(
    state: GameState,
    hand: HandState,
    hands: tuple[tuple[Tile, ...], ...],
    seat: int,
    scores: tuple[int, ...],
) -> list[Event]:
    moves = state.move_rules
    side = _side(moves, seat)
    seat_pips = _seat_pips(hands)
    award = _award(moves, seat_pips, side, blocked=False)
    events: list[Event] = []
    if award:
        events.append(
            PointsScored(hand=hand.number, side=side, seat=seat, points=award, reason="domino")
        )
        scores = _added(scores, side, award)
    events.append(
        _HAND_ENDED(
            hand=hand.number,
            outcome="domino",
            winner_side=side,
            winner_seat=seat,
            pips=seat_pips,
            hands=hands,
            seed=hand.seed or "",
        )
    )
    return events + _game_end_events(moves, scores, side)


def _blocked_events(state: GameState, hand: HandState) -> list[Event]:
    moves = state.move_rules
    seat_pips = _seat_pips(hand.hands)
    side_pips = [0] * len(state.scores)  # a score per side
    for seat, seat_total in enumerate(seat_pips):
        side_pips[_side(moves, seat)] += seat_total
    lowest = min(side_pips)
    winners = [side for side, total in enumerate(side_pips) if total == lowest]
    events: list[Event] = []
    scores = state.scores
    winner_side: int | None = None
    winner_seat: int | None = None
    if len(winners) == 1:
        winner_side = winners[0]
        # The winning side's seat holding the fewest pips (the lower seat on a tie).
        winner_seat = min(
            (p, s) for s, p in enumerate(seat_pips) if _side(moves, s) == winner_side
        )[1]
        award = _award(moves, seat_pips, winner_side, blocked=True)
        if award:
            events.append(
                PointsScored(
                    hand=hand.number,
                    side=winner_side,
                    seat=winner_seat,
                    points=award,
                    reason="blocked",
                )
            )
            scores = _added(scores, winner_side, award)
    events.append(
        _HAND_ENDED(
            hand=hand.number,
            outcome="blocked",
            winner_side=winner_side,
            winner_seat=winner_seat,
            pips=seat_pips,
            hands=hand.hands,
            seed=hand.seed or "",
        )
    )
    return events + _game_end_events(moves, scores, winner_side)


def _game_end_events(
    rules: MoveRules, scores: tuple[int, ...], hand_winner: int | None
) -> list[Event]:
    """GameEnded if the hand just finished ends the game."""
    if rules.target is None:
        return [_GAME_ENDED(winner_side=hand_winner, scores=scores)]
    top = max(scores)
    leaders = [side for side, score in enumerate(scores) if score == top]
    if top >= rules.target and len(leaders) == 1:
        return [_GAME_ENDED(winner_side=leaders[0], scores=scores)]
    return []


# ---------------------------------------------------------------- evolve


def _with_hand(state: GameState, hand: HandState) -> GameState:
    """``state`` with its hand replaced (the other fields as they were)."""
    return GameState(
        ruleset=state.ruleset,
        scores=state.scores,
        phase=state.phase,
        hand=hand,
        hands_played=state.hands_played,
        last_leader=state.last_leader,
        last_domino_seat=state.last_domino_seat,
        last_winner_seat=state.last_winner_seat,
        winner_side=state.winner_side,
        move_rules=state.move_rules,
    )


def _hand_with(
    hand: HandState,
    hands: tuple[tuple[Tile, ...], ...],
    boneyard: tuple[Tile, ...],
    layout: Layout,
    turn: int,
    passes: int,
    pending: PendingCount | None,
    must_lead: Tile | None,
    seed: str | None,
) -> HandState:
    """``hand`` with the fields that change during a hand set anew."""
    return HandState(
        number=hand.number,
        leader=hand.leader,
        must_lead=must_lead,
        commitment=hand.commitment,
        seed=seed,
        hands=hands,
        boneyard=boneyard,
        layout=layout,
        turn=turn,
        passes=passes,
        pending=pending,
    )


def _hand_of(state: GameState | None) -> tuple[GameState, HandState]:
    """The state and its hand, for an event that only happens during a hand."""
    assert state is not None
    hand = state.hand
    assert hand is not None
    return state, hand


def _tile_played(state: GameState | None, event: TilePlayed) -> GameState:
    state, hand = _hand_of(state)
    return _after_play(state, hand, event.seat, event.tile, event.end, event.count, event.claim)


def _after_play(
    state: GameState,
    hand: HandState,
    seat: int,
    tile: Tile,
    end: int | None,
    count: int,
    claim: int | None,
) -> GameState:
    """The state after a TilePlayed with these facts."""
    rules = state.move_rules
    hands = hand.hands
    if end is None:
        layout = placing.with_lead(tile, rules.spinner)
    else:
        layout = placing.place(hand.layout, tile, end, rules.spinner, count)
    pending = None
    if rules.muggins_rule:
        points = points_for_count(count, rules.scoring)
        if points and claim != points:
            pending = PendingCount(seat, points)
    return _with_hand(state, _hand_with(
        hand,
        with_item(hands, seat, without(hands[seat], tile)),
        hand.boneyard,
        layout,
        (seat + 1) % rules.seats,
        0,
        pending,
        None,
        hand.seed,
    ))


def _with_tile(held: tuple[Tile, ...], tile: Tile) -> tuple[Tile, ...]:
    """``held`` and ``tile``, sorted: the tile put in its place when ``held``
    is sorted (as the engine deals and keeps every hand), else all sorted.
    Tiles order as (low, high), compared here as the ints they hold."""
    low, high = tile
    index = len(held)
    last_low = last_high = -1
    for position, (other_low, other_high) in enumerate(held):
        if other_low < last_low or (other_low == last_low and other_high < last_high):
            return tuple(sorted((*held, tile)))  # a hand built out of order
        if index == len(held) and (other_low > low or (other_low == low and other_high > high)):
            index = position
        last_low, last_high = other_low, other_high
    return held[:index] + (tile,) + held[index:]


def _tile_drawn(state: GameState | None, event: TileDrawn) -> GameState:
    state, hand = _hand_of(state)
    tile = event.tile
    assert tile is not None
    drawn = _with_tile(hand.hands[event.seat], tile)
    return _with_hand(state, _hand_with(
        hand, with_item(hand.hands, event.seat, drawn), hand.boneyard[1:], hand.layout,
        hand.turn, hand.passes, hand.pending, hand.must_lead, hand.seed,
    ))


def _passed(state: GameState | None, event: Passed) -> GameState:
    state, hand = _hand_of(state)
    return _with_hand(state, _hand_with(
        hand, hand.hands, hand.boneyard, hand.layout, (event.seat + 1) % state.move_rules.seats,
        hand.passes + 1, hand.pending, hand.must_lead, hand.seed,
    ))


def _points_scored(state: GameState | None, event: PointsScored) -> GameState:
    assert state is not None
    hand = state.hand
    if event.reason == "muggins" and hand is not None:
        hand = _hand_with(hand, hand.hands, hand.boneyard, hand.layout, hand.turn, hand.passes,
                          None, hand.must_lead, hand.seed)
    return GameState(
        ruleset=state.ruleset,
        scores=_added(state.scores, event.side, event.points),
        phase=state.phase,
        hand=hand,
        hands_played=state.hands_played,
        last_leader=state.last_leader,
        last_domino_seat=state.last_domino_seat,
        last_winner_seat=state.last_winner_seat,
        winner_side=state.winner_side,
        move_rules=state.move_rules,
    )


def _hand_started(state: GameState | None, event: HandStarted) -> GameState:
    assert state is not None
    return GameState(
        ruleset=state.ruleset,
        scores=state.scores,
        phase="playing",
        hand=HandState(
            number=event.hand,
            leader=event.leader,
            must_lead=event.must_lead,
            commitment=event.commitment,
            hands=((),) * state.move_rules.seats,
            turn=event.leader,
        ),
        hands_played=state.hands_played,
        last_leader=state.last_leader,
        last_domino_seat=state.last_domino_seat,
        last_winner_seat=state.last_winner_seat,
        winner_side=state.winner_side,
        move_rules=state.move_rules,
    )


def _seed_sealed(state: GameState | None, event: SeedSealed) -> GameState:
    state, hand = _hand_of(state)
    return _with_hand(state, _hand_with(
        hand, hand.hands, hand.boneyard, hand.layout, hand.turn, hand.passes, hand.pending,
        hand.must_lead, event.seed,
    ))


def _tiles_dealt(state: GameState | None, event: TilesDealt) -> GameState:
    state, hand = _hand_of(state)
    assert event.tiles is not None
    return _with_hand(state, _hand_with(
        hand, with_item(hand.hands, event.seat, event.tiles), hand.boneyard, hand.layout,
        hand.turn, hand.passes, hand.pending, hand.must_lead, hand.seed,
    ))


def _boneyard_stacked(state: GameState | None, event: BoneyardStacked) -> GameState:
    state, hand = _hand_of(state)
    assert event.tiles is not None
    return _with_hand(state, _hand_with(
        hand, hand.hands, event.tiles, hand.layout, hand.turn, hand.passes, hand.pending,
        hand.must_lead, hand.seed,
    ))


def _hand_ended(state: GameState | None, event: HandEnded) -> GameState:
    state, hand = _hand_of(state)
    return GameState(
        ruleset=state.ruleset,
        scores=state.scores,
        phase="between-hands",
        hand=None,
        hands_played=event.hand,
        last_leader=hand.leader,
        last_domino_seat=event.winner_seat if event.outcome == "domino" else None,
        last_winner_seat=event.winner_seat,
        winner_side=state.winner_side,
        move_rules=state.move_rules,
    )


def _game_ended(state: GameState | None, event: GameEnded) -> GameState:
    assert state is not None
    return GameState(
        ruleset=state.ruleset,
        scores=state.scores,
        phase="game-over",
        hand=state.hand,
        hands_played=state.hands_played,
        last_leader=state.last_leader,
        last_domino_seat=state.last_domino_seat,
        last_winner_seat=state.last_winner_seat,
        winner_side=event.winner_side,
        move_rules=state.move_rules,
    )


def _game_started(state: GameState | None, event: GameStarted) -> GameState:
    rules = event.ruleset
    return GameState(ruleset=rules, scores=(0,) * _side_count(rules))


# One function per event type, looked up by the event's exact type: a fold
# over a hand runs this for every event, and a table beats a chain of
# isinstance tests (a match statement) for the types near its end.
_EVOLVERS: Final[dict[type[Event], Callable[[GameState | None, Any], GameState]]] = {
    TilePlayed: _tile_played,
    TileDrawn: _tile_drawn,
    Passed: _passed,
    PointsScored: _points_scored,
    HandStarted: _hand_started,
    SeedSealed: _seed_sealed,
    TilesDealt: _tiles_dealt,
    BoneyardStacked: _boneyard_stacked,
    HandEnded: _hand_ended,
    GameEnded: _game_ended,
    GameStarted: _game_started,
}


def evolve(state: GameState | None, event: Event) -> GameState:
    """The state after ``event``.  Events are facts: nothing is validated here."""
    # The events of every turn first, called directly (compiled, a direct
    # call skips the generic one through the table).
    kind = type(event)
    if kind is _TILE_PLAYED:
        return _tile_played(state, cast(TilePlayed, event))
    if kind is _PASSED:
        return _passed(state, cast(Passed, event))
    if kind is _POINTS_SCORED:
        return _points_scored(state, cast(PointsScored, event))
    if kind is _TILE_DRAWN:
        return _tile_drawn(state, cast(TileDrawn, event))
    try:
        evolver = _EVOLVERS[kind]
    except KeyError:
        raise TypeError(f"not an event: {event!r}") from None
    return evolver(state, event)


def fold(events: Iterable[Event], state: GameState | None = None) -> GameState:
    """The state the events give, from ``state`` (or from nothing: GameStarted first)."""
    for event in events:
        state = evolve(state, event)
    if state is None:
        raise ValueError("no events: a game starts with GameStarted")
    return state


def apply(state: GameState, command: AnyCommand) -> tuple[GameState, list[Event]]:
    """Decide ``command`` and fold its events: the new state and what happened.

    Raises an IllegalMove (and the caller keeps the old state) when refused.
    """
    if type(command) is _PLAY:  # the commonest: its TilePlayed folded from the facts at hand
        events, seat, tile, end, count, claim = _play_decided(state, command)
        hand = state.hand
        assert hand is not None  # _play_decided refuses a play outside a hand
        state = _after_play(state, hand, seat, tile, end, count, claim)
        for index in range(1, len(events)):
            state = evolve(state, events[index])
        return state, events
    events = decide(state, command)
    for event in events:
        state = evolve(state, event)
    return state, events


def advance(state: GameState) -> tuple[GameState, list[Event]]:
    """Make every forced draw and pass until a seat has a choice or the hand ends."""
    events: list[Event] = []
    while (forced := _forced_events(state)) is not None:
        for event in forced:
            state = evolve(state, event)
        events += forced
    return state, events


def play(state: GameState, command: AnyCommand) -> tuple[GameState, list[Event]]:
    """``apply`` a player's decision, then ``advance`` through forced moves."""
    state, events = apply(state, command)
    if _stuck(state) is None:  # the usual case: the next seat has a choice, or the hand is over
        return state, events
    state, forced = advance(state)
    return state, events + forced
