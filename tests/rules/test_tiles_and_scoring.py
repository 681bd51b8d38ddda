from __future__ import annotations

import pytest

from muggins.rules.errors import UnknownTile
from muggins.rules.scoring import pips, points_for_count, round_to_five, rounded_total
from muggins.rules.tiles import Tile, make_tile, parse_tile, tile_set


@pytest.mark.parametrize(("max_pip", "size"), [(6, 28), (9, 55), (12, 91), (15, 136)])
def test_sets_have_every_pair_once(max_pip: int, size: int) -> None:
    tiles = tile_set(max_pip)
    assert len(tiles) == size == len(set(tiles))
    assert all(0 <= t.low <= t.high <= max_pip for t in tiles)
    assert list(tiles) == sorted(tiles)


def test_tile_value_double_and_text() -> None:
    assert Tile(4, 6).value == 10
    assert Tile(0, 0).value == 0
    assert Tile(6, 6).is_double and not Tile(4, 6).is_double
    assert str(Tile(4, 6)) == "6-4"
    assert make_tile(6, 4) == Tile(4, 6)


@pytest.mark.parametrize("text", ["6-4", "4-6", "6|4", "[6|4]", "64", " 4:6 "])
def test_parse_tile_accepts_common_spellings(text: str) -> None:
    assert parse_tile(text) == Tile(4, 6)


@pytest.mark.parametrize("text", ["7-1", "x", "", "6-4-1", "10-2"])
def test_parse_tile_refuses_what_is_not_a_double_six_tile(text: str) -> None:
    with pytest.raises(UnknownTile):
        parse_tile(text, max_pip=6)


def test_pips() -> None:
    assert pips((Tile(4, 6), Tile(0, 0), Tile(1, 2))) == 13


@pytest.mark.parametrize(
    ("raw", "rounded"),
    [(12, 10), (13, 15), (1, 0), (2, 0), (3, 5), (27, 25), (28, 30), (0, 0), (5, 5), (4, 5)],
)
def test_rounding_to_nearest_five(raw: int, rounded: int) -> None:
    assert round_to_five(raw) == rounded


def test_total_rounding_adds_first_per_opponent_rounds_each() -> None:
    assert rounded_total([6, 6], "total") == 10  # 12 -> 10
    assert rounded_total([6, 6], "per-opponent") == 10  # 5 + 5
    assert rounded_total([7, 6], "total") == 15  # 13 -> 15
    assert rounded_total([7, 6], "per-opponent") == 10  # 5 + 5
    assert rounded_total([8, 8], "per-opponent") == 20  # 10 + 10
    assert rounded_total([7, 6], "none") == 13


@pytest.mark.parametrize(
    ("count", "fives", "threes", "both"),
    [
        (0, 0, 0, 0),
        (5, 5, 0, 1),
        (6, 0, 6, 2),
        (10, 10, 0, 2),
        (15, 15, 15, 8),
        (30, 30, 30, 16),
        (35, 35, 0, 7),
        (7, 0, 0, 0),
    ],
)
def test_points_for_count(count: int, fives: int, threes: int, both: int) -> None:
    assert points_for_count(count, "fives") == fives
    assert points_for_count(count, "threes") == threes
    assert points_for_count(count, "fives-and-threes") == both
    assert points_for_count(count, "none") == 0
