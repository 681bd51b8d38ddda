"""The real table service (uvicorn, litestar) on real PostgreSQL and NATS, in
the test's own process: ``serve`` for a test that sets it up its own way, the
``service`` fixture for the rest (a pytest plugin: tests/conftest.py)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass
from types import FrameType
from typing import Any

import httpx
import pytest
import uvicorn
from litestar import Litestar

from muggins.bootstrap import Infrastructure, infrastructure
from muggins.infra.database_roles import OWNER_ROLE, SERVICE_ROLE
from muggins.infra.embedded import EmbeddedNats
from muggins.infra.settings import Settings
from muggins.tables.app import create_app
from muggins.tables.runtime import Runtime, ServiceOptions
from muggins.tables.websocket_protocol import WebSocketProtocol
from tests.support.clients import loopback_http
from tests.support.servers import role_url


@dataclass
class Running:
    url: str
    http: httpx.AsyncClient
    #: The servers and connections the service runs on (for tests that break them).
    infra: Infrastructure
    #: The app, whose state holds the table service's objects (for tests that look inside).
    app: Litestar

    @property
    def runtime(self) -> Runtime:
        return self.app.state.runtime  # type: ignore[no-any-return]

    @property
    def ws_url(self) -> str:
        return self.url.replace("http", "ws", 1)


class PromptServer(uvicorn.Server):
    """uvicorn's server, stopped as soon as ``stop`` is called.  uvicorn
    itself looks at ``should_exit`` every 0.1 s and, stopping, sleeps 0.1 s
    before it waits (0.1 s at a time) for its connections to close: 0.19 s
    of every test's teardown, about 250 times a run.  Here the main loop
    wakes when told (or at a signal uvicorn handles), and the shutdown takes
    uvicorn's steps (as of uvicorn 0.55: its ``shutdown`` and
    ``_wait_tasks_to_complete``) with a 5 ms poll instead of those sleeps.
    Every test with a service in its own process stops through here, so a
    uvicorn that changed what these steps use fails them all at once.  A
    service started by ``muggins serve`` (the fault and cluster tests')
    stops as uvicorn's does."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self._stopping = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None

    def stop(self) -> None:
        self.should_exit = True
        self._stopping.set()

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        super().handle_exit(sig, frame)
        if self._loop is not None:  # a signal handler: the loop's own thread, between steps
            self._loop.call_soon_threadsafe(self._stopping.set)

    async def main_loop(self) -> None:
        self._loop = asyncio.get_running_loop()
        ticks = 0
        # on_tick renews the Date header each tenth tick: here each second.
        while not await self.on_tick(ticks):
            ticks += 10
            # asyncio.timeout, not wait_for: on 3.11 wait_for can drop a
            # cancel, and this loop would outlive its task's.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(1.0):
                    await self._stopping.wait()

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        for connection in list(self.server_state.connections):
            connection.shutdown()
        try:
            async with asyncio.timeout(self.config.timeout_graceful_shutdown):
                while ((self.server_state.connections or self.server_state.tasks)
                       and not self.force_exit):
                    await asyncio.sleep(0.005)
                for server in self.servers:
                    await server.wait_closed()
        except TimeoutError:
            for task in self.server_state.tasks:
                task.cancel(msg="Task cancelled, timeout graceful shutdown exceeded")
        if not self.force_exit:
            await self.lifespan.shutdown()


#: The settings every test service has (beyond its servers): no pauses, no
#: per-address quotas, one bot worker.  ``serve(..., name=value)`` changes one.
FAST_SETTINGS: dict[str, Any] = dict(
    bot_delay=0.0, hand_pause=0.0, expert_budget_ms=20, bot_workers=1, grace_period=30.0,
    tables_per_minute=10_000, sockets_per_address=10_000, sockets_per_minute=100_000,
    penalty_seconds=0.0,
    secret_rotations_per_minute=10_000,
)
#: Commands as fast as a test sends them.
FAST = ServiceOptions(commands_per_second=1000, command_burst=1000, warm_workers=False)


@contextlib.asynccontextmanager
async def serve(url_of_database: str, nats_url: str, options: ServiceOptions = FAST,
                *, port: int | None = None, **settings: Any) -> AsyncIterator[Running]:
    """The service on the database of ``url_of_database`` (any role's URL), as a
    deployment runs it: connected as the service's role, migrating as the owner's;
    FAST_SETTINGS with ``settings`` on top.  Yielded once it is ready.

    ``port``: the one to listen on if it is free (the browser tests keep one
    per worker, so that their browser contexts outlive a test); otherwise,
    and by default, any free port."""
    async with contextlib.AsyncExitStack() as stack:
        listening = bound_socket(port)
        stack.callback(listening.close)  # (uvicorn closes it too, once it served)
        port = listening.getsockname()[1]
        url = f"http://127.0.0.1:{port}"
        the_settings = Settings(database_url=role_url(url_of_database, SERVICE_ROLE),
                                migration_database_url=role_url(url_of_database, OWNER_ROLE),
                                nats_url=nats_url, log_level="warning", public_url=url,
                                **{**FAST_SETTINGS, **settings})
        infra = await stack.enter_async_context(infrastructure(the_settings))
        app = create_app(the_settings, options, infra)
        # proxy_headers=False as `muggins serve`: the app alone decides who the client is.
        config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                lifespan="on", ws=WebSocketProtocol, ws_max_size=64 * 1024,
                                proxy_headers=False,
                                # A test's client may sit idle past uvicorn's 5 s while
                                # a game plays: a keep-alive closed under its next
                                # request would fail that request (seen under load).
                                timeout_keep_alive=120)
        server = PromptServer(config)
        task = asyncio.create_task(_serving(server, listening))
        listening_by = asyncio.get_running_loop().time() + 30
        while not server.started:
            if task.done():
                task.result()
                raise AssertionError(f"uvicorn stopped before it listened on port {port}")
            if asyncio.get_running_loop().time() > listening_by:
                server.stop()
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(task, 15)
                raise AssertionError(f"uvicorn was not listening on port {port} within 30 s")
            await asyncio.sleep(0.02)
        try:
            async with loopback_http(base_url=url, timeout=10) as http:
                await _ready(http)
                yield Running(url, http, infra, app)
        finally:
            server.stop()
            await asyncio.wait_for(task, 15)


def bound_socket(port: int | None) -> socket.socket:
    """A socket bound on 127.0.0.1:``port`` if it can be had, else on any free
    port, for uvicorn to serve on.  Bound here rather than by uvicorn once
    the app is made: a port found free and bound later can be taken in
    between (seen: two runs of the browser tests on one machine, each on
    the other's port), and uvicorn's failure to bind ends its process with
    SystemExit, which broke the worker's shared event loop for every test
    after it."""
    if port:
        with contextlib.suppress(OSError):
            return _listening_on(port)
    return _listening_on(0)  # (its OSError, if any, is the test's error)


def _listening_on(port: int) -> socket.socket:
    # IPPROTO_TCP said, not left 0: asyncio sets TCP_NODELAY only on a
    # socket whose protocol says TCP (base_events._set_nodelay), and without
    # it a response written in two parts waited for the client's delayed
    # ACK (Nagle): 40 ms on most requests.
    listening = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        # As uvicorn binds: a port a closed server left in TIME_WAIT is free.
        listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listening.bind(("127.0.0.1", port))
        # Listening at once: Linux lets another SO_REUSEADDR socket bind a
        # port bound but not yet listened on, and then one listen fails.
        listening.listen(2048)
    except OSError:
        listening.close()
        raise
    return listening


async def _serving(server: PromptServer, listening: socket.socket) -> None:
    """uvicorn's serve on ``listening``.  uvicorn ends its process
    (``sys.exit``) when the app's startup fails; in a task, SystemExit
    escapes the event loop, the worker's shared one, and every later test
    of the worker fails.  Here it is the test's error."""
    try:
        await server.serve(sockets=[listening])
    except SystemExit as exit_:
        raise RuntimeError(f"uvicorn gave up starting (exit status {exit_.code})") from None


async def _ready(http: httpx.AsyncClient, timeout: float = 30.0) -> None:
    """Until /readyz answers 200 (the table service comes up in the background)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while (answer := await http.get("/readyz")).status_code != 200:
        assert asyncio.get_running_loop().time() < deadline, f"not ready: {answer.text}"
        await asyncio.sleep(0.02)


def marked_settings(request: pytest.FixtureRequest) -> dict[str, Any]:
    """The settings a test's ``service_settings(name=value, ...)`` marker
    asks of its service, on top of FAST_SETTINGS."""
    marker = request.node.get_closest_marker("service_settings")
    if marker is None:
        return {}
    assert not marker.args and "port" not in marker.kwargs, \
        "service_settings takes settings by name (the port is the fixture's)"
    return dict(marker.kwargs)


@pytest.fixture
async def service(
    request: pytest.FixtureRequest, database_url: str, nats_server: EmbeddedNats
) -> AsyncIterator[Running]:
    async with serve(database_url, nats_server.url, **marked_settings(request)) as running:
        yield running
