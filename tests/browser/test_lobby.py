"""The lobby for players (issue #25, items 7-9): "Play now" seats you in one
click, quick choices for one against one and partnerships, the games in
words, tables named for people with free seats first, a casual table's
title, the Spanish words; at a phone's and a desktop's size, in English and
Spanish, with the screenshots docs/client.md shows."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page, Route, expect

from tests.support.browser import Pages
from tests.support.pages import play_a_move, play_until, screenshot, shot, sideways_overflow, sit
from tests.support.service import Running
from tests.support.tables import create
from tests.support.tables import sit as sit_by_api
from tests.support.waits import eventually

DESKTOP: dict[str, Any] = {"width": 1280, "height": 800}
PHONE: dict[str, Any] = {"width": 390, "height": 844, "is_mobile": True, "has_touch": True}
#: The default game's name, as each language says it.
ALL_FIVES = {"en": "All Fives", "es": "Dominó a cincos"}


async def lobby(pages: Pages, lang: str, size: dict[str, Any]) -> Page:
    page = await pages.open(f"/?lang={lang}", **size)
    await page.wait_for_selector("#quick-game option", state="attached")
    await expect(page.locator("#play-now-about")).to_contain_text(ALL_FIVES[lang])
    return page


async def some_tables(service: Running) -> None:
    """A table where Bea waits, a casual one nobody sat at, Carla playing a
    bot: the lobby's lists.  (Carla, not a second bot: two bots at the tests'
    pace end their game in a second or two, before a page may list it.)"""
    waiting = await create(service, seats=4, partnerships=True, bots=[{"seat": 1}])
    await sit_by_api(service, waiting["table_id"], 0, "Bea")
    await create(service, preset="muggins", bots=[{"seat": 1}], overrides={"hints": True})
    playing = await create(service, bots=[{"seat": 1, "level": "random"}])
    await sit_by_api(service, playing["table_id"], 0, "Carla")
    # The lobby is its own projector, and the page asks it again only every
    # 5 s: the lists are waited for here, before any page reads them.
    for _ in range(200):
        listed = (await service.http.get("/lobby")).json()
        if ({t["table_id"] for t in listed["playing"]} >= {playing["table_id"]}
                and waiting["table_id"] in {t["table_id"] for t in listed["open"]}):
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the lobby did not list the tables made for it")


@pytest.mark.parametrize(("size", "lang", "name"), [
    (DESKTOP, "en", "desktop-en"), (PHONE, "es", "phone-es"),
    (DESKTOP, "es", "desktop-es"), (PHONE, "en", "phone-en"),
], ids=["desktop-en", "phone-es", "desktop-es", "phone-en"])
async def test_play_now_seats_you_in_one_click(
    pages: Pages, service: Running, tmp_path: Path, size: dict[str, Any], lang: str,
    name: str,
) -> None:
    await some_tables(service)
    page = await lobby(pages, lang, size)
    await expect(page.locator("#playing-tables li[data-table]")).not_to_have_count(0)
    assert await sideways_overflow(page) <= 0
    await expect(page.locator("#play-now")).to_be_focused()
    await screenshot(page, shot(tmp_path, f"lobby-{name}.png"), full_page=True)
    await page.fill("#play-name", "Ana")
    await page.click("#play-now")  # the one click
    await page.wait_for_url(re.compile(r"/play/[A-Za-z0-9]+$"))
    await expect(page.locator("#game")).to_be_visible()
    await expect(page.locator("#sit")).to_be_hidden()
    owner = "Ana's table" if lang == "en" else "Mesa de Ana"
    await expect(page.locator("#table-title")).to_have_text(f"{owner} · {ALL_FIVES[lang]}")
    assert await page.title() == f"{owner} · {ALL_FIVES[lang]} · muggins"
    table_id = page.url.rsplit("/", 1)[1]
    assert table_id not in await page.locator("header").inner_text()
    await expect(page.locator(".opponent")).to_have_count(1)
    await expect(page.locator(".opponent")).to_contain_text("expert" if lang == "en" else "experto")
    await page.wait_for_selector(".tile-button")
    # A tile on the felt, for the picture (Ana leads when the lottery says so).
    await page.wait_for_selector("#layout .tile, .tile-button.legal")
    if not await page.locator("#layout .tile").count():
        await play_a_move(page)
    await page.wait_for_selector("#layout .tile")
    assert await sideways_overflow(page) <= 0
    await screenshot(page, shot(tmp_path, f"table-heading-{name}.png"))


#: A level's name and the start of its line in words, as each language says them.
EASY = {"en": ("easy", "often plays any tile at all"),
        "es": ("fácil", "a menudo juega cualquier ficha")}
EXPERT = {"en": "expert", "es": "experto"}


@pytest.mark.parametrize(("size", "lang", "name"), [
    (DESKTOP, "en", "desktop-en"), (PHONE, "es", "phone-es"),
    (DESKTOP, "es", "desktop-es"), (PHONE, "en", "phone-en"),
], ids=["desktop-en", "phone-es", "desktop-es", "phone-en"])
async def test_the_computers_level_is_chosen_in_the_lobby_and_named_at_the_table(
    pages: Pages, tmp_path: Path, size: dict[str, Any], lang: str, name: str,
) -> None:
    page = await lobby(pages, lang, size)
    choices = page.locator("#quick-levels input[name=quick-level]")
    await expect(choices).to_have_count(4)
    # Play now's level unless another is chosen: the strongest, as before the ladder.
    await expect(page.locator("#quick-levels input[value=expert]")).to_be_checked()
    await expect(page.locator("#play-now-about")).to_contain_text(f"({EXPERT[lang]})")
    easy, about = EASY[lang]
    await expect(page.locator("#quick-levels")).to_contain_text(about)
    await page.locator("#quick-levels label", has_text=about).click()
    await expect(page.locator("#quick-levels input[value=easy]")).to_be_checked()
    await expect(page.locator("#play-now-about")).to_contain_text(f"({easy})")
    assert await sideways_overflow(page) <= 0
    await page.locator("#quick-level").scroll_into_view_if_needed()
    await screenshot(page, shot(tmp_path, f"lobby-levels-{name}.png"))
    await page.click("#quick-duel-bots")
    await page.wait_for_url(re.compile(r"/play/[A-Za-z0-9]+$"))
    await expect(page.locator(".opponent")).to_contain_text(f"bot · {easy}")


async def test_without_a_name_you_sit_as_a_guest(pages: Pages) -> None:
    page = await lobby(pages, "es", PHONE)
    await page.click("#play-now")
    await expect(page.locator("#table-title")).to_have_text(
        re.compile(r"^Mesa de Invitado \d{3} · Dominó a cincos$"))
    # The name is kept: the next table is sat at with it.
    await page.goto("/")
    await expect(page.locator("#play-name")).to_have_value(re.compile(r"^Invitado \d{3}$"))


@pytest.mark.parametrize("lang", ["en", "es"])
async def test_against_the_computer_a_turn_has_minutes(
    pages: Pages, service: Running, lang: str,
) -> None:
    """The walk of a newcomer: the service's 30 s ran out while they read the
    table, and a bot played their first hand for them. Alone among bots, a
    person has 5 minutes a turn, said under "Play now" and on the clock."""
    page = await lobby(pages, lang, PHONE)
    minutes = "5 minutes a turn" if lang == "en" else "5 minutos por turno"
    await expect(page.locator("#play-now-about")).to_contain_text(minutes)
    await page.click("#play-now")
    await page.wait_for_url(re.compile(r"/play/[A-Za-z0-9]+$"))
    table_id = page.url.rsplit("/", 1)[1]
    info = (await service.http.get(f"/tables/{table_id}")).json()
    assert info["turn_clock_seconds"] == 300, info
    await expect(page.locator(".tile-button.legal").first).to_be_visible(timeout=30_000)
    # (a phone shows the time alone beside the turn, its words in the title)
    word = "Clock" if lang == "en" else "Tiempo"
    await expect(page.locator("#clock")).to_have_text(re.compile(r"^[45]:[0-5]\d$"))
    await expect(page.locator("#clock")).to_have_attribute(
        "title", re.compile(rf"^{word}: [45]:[0-5]\d$"))
    # With a friend, the table keeps the service's clock: a person waits there.
    friend = await lobby(pages, lang, PHONE)
    await friend.click("#quick-duel-friends")
    await friend.wait_for_url(re.compile(r"/play/"))
    table_id = friend.url.rsplit("/", 1)[1]
    info = (await service.http.get(f"/tables/{table_id}")).json()
    assert info["turn_clock_seconds"] < 300, info


async def test_quick_choices_for_partners_and_friends(pages: Pages) -> None:
    page = await lobby(pages, "en", DESKTOP)
    # A game played each for themselves has no partnerships: said, and not offered.
    await page.select_option("#quick-game", "all-fives")
    await expect(page.locator("#quick-pairs-bots")).to_be_disabled()
    await expect(page.locator("#pairs-unavailable")).to_contain_text("played by 2, 3 or 4")
    await expect(page.locator("#game-summary")).to_contain_text("150")
    await page.select_option("#quick-game", "sniff")
    await page.fill("#play-name", "Ana")
    await page.click("#quick-pairs-bots")
    await page.wait_for_url(re.compile(r"/play/"))
    await expect(page.locator(".opponent")).to_have_count(3)
    await expect(page.locator(".opponent.partner")).to_have_count(1)
    await expect(page.locator("#table-title")).to_have_text(
        "Ana's table · Sniff (Muggins with a spinner)")
    # Every seat taken (Ana and three bots): no friend to invite, a link to watch.
    await expect(page.locator("#watch-link")).to_have_value(re.compile(r"/watch/"))
    await expect(page.locator("#links-card")).to_contain_text("spectators")
    await expect(page.locator("#share-link")).to_have_count(0)
    # With a friend: seated, the table waits and shows the link to send.
    friend = await lobby(pages, "es", PHONE)
    await friend.fill("#play-name", "Bea")
    await friend.click("#quick-duel-friends")
    await friend.wait_for_url(re.compile(r"/play/"))
    await expect(friend.locator("#share-link")).to_have_value(re.compile(r"/play/"))
    await expect(friend.locator("#table-title")).to_have_text("Mesa de Bea · Dominó a cincos")


BOTH_SIZES_AND_LANGUAGES = pytest.mark.parametrize(
    ("size", "lang"), [(DESKTOP, "en"), (PHONE, "es"), (DESKTOP, "es"), (PHONE, "en")],
    ids=["desktop-en", "phone-es", "desktop-es", "phone-en"])


@BOTH_SIZES_AND_LANGUAGES
async def test_the_lobby_lists_free_seats_first_with_names(
    pages: Pages, service: Running, size: dict[str, Any], lang: str,
) -> None:
    # Carla playing a bot, not two bots: at the tests' pace their game could
    # end before the page lists it (seen once in a fresh clone).
    playing = await create(service, bots=[{"seat": 1, "level": "random"}])
    await sit_by_api(service, playing["table_id"], 0, "Carla")
    empty = await create(service, bots=[{"seat": 1}], overrides={"hints": True})
    waiting = await create(service, seats=4, partnerships=True, bots=[{"seat": 1}])
    await sit_by_api(service, waiting["table_id"], 0, "Bea")

    async def in_the_lobby() -> bool:
        answer = (await service.http.get("/lobby", params={"limit": 200})).json()
        return any(t["table_id"] == waiting["table_id"] and t["name"] == "Bea's table"
                   for t in answer["open"]) and any(
            t["table_id"] == playing["table_id"] for t in answer["playing"])

    await eventually(in_the_lobby, what="the lobby's read model catching up")
    page = await lobby(pages, lang, size)
    tables = page.locator("#tables")
    await expect(tables.locator(f'li[data-table="{waiting["table_id"]}"]')).to_be_visible()
    # Free seats come first: the open list, Bea waiting at the top, then games to watch.
    order = await tables.locator("li[data-table]").evaluate_all(
        "(items) => items.map((li) => [li.closest('ul').id, li.dataset.table])")
    lists = [where for where, _ in order]
    assert lists.index("playing-tables") > len(lists) - 1 - lists[::-1].index("open-tables")
    assert order[0][1] == waiting["table_id"]
    first = tables.locator("#open-tables li").first
    bea = "Bea's table" if lang == "en" else "Mesa de Bea"
    await expect(first).to_contain_text(bea)
    casual = "casual" if lang == "en" else "amistosa"
    await expect(tables.locator(f'li[data-table="{empty["table_id"]}"]')).to_contain_text(
        f"{ALL_FIVES[lang]} · {casual}")
    await expect(tables.locator(f'li[data-table="{playing["table_id"]}"]')).to_contain_text(
        ALL_FIVES[lang])
    text = await tables.inner_text()
    for table in (playing, empty, waiting):
        assert table["table_id"] not in text  # names, never ids
    assert await sideways_overflow(page) <= 0


@BOTH_SIZES_AND_LANGUAGES
async def test_a_casual_table_reads_as_its_game(
    pages: Pages, service: Running, size: dict[str, Any], lang: str,
) -> None:
    table = await create(service, bots=[{"seat": 1}], overrides={"hints": True})
    page = await pages.open(f"/play/{table['table_id']}?lang={lang}", **size)
    await sit(page, "Ana")
    heading = ("Ana's table · All Fives · casual" if lang == "en"
               else "Mesa de Ana · Dominó a cincos · amistosa")
    await expect(page.locator("#table-title")).to_have_text(heading)
    assert "custom" not in await page.locator("header").inner_text()


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
async def test_spanish_words_players_use(
    pages: Pages, tmp_path: Path, size: dict[str, Any],
) -> None:
    page = await lobby(pages, "es", size)
    await page.click("#words > summary")
    words = page.locator("#words-explained")
    await expect(words.locator("dt")).to_contain_text(["La cuenta", "Cruce", "Pozo"])
    games = await page.locator("#quick-game option").all_inner_texts()
    assert "Múltiplos de cinco (sin cruce)" in games and "Cincos y treses" in games
    assert not [g for g in games if "spinner" in g.lower()], games
    # The rules in words say "cruce", naming "spinner" once for who knows it in English.
    await page.click("#full-form > summary")
    await expect(page.locator("#rules")).to_contain_text("es el cruce (en inglés, spinner)")
    rules = await page.locator("#rules").inner_text()
    assert "tablas" not in rules
    assert await sideways_overflow(page) <= 0
    if size is PHONE:
        await screenshot(page, shot(tmp_path, "lobby-words-phone-es.png"), full_page=True)


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
async def test_the_games_and_their_words_in_plain_english(
    pages: Pages, size: dict[str, Any],
) -> None:
    page = await lobby(pages, "en", size)
    await page.click("#words > summary")
    await expect(page.locator("#words-explained dt")).to_contain_text(
        ["The count", "Spinner", "Boneyard", "Going out (domino)", "Blocked hand"])
    games = page.locator("#games-in-words")
    await expect(games).to_contain_text("Sniff (Muggins with a spinner)")
    await expect(games).to_contain_text("opens four ways")
    assert await sideways_overflow(page) <= 0


#: English a Spanish page must not show (outside the names of games told in
#: English on purpose, "en inglés, spinner"), and the words issue #25 found.
NOT_SPANISH = re.compile(r"\b(Table|table|spectator|custom|casual|Seat|seat|tablas)\b")


async def spanish_text(page: Page) -> str:
    """What a reader sees on ``page``, less what people typed and the links."""
    return str(await page.evaluate("""() => {
        const copy = document.body.cloneNode(true);
        copy.querySelectorAll("input, #log, .chat-text").forEach((e) => e.remove());
        return copy.innerText;
    }"""))


async def test_every_page_reads_in_spanish(
    pages: Pages, service: Running, tmp_path: Path,
) -> None:
    """Issue #25, item 9: the lobby, sitting, playing, watching (a spectator
    without a name chatting), the end of a hand, its replay and the guide."""
    seen: dict[str, str] = {}
    page = await lobby(pages, "es", PHONE)
    seen["lobby"] = await spanish_text(page)
    table = await create(service, bots=[{"seat": 1}], overrides={"hints": True})
    table_id = table["table_id"]
    await page.goto(f"/play/{table_id}")
    await expect(page.locator("#sit")).to_be_visible()
    seen["sitting"] = await spanish_text(page)
    await sit(page, "Ana")
    watcher = await pages.open(f"/watch/{table_id}?lang=es", **DESKTOP)
    await expect(watcher.locator("#game")).to_be_visible()
    await watcher.click('.phrase[data-phrase="hi"]')
    for reader in (page, watcher):
        await expect(reader.locator("#chat")).to_contain_text("un espectador: ¡Hola!")
    seen["watching"] = await spanish_text(watcher)
    await play_until([(page, "#hand-over")])
    seen["hand over"] = await spanish_text(page)
    await screenshot(page, tmp_path / "hand-over-es.png")
    replay = await pages.open(f"/replay/{table_id}/1?game=1&lang=es", **PHONE)
    await expect(replay.locator("#replay-title")).to_have_text(
        "Repetición: Mesa de Ana, partida 1, mano 1")
    assert await replay.title() == "Repetición: Mesa de Ana, partida 1, mano 1 · muggins"
    seen["replay"] = await spanish_text(replay)
    guide = await pages.open("/guide/playelephant?lang=es", **PHONE)
    await expect(guide.locator("#guide-title")).to_have_text("Dominó a cincos")
    await expect(guide.locator(".example")).not_to_have_count(0)
    seen["guide"] = await spanish_text(guide)
    for name, text in seen.items():
        assert not NOT_SPANISH.findall(text.replace("en inglés, spinner", "")), (
            name, NOT_SPANISH.findall(text))
        assert "spinner" not in text.replace("en inglés, spinner", "").replace(
            "le dicen spinner", ""), (name, text)
    for name, shown in (("sitting", page), ("replay", replay), ("guide", guide)):
        await screenshot(shown, tmp_path / f"walk-{name}-es.png", full_page=True)


@pytest.mark.parametrize(("first", "then"), [("en", "es"), ("es", "en")])
async def test_a_guests_name_reads_in_each_pages_language(
    pages: Pages, first: str, then: str,
) -> None:
    """The walk of a newcomer: a guest who typed no name was remembered as the
    words "Guest 417", and the Spanish page still said "Guest 417".  The
    number is remembered; every page says it in its own language."""
    page = await lobby(pages, first, DESKTOP)
    await page.click("#play-now")
    await page.wait_for_url(re.compile(r"/play/[A-Za-z0-9]+$"))
    await expect(page.locator("#game")).to_be_visible()
    number = await page.evaluate("() => localStorage.getItem('muggins.guest')")
    assert number and number.isdigit(), number
    assert await page.evaluate("() => localStorage.getItem('muggins.name')") is None
    guest = {"en": f"Guest {number}", "es": f"Invitado {number}"}
    await expect(page.locator("#scores .side.mine")).to_contain_text(guest[first])
    # The same table in the other language: the seat and the table's name in it.
    table_url = page.url
    await page.goto(f"{table_url}?lang={then}")
    await expect(page.locator("#scores .side.mine")).to_contain_text(guest[then])
    owner = f"{guest[then]}'s table" if then == "en" else f"Mesa de {guest[then]}"
    await expect(page.locator("#table-title")).to_contain_text(owner)
    assert guest[first] not in await page.locator("body").inner_text()
    # The lobby in that language: whom you play as, the name you sit with
    # next, the table among those being played.
    await page.goto(f"/?lang={then}")
    await expect(page.locator("#identity-name")).to_contain_text(guest[then])
    await expect(page.locator("#play-name")).to_have_value(guest[then])
    # Switched back, the field follows the page's language (still a guest's name).
    await page.select_option("#language-select", first)
    await expect(page.locator("#play-name")).to_have_value(guest[first])
    await page.select_option("#language-select", then)
    await expect(page.locator("#play-name")).to_have_value(guest[then])
    await expect(page.locator("#playing-tables")).to_contain_text(f"{owner} ·")
    # (waited for: a list refreshed while the page was in the first language
    # is drawn again in this one; seen once in a fresh-clone run)
    await expect(page.locator("#playing-tables")).not_to_contain_text(guest[first])
    # A name typed is kept as typed, whatever the page's language.
    await page.fill("#play-name", "Ana")
    await page.click("#play-now")
    await page.wait_for_url(re.compile(r"/play/[A-Za-z0-9]+$"))
    await expect(page.locator("#game")).to_be_visible()
    assert await page.evaluate("() => localStorage.getItem('muggins.name')") == "Ana"
    await expect(page.locator("#scores .side.mine")).to_contain_text("Ana")


#: What a page says when the service answers 503 `unavailable` (its database or
#: bus away for a moment): the site, not a table, which the lobby has none of.
UNAVAILABLE = {"en": "The site is unavailable for a moment", "es": "El sitio no está disponible"}
TABLE_WORD = {"en": "table", "es": "mesa"}


@pytest.mark.parametrize(("size", "lang"), [(PHONE, "en"), (DESKTOP, "es")],
                         ids=["phone-en", "desktop-es"])
async def test_an_outage_while_making_a_table_is_said_as_the_sites(
    pages: Pages, service: Running, tmp_path: Path, size: dict[str, Any], lang: str,
) -> None:
    page = await lobby(pages, lang, size)

    async def outage(route: Route) -> None:
        # The service's own answer to an outage (muggins.tables.app, ``unavailable``).
        await route.fulfill(status=503, headers={"Retry-After": "2"}, json={
            "status_code": 503, "code": "unavailable",
            "detail": "the service cannot reach its database just now: try again"})

    await page.route(re.compile(r".*/tables\?lang=.*"), outage)
    pages.expect_error(r"status of 503")  # the browser's own line for the refusal
    await page.fill("#play-name", "Ana")
    await page.click("#play-now")
    await expect(page.locator("#play-error")).to_contain_text(UNAVAILABLE[lang])
    await expect(page.locator("#play-error")).not_to_contain_text(TABLE_WORD[lang])
    await expect(page.locator("#play-now")).to_be_enabled()  # to try again
    assert await sideways_overflow(page) <= 0
    await screenshot(page, shot(tmp_path, f"lobby-unavailable-{lang}.png"), full_page=size is PHONE)
