"""Load: N tables of bots playing whole games at once through the real
WebSocket path, against the service running as one process.

Every seat is a client here (not a server-side bot): it connects over a
WebSocket, waits about a second when its turn comes (as people do) and plays.
Reported per N: moves per second, command-to-broadcast latency (from sending
a play to receiving that play's event back; p50, p99), errors, lost moves
(plays never confirmed, or a gap in the versions a client received) and a
verification of every stored game with the replay tool.  The bar: 500 tables
with p99 under 100 ms and no errors or lost moves.  Loops are bounded in time
and count, and only loopback is used.

    python3 deploy/dev.py bench service             # N = 100, 250, 500
    MUGGINS_BENCH_TABLES=500,750 python3 deploy/dev.py bench service
    MUGGINS_BENCH_PROFILE=/tmp/profiles python3 deploy/dev.py bench service  # + py-spy

With MUGGINS_BENCH_BOTS=expert (or greedy, random) the second seat of every
table is a server-side bot of that level instead of a client: the expert
thinks in the service's worker processes, and the figures are those of the
human-seat clients, whose moves must not wait for the bots' thinking.  It
prints the all-clients run beside it for comparison.  With the expert it
reports, per N, how many of its decisions had their whole budget and how
many were shortened because decisions queued, and the largest N at full
budget (the site's capacity with bots before "the expert thinks less"):

    MUGGINS_BENCH_BOTS=expert MUGGINS_BENCH_TABLES=5,10,20,40 python3 deploy/dev.py bench service

``--smoke``: 3 tables for 4 s, the same path; nothing may be lost and every
game must verify, but the latency bar is not judged.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg
import httpx
import msgspec
import websockets
from prometheus_client.parser import text_string_to_metric_families

from muggins.domain.codec import game_event
from muggins.eventstore.store import EventStore, create_pool
from muggins.infra.embedded import EmbeddedNats, EmbeddedPostgres, free_port
from muggins.replay.record import StoredEvent
from muggins.replay.verify import verify_game
from tests.benchmarks.common import SMOKE, bench_setting, messages_until, percentile
from tests.support.clients import loopback_http

SECONDS = float(bench_setting("SECONDS", "30", "2"))
#: A server-side bot level for every table's second seat ("" : a client there too).
BOTS = os.environ.get("MUGGINS_BENCH_BOTS", "")
THINK = (0.8, 1.2)  # seconds a seat waits before it plays
#: A folder: while the clients play, the service process is sampled there by
#: py-spy (collapsed stacks, SERVICE-N.raw), for finding where a move's time goes.
PROFILE = os.environ.get("MUGGINS_BENCH_PROFILE", "")
#: The share of the expert's decisions that may be shortened while a run
#: still counts as "at full budget" (a burst of deals at the start may queue).
FULL_BUDGET_SLACK = 0.01
#: The cores this benchmark and the processes it starts may use.
CORES = len(os.sched_getaffinity(0))


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    moves: int = 0
    errors: list[str] = field(default_factory=list)
    gaps: int = 0
    unconfirmed: int = 0
    disconnects: int = 0
    #: CPU seconds the service process spent while the clients played (the
    #: cost of a move, steadier than the latency on a shared machine).
    service_cpu: float = 0.0
    #: CPU seconds each part of the machine spent meanwhile (``Machine.cpu``).
    machine: dict[str, float] = field(default_factory=dict)


async def seat_player(ws_url: str, table_id: str, token: str, seat: int, stats: Stats,
                      until: float, rng: random.Random,
                      sent: dict[str, float] | None = None,
                      local_address: str | None = None) -> None:
    """Play ``seat`` as a person would; with ``sent``, note the wall-clock time
    each of its moves was sent, by the "GAME.VERSION" of the event it made."""
    try:
        async with websockets.connect(
                f"{ws_url}/tables/{table_id}/play", max_size=2**20, ping_interval=None,
                local_addr=(local_address, 0) if local_address else None) as ws:
            await ws.send(msgspec.json.encode({"type": "hello", "token": token}).decode())
            version = 0
            sent_at: float | None = None
            planned = -1
            play_task: asyncio.Task[None] | None = None

            async def play_later(view: dict, at_version: int) -> None:  # type: ignore[type-arg]
                nonlocal sent_at
                await asyncio.sleep(rng.uniform(*THINK))
                choice = view["legal"][0]
                sent_at = time.perf_counter()
                await ws.send(msgspec.json.encode({
                    "type": "play", "tile": choice["tile"], "end": choice["end"],
                    "known_version": at_version}).decode())

            async for message in messages_until(ws, until):
                kind = message["type"]
                if kind == "event":
                    if message["version"] != version + 1:
                        stats.gaps += 1
                    version = message["version"]
                    event = message["event"]
                    if event["type"] == "TilePlayed" and event["seat"] == seat and sent_at:
                        took = time.perf_counter() - sent_at
                        stats.latencies.append(took * 1000)
                        if sent is not None:
                            sent[f"{message['game']}.{version}"] = time.time() - took
                        stats.moves += 1
                        sent_at = None
                elif kind in ("welcome", "view"):
                    version = message["version"]
                    view = message.get("view")
                    if view is None:
                        continue
                    if view["phase"] == "game-over" and seat == 0 and planned != -2:
                        planned = -2
                        await ws.send('{"type":"rematch"}')
                    if (view["phase"] == "playing" and view["turn"] == seat and view["legal"]
                            and planned != version and sent_at is None):
                        planned = version
                        play_task = asyncio.create_task(play_later(view, version))
                elif kind == "game":
                    version = 0
                    planned = -1
                elif kind == "error":
                    stats.errors.append(message["code"])
            if sent_at is not None and time.perf_counter() - sent_at > 5:
                stats.unconfirmed += 1
            if play_task is not None:
                play_task.cancel()
    except (OSError, websockets.ConnectionClosed) as error:
        stats.disconnects += 1
        stats.errors.append(f"disconnected: {error}")


def _stat_seconds(pid: int, *, reaped: bool = False) -> float:
    """CPU seconds (user and system) process ``pid`` has used so far, with
    ``reaped`` those of its children that ended and were waited for (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])
    if reaped:
        ticks += int(fields[13]) + int(fields[14])
    return ticks / os.sysconf("SC_CLK_TCK")


def process_cpu(pid: int) -> float:
    """CPU seconds (user and system) process ``pid`` has used so far (Linux)."""
    return _stat_seconds(pid)


def tree_cpu(parent: int) -> float:
    """CPU seconds of ``parent`` and its children, live and ended (the
    service's bot workers, PostgreSQL's backends and autovacuum workers)."""
    total = _stat_seconds(parent, reaped=True)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == parent:
                total += _stat_seconds(int(entry.name), reaped=True)
        except (OSError, ValueError):  # gone meanwhile
            continue
    return total


@dataclass
class Machine:
    """The processes that share the cores: their CPU seconds so far, by part."""

    postgres: EmbeddedPostgres
    nats: EmbeddedNats

    def cpu(self, service: int) -> dict[str, float]:
        postmaster, nats = self.postgres.running_pid(), self.nats.running_pid()
        return {
            "service": tree_cpu(service),
            "PostgreSQL": tree_cpu(postmaster) if postmaster else 0.0,
            "NATS": process_cpu(nats) if nats else 0.0,
            "clients": process_cpu(os.getpid()),
        }


async def create_tables(base_url: str, tables: int, bots: str = ""
                        ) -> tuple[list[str], list[tuple[str, str, int]]]:
    """N two-seat tables with both seats taken (seat 1 by a server bot of
    level ``bots`` if given): their ids, and (table, token, seat) per client seat."""
    ids: list[str] = []
    seats: list[tuple[str, str, int]] = []
    async with loopback_http(base_url=base_url, timeout=30,
                             limits=httpx.Limits(max_connections=50)) as http:
        async def one_table() -> None:
            spec: dict[str, object] = {"seats": 2}
            if bots:
                spec["bots"] = [{"seat": 1, "level": bots}]
            table = (await http.post("/tables", json=spec)).json()
            ids.append(table["table_id"])
            for seat in ((0,) if bots else (0, 1)):
                granted = (await http.post(f"/tables/{table['table_id']}/seats/{seat}",
                                           json={"name": f"load{seat}"})).json()
                seats.append((table["table_id"], granted["token"], seat))

        for first in range(0, tables, 50):
            await asyncio.gather(*(one_table() for _ in range(first, min(first + 50, tables))))
    return ids, seats


async def play_tables(base_url: str, seats: list[tuple[str, str, int]],
                      sent: dict[str, float] | None = None,
                      sent_at_table: str | None = None,
                      profile: tuple[int, str] | None = None,
                      machine: Machine | None = None) -> tuple[Stats, float]:
    """Every seat a client, for SECONDS: what they measured, and how long it
    took (with ``sent``: when each move at ``sent_at_table`` was sent; with
    ``profile`` (process id, name) and PROFILE, that process sampled meanwhile)."""
    stats = Stats()
    sampler = None
    if profile and PROFILE:
        Path(PROFILE).mkdir(parents=True, exist_ok=True)
        sampler = subprocess.Popen(
            [str(Path(sys.executable).parent / "py-spy"), "record", "--pid", str(profile[0]),
             "--duration", str(max(1, int(SECONDS) - 2)), "--rate", "100", "--format", "raw",
             "--nonblocking", "--output", str(Path(PROFILE) / f"{profile[1]}.raw")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ws_url = base_url.replace("http", "ws", 1)
    # The load generator's own collector pauses are not the service's latency:
    # no cyclic collection in this process while it measures (a bounded run).
    gc.collect()
    gc.disable()
    until = time.monotonic() + SECONDS
    rng = random.Random(2026)
    started = time.perf_counter()
    cpu_before = process_cpu(profile[0]) if profile else 0.0
    machine_before = machine.cpu(profile[0]) if machine and profile else {}
    await asyncio.gather(*(
        seat_player(ws_url, table_id, token, seat, stats, until, random.Random(rng.random()),
                    sent if table_id == sent_at_table else None)
        for table_id, token, seat in seats
    ))
    elapsed = time.perf_counter() - started
    if profile:
        stats.service_cpu = process_cpu(profile[0]) - cpu_before
    if machine and profile:
        stats.machine = {part: seconds - machine_before[part]
                         for part, seconds in machine.cpu(profile[0]).items()}
    gc.enable()
    if sampler is not None:
        sampler.wait(30)
    return stats, elapsed


async def run_load(base_url: str, tables: int, bots: str = "",
                   profile: tuple[int, str] | None = None, machine: Machine | None = None,
                   before_play: Callable[[], Awaitable[None]] | None = None,
                   ) -> tuple[Stats, list[str], float]:
    """Create the tables, then (after ``before_play``) play them."""
    ids, seats = await create_tables(base_url, tables, bots)
    if before_play is not None:
        await before_play()
    stats, elapsed = await play_tables(base_url, seats, profile=profile, machine=machine)
    return stats, ids, elapsed


async def service_metrics(base_url: str) -> str:
    async with loopback_http(base_url=base_url) as http:
        return (await http.get("/metrics")).text


def labelled(metrics: str, name: str, label: str) -> dict[str, float]:
    """The samples named ``name`` in a /metrics text, by the value of ``label``
    (prometheus_client's own parser reads the exposition format)."""
    return {sample.labels[label]: sample.value
            for family in text_string_to_metric_families(metrics)
            for sample in family.samples
            if sample.name == name and label in sample.labels}


def over_100_ms(metrics: str,
                histogram: str = "muggins_command_to_broadcast_seconds") -> tuple[float, float]:
    """One of the service's own histograms: how many it observed, and how
    many of them took over 100 ms."""
    buckets = labelled(metrics, f"{histogram}_bucket", "le")
    return buckets.get("+Inf", 0.0), buckets.get("+Inf", 0.0) - buckets.get("0.1", 0.0)


#: The service's histograms of a move's steps, in order (docs/service.md).
STAGES = (("appended", "muggins_command_append_seconds"),
          ("published", "muggins_relay_publish_seconds"),
          ("delivered", "muggins_bus_delivery_seconds"),
          ("broadcast", "muggins_command_to_broadcast_seconds"))


def bucket_quantile(metrics: str, histogram: str, share: float) -> float | None:
    """The upper bound (seconds) of the bucket of a histogram where
    ``share`` of its observations are reached: a quantile to a bucket's
    width (None: nothing observed)."""
    buckets = sorted((float(le), count) for le, count
                     in labelled(metrics, f"{histogram}_bucket", "le").items())
    total = buckets[-1][1] if buckets else 0.0
    if not total:
        return None
    return next(bound for bound, count in buckets if count >= share * total)


def as_ms(seconds: float | None) -> str:
    return "none" if seconds is None else f"{1000 * seconds:g}"


async def verify_tables(database_url: str, ids: list[str]) -> int:
    pool = await create_pool(database_url)
    store = EventStore(pool)
    bad = 0
    try:
        for table_id in ids:
            game = 1
            while recorded := await store.read_stream(f"{table_id}-g{game}"):
                verdict = verify_game([StoredEvent(r.stream_version, game_event(r))
                                              for r in recorded])
                bad += not verdict.ok
                game += 1
    finally:
        await pool.close()
    return bad


async def with_statement_statistics(postgres: EmbeddedPostgres, url: str) -> str:
    """PostgreSQL restarted with pg_stat_statements loaded (for PROFILE runs):
    what each statement costs the database, beside the service's own profile."""
    connection = await asyncpg.connect(url)
    try:
        await connection.execute(
            "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'")
        # Statements inside functions too: what append_events' parts cost.
        await connection.execute("ALTER SYSTEM SET pg_stat_statements.track = 'all'")
    finally:
        await connection.close()
    postgres.stop()
    url = postgres.start()
    connection = await asyncpg.connect(url)
    try:
        await connection.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
    finally:
        await connection.close()
    return url


async def reset_statement_statistics(url: str) -> None:
    """pg_stat_statements counts afresh from now."""
    connection = await asyncpg.connect(url)
    try:
        await connection.execute("SELECT pg_stat_statements_reset()")
    finally:
        await connection.close()


async def statement_statistics(url: str) -> list[tuple[int, float, str]]:
    """The statements run since the last reset, costliest first: (calls,
    total milliseconds, the statement's first 90 characters)."""
    connection = await asyncpg.connect(url)
    try:
        rows = await connection.fetch(
            "SELECT calls, total_exec_time, query FROM pg_stat_statements "
            "ORDER BY total_exec_time DESC LIMIT 20")
    finally:
        await connection.close()
    return [(row["calls"], row["total_exec_time"], " ".join(row["query"].split())[:90])
            for row in rows]


async def wait_ready(base_url: str) -> None:
    async with loopback_http(base_url=base_url) as http:
        for _ in range(300):
            try:
                if (await http.get("/readyz")).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            await asyncio.sleep(0.1)
    raise RuntimeError("the service did not become ready")


@contextlib.asynccontextmanager
async def service_process(folder: Path, env: dict[str, str], name: str,
                          *arguments: str, pids: list[int] | None = None,
                          quotas: bool = False) -> AsyncIterator[str]:
    """``muggins serve`` in a process of its own, ready; yields its base URL
    (and puts its process id in ``pids``).  Without ``quotas`` the
    per-address limits are off (every client here is loopback)."""
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    with open(folder / f"{name}.log", "w") as server_log:
        server = subprocess.Popen(
            # Every client comes from loopback here: no per-address quota.
            [sys.executable, "-m", "muggins.cli", "serve", "--port", str(port),
             *([] if quotas else ["--tables-per-minute", "1000000", "--sockets-per-address",
                                  "1000000", "--sockets-per-minute", "1000000"]),
             *arguments],
            env=env, stdout=server_log, stderr=subprocess.STDOUT,
        )
    if pids is not None:
        pids.append(server.pid)
    try:
        await wait_ready(base_url)
        yield base_url
    finally:
        server.terminate()
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:  # never left running past its servers
            server.kill()
            server.wait()


async def main() -> int:
    sizes = [int(n) for n in bench_setting("TABLES", "100,250,500", "3").split(",")]
    results = []
    #: Per N of a bot run: the expert's decisions, by budget (full, shortened).
    held: list[tuple[int, dict[str, float]]] = []
    with tempfile.TemporaryDirectory(prefix="muggins-bench-") as folder:
        postgres = EmbeddedPostgres(Path(folder))
        nats = EmbeddedNats(Path(folder))
        machine = Machine(postgres, nats)
        try:
            database_url, nats_url = postgres.start(), nats.start()
            if PROFILE:
                database_url = await with_statement_statistics(postgres, database_url)
            env = {**os.environ, "MUGGINS_DATABASE_URL": database_url,
                   "MUGGINS_NATS_URL": nats_url,
                   "MUGGINS_LOG_LEVEL": "warning", "MUGGINS_LOG_FORMAT": "json"}
            # The all-clients run first: a bot run's tables go on playing on
            # the next service process (their next steps are durable), and
            # would weigh on whatever runs after them.
            runs = [(tables, level) for tables in sizes
                    for level in (["", BOTS] if BOTS else [""])]
            for tables, level in runs:
                # A fresh service process for each N: one run's games do not
                # weigh on the next.
                pids: list[int] = []
                name = f"serve-{tables}{level}"
                async with service_process(Path(folder), env, name, pids=pids) as base_url:
                    stats, ids, elapsed = await run_load(
                        base_url, tables, level, profile=(pids[-1], name), machine=machine,
                        # The statements of the play alone, not of creating the tables.
                        before_play=(lambda: reset_statement_statistics(database_url))
                        if PROFILE else None)
                    statements = (await statement_statistics(database_url)) if PROFILE else []
                    metrics = await service_metrics(base_url)
                decisions = labelled(metrics, "muggins_bot_decisions_total", "budget")
                observed, slow = over_100_ms(metrics)
                bad_games = await verify_tables(database_url, ids)
                if level == BOTS:
                    results.append((tables, stats, elapsed, bad_games))
                    held.append((tables, decisions))
                p50, p99 = percentile(stats.latencies, 0.5), percentile(stats.latencies, 0.99)
                who = f"client + {level} bot" if level else "two clients"
                print(f"{tables:>4} tables ({who}): {stats.moves / elapsed:7.1f} client moves/s, "
                      f"command->broadcast p50 {p50:6.1f} ms, p99 {p99:6.1f} ms, "
                      f"service CPU {stats.service_cpu / elapsed:4.0%} "
                      f"({1e6 * stats.service_cpu / max(1, stats.moves):5.0f} us a client move), "
                      f"errors {len(stats.errors)}, gaps {stats.gaps}, "
                      f"unconfirmed {stats.unconfirmed}, games failing verification {bad_games}",
                      flush=True)
                print(f"     the service's own command->broadcast: {observed:.0f} observed, "
                      f"{slow / max(1, observed):.1%} over 100 ms", flush=True)
                print("     a move's steps, p50 / p99 (to a bucket): " + ", ".join(
                    f"{stage} by {as_ms(bucket_quantile(metrics, name, 0.5))} / "
                    f"{as_ms(bucket_quantile(metrics, name, 0.99))} ms"
                    for stage, name in STAGES), flush=True)
                client_moves = max(1, stats.moves)
                print("     CPU a client move: " + ", ".join(
                    f"{part} {1e6 * seconds / client_moves:.0f} us" for part, seconds
                    in stats.machine.items()) + f"; the {CORES} cores "
                    f"{sum(stats.machine.values()) / elapsed / CORES:.0%} busy",
                    flush=True)
                for calls, total_ms, query in statements[:12]:
                    print(f"     SQL {calls / client_moves:5.2f} a move, "
                          f"{1000 * total_ms / client_moves:6.0f} us a move, "
                          f"{1000 * total_ms / max(1, calls):6.0f} us a call: {query}",
                          flush=True)
                if level == "expert":
                    full, shortened = decisions.get("full", 0), decisions.get("shortened", 0)
                    print(f"     expert decisions: {full:.0f} at full budget, {shortened:.0f} "
                          f"shortened ({shortened / max(1, full + shortened):.1%})", flush=True)
                    moves, late = over_100_ms(metrics, "muggins_bot_move_wait_seconds")
                    print(f"     bot moves waiting over 100 ms for their decision once due: "
                          f"{late:.0f} of {moves:.0f}", flush=True)
                if stats.errors:
                    print("   errors:", statistics.multimode(stats.errors)[:3])
        finally:
            nats.stop()
            postgres.stop()
    if BOTS == "expert":
        whole = [t for t, d in held
                 if d.get("shortened", 0) <= FULL_BUDGET_SLACK * sum(d.values())]
        print(f"largest N with the expert at full budget (at most {FULL_BUDGET_SLACK:.0%} of "
              f"its decisions shortened): {max(whole) if whole else 'none'}")
    sustained = [t for t, s, _, bad in results
                 if percentile(s.latencies, 0.99) < 100 and not s.errors and not s.gaps
                 and not s.unconfirmed and not bad]
    if SMOKE:
        broken = [t for t, s, _, bad in results
                  if not s.moves or s.errors or s.gaps or s.unconfirmed or bad]
        print("smoke run: ok" if not broken else f"SMOKE RUN BROKEN at {broken} tables")
        return 1 if broken else 0
    print(f"largest N sustained (p99 < 100 ms, no errors, nothing lost): "
          f"{max(sustained) if sustained else 'none'}")
    met = 500 in sustained
    print("bar met" if met else "BAR MISSED (500 tables)")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
