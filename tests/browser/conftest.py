"""Real headless Chromium (Debian's, driven by Playwright) against the real
service on real PostgreSQL and NATS.

Chromium is found at MUGGINS_CHROMIUM or /usr/bin/chromium.  Without it the
browser tests fail, saying how to install it (.ci/run installs it first).
Every page's console errors and uncaught exceptions fail the test that saw
them.

One Chromium (and one Playwright driver) per worker serves every browser
test: starting them cost about 1.4 s of CPU and 2.5-5 s per test, the largest
part of most.  So the browser tests share the session's event loop (the
driver's connection belongs to a loop), and so do the fixtures they use;
each test still gets fresh browser contexts, a fresh database and its own
service.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import pytest
import pytest_asyncio
from playwright.async_api import Browser, BrowserContext, Page, async_playwright

from muggins.infra.embedded import EmbeddedNats, EmbeddedPostgres
from tests.support.servers import fresh_database
from tests.support.service import Running, serve

HERE = Path(__file__).parent
#: The loop the browser tests and their fixtures share (see the module's doc).
SHARED_LOOP: Final = "session"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run this folder's tests in the session's event loop (pytest-asyncio's
    documented way), where the shared browser lives."""
    shared_loop = pytest.mark.asyncio(loop_scope=SHARED_LOOP)
    for item in items:
        if HERE in Path(str(item.path)).parents:
            item.add_marker(shared_loop, append=False)

#: Flags for a closed network and a root user (the CI container).
CHROMIUM_FLAGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage",
]


def chromium_path() -> str:
    path = os.environ.get("MUGGINS_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        pytest.fail(f"Chromium not found at {path}: install Debian's chromium "
                    "(apt-get install chromium) or set MUGGINS_CHROMIUM")
    return path


@dataclass
class Pages:
    """Opens pages in fresh browser contexts and collects their console errors."""

    browser: Browser
    base_url: str
    errors: list[str] = field(default_factory=list)
    contexts: list[BrowserContext] = field(default_factory=list)
    #: Console errors a test provokes on purpose (e.g. asking for what is not there).
    expected: list[re.Pattern[str]] = field(default_factory=list)

    def expect_error(self, pattern: str) -> None:
        self.expected.append(re.compile(pattern))

    def unexpected_errors(self) -> list[str]:
        return [e for e in self.errors if not any(p.search(e) for p in self.expected)]

    async def open(self, path: str, *, locale: str = "en-GB",
                   width: int = 1280, height: int = 900,
                   before: Callable[[Page], object] | None = None,
                   **context_options: Any) -> Page:
        context = await self.browser.new_context(base_url=self.base_url, locale=locale,
                                                 viewport={"width": width, "height": height},
                                                 **context_options)
        self.contexts.append(context)
        page = await context.new_page()
        page.on("console", lambda message: self.errors.append(f"{page.url}: {message.text}")
                if message.type == "error" else None)
        page.on("pageerror", lambda error: self.errors.append(f"{page.url}: {error}"))
        if before is not None:
            result = before(page)
            if hasattr(result, "__await__"):
                await result
        await page.goto(path)
        return page

    async def close(self) -> None:
        for context in self.contexts:
            await context.close()


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


@pytest_asyncio.fixture(loop_scope=SHARED_LOOP)
async def service(database_url: str, nats_server: EmbeddedNats) -> AsyncIterator[Running]:
    """tests.support.service's service, run in the shared loop."""
    async with serve(database_url, nats_server.url) as running:
        yield running


@pytest_asyncio.fixture(loop_scope=SHARED_LOOP)
async def pages(browser: Browser, service: Running) -> AsyncIterator[Pages]:
    opened = Pages(browser, service.url)
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


__all__ = ["EmbeddedNats", "Pages", "Running", "serve"]
