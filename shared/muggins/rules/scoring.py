"""Points: what a count scores, and the rounding of end-of-hand awards."""

from __future__ import annotations

from collections.abc import Sequence

from muggins.rules.ruleset import Rounding, Scoring
from muggins.rules.tiles import Tile


def points_for_count(count: int, scoring: Scoring) -> int:
    """What a play scores when the open ends add up to ``count``."""
    if count <= 0:
        return 0
    if scoring == "fives":
        return count if count % 5 == 0 else 0
    if scoring == "threes":
        return count if count % 3 == 0 else 0
    if scoring == "fives-and-threes":
        # Cribbage-style: one point per five and one per three (15 scores 3 + 5).
        return (count // 5 if count % 5 == 0 else 0) + (count // 3 if count % 3 == 0 else 0)
    return 0


def pips(tiles: tuple[Tile, ...]) -> int:
    """The pips in a hand: every tile's value added."""
    total = 0
    for low, high in tiles:
        total += low + high
    return total


def round_to_five(pips: int) -> int:
    """Nearest multiple of 5: remainder 1 or 2 rounds down, 3 or 4 rounds up."""
    return (pips + 2) // 5 * 5


def rounded_total(hands_pips: Sequence[int], rounding: Rounding) -> int:
    """Several hands' pips as one award: rounded once, each, or not at all."""
    if rounding == "total":
        return round_to_five(sum(hands_pips))
    if rounding == "per-opponent":
        return sum(round_to_five(p) for p in hands_pips)
    return sum(hands_pips)
