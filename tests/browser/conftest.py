"""Real headless Chromium (Debian's, driven by Playwright) against the real
service on real PostgreSQL and NATS.

Chromium is found at MUGGINS_CHROMIUM, else Debian's headless shell
(/usr/bin/chromium-headless-shell), else its whole Chromium.  Without one the
browser tests fail, saying how to install it (`deploy/dev.py test` installs it
first).
Every page's console errors and uncaught exceptions fail the test that saw
them.

One Chromium (and one Playwright driver) per worker serves every browser
test: starting them cost about 1.4 s of CPU and 2.5-5 s per test, the largest
part of most.  So the browser tests share the session's event loop (the
driver's connection belongs to a loop), and so do the fixtures they use.
Each test gets a fresh database and its own service, on the worker's own
port, and browser contexts that are empty when it gets them: kept from
earlier tests (ContextPool), with their cookies, storage, pages and offline
state cleared.  A new context costs about 0.7 s of CPU more than a kept one
(its renderer process and profile), about a sixth of a browser test.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser, async_playwright

from muggins.infra.embedded import EmbeddedNats, EmbeddedPostgres, port_is_free
from tests.support.browser import CHROMIUM_FLAGS, SHARED_LOOP, ContextPool, Pages, chromium_path
from tests.support.servers import fresh_database
from tests.support.service import Running, marked_settings, serve

HERE = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run this folder's tests in the session's event loop (pytest-asyncio's
    documented way), where the shared browser lives."""
    shared_loop = pytest.mark.asyncio(loop_scope=SHARED_LOOP)
    for item in items:
        if HERE in Path(str(item.path)).parents:
            item.add_marker(shared_loop, append=False)


@pytest_asyncio.fixture(scope="session", loop_scope=SHARED_LOOP)
async def browser() -> AsyncIterator[Browser]:
    """The worker's Chromium, for every browser test it runs."""
    executable = chromium_path()
    async with async_playwright() as playwright:
        the_browser = await playwright.chromium.launch(executable_path=executable,
                                                       args=CHROMIUM_FLAGS)
        try:
            yield the_browser
        finally:
            await the_browser.close()


@pytest_asyncio.fixture(loop_scope=SHARED_LOOP)
async def database_url(postgres: EmbeddedPostgres, migrated_template: str
                       ) -> AsyncIterator[str]:
    """tests.support.servers' fresh database, made in the shared loop."""
    async with fresh_database(postgres, migrated_template) as url:
        yield url


@pytest.fixture(scope="session")
def service_port() -> int:
    """The port this worker's browser tests serve on, one test after the
    other: the same origin, so that their browser contexts can be kept.
    Below the ephemeral ports, which the system hands out to other
    processes' connections and free ports (docs/tests.md), above the local
    cluster's (muggins.cluster.local.KEPT_PORTS, up to 32000), and a range
    of its own for each xdist worker (gw0, gw1...), so two workers never
    pick the same one.  (If it is taken all the same, ``serve`` takes a
    free port, and the test's contexts are new.)"""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    lowest_ephemeral = 32_768
    with contextlib.suppress(OSError, ValueError):
        lowest_ephemeral = int(Path("/proc/sys/net/ipv4/ip_local_port_range")
                               .read_text().split()[0])
    first = min(32_050, lowest_ephemeral - 700) + (int(worker) % 12 if worker.isdigit() else 0) * 50
    return next((port for port in range(first, first + 50) if port_is_free(port)), first)


@pytest_asyncio.fixture(scope="session", loop_scope=SHARED_LOOP)
async def context_pool(browser: Browser) -> ContextPool:
    return ContextPool(browser)


@pytest_asyncio.fixture(loop_scope=SHARED_LOOP)
async def service(request: pytest.FixtureRequest, database_url: str,
                  nats_server: EmbeddedNats, service_port: int) -> AsyncIterator[Running]:
    """tests.support.service's service, run in the shared loop, on the worker's port."""
    async with serve(database_url, nats_server.url, port=service_port,
                     **marked_settings(request)) as running:
        yield running


@pytest_asyncio.fixture(loop_scope=SHARED_LOOP)
async def pages(browser: Browser, service: Running,
                context_pool: ContextPool) -> AsyncIterator[Pages]:
    opened = Pages(browser, service.url, context_pool)
    if not browser.is_connected():
        pytest.fail("the worker's Chromium is gone (it crashed in an earlier test)")
    try:
        yield opened
    finally:
        # Close the pages while the service still runs: a page whose
        # server went away logs (expected) connection errors.
        await opened.close()
    unexpected = opened.unexpected_errors()
    assert not unexpected, "console errors:\n" + "\n".join(unexpected)
