"""The table page as players of the best domino sites expect it (issue #15):
every defect found playing it, and every feature, in real Chromium.

MUGGINS_UPDATE_SCREENSHOTS=1 writes the screenshots these tests take into
docs/ (otherwise they go to a temporary folder and are only checked)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import FloatRect, Page, WebSocketRoute, expect

from tests.support.browser import Pages
from tests.support.clients import SeatClient
from tests.support.pages import (
    create_from_lobby,
    open_full_form,
    play_a_move,
    play_until,
    screenshot,
    shot,
    sideways_overflow,
    sit,
)
from tests.support.service import Running
from tests.support.tables import create
from tests.support.tables import sit as sit_by_api
from tests.support.waits import eventually

HEX64 = re.compile(r"[0-9a-f]{64}")


async def box(page: Page, selector: str) -> FloatRect:
    found = await page.locator(selector).first.bounding_box()
    assert found is not None, f"{selector} is not on screen"
    return found


async def boxes(page: Page, *selectors: str) -> list[dict[str, float]]:
    """The boxes of ``selectors`` measured at one instant (in one script run):
    a layout that moves between two separate measures must not split them."""
    found: list[dict[str, float] | None] = await page.evaluate(
        """(selectors) => selectors.map((s) => {
             const e = document.querySelector(s);
             if (!e) return null;
             const r = e.getBoundingClientRect();
             return {x: r.x, y: r.y, width: r.width, height: r.height};
           })""", list(selectors))
    assert all(found), f"not all of {selectors} are on the page: {found}"
    return [b for b in found if b is not None]


async def my_turn(page: Page, timeout: float = 30) -> None:
    await expect(page.locator(".tile-button.legal").first).to_be_visible(timeout=timeout * 1000)


async def against_a_bot(pages: Pages, **open_options: Any) -> Page:
    page = await pages.open("/", **open_options)
    await create_from_lobby(page)
    await page.click("#go-to-table")
    await sit(page, "Ana")
    return page


async def hand_on_screen(page: Page, height: int) -> None:
    """Every tile of the player's hand, every row of it, inside the screen."""
    tiles = await page.locator("#hand .tile-button").evaluate_all(
        """(all) => all.map((b) => {
             const r = b.getBoundingClientRect();
             return {tile: b.dataset.tile, top: r.top, bottom: r.bottom};
           })""")
    assert tiles
    below = [t for t in tiles if t["top"] < 0 or t["bottom"] > height]
    assert not below, f"off the {height} px screen: {below}"


#: Tiles no double-six set holds, added to the hand the page receives so
#: that it takes two rows on a desktop (the set's own could need many draws).
EXTRA_TILES = [[7, 7], [7, 8], [7, 9], [8, 8], [8, 9], [9, 9],
               [6, 7], [6, 8], [6, 9], [5, 7], [5, 8], [5, 9]]


@pytest.mark.parametrize("height", [800, 900])
async def test_a_long_hand_stays_on_screen_under_a_tall_result(
    pages: Pages, tmp_path: Path, height: int
) -> None:
    """A desktop hand of many tiles put its second row below the screen
    while a tall hand's result (four seats' hands) was open: the result
    grows the felt, whole, and the hand stays at the screen's foot."""

    async def longer_hand(route: WebSocketRoute) -> None:
        server = route.connect_to_server()

        def forward(message: str | bytes) -> None:
            data = json.loads(message)
            view = data.get("view")
            if isinstance(view, dict) and view.get("tiles"):
                # (after the real ones: a test that plays clicks the first that fits)
                view["tiles"] = [*view["tiles"], *EXTRA_TILES]
            route.send(json.dumps(data))

        server.on_message(forward)

    page = await pages.open("/", width=1280, height=height,
                            before=lambda page: page.route_web_socket(re.compile(r".*/play$"),
                                                                      longer_hand))
    await create_from_lobby(page, seats=4, partners=True)
    await page.click("#go-to-table")
    await sit(page, "Ana")
    await play_until([(page, "#hand-over")])
    await my_turn(page)
    result = page.locator("#result")
    await expect(result).to_be_visible()
    rows = await page.locator("#hand .tile-button").evaluate_all(
        "(all) => new Set(all.map((b) => Math.round(b.getBoundingClientRect().top / 20))).size")
    assert rows >= 2, "the hand takes one row: this test proves nothing"
    # At the page's top (as a player sees it after clicking down the hand),
    # the felt leaves no room for the hand under it.
    await page.evaluate("() => window.scrollTo(0, 0)")
    felt, hand = await boxes(page, ".felt", "#hand")
    assert felt["y"] + felt["height"] + hand["height"] > height, "the result is not tall enough"
    # The result stays whole (nothing scrolls inside it) and over the board.
    inner = await page.evaluate("""() => { const r = document.getElementById('result');
                                           return r.scrollHeight - r.clientHeight; }""")
    assert inner <= 1, inner
    await hand_on_screen(page, height)
    await screenshot(page, shot(tmp_path, f"table-long-hand-result-{height}.png"))
    # Scrolled down, the hand is back in its place under the felt.
    await page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
    felt, hand = await boxes(page, ".felt", "#hand")
    assert hand["y"] >= felt["y"] + felt["height"] - 1, (felt, hand)


async def test_a_spinner_on_the_left_arm_opens_up_above_and_down_below(pages: Pages) -> None:
    """Defect 1: with the spinner on the left arm, "up" was drawn below it."""
    page = await pages.open("/guide/playelephant")
    positions = await page.evaluate("""async () => {
        const { drawBoard } = await import("/static/board.js");
        const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
        svg.setAttribute("width", "900"); svg.setAttribute("height", "700");
        document.body.prepend(svg);
        const layout = {
          lead: [3, 5], count: 0, spinners: [[6, 6]],
          arms: [{ end: 0, tiles: [[5, 6], [6, 6]], open: 6 }, { end: 1, tiles: [[3, 1]], open: 1 },
                 { end: 2, tiles: [[6, 2]], open: 2 }, { end: 3, tiles: [[6, 4]], open: 4 }],
          spinner_places: [{ tile: [6, 6], arm: 0, position: 1, short_arms: [2, 3] }],
        };
        const centreY = (element) => {
          const r = element.getBoundingClientRect();
          return r.top + r.height / 2;
        };
        const result = {};
        drawBoard(svg, layout, { targets: [2, 3] });
        result.spinner = centreY(svg.querySelector('[data-tile="6-6"]'));
        result.up = centreY(svg.querySelector('[data-tile="2-6"]'));
        result.down = centreY(svg.querySelector('[data-tile="4-6"]'));
        result.upTarget = centreY(svg.querySelector('.end-target[data-end="2"]'));
        result.downTarget = centreY(svg.querySelector('.end-target[data-end="3"]'));
        // The same on the right arm (it was right there already).
        layout.arms = [{ end: 0, tiles: [[5, 1]], open: 1 },
                       { end: 1, tiles: [[3, 6], [6, 6]], open: 6 },
                       { end: 2, tiles: [[6, 2]], open: 2 }, { end: 3, tiles: [[6, 4]], open: 4 }];
        layout.spinner_places = [{ tile: [6, 6], arm: 1, position: 1, short_arms: [2, 3] }];
        drawBoard(svg, layout, {});
        result.rightUp = centreY(svg.querySelector('[data-tile="2-6"]'));
        result.rightSpinner = centreY(svg.querySelector('[data-tile="6-6"]'));
        result.rightDown = centreY(svg.querySelector('[data-tile="4-6"]'));
        return result;
    }""")
    assert positions["up"] < positions["spinner"] < positions["down"], positions
    assert positions["upTarget"] < positions["spinner"] < positions["downTarget"], positions
    assert positions["rightUp"] < positions["rightSpinner"] < positions["rightDown"], positions


async def test_a_board_drawn_again_unchanged_is_left_as_it_is_and_keeps_its_marks(
    pages: Pages,
) -> None:
    """The table page draws for every message: the same board, box and
    options leave the drawing as it is (its elements, its listeners); a
    change draws it anew; a new box draws it again with its seats' marks."""
    page = await pages.open("/guide/playelephant")
    found = await page.evaluate("""async () => {
        const { drawBoard } = await import("/static/board.js");
        const frame = document.createElement("div");
        frame.style.width = "600px"; frame.style.height = "400px";
        const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
        frame.append(svg);
        document.body.prepend(frame);
        const layout = { lead: [3, 5], count: 8, spinners: [],
          arms: [{ end: 0, tiles: [[5, 6]], open: 6 }, { end: 1, tiles: [[3, 1]], open: 1 }],
          spinner_places: [] };
        const chosen = [];
        const options = { frame, marked: [{ seat: 1, tile: [1, 3] }], targets: [0, 1],
                          pending: [6, 1], chosen: 0, onTarget: () => {},
                          onChoose: (arm) => chosen.push(arm) };
        drawBoard(svg, layout, options);
        const first = svg.querySelector('[data-tile="1-3"]');
        drawBoard(svg, layout, { ...options, onTarget: () => {}, onChoose: options.onChoose });
        const same = svg.querySelector('[data-tile="1-3"]') === first;
        drawBoard(svg, layout, { ...options, chosen: 1 });
        const redrawn = svg.querySelector('[data-tile="1-3"]') !== first;
        const pointed = new PointerEvent("pointerenter");
        svg.querySelector('.end-target[data-end="1"]').dispatchEvent(pointed);
        const before = svg.querySelector('[data-tile="1-3"]');
        frame.style.width = "420px";  // a new box: the resize observer draws it again
        const deadline = performance.now() + 3000;
        while (svg.querySelector('[data-tile="1-3"]') === before && performance.now() < deadline) {
          await new Promise((r) => setTimeout(r, 16));
        }
        const mark = svg.querySelector('[data-tile="1-3"]');
        // The end chosen in place (as the page does on pointing) stays chosen
        // through a redraw for a new box, and a draw with it changes nothing.
        const { showsChosen } = await import("/static/board.js");
        showsChosen(svg, 0);
        drawBoard(svg, layout, { ...options, chosen: 0 });
        const kept = svg.querySelector('[data-tile="1-3"]');
        frame.style.width = "500px";
        const until = performance.now() + 3000;
        while (svg.querySelector('[data-tile="1-3"]') === kept && performance.now() < until) {
          await new Promise((r) => setTimeout(r, 16));
        }
        const chosenAfter = svg.querySelector('.end-target.chosen')?.dataset.end;
        return { same, redrawn, chosen, resized: mark !== before, chosenAfter,
                 keptChosen: kept !== svg.querySelector('[data-tile="1-3"]'),
                 marked: mark.classList.contains("seat-last"), seat: mark.dataset.lastSeat };
    }""")
    assert found["same"] and found["redrawn"], found
    assert found["chosen"] == [1], found
    assert found["resized"], found
    assert found["marked"] and found["seat"] == "1", found
    assert found["keptChosen"] and found["chosenAfter"] == "0", found


async def test_a_hand_against_a_bot_as_a_player_expects_it(
    pages: Pages, tmp_path: Path
) -> None:
    """Defects 2, 4, 5, 6 and 11, and the last move, the score sheet, the
    sound switch, the board described in words, the replay's last step."""
    page = await against_a_bot(pages)
    # The name field was focused when the seats were offered (defect 11).
    assert await page.evaluate("() => document.activeElement?.id") in ("name", None, "")
    await my_turn(page)
    # How the table names the tiles dealt (the replay names them alike, below).
    named_at_table = set(await page.locator("#hand .tile-button").evaluate_all(
        "(all) => all.map((b) => b.getAttribute('aria-label'))"))
    # The selection starts on a tile that fits, and Enter on one that does not says so.
    await expect(page.locator(".tile-button.selected.legal")).to_have_count(1)
    illegal = page.locator('.tile-button[data-legal="false"]')
    if await illegal.count():
        index = await page.locator(".tile-button").evaluate_all(
            "(all) => all.findIndex((b) => b.dataset.legal === 'false')")
        selected = await page.locator(".tile-button").evaluate_all(
            "(all) => all.findIndex((b) => b.classList.contains('selected'))")
        count = await page.locator(".tile-button").count()
        for _ in range((index - selected) % count):
            await page.keyboard.press("ArrowRight")
        await page.keyboard.press("Enter")
        await expect(page.locator("#toast")).to_contain_text("does not fit")
    await play_a_move(page)
    await expect(page.locator("#layout .tile.last")).to_have_count(1)
    await screenshot(page, shot(tmp_path, "table-2-seats.png"))
    await expect(page.locator("#board-description")).to_contain_text("count")
    await expect(page.locator("body")).to_have_attribute("data-last-sound", re.compile(r"\w+"))
    # The sounds' audio ran, and is suspended in the silence after them
    # (two seconds of it); the next sound runs it again.
    suspended_after_runs = await page.wait_for_function(
        "() => document.body.dataset.audioState === 'suspended'"
        " && Number(document.body.dataset.audioRuns)", timeout=10_000)
    runs = int(await suspended_after_runs.json_value())
    body = page.locator("body")
    # A reload mid-hand keeps the history and the hand's commitment (defects 4, 5).
    await eventually(lambda: play_a_move(page), within=15, what="a move played")
    await my_turn(page)

    async def ran_again() -> bool:
        return int(await body.get_attribute("data-audio-runs") or 0) > runs

    await eventually(ran_again, within=10, what="the audio running again for the next sound")
    lines_before = await page.locator("#log li").all_inner_texts()
    assert any("Hand 1" in line for line in lines_before)
    await page.reload()
    await expect(page.locator("body")).to_have_attribute("data-catching-up", "false")
    lines_after = await page.locator("#log li").all_inner_texts()
    assert lines_after[: len(lines_before)] == lines_before
    # The sound switch is remembered across the reload.
    await page.click("#sound-switch")
    await expect(page.locator("#sound-switch")).to_have_attribute("aria-pressed", "false")
    await page.reload()
    await expect(page.locator("#sound-switch")).to_have_attribute("aria-pressed", "false")
    await play_until([(page, "#hand-over")])
    result = page.locator("#result")
    await expect(result).to_be_visible()
    assert HEX64.fullmatch(await page.locator("#commitment").text_content() or "")
    assert HEX64.fullmatch(await page.locator("#revealed-seed").text_content() or "")
    # The result lies over the board, the final board in it (defects 2, 6) ...
    felt, over = await boxes(page, ".felt", "#result")
    assert over["y"] >= felt["y"] - 1
    assert over["y"] + over["height"] <= felt["y"] + felt["height"] + 1
    assert await page.locator("#final-board .tile").count() > 0
    assert await page.locator("#hand-score-lines li").count() >= 1
    await screenshot(page, shot(tmp_path, "table-hand-result.png"))
    # ... and stays while the next hand is dealt, the player's tiles in view.
    await my_turn(page)
    await expect(result).to_be_visible()
    # Every row of it (a second row fell below a tall result: see
    # test_a_long_hand_stays_on_screen_under_a_tall_result).
    await hand_on_screen(page, 900)
    # The score sheet (S), then the result closes with Escape.
    await page.keyboard.press("Escape")
    await expect(result).to_be_hidden()
    await page.keyboard.press("s")
    await expect(page.locator("#score-sheet tbody tr")).not_to_have_count(0)
    await page.keyboard.press("Escape")
    # The replay's last step still shows the board and the hands left (defect 6).
    link = page.url.replace("/play/", "/replay/").split("?")[0] + "/1?game=1"
    replay = await pages.open(link.replace(pages.base_url, ""))
    await expect(replay.locator("#verdict")).to_have_attribute("data-status", "fair")
    # The deal (the first step that shows hands) names Ana's tiles as the
    # table did: the higher half first, one function for both pages (the
    # replay said "1-6").
    dealt = replay.locator("#hands li", has_text="Ana").locator(".tile-svg")
    for _ in range(3):
        if await dealt.count():
            break
        await replay.keyboard.press("ArrowRight")
    await expect(dealt).to_have_count(7)
    named_in_replay = set(await dealt.evaluate_all(
        "(all) => all.map((s) => s.getAttribute('aria-label'))"))
    assert named_in_replay <= named_at_table, (named_in_replay, named_at_table)
    await replay.keyboard.press("End")
    await expect(replay.locator("#layout .tile").first).to_be_visible()
    # The expert's analysis of the hand (issue #16): every choice judged.
    await replay.click("#analyse")
    await expect(replay.locator("#decisions li").first).to_be_visible(timeout=30_000)
    await expect(replay.locator("#analysis-summary")).to_contain_text("expected points")
    await replay.locator("#decisions li button").first.click()
    await expect(replay.locator("#step-judgement")).to_be_visible()
    await screenshot(replay, shot(tmp_path, "replay.png"), full_page=True)


@pytest.mark.slow
@pytest.mark.parametrize(("lang", "size", "words", "name"), [
    ("en", {}, "Nobody scored this hand.", "table-hand-no-points-en.png"),
    ("es", {"width": 390, "height": 844, "is_mobile": True, "has_touch": True},
     "Nadie anotó en esta mano.", "table-hand-no-points-phone-es.png"),
], ids=["desktop-en", "phone-es"])
async def test_a_hand_nobody_scored_in_says_so(
    pages: Pages, tmp_path: Path, lang: str, size: dict[str, Any], words: str, name: str
) -> None:
    """A hand can end with no points at all: no play made a multiple of five,
    and the winner's award rounds to nothing (seen in a full run: one hand
    in about 3,000 of a player against a greedy bot).  Its result showed a
    score sheet with nothing under it.  Here every score is kept from the
    page on its way (so any hand is one nobody scored in, as the page
    sees it): the result says so, and a domino shows its award's rounding."""

    def without_scores(route: WebSocketRoute) -> None:
        server = route.connect_to_server()

        def to_page(message: str | bytes) -> None:
            sent = json.loads(message)
            if not (sent.get("type") == "event" and sent["event"]["type"] == "PointsScored"):
                route.send(message)

        server.on_message(to_page)

    page = await pages.open(
        f"/?lang={lang}", **size,
        before=lambda page: page.route_web_socket(re.compile(r".*/play$"), without_scores))
    await create_from_lobby(page)
    await page.click("#go-to-table")
    await sit(page, "Ana")
    await play_until([(page, "#hand-over")])
    # (the next hand is dealt at once here: its result may be folded already)
    with contextlib.suppress(PlaywrightError):
        await page.click("#open-result", timeout=2000)
    lines = page.locator("#hand-score-lines li")
    await expect(page.locator("#no-points")).to_be_visible()
    await expect(page.locator("#no-points")).to_have_text(words)
    outcome = await page.locator("#hand-over .outcome").inner_text()
    if await lines.count() == 2:  # a domino: the award's rounding, to nothing
        await expect(lines.nth(1)).to_contain_text("→ 0")
    else:
        await expect(lines).to_have_count(1)
    assert await sideways_overflow(page) <= 0, outcome
    await screenshot(page, shot(tmp_path, name))


#: The clock's element watched for two seconds: how many changes it saw
#: (its text, its attributes), and how many of them left what it shows as
#: it was (a write of the same text or title).
CLOCK_WRITES_IN_TWO_SECONDS = """() => new Promise((done) => {
  const clock = document.getElementById("clock");
  const seen = [];
  const watch = new MutationObserver((records) => { seen.push(...records); });
  watch.observe(clock, {childList: true, characterData: true, subtree: true,
                        attributes: true, attributeOldValue: true, characterDataOldValue: true});
  setTimeout(() => {
    seen.push(...watch.takeRecords());
    watch.disconnect();
    const text = (nodes) => [...nodes].map((node) => node.textContent).join("");
    // An attribute's value after a change: the next change's old value, else its value now.
    const after = (index, record) => {
      const next = seen.slice(index + 1).find((later) => later.type === record.type
        && later.target === record.target && later.attributeName === record.attributeName);
      if (next) return next.oldValue;
      return record.type === "attributes"
        ? record.target.getAttribute(record.attributeName) : record.target.data;
    };
    const unchanged = seen.filter((record, index) => record.type === "childList"
      ? text(record.removedNodes) === text(record.addedNodes)
      : after(index, record) === record.oldValue).length;
    done({changes: seen.length, unchanged});
  }, 2000);
})"""


async def test_the_clock_runs_from_the_first_turn_warns_and_marks_the_bots_move(
    pages: Pages, service: Running
) -> None:
    """Defect 3: no clock on the first turn after a reload; no warning; a move
    the bot made for the player was logged as the player's."""
    created = await service.http.post("/tables", json={"bots": [{"seat": 1}],
                                                       "turn_clock_seconds": 12})
    table_id = created.json()["table_id"]
    page = await pages.open(f"/play/{table_id}")
    await sit(page, "Slow")
    await my_turn(page)
    await page.reload()
    await my_turn(page)
    await expect(page.locator("#clock")).to_contain_text(re.compile(r"\d+ s"), timeout=1000)
    # Written when what it shows changes, not at each of its four redraws a
    # second: a write of the same text still lays out and paints a frame
    # (writing at every redraw, 12 of 17 changes in 2 s left it as it was).
    writes = await page.evaluate(CLOCK_WRITES_IN_TWO_SECONDS)
    assert writes["changes"] >= 2 and writes["unchanged"] == 0, writes
    await expect(page.locator("#toast")).to_contain_text("10 seconds left", timeout=6000)
    await expect(page.locator("#clock")).to_have_class(re.compile("low"))
    await expect(page.locator("#log li.for-you").first).to_contain_text(
        "played for you by a bot", timeout=15_000)


async def test_offline_clicks_are_refused_and_a_silent_connection_is_noticed(
    pages: Pages,
) -> None:
    """Defect 7: clicks while offline were dropped silently; a connection
    that stopped answering without closing went unnoticed."""
    routes: list[WebSocketRoute] = []
    deaf: set[int] = set()

    async def through(route: WebSocketRoute) -> None:
        server = route.connect_to_server()
        number = len(routes)
        routes.append(route)
        server.on_message(lambda message: None if number in deaf else route.send(message))

    page = await against_a_bot(
        pages, before=lambda page: page.route_web_socket(re.compile(r".*/play$"), through))
    await my_turn(page)
    version = await page.get_attribute("body", "data-version")
    await page.context.set_offline(True)
    await expect(page.locator("#banner")).to_contain_text("offline")
    await page.locator(".tile-button.legal").first.click()
    if await page.locator("#prompt").is_visible():  # the tile fits two ends: pick one
        await page.locator("#prompt .end-choice").first.click()
    await expect(page.locator("#toast")).to_contain_text("Not sent")
    assert await page.get_attribute("body", "data-version") == version
    await page.context.set_offline(False)
    # The connection goes deaf (nothing comes back, nothing closes): the next
    # move gets no answer, and the page says so and connects again.
    deaf.add(len(routes) - 1)
    await play_a_move(page)
    await expect(page.locator("#toast")).to_contain_text("did not answer", timeout=10_000)
    await expect(page.locator("#banner")).to_contain_text("Reconnected", timeout=15_000)
    assert len(routes) >= 2
    await play_until([(page, "#hand-over")])


async def test_a_muggins_rule_table_shows_the_claim_and_what_an_opponent_missed(
    pages: Pages, service: Running
) -> None:
    """Defect 12: the claim box and the call sat below the fold; nothing said
    an opponent under-claimed."""
    table = await create(service, preset="classic-muggins")
    table_id = table["table_id"]
    page = await pages.open(f"/play/{table_id}")
    await sit(page, "Ana")
    granted = await sit_by_api(service, table_id, 1, "Bea")
    bea = await SeatClient.connect(service.ws_url, table_id, granted["token"])

    async def bea_never_claims() -> None:
        while True:
            if bea.may_play():
                await bea.play_once()  # no claim: any count she makes is missed
            await bea.receive(30)

    playing = asyncio.create_task(bea_never_claims())
    try:
        bar = page.locator("#muggins-bar")
        await expect(bar).to_be_visible()
        bar_box, felt = await boxes(page, "#muggins-bar", ".felt")
        assert bar_box["y"] + bar_box["height"] <= felt["y"] and bar_box["y"] < 900
        deadline = time.monotonic() + 90
        called = False
        while not called:
            assert time.monotonic() < deadline, "Bea never left a count unclaimed to call"
            with contextlib.suppress(PlaywrightError):
                if await page.locator("#unclaimed").count():
                    await expect(page.locator("#unclaimed")).to_contain_text("Bea", timeout=500)
                    # (A play already on its way may close the chance: then try again.)
                    await page.click("#call-muggins", timeout=1000)
                    await expect(page.locator("#log")).to_contain_text(
                        "Ana calls muggins", timeout=2000)
                    called = True
                    continue
                if await page.locator("#close-result").count():
                    await page.click("#close-result", timeout=500)
                if await page.locator("#claim").count():
                    await page.locator("#claim").fill("0", timeout=500)
            if not await play_a_move(page):
                await asyncio.sleep(0.05)
    finally:
        playing.cancel()
        with contextlib.suppress(BaseException):
            await playing
        await bea.close()


async def test_the_table_chat_reaches_players_and_spectators_within_its_limits(
    pages: Pages,
) -> None:
    ana = await pages.open("/")
    link = await create_from_lobby(ana, people=(0, 1))
    table_id = link.rsplit("/", 1)[1]
    await ana.goto(link)
    await sit(ana, "Ana")
    # A free seat: Ana's page offers the link to it, until Bea takes it.
    await expect(ana.locator("#share-link")).to_have_value(re.compile(r"/play/"))
    bea = await pages.open(link.replace(pages.base_url, ""))
    await sit(bea, "Bea")
    await expect(ana.locator("#share-link")).to_have_count(0)
    await expect(ana.locator("#watch-link")).to_have_value(re.compile(r"/watch/"))
    watcher = await pages.open(f"/watch/{table_id}")
    await expect(watcher.locator("#game")).to_be_visible()
    await ana.fill("#chat-text", "hola a todos")
    await ana.press("#chat-text", "Enter")
    for page in (ana, bea, watcher):
        await expect(page.locator("#chat")).to_contain_text("hola a todos")
    await watcher.click('.phrase[data-phrase="gg"]')
    await expect(ana.locator("#chat")).to_contain_text("Good game!")
    # Bea mutes Ana: her lines are hidden on Bea's page, and stay hidden.
    await bea.locator("#chat .chat-name", has_text="Ana").first.click()
    await expect(bea.locator("#chat li.muted-line")).to_have_count(1)
    await bea.reload()
    await expect(bea.locator("#chat li.muted-line")).to_have_count(1)
    # Too fast: refused, and said.
    for n in range(6):
        await ana.fill("#chat-text", f"spam {n}")
        await ana.press("#chat-text", "Enter")
    # ... with the wait the server told (the page's words, not the server's).
    await expect(ana.locator("#toast")).to_have_text(re.compile(r"too fast: wait \d+ s\."))
    # Some of the six were refused (how many got through depends on how fast
    # they were typed: the allowance refills with time).
    shown = await ana.locator("#chat li").count()
    assert 2 < shown < 2 + 6, shown  # the greeting, the phrase, part of the burst


async def test_four_seats_read_as_people_expect(pages: Pages, tmp_path: Path) -> None:
    """Defect 8: bots named alike, the partner unmarked, seats from 0; the
    words of the log; a four-seat table mid-game."""
    page = await pages.open("/")
    await create_from_lobby(page, seats=4, partners=True, people=(0,))
    await expect(page.locator("#bot-seats label").first).to_have_text("Seat 1")
    await expect(page.locator("#bots legend")).to_have_text("Who sits where")
    await page.click("#go-to-table")
    await sit(page, "Ana")
    opponents = page.locator(".opponent")
    await expect(opponents).to_have_count(3)
    names = [await o.get_attribute("data-seat") for o in await opponents.all()]
    assert names == ["1", "2", "3"]
    texts = await opponents.all_inner_texts()
    bot_names = {text.split("\n")[0].split(" ", 1)[1].split("bot")[0].strip() for text in texts}
    assert len(bot_names) == 3, texts
    await expect(page.locator(".opponent.partner .badge.partner")).to_have_count(1)
    await expect(page.locator('.opponent.partner[data-seat="2"]')).to_have_count(1)
    # Each seat once in the seats row: the sides' scores as a score sheet
    # says them, the seats after them (the walk of a newcomer read "Bruno &
    # Dario 0" and then "2 Bruno", "4 Dario").
    row = await page.locator(".seats-row").inner_text()
    for name in ("Bruno", "Carmen", "Dario"):
        assert row.count(name) == 1, row
    await expect(page.locator("#scores .side.mine")).to_have_text(re.compile(r"^Us\s*\d+$"))
    await expect(page.locator('#scores .side:not(.mine)')).to_have_text(re.compile(r"^Them\s*\d+$"))
    await my_turn(page, 60)
    await screenshot(page, tmp_path / "table-4-seats-start.png")
    log = " ".join(await page.locator("#log li").all_inner_texts())
    assert "you draws" not in log and "on the up" not in log and "on the down" not in log


async def test_spanish_from_the_address_and_from_the_seeds(pages: Pages) -> None:
    """Defects 8 and 9: ?lang=es was ignored; Spanish said "por la abajo"."""
    page = await pages.open("/?lang=es")
    await expect(page.locator("#create-button")).to_have_text("Crear mesa")
    assert await page.get_attribute("html", "lang") == "es"
    # The games come from /presets after the page's own words: waited for
    # (read at once, the list was once still empty).
    await expect(page.locator("#preset option", has_text="Múltiplos de cinco (sin cruce)")
                 ).to_have_count(1)
    options = await page.locator("#preset option").all_text_contents()
    assert "Múltiplos de cinco (sin cruce)" in options and "fives-and-threes" not in options
    await create_from_lobby(page)
    await page.click("#go-to-table")
    await sit(page, "Ana")
    await play_until([(page, "#hand-over")])
    log = " ".join(await page.locator("#log li").all_inner_texts())
    assert "Mano 1" in log and ("sale con" in log)
    assert "por la abajo" not in log and "por la arriba" not in log
    # (Hand 1's result folds into a strip when Ana's turn comes at once in
    # hand 2: the card seen may be a later hand's.)
    assert re.fullmatch(r"Fin de la mano \d+",
                        await page.locator("#result h3").first.inner_text())


async def test_phone_width_keyboard_reach_and_labels(pages: Pages, tmp_path: Path) -> None:
    """Defects 10 and 11: the lobby wider than a phone, small end buttons, the
    keyboard hint on a touch phone, ten Tabs to "Create table" (now "Play now"
    has the focus from the start, issue #25); every control labelled."""
    desk = await pages.open("/")
    await desk.wait_for_selector("#preset option", state="attached")
    tabs = 0
    while await desk.evaluate("() => document.activeElement?.id") != "play-now":
        await desk.keyboard.press("Tab")
        tabs += 1
        assert tabs <= 1, "Play now is not where the keyboard starts"
    phone = await pages.open("/", width=390, height=844, is_mobile=True, has_touch=True)
    await phone.wait_for_selector("#board-rows tr", state="attached")
    assert await sideways_overflow(phone) <= 0
    await create_from_lobby(phone)
    await phone.click("#go-to-table")
    await sit(phone, "Ana")
    await my_turn(phone)
    assert await sideways_overflow(phone) <= 0
    await expect(phone.locator("body")).to_have_class(re.compile("touch"))
    await expect(phone.locator("#keys")).to_be_hidden()
    heights = await phone.evaluate("""() => {
        const probe = document.createElement("button");
        document.getElementById("prompt").append(probe);
        const style = getComputedStyle(probe);
        return [parseFloat(style.minHeight), parseFloat(style.minWidth)];
    }""")
    assert heights[0] >= 44 and heights[1] >= 44, heights
    await screenshot(phone, shot(tmp_path, "table-phone.png"), full_page=True)
    unlabelled = await phone.evaluate("""() => [
        ...[...document.querySelectorAll("button")].filter((b) => b.offsetParent !== null
            && !(b.textContent.trim() || b.getAttribute("aria-label"))).map((b) => b.outerHTML),
        ...[...document.querySelectorAll("input, select")].filter((i) => i.offsetParent !== null
            && !(i.labels?.length || i.getAttribute("aria-label"))).map((i) => i.outerHTML),
    ]""")
    assert not unlabelled, unlabelled


async def test_the_rules_and_the_guide_are_a_key_away(pages: Pages, tmp_path: Path) -> None:
    page = await against_a_bot(pages)
    await page.keyboard.press("r")
    dialog = page.locator("#rules-dialog")
    await expect(dialog).to_be_visible()
    await expect(dialog.locator("dt").first).to_be_visible()
    href = await page.get_attribute("#guide-link", "href")
    assert href is not None and href.startswith("/guide/playelephant")
    guide = await pages.open(href)
    await expect(guide.locator("#guide-title")).to_have_text("All Fives")
    await expect(guide.locator(".example")).not_to_have_count(0)
    assert await guide.locator(".example .tile").count() > 3
    await expect(guide.locator("#guide-tips li")).not_to_have_count(0)
    await expect(guide.locator("#guide-faq dt")).not_to_have_count(0)
    await screenshot(guide, shot(tmp_path, "guide.png"), full_page=True)
    missing = await pages.open("/guide/nonesuch")
    pages.expect_error("404")
    await expect(missing.locator("#fatal")).to_be_visible()


async def test_one_player_across_browsers(pages: Pages) -> None:
    """Defect 8: the leaderboard showed one person three times, once per browser."""
    first = await against_a_bot(pages)
    await first.goto("/")
    link = await first.input_value("#identity-link")
    assert "#identity=" in link
    identity = await first.evaluate("() => JSON.parse(localStorage.getItem('muggins.player'))")
    second = await pages.open(link.replace(pages.base_url, ""))
    await second.click("#identity-accept")  # asked first (tests/browser/test_identity_links.py)
    await expect(second.locator("#identity-card")).to_be_visible()
    assert "#identity" not in second.url  # the secret does not stay in the address
    await create_from_lobby(second)
    await second.click("#go-to-table")
    await sit(second, "Ana")
    again = await second.evaluate("() => JSON.parse(localStorage.getItem('muggins.player'))")
    assert again["player_id"] == identity["player_id"]


async def test_a_casual_table_gives_hints_and_says_so(pages: Pages) -> None:
    """Issue #16: on a casual table a player may ask for the expert's play."""
    page = await pages.open("/")
    await open_full_form(page)
    await page.click("#more-options summary")
    await page.check("#hints")
    await create_from_lobby(page)
    await page.click("#go-to-table")
    await sit(page, "Ana")
    await expect(page.locator("#table-title")).to_have_text("Ana's table · All Fives · casual")
    await my_turn(page)
    await page.click("#hint-button")
    # In words a player uses (issue #25): the tile, the end, what it scores now.
    await expect(page.locator("#hint-text")).to_have_text(
        re.compile(r"^Best: (lead \d-\d|\d-\d (at|on) the \w+( end| arm)?): scores"),
        timeout=20_000)
    assert "worth" not in await page.locator("#hint-text").inner_text()
    await expect(page.locator(".tile-button.hinted.legal")).to_have_count(1)
