"""A service started before its servers: it waits for them (never exits for
that), says on /readyz what it waits for, answers every other request 503
``starting`` meanwhile, and serves once they come up; stopped while it
waits, it stops at once and cleanly.  A projector process waits the same way."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
import pytest
import websockets

from muggins.eventstore.store import EventStore
from muggins.infra.database_roles import OWNER_ROLE, SERVICE_ROLE
from muggins.infra.embedded import EmbeddedNats, EmbeddedPostgres, free_port
from muggins.rules.presets import preset
from tests.projections.streams import game_batches, store_interleaved
from tests.support.clients import SeatClient, loopback_http
from tests.support.processes import (
    ServiceProcess,
    muggins_command,
    serve_arguments,
    unhandled_errors,
)
from tests.support.scripted_players import create_table, human_table, sit
from tests.support.servers import role_url


async def readiness_until(url: str, wanted: Callable[[int, dict[str, Any]], bool],
                          process: ServiceProcess, timeout: float = 60.0
                          ) -> tuple[int, dict[str, Any]]:
    """Poll /readyz until ``wanted(status, body)``; AssertionError with the last answer."""
    deadline = time.monotonic() + timeout
    last = "no answer"
    async with loopback_http(base_url=url, timeout=2) as http:
        while time.monotonic() < deadline:
            assert process.running, f"the service exited:\n{process.log_tail()}"
            try:
                answer = await http.get("/readyz")
                body = answer.json()
                if wanted(answer.status_code, body):
                    return answer.status_code, body
                last = f"{answer.status_code} {answer.text}"
            except httpx.HTTPError as error:
                last = repr(error)
            await asyncio.sleep(0.1)
    raise AssertionError(f"/readyz never answered as wanted within {timeout:.0f} s: {last}")


def waiting_for(server: str, *, tried: bool = False) -> Callable[[int, dict[str, Any]], bool]:
    """/readyz says it waits for ``server`` (and, ``tried``, that an attempt
    to reach it failed and is tried again)."""
    def wanted(status: int, body: dict[str, Any]) -> bool:
        told = body.get("waiting_for") or ""
        return (status == 503 and body.get("status") == "not ready" and server in told
                and (not tried or "cannot reach" in told))
    return wanted


async def check_starting_answers(service: ServiceProcess) -> None:
    """While it waits: alive, not ready, and every other route refused the same way."""
    async with loopback_http(base_url=service.url, timeout=5) as http:
        assert (await http.get("/healthz")).status_code == 200
        refused = await http.post("/tables", json=human_table(50, 30))
        assert refused.status_code == 503, refused.text
        assert refused.json()["code"] == "starting"
        assert int(refused.headers["retry-after"]) > 0
        assert (await http.get("/lobby")).json()["code"] == "starting"
    async with websockets.connect(f"{service.ws_url}/tables/abcd1234/play") as socket:
        told = json.loads(await asyncio.wait_for(socket.recv(), 10))
        assert told["type"] == "error" and told["code"] == "starting", told
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await asyncio.wait_for(socket.recv(), 10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1013


async def play_one_move(service: ServiceProcess) -> None:
    """A table made, a seat taken, one tile played and seen come back."""
    async with loopback_http(base_url=service.url, timeout=10) as http:
        table_id = await create_table(http, **human_table(50, 30))
        token = await sit(http, table_id, 0, "Ana")
    client = await SeatClient.connect(service.ws_url, table_id, token)
    try:
        if not client.my_turn():  # the welcome may show the turn already: nothing follows it
            await client.until(lambda message: client.my_turn(), timeout=30)
        await client.play_first_legal()
        await client.until(lambda message: message["type"] == "event"
                           and message["event"]["type"] == "TilePlayed"
                           and message["event"]["seat"] == client.seat, timeout=30)
    finally:
        await client.close()


def service_process(folder: Path, database_url: str, migration_url: str,
                    nats_url: str) -> ServiceProcess:
    return ServiceProcess(folder, "serve", database_url, nats_url,
                          serve_arguments(bot_delay=0.1, hand_pause=0.5),
                          migration_url=migration_url)


async def test_a_service_started_before_nats_serves_once_nats_is_up(
    tmp_path: Path, database_url: str
) -> None:
    nats = EmbeddedNats(tmp_path / "late-nats", port=free_port())
    service = service_process(tmp_path, role_url(database_url, SERVICE_ROLE),
                              role_url(database_url, OWNER_ROLE), nats.url)
    service.start()
    try:
        await readiness_until(service.url, waiting_for("NATS"), service)
        await check_starting_answers(service)
        await readiness_until(service.url, waiting_for("NATS", tried=True), service)
        nats.start()
        seconds = await service.ready(60)
        print(f"ready {seconds:.1f} s after NATS started")
        await play_one_move(service)
    finally:
        service.stop()
        nats.stop()
    log = service.log_text()
    assert "waiting for NATS" in log
    assert not unhandled_errors(log), unhandled_errors(log)


async def test_a_service_started_before_postgres_serves_once_postgres_is_up(
    tmp_path: Path, nats_server: EmbeddedNats
) -> None:
    postgres = EmbeddedPostgres(tmp_path / "late-pg", port=free_port())
    postgres.start()  # made once, for its roles and passwords; then down
    service_url, owner_url = postgres.service_url, postgres.owner_url
    postgres.stop()
    service = service_process(tmp_path, service_url, owner_url, nats_server.url)
    service.start()
    try:
        await readiness_until(service.url, waiting_for("PostgreSQL"), service)
        await check_starting_answers(service)
        await readiness_until(service.url, waiting_for("PostgreSQL", tried=True), service)
        postgres.start()
        seconds = await service.ready(60)
        print(f"ready {seconds:.1f} s after PostgreSQL started")
        await play_one_move(service)
    finally:
        service.stop()
        postgres.stop()
    log = service.log_text()
    assert "waiting for PostgreSQL" in log
    assert not unhandled_errors(log), unhandled_errors(log)


async def test_a_service_stopped_while_it_waits_stops_at_once(
    tmp_path: Path, database_url: str
) -> None:
    nobody = f"nats://127.0.0.1:{free_port()}"
    service = service_process(tmp_path, role_url(database_url, SERVICE_ROLE),
                              role_url(database_url, OWNER_ROLE), nobody)
    service.start()
    await readiness_until(service.url, waiting_for("NATS"), service)
    started = time.monotonic()
    service.stop(timeout=15)
    took = time.monotonic() - started
    # A SIGTERM ends it as a normal exit once it has shut down (its exit
    # handlers run), not by the signal's default action.
    assert service.process is not None and service.process.returncode == 0, (
        service.log_tail())
    assert "Application shutdown complete" in service.log_text()
    assert took < 5, f"stopping took {took:.1f} s"
    assert not unhandled_errors(service.log_text())


async def test_a_projector_started_before_nats_projects_once_nats_is_up(
    tmp_path: Path, database_url: str, store: EventStore
) -> None:
    nats = EmbeddedNats(tmp_path / "late-nats", port=free_port())
    environment = {key: value for key, value in os.environ.items()
                   if not key.startswith("MUGGINS_")}
    environment.update(MUGGINS_DATABASE_URL=role_url(database_url, SERVICE_ROLE),
                       MUGGINS_MIGRATION_DATABASE_URL=role_url(database_url, OWNER_ROLE),
                       MUGGINS_NATS_URL=nats.url, MUGGINS_LOG_FORMAT="json",
                       MUGGINS_DATA_DIR=str(tmp_path / "data"))
    log_path = tmp_path / "projector.log"
    with open(log_path, "wb") as log:
        projector = subprocess.Popen([*muggins_command(), "project", "table-views"],
                                     env=environment, stdout=log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        await until(lambda: "waiting for NATS" in log_path.read_text(), projector,
                    "the projector says it waits for NATS")
        events = await store_interleaved(store, [("late-g1", game_batches(
            preset("playelephant", 2), "late"))])
        nats.start()

        async def projected() -> bool:
            return await store.checkpoint("projector:table-views") >= events

        deadline = time.monotonic() + 60
        while not await projected():
            assert projector.poll() is None, log_path.read_text()[-3000:]
            assert time.monotonic() < deadline, "the projector never caught up"
            await asyncio.sleep(0.2)
        projector.terminate()
        assert projector.wait(15) == 0, log_path.read_text()[-3000:]
    finally:
        if projector.poll() is None:
            projector.kill()
            projector.wait(15)
        nats.stop()
    assert not unhandled_errors(log_path.read_text())


async def until(condition: Callable[[], bool], process: subprocess.Popen[bytes], what: str,
                timeout: float = 60.0) -> None:
    """Poll ``condition`` until it holds (AssertionError naming ``what`` after
    ``timeout`` s, or if ``process`` exits meanwhile)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert process.poll() is None, f"exited with {process.returncode} before: {what}"
        assert time.monotonic() < deadline, f"not within {timeout:.0f} s: {what}"
        await asyncio.sleep(0.2)


async def test_a_refused_password_is_no_outage_the_service_exits_saying_why(
    tmp_path: Path, database_url: str, nats_server: EmbeddedNats
) -> None:
    parts = urlsplit(role_url(database_url, SERVICE_ROLE))
    wrong = urlunsplit(parts._replace(
        netloc=f"{parts.username}:not-the-password@{parts.hostname}:{parts.port}"))
    service = service_process(tmp_path, wrong, wrong, nats_server.url)
    service.start()
    try:
        assert service.process is not None
        returncode = await asyncio.to_thread(service.process.wait, 60)
    finally:
        service.stop()
    log = service.log_text()
    assert returncode == 1, log[-3000:]
    assert "password authentication failed" in log
    assert "waiting for PostgreSQL" not in log  # not retried as an outage
