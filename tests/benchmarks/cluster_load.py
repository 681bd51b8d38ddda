"""What the cluster benchmarks share: a local cluster made for load, tables
whose two seats are WebSocket clients playing through HAProxy about once a
second each (and reconnecting through it when their socket drops), and the
measures: command-to-broadcast latency, errors, stalls, memory.

Everything runs on loopback, in bounded loops.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import msgspec
import websockets

from muggins.cluster.local import LocalCluster
from tests.benchmarks.common import percentile
from tests.support.clients import loopback_http

#: Seconds a seat waits before it plays, as people do: about one move a
#: second at each table (the two seats take turns).
THINK = (0.8, 1.2)
#: A table that saw no event for this long while its clients ran is stalled.
STALL_SECONDS = 20.0

#: Settings for a cluster under load from one address (loopback): no
#: per-address quotas; long clocks, so that tables left behind by an earlier
#: step stay quiet instead of being played by bots.
LOAD_SETTINGS = {
    "MUGGINS_TABLES_PER_MINUTE": "1000000",
    "MUGGINS_SOCKETS_PER_ADDRESS": "1000000",
    "MUGGINS_SOCKETS_PER_MINUTE": "1000000",
    "MUGGINS_PENALTY_SECONDS": "0",
    "MUGGINS_GRACE_PERIOD": "3600",
    "MUGGINS_LOG_LEVEL": "warning",
}
CLOCK = 600


@dataclass
class Load:
    """What the clients measured."""

    latencies: list[float] = field(default_factory=list)
    moves: int = 0
    errors: list[str] = field(default_factory=list)
    gaps: int = 0
    reconnects: int = 0
    #: table -> when a client last saw one of its events (monotonic).
    last_event: dict[str, float] = field(default_factory=dict)

    def stalled(self, now: float | None = None) -> list[str]:
        now = time.monotonic() if now is None else now
        return [t for t, at in self.last_event.items() if now - at > STALL_SECONDS]

    def problems(self) -> list[str]:
        """What no run may show, however fast or slow: no move at all, an error,
        a version gap, a stalled table."""
        stalled = self.stalled()
        return [what for what, wrong in (
            ("no move", not self.moves), (f"{len(self.errors)} errors", self.errors),
            (f"{self.gaps} version gaps", self.gaps),
            (f"{len(stalled)} stalled tables", stalled)) if wrong]

    def summary(self, seconds: float) -> str:
        p50 = percentile(self.latencies, 0.50)
        p99 = percentile(self.latencies, 0.99)
        return (f"{self.moves / seconds:7.1f} moves/s  p50 {p50:6.1f} ms  p99 {p99:7.1f} ms  "
                f"errors {len(self.errors)}  gaps {self.gaps}  reconnects {self.reconnects}")

    @property
    def p99(self) -> float:
        return percentile(self.latencies, 0.99)


def load_cluster(directory: Path, replicas: int, extra: dict[str, str] | None = None
                 ) -> LocalCluster:
    cluster = LocalCluster(directory)
    try:
        cluster.up(port=0, service_replicas=replicas,
                   extra_settings={**LOAD_SETTINGS, **(extra or {})}, timeout=180)
    except BaseException:
        cluster.down()  # nothing left running behind a failed start
        raise
    return cluster


async def create_tables(base_url: str, tables: int) -> list[tuple[str, str, int]]:
    """Two-seat tables with both seats taken: (table, token, seat) per seat."""
    seats: list[tuple[str, str, int]] = []
    async with loopback_http(base_url=base_url, timeout=60,
                             limits=httpx.Limits(max_connections=40)) as http:
        async def one_table() -> None:
            response = await http.post("/tables", json={"seats": 2, "turn_clock_seconds": CLOCK})
            response.raise_for_status()
            table_id = response.json()["table_id"]
            for seat in (0, 1):
                granted = await http.post(f"/tables/{table_id}/seats/{seat}",
                                          json={"name": f"load {seat + 1}"})
                granted.raise_for_status()
                seats.append((table_id, granted.json()["token"], seat))

        for first in range(0, tables, 40):
            await asyncio.gather(*(one_table() for _ in range(first, min(first + 40, tables))))
    return seats


async def seat_player(ws_url: str, table_id: str, token: str, seat: int, load: Load,
                      until: float, rng: random.Random) -> None:
    """One seat: plays the first legal move about a second after its turn
    comes, asks for a rematch when a game ends, and reconnects (with
    ``since``) whenever the socket drops, until ``until``."""
    version = 0
    game = 0
    sent_at: float | None = None
    first = True
    while time.monotonic() < until:
        if not first:
            load.reconnects += 1
            await asyncio.sleep(0.2 + rng.random() * 0.3)
        first = False
        try:
            async with websockets.connect(f"{ws_url}/tables/{table_id}/play", max_size=2**20,
                                          ping_interval=None, open_timeout=10) as ws:
                hello = {"type": "hello", "token": token}
                if version:
                    hello["since"] = version  # type: ignore[assignment]
                await ws.send(msgspec.json.encode(hello).decode())
                planned = -1
                play_task: asyncio.Task[None] | None = None

                async def play_later(view: dict, at: int) -> None:  # type: ignore[type-arg]
                    nonlocal sent_at
                    await asyncio.sleep(rng.uniform(*THINK))
                    choice = view["legal"][0]
                    sent_at = time.perf_counter()
                    await ws.send(msgspec.json.encode({
                        "type": "play", "tile": choice["tile"], "end": choice["end"],
                        "known_version": at}).decode())

                try:
                    while True:
                        left = until - time.monotonic()
                        if left <= 0:
                            return
                        try:
                            async with asyncio.timeout(min(left, 5.0)):
                                raw = await ws.recv()
                        except TimeoutError:
                            continue
                        message = msgspec.json.decode(raw)
                        kind = message["type"]
                        if kind == "event":
                            if message["game"] == game and message["version"] != version + 1:
                                load.gaps += 1
                            game, version = message["game"], message["version"]
                            load.last_event[table_id] = time.monotonic()
                            event = message["event"]
                            if (event["type"] == "TilePlayed" and event["seat"] == seat
                                    and sent_at is not None):
                                load.latencies.append((time.perf_counter() - sent_at) * 1000)
                                load.moves += 1
                                sent_at = None
                        elif kind in ("welcome", "view"):
                            game, version = message["game"], message["version"]
                            view = message.get("view")
                            if view is None:
                                continue
                            if view["phase"] == "game-over" and seat == 0 and planned != -2:
                                planned = -2
                                await ws.send('{"type":"rematch"}')
                            if (view["phase"] == "playing" and view["turn"] == seat
                                    and view["legal"] and planned != version and sent_at is None):
                                planned = version
                                play_task = asyncio.create_task(play_later(view, version))
                        elif kind == "game":
                            game, version = message.get("game", game + 1), 0
                            planned = -1
                            load.last_event[table_id] = time.monotonic()
                        elif kind == "error":
                            if message.get("code") != "stale-view":
                                load.errors.append(str(message.get("code")))
                            sent_at = None
                            planned = -1
                finally:
                    if play_task is not None:
                        play_task.cancel()
        except (OSError, TimeoutError, websockets.WebSocketException):
            sent_at = None  # the play may or may not have landed: not timed


async def play(base_url: str, seats: list[tuple[str, str, int]], seconds: float,
               load: Load | None = None) -> Load:
    """Every seat a client for ``seconds``."""
    load = load or Load()
    ws_url = base_url.replace("http", "ws", 1)
    until = time.monotonic() + seconds
    rng = random.Random(2026)
    now = time.monotonic()
    for table_id, _token, _seat in seats:
        load.last_event.setdefault(table_id, now)
    await asyncio.gather(*(
        seat_player(ws_url, table_id, token, seat, load, until, random.Random(rng.random()))
        for table_id, token, seat in seats))
    return load


def resident_megabytes(pid: int | None) -> float:
    """A process's resident memory (VmRSS), 0 when it is gone."""
    if pid is None:
        return 0.0
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def memory_by_process(cluster: LocalCluster) -> Iterator[tuple[str, float]]:
    postgres = cluster.postgres.pgdata / "postmaster.pid"
    with contextlib.suppress(OSError, ValueError):
        yield "postgres", resident_megabytes(int(postgres.read_text().split()[0]))
    for instance in cluster.instances():
        if instance.kind != "postgres":
            yield instance.name, resident_megabytes(instance.pid)
