"""The layout: the tiles on the table, its arms, their open ends and the count.

Model.  The lead tile starts two arms: arm 0 (left, the lead's high half)
and arm 1 (right, its low half).  A spinner adds two more arms, its short
sides, which stay CLOSED until both of its long sides hold a tile.  Every arm
grows from its root outward and has exactly one open end, so "the end a tile
goes on" is simply an arm number.

Count (RULES.md, "Layout and the count"): the sum of the open ends.
* An arm holding tiles contributes its tip: the tip's outer half, or both
  halves if the tip is a double (crosswise at the end, spinner or not).
* An empty arm of a non-double lead contributes that half of the lead.
* A double lead contributes both halves once while either of its long
  sides (arms 0 and 1) is free; then nothing.
* An empty short arm of a spinner contributes nothing.

The count is kept up to date by ``place`` (it changes only around the arm
played on), so reading it costs nothing.
"""

from __future__ import annotations

import msgspec

from muggins.rules.ruleset import SpinnerMode
from muggins.rules.tiles import Tile

#: ``Layout.ends`` value of an arm that cannot take a tile yet.
CLOSED = -1
#: ``Spinner.arm`` value of a spinner that is the lead tile.
LEAD = -1

_END_NAMES = ("left", "right", "up", "down")

#: ``_BIT[n]`` is the open-numbers bit of an end showing n; ``_BIT[CLOSED]``
#: (the last entry) is 0, so a closed end adds nothing.
_BIT = (*(1 << n for n in range(64)), 0)


def end_name(end: int) -> str:
    """How people call an arm's open end: left, right, up, down, then "arm N"."""
    return _END_NAMES[end] if end < len(_END_NAMES) else f"arm {end}"


class Spinner(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """A double that opens four ways: where it lies and the two arms it starts."""

    tile: Tile
    #: The arm it lies on, or LEAD.
    arm: int
    #: Its index in that arm (0 for the lead).
    position: int
    #: The two arms its short sides start.
    short_arms: tuple[int, int]


class Layout(msgspec.Struct, frozen=True, gc=False):
    """The table's tiles.  Immutable: ``place`` returns a new layout."""

    lead: Tile | None = None
    #: Tiles on each arm, from the root outward.
    arms: tuple[tuple[Tile, ...], ...] = ()
    #: The number showing at each arm's open end, or CLOSED.
    ends: tuple[int, ...] = ()
    spinners: tuple[Spinner, ...] = ()
    #: The open ends added up (see the module docstring).
    count: int = 0
    #: Bit n set when some open end shows n: a quick "does this tile fit anywhere".
    open_numbers: int = 0

    @staticmethod
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

    def fits(self, tile: Tile, end: int) -> bool:
        """Whether ``tile`` may go on arm ``end``'s open end."""
        if not 0 <= end < len(self.ends):
            return False
        number = self.ends[end]
        return number != CLOSED and (tile.low == number or tile.high == number)

    def open_ends(self) -> list[tuple[int, int]]:
        """(arm, number showing) for every end that can take a tile, by arm number."""
        return [(arm, number) for arm, number in enumerate(self.ends) if number != CLOSED]

    def count_after(self, tile: Tile, end: int) -> int:
        """The count if ``tile`` went on arm ``end`` (which it fits)."""
        number = self.ends[end]
        low, high = tile
        after = low * 2 if low == high else (high if low == number else low)
        arm = self.arms[end]
        if arm:  # the usual case: the tile covers the arm's tip
            tip_low, tip_high = arm[-1]
            return self.count + after - (tip_low * 2 if tip_low == tip_high else number)
        lead = self.lead
        assert lead is not None
        if end >= 2 or lead.low == lead.high:
            before = 0  # an empty short side, or a double lead's long side (counted once below)
        else:
            before = number
        total = self.count + after - before
        if end < 2 and lead.low == lead.high and self.arms[1 - end]:
            total -= lead.low * 2  # both long sides of the double lead are now covered
        return total

    def place(
        self, tile: Tile, end: int, spinner_mode: SpinnerMode, count: int | None = None
    ) -> Layout:
        """The layout with ``tile`` on arm ``end``.  The caller checked ``fits``.

        ``count`` is the count after the play when the caller knows it already
        (a TilePlayed event records it), which spares working it out again.
        """
        if count is None:
            count = self.count_after(tile, end)
        low, high = tile
        ends = list(self.ends)
        ends[end] = high if low == ends[end] else low
        arms = list(self.arms)
        arms[end] = arms[end] + (tile,)
        spinners = self.spinners
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
        return Layout(self.lead, tuple(arms), tuple(ends), spinners, count, numbers)

    def tiles(self) -> list[Tile]:
        """Every tile on the table: the lead, then each arm from its root."""
        if self.lead is None:
            return []
        return [self.lead, *(tile for arm in self.arms for tile in arm)]

    def root_number(self, arm: int) -> int:
        """The number an arm's first tile attaches to."""
        assert self.lead is not None
        if arm == 0:
            return self.lead.high
        if arm == 1:
            return self.lead.low
        for spinner in self.spinners:
            if arm in spinner.short_arms:
                return spinner.tile.low
        raise ValueError(f"arm {arm} does not exist")

    def oriented(self, arm: int) -> list[tuple[int, int]]:
        """The tiles of an arm as (inner half, outer half), root outward."""
        number = self.root_number(arm)
        result = []
        for tile in self.arms[arm]:
            outer = tile.other_half(number)
            result.append((number, outer))
            number = outer
        return result
