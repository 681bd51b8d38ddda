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

The count is kept up to date by ``placing.place`` (it changes only around
the arm played on), so reading it costs nothing.  ``placing`` holds the moves.
"""

from __future__ import annotations

from typing import Final

import msgspec

from muggins.rules.tiles import Tile

#: ``Layout.ends`` value of an arm that cannot take a tile yet.
CLOSED: Final = -1
#: ``Spinner.arm`` value of a spinner that is the lead tile.
LEAD: Final = -1

_END_NAMES = ("left", "right", "up", "down")


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
    """The table's tiles.  Immutable: ``placing.place`` returns a new layout."""

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

    def fits(self, tile: Tile, end: int) -> bool:
        """Whether ``tile`` may go on arm ``end``'s open end."""
        if not 0 <= end < len(self.ends):
            return False
        number = self.ends[end]
        return number != CLOSED and (tile.low == number or tile.high == number)

    def open_ends(self) -> list[tuple[int, int]]:
        """(arm, number showing) for every end that can take a tile, by arm number."""
        return [(arm, number) for arm, number in enumerate(self.ends) if number != CLOSED]

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
