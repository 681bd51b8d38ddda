"""Placing a tile on the layout: the new layout and the new count.

The model and the counting rules are in ``layout``'s docstring; these are its
moves, as functions: the layout is data the engine carries from state to
state, and every function that makes a new one is here.
"""

from __future__ import annotations

from typing import Final

from muggins.rules.layout import CLOSED, LEAD, Layout, Spinner
from muggins.rules.ruleset import SpinnerMode
from muggins.rules.tiles import Tile
from muggins.rules.tuples import with_item

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
    ends = layout.ends
    arms = layout.arms
    spinners = layout.spinners
    showing = high if low == ends[end] else low
    grown = arms[end] + (tile,)
    opens_short_sides = False
    for spinner in spinners:
        if ends[spinner.short_arms[0]] == CLOSED and _long_sides_covered(spinner, arms, end):
            opens_short_sides = True
    starts_spinner = low == high and (
        spinner_mode == "every-double" or (spinner_mode == "first-double" and not spinners)
    )
    if not opens_short_sides and not starts_spinner:
        # The usual play: one arm grows and its end shows a new number.
        new_ends = with_item(ends, end, showing)
        return Layout(
            layout.lead,
            with_item(arms, end, grown),
            new_ends,
            spinners,
            count,
            _open_numbers(new_ends),
        )
    return _place_around_spinners(layout, tile, end, spinner_mode, count, showing, grown)


def _long_sides_covered(spinner: Spinner, arms: tuple[tuple[Tile, ...], ...], end: int) -> bool:
    """Whether ``spinner``'s long sides both hold a tile once arm ``end`` (of
    ``arms``, the arms before the play) has grown by a tile."""
    if spinner.arm == LEAD:
        return (bool(arms[0]) or end == 0) and (bool(arms[1]) or end == 1)
    return len(arms[spinner.arm]) + (1 if end == spinner.arm else 0) > spinner.position + 1


def _place_around_spinners(
    layout: Layout,
    tile: Tile,
    end: int,
    spinner_mode: SpinnerMode,
    count: int,
    showing: int,
    grown: tuple[Tile, ...],
) -> Layout:
    """``place`` when the play opens a spinner's short sides or starts a spinner."""
    ends = list(layout.ends)
    ends[end] = showing
    arms = list(layout.arms)
    arms[end] = grown
    spinners = layout.spinners
    for spinner in spinners:
        first_short, second_short = spinner.short_arms
        if ends[first_short] == CLOSED and _long_sides_covered(spinner, layout.arms, end):
            ends[first_short] = ends[second_short] = spinner.tile.low
    low, high = tile
    if low == high and (
        spinner_mode == "every-double" or (spinner_mode == "first-double" and not spinners)
    ):
        short_arms = (len(arms), len(arms) + 1)
        arms += [(), ()]
        ends += [CLOSED, CLOSED]
        spinners = (*spinners, Spinner(tile, end, len(arms[end]) - 1, short_arms))
    new_ends = tuple(ends)
    return Layout(layout.lead, tuple(arms), new_ends, spinners, count, _open_numbers(new_ends))


def _open_numbers(ends: tuple[int, ...]) -> int:
    """Bit n set for every open end showing n."""
    numbers = 0
    for showing in ends:
        numbers |= _BIT[showing]
    return numbers
