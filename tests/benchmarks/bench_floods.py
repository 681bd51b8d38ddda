"""A hostile spectator must not slow the players: N tables played while a
client loops {"type": "since", "version": 0} on one of them (what once turned
193,280 messages into 323,878 replies and took the players' p99 from 18 to
390 ms), against the same load with nobody flooding.

The flooder runs in a process of its own and comes back a second after each
time it is cut off, for the whole run, as a stubborn attacker would.
Printed: the players' command-to-broadcast p50 and p99 in both runs, what the
flooder sent and got, and how often it was cut off.  The bar: the players'
p99 under the flood within 20% of the run without.

    python3 deploy/dev.py bench floods
    MUGGINS_BENCH_TABLES=200 MUGGINS_BENCH_SECONDS=30 python3 deploy/dev.py bench floods

``--smoke``: 3 tables for 4 s a run; the bar not judged.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sys
import time
from pathlib import Path

import websockets

from tests.benchmarks.bench_service import (
    SECONDS,
    Stats,
    create_tables,
    play_tables,
    service_process,
)
from tests.benchmarks.common import SMOKE, bench_servers, bench_setting, percentile

TABLES = int(bench_setting("TABLES", "100", "3"))
FLOODER_ADDRESS = "127.0.0.2"


async def one_run(folder: Path, env: dict[str, str], name: str,
                  flood: bool) -> tuple[Stats, list[int]]:
    """Play TABLES tables; with ``flood``, a flooder loops "since" on the first."""
    async with service_process(folder, env, f"{name}-players") as players_url:
        ids, seats = await create_tables(players_url, TABLES)
        if not flood:
            stats, _ = await play_tables(players_url, seats)
            return stats, []
        flooder = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tests.benchmarks.bench_floods", "--flood",
            players_url.replace("http", "ws", 1), ids[0], str(SECONDS + 5),
            stdout=asyncio.subprocess.PIPE,
        )
        assert flooder.stdout is not None
        ready = await asyncio.wait_for(flooder.stdout.readline(), 60)
        assert ready.strip() == b"flooding", ready
        stats, _ = await play_tables(players_url, seats)
        flooder.send_signal(signal.SIGINT)
        counts = [int(word) for word in (await flooder.stdout.read()).split()]
        await flooder.wait()
    return stats, counts


async def flood(ws_url: str, table_id: str, seconds: float) -> None:
    """Loop "since 0" as fast as the socket takes it, reconnecting a second
    after each cut; at the end print sent, received and cut-offs."""
    sent = received = cut = 0
    until = time.monotonic() + seconds
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGINT, stop.set)
    message = json.dumps({"type": "since", "version": 0})
    announced = False
    while not stop.is_set() and time.monotonic() < until:
        try:
            # From an address of its own on loopback: a flooder is not the
            # players' neighbour, and what is done to its address is its own.
            async with websockets.connect(f"{ws_url}/tables/{table_id}/watch",
                                          max_size=2**24, ping_interval=None,
                                          local_addr=(FLOODER_ADDRESS, 0)) as ws:
                if not announced:
                    print("flooding", flush=True)
                    announced = True

                async def drain() -> None:
                    nonlocal received
                    async for _ in ws:
                        received += 1

                reader = asyncio.create_task(drain())
                try:
                    while not stop.is_set() and time.monotonic() < until and not reader.done():
                        await ws.send(message)
                        sent += 1
                        if sent % 200 == 0:
                            await asyncio.sleep(0)
                finally:  # also when a send finds it cut off: its reader's end is taken
                    reader.cancel()
                    with contextlib.suppress(BaseException):
                        await reader
        except OSError:
            pass  # refused while its address is sent away: it tries again
        except websockets.ConnectionClosed:
            pass
        cut += 1
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 1.0)
    print(sent, received, cut, flush=True)


async def main() -> int:
    print(f"{TABLES} tables played for {SECONDS:.0f} s per run", flush=True)
    rows: list[tuple[str, float]] = []
    broken = []
    with bench_servers() as (folder, env):
        for label, flooding in (("nobody flooding", False),
                                ("a spectator looping since 0", True)):
            stats, counts = await one_run(folder, env, f"run{len(rows)}", flooding)
            p50 = percentile(stats.latencies, 0.5)
            p99 = percentile(stats.latencies, 0.99)
            rows.append((label, p99))
            if not stats.moves or stats.errors or stats.gaps or stats.unconfirmed or (
                    flooding and not (counts and counts[0])):
                broken.append(label)
            flooded = (f"; flooder sent {counts[0]}, got {counts[1]}, cut off {counts[2]} "
                       "times" if counts else "")
            print(f"{label:<28} players: {len(stats.latencies):5} moves, p50 {p50:5.1f} ms, "
                  f"p99 {p99:6.1f} ms, errors {len(stats.errors)}{flooded}", flush=True)
    if SMOKE:
        print("smoke run: ok" if not broken else f"SMOKE RUN BROKEN: {', '.join(broken)}")
        return 1 if broken else 0
    baseline, flooded_p99 = rows[0][1], rows[1][1]
    print(f"p99 under the flood: {flooded_p99 / baseline:.2f}x the run without")
    met = flooded_p99 <= 1.2 * baseline
    print("bar met (within 20%)" if met else "BAR MISSED (more than 20% slower)")
    return 0 if met else 1


if __name__ == "__main__":
    if sys.argv[1:2] == ["--flood"]:
        asyncio.run(flood(sys.argv[2], sys.argv[3], float(sys.argv[4])))
    else:
        sys.exit(asyncio.run(main()))
