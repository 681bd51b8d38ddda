"""The shared real servers (tests/integration/conftest.py) and, per test, a
launcher of service processes that stops every one of them at the end."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from muggins.eventstore.store import EventStore
from muggins.infra.database_roles import OWNER_ROLE, SERVICE_ROLE
from muggins.infra.embedded import EmbeddedNats
from tests.support.processes import Launcher
from tests.support.servers import role_url
from tests.support.store_watch import store_at


@pytest.fixture
def launcher(
    tmp_path: Path, database_url: str, nats_server: EmbeddedNats
) -> Iterator[Launcher]:
    # The service as deployed: its own role, the migrations as the owner.
    the_launcher = Launcher(tmp_path, role_url(database_url, SERVICE_ROLE), nats_server.url,
                            migration_url=role_url(database_url, OWNER_ROLE))
    try:
        yield the_launcher
    finally:
        the_launcher.stop_all()
        # Shown by pytest when the test failed: where the logs are, how they end.
        print(the_launcher.report())


@pytest.fixture
async def store(database_url: str) -> AsyncIterator[EventStore]:
    async with store_at(database_url) as the_store:
        yield the_store
