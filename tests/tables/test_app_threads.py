"""Nothing on a request's path waits for a thread: litestar runs a plain
function it is given as a guard, a quota's check or a route handler in its
thread pool, a hand-off to a thread and back on every request it applies
to (the two quotas' checks were, until 2026-12-05: two a request)."""

from __future__ import annotations

import inspect

from litestar.middleware.base import DefineMiddleware
from litestar.middleware.rate_limit import RateLimitMiddleware

from muggins.infra.settings import Settings
from muggins.tables.app import create_app


def the_app_as_served() -> object:
    # Made, not started: nothing here connects to the servers it names.
    return create_app(Settings(database_url="postgresql://nobody@127.0.0.1:1/none",
                               nats_url="nats://127.0.0.1:1"))


def test_every_guard_and_handler_is_a_coroutine_or_runs_in_the_loop() -> None:
    app = the_app_as_served()
    in_threads = []
    handlers = [(route.path, handler) for route in app.routes  # type: ignore[attr-defined]
                for handler in getattr(route, "route_handlers", None) or [route.route_handler]]
    assert len(handlers) > 40
    for path, handler in handlers:
        for guard in handler.resolve_guards():
            if not inspect.iscoroutinefunction(guard):
                in_threads.append(f"{path}: guard {guard.__name__}")
        sync = getattr(handler, "has_sync_callable", False)  # (not on a socket's handler)
        if sync and getattr(handler, "sync_to_thread", False):
            in_threads.append(f"{path}: handler {handler.handler_name}")
    assert not in_threads, in_threads


def test_the_quotas_checks_are_coroutines() -> None:
    app = the_app_as_served()
    quotas = [middleware.kwargs["config"] for middleware in app.middleware  # type: ignore[attr-defined]
              if isinstance(middleware, DefineMiddleware)
              and middleware.middleware is RateLimitMiddleware]
    assert len(quotas) == 2
    for quota in quotas:
        assert inspect.iscoroutinefunction(quota.check_throttle_handler), quota
