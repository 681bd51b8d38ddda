"""The table page of issue #25 (items 3, 5, 6, 10): a phone-first page, draws
you can see, a game over that ends a game, and the small defects; at a
1280x800 desktop and a 390x844 phone, in English and Spanish.

MUGGINS_UPDATE_SCREENSHOTS=1 writes the screenshots into docs/."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Locator, Page, Route, expect

from tests.support.browser import Pages
from tests.support.clients import SeatClient
from tests.support.pages import (
    answer_which_end,
    play_a_move,
    play_until,
    screenshot,
    shot,
    sideways_overflow,
)
from tests.support.service import Running
from tests.support.tables import create
from tests.support.tables import sit as sit_by_api
from tests.support.waits import eventually

PHONE: dict[str, Any] = {"width": 390, "height": 844, "is_mobile": True, "has_touch": True}
DESKTOP: dict[str, Any] = {"width": 1280, "height": 800}

#: The board and the hand's tiles not in view, or lying under something else
#: at their centres (each named, with what covers it).
COVERED = """() => {
    const targets = [document.getElementById('board-frame'),
                     ...document.querySelectorAll('#hand .tile-button')];
    return targets.map((element) => {
        const r = element.getBoundingClientRect();
        const x = r.left + r.width / 2, y = r.top + r.height / 2;
        const inView = x >= 0 && y >= 0 && x <= innerWidth && y <= innerHeight;
        const hit = inView ? document.elementFromPoint(x, y) : null;
        return hit && element.contains(hit) ? null
            : `${element.id || element.className} at ${x},${y}`
              + ` under ${hit?.id || hit?.className}`;
    }).filter(Boolean); }"""



async def seated_page(pages: Pages, service: Running, size: dict[str, Any], lang: str,
                      bots: list[dict[str, Any]] | None = None,
                      **spec: Any) -> tuple[Page, str]:
    """A table against the greedy bot (or ``bots``), Ana seated (by the API)
    at seat 0, her page open."""
    table = await create(service, bots=bots or [{"seat": 1}], **spec)
    table_id = table["table_id"]
    granted = await sit_by_api(service, table_id, 0, "Ana")
    seat = json.dumps({"seat": 0, "token": granted["token"]})
    page = await pages.open(
        f"/play/{table_id}?lang={lang}", locale="es-ES" if lang == "es" else "en-GB",
        before=lambda p: p.add_init_script(
            f"localStorage.setItem('muggins.seat.{table_id}', {json.dumps(seat)})"),
        **size)
    await expect(page.locator("#game")).to_be_visible()
    return page, table_id


async def my_turn(page: Page, timeout: float = 30) -> None:
    await expect(page.locator(".tile-button.legal").first).to_be_visible(timeout=timeout * 1000)


async def result_above_the_strip(page: Page) -> None:
    """A folded result that lies over the empty felt, clear of its strip."""
    folded, strip = await rect(page, "#result"), await rect(page, "#felt-strip")
    assert folded["height"] > 0, folded
    assert folded["bottom"] <= strip["y"] + 0.5, (folded, strip)


async def rect(page: Page, selector: str) -> dict[str, float]:
    found: dict[str, float] | None = await page.evaluate(
        """(s) => { const e = document.querySelector(s); if (!e) return null;
                    const r = e.getBoundingClientRect();
                    return {x: r.x, y: r.y, width: r.width, height: r.height,
                            bottom: r.bottom}; }""",
        selector)
    assert found is not None, selector
    return found


#: A last hand's result folded as the page folds it (table-result.js): its
#: one-line strip and its close button, the rest of it hidden.
FOLDED_RESULT = """async () => {
  const { t } = await import('/static/i18n.js');  // the page's own, in its language
  const result = document.getElementById('result');
  const strip = document.createElement('div');
  strip.className = 'result-strip';
  strip.id = 'result-strip';
  const summary = document.createElement('span');
  summary.className = 'result-summary';
  const outcome = t('table.domino', { name: 'Ana' });
  summary.textContent = t('table.handSummary', { hand: 1, outcome });
  const open = document.createElement('button');
  open.className = 'small';
  open.textContent = t('table.seeResult');
  strip.append(summary, open);
  const close = document.createElement('button');
  close.className = 'secondary close-result';
  close.textContent = '\u2715';
  result.replaceChildren(close, strip);
  result.classList.add('folded');
  result.hidden = false;
}"""


@pytest.mark.parametrize(("size", "lang", "preset", "words"), [
    (PHONE, "en", "playelephant", "You lead: play any tile you like."),
    (PHONE, "es", "playelephant", "Sales tú: juega la ficha que quieras."),
    (PHONE, "en", "muggins", "You lead: play the tile marked in green."),
    (DESKTOP, "es", "muggins", "Sales tú: juega la ficha marcada en verde."),
])
async def test_an_empty_felt_on_your_turn_says_you_lead(
    pages: Pages, service: Running, tmp_path: Path, size: dict[str, Any], lang: str,
    preset: str, words: str,
) -> None:
    """The walk of a newcomer: an empty green felt, "Your turn", and nothing
    saying that they start the board (and, where the highest double leads,
    with which tile)."""
    for _ in range(12):  # the lottery (or the deal) picks the leader
        page, _ = await seated_page(pages, service, size, lang, preset=preset)
        await expect(page.locator("#turn")).not_to_be_empty()
        await page.wait_for_timeout(300)
        # Ana's turn on an empty board, as the page's own view has it (the
        # board's drawing may lag the hand's on a loaded machine, and a tile
        # Bruno led but not drawn yet would read as an empty felt).
        if await page.locator("#felt.leading").count():
            break
        await page.context.close()
    else:
        # Each try is about an even chance: twelve that all fail (1 in 4,096)
        # fail the test rather than pass it unchecked.
        raise AssertionError("Ana never led in 12 tables: nothing was checked")
    await expect(page.locator("#last-move")).to_have_text(words)
    await expect(page.locator("#last-move")).to_be_visible()
    await expect(page.locator("#felt")).to_have_class(re.compile(r"\bleading\b"))
    await expect(page.locator("#layout .tile")).to_have_count(0)
    # The winner of a hand leads the next, its result folded into the strip
    # these words are in (a screenshot of that case showed only the result):
    # over an empty board the folded result lies at the felt's top instead.
    await page.evaluate(FOLDED_RESULT)
    await expect(page.locator("#result")).to_be_visible()  # (a redraw would have emptied it)
    await expect(page.locator("#last-move")).to_be_visible()
    await result_above_the_strip(page)
    device = "phone" if size is PHONE else "desktop"
    await screenshot(page, shot(tmp_path, f"table-you-lead-folded-{device}-{lang}-{preset}.png"))
    await expect(page.locator("#result")).to_be_visible()  # in the screenshot too
    await page.evaluate("() => { document.getElementById('result').hidden = true; }")
    await play_a_move(page)
    await expect(page.locator("#last-move")).not_to_have_text(words)
    await expect(page.locator("#felt")).not_to_have_class(re.compile(r"\bleading\b"))


async def test_a_toast_hides_the_last_move_under_it_not_half(
    pages: Pages, service: Running,
) -> None:
    """The walk of a newcomer: "+10 Bruno" over "Bruno led 5-5", the line
    showing as letters around the pill. While a toast shows, the last move
    waits unseen under it, and comes back when it goes."""
    page, _ = await seated_page(pages, service, PHONE, "en")
    while not await page.locator('#last-move .seat-move[data-seat="1"]').count():
        await my_turn(page)
        await play_a_move(page)
    last = page.locator("#last-move")
    await expect(last).to_be_visible()
    await page.evaluate(
        "import('/static/table-effects.js').then((m) => m.toast('+10 Bruno', 3000))")
    await expect(page.locator("#toast")).to_be_visible()
    await expect(last).to_be_hidden()
    await expect(page.locator("#toast")).to_be_hidden(timeout=5000)
    await expect(last).to_be_visible()


@pytest.mark.parametrize("lang", ["en", "es"])
async def test_the_tiles_an_opponent_holds_are_on_a_phones_screen(
    pages: Pages, service: Running, lang: str,
) -> None:
    """The walk of a newcomer: "2 Bruno bot · expert · 6" and the rest off the
    right edge; how many tiles the bot holds was the part a phone cut."""
    page, _ = await seated_page(pages, service, PHONE, lang)
    await my_turn(page)
    tiles = page.locator(".opponent .tiles-left")
    await expect(tiles).to_have_text(re.compile(r"7 (tiles|fichas)|6 (tiles|fichas)"))
    box = await tiles.bounding_box()
    assert box is not None and box["x"] + box["width"] <= PHONE["width"], box


@pytest.mark.parametrize("lang", ["en", "es"])
async def test_the_counts_sum_is_whole_on_a_phone(
    pages: Pages, service: Running, lang: str,
) -> None:
    """The walk of a newcomer: "Count: 10 (4 + …" on a phone, the sum that
    teaches how the count is made cut after its first number, with the
    boneyard and a clock of minutes (a table against the computer) beside it.
    A CI run cut "(2+1+1+4+4)", a double at an end: the clock now stands
    beside the turn, as the time alone ("4:59", its words in its title)."""
    page, _ = await seated_page(pages, service, PHONE, lang, turn_clock_seconds=300)
    sums: list[str] = []
    deadline = time.monotonic() + 120
    while len(sums) < 3 and time.monotonic() < deadline:
        close = page.locator("#close-result")
        if await close.count() and await close.is_visible():
            await close.click()
        parts = await page.locator("#count-parts").inner_text()
        if parts.count("+") >= 2 and parts not in sums:
            cut = await page.evaluate(
                """() => [...document.querySelectorAll('.status-row > :not(#turn)')]
                         .map((e) => e.scrollWidth - e.clientWidth)""")
            assert max(cut) <= 0, (parts, cut)
            await expect(page.locator("#clock")).not_to_be_empty()
            sums.append(parts)
        if not await play_a_move(page):
            await page.wait_for_timeout(100)
    assert len(sums) == 3, sums
    words = "Clock" if lang == "en" else "Tiempo"
    await expect(page.locator("#clock")).to_have_text(re.compile(r"^[0-4]:[0-5]\d$"))
    await expect(page.locator("#clock")).to_have_attribute(
        "title", re.compile(rf"^{words}: [0-4]:[0-5]\d$"))
    # The widest the rows get: four ends, each a double (eight numbers), the
    # boneyard full, a clock of minutes, "Your turn" whole (another's turn
    # gives way with an ellipsis, its whole words in its title).
    boneyard = "Boneyard: 14" if lang == "en" else "Pozo: 14"
    turn = "Your turn" if lang == "en" else "Te toca"
    cut = await page.evaluate(
        """([boneyard, turn]) => {
             document.getElementById('turn').textContent = turn;
             document.getElementById('count').textContent = '36';
             document.getElementById('count-parts').textContent = '(6+6+5+5+4+4+3+3)';
             document.getElementById('clock').textContent = '4:59';
             document.getElementById('boneyard').textContent = boneyard;
             document.getElementById('boneyard').hidden = false;
             return [...document.querySelectorAll('.status-row > *')]
               .map((e) => e.scrollWidth - e.clientWidth); }""", [boneyard, turn])
    assert max(cut) <= 0, cut


@pytest.mark.parametrize(("size", "lang", "name"), [
    (PHONE, "en", "table-phone-en.png"), (PHONE, "es", "table-phone-es.png"),
    (DESKTOP, "en", "table-desktop-en.png"), (DESKTOP, "es", "table-desktop-es.png"),
])
async def test_the_board_and_the_hand_fill_a_phone_and_nothing_jumps(
    pages: Pages, service: Running, tmp_path: Path, size: dict[str, Any], lang: str, name: str,
) -> None:
    page, _ = await seated_page(pages, service, size, lang)
    await my_turn(page)
    frame = await rect(page, "#board-frame")
    if size is PHONE:
        # The board starts high on a phone: a compact header, no more
        # (issue #25: ~300 px of header and status came first).
        assert frame["y"] < 200, frame
        header = await rect(page, "header.top")
        assert header["height"] <= 44, header
    status_heights = set()
    others_moved = False
    for _ in range(8):
        if await page.locator("#close-result").count():
            await page.click("#close-result")
        await my_turn(page)
        # A hand that ended while we waited shows its result into the next
        # hand's first turn (in the board's place on a phone): close it to
        # measure the page as played (seen once in a fresh-clone run).
        if await page.locator("#close-result").is_visible():
            await page.click("#close-result")
        status_heights.add(round((await rect(page, "#status-bar"))["height"], 1))
        hand = await rect(page, "#hand")
        assert hand["bottom"] <= size["height"] + 0.5, hand  # never off the screen
        await play_a_move(page)
        # The other seat's last move stays under the board (not a toast gone in 2 s).
        if await page.locator("#last-move .seat-move").count():
            others_moved = True
    assert len(status_heights) == 1, status_heights
    assert others_moved
    # The other seat's move is still there seconds later (a toast is gone in 2 s),
    # judged on our turn with the board showing (a hand's result takes the
    # board's place on a phone: a loop that ran out on a hand's last move
    # once judged the strip under it, on a loaded machine).
    for _ in range(12):
        if await page.locator("#close-result").count():
            await page.click("#close-result")
        await my_turn(page)
        # A hand that ended while we waited lies folded over the strip, the
        # last move under it by design (two CI runs judged it there): closed.
        if await page.locator("#close-result").is_visible():
            await page.click("#close-result")
        # A question "which end?" takes the strip's place by design: answered
        # (a score's toast can lie over its buttons for a moment: asked again
        # then), and judged once that move has landed.
        if await page.locator("#prompt").is_visible():
            asked_at = await page.get_attribute("body", "data-version")
            if await answer_which_end(page):
                await expect(page.locator("body")).not_to_have_attribute(
                    "data-version", asked_at or "")
            continue
        if await page.locator('#last-move .seat-move[data-seat="1"]').count():
            break
        await play_a_move(page)
    else:
        raise AssertionError("Bruno's last move never showed under the board on our turn")
    await page.wait_for_timeout(2500)
    assert not await page.locator("#prompt").is_visible(), "a question opened by itself"
    await expect(page.locator('#last-move .seat-move[data-seat="1"]')).to_be_visible()
    # The toast sits at the felt's foot: the board's top row stays in view.
    await page.evaluate("""() => { const t = document.getElementById('toast');
                                   t.textContent = 'Bruno drew 3'; t.hidden = false; }""")
    toast = await rect(page, "#toast")
    frame = await rect(page, "#board-frame")
    assert toast["y"] > frame["y"] + frame["height"] / 2, (toast, frame)
    await page.evaluate("() => { document.getElementById('toast').hidden = true; }")
    # (a click on a tile under a hand's result scrolled the page to it: the top again)
    await page.evaluate("() => window.scrollTo(0, 0)")
    await screenshot(page, shot(tmp_path, name))


async def test_a_third_row_of_the_hand_stays_on_a_phone(pages: Pages, service: Running) -> None:
    """15 tiles (after many draws) make three rows: still above 844 px."""
    page, _ = await seated_page(pages, service, PHONE, "en")
    await my_turn(page)
    await page.evaluate("""() => {
        const hand = document.getElementById('hand');
        const one = hand.querySelector('.tile-button');
        while (hand.children.length < 15) hand.append(one.cloneNode(true));
    }""")
    rows = await page.evaluate("""() => new Set(
        [...document.querySelectorAll('#hand .tile-button')]
          .map((b) => Math.round(b.getBoundingClientRect().top))).size""")
    assert rows >= 3
    hand = await rect(page, "#hand")
    assert hand["bottom"] <= 844, hand


async def test_draws_are_counted_in_one_line_and_marked(pages: Pages, service: Running) -> None:
    page, _ = await seated_page(pages, service, DESKTOP, "en")
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and not await page.locator("#log li.draws").count():
        if not await play_a_move(page):
            await page.wait_for_timeout(100)
        if await page.locator("#close-result").count():
            await page.click("#close-result")
    lines = await page.locator("#log li.draws").all_inner_texts()
    assert lines, "nobody drew in 90 s"
    # One line for draws in a row, counted (tests/client: the reducer merges them).
    assert all(re.fullmatch(r"(You|\S+) drew (a tile|\d+)", line) for line in lines), lines


async def test_a_spectator_leads_with_watching_and_is_not_counted(
    pages: Pages, service: Running, tmp_path: Path,
) -> None:
    page, table_id = await seated_page(pages, service, DESKTOP, "en")
    await my_turn(page)
    watcher = await pages.open(f"/watch/{table_id}")
    await expect(watcher.locator("#game")).to_be_visible()
    first = watcher.locator("#links-card > *").first
    await expect(first).to_have_attribute("id", "watching")
    await play_a_move(page)  # the views after it carry the count
    await expect(page.locator("#spectators")).to_have_text("1 watching", timeout=10_000)
    # The reader alone watches: nobody else is.
    await expect(watcher.locator("#spectators")).to_have_text("")
    second = await pages.open(f"/watch/{table_id}")
    await expect(second.locator("#game")).to_be_visible()
    await expect(page.locator("#spectators")).to_have_text("2 watching", timeout=10_000)
    await my_turn(page)
    await play_a_move(page)  # a watcher's count comes with the views
    await expect(second.locator("#spectators")).to_have_text("1 watching", timeout=10_000)
    await expect(watcher.locator("#spectators")).to_have_text("1 watching", timeout=10_000)
    await screenshot(watcher, shot(tmp_path, "table-watch-desktop-en.png"))


async def test_screen_readers_hear_one_name_per_tile_the_selection_and_the_last_move(
    pages: Pages, service: Running,
) -> None:
    page, _ = await seated_page(pages, service, DESKTOP, "en")
    await my_turn(page)
    for button in await page.locator(".tile-button").all():
        label = await button.get_attribute("aria-label")
        tile = await button.get_attribute("data-tile")
        assert label is not None and tile is not None and label.startswith(tile), (label, tile)
        assert await button.locator("svg").get_attribute("aria-hidden") == "true"
        a, b = (int(n) for n in tile.split("-"))
        assert a >= b  # the higher half first, as the history says it
        assert await button.get_attribute("aria-pressed") is None
    await expect(page.locator("#hand")).to_have_attribute("role", "listbox")
    await expect(page.locator('.tile-button[aria-selected="true"]')).to_have_count(1)
    await play_a_move(page)
    await my_turn(page)
    live = page.locator("#last-move-live")
    await expect(live).to_have_attribute("aria-live", "polite")
    await expect(live).to_have_text(re.compile(r"^Last move: "))
    assert "scores" not in await live.inner_text()


async def test_switching_language_retells_the_history(pages: Pages, service: Running) -> None:
    page, _ = await seated_page(pages, service, DESKTOP, "en")
    await my_turn(page)
    await play_a_move(page)
    await expect(page.locator("#log")).to_contain_text("Hand 1")
    await page.select_option("#language-select", "es")
    await expect(page.locator("#log")).to_contain_text("Mano 1")
    assert "Hand 1" not in await page.locator("#log").inner_text()


async def test_the_waiting_screen_shows_no_count(pages: Pages, service: Running) -> None:
    table = await create(service)
    table_id = table["table_id"]
    granted = await sit_by_api(service, table_id, 0, "Ana")
    seat = json.dumps({"seat": 0, "token": granted["token"]})
    page = await pages.open(f"/play/{table_id}", before=lambda p: p.add_init_script(
        f"localStorage.setItem('muggins.seat.{table_id}', {json.dumps(seat)})"))
    await expect(page.locator("#turn")).to_have_text("Waiting for players…")
    await expect(page.locator("#count")).to_be_hidden()
    assert "Count" not in await page.locator("#status-bar").inner_text()


async def test_the_clock_shows_the_instant_the_turn_begins(pages: Pages, service: Running) -> None:
    page, _ = await seated_page(pages, service, DESKTOP, "en")
    await my_turn(page)
    # Each view draws the clock with it: never a blank clock on a turn.
    blanks = await page.evaluate("""() => new Promise((done) => {
        let blanks = 0, seen = 0;
        const clock = document.getElementById('clock');
        const observer = new MutationObserver(() => {
            seen += 1;
            // (the reader's own turn: a bot's turn may have no clock)
            if (document.getElementById('turn').classList.contains('mine') && !clock.textContent) {
                blanks += 1;
            }
        });
        observer.observe(document.getElementById('status-bar'),
                         {subtree: true, childList: true, characterData: true});
        setTimeout(() => { observer.disconnect(); done({blanks, seen}); }, 4000);
        document.querySelector('.tile-button.legal')?.click();
        setTimeout(() => document.querySelector('#layout .end-target')
            ?.dispatchEvent(new MouseEvent('click', {bubbles: true})), 300);
    })""")
    assert blanks["seen"] > 0
    assert blanks["blanks"] == 0, blanks


async def game_played_by_api(service: Running, **spec: Any) -> tuple[str, str]:
    """A whole game against the greedy bot, Ana's moves made by the API; her seat token."""
    table = await create(service, bots=[{"seat": 1}], **spec)
    table_id = table["table_id"]
    granted = await sit_by_api(service, table_id, 0, "Ana")
    player = await SeatClient.connect(service.ws_url, table_id, granted["token"])
    await player.play_until_game_over(timeout=120)
    await player.close()
    return table_id, granted["token"]


@pytest.mark.parametrize(("size", "lang", "name"), [
    (PHONE, "en", "table-game-over-phone-en.png"), (PHONE, "es", "table-game-over-phone-es.png"),
    (DESKTOP, "en", "table-game-over-desktop-en.png"),
    (DESKTOP, "es", "table-game-over-desktop-es.png"),
])
async def test_game_over_shows_the_winner_the_scores_and_the_rating_change(
    pages: Pages, service: Running, tmp_path: Path, size: dict[str, Any], lang: str, name: str,
) -> None:
    table_id, token = await game_played_by_api(service, preset="block")
    seat = json.dumps({"seat": 0, "token": token})
    asked: list[str] = []

    async def not_folded_yet(route: Route) -> None:
        # The leaderboard folds a game a moment after it ends: the first
        # answers say so, and the page says "updating" (never a number).
        asked.append(route.request.url)
        if len(asked) <= 2:
            await route.fulfill(json={"table_id": table_id, "game": 1, "status": "updating",
                                      "changes": []})
        else:
            await route.continue_()

    async def prepare(page: Page) -> None:
        await page.add_init_script(
            f"localStorage.setItem('muggins.seat.{table_id}', {json.dumps(seat)})")
        await page.route("**/games/1/ratings", not_folded_yet)

    page = await pages.open(f"/play/{table_id}?lang={lang}", before=prepare,
                            locale="es-ES" if lang == "es" else "en-GB", **size)
    over = page.locator("#game-over")
    await expect(over).to_be_visible(timeout=20_000)
    updating = "actualizando" if lang == "es" else "updating"
    await expect(page.locator("#ratings")).to_contain_text(updating)
    await expect(page.locator('#ratings[data-status="rated"]')).to_be_visible(timeout=20_000)
    assert len(asked) >= 3
    change = page.locator("#ratings .rating-changes li")
    await expect(change).to_have_count(1)  # Ana's: people's changes, not the bot's
    said = await change.inner_text()
    assert re.search(r"Ana [+−]\d+\.\d", said)
    assert "-" not in said, said  # one minus sign, the same for the change and the rating
    # The number's scale in words: a first game's "−1.8 (now −1.8)" meant nothing.
    await expect(page.locator("#rating-scale")).to_contain_text(
        "everyone starts at 0" if lang == "en" else "todos empiezan en 0")
    await expect(page.locator("#final-scores li")).to_have_count(2)
    await expect(page.locator("#game-winner")).not_to_be_empty()
    for way in ("#rematch", "#new-game", "#to-lobby"):
        await expect(page.locator(way)).to_be_visible()
    # The result sits over the board whole: nothing scrolls inside it.
    inner = await page.evaluate("""() => { const r = document.getElementById('result');
                                           return r.scrollHeight - r.clientHeight; }""")
    assert inner <= 1, inner
    await screenshot(page, shot(tmp_path, name), full_page=True)


async def test_an_unrated_game_says_so(pages: Pages, service: Running) -> None:
    table_id, token = await game_played_by_api(service, preset="block", overrides={"target": 30})
    seat = json.dumps({"seat": 0, "token": token})
    page = await pages.open(f"/play/{table_id}", before=lambda p: p.add_init_script(
        f"localStorage.setItem('muggins.seat.{table_id}', {json.dumps(seat)})"))
    await expect(page.locator('#ratings[data-status="unrated"]')).to_contain_text(
        "unrated", timeout=20_000)


@pytest.mark.parametrize(("lang", "name"), [("en", "table-history-phone-en.png"),
                                            ("es", "table-history-phone-es.png")])
async def test_the_history_is_a_drawer_on_a_phone(
    pages: Pages, service: Running, tmp_path: Path, lang: str, name: str,
) -> None:
    page, _ = await seated_page(pages, service, PHONE, lang)
    await my_turn(page)
    await play_a_move(page)
    await my_turn(page)
    drawer = page.locator("#history-card")
    # Out of the way: the board and the hand have the screen.
    assert (await rect(page, "#history-card"))["x"] >= 390
    await page.click("#history-button")
    await expect(drawer).to_be_in_viewport()
    await page.wait_for_timeout(300)  # slid in
    box = await rect(page, "#history-card")
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390.5, box
    await expect(page.locator("#log li").first).to_be_visible()
    await screenshot(page, shot(tmp_path, name))
    await expect(page.locator("#history-button")).to_have_attribute("aria-expanded", "true")
    await page.click("#history-close")
    await page.wait_for_timeout(300)
    assert (await rect(page, "#history-card"))["x"] >= 390
    await expect(page.locator("#history-button")).to_have_attribute("aria-expanded", "false")


#: How much of the history drawer's content is out of view (px).
DRAWER_OVERFLOW = """() => { const d = document.getElementById('history-card');
                             return d.scrollHeight - d.clientHeight; }"""
#: Where the history's last line lies in the drawer: whether it is in view.
LAST_LINE_IN_VIEW = """() => {
    const drawer = document.getElementById('history-card').getBoundingClientRect();
    const last = document.querySelector('#log li:last-child').getBoundingClientRect();
    return last.top >= drawer.top - 1 && last.bottom <= drawer.bottom + 1;
}"""


async def test_the_history_drawer_opens_at_its_last_line(pages: Pages, service: Running) -> None:
    """On a phone the drawer scrolls, not the list inside it (style.css):
    opened after a whole game, it shows the last line, not the first move."""
    # A game to 100: several hands, more lines than the drawer holds (a
    # game to 30 could end in two hands, which fit).
    table_id, token = await game_played_by_api(service, preset="block",
                                               overrides={"target": 100})
    seat = json.dumps({"seat": 0, "token": token})
    page = await pages.open(f"/play/{table_id}", **PHONE, before=lambda p: p.add_init_script(
        f"localStorage.setItem('muggins.seat.{table_id}', {json.dumps(seat)})"))

    async def overflowing() -> bool:
        over: int = await page.evaluate(DRAWER_OVERFLOW)
        return over > 200

    await eventually(overflowing, within=20, what="a history longer than the drawer")
    await page.click("#history-button")
    await expect(page.locator("#history-card")).to_be_in_viewport()
    await page.wait_for_function(LAST_LINE_IN_VIEW, timeout=5_000)


@pytest.mark.parametrize(("size", "lang", "name"), [
    (PHONE, "en", "table-hand-result-phone-en.png"),
    (PHONE, "es", "table-hand-result-phone-es.png"),
    (DESKTOP, "es", "table-hand-result-desktop-es.png"),
])
async def test_a_hands_result_lies_whole_over_the_board(
    pages: Pages, service: Running, tmp_path: Path, size: dict[str, Any], lang: str, name: str,
) -> None:
    # A long turn clock: Ana's 30 s ran on while the result was read, and a
    # bot taking her seat mid-test is not what this test is about (a CI-like
    # run once saw the result's own parts lying over its link).
    page, _ = await seated_page(pages, service, size, lang, turn_clock_seconds=600)
    await play_until([(page, "#hand-over")])
    result = page.locator("#result")
    await expect(result).to_be_visible()
    # (The next hand begins at once here: on Ana's turn the result folds into
    # a strip; opened, it is the whole result that is measured.)
    await my_turn(page)
    if await page.locator("#open-result").count():
        await page.click("#open-result")
        await expect(page.locator("#hand-over")).to_be_visible()
    # Whole: nothing scrolls inside it, and on a desktop it lies over the board.
    inner = await page.evaluate("""() => { const r = document.getElementById('result');
                                           return r.scrollHeight - r.clientHeight; }""")
    assert inner <= 1, inner
    if size is DESKTOP:
        felt, over = await rect(page, ".felt"), await rect(page, "#result")
        assert over["y"] >= felt["y"] and over["bottom"] <= felt["bottom"] + 1, (over, felt)
    await page.evaluate("() => window.scrollTo(0, 0)")
    await screenshot(page, shot(tmp_path, name), full_page=size is PHONE)
    # Fair play in plain words, the guide's answer a link away; the precise
    # terms (seed, commitment) folded for those who check them.
    plain = "sealed before the hand began" if lang == "en" else "sellado antes de empezar la mano"
    await expect(page.locator("#fair-plain")).to_contain_text(plain)
    await expect(page.locator("#fairness-card .fair-plain")).to_contain_text(
        "sealed" if lang == "en" else "sella")
    await expect(page.locator("#revealed-seed")).to_be_hidden()
    await page.locator("#hand-over details.fairness > summary").click()
    await expect(page.locator("#revealed-seed")).to_be_visible()
    # The seed (64 hex digits, one word) breaks within the result: unbroken it
    # made a phone's page half a screen wider, laid out zoomed, and the next
    # click could land beside its link (this test's failure, now and then, for
    # many sessions).
    assert await sideways_overflow(page) <= 0
    href = await page.get_attribute("#fair-how", "href")
    assert href == f"/guide/playelephant?lang={lang}#faq", href
    await page.click("#fair-how")
    await expect(page.locator("#guide-faq dt").first).to_contain_text(
        "fair" if lang == "en" else "limpio")
    await expect(page.locator("#faq")).to_be_in_viewport()


@pytest.mark.parametrize(("size", "lang", "name"), [
    (PHONE, "es", "table-result-folded-phone-es.png"),
    (PHONE, "en", "table-result-folded-phone-en.png"),
    (DESKTOP, "en", "table-result-folded-desktop-en.png"),
])
async def test_the_next_hand_on_your_turn_folds_the_result_off_the_board(
    pages: Pages, service: Running, tmp_path: Path, size: dict[str, Any], lang: str, name: str,
) -> None:
    """The walk of a newcomer: a hand's result lay over the board (in its
    place on a phone) while the next hand's clock ran on their turn.  On the
    reader's turn it folds into one line under the board, the whole result a
    tap away, there and in the history."""
    page, _ = await seated_page(pages, service, size, lang)
    await play_until([(page, "#hand-over")])
    # (With no pause between hands the next may have begun already, even
    # been played through under a click: the hand whose result is shown.)
    ended = int(await page.locator("#hand-over").get_attribute("data-hand") or "0")
    await my_turn(page)  # in the next hand (Bruno may have led)
    await expect(page.locator("#hand-number")).to_contain_text(str(ended + 1))
    await expect(page.locator("#result")).to_have_class(re.compile(r"\bfolded\b"))
    await expect(page.locator("#result-strip")).to_be_visible()
    await expect(page.locator("#result-strip")).to_contain_text(str(ended))
    await expect(page.locator("#board-frame")).to_be_visible()
    if await page.locator("#felt.leading").count():
        # Ana went out and leads this hand: her empty felt says so, the
        # result's line above it (the real case of the staged one in
        # test_an_empty_felt_on_your_turn_says_you_lead).
        await expect(page.locator("#last-move .you-lead")).to_be_visible()
        await result_above_the_strip(page)
    # The board and every tile of the hand are on the screen and nothing lies
    # over them: what is at each one's centre is itself, once the tiles have
    # settled (seen once in a fresh-clone run: one tile of the hand at
    # y = -102 while the rest were in place, most likely still sliding in).
    covered: list[str] = []
    for _ in range(30):
        covered = await page.evaluate(COVERED)
        if not covered:
            break
        await page.wait_for_timeout(100)
    assert not covered, covered
    await page.evaluate("() => window.scrollTo(0, 0)")
    await screenshot(page, shot(tmp_path, name))
    # The whole result is a tap away, and closes again.
    await page.click("#open-result")
    await expect(page.locator("#hand-over")).to_be_visible()
    await expect(page.locator("#result")).not_to_have_class(re.compile(r"\bfolded\b"))
    await expect(page.locator("#final-board .tile").first).to_be_visible()
    await page.click("#close-result")
    await expect(page.locator("#result")).to_be_hidden()
    # ... and from the hand's line in the history.
    if size is PHONE:
        await page.click("#history-button")
    await page.locator(f'#log [data-result-hand="{ended}"]').click()
    await expect(page.locator(f'#hand-over[data-hand="{ended}"]')).to_be_visible()
    await page.keyboard.press("Escape")
    await expect(page.locator("#result")).to_be_hidden()
    # A tile clicked plays (the turn was never lost to the result).
    assert await play_a_move(page)


@pytest.mark.parametrize(("lang", "seats", "name"), [
    ("en", 4, "table-each-for-themselves-phone-en.png"),
    ("es", 3, "table-each-for-themselves-phone-es.png"),
])
async def test_seats_each_for_themselves_are_all_on_a_phones_screen(
    pages: Pages, service: Running, tmp_path: Path, lang: str, seats: int, name: str,
) -> None:
    """Three or four seats each for themselves put every seat, with its
    score, in the scores' row, which still scrolled sideways on a phone (the
    last notes): now one card a seat, all on the screen, each with its name,
    its score and, for the others, the tiles they hold."""
    page, _ = await seated_page(pages, service, PHONE, lang, preset="all-fives", seats=seats,
                                partnerships=False,
                                bots=[{"seat": seat} for seat in range(1, seats)])
    await my_turn(page)
    sides = page.locator("#scores > .side")
    await expect(sides).to_have_count(seats)
    await expect(page.locator("#scores .tiles-left")).to_have_count(seats - 1)
    await assert_on_the_screen(page, sides)
    for side in await sides.all():
        box = await side.bounding_box()
        assert box is not None
        for part in ("strong", ".tiles-left", ".seat-name, .me"):
            if not await side.locator(part).count():
                continue  # the reader's own card has no tiles left
            inside = await side.locator(part).first.bounding_box()
            assert inside is not None and inside["x"] >= box["x"] - 0.5 and (
                inside["x"] + inside["width"] <= box["x"] + box["width"] + 0.5), (part, inside, box)
        await expect(side.locator("strong")).to_have_text(re.compile(r"^\d+$"))
    await expect(page.locator("#scores .tiles-left").first).to_have_text(
        re.compile(r"\d+ (tiles|fichas)"))
    # Small, so that the board starts high on the screen.
    assert (await rect(page, ".seats-row"))["height"] <= 110
    assert (await rect(page, "#board-frame"))["y"] < 260
    await page.evaluate("() => window.scrollTo(0, 0)")
    await screenshot(page, shot(tmp_path, name))
    # The widest scores a game reaches still fit: a 4-seat row with a
    # two-figure score beside a bot's badge was 4 px too wide (seen in a
    # run where Dario had 10), so three figures each are tried here.
    await page.evaluate("""() => document.querySelectorAll('#scores > .side > strong')
        .forEach((score) => { score.textContent = '245'; })""")
    await assert_on_the_screen(page, sides)
    assert (await rect(page, ".seats-row"))["height"] <= 135


async def test_a_refusal_is_told_in_the_pages_language(
    pages: Pages, service: Running, tmp_path: Path,
) -> None:
    """The table's refusals come with a stable code and English words; a
    Spanish page said them in English (noticed in the last notes).  It
    words each code in its own language: here chat sent too fast."""
    page, _ = await seated_page(pages, service, PHONE, "es")
    for n in range(8):
        await page.fill("#chat-text", f"hola {n}")
        await page.press("#chat-text", "Enter")
    await expect(page.locator("#toast")).to_contain_text("Demasiados mensajes seguidos")
    await page.screenshot(path=str(shot(tmp_path, "table-refusal-phone-es.png")))


async def assert_on_the_screen(page: Page, parts: Locator) -> None:
    """Nothing of the seats' row beside a phone's screen: the row does not
    scroll sideways, and each of ``parts`` lies within the screen's width."""
    scrolled = await page.evaluate("""() => {
        const row = document.querySelector('.seats-row');
        return row.scrollWidth - row.clientWidth; }""")
    assert scrolled <= 0, scrolled
    for part in await parts.all():
        box = await part.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box


async def test_a_spectator_of_partners_sees_both_sides_on_a_phone(
    pages: Pages, service: Running, tmp_path: Path,
) -> None:
    """A spectator of four seats in partnerships reads two sides of two seats
    each: on a phone the second side was off the screen (found looking at
    the cards above).  Now side by side, every seat and both scores on it."""
    page, table_id = await seated_page(pages, service, PHONE, "en", preset="playelephant",
                                       seats=4, partnerships=True,
                                       bots=[{"seat": 1}, {"seat": 2}, {"seat": 3}])
    await my_turn(page)
    watcher = await pages.open(f"/watch/{table_id}", **PHONE)
    await expect(watcher.locator("#game")).to_be_visible()
    await expect(watcher.locator("#scores .opponent")).to_have_count(4)
    await assert_on_the_screen(
        watcher, watcher.locator("#scores .side, #scores .opponent, #scores strong"))
    # Small enough that the board starts high: two seats a side, one above
    # the other, a seat's name, tiles and bot's badge taking up to three
    # short lines (a fresh-clone run measured 122 px where one had 100).
    assert (await rect(watcher, ".seats-row"))["height"] <= 135
    assert (await rect(watcher, "#board-frame"))["y"] < 280
    await screenshot(watcher, shot(tmp_path, "table-watch-partners-phone-en.png"))


@pytest.mark.parametrize(("lang", "name"), [
    ("en", "table-four-seats-phone-en.png"), ("es", "table-four-seats-phone-es.png"),
])
async def test_four_seats_are_all_on_a_phones_screen(
    pages: Pages, service: Running, tmp_path: Path, lang: str, name: str,
) -> None:
    """The seats row of four seats scrolled sideways on a phone (noticed in
    the last notes): the last seat's tiles were off the screen.  With
    partners, the three other seats are small cards side by side under the
    sides' scores, each with its name, its tiles left and its badges."""
    page, _ = await seated_page(pages, service, PHONE, lang, preset="playelephant", seats=4,
                                partnerships=True,
                                bots=[{"seat": 1}, {"seat": 2}, {"seat": 3}])
    await my_turn(page)
    cards = page.locator(".opponent")
    await expect(cards).to_have_count(3)
    await expect(page.locator(".opponent .tiles-left")).to_have_count(3)
    row = await rect(page, ".seats-row")
    await assert_on_the_screen(page, cards)
    for card in await cards.all():
        box = await card.bounding_box()
        assert box is not None
        tiles = await card.locator(".tiles-left").bounding_box()
        assert tiles is not None and tiles["x"] + tiles["width"] <= box["x"] + box["width"] + 0.5, (
            tiles, box)
        await expect(card.locator(".tiles-left")).to_have_text(re.compile(r"\d+ (tiles|fichas)"))
    await expect(page.locator(".opponent.partner .badge.partner")).to_have_count(1)
    # The row stays small (the scores' line and cards of up to three lines:
    # a partner's has two badges): the board still starts high on the screen.
    assert row["height"] <= 110, row
    assert (await rect(page, "#board-frame"))["y"] < 260
    await page.evaluate("() => window.scrollTo(0, 0)")
    await screenshot(page, shot(tmp_path, name))
