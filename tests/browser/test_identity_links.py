"""Issue #22: an identity link (/#identity=ID.SECRET&name=NAME) is only ever
taken after asking, and a player can sign out their other browsers by
rotating the secret."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from playwright.async_api import Page, expect

from tests.support.browser import Pages
from tests.support.service import Running
from tests.support.tables import create, sit

#: Widths the question must read well at: a laptop and a phone.
SCREENS = [(1280, 800), (390, 844)]


async def an_identity(service: Running) -> dict[str, str]:
    table = await create(service, bots=[{"seat": 1}])
    granted = await sit(service, table["table_id"], 0, "Ana")
    return {"player_id": granted["player_id"], "secret": granted["player_secret"]}


def link(identity: dict[str, str], name: str | None = None, query: str = "") -> str:
    named = f"&name={quote(name)}" if name else ""
    return f"/{query}#identity={identity['player_id']}.{identity['secret']}{named}"


async def stored(page: Page) -> Any:
    return await page.evaluate("() => JSON.parse(localStorage.getItem('muggins.player'))")


async def sits_with(service: Running, identity: dict[str, str]) -> int:
    table = await create(service, bots=[{"seat": 1}])
    answer = await service.http.post(f"/tables/{table['table_id']}/seats/0",
                                     json={"name": "Ana", "player": identity})
    return answer.status_code


async def test_an_identity_link_asks_and_no_keeps_nothing(pages: Pages, service: Running
                                                          ) -> None:
    identity = await an_identity(service)
    page = await pages.open(link(identity, "Ana"))
    dialog = page.locator("#identity-dialog")
    await expect(dialog).to_be_visible()
    await expect(page.locator("#identity-dialog-whose")).to_contain_text("identity of Ana")
    await expect(dialog).to_contain_text("keeps the identity too")
    await expect(page.locator("#identity-dialog-replace")).to_be_hidden()
    assert "#identity" not in page.url  # the secret leaves the address at once
    await expect(page.locator("#identity-decline")).to_be_focused()  # the safe answer first
    await page.click("#identity-decline")
    await expect(dialog).to_be_hidden()
    assert await stored(page) is None
    await expect(page.locator("#identity-card")).to_be_hidden()
    # Escape is a no too; a link without a name says it gives none.
    other = await pages.open(link(identity))
    await expect(other.locator("#identity-dialog-whose")).to_contain_text("gives no name")
    await other.keyboard.press("Escape")
    await expect(other.locator("#identity-dialog")).to_be_hidden()
    assert await stored(other) is None
    # Garbage in the fragment asks nothing and keeps nothing.
    garbage = await pages.open("/#identity=nonsense&name=<b>x</b>")
    await expect(garbage.locator("#play h2")).to_have_text("Play")  # the lobby, working
    await expect(garbage.locator("#identity-dialog")).to_be_hidden()
    assert await stored(garbage) is None and "#identity" not in garbage.url


async def test_yes_keeps_it_and_rotating_signs_out_the_other_browsers(
    pages: Pages, service: Running, tmp_path: Path
) -> None:
    identity = await an_identity(service)
    first = await pages.open(link(identity, "Ana"))
    await first.click("#identity-accept")
    await expect(first.locator("#identity-card")).to_be_visible()
    assert await stored(first) == identity
    await expect(first.locator("#identity-name")).to_have_text("You play as Ana.")
    # A browser with an identity of its own is told it would be forgotten.
    second = await pages.open("/")
    await create_identity_in(second, service)
    # (Another query: a new page load, not a move within this one.)
    await second.goto(link(identity, "Ana", query="?lang=en"))
    await expect(second.locator("#identity-dialog-replace")).to_be_visible()
    await second.click("#identity-accept")
    # Kept once the page has taken it (the click returns before its handler
    # has stored it: seen once in a fresh-clone run).
    for _ in range(50):
        if await stored(second) == identity:
            break
        await second.wait_for_timeout(100)
    assert await stored(second) == identity
    # The second signs out every other browser.
    await second.click("#rotate-identity")
    await expect(second.locator("#identity-status")).to_contain_text("signed out")
    rotated = await stored(second)
    assert rotated["player_id"] == identity["player_id"] and rotated["secret"] != identity["secret"]
    assert rotated["secret"] in await second.input_value("#identity-link")
    await second.locator("#identity-card").screenshot(path=str(tmp_path / "identity-card.png"))
    assert await sits_with(service, identity) == 403
    assert await sits_with(service, rotated) == 201
    # The first still holds the old secret: refused, it says so and forgets it.
    # (The console names the page, not the request.)
    pages.expect_error(r"/: Failed to load resource: .* 403")
    await first.click("#rotate-identity")
    await expect(first.locator("#identity-status")).to_contain_text(
        "changed from another browser")
    assert await stored(first) is None
    await expect(first.locator("#identity-card")).to_be_hidden()
    await first.locator("#identity-status").screenshot(path=str(tmp_path / "signed-out.png"))
    # A browser sitting down with the old secret gets a new identity of its own.
    pages.expect_error(r"/play/\w+: Failed to load resource: .* 403")
    third = await pages.open(link(identity, "Ana"))
    await third.click("#identity-accept")
    table = await create(service, bots=[{"seat": 1}])
    await third.goto(f"/play/{table['table_id']}")
    await third.fill("#name", "Ana")
    await third.locator(".sit-button").first.click()
    await expect(third.locator("#game")).to_be_visible()
    fresh = await stored(third)
    assert fresh["player_id"] != identity["player_id"]


async def create_identity_in(page: Page, service: Running) -> None:
    """An identity of the page's own (as sitting somewhere would give it)."""
    own = await an_identity(service)
    await page.evaluate("(identity) => localStorage.setItem('muggins.player', identity)",
                        json.dumps(own))


@pytest.mark.parametrize("language", ["en", "es"])
@pytest.mark.parametrize(("width", "height"), SCREENS)
async def test_the_question_reads_well_in_both_languages_and_widths(
    pages: Pages, service: Running, tmp_path: Path, language: str, width: int, height: int
) -> None:
    identity = await an_identity(service)
    own = await an_identity(service)
    page = await pages.open(
        link(identity, "Ana", query=f"?lang={language}"), width=width, height=height,
        before=lambda page: page.add_init_script(
            f"localStorage.setItem('muggins.player', {json.dumps(json.dumps(own))})"))
    dialog = page.locator("#identity-dialog")
    await expect(dialog).to_be_visible()
    await expect(page.locator("#identity-dialog-replace")).to_be_visible()
    title = {"en": "Play as the player of this link?",
             "es": "¿Jugar como el jugador de este enlace?"}[language]
    await expect(page.locator("#identity-dialog-title")).to_have_text(title)
    await page.wait_for_timeout(300)
    await page.screenshot(path=str(tmp_path / f"identity-{language}-{width}x{height}.png"))
    # Everything of it on the screen, buttons included, nothing wider than it.
    for selector in ("#identity-dialog", "#identity-accept", "#identity-decline"):
        found = await page.locator(selector).bounding_box()
        assert found is not None, selector
        assert found["x"] >= 0 and found["x"] + found["width"] <= width, selector
        assert found["y"] >= 0 and found["y"] + found["height"] <= height, selector
    await page.click("#identity-decline")
    assert await stored(page) == own
