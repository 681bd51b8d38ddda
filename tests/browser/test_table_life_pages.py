"""A table's life on the page, in Chromium: a person leaves, a bot finishes
the hand, the game pauses, the one who stayed chooses, the table closes; the
person who left comes back and is told what happened.  In Spanish on a phone
and in English on a desktop, with a spectator.

MUGGINS_UPDATE_SCREENSHOTS=1 writes the screenshots into docs/.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Page, expect

from muggins.infra.embedded import EmbeddedNats
from tests.support.browser import SHARED_LOOP, Pages
from tests.support.pages import play_a_move, screenshot, shot, sit
from tests.support.service import Running, serve

PHONE: dict[str, Any] = {"width": 390, "height": 844, "is_mobile": True, "has_touch": True}


@pytest_asyncio.fixture(loop_scope=SHARED_LOOP)
async def service(database_url: str, nats_server: EmbeddedNats,
                  service_port: int) -> AsyncIterator[Running]:
    """The service with short waits: a page gone for half a second has left,
    and those who stayed may choose two seconds after."""
    async with serve(database_url, nats_server.url, port=service_port, grace_period=0.5,
                     absence_wait=2.0, bot_delay=0.05, hand_pause=0.5) as running:
        yield running


async def life_is(page: Page, kind: str, within: float = 60, *, playing: bool = True) -> None:
    """Play on (if ``playing``) until the page shows the table's life as ``kind``."""
    deadline = time.monotonic() + within
    while await page.get_attribute("body", "data-life") != kind:
        assert time.monotonic() < deadline, f"the page never showed {kind}"
        if not (playing and await play_a_move(page)):
            await page.wait_for_timeout(50)


@pytest.mark.slow
async def test_a_person_leaves_the_game_pauses_the_other_ends_it_and_all_are_told(
    pages: Pages, service: Running, tmp_path: Path
) -> None:
    table = (await service.http.post("/tables", json={"seats": 2})).json()
    link = f"/play/{table['table_id']}"
    ana = await pages.open(link)
    await sit(ana, "Ana")
    bea = await pages.open(f"{link}?lang=es", locale="es-ES", **PHONE)
    await sit(bea, "Bea")
    watcher = await pages.open(f"/watch/{table['table_id']}")
    # A whole hand first.
    deadline = time.monotonic() + 120
    while await bea.locator("#log .log-heading").count() < 2:
        assert time.monotonic() < deadline, "the first hand did not end"
        if not (await play_a_move(ana) or await play_a_move(bea)):
            await bea.wait_for_timeout(50)
    # Ana closes her page (goes elsewhere): after the grace period a bot
    # finishes her hand, clearly marked, and everyone is told.
    await ana.goto("about:blank")
    await expect(bea.locator("#life")).to_contain_text("Ana se fue", timeout=20_000)
    await bea.evaluate("window.scrollTo(0, 0)")
    await screenshot(bea, shot(tmp_path, "table-left-es.png"))
    await life_is(bea, "paused")
    await expect(bea.locator("#life")).to_contain_text("pausa")
    await expect(watcher.locator("#life")).to_contain_text("paused")
    await screenshot(watcher, shot(tmp_path, "table-paused-watch.png"))
    # The choice opens after the wait.
    await expect(bea.locator("#life-end")).to_be_visible(timeout=10_000)
    await screenshot(bea, shot(tmp_path, "table-paused-choices-es.png"))
    await bea.locator("#life-end").click()
    await expect(bea.locator("#life")).to_contain_text("La mesa está cerrada")
    await expect(bea.locator("#life-replays")).to_be_visible()
    await expect(watcher.locator("#life")).to_contain_text("The table is closed")
    await screenshot(bea, shot(tmp_path, "table-closed-es.png"))
    # Ana comes back: she is told what happened, and can do nothing more there.
    await ana.goto(link)
    await expect(ana.locator("#life")).to_contain_text("The table is closed", timeout=20_000)
    await expect(ana.locator("#life")).to_contain_text("abandoned")
    assert await ana.get_attribute("body", "data-life") == "closed"
    await expect(ana.locator("#takeover")).to_be_hidden()
    await screenshot(ana, shot(tmp_path, "table-closed-en.png"))
