"""Spectators must not slow the players: 2,000 spectators on one table while
N tables are played, against the same load with nobody watching.

Players are clients that think about a second per move (as in
``bench service``); the watched table is one of theirs.  Three kinds of run,
each on fresh service processes and fresh tables, taken in turn for
MUGGINS_BENCH_ROUNDS rounds (3), each kind's moves pooled over its rounds:

* nobody watches;
* the spectators watch through a ``muggins serve --role spectators`` process
  beside the players' one (how it is deployed: docs/service.md);
* the spectators watch through the players' own process, for comparison
  (skipped with MUGGINS_BENCH_OWN_PROCESS=0).

The spectators are clients in a process of their own.  Printed per run: the
players' command-to-broadcast p50 and p99, messages the spectators received
and any gap in their versions, the spectators' delivery time (from the
player's sending a move at the watched table to each spectator's having its
event: p50, p99), and the memory of the process they watch through, per
spectator; then the pooled figures.  The bars, on the pooled figures: the
players' p99 with the spectators (spectator process) within 20% of the runs
without; the spectators' delivery p99 under 250 ms.

    python3 deploy/dev.py bench spectators
    MUGGINS_BENCH_TABLES=200 MUGGINS_BENCH_SECONDS=30 python3 deploy/dev.py bench spectators

A first round warms the machine up and is not pooled
(MUGGINS_BENCH_WARM_UP=0: none).  MUGGINS_BENCH_SPLIT_CORES=1 puts the
spectators' process and the crowd on the last core and everything else on
the others, in every run alike: the crowd then stands for devices that are
not the server's, as on a site, where here its loopback traffic (the
kernel's work for every send, which no niceness governs) shares the
players' cores.  MUGGINS_BENCH_CROWD_NICE sets the crowd's niceness.

``--smoke``: one round of 2 tables and 5 spectators for 4 s a run (without the
players'-process run); nothing may be lost, but the bars are not judged.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
import msgspec

from tests.benchmarks.bench_service import (
    SECONDS,
    Stats,
    create_tables,
    play_tables,
    service_process,
)
from tests.benchmarks.common import SMOKE, bench_servers, bench_setting, percentile

TABLES = int(bench_setting("TABLES", "100", "2"))
SPECTATORS = int(bench_setting("SPECTATORS", "2000", "5"))
OWN_PROCESS = bench_setting("OWN_PROCESS", "1", "0") != "0"
#: Runs of each configuration, taken in turn; the bars are judged on the pooled moves.
ROUNDS = int(bench_setting("ROUNDS", "3", "1"))
#: The crowd's CPU priority (0: the same as the site's processes).
CROWD_NICE = int(os.environ.get("MUGGINS_BENCH_CROWD_NICE", "0"))
#: The site (players' process, PostgreSQL, NATS, the players' clients) on
#: every core but the last, the spectators' process and the crowd on that one.
SPLIT_CORES = bench_setting("SPLIT_CORES", "0", "0") != "0"
CROWDS_CORE = max(os.sched_getaffinity(0))
#: A first round, not pooled, that warms the machine up.
WARM_UP = bench_setting("WARM_UP", "1", "0") != "0"


def on_the_crowds_core(pid: int) -> None:
    """Every thread of ``pid`` on the last core only."""
    for thread in os.listdir(f"/proc/{pid}/task"):
        with contextlib.suppress(ProcessLookupError):  # a thread that ended meanwhile
            os.sched_setaffinity(int(thread), {CROWDS_CORE})


def crowd_preexec() -> None:
    os.nice(CROWD_NICE)
    if SPLIT_CORES:
        os.sched_setaffinity(0, {CROWDS_CORE})


@dataclass
class Watched:
    messages: int = 0
    gaps: int = 0
    connected: int = 0
    #: When each spectator had each event: wall-clock times by "GAME.VERSION".
    arrivals: dict[str, list[float]] = field(default_factory=dict)
    #: Delivery times (ms) matched with the moves' sending, and the watched
    #: process's memory per spectator (KiB).
    delivery: list[float] = field(default_factory=list)
    kib_per_spectator: float = 0.0
    #: Per event: its first spectator's delivery time, and how long the
    #: crowd took from the first to the last (the fan-out), ms.
    first: list[float] = field(default_factory=list)
    spread: list[float] = field(default_factory=list)
    #: The move whose first spectator had it last (game.version, its place).
    slowest: str = ""


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class Head(msgspec.Struct):
    """What a spectator here reads of a message (the rest is skipped unread:
    the crowd shares the machine with what it measures, so it reads little)."""

    type: str
    game: int = 0
    version: int = 0


#: A frame is one message or, for several at once, an array of them.
frame_decoder = msgspec.json.Decoder(list[Head] | Head)


async def spectator(session: aiohttp.ClientSession, ws_url: str, table_id: str,
                    watched: Watched) -> None:
    """One spectator, until cancelled: counts its messages, gaps and arrivals."""
    async with session.ws_connect(f"{ws_url}/tables/{table_id}/watch", max_msg_size=2**20
                                  ) as ws:
        watched.connected += 1
        version = 0
        async for received in ws:
            if received.type != aiohttp.WSMsgType.TEXT:
                return
            now = time.time()
            frame = frame_decoder.decode(received.data)
            for message in frame if isinstance(frame, list) else [frame]:
                watched.messages += 1
                kind = message.type
                if kind == "event":
                    watched.arrivals.setdefault(f"{message.game}.{message.version}",
                                                []).append(now)
                    watched.gaps += message.version != version + 1
                    version = message.version
                elif kind in ("welcome", "view"):
                    version = message.version
                elif kind == "game":
                    version = 0


async def one_run(folder: Path, env: dict[str, str], name: str,
                  watch_from: str | None) -> tuple[Stats, Watched]:
    """Play TABLES tables; if ``watch_from`` ("own" or "spectators"), with
    SPECTATORS spectators on the first of them."""
    watched = Watched()
    pids: list[int] = []
    async with service_process(folder, env, f"{name}-players", pids=pids) as players_url:
        ids, seats = await create_tables(players_url, TABLES)
        if watch_from is None:
            stats, _ = await play_tables(players_url, seats)
            return stats, watched
        # Where spectators connect: a process of their own, or the players' one.
        place = (
            service_process(folder, env, f"{name}-spectators", "--role", "spectators",
                            pids=pids)
            if watch_from == "spectators"
            else contextlib.nullcontext(players_url)
        )
        async with place as watch_url:
            watched_pid = pids[-1]
            if SPLIT_CORES and watch_from == "spectators":
                on_the_crowds_core(watched_pid)
            before = rss_kib(watched_pid)
            # The crowd runs in a process of its own: its bursts (every event
            # reaches all of it at once) must not delay the measuring clients.
            crowd = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "tests.benchmarks.bench_spectators", "--crowd",
                watch_url.replace("http", "ws", 1), ids[0], str(SECONDS + 5),
                stdout=asyncio.subprocess.PIPE, preexec_fn=crowd_preexec,
                env={**os.environ, "MUGGINS_BENCH_SPECTATORS": str(SPECTATORS)},  # as here
            )
            assert crowd.stdout is not None
            ready = await asyncio.wait_for(crowd.stdout.readline(), 300)
            assert ready.strip() == b"connected", ready
            with_crowd = rss_kib(watched_pid)
            sent: dict[str, float] = {}
            stats, _ = await play_tables(players_url, seats, sent, ids[0])
            crowd.send_signal(signal.SIGINT)
            counts = json.loads(await crowd.stdout.read())
            await crowd.wait()
            watched = Watched(counts["messages"], counts["gaps"], counts["connected"])
            watched.delivery = [(arrived - sent[key]) * 1000
                                for key, times in counts["arrivals"].items() if key in sent
                                for arrived in times]
            watched.first = [(min(times) - sent[key]) * 1000
                             for key, times in counts["arrivals"].items() if key in sent]
            watched.spread = [(max(times) - min(times)) * 1000
                              for key, times in counts["arrivals"].items() if key in sent]
            timed = sorted((sent[key], key) for key in counts["arrivals"] if key in sent)
            if timed:
                worst = max(range(len(timed)), key=lambda n: min(
                    counts["arrivals"][timed[n][1]]) - timed[n][0])
                key, sent_at = timed[worst][1], timed[worst][0]
                watched.slowest = (f"{key}, the {worst + 1}th of {len(timed)} moves, first "
                                   f"spectator after "
                                   f"{(min(counts['arrivals'][key]) - sent_at) * 1000:.0f} ms")
            watched.kib_per_spectator = (with_crowd - before) / SPECTATORS
    return stats, watched


async def crowd(ws_url: str, table_id: str, seconds: float) -> None:
    """The spectators, in this process: say when all are in, at the end print counts.

    It stands for people's own devices, but shares this machine's cores
    with what it measures: it reads as little as it can (see Head)."""
    watched = Watched()
    tasks = []
    # aiohttp's client reads frames in compiled code: the crowd is 2,000
    # devices, and what it costs here is taken from the service it measures.
    session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
    for first in range(0, SPECTATORS, 100):  # in waves: a crowd arrives, not a stampede
        tasks += [asyncio.create_task(spectator(session, ws_url, table_id, watched))
                  for _ in range(first, min(first + 100, SPECTATORS))]
        while watched.connected < len(tasks):
            await asyncio.sleep(0.05)
    print("connected", flush=True)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGINT, stop.set)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await session.close()
    print(json.dumps({"messages": watched.messages, "gaps": watched.gaps,
                      "connected": watched.connected, "arrivals": watched.arrivals}),
          flush=True)


async def main() -> int:
    if SPLIT_CORES:
        if len(os.sched_getaffinity(0)) < 2:
            print("MUGGINS_BENCH_SPLIT_CORES needs two cores or more", file=sys.stderr)
            return 2
        # Inherited by every process started from here.
        os.sched_setaffinity(0, os.sched_getaffinity(0) - {CROWDS_CORE})
    print(f"{TABLES} tables played for {SECONDS:.0f} s per run; {SPECTATORS} spectators "
          f"on one of them; {ROUNDS} rounds; the crowd at nice {CROWD_NICE}, the spectators' "
          f"process at {os.environ.get('MUGGINS_SPECTATORS_NICENESS', '0')}"
          + ("; the spectators' process and the crowd on a core of their own"
             if SPLIT_CORES else ""), flush=True)
    configurations = [
        ("nobody watching", None),
        (f"{SPECTATORS} spectators, own process", "spectators"),
        *([(f"{SPECTATORS} spectators, players' process", "own")] if OWN_PROCESS else []),
    ]
    # Every configuration once per round, in turn, and each one's moves pooled
    # over the rounds: a p99 of one 30 s run is its 26th-worst move, and the
    # machine's own noise moved it 2x from one run to the next.
    pooled: dict[str, list[float]] = {label: [] for label, _ in configurations}
    deliveries: dict[str, list[float]] = {label: [] for label, _ in configurations}
    run = 0
    broken: list[str] = []
    # Round 0 warms the machine up and is not pooled: the first runs of an
    # invocation were the slowest, watched or not (their p50 about twice the
    # others', their p99 2.2-2.9x, in two invocations of three).
    for round_number in range(0 if WARM_UP else 1, ROUNDS + 1):
        for label, watch_from in configurations:
            # Fresh servers for each run: a run's tables, left by their players,
            # must not go on weighing on the next run (the clock's takeovers
            # would play them there).
            with bench_servers() as (folder, env):
                stats, watched = await one_run(folder, env, f"run{run}", watch_from)
            run += 1
            if not stats.moves or stats.errors or stats.gaps or stats.unconfirmed or (
                    watch_from is not None and (watched.connected < SPECTATORS or watched.gaps
                                                or not watched.messages)):
                broken.append(label if round_number else f"{label} (warm-up)")
            if round_number == 0:
                print(f"warm-up {label:<34} players: p99 "
                      f"{percentile(stats.latencies, 0.99):6.1f} ms (not pooled)", flush=True)
                continue
            pooled[label] += stats.latencies
            deliveries[label] += watched.delivery
            p50 = percentile(stats.latencies, 0.5)
            p99 = percentile(stats.latencies, 0.99)
            print(f"round {round_number} {label:<34} players: {len(stats.latencies):5} moves, "
                  f"p50 {p50:5.1f} ms, p99 {p99:6.1f} ms, errors {len(stats.errors)}, "
                  f"gaps {stats.gaps}; spectators: {watched.messages} messages, "
                  f"gaps {watched.gaps}", flush=True)
            if watch_from is not None:
                delivered = watched.delivery
                print(f"{'':<42} delivery to spectators: {len(delivered)} deliveries, "
                      f"p50 {percentile(delivered, 0.5):6.1f} ms, "
                      f"p99 {percentile(delivered, 0.99):6.1f} ms; memory "
                      f"{watched.kib_per_spectator:.1f} KiB per spectator", flush=True)
                print(f"{'':<42} the first spectator p50 "
                      f"{percentile(watched.first, 0.5):6.1f} ms, "
                      f"p99 {percentile(watched.first, 0.99):6.1f} ms; first to last p50 "
                      f"{percentile(watched.spread, 0.5):6.1f} ms, "
                      f"p99 {percentile(watched.spread, 0.99):6.1f} ms; slowest move "
                      f"{watched.slowest}", flush=True)
    print(f"pooled over {ROUNDS} rounds:")
    for label, watch_from in configurations:
        moves = pooled[label]
        line = (f"  {label:<34} players: {len(moves)} moves, p50 {percentile(moves, 0.5):5.1f} "
                f"ms, p99 {percentile(moves, 0.99):6.1f} ms")
        if watch_from is not None:
            line += f"; delivery p99 {percentile(deliveries[label], 0.99):6.1f} ms"
        print(line)
    if SMOKE:
        print("smoke run: ok" if not broken else f"SMOKE RUN BROKEN: {', '.join(broken)}")
        return 1 if broken else 0
    baseline = percentile(pooled[configurations[0][0]], 0.99)
    for label, _ in configurations[1:]:
        print(f"p99 with {label}: {percentile(pooled[label], 0.99) / baseline:.2f}x "
              "the runs nobody watched")
    watched_label = configurations[1][0]
    met = percentile(pooled[watched_label], 0.99) <= 1.2 * baseline
    print("players: bar met (within 20%)" if met else "players: BAR MISSED (more than 20% "
          "slower)")
    delivery = percentile(deliveries[watched_label], 0.99)
    on_time = delivery < 250
    print(f"delivery p99 {delivery:.0f} ms: " + ("bar met (under 250 ms)" if on_time
                                                 else "BAR MISSED (250 ms or more)"))
    return 0 if met and on_time else 1


if __name__ == "__main__":
    if sys.argv[1:2] == ["--crowd"]:
        asyncio.run(crowd(sys.argv[2], sys.argv[3], float(sys.argv[4])))
    else:
        sys.exit(asyncio.run(main()))
