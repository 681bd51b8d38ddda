"""Receipts and disputes on the pages, in Chromium: a player (Spanish, on a
phone) keeps and downloads a hand's signed receipt and disputes the hand; an
operator (English, desktop) finds the dispute, reads the verified record
with who made each move, and resolves it; the player's page shows the
verdict at once.

MUGGINS_UPDATE_SCREENSHOTS=1 writes the screenshots into docs/.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
import pytest_asyncio
from playwright.async_api import Page, expect

from muggins.evidence.documents import Receipt, check_signature
from muggins.infra.embedded import EmbeddedNats
from tests.support.browser import SHARED_LOOP, Pages
from tests.support.pages import play_a_move, screenshot, shot, sit
from tests.support.service import Running, serve

PHONE: dict[str, Any] = {"width": 390, "height": 844, "is_mobile": True, "has_touch": True}
OPERATOR = "operator-token-for-the-browser-1234"


@pytest_asyncio.fixture(loop_scope=SHARED_LOOP)
async def service(database_url: str, nats_server: EmbeddedNats,
                  tmp_path: Path, service_port: int) -> AsyncIterator[Running]:
    """A long pause after each hand: the hand's result stays on screen."""
    async with serve(database_url, nats_server.url, port=service_port, bot_delay=0.05,
                     hand_pause=60.0, checkpoint_interval=0.2, operator_token=OPERATOR,
                     signing_key_file=str(tmp_path / "key.pem")) as running:
        yield running


async def first_hand_over(page: Page, within: float = 120) -> None:
    deadline = time.monotonic() + within
    while not await page.locator("#hand-over").is_visible():
        assert time.monotonic() < deadline, "the first hand did not end"
        if not await play_a_move(page):
            await page.wait_for_timeout(50)


@pytest.mark.slow
async def test_a_player_keeps_a_receipt_disputes_a_hand_and_reads_the_verdict(
    pages: Pages, service: Running, tmp_path: Path
) -> None:
    table = (await service.http.post("/tables", json={
        "seats": 2, "bots": [{"seat": 1, "level": "greedy"}]})).json()
    table_id = table["table_id"]
    ana = await pages.open(f"/play/{table_id}?lang=es", locale="es-ES", **PHONE)
    await sit(ana, "Ana")
    await first_hand_over(ana)

    # The hand's receipt: kept by the page as soon as the hand is sealed.
    await expect(ana.locator("#receipt-count")).to_have_text("Comprobantes guardados: 1",
                                                             timeout=20_000)
    async with ana.expect_download() as downloading:
        await ana.locator("#download-receipt").click()
    saved = tmp_path / "receipt.json"
    await (await downloading.value).save_as(saved)
    receipt = msgspec.convert(json.loads(saved.read_text()), Receipt)
    keys = (await service.http.get("/.well-known/muggins-keys.json")).json()["keys"]
    check_signature(receipt, {k["key_id"]: bytes.fromhex(k["public_key"]) for k in keys})
    assert receipt.table == table_id and receipt.hand == 1

    # The dispute: a short reason, sent from the hand's result.
    await ana.locator("#dispute-hand").click()
    dialog = ana.locator("#dispute-dialog")
    await expect(dialog).to_be_visible()
    await expect(dialog.locator("h2")).to_have_text("Reclamar la mano 1 de la partida 1")
    await ana.fill("#dispute-reason", "El bot parecía ver mis fichas")
    await screenshot(ana, shot(tmp_path, "dispute-dialog-es.png"))
    await ana.locator("#dispute-send").click()
    await expect(dialog).to_be_hidden()
    disputes = ana.locator("#disputes li")
    await expect(disputes).to_have_count(1)
    await expect(disputes.first).to_contain_text("Abierto")
    # Once is enough: a second dispute of the same hand is refused, in words.
    pages.expect_error(r"status of 409")
    await ana.locator("#dispute-hand").click()
    await ana.fill("#dispute-reason", "otra vez")
    await ana.locator("#dispute-send").click()
    await expect(ana.locator("#dispute-error")).to_have_text("Ya reclamaste esta mano.")
    await ana.locator("#dispute-cancel").click()

    # The operator: the token, the list, the dispute, the verdict.
    pages.expect_error(r"/operator.*status of 401")
    operator = await pages.open("/operator")
    await expect(operator.locator("#sign-in")).to_be_visible()
    await operator.fill("#operator-token", "not the operator token")
    await operator.locator("#token-form button").click()
    await expect(operator.locator("#sign-in-error")).to_be_visible()
    await operator.fill("#operator-token", OPERATOR)
    await operator.locator("#token-form button").click()
    row = operator.locator(f"#disputes tr[data-table='{table_id}']")
    await expect(row).to_contain_text("El bot parecía ver mis fichas")
    await row.locator("a").click()
    await expect(operator.locator("#verified")).to_have_attribute("data-verified", "true")
    disputed = operator.locator(".disputed-hand")
    await expect(disputed.locator("tr.by-person").first).to_be_visible()
    await expect(disputed.locator("tr.by-bot").first).to_be_visible()
    await expect(operator.locator("#operator-receipts li")).to_have_count(1)
    # The receipt Ana's browser kept went with her dispute, and the record holds to it.
    await expect(operator.locator("#kept-receipt")).to_contain_text("Signed by the site")
    await expect(operator.locator("#checkpoint-after")).to_contain_text("position")
    await expect(operator.locator("#analysis-summary")).to_contain_text("decisions",
                                                                        timeout=30_000)
    await operator.locator("input[name=verdict][value=rejected]").check()
    await operator.fill("#resolve-note", "Every tile came from the committed seed; the bot "
                                         "saw only its own hand.")
    await operator.fill("#resolve-by", "Marta")
    await screenshot(operator, shot(tmp_path, "operator-dispute.png"), full_page=True)
    await operator.locator("#resolve-send").click()
    await expect(operator.locator("#dispute-state")).to_contain_text("Rejected")

    # The player's page hears of it at once.
    await expect(disputes.first).to_contain_text("Rechazado: el registro es correcto (Marta)")
    await ana.locator("#close-result").click()
    await ana.locator("#fairness-card").scroll_into_view_if_needed()
    await screenshot(ana, shot(tmp_path, "fairness-card-es.png"))

    # Anyone watching sees the dispute and its verdict: English, desktop.
    watcher = await pages.open(f"/watch/{table_id}")
    await expect(watcher.locator("#disputes li").first).to_contain_text(
        "Rejected: the record stands (Marta)")
    await watcher.locator("#fairness-card").scroll_into_view_if_needed()
    await screenshot(watcher, shot(tmp_path, "fairness-card-en.png"))
    # The operators' page in Spanish on a phone.
    phone = await pages.open(f"/operator/{table_id}/1?lang=es", locale="es-ES", **PHONE)
    await phone.fill("#operator-token", OPERATOR)
    await phone.locator("#token-form button").click()
    await expect(phone.locator("#verified")).to_have_attribute("data-verified", "true")
    await expect(phone.locator("#kept-receipt")).to_contain_text("Firmado por el sitio")
    await screenshot(phone, shot(tmp_path, "operator-dispute-es.png"), full_page=True)

    # The replay page offers the same, in English on a desktop.
    seat = await ana.evaluate(f"localStorage.getItem('muggins.seat.{table_id}')")
    replay = await pages.open(f"/replay/{table_id}/1?game=1",
                              before=lambda page: page.add_init_script(
                                  f"localStorage.setItem('muggins.seat.{table_id}', "
                                  f"{json.dumps(seat)})"))
    await expect(replay.locator("#dispute-hand")).to_have_text("Dispute this hand")
    await expect(replay.locator("#download-receipt")).to_be_visible()
    await screenshot(replay, shot(tmp_path, "replay-dispute.png"))
    assert not pages.unexpected_errors(), pages.errors
