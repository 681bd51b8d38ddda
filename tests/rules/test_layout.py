"""The layout and its count: every worked example of RULES.md."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from muggins.rules import placing
from muggins.rules.layout import CLOSED, Layout
from muggins.rules.ruleset import SpinnerMode
from muggins.rules.tiles import Tile, tile_set
from tests.rules.scenario import t


def count_from_scratch(layout: Layout) -> int:
    """RULES.md's count, computed from the whole layout (the oracle for place())."""
    lead = layout.lead
    if lead is None:
        return 0
    total = 0
    for index, arm in enumerate(layout.arms):
        if arm:
            tip = arm[-1]
            total += tip.value if tip.is_double else layout.ends[index]
        elif index < 2 and not lead.is_double:
            total += layout.ends[index]
    if lead.is_double and not (layout.arms[0] and layout.arms[1]):
        total += lead.value
    return total


def lay(lead: str, *plays: tuple[str, int], spinner: SpinnerMode = "first-double") -> Layout:
    layout = placing.with_lead(t(lead), spinner)
    for tile, end in plays:
        assert layout.fits(t(tile), end), (tile, end, layout.ends)
        layout = placing.place(layout, t(tile), end, spinner)
        assert layout.count == count_from_scratch(layout)
    return layout


def test_lead_double_five_alone_counts_ten() -> None:
    assert lay("5-5").count == 10


def test_five_blank_on_the_lead_spinner_counts_ten() -> None:
    # 10 (the spinner, one long side still free) + 0.
    assert lay("5-5", ("5-0", 0)).count == 10


def test_lead_that_is_not_a_double_counts_both_halves() -> None:
    assert lay("6-4").count == 10
    assert lay("3-2").count == 5


def test_spinner_short_sides_open_only_after_both_long_sides() -> None:
    layout = lay("6-6")
    assert layout.ends == (6, 6, CLOSED, CLOSED)
    layout = lay("6-6", ("6-1", 0))
    assert layout.ends == (1, 6, CLOSED, CLOSED)
    assert not layout.fits(t("6-3"), 2)
    layout = lay("6-6", ("6-1", 0), ("6-2", 1))
    assert layout.ends == (1, 2, 6, 6)
    # Both long sides covered: the spinner counts nothing; open short sides count nothing.
    assert layout.count == 3
    layout = lay("6-6", ("6-1", 0), ("6-2", 1), ("6-4", 2))
    assert layout.count == 1 + 2 + 4
    layout = lay("6-6", ("6-1", 0), ("6-2", 1), ("6-4", 2), ("6-3", 3))
    assert layout.count == 1 + 2 + 4 + 3


def test_double_at_an_end_counts_both_halves() -> None:
    # Muggins (no spinner): 6-6 at one end and a 3 at the other make 15.
    layout = lay("6-3", ("6-6", 0), spinner="none")
    assert layout.count == 15
    # Once something is played against it, only the new end counts.
    assert lay("6-3", ("6-6", 0), ("6-2", 0), spinner="none").count == 5


def test_no_spinner_keeps_two_ends_even_for_a_double_lead() -> None:
    layout = lay("5-5", ("5-0", 0), ("5-1", 1), spinner="none")
    assert len(layout.ends) == 2
    assert layout.count == 1


def test_later_double_becomes_the_spinner_attached_by_one_long_side() -> None:
    layout = lay("6-4", ("4-4", 1))
    assert len(layout.spinners) == 1 and layout.spinners[0].tile == t("4-4")
    # The far long side is free: the spinner counts 8 with the 6 on the left.
    assert layout.count == 6 + 8
    assert layout.ends[2:] == (CLOSED, CLOSED)
    layout = lay("6-4", ("4-4", 1), ("4-1", 1))
    assert layout.ends == (6, 1, 4, 4)
    assert layout.count == 7


def test_only_the_first_double_spins() -> None:
    layout = lay("6-4", ("4-4", 1), ("4-1", 1), ("6-6", 0))
    assert len(layout.spinners) == 1
    assert len(layout.arms) == 4
    assert layout.count == 12 + 1  # 6-6 crosswise at the left end, the 1 on the right


def test_five_up_every_double_spins() -> None:
    layout = lay("6-4", ("4-4", 1), ("4-1", 1), ("6-6", 0), ("6-0", 0), spinner="every-double")
    assert len(layout.spinners) == 2
    assert layout.ends[4:] == (6, 6)
    layout = placing.place(layout, t("6-5"), 4, "every-double")
    assert layout.count == count_from_scratch(layout) == 0 + 1 + 5


def test_four_arms_count_four_ends() -> None:
    layout = lay("5-5", ("5-0", 0), ("5-3", 1), ("5-2", 2), ("5-1", 3))
    assert layout.count == 0 + 3 + 2 + 1


def test_blank_double_on_open_blank_keeps_the_count() -> None:
    assert lay("6-0", ("0-0", 1), spinner="none").count == 6


def test_oriented_tiles_and_root_numbers() -> None:
    layout = lay("6-4", ("4-2", 1), ("2-5", 1))
    assert layout.oriented(1) == [(4, 2), (2, 5)]
    assert layout.tiles() == [t("6-4"), t("4-2"), t("5-2")]


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["none", "first-double", "every-double"]),
    st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=40),
)
def test_incremental_count_equals_the_count_from_scratch(
    mode: SpinnerMode, choices: list[int]
) -> None:
    tiles = list(tile_set(6))
    lead = tiles.pop(choices[0] % len(tiles))
    layout = placing.with_lead(lead, mode)
    for choice in choices[1:]:
        options = [(tile, end) for tile in tiles for end, _ in enumerate(layout.ends)
                   if layout.fits(tile, end)]
        if not options:
            break
        tile, end = options[choice % len(options)]
        tiles.remove(tile)
        layout = placing.place(layout, tile, end, mode)
        assert layout.count == count_from_scratch(layout)
        numbers = {n for n in layout.ends if n != CLOSED}
        assert layout.open_numbers == sum(1 << n for n in numbers)
    assert isinstance(layout.lead, Tile)
