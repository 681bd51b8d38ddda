"""The tuple helpers the state is rebuilt with."""

from __future__ import annotations

import pytest

from muggins.rules.tiles import Tile
from muggins.rules.tuples import with_item, without

HAND = (Tile(0, 1), Tile(2, 2), Tile(3, 5), Tile(4, 6))


def test_without_removes_the_very_object_held() -> None:
    assert without(HAND, HAND[2]) == (Tile(0, 1), Tile(2, 2), Tile(4, 6))


def test_without_removes_an_equal_object() -> None:
    assert without(HAND, Tile(3, 5)) == (Tile(0, 1), Tile(2, 2), Tile(4, 6))
    assert without(HAND, (2, 2)) == (Tile(0, 1), Tile(3, 5), Tile(4, 6))


def test_without_removes_one_of_two_equal_items() -> None:
    assert without((1, 2, 1), 1) == (2, 1)


def test_without_refuses_an_item_not_held() -> None:
    with pytest.raises(ValueError):
        without(HAND, Tile(6, 6))


@pytest.mark.parametrize("size", [1, 2, 3, 4, 6])
def test_with_item_replaces_one_place(size: int) -> None:
    items = tuple(range(size))
    for index in range(size):
        assert with_item(items, index, -1) == tuple(
            -1 if i == index else i for i in range(size)
        )
