"""Scripted people at tables over the service's HTTP and WebSocket API, who
reconnect whenever their socket drops, and a fault played through mid-game
(the fault tests, the cluster's tests, bench_restarts).
"""


from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import httpx
import websockets

from muggins.eventstore.records import RecordedEvent
from muggins.eventstore.store import EventStore
from tests.support.clients import SeatClient, loopback_http
from tests.support.store_watch import StoreWatch, TableProgress
from tests.support.waits import eventually

#: Seconds a scripted person waits before connecting again after a drop.
RECONNECT_PAUSE = 0.2


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
                # Refused: nothing changed.  But "unavailable" says only that
                # the store did not answer in time: the append may have landed
                # after all (a fresh-clone run's PostgreSQL, paused, stored a
                # play whose command had timed out), so the play stays in
                # flight until its event shows or another play replaces it
                # (a play sent again from the old view is refused as stale).
                if message.get("code") != "unavailable":
                    self.pending = None
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
        this seat's name that the person did not see confirmed (but the one
        still in flight when it stopped); every event seen is the one stored
        at that version."""
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
        # The play sent last, when the person stopped (at its deadline) before
        # its event came back: stored once or not at all, nothing confirmed is lost.
        in_flight = self.pending if self.pending and self.pending[0] == game else None
        for r in recorded:
            if (r.event_type == "TilePlayed" and r.actor == f"seat:{self.seat}"
                    and r.stream_version not in confirmed_versions
                    and (game, r.stream_version) not in self.unseen):
                tile = tuple(json.loads(bytes(r.payload))["tile"])
                if in_flight and r.stream_version > in_flight[1] and tile == in_flight[2]:
                    in_flight = None
                    continue
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


@dataclass
class PersonAmongBots:
    """Tables made for a fault test: bots' tables, then one where a scripted
    person plays seat 0, already playing until ``deadline``."""

    bot_ids: list[str]
    human: ScriptedHuman
    playing: asyncio.Task[None]

    @property
    def table_ids(self) -> list[str]:
        return [self.human.table_id, *self.bot_ids]


async def bot_tables_then_a_person(http: httpx.AsyncClient, ws_urls: Sequence[str], *,
                                   bot_tables: int, target: int, clock: int,
                                   deadline: float) -> PersonAmongBots:
    """``bot_tables`` tables of two bots, then a table of a person (seated
    as Ana) against a bot, all to ``target``.  The person's table comes last:
    the person answers at once, so that game runs fastest, and it must still
    be under way when the fault lands (StoreWatch.wait_under_way)."""
    bot_ids = [await create_table(http, **bot_table(target)) for _ in range(bot_tables)]
    table_id = await create_table(http, **human_table(target, clock))
    human = ScriptedHuman(ws_urls, table_id, await sit(http, table_id, 0, "Ana"))
    return PersonAmongBots(bot_ids, human, asyncio.create_task(human.run(deadline)))


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
        async with loopback_http(base_url=base_url, timeout=10) as http:
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
        await asyncio.sleep(scenario.play_first)  # the scenario's play before the fault

        async def half_mid_game() -> list[TableProgress] | None:
            # Under a loaded machine some games had not started by then (a
            # full run: 3 of 8 mid-game after 2 s, the rest at version 0):
            # the fault waits for them, not for a longer sleep.
            await watch.poll(tables)
            mid_game = [t for t in tables if not t.over and t.version > 0]
            return mid_game if len(mid_game) >= len(tables) // 2 else None

        await eventually(half_mid_game, within=30, every=0.2,
                         what=f"harness: half of the {len(tables)} tables mid-game at the "
                              "fault (else the games are too short for this machine)")
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

