"""Placing a tile on the layout: the new layout and the new count.

The model and the counting rules are in ``layout``'s docstring; these are its
moves, kept apart as functions because the rules functions are compiled with
mypyc while the Layout Struct itself stays an ordinary (frozen) msgspec class.
"""

from __future__ import annotations

from typing import Final

from muggins.rules.layout import CLOSED, LEAD, Layout, Spinner
from muggins.rules.ruleset import SpinnerMode
from muggins.rules.tiles import Tile

#: ``_BIT[n]`` is the open-numbers bit of an end showing n; ``_BIT[CLOSED]``
#: (the last entry) is 0, so a closed end adds nothing.
_BIT: Final = (*(1 << n for n in range(64)), 0)


def with_lead(tile: Tile, spinner_mode: SpinnerMode) -> Layout:
    """The layout after ``tile`` is led."""
    low, high = tile
    numbers = (1 << low) | (1 << high)
    if low == high and spinner_mode != "none":
        return Layout(
            tile,
            ((), (), (), ()),
            (high, low, CLOSED, CLOSED),
            (Spinner(tile, LEAD, 0, (2, 3)),),
            low + high,
            numbers,
        )
    return Layout(tile, ((), ()), (high, low), (), low + high, numbers)


def count_after(layout: Layout, tile: Tile, end: int) -> int:
    """The count if ``tile`` went on arm ``end`` (which it fits)."""
    number = layout.ends[end]
    low, high = tile
    after = low * 2 if low == high else (high if low == number else low)
    arm = layout.arms[end]
    if arm:  # the usual case: the tile covers the arm's tip
        tip_low, tip_high = arm[-1]
        return layout.count + after - (tip_low * 2 if tip_low == tip_high else number)
    lead = layout.lead
    assert lead is not None
    if end >= 2 or lead.low == lead.high:
        before = 0  # an empty short side, or a double lead's long side (counted once below)
    else:
        before = number
    total = layout.count + after - before
    if end < 2 and lead.low == lead.high and layout.arms[1 - end]:
        total -= lead.low * 2  # both long sides of the double lead are now covered
    return total


def place(
    layout: Layout, tile: Tile, end: int, spinner_mode: SpinnerMode, count: int | None = None
) -> Layout:
    """The layout with ``tile`` on arm ``end``.  The caller checked ``fits``.

    ``count`` is the count after the play when the caller knows it already
    (a TilePlayed event records it), which spares working it out again.
    """
    if count is None:
        count = count_after(layout, tile, end)
    low, high = tile
    ends = list(layout.ends)
    ends[end] = high if low == ends[end] else low
    arms = list(layout.arms)
    arms[end] = arms[end] + (tile,)
    spinners = layout.spinners
    for spinner in spinners:
        first_short, second_short = spinner.short_arms
        if ends[first_short] != CLOSED:
            continue
        if spinner.arm == LEAD:
            both_long_sides_covered = bool(arms[0]) and bool(arms[1])
        else:
            both_long_sides_covered = len(arms[spinner.arm]) > spinner.position + 1
        if both_long_sides_covered:
            ends[first_short] = ends[second_short] = spinner.tile.low
    if low == high and (
        spinner_mode == "every-double" or (spinner_mode == "first-double" and not spinners)
    ):
        short_arms = (len(arms), len(arms) + 1)
        arms += [(), ()]
        ends += [CLOSED, CLOSED]
        spinners = (*spinners, Spinner(tile, end, len(arms[end]) - 1, short_arms))
    numbers = 0
    for showing in ends:
        numbers |= _BIT[showing]
    return Layout(layout.lead, tuple(arms), tuple(ends), spinners, count, numbers)
