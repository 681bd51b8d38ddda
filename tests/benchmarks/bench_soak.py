"""A soak of the local cluster: 300 tables played through HAProxy by
WebSocket clients (about one move a second each, a rematch at every game's
end) for 30 minutes, two service replicas.

Every minute it prints the minute's moves per second, p99 command-to-
broadcast latency, errors and stalled tables, and the resident memory of
every process of the cluster.  At the end: for each process, how much its
memory grew in the first and in the second half.  It passes with 0 errors,
0 stalls, 0 version gaps and memory that levels off (over the second half,
a trend under 2 MB or 2% of the process's size per ten minutes).

    python3 deploy/dev.py bench soak
    MUGGINS_BENCH_SECONDS=300 MUGGINS_BENCH_TABLES=100 python3 deploy/dev.py bench soak

``--smoke``: 2 tables for 5 s, memory sampled every second, on a cluster of
its own; no error, gap or stall, every process's memory read, a move made;
whether memory levels off is not judged.  The suite runs ``soak`` at that
size on the cluster tests' own cluster (tests/cluster/test_smoke_benchmarks.py).
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
from tests.benchmarks.cluster_load import Load, create_tables, load_cluster, memory_by_process, play
from tests.benchmarks.common import SMOKE, bench_setting, percentile

SECONDS = float(bench_setting("SECONDS", "1800", "5"))
TABLES = int(bench_setting("TABLES", "300", "2"))
SAMPLE_EVERY = float(bench_setting("SAMPLE_EVERY", "60", "1"))
#: The stream's retention for the soak (setting stream_max_age): short enough
#: that the stream reaches its steady size within the soak.  With the default
#: 7 days, NATS's memory grows with the stream for as long as a soak can run
#: (measured: 97 -> 164 MB per server in the first 7 minutes at 260 moves/s).
STREAM_MAX_AGE = os.environ.get("MUGGINS_BENCH_STREAM_MAX_AGE", "600")


def levels_off(samples: list[float]) -> tuple[bool, float, float]:
    """(levels off, first-half growth in MB, second-half trend in MB per 10
    samples).  The trend is a least-squares slope over the second half (single
    samples of a garbage-collected process are noisy); it levels off when
    that is under 2 MB or 2% of the process's size per ten minutes."""
    middle = len(samples) // 2
    first = samples[middle] - samples[0]
    half = samples[middle:]
    mean_x, mean_y = (len(half) - 1) / 2, sum(half) / len(half)
    spread = sum((x - mean_x) ** 2 for x in range(len(half))) or 1.0
    slope = sum((x - mean_x) * (y - mean_y) for x, y in enumerate(half)) / spread
    trend = slope * 10
    return trend < max(2.0, 0.02 * mean_y), first, trend


async def soak(cluster: LocalCluster, tables: int = TABLES, seconds: float = SECONDS,
               sample_every: float = SAMPLE_EVERY, judged: bool = not SMOKE
               ) -> tuple[bool, list[str]]:
    """Play ``tables`` tables through the cluster for ``seconds``, sampling
    every ``sample_every``; print the samples and the verdict.  Whether it
    passed (with ``judged``: memory that levels off too), and what went
    wrong whatever the sizes: no move, an error, a gap, a stall, a process
    whose memory could not be read."""
    seats = await create_tables(cluster.url, tables)
    print(f"{tables} tables, {len(cluster.instances('service'))} replicas, "
          f"{seconds / 60:.1f} minutes; memory in MB", flush=True)
    load = Load()
    playing = asyncio.create_task(play(cluster.url, seats, seconds, load))
    memory: dict[str, list[float]] = {}
    started = time.monotonic()
    seen_moves = seen_latencies = seen_errors = 0
    worst_stalled = 0
    while not playing.done():
        await asyncio.wait([playing], timeout=sample_every)
        if playing.done():
            break
        sample = dict(memory_by_process(cluster))
        for name, megabytes in sample.items():
            memory.setdefault(name, []).append(megabytes)
        minute = load.latencies[seen_latencies:]
        stalled = len(load.stalled())
        worst_stalled = max(worst_stalled, stalled)
        print(f"{(time.monotonic() - started) / 60:5.1f} min  "
              f"{(load.moves - seen_moves) / sample_every:6.1f} moves/s  "
              f"p99 {percentile(minute, 0.99):6.1f} ms  "
              f"errors {len(load.errors) - seen_errors}  stalled {stalled}  "
              + "  ".join(f"{name} {mb:.0f}" for name, mb in sample.items()),
              flush=True)
        seen_moves, seen_latencies = load.moves, len(load.latencies)
        seen_errors = len(load.errors)
    await playing
    print(f"\nall: {load.summary(seconds)}  worst stalled {worst_stalled}")
    steady = True
    for name, samples in memory.items():
        if len(samples) < 3 or not samples[-1]:
            continue
        ok, first, second = levels_off(samples)
        steady = steady and ok
        verdict = ("levels off" if ok else "GROWS") if judged else "not judged at smoke size"
        print(f"  {name:<26} {samples[0]:7.0f} -> {samples[-1]:7.0f} MB  first half "
              f"{first:+6.1f}  second half trend {second:+5.1f} MB/10 min  {verdict}")
    broken = load.problems()
    if worst_stalled and not load.stalled():
        broken.append(f"{worst_stalled} tables stalled at a sample")
    unread = sorted(name for name, samples in memory.items() if not all(samples))
    if not memory or unread:
        broken.append(f"memory not read: {', '.join(unread) or 'no sample'}")
    passed = not broken and (steady or not judged)
    if judged:
        print("soak passed" if passed else "SOAK FAILED")
    return passed, broken


async def main() -> int:
    gc.disable()  # the load generator's own pauses are not the service's
    with tempfile.TemporaryDirectory(prefix="muggins-bench-soak-") as folder:
        cluster = load_cluster(Path(folder) / "soak", replicas=2,
                               extra={"MUGGINS_STREAM_MAX_AGE": STREAM_MAX_AGE,
                                      "MUGGINS_STREAM_DUPLICATE_WINDOW":
                                          str(min(900, int(STREAM_MAX_AGE) // 2))})
        try:
            print(f"the stream kept {STREAM_MAX_AGE} s", flush=True)
            passed, broken = await soak(cluster)
        finally:
            cluster.down()
    if SMOKE:
        print("smoke run: ok" if not broken else f"SMOKE RUN BROKEN: {', '.join(broken)}")
        return 1 if broken else 0
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
