"""Receipts, signed checkpoints, the site's keys and disputes, on real
PostgreSQL and NATS (docs/fairness.md): every seat is given a signed receipt
for every hand, checkpoints are signed while events are written, and a
dispute is opened, refused when it must be (writing nothing), read and
resolved by an operator."""

from __future__ import annotations

import asyncio
import dataclasses
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

from muggins.domain.streams import table_stream
from muggins.evidence.checkpoints import CHECKPOINT_SUBJECT
from muggins.evidence.documents import Checkpoint, Receipt, check_signature
from muggins.infra.embedded import EmbeddedNats
from muggins.tables.admission import Quota
from tests.support.clients import SeatClient
from tests.support.service import FAST, Running, serve
from tests.support.tables import create, sit

OPERATOR = "operator-token-for-the-tests-0123456789"
#: As FAST, and every dispute and evidence file these tests ask for admitted.
EVERY_REQUEST = dataclasses.replace(FAST, quotas={
    ("dispute", "address"): Quota(burst=1000, per_minute=1000),
    ("evidence", "address"): Quota(burst=1000, per_minute=1000),
    ("evidence", "site"): Quota(burst=1000, per_minute=1000),
    ("evidence-request", "address"): Quota(burst=1000, per_minute=1000)})
CHECKER = Path(__file__).resolve().parents[2] / "docs" / "check_evidence.py"


@pytest.fixture
async def service(database_url: str, nats_server: EmbeddedNats,
                  tmp_path: Any) -> AsyncIterator[Running]:
    async with serve(database_url, nats_server.url, EVERY_REQUEST, checkpoint_interval=0.2,
                     operator_token=OPERATOR,
                     signing_key_file=str(tmp_path / "key.pem")) as running:
        yield running


@pytest.fixture
async def budgeted(database_url: str, nats_server: EmbeddedNats,
                   tmp_path: Any) -> AsyncIterator[Running]:
    """The service with the site's own budgets for disputes and evidence files."""
    async with serve(database_url, nats_server.url, checkpoint_interval=0.2,
                     signing_key_file=str(tmp_path / "key.pem")) as running:
        yield running


def site_keys(service: Running, answer: dict[str, Any]) -> dict[str, bytes]:
    assert answer["format"] == "muggins-keys"
    return {key["key_id"]: bytes.fromhex(key["public_key"]) for key in answer["keys"]}


async def table_version(service: Running, table_id: str) -> int:
    return await service.runtime.infra.store.stream_version(table_stream(table_id))


async def a_finished_game(service: Running) -> tuple[str, str, SeatClient]:
    table = await create(service, preset="playelephant", seats=2,
                         bots=[{"seat": 1, "level": "greedy"}])
    table_id = table["table_id"]
    granted = await sit(service, table_id, 0, "Ana")
    player = await SeatClient.connect(service.ws_url, table_id, granted["token"])
    await player.play_until_game_over(90)
    await every_receipt(player)
    return table_id, granted["token"], player


async def every_receipt(player: SeatClient) -> list[dict[str, Any]]:
    """The receipts the seat was sent, once the last hand's has come (its
    seal follows the game's end)."""
    deadline = asyncio.get_running_loop().time() + 20
    while True:
        given = [r for m in player.messages if m["type"] == "receipts" for r in m["receipts"]]
        if given and given[-1]["version"] == player.version:
            return given
        assert asyncio.get_running_loop().time() < deadline, given
        await player.receive(1)


async def test_every_seat_keeps_a_signed_receipt_for_every_hand(service: Running) -> None:
    table_id, _, player = await a_finished_game(service)
    assert player.view is not None
    hands = player.view["hand"]  # at game over: the last hand played
    given = await every_receipt(player)
    keys = site_keys(service, (await service.http.get("/.well-known/muggins-keys.json")).json())
    receipts = [msgspec.convert(r, Receipt) for r in given]
    assert [r.hand for r in receipts] == list(range(1, len(receipts) + 1))
    assert len(receipts) == hands
    for receipt in receipts:
        check_signature(receipt, keys)
        stored = await service.runtime.infra.store.stream_event(receipt.stream, receipt.version)
        assert stored is not None and stored.chain is not None
        assert stored.chain.hex() == receipt.chain and stored.position == receipt.position
    # Anyone may ask for them; a reconnecting seat is sent them all again.
    served = (await service.http.get(f"/tables/{table_id}/receipts")).json()
    assert served == given
    await player.close()
    unknown = await service.http.get("/tables/Nosuch123/receipts")
    assert unknown.status_code == 404 and unknown.json()["code"] == "no-such-table"


async def test_checkpoints_are_signed_while_events_are_written(service: Running) -> None:
    published: list[bytes] = []

    async def heard(message: Any) -> None:
        published.append(message.data)

    await service.infra.bus.subscribe(CHECKPOINT_SUBJECT, heard)
    await create(service, preset="playelephant", seats=2, bots=[{"seat": 1}])
    deadline = asyncio.get_running_loop().time() + 20
    while (latest := await service.http.get("/checkpoints/latest")).status_code != 200:
        assert asyncio.get_running_loop().time() < deadline, latest.text
        await asyncio.sleep(0.1)
    checkpoint = msgspec.convert(latest.json(), Checkpoint)
    keys = site_keys(service, (await service.http.get("/.well-known/muggins-keys.json")).json())
    check_signature(checkpoint, keys)
    head = await service.runtime.infra.store.event_at_position(checkpoint.position)
    assert head is not None and head.global_chain is not None
    assert head.global_chain.hex() == checkpoint.global_chain
    by_position = await service.http.get("/checkpoints/1")
    assert by_position.status_code == 200 and by_position.json()["position"] >= 1
    for bad in ("0", "-3", str(2**63), "x"):
        answer = await service.http.get(f"/checkpoints/{bad}")
        assert answer.status_code in (400, 404), (bad, answer.text)
    future = await service.http.get(f"/checkpoints/{checkpoint.position + 10_000}")
    assert future.status_code == 404 and future.json()["code"] == "no-checkpoint"
    # Published on NATS as they are signed.
    while not published:
        assert asyncio.get_running_loop().time() < deadline + 20
        await asyncio.sleep(0.05)
    check_signature(msgspec.json.decode(published[0], type=Checkpoint), keys)


async def test_a_new_key_signs_from_then_on_and_what_the_old_one_signed_still_checks(
        database_url: str, nats_server: EmbeddedNats, tmp_path: Any) -> None:
    signed: list[Checkpoint] = []
    for name in ("old.pem", "new.pem"):
        async with serve(database_url, nats_server.url, checkpoint_interval=0.1,
                         signing_key_file=str(tmp_path / name)) as running:
            await create(running, preset="playelephant", seats=2, bots=[{"seat": 1}])
            deadline = asyncio.get_running_loop().time() + 20
            while True:
                answer = await running.http.get("/checkpoints/latest")
                if answer.status_code == 200:
                    found = msgspec.convert(answer.json(), Checkpoint)
                    if not signed or found.key_id != signed[0].key_id:
                        signed.append(found)
                        break
                assert asyncio.get_running_loop().time() < deadline
                await asyncio.sleep(0.05)
            listed = (await running.http.get("/.well-known/muggins-keys.json")).json()
    keys = site_keys(running, listed)
    assert len(keys) == 2 and signed[0].key_id != signed[1].key_id
    for checkpoint in signed:  # both verifiable with the keys served after the rotation
        check_signature(checkpoint, keys)


async def test_a_dispute_is_opened_refused_when_it_must_be_and_resolved(
    service: Running
) -> None:
    table_id, token, player = await a_finished_game(service)
    kept = await every_receipt(player)
    await player.close()
    http = service.http
    path = f"/tables/{table_id}/disputes"
    before = await table_version(service, table_id)
    refusals = [
        ({"token": "nope", "game": 1, "hand": 1, "reason": "x"}, 403, "bad-token"),
        ({"token": token, "game": 1, "hand": 999, "reason": "x"}, 404, "no-such-hand"),
        ({"token": token, "game": 2, "hand": 1, "reason": "x"}, 404, "no-such-hand"),
        ({"token": token, "game": 1, "hand": 1, "reason": "   "}, 400, "bad-request"),
        ({"token": token, "game": 1, "hand": 1, "reason": "y" * 501}, 400, "bad-request"),
        ({"token": token, "game": 1, "hand": 1, "reason": "y", "extra": 1}, 400, "bad-request"),
        ({"token": token, "game": "1", "hand": 1, "reason": "y"}, 400, "bad-request"),
        ({"token": token, "game": 1, "hand": 1, "reason": "bad\x1b[31m red"}, 400,
         "bad-request"),
        ({"token": token, "game": 1, "hand": 1, "reason": "y", "receipt": {"x": 1}}, 400,
         "bad-request"),
        ({"token": token, "game": 1, "hand": 1, "reason": "y", "receipt": kept[-1]}, 400,
         "bad-request") if len(kept) > 1 else
        ({"token": token, "game": 1, "hand": 2, "reason": "y", "receipt": kept[0]}, 400,
         "bad-request"),
    ]
    for body, status, code in refusals:
        answer = await http.post(path, json=body)
        assert answer.status_code == status and answer.json()["code"] == code, (body, answer.text)
    assert await table_version(service, table_id) == before  # nothing written
    opened = await http.post(path, json={"token": token, "game": 1, "hand": 1,
                                         "reason": "the  bot  knew my tiles",
                                         "receipt": kept[0]})
    assert opened.status_code == 201, opened.text
    dispute = opened.json()
    assert dispute["reason"] == "the bot knew my tiles" and dispute["name"] == "Ana"
    assert dispute["verdict"] is None
    again = await http.post(path, json={"token": token, "game": 1, "hand": 1, "reason": "z"})
    assert again.status_code == 409 and again.json()["code"] == "already-disputed"
    # Two at once of the last hand: exactly one is written (the first hand's
    # dispute above stands in for it when the game had one hand).
    assert player.view is not None
    last = player.view["hand"]
    both = await asyncio.gather(*(http.post(path, json={
        "token": token, "game": 1, "hand": last, "reason": "twice"}) for _ in range(2)))
    assert sorted(a.status_code for a in both) == ([201, 409] if last > 1 else [409, 409])

    operator = {"Authorization": f"Bearer {OPERATOR}"}
    listing = f"/operator/api/disputes/{table_id}/{dispute['dispute']}"
    for headers in ({}, {"Authorization": "Bearer wrong-token-of-some-length"},
                    {"Authorization": OPERATOR}):
        answer = await http.get("/operator/api/disputes", headers=headers)
        assert answer.status_code == 401 and answer.json()["code"] == "not-an-operator"
    every = (await http.get("/operator/api/disputes", headers=operator)).json()
    assert any(d["table_id"] == table_id and d["dispute"] == 1 for d in every)
    shown = await http.get(listing, headers=operator)
    assert shown.status_code == 200, shown.text
    file = shown.json()
    assert file["verified"] is True and file["findings"] == []
    disputed = next(h for h in file["hands"] if h["disputed"])
    assert {move["by"] for move in disputed["moves"]} >= {"person", "bot", "table"}
    assert file["receipts"] and file["checkpoint_after"] is not None
    # The receipt the player kept went with the dispute, and holds.
    assert file["dispute"]["receipt"] == kept[0]
    assert file["kept_receipt"][0] == "" and "what the player was given" in \
        file["kept_receipt"][1]
    missing = await http.get(f"/operator/api/disputes/{table_id}/99", headers=operator)
    assert missing.status_code == 404 and missing.json()["code"] == "no-such-dispute"

    resolve = f"{listing}/resolve"
    bad = await http.post(resolve, json={"verdict": "maybe", "note": "n", "by": "Op"},
                          headers=operator)
    assert bad.status_code == 400
    unauthorised = await http.post(resolve, json={"verdict": "rejected", "note": "n",
                                                  "by": "Op"})
    assert unauthorised.status_code == 401
    resolved = await http.post(resolve, json={
        "verdict": "rejected", "note": "The deal came from the committed seed; the bot saw "
        "only its own tiles.", "by": "Marta"}, headers=operator)
    assert resolved.status_code == 200, resolved.text
    assert resolved.json()["verdict"] == "rejected" and resolved.json()["by"] == "Marta"
    twice = await http.post(resolve, json={"verdict": "upheld", "note": "n", "by": "Op"},
                            headers=operator)
    assert twice.status_code == 409 and twice.json()["code"] == "already-resolved"
    public = (await http.get(path)).json()
    assert public[0]["verdict"] == "rejected" and public[0]["note"].startswith("The deal")


async def test_anyone_downloads_a_hands_evidence_file_and_checks_it_offline(
        service: Running, tmp_path: Any) -> None:
    table_id, _, player = await a_finished_game(service)
    await player.close()
    deadline = asyncio.get_running_loop().time() + 20
    while True:  # a checkpoint past the game, so that the file links to one
        answer = await service.http.get(f"/tables/{table_id}/evidence?game=1&hand=1")
        assert answer.status_code == 200, answer.text
        if answer.json()["checkpoint"] is not None:
            break
        assert asyncio.get_running_loop().time() < deadline
        await asyncio.sleep(0.2)
    assert "attachment" in answer.headers["content-disposition"]
    path = tmp_path / "evidence.json"
    path.write_bytes(answer.content)
    checked = subprocess.run([sys.executable, "-I", "-S", str(CHECKER), str(path)],
                             capture_output=True, text=True, timeout=60, check=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    for query, status in (("game=0", 404), ("game=1&hand=0", 404), ("game=x", 400),
                          ("game=9", 404), ("game=1&hand=999", 404), ("hand=1", 400)):
        refused = await service.http.get(f"/tables/{table_id}/evidence?{query}")
        assert refused.status_code == status, (query, refused.text)
    missing = await service.http.get("/tables/Nosuch123/evidence")
    assert missing.status_code == 404 and missing.json()["code"] == "no-such-table"


@pytest.mark.slow
async def test_a_flood_of_evidence_files_or_disputes_costs_the_flooder(
        budgeted: Running) -> None:
    service = budgeted
    table_id, token, player = await a_finished_game(service)
    await player.close()
    answers = [await service.http.get(f"/tables/{table_id}/evidence") for _ in range(6)]
    assert answers[-1].status_code == 429, [a.status_code for a in answers]
    assert answers[-1].json()["code"] == "evidence-rate-limited"
    assert "retry-after" in answers[-1].headers
    refusals = [await service.http.post(f"/tables/{table_id}/disputes", json={
        "token": token, "game": 1, "hand": 1, "reason": "x"}) for _ in range(7)]
    codes = [r.json().get("code") for r in refusals]
    assert refusals[0].status_code == 201 and "dispute-rate-limited" in codes, codes


async def test_no_evidence_file_shows_a_hand_still_being_played(service: Running) -> None:
    table = await create(service, preset="playelephant", seats=2,
                         bots=[{"seat": 1, "level": "greedy"}])
    table_id = table["table_id"]
    granted = await sit(service, table_id, 0, "Ana")
    player = await SeatClient.connect(service.ws_url, table_id, granted["token"])
    # The welcome may already show the hand being played (the person leads).
    if not (player.view and player.view["phase"] == "playing"):
        await player.until(lambda m: m["type"] in ("view", "welcome") and m.get("view")
                           and m["view"]["phase"] == "playing")
    for query in ("", "?game=1"):
        answer = await service.http.get(f"/tables/{table_id}/evidence{query}")
        assert answer.status_code == 200, answer.text
        kinds = [e["event_type"] for e in answer.json()["events"]
                 if e["stream_id"].endswith("-g1")]
        # The hand being played: not one of its events, its seed least of all.
        assert kinds == ["GameStarted"], kinds
    await player.close()


async def test_an_operators_resolution_is_read_only_once_the_token_is_proven(
        service: Running) -> None:
    for body in ({"verdict": "maybe"}, None, {"x": 1}):
        answer = await service.http.post("/operator/api/disputes/Abcd1234/1/resolve",
                                         json=body)
        assert answer.status_code == 401 and answer.json()["code"] == "not-an-operator"
