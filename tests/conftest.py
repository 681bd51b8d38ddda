"""Refuse to test a compiled rules engine older than its sources; mark the
tests that need real servers (the ``servers`` marker: ``deploy/dev.py test
--fast`` runs every other test); spread the ``slow`` ones over the first half."""

from __future__ import annotations

from pathlib import Path

import pytest

from muggins.infra import compiled
from tests.support.ordering import spread_slow_tests

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
    # Only in xdist's workers, whose order is the one tests are handed out
    # in: in one process, spreading gains nothing, and it would run a
    # module's tests apart, building its module fixtures again each time.
    # (Before ``-m``/``-k`` deselect: the half is of the tests collected.)
    if hasattr(config, "workerinput"):
        items[:] = spread_slow_tests(items)
