"""Restarts: tables keep playing while the service is SIGKILLed and started
again every 20 s.

200 tables (MUGGINS_BENCH_TABLES) play for 3 minutes (MUGGINS_BENCH_SECONDS):
most are two bots, one in ten has a scripted person (seat 0, who plays the
first legal move half a second after their turn comes and reconnects with
``since`` whenever the socket drops).  Bots wait 0.5 s before they move,
every turn clock is 5 s, and a table whose game ends is replaced by a new
one, so 200 stay in play.  Every MUGGINS_BENCH_RESTART_EVERY seconds (20)
the service process is killed without warning and started again on the same
port.

Reported, from the event store (the source of truth):

* stalls: tables whose game is not over that saw no new event for longer
  than 2 x the turn clock + the restart time (bar: 0);
* moves lost: plays the people saw confirmed that the store does not hold
  exactly once at that version, and events they saw that the store has
  differently (bar: 0);
* the longest gap between two consecutive events at one table (seconds, from
  the events' commit times), and how many games finished (every one verified
  with the replay tool; bar: none fails).

Exits 1 when a bar is missed.  Loops are bounded in time and count, and only
loopback is used.  MUGGINS_FAULTS_COMMAND runs another build's ``muggins``.

    python -m tests.benchmarks.bench_restarts
    MUGGINS_BENCH_SECONDS=60 MUGGINS_BENCH_TABLES=50 python -m tests.benchmarks.bench_restarts

``--smoke``: 3 tables (one with a person) for 10 s, a restart every 2 s,
quick bots (0.05 s, games to 50) so that games finish and are replaced; the
same bars, and at least one restart, one game verified and one play of the
person's confirmed.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from muggins.domain.codec import game_event
from muggins.domain.streams import game_stream
from muggins.eventstore.store import EventStore
from muggins.infra.embedded import EmbeddedNats, EmbeddedPostgres
from muggins.replay.record import StoredEvent
from muggins.replay.verify import verify_game
from tests.benchmarks.common import SMOKE, bench_setting
from tests.support.clients import loopback_http
from tests.support.processes import ServiceProcess, serve_arguments
from tests.support.scripted_players import ScriptedHuman, bot_table, human_table
from tests.support.store_watch import store_at

SECONDS = float(bench_setting("SECONDS", "180", "10"))
TABLES = int(bench_setting("TABLES", "200", "3"))
RESTART_EVERY = float(bench_setting("RESTART_EVERY", "20", "2"))
#: One table in ten has a person at seat 0.
PEOPLE_EVERY = 10
#: At smoke size, quick bots and short games: some end (to be verified and
#: replaced) within the run.
BOT_DELAY = 0.05 if SMOKE else 0.5
HAND_PAUSE = 0.2 if SMOKE else 1.0
CLOCK = 5
#: About 115 moves (a minute or more) a game for bots; shorter for people.
BOT_TARGET = 50 if SMOKE else 250
PERSON_TARGET = 150
THINK = 0.5
POLL_EVERY = 1.0
#: Seconds a new table may take to be created (the service may be restarting).
CREATE_WITHIN = 30.0


@dataclass
class Table:
    table_id: str
    person: ScriptedHuman | None = None
    playing: asyncio.Task[None] | None = None
    version: int = 0
    last_recorded: datetime.datetime | None = None
    changed_at: float = field(default_factory=time.monotonic)
    over: bool = False
    replaced: bool = False
    stalled: bool = False


@dataclass
class Run:
    service: ServiceProcess
    store: EventStore
    until: float
    tables: list[Table] = field(default_factory=list)
    #: Seconds from each kill until the new process was ready.
    restarts: list[float] = field(default_factory=list)
    down_since: float | None = None
    stalls: list[str] = field(default_factory=list)
    longest_gap: float = 0.0
    longest_gap_at: str = ""
    errors: list[str] = field(default_factory=list)

    def stall_limit(self, now: float) -> float:
        """2 x the clock + the restart time (the longest so far, or the one under way)."""
        restart = max(self.restarts, default=0.0)
        if self.down_since is not None:
            restart = max(restart, now - self.down_since)
        return 2 * CLOCK + restart


async def add_table(run: Run, http: httpx.AsyncClient, person: bool) -> None:
    """A new table (retried while the service restarts); its person starts playing."""
    spec = human_table(PERSON_TARGET, CLOCK) if person else bot_table(BOT_TARGET, CLOCK)
    deadline = time.monotonic() + CREATE_WITHIN
    last = ""
    while time.monotonic() < min(deadline, run.until):
        try:
            response = await http.post("/tables", json=spec)
            if response.status_code != 201:
                last = f"POST /tables {response.status_code} {response.text[:200]}"
                raise httpx.HTTPError(last)
            table = Table(response.json()["table_id"])
            if person:
                seat = await http.post(f"/tables/{table.table_id}/seats/0", json={"name": "P"})
                if seat.status_code != 201:
                    run.errors.append(f"taking seat 0 at {table.table_id}: {seat.status_code}")
                    return
                table.person = ScriptedHuman([run.service.ws_url], table.table_id,
                                             seat.json()["token"], think=THINK)
                table.playing = asyncio.create_task(table.person.run(run.until))
            run.tables.append(table)
            return
        except httpx.HTTPError as error:
            last = last or repr(error)
            await asyncio.sleep(0.5)
    if time.monotonic() >= deadline:
        run.errors.append(f"no table could be created for {CREATE_WITHIN:.0f} s: {last}")


async def poll(run: Run) -> None:
    """Read what each table stored since the last look: gaps, ends and stalls."""
    gate = asyncio.Semaphore(8)

    async def one(table: Table) -> None:
        async with gate:
            new = await run.store.read_stream(game_stream(table.table_id, 1), table.version)
        now = time.monotonic()
        for recorded in new:
            if table.last_recorded is not None:
                gap = (recorded.recorded_at - table.last_recorded).total_seconds()
                if gap > run.longest_gap:
                    run.longest_gap = gap
                    run.longest_gap_at = (f"table {table.table_id}, versions "
                                          f"{recorded.stream_version - 1}-"
                                          f"{recorded.stream_version}")
            table.last_recorded = recorded.recorded_at
            table.version = recorded.stream_version
            table.over = recorded.event_type == "GameEnded"
        if new:
            table.changed_at = now
            table.stalled = False
        elif not table.over and not table.stalled and (
            now - table.changed_at > run.stall_limit(now)
        ):
            table.stalled = True
            run.stalls.append(f"table {table.table_id} silent at version {table.version} for "
                              f"{now - table.changed_at:.1f} s "
                              f"(limit {run.stall_limit(now):.1f} s)")

    await asyncio.gather(*(one(t) for t in run.tables if not t.over))


async def restart_every(run: Run) -> None:
    """SIGKILL and start the service again every RESTART_EVERY seconds (bounded by the run)."""
    while time.monotonic() + RESTART_EVERY < run.until:
        await asyncio.sleep(RESTART_EVERY)
        run.down_since = time.monotonic()
        run.service.kill()
        try:
            await run.service.start_ready(60)
        except AssertionError as error:
            run.errors.append(f"the service did not come back: {error}")
            raise
        took = time.monotonic() - run.down_since
        run.down_since = None
        run.restarts.append(took)
        in_play = sum(1 for t in run.tables if not t.over)
        finished = sum(1 for t in run.tables if t.over)
        print(f"restart {len(run.restarts)}: ready after {took:.1f} s; {in_play} tables in "
              f"play, {finished} games finished so far", flush=True)


async def check_store(run: Run) -> tuple[int, int, list[str], list[str]]:
    """(games verified, confirmed plays, moves lost or doubled, other problems):
    every stream gap-free, every finished game verified, every person's
    confirmed plays and seen events held to the store."""
    verified = plays = 0
    lost: list[str] = []
    problems: list[str] = []
    for table in run.tables:
        recorded = await run.store.read_stream(game_stream(table.table_id, 1))
        versions = [r.stream_version for r in recorded]
        if versions != list(range(1, len(versions) + 1)):
            problems.append(f"table {table.table_id}: versions not 1..{len(versions)}")
        if recorded and recorded[-1].event_type == "GameEnded":
            verdict = verify_game([StoredEvent(r.stream_version, game_event(r)) for r in recorded])
            if verdict.ok:
                verified += 1
            else:
                problems.append(f"table {table.table_id} fails verification: "
                                f"{verdict.problems[:3]}")
        if table.person is not None:
            plays += len(table.person.confirmed)
            problems += table.person.problems
            lost += table.person.check_store(recorded)
    return verified, plays, lost, problems


async def play(service: ServiceProcess, database_url: str) -> int:
    await service.start_ready()
    async with store_at(database_url) as store, loopback_http(
        base_url=service.url, timeout=10, limits=httpx.Limits(max_connections=20)
    ) as http:
        run = Run(service, store, time.monotonic() + SECONDS)
        for first in range(0, TABLES, 20):
            await asyncio.gather(*(add_table(run, http, n % PEOPLE_EVERY == 0)
                                   for n in range(first, min(first + 20, TABLES))))
        people = sum(1 for t in run.tables if t.person is not None)
        print(f"{len(run.tables)} tables ({people} with a person), {SECONDS:.0f} s, a restart "
              f"every {RESTART_EVERY:.0f} s", flush=True)
        restarting = asyncio.create_task(restart_every(run))
        adding: set[asyncio.Task[None]] = set()
        try:
            while time.monotonic() < run.until:
                await asyncio.sleep(POLL_EVERY)
                if restarting.done() and restarting.exception() is not None:
                    break  # the service did not come back: nothing more to measure
                with contextlib.suppress(Exception):  # the store answers next time
                    await poll(run)
                for table in list(run.tables):
                    if table.over and not table.replaced:
                        table.replaced = True
                        task = asyncio.create_task(add_table(run, http, table.person is not None))
                        adding.add(task)
                        task.add_done_callback(adding.discard)
        finally:
            for task in [restarting, *adding, *(t.playing for t in run.tables if t.playing)]:
                task.cancel()
            for task in [restarting, *adding, *(t.playing for t in run.tables if t.playing)]:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        await poll(run)
        now = time.monotonic()
        for table in run.tables:  # silent at the end is a stall too
            if not table.over and not table.stalled and (
                now - table.changed_at > run.stall_limit(now)
            ):
                run.stalls.append(f"table {table.table_id} silent at version {table.version} "
                                  f"for {now - table.changed_at:.1f} s at the end")
        verified, plays, lost, problems = await check_store(run)
    finished = sum(1 for t in run.tables if t.over)
    slowest = max(run.restarts, default=0.0)
    print(f"restarts: {len(run.restarts)} (ready after at most {slowest:.1f} s)")
    print(f"games finished: {finished} ({verified} verified), tables created: "
          f"{len(run.tables)}")
    print(f"stalls: {len(run.stalls)} (limit 2 x {CLOCK} s clock + the restart time)")
    for line in run.stalls[:10]:
        print(f"   {line}")
    print(f"moves lost: {len(lost)} (of {plays} plays the people saw confirmed)")
    for line in (lost + problems)[:10]:
        print(f"   {line}")
    print(f"longest gap between two events at a table: {run.longest_gap:.1f} s "
          f"({run.longest_gap_at})")
    waiting = [now - t.changed_at for t in run.tables if not t.over]
    print(f"longest silence of a table still in play at the end: {max(waiting, default=0):.1f} s")
    for line in run.errors[:10]:
        print(f"   error: {line}")
    met = not run.stalls and not lost and not problems and not run.errors
    print("bar met" if met else "BAR MISSED (no stall, no move lost, every game verified)")
    if SMOKE:
        broken = [what for what, wrong in (
            ("the bar missed", not met), ("no restart", not run.restarts),
            ("no game verified", not verified), ("no play of a person confirmed", not plays),
        ) if wrong]
        print("smoke run: ok" if not broken else f"SMOKE RUN BROKEN: {', '.join(broken)}")
        return 1 if broken else 0
    return 0 if met else 1


async def main() -> int:
    with tempfile.TemporaryDirectory(prefix="muggins-bench-") as folder_name:
        folder = Path(folder_name)
        postgres = EmbeddedPostgres(folder)
        nats = EmbeddedNats(folder)
        database_url, nats_url = postgres.start(), nats.start()
        service = ServiceProcess(
            folder, "serve", database_url, nats_url,
            serve_arguments(bot_delay=BOT_DELAY, hand_pause=HAND_PAUSE), log_level="warning",
        )
        try:
            return await play(service, database_url)
        finally:
            service.stop()
            service.kill()
            nats.stop()
            postgres.stop()


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
