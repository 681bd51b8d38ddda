"""``legal_plays`` keeps the plays it makes: the same seat, tile and end give
the very same (immutable) Play, equal to a new one, and a play it cannot
keep is still made."""

from __future__ import annotations

import random

import msgspec

from muggins.rules import game
from muggins.rules.commands import Play, StartHand
from muggins.rules.game import legal_plays, play, start_game
from muggins.rules.presets import preset
from muggins.rules.shuffle import hand_seed
from muggins.rules.state import replaced
from muggins.rules.tiles import Tile


def test_the_same_play_is_kept_and_equals_a_new_one() -> None:
    rng = random.Random(7)
    for name, seats, partners in (("five-up", 2, False), ("playelephant", 4, True)):
        state, _ = start_game(preset(name, seats, partners))
        state, _ = play(state, StartHand(seed=hand_seed(b"kept", 1).hex()))
        while state.phase == "playing":
            plays = legal_plays(state)
            again = legal_plays(state)
            assert all(a is b for a, b in zip(plays, again, strict=True))
            assert plays == [Play(p.seat, p.tile, p.end) for p in plays]
            assert all(p.claim is None for p in plays)
            state, _ = play(state, plays[int(rng.random() * len(plays))])


def test_a_play_beyond_the_kept_ones_is_made_each_time() -> None:
    tile = Tile(3, 3)
    far = game._play_on(0, tile, 3, 3, game._LEAD_SLOT)  # an arm, not a lead
    assert far == Play(0, tile, game._LEAD_SLOT)
    assert far is not game._play_on(0, tile, 3, 3, game._LEAD_SLOT)
    lead = game._play_on(1, tile, 3, 3, None)
    assert lead == Play(1, tile) and lead is game._play_on(1, tile, 3, 3, None)
    assert game._play_on(1, tile, 3, 3, 0) == Play(1, tile, 0) != lead


def test_a_hand_built_with_odd_tiles_leaves_nothing_odd_for_later_games() -> None:
    # A state built by hand (as tests and tools do) with a bool for a half,
    # or a bare pair for a tile: its plays are made for it alone.
    state, _ = start_game(preset("all-fives", 2))
    state, _ = play(state, StartHand(seed=hand_seed(b"odd", 1).hex()))
    hand = state.hand
    assert hand is not None
    odd = replaced(state, hand=replaced(hand, hands=((Tile(True, 3), (2, 5)), hand.hands[1]),
                                        turn=0, must_lead=None))
    assert [p.tile for p in legal_plays(odd)] == [(1, 3), (2, 5)]
    later = replaced(state, hand=replaced(hand, hands=((Tile(1, 3), Tile(2, 5)), hand.hands[1]),
                                          turn=0, must_lead=None))
    for kept in legal_plays(later):
        assert type(kept.tile) is Tile and all(type(half) is int for half in kept.tile)
        assert msgspec.json.decode(msgspec.json.encode(kept), type=Play) == kept


def test_an_end_out_of_range_is_never_kept() -> None:
    tile = Tile(0, 1)
    assert game._play_on(0, tile, 0, 1, -1) == Play(0, tile, -1)
    assert game._play_on(0, Tile(0, 2), 0, 2, None) == Play(0, Tile(0, 2))
