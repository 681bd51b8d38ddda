"""A drawn tile goes into the hand in its place (hands are kept sorted by
(low, high)); a hand built out of order, as a tampered record could give, is
sorted whole as the engine always did."""

from __future__ import annotations

import random

import pytest

from muggins.rules.game import _with_tile
from muggins.rules.tiles import Tile, tile_set


@pytest.mark.parametrize("max_pip", [6, 12])
def test_a_drawn_tile_lands_where_sorting_would_put_it(max_pip: int) -> None:
    rng = random.Random(max_pip)
    tiles = list(tile_set(max_pip))
    for _ in range(500):
        picked = rng.sample(tiles, rng.randint(1, 10))
        drawn, held = picked[0], tuple(sorted(picked[1:]))
        assert _with_tile(held, drawn) == tuple(sorted(picked))
        shuffled = list(held)
        rng.shuffle(shuffled)
        assert _with_tile(tuple(shuffled), drawn) == tuple(sorted(picked))


def test_an_empty_hand_takes_the_tile() -> None:
    assert _with_tile((), Tile(2, 5)) == (Tile(2, 5),)
