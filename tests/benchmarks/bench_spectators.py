"""Spectators must not slow the players: 200 spectators on one table while
N tables are played, against the same load with nobody watching.

Players are clients that think about a second per move (as in
``bench service``); the watched table is one of theirs.  Three runs, each on
fresh service processes and fresh tables:

* nobody watches;
* 200 spectators watch through a ``muggins serve --role spectators`` process
  beside the players' one (how it is deployed: docs/service.md);
* 200 spectators watch through the players' own process, for comparison.

Printed per run: the players' command-to-broadcast p50 and p99, messages the
spectators received and any gap in their versions.  The bar: the players' p99
with 200 spectators (spectator process) within 20% of the run without.

    python3 deploy/dev.py bench spectators
    MUGGINS_BENCH_TABLES=200 MUGGINS_BENCH_SECONDS=30 python3 deploy/dev.py bench spectators
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import websockets

from muggins.embedded import EmbeddedNats, EmbeddedPostgres
from tests.benchmarks.bench_service import (
    SECONDS,
    Stats,
    create_tables,
    play_tables,
    service_process,
)
from tests.benchmarks.common import messages_until, percentile

TABLES = int(os.environ.get("MUGGINS_BENCH_TABLES", "100"))
SPECTATORS = int(os.environ.get("MUGGINS_BENCH_SPECTATORS", "200"))


@dataclass
class Watched:
    messages: int = 0
    gaps: int = 0
    connected: int = 0


async def spectator(ws_url: str, table_id: str, watched: Watched, until: float) -> None:
    async with websockets.connect(f"{ws_url}/tables/{table_id}/watch", max_size=2**20,
                                  ping_interval=None) as ws:
        watched.connected += 1
        version = 0
        async for message in messages_until(ws, until):
            watched.messages += 1
            kind = message["type"]
            if kind == "event":
                watched.gaps += message["version"] != version + 1
                version = message["version"]
            elif kind in ("welcome", "view"):
                version = message["version"]
            elif kind == "game":
                version = 0


async def one_run(folder: Path, env: dict[str, str], name: str,
                  watch_from: str | None) -> tuple[Stats, Watched]:
    """Play TABLES tables; if ``watch_from`` ("own" or "spectators"), with
    SPECTATORS spectators on the first of them."""
    watched = Watched()
    async with service_process(folder, env, f"{name}-players") as players_url:
        ids, seats = await create_tables(players_url, TABLES)
        if watch_from is None:
            stats, _ = await play_tables(players_url, seats)
            return stats, watched
        # Where spectators connect: a process of their own, or the players' one.
        place = (
            service_process(folder, env, f"{name}-spectators", "--role", "spectators")
            if watch_from == "spectators"
            else contextlib.nullcontext(players_url)
        )
        async with place as watch_url:
            # The crowd runs in a process of its own: its bursts (every event
            # reaches all of it at once) must not delay the measuring clients.
            crowd = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "tests.benchmarks.bench_spectators", "--crowd",
                watch_url.replace("http", "ws", 1), ids[0], str(SECONDS + 5),
                stdout=asyncio.subprocess.PIPE,
            )
            assert crowd.stdout is not None
            ready = await asyncio.wait_for(crowd.stdout.readline(), 60)
            assert ready.strip() == b"connected", ready
            stats, _ = await play_tables(players_url, seats)
            crowd.send_signal(signal.SIGINT)
            counts = (await crowd.stdout.read()).split()
            await crowd.wait()
            watched = Watched(int(counts[0]), int(counts[1]), int(counts[2]))
    return stats, watched


async def crowd(ws_url: str, table_id: str, seconds: float) -> None:
    """The spectators, in this process: say when all are in, at the end print counts."""
    watched = Watched()
    until = time.monotonic() + seconds
    tasks = [asyncio.create_task(spectator(ws_url, table_id, watched, until))
             for _ in range(SPECTATORS)]
    while watched.connected < SPECTATORS:
        await asyncio.sleep(0.05)
    print("connected", flush=True)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGINT, stop.set)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    print(watched.messages, watched.gaps, watched.connected, flush=True)


async def main() -> int:
    print(f"{TABLES} tables played for {SECONDS:.0f} s per run; {SPECTATORS} spectators "
          f"on one of them", flush=True)
    rows: list[tuple[str, float]] = []
    with tempfile.TemporaryDirectory(prefix="muggins-bench-") as scratch:
        folder = Path(scratch)
        postgres = EmbeddedPostgres(folder)
        nats = EmbeddedNats(folder)
        database_url, nats_url = postgres.start(), nats.start()
        env = {**os.environ, "MUGGINS_DATABASE_URL": database_url, "MUGGINS_NATS_URL": nats_url,
               "MUGGINS_LOG_LEVEL": "warning", "MUGGINS_LOG_FORMAT": "json"}
        try:
            for label, watch_from in (
                ("nobody watching", None),
                (f"{SPECTATORS} spectators, own process", "spectators"),
                (f"{SPECTATORS} spectators, players' process", "own"),
            ):
                stats, watched = await one_run(folder, env, f"run{len(rows)}", watch_from)
                p50 = percentile(stats.latencies, 0.5)
                p99 = percentile(stats.latencies, 0.99)
                rows.append((label, p99))
                print(f"{label:<34} players: {len(stats.latencies):5} moves, p50 {p50:5.1f} ms, "
                      f"p99 {p99:6.1f} ms, errors {len(stats.errors)}, gaps {stats.gaps}; "
                      f"spectators: {watched.messages} messages, gaps {watched.gaps}",
                      flush=True)
        finally:
            nats.stop()
            postgres.stop()
    baseline = rows[0][1]
    for label, p99 in rows[1:]:
        print(f"p99 with {label}: {p99 / baseline:.2f}x the run nobody watched")
    met = rows[1][1] <= 1.2 * baseline
    print("bar met (within 20%)" if met else "BAR MISSED (more than 20% slower)")
    return 0 if met else 1


if __name__ == "__main__":
    if sys.argv[1:2] == ["--crowd"]:
        asyncio.run(crowd(sys.argv[2], sys.argv[3], float(sys.argv[4])))
    else:
        sys.exit(asyncio.run(main()))
