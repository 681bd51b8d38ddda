"""Driving the real Chromium for the browser tests (tests/browser/,
tests/cluster/): which Chromium and with which flags (``chromium_path``,
``CHROMIUM_FLAGS``), the event loop the browser's tests share
(``SHARED_LOOP``), the worker's kept browser contexts (``ContextPool``) and
``Pages``, which opens pages in them and collects their console errors.
The fixtures that hand these to a test are in tests/browser/conftest.py."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Final

import pytest
from playwright.async_api import Browser, BrowserContext, Page
from playwright.async_api import Error as PlaywrightError

#: The loop the browser tests and their fixtures share: one Chromium and one
#: Playwright driver per worker, whose connection belongs to a loop
#: (tests/browser/conftest.py).
SHARED_LOOP: Final = "session"

#: Flags for a closed network and a root user (the CI container).  Playwright
#: adds ``--headless`` itself.
CHROMIUM_FLAGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage",
]


#: Debian's Chromium without its window system (the classic headless mode):
#: the browser tests took about a quarter less CPU in it than in the whole
#: browser's ``--headless`` (tests/browser, two workers: 257 core-seconds
#: against 332, 2026-12-03), pages and screenshots the same.
HEADLESS_SHELL = "chromium-headless-shell"


def chromium_path() -> str:
    """The Chromium the browser tests drive: ``MUGGINS_CHROMIUM``, else
    Debian's headless shell, else its whole Chromium."""
    path = (os.environ.get("MUGGINS_CHROMIUM") or shutil.which(HEADLESS_SHELL)
            or shutil.which("chromium") or f"/usr/bin/{HEADLESS_SHELL}")
    if not Path(path).exists():
        pytest.fail(f"Chromium not found at {path}: install Debian's {HEADLESS_SHELL} "
                    f"(apt-get install {HEADLESS_SHELL}) or set MUGGINS_CHROMIUM")
    return path


#: What makes two contexts interchangeable: the site and the context's options.
ContextKey = tuple[str, str]
#: Context options whose state emptying a context would undo or could not
#: undo: a context with any of them is made for its test alone.
NOT_KEPT_OPTIONS = frozenset({"permissions", "offline", "storage_state", "geolocation",
                              "extra_http_headers", "record_video_dir", "record_har_path",
                              "service_workers"})


@dataclass
class ContextPool:
    """The worker's browser contexts, each lent to one test at a time and
    emptied when it comes back: the test's pages closed, cookies, local
    storage and permissions cleared, its routes and extra headers removed,
    back online.  Each keeps one page of its own on the service's origin
    (``/healthz``: no script), which keeps its renderer process for the next
    test's pages and is where its storage is cleared.  The service's origin
    is the same from test to test (the worker's port), so storage needs
    clearing; a context lent for another origin is new.  At most MOST_KEPT
    idle contexts are kept (each holds a renderer process), the least
    recently used going first.

    What a test sets on a context and emptying does not undo (context-wide
    init scripts, exposed bindings, the clock, geolocation) needs a context
    of its own: open it with ``browser.new_context`` itself, or with one of
    NOT_KEPT_OPTIONS, which Pages.open never keeps."""

    browser: Browser
    #: Idle contexts, the least recently used first.
    idle: OrderedDict[BrowserContext, ContextKey] = field(default_factory=OrderedDict)
    keepers: dict[BrowserContext, Page] = field(default_factory=dict)
    keys: dict[BrowserContext, ContextKey] = field(default_factory=dict)

    MOST_KEPT: ClassVar[int] = 16

    async def lend(self, base_url: str, options: dict[str, Any]) -> BrowserContext:
        if NOT_KEPT_OPTIONS & options.keys():
            return await self.browser.new_context(base_url=base_url, **options)
        key = (base_url, json.dumps(options, sort_keys=True, default=str))
        for context, its_key in reversed(self.idle.items()):
            if its_key == key:
                del self.idle[context]
                return context
        context = await self.browser.new_context(base_url=base_url, **options)
        context.on("close", self._forget)
        try:
            keeper = await context.new_page()
            await keeper.goto("/healthz")
        except PlaywrightError:
            with contextlib.suppress(PlaywrightError):
                await context.close()
            raise
        self.keepers[context], self.keys[context] = keeper, key
        return context

    def _forget(self, context: BrowserContext) -> None:
        """A context closed (by its test, or here): never lent again."""
        self.idle.pop(context, None)
        self.keepers.pop(context, None)
        self.keys.pop(context, None)

    async def give_back(self, context: BrowserContext) -> None:
        keeper, key = self.keepers.get(context), self.keys.get(context)
        if keeper is None or key is None:  # closed, or never kept
            with contextlib.suppress(PlaywrightError):
                await context.close()
            return
        try:
            for page in context.pages:
                if page is not keeper:
                    await page.close()
            # Local storage is the origin's (session storage is a page's,
            # closed above).
            await keeper.evaluate("localStorage.clear()")
            await context.clear_cookies()
            await context.clear_permissions()
            await context.set_offline(False)
            await context.set_extra_http_headers({})
            await context.unroute_all(behavior="ignoreErrors")
        except PlaywrightError:
            # Whatever state it is in, it is not lent again.
            with contextlib.suppress(PlaywrightError):
                await context.close()
            self._forget(context)
            return
        self.idle[context] = key
        while len(self.idle) > self.MOST_KEPT:
            oldest = next(iter(self.idle))
            self._forget(oldest)
            with contextlib.suppress(PlaywrightError):
                await oldest.close()


@dataclass
class Pages:
    """Opens pages in browser contexts of their own (lent by the worker's
    ContextPool, or new without one) and collects their console errors."""

    browser: Browser
    base_url: str
    pool: ContextPool | None = None
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
        options = {"locale": locale, "viewport": {"width": width, "height": height},
                   **context_options}
        if self.pool is not None:
            context = await self.pool.lend(self.base_url, options)
        else:
            context = await self.browser.new_context(base_url=self.base_url, **options)
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
            if self.pool is not None:
                await self.pool.give_back(context)
            else:
                await context.close()
