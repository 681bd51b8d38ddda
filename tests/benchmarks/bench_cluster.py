"""Capacity of the local cluster (muggins.cluster.local), through HAProxy.

Tables whose two seats are WebSocket clients playing about once a second
(tests/benchmarks/cluster_load.py) are added step by step; each step plays
for MUGGINS_BENCH_SECONDS.  Reported per step: moves per second, the
command-to-broadcast latency the clients saw (sending a play to receiving
its event; p50, p99), errors, version gaps, reconnects and stalls.

* with one service replica, then with two: the largest step held with p99
  under 100 ms and no error, gap or stall;
* with two replicas at a fixed load, while a service replica and a NATS
  node are SIGKILLed and restarted in turn every 30 s.

    python3 deploy/dev.py bench cluster
    MUGGINS_BENCH_STEPS=100,200 MUGGINS_BENCH_SECONDS=20 python3 deploy/dev.py bench cluster
    MUGGINS_BENCH_PHASES=faults MUGGINS_BENCH_FAULT_TABLES=300 python3 deploy/dev.py bench cluster
"""

from __future__ import annotations

import asyncio
import gc
import os
import sys
import tempfile
import time
from pathlib import Path

from muggins.cluster.local import LocalCluster
from tests.benchmarks.cluster_load import Load, create_tables, load_cluster, play

SECONDS = float(os.environ.get("MUGGINS_BENCH_SECONDS", "30"))
STEPS = [int(n) for n in os.environ.get("MUGGINS_BENCH_STEPS",
                                        "100,200,300,400,500,600,800").split(",")]
PHASES = os.environ.get("MUGGINS_BENCH_PHASES", "1,2,faults").split(",")
FAULT_TABLES = int(os.environ.get("MUGGINS_BENCH_FAULT_TABLES", "200"))
FAULT_SECONDS = float(os.environ.get("MUGGINS_BENCH_FAULT_SECONDS", "150"))
FAULT_EVERY = 30.0
BAR_MS = 100.0


async def capacity(cluster: LocalCluster, label: str) -> int:
    """Steps up the tables; the largest count held under the bar."""
    held = 0
    # A step plays every table created so far, the earlier ones again.
    seats: list[tuple[str, str, int]] = []
    for step in STEPS:
        seats += await create_tables(cluster.url, step - len(seats) // 2)
        load = await play(cluster.url, seats, SECONDS)
        stalled = load.stalled()
        ok = load.p99 < BAR_MS and not load.errors and not load.gaps and not stalled
        print(f"  {label}  {step:4d} tables  {load.summary(SECONDS)}  stalled {len(stalled)}"
              f"  {'held' if ok else 'NOT held'}", flush=True)
        if not ok:
            break
        held = step
    return held


async def with_faults(cluster: LocalCluster) -> Load:
    """FAULT_TABLES tables for FAULT_SECONDS; every FAULT_EVERY s a service
    replica, then a NATS node, is SIGKILLed and restarted."""
    seats = await create_tables(cluster.url, FAULT_TABLES)
    victims = [i.name for i in cluster.instances("service")] + [
        i.name for i in cluster.instances("nats")]
    load = Load()
    playing = asyncio.create_task(play(cluster.url, seats, FAULT_SECONDS, load))
    started = time.monotonic()
    kills = 0
    while not playing.done():
        await asyncio.sleep(FAULT_EVERY)
        if playing.done() or time.monotonic() - started > FAULT_SECONDS - 10:
            break
        victim = victims[kills % len(victims)]
        kills += 1
        await asyncio.to_thread(cluster.kill, victim)
        await asyncio.sleep(2)
        await asyncio.to_thread(cluster.start, victim)
        print(f"    {time.monotonic() - started:5.0f} s  {victim} killed and restarted;"
              f"  moves so far {load.moves}, stalled now {len(load.stalled())}", flush=True)
    await playing
    return load


async def main() -> int:
    gc.disable()  # the load generator's collector pauses are not the service's latency
    results: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="muggins-bench-cluster-") as folder:
        for phase in PHASES:
            replicas = 2 if phase == "faults" else int(phase)
            cluster = load_cluster(Path(folder) / f"phase-{phase}", replicas)
            try:
                if phase == "faults":
                    print(f"two replicas, {FAULT_TABLES} tables, a replica or NATS node killed "
                          f"every {FAULT_EVERY:.0f} s for {FAULT_SECONDS:.0f} s:", flush=True)
                    load = await with_faults(cluster)
                    print(f"  {load.summary(FAULT_SECONDS)}  stalled {len(load.stalled())}",
                          flush=True)
                else:
                    print(f"{replicas} service replica(s) behind HAProxy, {SECONDS:.0f} s "
                          "a step:", flush=True)
                    results[phase] = await capacity(cluster, f"{replicas}r")
            finally:
                cluster.down()
    for phase, held in results.items():
        print(f"largest step held at p99 < {BAR_MS:.0f} ms with {phase} replica(s): {held} tables")
    if "1" in results and "2" in results:
        print(f"two replicas against one: {results['2'] / max(results['1'], 1):.2f}x the tables")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
