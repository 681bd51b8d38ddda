"""Tiles and sets: the double-N set, a tile's value, and parsing "6-4"."""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

from muggins.rules.errors import UnknownTile


class Tile(NamedTuple):
    """One domino, written with its lower half first: Tile(4, 6) is the 6-4.

    A NamedTuple rather than a Struct: tiles are compared, hashed and sorted
    in the hottest loops, and a tuple does that in C.  On the wire it is the
    two-element array ``[low, high]``.
    """

    low: int
    high: int

    @property
    def value(self) -> int:
        """The tile's pips: both halves added."""
        return self.low + self.high

    @property
    def is_double(self) -> bool:
        return self.low == self.high

    def other_half(self, number: int) -> int:
        """The half that stays open when the half showing ``number`` attaches."""
        return self.high if self.low == number else self.low

    def __str__(self) -> str:
        return f"{self.high}-{self.low}"


def make_tile(a: int, b: int) -> Tile:
    """The tile with halves ``a`` and ``b`` in either order."""
    return Tile(a, b) if a <= b else Tile(b, a)


@cache
def tile_set(max_pip: int) -> tuple[Tile, ...]:
    """Every tile of the double-``max_pip`` set in canonical order.

    Canonical order: (0,0), (0,1) ... (0,N), (1,1), (1,2) ... (N,N).  The
    shuffle starts from this order, so it is part of the fairness algorithm.
    """
    return tuple(Tile(a, b) for a in range(max_pip + 1) for b in range(a, max_pip + 1))


def parse_tile(text: str, max_pip: int = 12) -> Tile:
    """Read a tile written "6-4", "4-6", "6|4", "[6|4]" or "64" (single digits).

    Raises UnknownTile when the text is not a tile of the double-``max_pip`` set.
    """
    cleaned = text.strip().strip("[]()")
    for separator in ("-", "|", ":", ","):
        if separator in cleaned:
            parts = cleaned.split(separator)
            break
    else:
        parts = list(cleaned) if len(cleaned) == 2 else [cleaned]
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise UnknownTile(f"{text!r} is not a tile: write it like 6-4")
    a, b = int(parts[0]), int(parts[1])
    if a > max_pip or b > max_pip:
        raise UnknownTile(f"{text!r} is not in the double-{max_pip} set")
    return make_tile(a, b)
