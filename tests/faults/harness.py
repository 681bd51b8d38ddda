"""What the fault tests (and bench_restarts) share: the service as a process of
its own, scripted people who reconnect, a watch on the event store that says
which tables are stuck, and the PostgreSQL processes to pause.

Everything here keeps to the service's documented surface (docs/service.md):
``muggins serve`` and its options, HTTP, the WebSocket protocol, and the
event store's ``read_stream``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import websockets

from muggins.embedded import free_port
from muggins.eventstore.store import EventStore, RecordedEvent, create_pool
from muggins.evidence.checkpoints import public_keys
from muggins.evidence.receipts import receipts_of
from muggins.replay.record import StoredEvent
from muggins.replay.source import load_table_record
from muggins.replay.table_verify import TableVerdict, verify_table
from muggins.replay.verify import verify_game
from muggins.streams import game_stream
from tests.service.client import SeatClient
from tests.support.waits import eventually

#: Seconds a scripted person waits before connecting again after a drop.
RECONNECT_PAUSE = 0.2
#: How often the store is asked how far each table got.
POLL_EVERY = 0.5
#: What asyncio and uvicorn print when an exception escaped every handler.
UNHANDLED_MARKERS = (
    "Task exception was never retrieved",
    "Future exception was never retrieved",
    "Exception in callback",
    "Exception in ASGI application",
)


# ---------------------------------------------------------------- the service process


def muggins_command() -> str:
    """The ``muggins`` executable: $MUGGINS_FAULTS_COMMAND if set (another
    build to judge), else the one installed beside the Python running the tests."""
    chosen = os.environ.get("MUGGINS_FAULTS_COMMAND")
    if chosen:
        return chosen
    beside = Path(sys.executable).parent / "muggins"
    if beside.exists():
        return str(beside)
    found = shutil.which("muggins")
    if found is None:
        raise RuntimeError("the muggins command is not installed beside this Python")
    return found


@functools.cache
def serve_options() -> frozenset[str]:
    """The long options ``muggins serve --help`` lists (read once)."""
    result = subprocess.run([muggins_command(), "serve", "--help"], capture_output=True,
                            text=True, check=True, timeout=60)
    return frozenset(word.rstrip(",") for word in result.stdout.split()
                     if word.startswith("--"))


def serve_arguments(*, bot_delay: float, hand_pause: float | None = None,
                    grace_period: float | None = None) -> list[str]:
    """``serve`` options; the pause and grace options only where this build has them."""
    arguments = ["--bot-delay", str(bot_delay)]
    known = serve_options()
    if hand_pause is not None and "--hand-pause" in known:
        arguments += ["--hand-pause", str(hand_pause)]
    if grace_period is not None and "--grace-period" in known:
        arguments += ["--grace-period", str(grace_period)]
    # The load comes from one address here (loopback): no per-address quota.
    for quota in ("--tables-per-minute", "--sockets-per-address", "--sockets-per-minute"):
        if quota in known:
            arguments += [quota, "1000000"]
    return arguments


async def wait_ready(url: str, timeout: float,
                     process: subprocess.Popen[bytes] | None = None) -> float:
    """Seconds until ``GET /readyz`` answers 200; AssertionError (with the last
    answer) if it does not within ``timeout``."""
    started = time.monotonic()
    last = "no answer"
    async with httpx.AsyncClient(base_url=url, timeout=2) as http:
        while time.monotonic() - started < timeout:
            if process is not None and process.poll() is not None:
                raise AssertionError(f"the service at {url} exited with {process.returncode}")
            try:
                response = await http.get("/readyz")
                if response.status_code == 200:
                    return time.monotonic() - started
                last = f"{response.status_code} {response.text}"
            except httpx.HTTPError as error:
                last = repr(error)
            await asyncio.sleep(0.1)
    raise AssertionError(f"{url}/readyz did not answer 200 within {timeout:.0f} s: {last}")


class ServiceProcess:
    """``muggins serve`` in a process of its own, its output in a log file."""

    def __init__(self, folder: Path, name: str, database_url: str, nats_url: str,
                 arguments: Sequence[str], port: int | None = None,
                 log_level: str = "info", migration_url: str | None = None) -> None:
        self.folder = folder
        #: The owner role's URL the migrations run with (the service's own
        #: role may not change the schema).
        self.migration_url = migration_url
        self.log_level = log_level
        self.name = name
        self.database_url = database_url
        self.nats_url = nats_url
        self.arguments = list(arguments)
        self.port = port or free_port()
        self.process: subprocess.Popen[bytes] | None = None
        #: Every log file this service wrote (one per start).
        self.logs: list[Path] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Start (or start again, on the same port)."""
        assert self.process is None or self.process.poll() is not None, "already running"
        env = {key: value for key, value in os.environ.items()
               if not key.startswith("MUGGINS_")}
        env.update(MUGGINS_DATABASE_URL=self.database_url, MUGGINS_NATS_URL=self.nats_url,
                   MUGGINS_LOG_FORMAT="json", MUGGINS_LOG_LEVEL=self.log_level,
                   MUGGINS_DATA_DIR=str(self.folder / "data"))
        if self.migration_url is not None:
            env["MUGGINS_MIGRATION_DATABASE_URL"] = self.migration_url
        log_path = self.folder / f"{self.name}-{len(self.logs) + 1}.log"
        self.logs.append(log_path)
        with open(log_path, "wb") as log:
            self.process = subprocess.Popen(
                [muggins_command(), "serve", "--host", "127.0.0.1", "--port", str(self.port),
                 *self.arguments],
                env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True,
            )

    async def ready(self, timeout: float = 60) -> float:
        return await wait_ready(self.url, timeout, self.process)

    async def start_ready(self, timeout: float = 60) -> float:
        self.start()
        return await self.ready(timeout)

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL, as a crash or the OOM killer would: no shutdown code runs."""
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(30)

    def stop(self, timeout: float = 15) -> None:
        """SIGTERM (a clean shutdown), then SIGKILL if it takes longer than ``timeout``."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()

    def log_text(self) -> str:
        return "".join(path.read_text(errors="replace") for path in self.logs if path.exists())

    def log_tail(self, lines: int = 30, width: int = 300) -> str:
        return "\n".join(line[:width] for line in self.log_text().splitlines()[-lines:])


class Launcher:
    """Service processes for one test, every one stopped at the end."""

    def __init__(self, folder: Path, database_url: str, nats_url: str,
                 migration_url: str | None = None) -> None:
        self.folder = folder
        self.database_url = database_url
        self.nats_url = nats_url
        self.migration_url = migration_url
        self.services: list[ServiceProcess] = []

    def service(self, name: str, *, bot_delay: float, hand_pause: float | None = None,
                grace_period: float | None = None, extra: Sequence[str] = ()
                ) -> ServiceProcess:
        """A service process (not started); ``extra``: more ``serve`` options."""
        arguments = [*serve_arguments(bot_delay=bot_delay, hand_pause=hand_pause,
                                      grace_period=grace_period), *extra]
        service = ServiceProcess(self.folder, name, self.database_url, self.nats_url, arguments,
                                 migration_url=self.migration_url)
        self.services.append(service)
        return service

    def stop_all(self) -> None:
        for service in self.services:
            with contextlib.suppress(Exception):
                service.stop()
        for service in self.services:
            with contextlib.suppress(Exception):
                service.kill()

    def report(self) -> str:
        """Where each log is and how it ends (printed; pytest shows it on failure)."""
        parts = []
        for service in self.services:
            parts.append(f"--- {service.name}: {', '.join(str(p) for p in service.logs)}")
            parts.append(service.log_tail())
        return "\n".join(parts)


def unhandled_errors(log_text: str) -> list[str]:
    """Exceptions that escaped the service's own handling, from its log.

    The service logs JSON lines (structlog); a traceback inside one of them
    was logged on purpose.  What asyncio, uvicorn or the interpreter print
    on their own (plain-text lines: an exception nobody caught, a task
    whose exception nobody retrieved) is what this returns, a line each.
    """
    found = []
    told = False  # a marker line is followed by its own traceback: one finding
    for line in log_text.splitlines():
        stripped = line.strip()
        if any(marker in line for marker in UNHANDLED_MARKERS):
            found.append(stripped[:300])
            told = True
        elif stripped.startswith("Traceback") and not told:
            found.append(stripped[:300])
        elif stripped.startswith("{") or stripped.startswith("Traceback"):
            told = False
    return found


# ---------------------------------------------------------------- tables over HTTP


async def create_table(http: httpx.AsyncClient, **spec: Any) -> str:
    response = await http.post("/tables", json=spec)
    assert response.status_code == 201, f"POST /tables: {response.status_code} {response.text}"
    return str(response.json()["table_id"])


async def sit(http: httpx.AsyncClient, table_id: str, seat: int, name: str) -> str:
    """The seat's token."""
    response = await http.post(f"/tables/{table_id}/seats/{seat}", json={"name": name})
    assert response.status_code == 201, (
        f"POST /tables/{table_id}/seats/{seat}: {response.status_code} {response.text}"
    )
    return str(response.json()["token"])


def bot_table(target: int, clock: int = 30) -> dict[str, Any]:
    """Two bots: the game starts at once."""
    return {"preset": "playelephant", "seats": 2,
            "bots": [{"seat": 0, "level": "greedy"}, {"seat": 1, "level": "greedy"}],
            "turn_clock_seconds": clock, "overrides": {"target": target}}


def human_table(target: int, clock: int) -> dict[str, Any]:
    """Seat 0 for a person, seat 1 a bot: the game starts when seat 0 is taken."""
    return {"preset": "playelephant", "seats": 2, "bots": [{"seat": 1, "level": "greedy"}],
            "turn_clock_seconds": clock, "overrides": {"target": target}}


# ---------------------------------------------------------------- a scripted person


@dataclass(frozen=True)
class ConfirmedPlay:
    """A play the person sent and then saw come back as an event."""

    game: int
    version: int
    hand: int
    tile: tuple[int, int]


class ScriptedHuman:
    """A person at one seat who plays the first legal move on their turn, and
    connects again (hello with ``since``) whenever the socket drops, to the
    first of ``ws_urls`` that answers.

    It records what it saw, so a test can hold the store to it: every event
    (by game and version), and every play of its own it saw confirmed.
    """

    def __init__(self, ws_urls: Sequence[str], table_id: str, token: str,
                 think: float = 0.0) -> None:
        self.ws_urls = list(ws_urls)
        self.table_id = table_id
        self.token = token
        self.think = think
        self.seat = -1
        self.game = 0
        self.version = 0
        #: (game, version) -> the type of the event seen there.
        self.seen: dict[tuple[int, int], str] = {}
        self.confirmed: list[ConfirmedPlay] = []
        #: (game, version) the person was never sent as an event (a reconnect
        #: answered with a view past ``since``): nothing is expected of them.
        self.unseen: set[tuple[int, int]] = set()
        #: The play sent and not yet seen: (game, known_version, tile).
        self.pending: tuple[int, int, tuple[int, int]] | None = None
        self.sent = 0
        self.connections = 0
        self.errors: list[dict[str, Any]] = []
        #: Broken promises of the protocol (a gap in the versions, a bad welcome).
        self.problems: list[str] = []
        self.last_failure = ""
        self.over = False
        self.last_event_at = time.monotonic()

    async def run(self, deadline: float) -> None:
        """Play until the game ends or the monotonic clock passes ``deadline``."""
        while not self.over and time.monotonic() < deadline:
            client = await self._connect(deadline)
            if client is None:
                return
            try:
                await self._play(client, deadline)
            except (websockets.ConnectionClosed, OSError) as error:
                self.last_failure = f"dropped: {error!r}"
            except AssertionError as error:  # SeatClient's gap check
                self.problems.append(f"seat {self.seat} at {self.table_id}: {error}")
            finally:
                with contextlib.suppress(Exception):
                    await client.close()
            if not self.over:
                await asyncio.sleep(RECONNECT_PAUSE)

    async def _connect(self, deadline: float) -> SeatClient | None:
        while time.monotonic() < deadline:
            url = self.ws_urls[0]
            try:
                client = await SeatClient.connect(url, self.table_id, self.token,
                                                  since=self.version or None)
            except (OSError, TimeoutError, websockets.WebSocketException,
                    AssertionError) as error:
                self.last_failure = f"connecting to {url}: {error!r}"
                # The next address (a second process) is tried next time.
                self.ws_urls.append(self.ws_urls.pop(0))
                await asyncio.sleep(RECONNECT_PAUSE)
                continue
            self.connections += 1
            self.seat = client.seat
            if self.game and client.game != self.game:
                self.problems.append(f"welcome for game {client.game}, playing {self.game}")
            self.game = client.game
            self.unseen.update((client.game, v) for v in range(self.version + 1,
                                                                client.version + 1))
            self.version = max(self.version, client.version)
            return client
        return None

    async def _play(self, client: SeatClient, deadline: float) -> None:
        sent_for = -1  # a play lost with a connection is sent again on the next
        up_to_date = client.view is not None
        while not self.over and time.monotonic() < deadline:
            if up_to_date and client.my_turn() and client.version > sent_for:
                sent_for = client.version
                if self.think:
                    await asyncio.sleep(self.think)
                assert client.view is not None
                choice = client.view["legal"][0]
                tile = (int(choice["tile"][0]), int(choice["tile"][1]))
                self.pending = (client.game, client.version, tile)
                self.sent += 1
                await client.send({"type": "play", "tile": list(tile), "end": choice["end"],
                                   "known_version": client.version})
            try:
                message = await client.receive(min(5.0, max(0.1, deadline - time.monotonic())))
            except TimeoutError:
                continue
            kind = message["type"]
            if kind in ("view", "welcome"):
                up_to_date = message.get("view") is not None and (
                    message["version"] == client.version
                )
            elif kind == "event":
                up_to_date = False
                self._saw(client.game, message["version"], message["event"])
            elif kind == "error":
                self.errors.append(message)
                self.pending = None  # refused: nothing changed
            elif kind == "game":
                self.problems.append(f"a new game ({message['game']}) began: nobody asked")

    def _saw(self, game: int, version: int, event: dict[str, Any]) -> None:
        self.version = version
        self.last_event_at = time.monotonic()
        self.seen[(game, version)] = event["type"]
        if event["type"] == "TilePlayed" and event["seat"] == self.seat and self.pending:
            pending_game, known, tile = self.pending
            if pending_game == game and version > known and tuple(event["tile"]) == tile:
                self.confirmed.append(ConfirmedPlay(game, version, event["hand"], tile))
                self.pending = None
        elif event["type"] == "GameEnded":
            self.over = True

    def check_store(self, recorded: Sequence[RecordedEvent], game: int = 1) -> list[str]:
        """What the store says against what this person saw (empty: they agree):
        every confirmed play stored once, at its version; no play stored in
        this seat's name that the person did not see confirmed; every event
        seen is the one stored at that version."""
        where = f"table {self.table_id} seat {self.seat}"
        by_version = {r.stream_version: r for r in recorded}
        problems = []
        played: dict[tuple[int, tuple[int, int]], list[int]] = {}
        for r in recorded:
            if r.event_type == "TilePlayed":
                payload = json.loads(bytes(r.payload))
                key = (payload["hand"], (payload["tile"][0], payload["tile"][1]))
                played.setdefault(key, []).append(r.stream_version)
        confirmed_versions = set()
        for play in self.confirmed:
            if play.game != game:
                continue
            confirmed_versions.add(play.version)
            stored = by_version.get(play.version)
            if stored is None or stored.event_type != "TilePlayed":
                what = stored.event_type if stored else "nothing"
                problems.append(f"{where}: its play {list(play.tile)} confirmed at version "
                                f"{play.version} is lost (the store has {what} there)")
                continue
            payload = json.loads(bytes(stored.payload))
            if payload["seat"] != self.seat or tuple(payload["tile"]) != play.tile:
                problems.append(f"{where}: confirmed {list(play.tile)} at version "
                                f"{play.version}, the store has {payload}")
            copies = played.get((play.hand, play.tile), [])
            if len(copies) != 1:
                problems.append(f"{where}: {list(play.tile)} of hand {play.hand} is stored "
                                f"{len(copies)} times (versions {copies})")
        for r in recorded:
            if (r.event_type == "TilePlayed" and r.actor == f"seat:{self.seat}"
                    and r.stream_version not in confirmed_versions
                    and (game, r.stream_version) not in self.unseen):
                problems.append(f"{where}: the store has a play in its name at version "
                                f"{r.stream_version} it never saw confirmed")
        for (seen_game, version), kind in sorted(self.seen.items()):
            if seen_game != game:
                continue
            stored = by_version.get(version)
            if stored is None or stored.event_type != kind:
                problems.append(f"{where}: saw {kind} at version {version}, the store has "
                                f"{stored.event_type if stored else 'nothing'}")
        return problems


async def settle(tasks: Sequence[asyncio.Task[Any]], timeout: float) -> None:
    """Wait up to ``timeout`` for ``tasks`` to end (a test then names what is
    missing); an exception one of them raised is raised here."""
    if not tasks:
        return
    done, _ = await asyncio.wait(tasks, timeout=timeout)
    for task in done:
        task.result()


# ---------------------------------------------------------------- a fault under play


@dataclass(frozen=True)
class Scenario:
    """Tables of scripted people and of bots, and how long each phase may take."""

    human_tables: int
    bot_tables: int
    target: int
    clock: int
    #: Seconds of play before the fault.
    play_first: float
    #: After the fault: every game over within ``finish`` s, no table silent ``stall`` s.
    finish: float
    stall: float


async def play_through(base_url: str, ws_urls: Sequence[str], store: EventStore,
                       fault: Callable[[], Awaitable[str]],
                       scenario: Scenario) -> list[ScriptedHuman]:
    """Play, call ``fault`` mid-game (it says what it did, for the failure
    message), and check that every game ended, verifies, and holds each play
    a person saw confirmed exactly once.  The people, for more checks."""
    deadline = time.monotonic() + scenario.finish + 60
    humans: list[ScriptedHuman] = []
    playing: list[asyncio.Task[None]] = []
    try:
        async with httpx.AsyncClient(base_url=base_url, timeout=10) as http:
            # People first: their games start when they sit, bots' at once.
            for n in range(scenario.human_tables):
                table_id = await create_table(http, **human_table(scenario.target,
                                                                  scenario.clock))
                human = ScriptedHuman(ws_urls, table_id,
                                      await sit(http, table_id, 0, f"Player {n}"))
                humans.append(human)
                playing.append(asyncio.create_task(human.run(deadline)))
            bot_ids = [await create_table(http, **bot_table(scenario.target))
                       for _ in range(scenario.bot_tables)]
        tables = [TableProgress(t) for t in [h.table_id for h in humans] + bot_ids]
        watch = StoreWatch(store)
        await asyncio.sleep(scenario.play_first)
        await watch.poll(tables)
        mid_game = [t for t in tables if not t.over and t.version > 0]
        assert len(mid_game) >= len(tables) // 2, (
            f"harness: only {len(mid_game)} of {len(tables)} tables were mid-game at the "
            "fault; the games are too short for this machine")
        after = await fault()
        await watch.wait_finished(tables, within=scenario.finish, stall=scenario.stall,
                                  after=after)
        await settle(playing, scenario.stall)
        problems = []
        for human in humans:
            if not human.over:
                problems.append(f"table {human.table_id}: the person never saw GameEnded "
                                f"(at version {human.version}; {human.last_failure})")
            problems += human.problems
        for table in tables:
            await watch.checked_game(table.table_id)
        for human in humans:
            problems += human.check_store(await watch.checked_game(human.table_id))
        assert not problems, "\n".join(problems)
        return humans
    finally:
        for task in playing:
            task.cancel()
        for task in playing:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


# ---------------------------------------------------------------- the store's view


@dataclass
class TableProgress:
    """How far one table's game got, as the store says."""

    table_id: str
    game: int = 1
    version: int = 0
    last_type: str = "nothing"
    changed_at: float = field(default_factory=time.monotonic)
    over: bool = False

    @property
    def stream(self) -> str:
        return game_stream(self.table_id, self.game)


class StoreWatch:
    """Reads the event store to tell which tables move, finish or are stuck."""

    def __init__(self, store: EventStore) -> None:
        self.store = store

    async def poll(self, tables: Iterable[TableProgress], limit: int = 8) -> None:
        gate = asyncio.Semaphore(limit)

        async def one(table: TableProgress) -> None:
            if table.over:
                return
            async with gate:
                new = await self.store.read_stream(table.stream, table.version)
            if new:
                table.version = new[-1].stream_version
                table.last_type = new[-1].event_type
                table.changed_at = time.monotonic()
                table.over = table.last_type == "GameEnded"

        await asyncio.gather(*(one(table) for table in tables))

    async def wait_under_way(self, tables: Sequence[TableProgress], *, played: float,
                             within: float = 60.0) -> None:
        """Until every table's game has begun (a first event), then ``played``
        seconds more of play: the fault that follows lands mid-game.  A busy
        machine starts games later; a fixed wait alone would sometimes land
        before one of them began."""
        async def begun() -> bool:
            await self.poll(tables)
            return all(table.version > 0 for table in tables)

        await eventually(begun, within=within, what="every table's game under way")
        await asyncio.sleep(played)  # play on for a while: this wait is the point
        await self.poll(tables)

    async def wait_finished(self, tables: Sequence[TableProgress], *, within: float,
                            stall: float, after: str, since: float | None = None) -> float:
        """Seconds until every table's game ended.  AssertionError naming each
        unfinished table if one saw no new event for ``stall`` seconds (counted
        from its last event, or from ``since`` if later), or ``within``
        seconds pass."""
        started = time.monotonic()
        since = started if since is None else since
        while True:
            await self.poll(tables)
            now = time.monotonic()
            waiting = [t for t in tables if not t.over]
            if not waiting:
                return now - started
            stuck = [t for t in waiting if now - max(t.changed_at, since) > stall]
            if stuck or now - started > within:
                lines = [
                    f"table {t.table_id} stuck at game {t.game} version {t.version} "
                    f"(last event {t.last_type}) for {now - max(t.changed_at, since):.0f} s"
                    for t in waiting
                ]
                reason = (f"no new event for {stall:.0f} s" if stuck
                          else f"not over within {within:.0f} s")
                raise AssertionError(
                    f"{len(waiting)} of {len(tables)} tables did not finish {after} "
                    f"({reason}):\n  " + "\n  ".join(lines)
                )
            await asyncio.sleep(POLL_EVERY)

    async def checked_game(self, table_id: str, game: int = 1) -> list[RecordedEvent]:
        """The stored game, held to the rules: versions 1..n without a gap, every
        hand dealt fair and every move legal (the replay verifier), ended."""
        recorded = await self.store.read_stream(game_stream(table_id, game))
        versions = [r.stream_version for r in recorded]
        assert versions == list(range(1, len(recorded) + 1)), (
            f"table {table_id} game {game}: versions are not 1..{len(recorded)}: "
            f"{_gaps(versions)}"
        )
        verdict = verify_game([StoredEvent(r.stream_version, r.event()) for r in recorded])
        assert verdict.ok, f"table {table_id} game {game} fails verification: {verdict.problems}"
        assert recorded and recorded[-1].event_type == "GameEnded", (
            f"table {table_id} game {game} is not over: last event "
            f"{recorded[-1].event_type if recorded else 'none'}"
        )
        # The table whole, once its last hand is sealed (the table's next step
        # after the game's end): every stream as appended, every seal signed
        # and matching its game, whatever was killed or paused meanwhile.
        async def sealed_and_verified() -> TableVerdict | None:
            record = await load_table_record(self.store, table_id)
            receipts = [r for r in receipts_of(table_id, record.table_events) if r.game == game]
            if not receipts or receipts[-1].version != versions[-1]:
                return None
            return verify_table(record, await public_keys(self.store.pool))

        whole = await eventually(sealed_and_verified, within=30,
                                 what=f"table {table_id}'s last hand sealed")
        assert whole is not None and whole.ok, f"table {table_id} does not verify whole: {whole}"
        return recorded


def _gaps(versions: list[int]) -> str:
    missing = sorted(set(range(1, max(versions, default=0) + 1)) - set(versions))
    doubled = sorted({v for v in versions if versions.count(v) > 1})
    return f"missing {missing[:10]}, doubled {doubled[:10]}"


@contextlib.asynccontextmanager
async def store_at(database_url: str) -> Any:
    """An EventStore on its own small pool (closed afterwards)."""
    pool: asyncpg.Pool = await create_pool(database_url, max_size=8)
    try:
        yield EventStore(pool)
    finally:
        await pool.close()


# ---------------------------------------------------------------- PostgreSQL's processes


def postgres_pids(pgdata: Path) -> list[int]:
    """The postmaster (from ``postmaster.pid``) and every process it started."""
    postmaster = int((pgdata / "postmaster.pid").read_text().split()[0])
    children = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # gone meanwhile
        # pid (comm) state ppid ...: comm may hold spaces and parentheses.
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == postmaster:
            children.append(int(entry.name))
    return [postmaster, *children]


def signal_all(pids: Iterable[int], signum: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signum)


def freeze_postgres(pgdata: Path, stopped: list[int]) -> None:
    """SIGSTOP the postmaster first (it starts nothing new while stopped), then
    every child; each pid goes into ``stopped`` as it is stopped, so that a
    ``finally: thaw(stopped)`` wakes every one even if this fails half-way."""
    for _ in range(3):  # a child started while we looked is caught next round
        fresh = [pid for pid in postgres_pids(pgdata) if pid not in stopped]
        if not fresh:
            break
        for pid in fresh:
            stopped.append(pid)
            signal_all([pid], signal.SIGSTOP)


def thaw(pids: Iterable[int]) -> None:
    signal_all(pids, signal.SIGCONT)
