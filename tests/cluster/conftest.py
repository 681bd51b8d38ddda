"""One local cluster (muggins.cluster.local) for the cluster tests: PostgreSQL,
three NATS servers, two service replicas, a spectators' process, the
projectors and HAProxy, all real processes.  Every test reaches the site
through HAProxy only; each starts by bringing back whatever an earlier
test left stopped."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from muggins.cluster.local import LocalCluster
from muggins.eventstore.store import EventStore
from tests.support.store_watch import store_at

#: Quick bots and deals: a game to 100 takes seconds, not minutes.
TEST_SETTINGS = {
    "MUGGINS_BOT_DELAY": "0.05",
    "MUGGINS_HAND_PAUSE": "0.5",
    "MUGGINS_GRACE_PERIOD": "30",
    "MUGGINS_TABLES_PER_MINUTE": "10000",
    "MUGGINS_SOCKETS_PER_MINUTE": "100000",
    "MUGGINS_PENALTY_SECONDS": "0",
    "MUGGINS_LOG_LEVEL": "info",
}


@pytest.fixture(scope="session")
def local_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    cluster = LocalCluster(tmp_path_factory.mktemp("cluster"))
    try:
        cluster.up(port=0, extra_settings=TEST_SETTINGS, timeout=120)
        yield cluster
    finally:
        cluster.down()
        print(f"cluster logs: {cluster.logs}")


@pytest.fixture
def cluster(local_cluster: LocalCluster) -> LocalCluster:
    """The cluster, every process running and ready."""
    local_cluster.up(timeout=120)
    return local_cluster


@pytest.fixture
async def cluster_store(cluster: LocalCluster) -> AsyncIterator[EventStore]:
    postgres = cluster.postgres
    postgres.port = cluster.postgres.wanted_port
    postgres.passwords = postgres.load_passwords()
    async with store_at(postgres.url) as store:
        yield store


def log_text(cluster: LocalCluster, name: str) -> str:
    path: Path = cluster.logs / f"{name}.log"
    return path.read_text(errors="replace") if path.exists() else ""
