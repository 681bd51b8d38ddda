"""The table service as an ASGI app: routes, lifespan, health and metrics.

``create_app(settings, options)`` wires everything through muggins.bootstrap
(the infrastructure) and muggins.tables.service (the table service's
objects), STYLE.md 7; nothing happens at import time.  The lifespan only
starts them in the background (muggins.tables.startup): the app answers
``/healthz`` and ``/readyz`` from the first second, and 503 ``starting``
elsewhere until they are up.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import structlog
from litestar import Litestar, Request, Response, get
from litestar.datastructures import State
from litestar.exceptions import HTTPException, WebSocketDisconnect
from litestar.middleware.rate_limit import RateLimitConfig
from litestar.openapi import OpenAPIConfig
from litestar.status_codes import HTTP_400_BAD_REQUEST, HTTP_503_SERVICE_UNAVAILABLE
from litestar.types import ControllerRouterHandler, Scope
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from muggins.bootstrap import Infrastructure
from muggins.client.pages import client_routes
from muggins.domain.streams import NoSuchHand, NoSuchTable
from muggins.infra.settings import Settings
from muggins.replay.record import HandInPlay
from muggins.tables import http
from muggins.tables.client_address import TRUSTED_PROXIES, client_address
from muggins.tables.correlation import correlation_middleware
from muggins.tables.errors import TRANSIENT, HandNotFound, HandNotOver, TableNotFound
from muggins.tables.evidence_http import EVIDENCE_READERS, EVIDENCE_WRITERS
from muggins.tables.metrics import refresh as metrics_from_database
from muggins.tables.play_socket import play_socket
from muggins.tables.protocol import Health
from muggins.tables.runtime import ServiceOptions
from muggins.tables.startup import Startup, starting_guard
from muggins.tables.watch import table_events, watch_socket

MAX_BODY_BYTES = 64 * 1024
log = structlog.get_logger(__name__)


def startup_of(request: Request) -> Startup:  # type: ignore[type-arg]
    return request.app.state.startup  # type: ignore[no-any-return]


@get("/healthz", summary="The process is alive",
     description="200 while it lives, starting or not; 503 once a failure no waiting "
                 "mends stopped it (``failed`` says which).")
async def healthz(request: Request) -> Response[Health]:  # type: ignore[type-arg]
    failure = startup_of(request).failure
    if failure is not None:
        return Response(Health("failed", failed=failure),
                        status_code=HTTP_503_SERVICE_UNAVAILABLE)
    return Response(Health("ok"))


@get("/readyz", summary="PostgreSQL and NATS are reachable",
     description="503 while the service starts (``waiting_for`` says what for) or when "
                 "PostgreSQL or NATS does not answer (their fields say which).")
async def readyz(request: Request) -> Response[Health]:  # type: ignore[type-arg]
    startup = startup_of(request)
    if startup.failure is not None:
        return Response(Health("failed", failed=startup.failure),
                        status_code=HTTP_503_SERVICE_UNAVAILABLE)
    if startup.runtime is None:
        return Response(Health("not ready", waiting_for=startup.waiting_for),
                        status_code=HTTP_503_SERVICE_UNAVAILABLE)
    infra = startup.runtime.infra
    postgres = "ok"
    try:
        async with asyncio.timeout(2):
            await infra.pool.fetchval("SELECT 1")
    except Exception as error:  # any failure means not ready
        postgres = f"unavailable: {error or 'no answer within 2 s'}"
    nats = "ok" if infra.bus.is_connected else "unavailable: disconnected"
    ready = postgres == "ok" and nats == "ok"
    return Response(
        Health("ready" if ready else "not ready", postgres, nats),
        status_code=200 if ready else HTTP_503_SERVICE_UNAVAILABLE,
    )


@get("/metrics", summary="Prometheus metrics", media_type="text/plain; version=0.0.4")
async def metrics(request: Request) -> Response[bytes]:  # type: ignore[type-arg]
    runtime = startup_of(request).runtime
    if runtime is None:  # starting: the process's own counters (retries) only
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)
    try:
        async with asyncio.timeout(2):
            await metrics_from_database(runtime.infra.store)
    except TRANSIENT as error:  # the gauges keep their last values; the rest still counts
        log.info("metrics could not read the database", error=repr(error))
    except Exception as error:  # a bug: loud, but the counters are still served
        log.error("metrics could not be read", error=repr(error), exc_info=error)
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)


async def log_bug(error: BaseException, scope: Scope) -> None:
    """Every exception a request or a socket ends with that is neither a
    refusal (4xx, or a deliberate 503) nor an outage: a bug, logged with its traceback and
    answered 500 (litestar's own logging is off: logs go through
    muggins.infra.logs), so that none passes silently."""
    if isinstance(error, HTTPException) and (error.status_code < 500
                                             or error.status_code == 503):
        return  # a refusal, or "unavailable, try again" said on purpose
    if isinstance(error, (*TRANSIENT, RecursionError, WebSocketDisconnect, NoSuchTable,
                          NoSuchHand, HandInPlay)):
        return  # an outage, an id of no table or hand, a hand still played: 503, 404, 409
    log.error("a request failed with an error that is not an outage", path=scope.get("path"),
              error=repr(error), exc_info=error)


def create_app(
    settings: Settings,
    options: ServiceOptions | None = None,
    infra: Infrastructure | None = None,
    *,
    on_failure: Callable[[BaseException], None] | None = None,
) -> Litestar:
    """The table service: on ``infra`` if given (tests; its settings), else on
    what ``settings`` names, waited for.  ``on_failure`` hears of a failure
    no waiting mends (``muggins serve`` stops then)."""
    startup = Startup(settings, options or ServiceOptions(), infra, on_failure)

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        startup.start(app)
        try:
            yield
        finally:
            await startup.stop()

    def too_deep(request: Request, error: RecursionError) -> Response[dict[str, object]]:  # type: ignore[type-arg]
        return Response({"status_code": 400, "detail": "the request body is nested too deeply",
                         "code": "bad-request"}, status_code=HTTP_400_BAD_REQUEST)

    def refused(request: Request, error: HTTPException) -> Response[dict[str, object]]:  # type: ignore[type-arg]
        """Every refusal as {status_code, detail, code}: the code stable for
        clients; a spent budget's also with retry_after (seconds)."""
        body: dict[str, object] = {"status_code": error.status_code, "detail": error.detail}
        extra = error.extra if isinstance(error.extra, dict) else {}
        body["code"] = extra.get("code") or _code_for(error.status_code)
        if "retry_after" in extra:
            body["retry_after"] = extra["retry_after"]
        if isinstance(error.extra, list):  # what a validation error found, field by field
            body["extra"] = error.extra
        return Response(body, status_code=error.status_code, headers=error.headers)

    def no_such_table(request: Request, error: NoSuchTable) -> Response[dict[str, object]]:  # type: ignore[type-arg]
        """An id no table has (not of the table id format, or of a table never
        made), wherever it came in."""
        return refused(request, http.refused(TableNotFound(str(error))))

    def no_such_hand(request: Request, error: NoSuchHand) -> Response[dict[str, object]]:  # type: ignore[type-arg]
        return refused(request, http.refused(HandNotFound(str(error))))

    def hand_in_play(request: Request, error: HandInPlay) -> Response[dict[str, object]]:  # type: ignore[type-arg]
        """A hand's record asked for while it is played (its replay, its analysis)."""
        return refused(request, http.refused(HandNotOver(str(error))))

    def unavailable(request: Request, error: Exception) -> Response[dict[str, object]]:  # type: ignore[type-arg]
        """The database (or the bus) away for a moment: a 503 to try again, not a 500."""
        log.warning("a request met an outage", path=request.url.path, error=repr(error))
        return Response({"status_code": 503, "code": "unavailable",
                         "detail": "the service cannot reach its database just now: try again"},
                        status_code=HTTP_503_SERVICE_UNAVAILABLE, headers={"Retry-After": "2"})

    # Coroutines, though they only compare: litestar runs a plain function
    # given as a quota's check in its thread pool, on every request (two
    # hand-offs to a thread a request, one a quota).
    async def creates_a_table(request: Request) -> bool:  # type: ignore[type-arg]
        return request.method == "POST" and request.url.path == "/tables"

    async def rotates_a_secret(request: Request) -> bool:  # type: ignore[type-arg]
        path = request.url.path
        return request.method == "POST" and path.startswith("/players/") and \
            path.endswith("/secret")

    # Per address (as muggins.tables.client_address names it) and per process;
    # each quota counts in a store of its own.
    table_quota = RateLimitConfig(rate_limit=("minute", settings.tables_per_minute),
                                  check_throttle_handler=creates_a_table,
                                  identifier_for_request=client_address)
    rotation_quota = RateLimitConfig(
        rate_limit=("minute", settings.secret_rotations_per_minute),
        check_throttle_handler=rotates_a_secret, identifier_for_request=client_address,
        store="secret_rotations")

    readers: list[ControllerRouterHandler] = [
        http.get_table, http.table_seating, healthz, readyz, watch_socket, table_events,
        http.lobby, http.table_view, http.leaderboard, http.game_ratings, metrics,
        http.hand_analysis,
        *EVIDENCE_READERS,
    ]
    players: list[ControllerRouterHandler] = [http.create_table, http.take_seat,
                                              http.rotate_secret, play_socket,
                                              *EVIDENCE_WRITERS]
    return Litestar(
        route_handlers=readers + (players if settings.role == "all" else [])
        + client_routes(),
        after_exception=[log_bug],
        exception_handlers={RecursionError: too_deep, HTTPException: refused,
                            NoSuchTable: no_such_table, NoSuchHand: no_such_hand,
                            HandInPlay: hand_in_play,
                            **dict.fromkeys(TRANSIENT, unavailable)},
        lifespan=[lifespan],
        state=State({"startup": startup, TRUSTED_PROXIES: settings.trusted_proxy_networks}),
        middleware=[starting_guard(startup), correlation_middleware, table_quota.middleware,
                    rotation_quota.middleware],
        request_max_body_size=MAX_BODY_BYTES,
        # Logs go through muggins.infra.logs (JSON lines), not a configuration of its own.
        logging_config=None,
        openapi_config=OpenAPIConfig(title="muggins", version="0.1.0", path="/schema"),
        debug=False,
    )


def _code_for(status: int) -> str:
    return {400: "bad-request", 401: "unauthorized", 403: "forbidden", 404: "not-found",
            405: "method-not-allowed", 409: "conflict", 413: "too-large",
            429: "rate-limited"}.get(status, "refused")
