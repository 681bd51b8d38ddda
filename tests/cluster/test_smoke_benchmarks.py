"""The benchmarks that measure a local cluster (bench_soak, bench_cluster,
bench_cluster_cycles) cannot rot unnoticed either: here they run at their
smoke sizes on this folder's cluster (conftest.py), as starting one of
their own for each would double the suite's heaviest fixture.  The sizes
are those of their ``--smoke`` (which starts a cluster of its own); the
bars are not judged, but nothing may break: a move made, no error, version
gap or stalled table, the processes killed brought back.  Last in this
folder (by name): the cycle takes the whole cluster down and up again."""

from __future__ import annotations

import pytest

from muggins.cluster.local import LocalCluster
from tests.benchmarks import bench_cluster, bench_cluster_cycles, bench_soak

#: One worker starts the local cluster once for all of these (a session fixture).
pytestmark = pytest.mark.xdist_group("cluster")


async def test_bench_soak_at_its_smoke_size(cluster: LocalCluster) -> None:
    _, broken = await bench_soak.soak(cluster, tables=2, seconds=5, sample_every=1,
                                      judged=False)
    assert not broken


async def test_bench_cluster_at_its_smoke_size(cluster: LocalCluster) -> None:
    _, broken = await bench_cluster.capacity(cluster, "2r", steps=[2, 4], seconds=3,
                                             judged=False)
    assert not broken
    load, killed = await bench_cluster.with_faults(cluster, tables=2, seconds=14, every=2)
    assert killed, "nothing was killed"
    assert not load.problems()


def test_bench_cluster_cycles_at_its_smoke_size(cluster: LocalCluster) -> None:
    # Down and up through the command line (deploy/cluster.py), as the
    # benchmark's rounds go, in this cluster's own folder: it comes back
    # with its ports and settings.
    down = bench_cluster_cycles.cluster(cluster.directory, "down", timeout=200)
    assert down.returncode == 0, down.stderr[-2000:]
    try:
        assert bench_cluster_cycles.one_round(cluster.directory, 1)
    finally:
        # The processes the command line started, known to this cluster's
        # object too (it would start them a second time otherwise).
        cluster.state = LocalCluster(cluster.directory).state
