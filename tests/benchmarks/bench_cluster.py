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

``--smoke``: every phase, each on a cluster of its own: steps of 2 and 4
tables for 3 s, then 2 tables for 14 s with a service replica killed and
restarted once; no error, gap or stall and a move made at every step, the
bar not judged (every step is played).  The suite runs ``capacity`` and
``with_faults`` at that size on the cluster tests' own cluster
(tests/cluster/test_smoke_benchmarks.py).
"""

from __future__ import annotations

import asyncio
import gc
import sys
import tempfile
import time
from pathlib import Path

from muggins.cluster.local import LocalCluster
from tests.benchmarks.cluster_load import Load, create_tables, load_cluster, play
from tests.benchmarks.common import SMOKE, bench_setting

SECONDS = float(bench_setting("SECONDS", "30", "3"))
STEPS = [int(n) for n in bench_setting("STEPS", "100,200,300,400,500,600,800",
                                       "2,4").split(",")]
PHASES = bench_setting("PHASES", "1,2,faults", "1,2,faults").split(",")
FAULT_TABLES = int(bench_setting("FAULT_TABLES", "200", "2"))
FAULT_SECONDS = float(bench_setting("FAULT_SECONDS", "150", "14"))
#: Seconds between kills; no kill in a run's last 10 s (its tables settle).
FAULT_EVERY = 2.0 if SMOKE else 30.0
BAR_MS = 100.0


async def capacity(cluster: LocalCluster, label: str, steps: list[int] = STEPS,
                   seconds: float = SECONDS, judged: bool = not SMOKE
                   ) -> tuple[int, list[str]]:
    """Steps up the tables; the largest count held under the bar, and what
    went wrong whatever the speed (``Load.problems``).  Not ``judged``,
    every step is played whatever its p99."""
    held = 0
    broken: list[str] = []
    # A step plays every table created so far, the earlier ones again.
    seats: list[tuple[str, str, int]] = []
    for step in steps:
        seats += await create_tables(cluster.url, step - len(seats) // 2)
        load = await play(cluster.url, seats, seconds)
        stalled = load.stalled()
        ok = load.p99 < BAR_MS and not load.errors and not load.gaps and not stalled
        print(f"  {label}  {step:4d} tables  {load.summary(seconds)}  stalled {len(stalled)}"
              f"  {('held' if ok else 'NOT held') if judged else 'not judged at smoke size'}",
              flush=True)
        broken += [f"{label} {step} tables: {what}" for what in load.problems()]
        if not ok and (judged or broken):
            break
        held = step if ok else held
    return held, broken


async def with_faults(cluster: LocalCluster, tables: int = FAULT_TABLES,
                      seconds: float = FAULT_SECONDS, every: float = FAULT_EVERY
                      ) -> tuple[Load, list[str]]:
    """``tables`` tables for ``seconds``; every ``every`` s a service
    replica, then a NATS node, is SIGKILLed and restarted.  What the
    clients measured, and the processes killed."""
    seats = await create_tables(cluster.url, tables)
    victims = [i.name for i in cluster.instances("service")] + [
        i.name for i in cluster.instances("nats")]
    load = Load()
    playing = asyncio.create_task(play(cluster.url, seats, seconds, load))
    started = time.monotonic()
    killed: list[str] = []
    while not playing.done():
        await asyncio.sleep(every)
        if playing.done() or time.monotonic() - started > seconds - 10:
            break
        victim = victims[len(killed) % len(victims)]
        killed.append(victim)
        await asyncio.to_thread(cluster.kill, victim)
        await asyncio.sleep(2)
        await asyncio.to_thread(cluster.start, victim)
        print(f"    {time.monotonic() - started:5.0f} s  {victim} killed and restarted;"
              f"  moves so far {load.moves}, stalled now {len(load.stalled())}", flush=True)
    await playing
    return load, killed


async def main() -> int:
    gc.disable()  # the load generator's collector pauses are not the service's latency
    results: dict[str, int] = {}
    broken: list[str] = []
    with tempfile.TemporaryDirectory(prefix="muggins-bench-cluster-") as folder:
        for phase in PHASES:
            replicas = 2 if phase == "faults" else int(phase)
            cluster = load_cluster(Path(folder) / f"phase-{phase}", replicas)
            try:
                if phase == "faults":
                    print(f"two replicas, {FAULT_TABLES} tables, a replica or NATS node killed "
                          f"every {FAULT_EVERY:.0f} s for {FAULT_SECONDS:.0f} s:", flush=True)
                    load, killed = await with_faults(cluster)
                    print(f"  {load.summary(FAULT_SECONDS)}  stalled {len(load.stalled())}",
                          flush=True)
                    broken += [f"under faults: {what}" for what in load.problems()
                               + ([] if killed else ["nothing killed"])]
                else:
                    print(f"{replicas} service replica(s) behind HAProxy, {SECONDS:.0f} s "
                          "a step:", flush=True)
                    results[phase], wrong = await capacity(cluster, f"{replicas}r")
                    broken += wrong
            finally:
                cluster.down()
    for phase, held in results.items():
        print(f"largest step held at p99 < {BAR_MS:.0f} ms with {phase} replica(s): {held} tables")
    if "1" in results and "2" in results:
        print(f"two replicas against one: {results['2'] / max(results['1'], 1):.2f}x the tables")
    if SMOKE:
        print("smoke run: ok" if not broken else f"SMOKE RUN BROKEN: {'; '.join(broken)}")
        return 1 if broken else 0
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
