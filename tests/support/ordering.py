"""The order the tests are handed to the workers in (tests/conftest.py):
the ``slow`` ones spread over the first half of the run."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]


def spread_slow_tests(items: list[pytest.Item]) -> list[pytest.Item]:
    """The ``slow`` tests spread over the first half of the run, the rest in
    their order: a worker that takes one of them up near the end runs it
    alone while the others wait (the costly floods' smoke run, last by
    name, once ended a run 20 s after every other test).  A module that
    xdist keeps on one worker (``xdist_group``) keeps its order: its tests
    are never moved (and xdist hands out the largest groups first).

    Spread, not all first, and taking turns by folder (one of the
    browser's, one of the faults', one of the projections'...): most slow
    tests wait (a fault held for its length, a turn clock running out), and
    side by side they left both cores a third idle for a minute (sampled
    every 5 s: 60-77% busy), while the quick tests behind them keep a core
    busy."""
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


def folder_of(item: pytest.Item) -> str:
    """The folder under tests/ a test is in (a file at the top: its own
    name; a test from outside tests/: "")."""
    try:
        return Path(str(item.path)).resolve().relative_to(TESTS).parts[0]
    except ValueError:
        return ""
