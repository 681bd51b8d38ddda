"""The order xdist hands the tests to the workers in (tests/conftest.py):
every folder's tests spread evenly over the run, and the ``slow`` ones
over its first half."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]


def spread_slow_tests(items: list[pytest.Item]) -> list[pytest.Item]:
    """The ``slow`` tests spread over the first half of the run, the rest
    spread by folder (``spread_by_folder``).  A worker that takes a slow
    test up near the end runs it alone while the others wait (the costly
    floods' smoke run, last by name, once ended a run 20 s after every
    other test).  A module that xdist keeps on one worker (``xdist_group``)
    is never moved as slow (xdist hands out the largest groups first, and
    gathers a group's tests by its name wherever they are in this order).

    Spread, not all first, and taking turns by folder (one of the
    browser's, one of the faults', one of the projections'...): most slow
    tests wait (a fault held for its length, a turn clock running out), and
    side by side they left both cores a third idle for a minute (sampled
    every 5 s: 60-77% busy), while the quick tests behind them keep a core
    busy.

    This order is xdist's to hand out (tests/conftest.py applies it in its
    workers only): in one process, a grouped module's tests could be run
    apart, a slow test between them."""
    items = spread_by_folder(items)

    def is_slow(item: pytest.Item) -> bool:
        return bool(item.get_closest_marker("slow")) and not item.get_closest_marker("xdist_group")

    by_folder: dict[str, list[pytest.Item]] = {}
    for item in items:
        if is_slow(item):
            by_folder.setdefault(folder_of(item), []).append(item)
    slow = [item for turn in itertools.zip_longest(*by_folder.values())
            for item in turn if item is not None]
    rest = [item for item in items if not is_slow(item)]
    between = len(rest) // 2 // max(1, len(slow))
    spread: list[pytest.Item] = []
    for number, item in enumerate(slow):
        spread.append(item)
        spread.extend(rest[number * between:(number + 1) * between])
    return spread + rest[len(slow) * between:]


def spread_by_folder(items: list[pytest.Item]) -> list[pytest.Item]:
    """Each folder's tests spread evenly over the run, in their order
    within it: the tenth of the way through the run holds a tenth of each
    folder's tests (counting a grouped module as one; at a tie, the folder
    collected first goes first).  In the order pytest collects them, a
    folder's tests came one after the other, and the workers all took the
    same kind at once: five fault tests together, each waiting for its
    fault, left both cores two thirds idle for 6 s twice in a run
    (2026-12-05), while the quick tests of rules/ and replays/ that would
    have filled those seconds waited for the run's last minute.  A module
    that xdist keeps on one worker (``xdist_group``) moves as one piece,
    its order kept."""
    by_folder: dict[str, list[list[pytest.Item]]] = {}
    for item in items:
        folder_pieces = by_folder.setdefault(folder_of(item), [])
        if folder_pieces and _one_grouped_module(folder_pieces[-1][-1], item):
            folder_pieces[-1].append(item)
        else:
            folder_pieces.append([item])
    # Sorted by the place alone (sorted() keeps ties in the order given).
    placed = sorted([((number + 0.5) / len(folder_pieces), piece)
                     for folder_pieces in by_folder.values()
                     for number, piece in enumerate(folder_pieces)],
                    key=lambda place: place[0])
    return [item for _, piece in placed for item in piece]


def _one_grouped_module(before: pytest.Item, item: pytest.Item) -> bool:
    """Whether ``item`` and ``before`` are of one module and both in an
    xdist group (a module marks its tests with ``pytestmark``)."""
    return (before.path == item.path and before.get_closest_marker("xdist_group") is not None
            and item.get_closest_marker("xdist_group") is not None)


def folder_of(item: pytest.Item) -> str:
    """The folder under tests/ a test is in (a file at the top: its own
    name; a test from outside tests/: "")."""
    try:
        return Path(str(item.path)).resolve().relative_to(TESTS).parts[0]
    except ValueError:
        return ""
