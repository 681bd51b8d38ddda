"""The web client driven like a person drives it, for the browser tests
(tests/browser/, tests/cluster/): create a table from the lobby's form, sit
down, click legal tiles until every page is done, and take screenshots that
go to docs/ (``DOCS``) when MUGGINS_UPDATE_SCREENSHOTS=1 asks for them."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

from playwright.async_api import Page, expect

DOCS = Path(__file__).resolve().parents[2] / "docs"


async def sideways_overflow(page: Page) -> int:
    """How many CSS px the page is wider than its screen (0 or less: none).
    On a phone (``is_mobile``) a page wider than the screen is laid out
    zoomed, and clicks then land beside what they aim at."""
    return int(await page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"))


async def open_full_form(page: Page) -> None:
    """Unfold the lobby's whole form (its "More options"), as a person does:
    click again if the click missed.  Just after a language switch the
    lobby's lists above the form refill in the new language, and the
    summary can move between Playwright's aim and its click (seen once in a
    busy full run: the form stayed closed, and the next select waited 30 s
    for a hidden field).  A click that lands opens it at once, so a closed
    form after the click is a miss, not a slow page."""
    form = page.locator("#full-form")
    for _ in range(5):
        if await form.get_attribute("open") is not None:
            return
        await page.click("#full-form > summary")
    await expect(form).to_have_attribute("open", "")


async def create_from_lobby(page: Page, *, seats: int = 2, people: tuple[int, ...] = (0,),
                            target: int | None = None, partners: bool = False,
                            preset: str | None = None) -> str:
    """Fill the lobby's form (under "More options") and create the table;
    return its share link."""
    await open_full_form(page)
    if preset is not None:
        await page.wait_for_selector(f'#preset option[value="{preset}"]', state="attached")
        await page.select_option("#preset", preset)
    await page.select_option("#seats", str(seats))
    if partners:
        await page.check("#partnerships")
    for seat in range(seats):
        await page.select_option(f"#seat-{seat}", "person" if seat in people else "medium")
    if target is not None:
        await page.click("#more-options summary")
        await page.fill("#target", str(target))
    await page.click("#create-button")
    await expect(page.locator("#created")).to_be_visible()
    return await page.input_value("#share-link")


async def sit(page: Page, name: str) -> None:
    await page.fill("#name", name)
    await page.locator(".sit-button").first.click()
    await expect(page.locator("#game")).to_be_visible()


#: Seconds play_a_move waits for its move to land.
PLAY_WAIT = 5.0


async def play_a_move(page: Page) -> bool:
    """Click a legal tile (and an end if it asks which); False if none is legal.

    Returns once the page's version has moved on with no question open, or
    after PLAY_WAIT seconds."""
    legal = page.locator(".tile-button.legal")
    if await legal.count() == 0:
        return False
    before = await page.get_attribute("body", "data-version")
    try:
        await legal.first.click(timeout=1000)
    except Exception:  # the hand was redrawn under the click: try again next time
        return False
    deadline = time.monotonic() + PLAY_WAIT
    while time.monotonic() < deadline:
        # A tile that fits two ends asks which; the question can come after
        # the first look, and stays open whatever else arrives meanwhile (a
        # draw's events: two CI runs left it open over the strip that the
        # phone test then judged).  The version is read again before the
        # answer: the move cannot land before it is sent.
        if await page.locator("#prompt").is_visible():
            before = await page.get_attribute("body", "data-version")
            await answer_which_end(page)
        elif await page.get_attribute("body", "data-version") != before:
            break
        await asyncio.sleep(0.02)
    return True


async def answer_which_end(page: Page) -> bool:
    """If the page asks which end a tile goes to, answer with the first of
    its buttons (in the strip, clear of the board); whether that was done."""
    choices = page.locator("#prompt .end-choice")
    if not (await page.locator("#prompt").is_visible() and await choices.count()):
        return False
    try:
        await choices.first.click(timeout=1000)
    except Exception:  # the prompt redrawn (or closed) under the click
        return False
    return True


async def play_until(pages_and_done: list[tuple[Page, str]], timeout: float = 120) -> None:
    """Every page plays whenever it may, until each shows its selector."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        waiting = [page for page, selector in pages_and_done
                   if not await page.locator(selector).count()]
        if not waiting:
            return
        moved = False
        for page in waiting:
            moved = await play_a_move(page) or moved
        if not moved:
            await asyncio.sleep(0.05)
    raise AssertionError(f"not done within {timeout} s")


def shot(tmp_path: Path, name: str) -> Path:
    return DOCS / name if os.environ.get("MUGGINS_UPDATE_SCREENSHOTS") else tmp_path / name


async def screenshot(page: Page, path: Path, *, full_page: bool = False) -> None:
    """As the page rests: the pointer moved to its corner (no hover), and
    every animation and transition (a tile sliding into place) taken to its
    end by the browser, not waited for."""
    await page.mouse.move(0, 0)
    await page.screenshot(path=str(path), full_page=full_page, animations="disabled")
