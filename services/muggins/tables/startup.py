"""The table service coming up behind an app that already answers.

The app's lifespan starts :class:`Startup` and returns at once, so uvicorn
serves from the first second: ``/healthz`` says the process lives and
``/readyz`` what it waits for (PostgreSQL, NATS, the stream's leader),
while the infrastructure and the table service come up in a background
task that waits out their servers (muggins.bootstrap).  Until the runtime
is there, :func:`starting_guard` answers every other request 503
``starting`` (a socket: closed with 1013), in one place for every route.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

import structlog
from litestar import Litestar
from litestar.enums import ScopeType
from litestar.types import (
    ASGIApp,
    HTTPResponseBodyEvent,
    HTTPResponseStartEvent,
    Receive,
    Scope,
    Send,
    WebSocketAcceptEvent,
    WebSocketCloseEvent,
    WebSocketSendEvent,
)

from muggins.bootstrap import Infrastructure, infrastructure
from muggins.infra.retry import LOGGED_NOTE, Stopped
from muggins.infra.settings import Settings
from muggins.tables.protocol import ErrorMessage, encode
from muggins.tables.runtime import Runtime, ServiceOptions
from muggins.tables.service import table_service

log = structlog.get_logger(__name__)

#: Paths answered while the service starts: they say how it is doing.
ALWAYS_ANSWERED = frozenset({"/healthz", "/readyz", "/metrics"})
#: Seconds a client is told to wait before trying again while it starts.
RETRY_AFTER = 2
#: Seconds a running service has to wind down before its tasks are cancelled.
SHUTDOWN_TIMEOUT = 30.0


class Startup:
    """The service's way up: what it waits for, then its runtime, or what
    stopped it.  ``on_failure`` hears of a failure no waiting mends (at
    start, or a background loop ended by a bug): ``muggins serve`` stops."""

    def __init__(self, settings: Settings, options: ServiceOptions,
                 infra: Infrastructure | None = None,
                 on_failure: Callable[[BaseException], None] | None = None) -> None:
        self.settings = settings
        self.options = options
        self._infra = infra
        self._on_failure = on_failure
        #: What it waits for now (None once it waits for nothing).
        self.waiting_for: str | None = "the service to start"
        #: Everything handlers use, once it is up.
        self.runtime: Runtime | None = None
        #: What stopped it for good ("relay: ProgrammingError: ..."), if anything did.
        self.failure: str | None = None
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self, app: Litestar) -> None:
        """Bring the service up in the background (the app answers meanwhile)."""
        self._task = asyncio.get_running_loop().create_task(self._run(app), name="startup")

    async def stop(self) -> None:
        """Wind the service down: at once while it still waits (nothing is
        running to finish), else its sockets closed and its loops stopped."""
        self._stop.set()
        task, self._task = self._task, None
        if task is None:
            return
        if self.runtime is None:
            task.cancel()
        try:
            async with asyncio.timeout(SHUTDOWN_TIMEOUT):
                await asyncio.wait([task])
        except TimeoutError:
            log.warning("the service did not stop in time; cancelling what is left")
            task.cancel()
            await asyncio.wait([task])

    def _waiting(self, what: str | None) -> None:
        self.waiting_for = what

    async def _run(self, app: Litestar) -> None:
        try:
            async with contextlib.AsyncExitStack() as stack:
                infra = self._infra
                if infra is None:
                    infra = await stack.enter_async_context(infrastructure(
                        self.settings, stop=self._stop, waiting=self._waiting))
                infra.tasks.on_failure(self._loop_failed)
                runtime = await stack.enter_async_context(table_service(infra, self.options))
                app.state.runtime = self.runtime = runtime
                self.waiting_for = None
                log.info("the table service is ready", role=self.settings.role)
                await self._stop.wait()
        except Stopped:
            log.info("stopped while waiting", waiting_for=self.waiting_for)
        except Exception as error:
            self._failed("stop" if self.runtime is not None else "start", error)

    def _loop_failed(self, name: str, error: BaseException) -> None:
        # muggins.infra.background has logged it, with its traceback.
        self.failure = self.failure or f"{name}: {type(error).__name__}: {error}"
        if self._on_failure is not None:
            self._on_failure(error)

    def _failed(self, when: str, error: BaseException) -> None:
        self.failure = self.failure or f"{when}: {type(error).__name__}: {error}"
        traced = LOGGED_NOTE in getattr(error, "__notes__", ())
        log.error(f"the table service failed to {when}", error=repr(error),
                  exc_info=None if traced else error)
        if self._on_failure is not None:
            self._on_failure(error)


def starting_guard(startup: Startup) -> Callable[[ASGIApp], ASGIApp]:
    """Middleware: until ``startup`` has a runtime, every request but
    ALWAYS_ANSWERED gets 503 ``starting`` with Retry-After, and every socket
    an error ``starting`` and a close with 1013 ("try again later")."""

    def guard(app: ASGIApp) -> ASGIApp:
        async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
            if (startup.runtime is not None or scope["type"] not in ("http", "websocket")
                    or scope.get("path") in ALWAYS_ANSWERED):
                await app(scope, receive, send)
                return
            reason = (f"the service failed: {startup.failure}" if startup.failure
                      else f"the service is starting: waiting for {startup.waiting_for}")
            if scope["type"] == ScopeType.WEBSOCKET:
                await _refuse_socket(receive, send, reason)
            else:
                await _refuse_request(send, reason)

        return guarded

    return guard


async def _refuse_request(send: Send, reason: str) -> None:
    body = encode({"status_code": 503, "code": "starting", "detail": reason})
    start: HTTPResponseStartEvent = {"type": "http.response.start", "status": 503, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
        (b"retry-after", str(RETRY_AFTER).encode())]}
    await send(start)
    whole: HTTPResponseBodyEvent = {"type": "http.response.body", "body": body,
                                    "more_body": False}
    await send(whole)


async def _refuse_socket(receive: Receive, send: Send, reason: str) -> None:
    """Like every socket refusal (muggins.tables.http.refuse_socket): accepted,
    told why in an error message, closed; 1013 says "try again later"."""
    if (await receive())["type"] != "websocket.connect":
        return
    accept: WebSocketAcceptEvent = {"type": "websocket.accept", "subprotocol": None,
                                    "headers": []}
    await send(accept)
    told: WebSocketSendEvent = {"type": "websocket.send", "bytes": None,
                                "text": encode(ErrorMessage("starting", reason)).decode()}
    await send(told)
    close: WebSocketCloseEvent = {"type": "websocket.close", "code": 1013,
                                  "reason": "the service is starting"}
    await send(close)
