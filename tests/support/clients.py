"""Clients of a service on loopback: its HTTP (``loopback_http``) and a
scripted player over a real WebSocket (``SeatClient``)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections import deque
from typing import Any

import httpx
import msgspec
import websockets


def loopback_http(base_url: str = "", **options: Any) -> httpx.AsyncClient:
    """An HTTP client of a service the tests started, on loopback: plain
    HTTP, so no CA bundle loaded.  httpx's default loads the system's for
    every client: 21 ms of CPU a client (2026-12-05), and
    clients made in polling loops took about 15 core-seconds a run."""
    return httpx.AsyncClient(base_url=_plain(base_url), verify=False, **options)


def loopback_http_sync(base_url: str = "", **options: Any) -> httpx.Client:
    """``loopback_http`` for code that does not run in an event loop."""
    return httpx.Client(base_url=_plain(base_url), verify=False, **options)


def _plain(base_url: str) -> str:
    """``base_url``, which must be plain HTTP: these clients check no certificate."""
    assert not base_url or base_url.startswith("http://"), base_url
    return base_url


def loopback_transport(**options: Any) -> httpx.AsyncHTTPTransport:
    """A transport of its own (a local address, say), as ``loopback_http``'s."""
    return httpx.AsyncHTTPTransport(verify=False, **options)


def unpacked(data: Any) -> list[dict[str, Any]]:
    """The messages in what a socket sent: a spectator's frame may hold
    several, as a JSON array (docs/service.md, "Spectators")."""
    return data if isinstance(data, list) else [data]


async def next_message(ws: Any, waiting: deque[dict[str, Any]], timeout: float = 10
                       ) -> dict[str, Any]:
    """The next message of ``ws``: first what ``waiting`` holds of a frame read before.
    (Decoded by msgspec: the standard library's json decoder was the largest
    part of the tests' own CPU where two hundred spectators read a game.)"""
    while not waiting:
        waiting.extend(unpacked(msgspec.json.decode(await asyncio.wait_for(ws.recv(), timeout))))
    return waiting.popleft()


class SeatClient:
    def __init__(self, ws: Any, seat: int) -> None:
        self.ws = ws
        self.seat = seat
        self.messages: list[dict[str, Any]] = []
        self.version = 0
        self.game = 0
        self.view: dict[str, Any] | None = None
        self.errors: list[dict[str, Any]] = []
        #: The (game, version) of the view last played from.
        self.played_at = (-1, -1)
        self.waiting: deque[dict[str, Any]] = deque()

    @classmethod
    async def connect(cls, ws_url: str, table_id: str, token: str, since: int | None = None
                      ) -> SeatClient:
        ws = await websockets.connect(f"{ws_url}/tables/{table_id}/play", max_size=2**20)
        hello: dict[str, Any] = {"type": "hello", "token": token}
        if since is not None:
            hello["since"] = since
        await ws.send(json.dumps(hello))
        client = cls(ws, -1)
        welcome = await client.receive()
        assert welcome["type"] == "welcome", welcome
        client.seat = welcome["seat"]
        return client

    async def receive(self, timeout: float = 10) -> dict[str, Any]:
        message = await next_message(self.ws, self.waiting, timeout)
        self.messages.append(message)
        kind = message["type"]
        if kind in ("welcome", "view"):
            if message.get("view") is not None or kind == "view":
                self.view = message.get("view")
            self.version = message["version"]
            self.game = message["game"]
        elif kind == "event":
            assert message["version"] == self.version + 1 or self.game != message["game"], (
                f"gap: at {self.version}, got {message['version']}"
            )
            self.version = message["version"]
        elif kind == "error":
            self.errors.append(message)
        elif kind == "game":
            self.game = message["game"]
            self.version = 0
        return message

    async def until(self, condition: Any, timeout: float = 20) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            message = await self.receive(max(0.1, deadline - time.monotonic()))
            if condition(message):
                return message

    def my_turn(self) -> bool:
        view = self.view
        return bool(view and view["phase"] == "playing" and view["turn"] == self.seat
                    and view["legal"])

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(message))

    def may_play(self) -> bool:
        """The player's turn on the newest view, not yet played from.

        A second play from one view is refused as stale, and so is a play
        from a view that events have passed: the CI run that sent both got
        a ``stale-view`` error where a hint's answer was awaited.
        """
        last = next((m for m in reversed(self.messages)
                     if m["type"] in ("event", "view", "welcome", "game")), None)
        return (self.my_turn() and last is not None and last["type"] in ("view", "welcome")
                and self.played_at < (self.game, self.version))

    async def play_once(self) -> None:
        """The first legal move, once from this view (see ``may_play``)."""
        self.played_at = (self.game, self.version)
        await self.play_first_legal()

    async def play_first_legal(self) -> None:
        assert self.view is not None
        choice = self.view["legal"][0]
        await self.send({"type": "play", "tile": choice["tile"], "end": choice["end"],
                         "known_version": self.version})

    async def play_until_game_over(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.view and self.view["phase"] == "game-over":
                return
            if self.may_play():
                await self.play_once()
            await self.receive(max(0.1, deadline - time.monotonic()))
        raise AssertionError("the game did not end in time")

    async def close(self) -> None:
        await self.ws.close()


def assert_nothing_hidden(messages: list[dict[str, Any]]) -> None:
    """No hand, boneyard tile or seed in anything a spectator got before its hand ended."""
    hand_over = False
    for message in messages:
        if message["type"] in ("view", "welcome") and message.get("view"):
            assert message["view"]["tiles"] is None and message["view"]["seat"] is None
        if message["type"] != "event":
            continue
        event = message["event"]
        if event["type"] == "HandStarted":
            hand_over = False
        elif event["type"] == "HandEnded":
            hand_over = True
        elif event["type"] in ("TilesDealt", "TileDrawn", "BoneyardStacked", "SeedSealed"):
            assert (event.get("tiles") or event.get("tile") or event.get("seed")) is None, event
        if not hand_over:
            assert b'"seed":"' not in msgspec.json.encode(event) or (
                event["type"] == "HandEnded"
            ), event


async def play_until(clients: list[SeatClient], done: Any, within: float = 60) -> None:
    """Each client plays its first legal move on its turn until ``done()``."""
    deadline = asyncio.get_running_loop().time() + within
    while not done():
        assert asyncio.get_running_loop().time() < deadline, "not reached in time"
        for client in clients:
            if client.may_play():
                await client.play_once()
        for client in clients:
            with contextlib.suppress(TimeoutError):
                await client.receive(0.05)


def hands_ended(client: SeatClient) -> int:
    return sum(m["type"] == "event" and m["event"]["type"] == "HandEnded"
               for m in client.messages)


def life_of(client: SeatClient) -> dict[str, Any] | None:
    last = next((m for m in reversed(client.messages)
                 if m["type"] in ("view", "welcome") and m.get("life")), None)
    return last["life"] if last is not None else None
