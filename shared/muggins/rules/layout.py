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

Spinner and Layout are immutable classes compiled with the engine, as the
state is (``muggins.rules.state`` says why); ``muggins.rules.stored_state``
writes them out.
"""

from __future__ import annotations

from typing import Final

from mypy_extensions import mypyc_attr

from muggins.rules.tiles import Tile

#: ``Layout.ends`` value of an arm that cannot take a tile yet.
CLOSED: Final = -1
#: ``Spinner.arm`` value of a spinner that is the lead tile.
LEAD: Final = -1

_END_NAMES = ("left", "right", "up", "down")


def end_name(end: int) -> str:
    """How people call an arm's open end: left, right, up, down, then "arm N"."""
    return _END_NAMES[end] if end < len(_END_NAMES) else f"arm {end}"


@mypyc_attr(acyclic=True)
class Spinner:
    """A double that opens four ways: where it lies and the two arms it starts.

    Immutable; on the wire (``muggins.rules.stored_state``) the array
    ``[tile, arm, position, short_arms]``."""

    __slots__ = ("arm", "position", "short_arms", "tile")

    def __init__(self, tile: Tile, arm: int, position: int, short_arms: tuple[int, int]) -> None:
        self.tile: Final = tile
        #: The arm it lies on, or LEAD.
        self.arm: Final = arm
        #: Its index in that arm (0 for the lead).
        self.position: Final = position
        #: The two arms its short sides start.
        self.short_arms: Final = short_arms

    def _fields(self) -> tuple[Tile, int, int, tuple[int, int]]:
        return (self.tile, self.arm, self.position, self.short_arms)

    def __reduce__(self) -> tuple[type[Spinner], tuple[Tile, int, int, tuple[int, int]]]:
        """Copied and pickled as made: its fields, given to its constructor again."""
        return (Spinner, self._fields())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Spinner):
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return (f"Spinner(tile={self.tile!r}, arm={self.arm!r}, position={self.position!r}, "
                f"short_arms={self.short_arms!r})")


@mypyc_attr(acyclic=True, free_list_len=1)
class Layout:
    """The table's tiles.  Immutable: ``placing.place`` returns a new layout."""

    __slots__ = ("arms", "count", "ends", "lead", "open_numbers", "spinners")

    def __init__(
        self,
        lead: Tile | None = None,
        arms: tuple[tuple[Tile, ...], ...] = (),
        ends: tuple[int, ...] = (),
        spinners: tuple[Spinner, ...] = (),
        count: int = 0,
        open_numbers: int = 0,
    ) -> None:
        self.lead: Final = lead
        #: Tiles on each arm, from the root outward.
        self.arms: Final = arms
        #: The number showing at each arm's open end, or CLOSED.
        self.ends: Final = ends
        self.spinners: Final = spinners
        #: The open ends added up (see the module docstring).
        self.count: Final = count
        #: Bit n set when some open end shows n: a quick "does this tile fit anywhere".
        self.open_numbers: Final = open_numbers

    def _fields(self) -> tuple[Tile | None, tuple[tuple[Tile, ...], ...], tuple[int, ...],
                               tuple[Spinner, ...], int, int]:
        return (self.lead, self.arms, self.ends, self.spinners, self.count, self.open_numbers)

    def __reduce__(self) -> tuple[type[Layout], tuple[Tile | None, tuple[tuple[Tile, ...], ...],
                                                    tuple[int, ...], tuple[Spinner, ...], int,
                                                    int]]:
        """Copied and pickled as made: its fields, given to its constructor again."""
        return (Layout, self._fields())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Layout):
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return (f"Layout(lead={self.lead!r}, arms={self.arms!r}, ends={self.ends!r}, "
                f"spinners={self.spinners!r}, count={self.count!r}, "
                f"open_numbers={self.open_numbers!r})")

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
