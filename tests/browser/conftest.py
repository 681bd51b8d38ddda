"""Real headless Chromium (Debian's, driven by Playwright) against the real
service on real PostgreSQL and NATS.

Chromium is found at MUGGINS_CHROMIUM or /usr/bin/chromium.  Without it the
browser tests fail, saying how to install it (.ci/run installs it first).
Every page's console errors and uncaught exceptions fail the test that saw
them.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, BrowserContext, Page, async_playwright

from muggins.infra.embedded import EmbeddedNats
from tests.support.service import Running, serve

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


@pytest.fixture
async def pages(service: Running) -> AsyncIterator[Pages]:
    executable = chromium_path()
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=executable,
                                                   args=CHROMIUM_FLAGS)
        opened = Pages(browser, service.url)
        try:
            yield opened
            # Close the pages while the service still runs: a page whose
            # server went away logs (expected) connection errors.
            await opened.close()
            unexpected = opened.unexpected_errors()
            assert not unexpected, "console errors:\n" + "\n".join(unexpected)
        finally:
            await browser.close()


__all__ = ["EmbeddedNats", "Pages", "Running", "serve"]
