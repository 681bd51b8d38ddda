"""The web client end to end: lobby, playing by clicking, two people through a
share link, a spectator who never sees a hidden tile, the replay page, the
two languages, reconnecting, phone width."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import WebSocket, WebSocketRoute, expect

from tests.support.browser import Pages
from tests.support.clients import assert_nothing_hidden, unpacked
from tests.support.pages import (
    DOCS,
    create_from_lobby,
    open_full_form,
    play_a_move,
    play_until,
    sideways_overflow,
    sit,
)
from tests.support.service import Running


async def test_create_a_table_against_a_bot_and_play_a_hand_by_clicking(pages: Pages) -> None:
    page = await pages.open("/")
    await open_full_form(page)  # the whole form is "More options" (issue #25)
    await expect(page.locator("#rules dt").first).to_be_visible()
    await create_from_lobby(page)
    await page.click("#go-to-table")
    await sit(page, "Ana")
    await expect(page.locator("#scores .side")).to_have_count(2)
    # The bot once in the seats row: its score beside its chip, not its name twice.
    await expect(page.locator('#scores .side[data-side="1"] .opponent')).to_have_count(1)
    row = await page.locator(".seats-row").inner_text()
    assert row.count("Ana") == 1 and row.count("Bruno") == 1, row
    await play_until([(page, "#hand-over")])
    panel = page.locator("#hand-over")
    assert re.fullmatch(r"[0-9a-f]{64}", await panel.locator("#revealed-seed").text_content() or "")
    link = await panel.locator("#verify-link").get_attribute("href")
    assert link is not None and link.startswith("/replay/") and link.endswith("?game=1")
    assert await page.locator(".opponent .badge.bot").count() == 1  # the bot is marked


@pytest.mark.slow
async def test_two_people_play_through_the_share_link_while_a_spectator_watches(
    pages: Pages,
) -> None:
    frames: list[dict[str, Any]] = []

    def record(socket: WebSocket) -> None:
        socket.on("framereceived",
                  lambda payload: frames.extend(unpacked(json.loads(payload))))

    ana = await pages.open("/")
    link = await create_from_lobby(ana, people=(0, 1), target=100)
    table_id = link.rsplit("/", 1)[1]
    await ana.goto(link)
    await sit(ana, "Ana")
    bea = await pages.open(link.replace(pages.base_url, ""))
    await sit(bea, "Bea")
    watcher = await pages.open(f"/watch/{table_id}",
                               before=lambda page: page.on("websocket", record))
    await expect(watcher.locator("#game")).to_be_visible()
    await expect(ana.locator("#spectators")).to_contain_text("1")
    hidden_seen: list[str] = []

    async def check_spectator_dom() -> None:
        # Outside the layout (and the end-of-hand panel, shown once a hand is
        # over), the spectator's page must hold no tile at all.
        stray = await watcher.evaluate("""() => [...document.querySelectorAll('[data-tile]')]
            .filter((e) => !e.closest('#layout') && !e.closest('#hand-over'))
            .map((e) => e.dataset.tile)""")
        hidden_seen.extend(stray)

    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if await ana.locator("#game-over").count() and await bea.locator("#game-over").count():
            break
        moved = await play_a_move(ana) or await play_a_move(bea)
        await check_spectator_dom()
        if not moved:
            await asyncio.sleep(0.05)
    else:
        raise AssertionError("the game did not end")
    await expect(watcher.locator("#game-over")).to_be_visible()
    assert not hidden_seen, f"the spectator's page showed hidden tiles: {hidden_seen}"
    assert await watcher.locator(".tile-button").count() == 0
    assert frames and frames[0]["type"] == "welcome"
    assert_nothing_hidden(frames)
    kinds = [f["event"]["type"] for f in frames if f["type"] == "event"]
    assert "GameEnded" in kinds and "HandEnded" in kinds
    await expect(ana.locator("#rematch")).to_be_visible()


async def test_the_replay_page_steps_through_a_finished_hand(
    pages: Pages, service: Running
) -> None:
    table = (await service.http.post("/tables", json={
        "seats": 2, "bots": [{"seat": 0}, {"seat": 1, "level": "random"}]})).json()
    path = f"/tables/{table['table_id']}/games/1/hands/1/replay"
    for _ in range(200):
        answer = await service.http.get(path)
        if answer.status_code == 200:
            break
        await asyncio.sleep(0.05)
    steps = len(answer.json()["steps"])
    page = await pages.open(f"/replay/{table['table_id']}/1?game=1")
    await expect(page.locator("#verdict")).to_have_attribute("data-status", "fair")
    step = page.locator("#step-number")
    await expect(step).to_have_attribute("data-step", "1")
    # Every hand is visible: the deal shows all seats' tiles.
    await page.click("#last")
    await page.click("#first")
    for _ in range(5):
        await page.click("#forward")
    await expect(step).to_have_attribute("data-step", "6")
    await page.click("#back")
    await expect(step).to_have_attribute("data-step", "5")
    await page.keyboard.press("End")
    await expect(step).to_have_attribute("data-step", str(steps))
    await page.keyboard.press("ArrowLeft")
    await expect(step).to_have_attribute("data-step", str(steps - 1))
    await page.keyboard.press("Home")
    for _ in range(4):
        await page.keyboard.press("ArrowRight")
    assert await page.locator("#hands li[data-seat] .tile-svg").count() >= 7
    # A hand that is not there cannot be replayed: the page says why, in
    # its language (the answer's stable code, not the server's words).
    no_hand = await service.http.get(path.replace("/hands/1/", "/hands/99/"))
    assert (no_hand.status_code, no_hand.json()["code"]) == (404, "no-such-hand")
    no_game = await service.http.get(path.replace("/games/1/", "/games/9/"))
    assert (no_game.status_code, no_game.json()["code"]) == (404, "no-such-game")
    pages.expect_error(r"/replay/.*/99\?game=1(&lang=es)?: Failed to load resource: .* 404")
    missing = await pages.open(f"/replay/{table['table_id']}/99?game=1")
    await expect(missing.locator("#fatal")).to_have_text(
        "This hand cannot be replayed. This game has no such hand yet.")
    missing = await pages.open(f"/replay/{table['table_id']}/99?game=1&lang=es")
    await expect(missing.locator("#fatal")).to_have_text(
        "No se puede repetir esta mano. Esta partida aún no tiene esa mano.")


async def test_spanish_from_the_browser_and_switching_language(pages: Pages) -> None:
    page = await pages.open("/", locale="es-ES")
    heading = page.locator("#full-form h3")
    await expect(heading).to_have_text("Mesa nueva")
    await expect(page.locator("#rules dt").first).to_have_text("Jugadores")
    await page.select_option("#language-select", "en")
    await expect(heading).to_have_text("New table")
    await expect(page.locator("#rules dt").first).to_have_text("Players")
    await page.reload()
    await expect(heading).to_have_text("New table")  # the choice is remembered
    await page.select_option("#language-select", "es")
    await create_from_lobby(page)
    await page.click("#go-to-table")
    await expect(page.locator("#rules dt").first).to_have_text("Variante")
    await expect(page.locator(".sit-button").first).to_contain_text("Sentarse aquí")
    assert await page.get_attribute("html", "lang") == "es"


async def test_keyboard_play_and_reconnecting_by_itself(pages: Pages) -> None:
    routes: list[WebSocketRoute] = []

    async def through(route: WebSocketRoute) -> None:
        route.connect_to_server()
        routes.append(route)

    page = await pages.open(
        "/", before=lambda page: page.route_web_socket(re.compile(r".*/play$"), through))
    await create_from_lobby(page)
    await page.click("#go-to-table")
    await sit(page, "Ana")
    # Keyboard: arrows choose a tile, Enter plays it (arrows and Enter choose an end).
    for _ in range(200):
        if await page.locator(".tile-button.legal").count():
            break
        await asyncio.sleep(0.05)
    before = await page.get_attribute("body", "data-version")
    tiles = page.locator(".tile-button")
    legal_index = await tiles.evaluate_all(
        "(all) => all.findIndex((b) => b.classList.contains('legal'))")
    selected = await tiles.evaluate_all(
        "(all) => all.findIndex((b) => b.classList.contains('selected'))")
    count = await tiles.count()
    for _ in range((legal_index - selected) % count):
        await page.keyboard.press("ArrowRight")
    await page.keyboard.press("Enter")
    if await page.locator("#prompt").is_visible():
        await page.keyboard.press("ArrowDown")
        await page.keyboard.press("Enter")
    await expect(page.locator("body")).not_to_have_attribute("data-version", before or "")
    # The connection drops: the page says so, reconnects and catches up.
    await routes[-1].close(code=4000, reason="dropped by the test")
    await expect(page.locator("#banner")).to_contain_text("reconnecting")
    await expect(page.locator("#banner")).to_contain_text("Reconnected", timeout=15000)
    assert len(routes) == 2
    await play_until([(page, "#hand-over")])


async def test_readable_at_phone_width(pages: Pages) -> None:
    page = await pages.open("/", width=375, height=740)
    await create_from_lobby(page)
    await page.click("#go-to-table")
    await sit(page, "Ana")
    await expect(page.locator(".tile-button").first).to_be_visible()
    overflow = await sideways_overflow(page)
    assert overflow <= 0, f"the page is {overflow} px wider than a phone"
    board = await page.locator("#layout").bounding_box()
    assert board is not None and board["width"] <= 375


async def test_screenshot_of_a_four_seat_spinner_game(pages: Pages, tmp_path: Path) -> None:
    """The table page mid-game, four seats in partnerships, the spinner open
    three ways or more.  MUGGINS_UPDATE_SCREENSHOTS=1 writes it under docs/."""
    page = await pages.open("/")
    await create_from_lobby(page, seats=4, partners=True, people=(0,))
    await page.click("#go-to-table")
    await sit(page, "Ana")
    deadline = time.monotonic() + 120
    seen: set[tuple[int, int]] = set()
    while time.monotonic() < deadline:
        arms = int(await page.get_attribute("#layout", "data-arms") or 0)
        spinner = await page.locator("#layout .tile.spinner").count()
        seen.add((arms, spinner))
        if arms >= 3 and spinner and await page.locator(".tile-button.legal").count():
            break
        with contextlib.suppress(PlaywrightError):  # a panel may be redrawn under a click
            if await page.locator("#rematch").count():
                await page.click("#rematch", timeout=1000)  # the game is over: another one
            if await page.locator("#close-result").count():
                await page.click("#close-result", timeout=1000)
        if not await play_a_move(page):
            await asyncio.sleep(0.05)
    else:
        raise AssertionError(f"no hand opened three arms of a spinner (seen: {seen})")
    await page.mouse.move(0, 0)
    target = (DOCS / "table-4-seats.png" if os.environ.get("MUGGINS_UPDATE_SCREENSHOTS")
              else tmp_path / "table-4-seats.png")
    await page.screenshot(path=str(target))
    assert target.stat().st_size > 10_000


async def test_a_muggins_rule_table_asks_for_the_claim(pages: Pages) -> None:
    page = await pages.open("/")
    await open_full_form(page)
    await page.select_option("#preset", "classic-muggins")
    await expect(page.locator("#rules")).to_contain_text("muggins")
    await create_from_lobby(page)
    await page.click("#go-to-table")
    await sit(page, "Ana")
    claim = page.locator("#claim")
    await expect(claim).to_be_visible()
    for _ in range(200):  # until Ana has played once, claiming what she typed
        if await page.locator("#claim").count():
            await page.locator("#claim").fill("0")
        if await play_a_move(page):
            break
        await asyncio.sleep(0.05)
    await expect(page.locator("#log")).to_contain_text("Ana")


async def test_when_a_bot_plays_for_you_the_page_says_so_and_takes_you_back(
    pages: Pages, service: Running, tmp_path: Path
) -> None:
    created = await service.http.post("/tables", json={"bots": [{"seat": 1}],
                                                       "turn_clock_seconds": 2})
    table_id = created.json()["table_id"]
    page = await pages.open(f"/play/{table_id}")
    await sit(page, "Slow")
    # Let the clock run out: a bot plays the seat, and the page says so.
    notice = page.locator("#bot-playing")
    await expect(notice).to_be_visible(timeout=15_000)
    await expect(page.locator("#back")).to_be_visible()
    target = (DOCS / "table-bot-playing.png" if os.environ.get("MUGGINS_UPDATE_SCREENSHOTS")
              else tmp_path / "bot-playing.png")
    await page.screenshot(path=str(target))
    await page.click("#back")
    await expect(notice).to_be_hidden(timeout=5_000)
    seats = (await service.http.get(f"/tables/{table_id}")).json()["seats"]
    assert seats[0]["bot"] is False
