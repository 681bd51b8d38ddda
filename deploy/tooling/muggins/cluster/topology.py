"""The site beyond one machine, as data: which processes run, with which
command and which settings.

The local cluster (``muggins cluster up``, muggins.cluster.local) starts
exactly these; the deploy files (``deploy/compose.yaml``,
``deploy/kubernetes/``) describe exactly these, and a test compares them
(tests/deploy).  Change the site here first.

Settings are split in two: those that say *where* things are (URLs, ports,
directories) differ between a laptop, compose and Kubernetes; every other
setting must be the same everywhere.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from muggins.projections.read_models import PROJECTIONS

Kind = Literal["service", "spectators", "projector"]

#: Settings that say where things are: they differ from one deployment to another.
ADDRESS_SETTINGS = frozenset({
    "MUGGINS_DATABASE_URL", "MUGGINS_MIGRATION_DATABASE_URL", "MUGGINS_NATS_URL",
    "MUGGINS_DATA_DIR", "MUGGINS_LISTEN_HOST", "MUGGINS_LISTEN_PORT", "MUGGINS_PUBLIC_URL",
    "MUGGINS_TRUSTED_PROXIES", "MUGGINS_CONFIG", "MUGGINS_SIGNING_KEY_FILE",
    "MUGGINS_OPERATOR_TOKEN",
})

#: Every muggins process of the cluster has these.
CLUSTER_SETTINGS: dict[str, str] = {
    # The stream kept on all three NATS servers: one may die without loss.
    "MUGGINS_STREAM_REPLICAS": "3",
    "MUGGINS_LOG_FORMAT": "json",
    "MUGGINS_LOG_LEVEL": "info",
    # The projectors run as their own processes.
    "MUGGINS_PROJECTORS_IN_PROCESS": "false",
    "MUGGINS_DB_POOL_MAX": "10",
}

#: The port every HTTP process listens on inside a container.
CONTAINER_PORT = 8000
#: NATS: servers in the cluster, and its name.
NATS_NODES = 3
NATS_CLUSTER_NAME = "muggins"

#: Paths the load balancer sends to the spectators' processes (docs/service.md):
#: a crowd watching cannot slow the players.  A regular expression on the path.
SPECTATOR_PATHS = r"^/(lobby|leaderboard)$|^/tables/[^/]+/(watch|events|view)$"


class MugginsProcess(msgspec.Struct, frozen=True):
    """One kind of muggins process: its command and settings, and how many run."""

    #: service, spectators or projector-NAME: the local cluster numbers them
    #: (service-1, service-2), compose and Kubernetes name them after it.
    name: str
    kind: Kind
    #: The ``muggins`` command's arguments.
    argv: tuple[str, ...]
    #: MUGGINS_* settings besides the address settings.
    settings: dict[str, str]
    replicas: int = 1

    @property
    def serves_http(self) -> bool:
        return self.kind != "projector"

    def instance_names(self) -> list[str]:
        return [f"{self.name}-{number}" for number in range(1, self.replicas + 1)]


def muggins_processes(service_replicas: int = 2) -> list[MugginsProcess]:
    """The site's muggins processes: players' replicas behind the load
    balancer, a spectators' process, and one process per projector."""
    processes = [
        MugginsProcess("service", "service", ("serve",),
                       {**CLUSTER_SETTINGS, "MUGGINS_ROLE": "all"}, replicas=service_replicas),
        MugginsProcess("spectators", "spectators", ("serve",),
                       {**CLUSTER_SETTINGS, "MUGGINS_ROLE": "spectators"}),
    ]
    processes += [
        MugginsProcess(f"projector-{name}", "projector", ("project", name), dict(CLUSTER_SETTINGS))
        for name in PROJECTIONS
    ]
    return processes

