"""No guard, quota check or route handler of ours waits for a thread:
litestar runs a plain function it is given as one of them in its thread
pool, a hand-off to a thread and back on every request it applies to (the
two quotas' checks were, until 2026-12-05: two a request).  Litestar's own
static files read theirs in a thread, which is not ours to change."""

from __future__ import annotations

import inspect

from litestar import Litestar, get
from litestar.middleware.base import DefineMiddleware
from litestar.middleware.rate_limit import RateLimitMiddleware
from litestar.routes import HTTPRoute
from litestar.utils.sync import AsyncCallable

from muggins.infra.settings import Settings
from muggins.tables.app import create_app


def the_app_as_served() -> Litestar:
    # Made, not started: nothing here connects to the servers it names.
    return create_app(Settings(database_url="postgresql://nobody@127.0.0.1:1/none",
                               nats_url="nats://127.0.0.1:1"))


def in_threads(app: Litestar) -> list[str]:
    """Every guard and route handler of ``app`` that litestar runs in its thread pool."""
    found = []
    handlers = [(route.path, handler) for route in app.routes
                for handler in (route.route_handlers if isinstance(route, HTTPRoute)
                                else [route.route_handler])]
    for path, handler in handlers:
        for guard in handler.resolve_guards():
            if not inspect.iscoroutinefunction(guard):
                plain = getattr(guard, "func", guard)  # (AsyncCallable: wrapped to run in a thread)
                found.append(f"{path}: guard {getattr(plain, '__name__', plain)}")
        # Registered, a plain function to run in a thread is wrapped so.
        if isinstance(handler.fn, AsyncCallable):
            found.append(f"{path}: handler {handler.handler_name}")
    return found


def test_every_guard_and_handler_is_a_coroutine() -> None:
    app = the_app_as_served()
    assert len(app.routes) > 40
    assert in_threads(app) == []


def test_the_check_sees_a_plain_guard_and_a_handler_run_in_a_thread() -> None:
    def plain_guard(connection: object, handler: object) -> None:
        return None

    @get("/plain", guards=[plain_guard], sync_to_thread=True)
    def plain() -> str:
        return "in a thread"

    assert in_threads(Litestar([plain])) == ["/plain: guard plain_guard", "/plain: handler plain"]


def test_the_quotas_checks_are_coroutines() -> None:
    app = the_app_as_served()
    quotas = [middleware.kwargs["config"] for middleware in app.middleware
              if isinstance(middleware, DefineMiddleware)
              and middleware.middleware is RateLimitMiddleware]
    assert len(quotas) == 2
    for quota in quotas:
        assert inspect.iscoroutinefunction(quota.check_throttle_handler), quota
