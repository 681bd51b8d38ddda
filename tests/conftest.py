"""Refuse to test a compiled rules engine older than its sources; mark the
tests that need real servers (the ``servers`` marker: ``deploy/dev.py test
--fast`` runs every other test); start the ``slow`` ones first."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from muggins.infra import compiled

#: Fixtures that start or use real servers (PostgreSQL, NATS, the service, a
#: browser): a test that asks for one of them is in the ``servers`` tier.
SERVER_FIXTURES = frozenset({
    "postgres", "nats_server", "database_url", "blank_database_url", "pool", "store",
    "service", "nats_client", "pages", "browser", "played", "copy", "migration_database_url",
    "service_database_url", "budgeted", "cluster", "servers_dir", "jetstream",
})
#: Folders whose every test drives real servers or processes.
SERVER_FOLDERS = ("faults", "cluster", "browser", "integration", "projections")
TESTS = Path(__file__).parent
#: The real servers' fixtures (postgres, nats_server, database_url, store, ...) and the
#: service's (service).
pytest_plugins = ["tests.support.servers", "tests.support.service"]


def pytest_configure(config: pytest.Config) -> None:
    changed = compiled.stale()
    if changed:
        # Python would import the old extension ahead of the edited source.
        pytest.exit(
            "the compiled rules engine predates its sources ("
            + ", ".join(changed)
            + "): `python3 deploy/dev.py test` rebuilds it",
            returncode=2,
        )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        folder = Path(str(item.path)).relative_to(TESTS).parts[0]
        if (folder in SERVER_FOLDERS or SERVER_FIXTURES & set(getattr(item, "fixturenames", ()))
                or item.get_closest_marker("servers")):
            item.add_marker(pytest.mark.servers)
    items[:] = slow_first(items)


def slow_first(items: list[pytest.Item]) -> list[pytest.Item]:
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
            by_folder.setdefault(Path(str(item.path)).relative_to(TESTS).parts[0], []).append(item)
    slow = [item for turn in itertools.zip_longest(*by_folder.values())
            for item in turn if item is not None]
    rest = [item for item in items if not is_slow(item)]
    between = len(rest) // 2 // max(1, len(slow))
    spread: list[pytest.Item] = []
    for number, item in enumerate(slow):
        spread.append(item)
        spread.extend(rest[number * between:(number + 1) * between])
    return spread + rest[len(slow) * between:]
