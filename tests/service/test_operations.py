"""What an operator relies on: a correlation id on every answer, and the
metrics series the alerts in deploy/README.md are written against."""

from __future__ import annotations

import asyncio
import contextlib
import re
import time

from tests.support.clients import SeatClient
from tests.support.service import Running
from tests.support.tables import create, sit
from tests.support.waits import eventually


async def test_a_sane_request_id_is_kept_and_an_insane_one_replaced(service: Running) -> None:
    kept = await service.http.get("/healthz", headers={"X-Request-Id": "lb-1234.abc"})
    assert kept.headers["x-request-id"] == "lb-1234.abc"
    for hostile in ("x" * 500, "two words", "a/b"):
        replaced = await service.http.get("/healthz", headers={"X-Request-Id": hostile})
        assert re.fullmatch(r"[0-9a-f]{32}", replaced.headers["x-request-id"])
    made = await service.http.get("/tables/nosuchtable1")
    assert made.status_code == 404 and re.fullmatch(r"[0-9a-f]{32}",
                                                    made.headers["x-request-id"])


async def test_metrics_carry_the_series_the_alerts_use(service: Running) -> None:
    created = await service.http.post("/tables", json={
        "seats": 2, "bots": [{"seat": 0}, {"seat": 1}]})
    assert created.status_code == 201
    text = (await service.http.get("/metrics")).text
    for name in ("muggins_relay_lag_events", "muggins_projector_lag_events",
                 "muggins_due_tables", "muggins_overdue_tables",
                 "muggins_oldest_overdue_seconds", "muggins_command_to_broadcast_seconds",
                 "muggins_command_append_seconds", "muggins_relay_publish_seconds",
                 "muggins_bus_delivery_seconds", "muggins_scheduler_failures_total"):
        assert f"# TYPE {name}" in text, f"/metrics lacks {name}"


async def test_each_step_of_a_move_is_timed(service: Running) -> None:
    """A person's move is counted at each step the alert's runbook names:
    appended, published by the relay, delivered to the table's follower,
    broadcast.  Two people and no bot, so that nothing else moves; the
    registry is the process's, so the counts are read as they grow."""
    steps = ("muggins_command_append_seconds", "muggins_relay_publish_seconds",
             "muggins_bus_delivery_seconds", "muggins_command_to_broadcast_seconds")

    async def counts() -> dict[str, float]:
        text = (await service.http.get("/metrics")).text
        return {name: float(found.group(1)) if (found := re.search(
                    rf"^{name}_count (\S+)$", text, re.MULTILINE)) else 0.0
                for name in steps}

    table_id = (await create(service))["table_id"]
    players = [await SeatClient.connect(service.ws_url, table_id,
                                        (await sit(service, table_id, seat, name))["token"])
               for seat, name in ((0, "Ana"), (1, "Bea"))]
    try:
        deadline = time.monotonic() + 20
        while not any(player.may_play() for player in players):
            assert time.monotonic() < deadline, "nobody's turn came"
            for player in players:
                with contextlib.suppress(TimeoutError):  # the other one may be on turn
                    await player.receive(timeout=0.1)
        mover = next(player for player in players if player.may_play())
        # The deal's own steps settled first: what grows after is the move's.
        last: dict[str, float] = {}
        while (before := await counts()) != last:
            last = before
            await asyncio.sleep(0.3)
        await mover.play_once()

        async def each_step_counted() -> bool:
            now = await counts()
            return all(now[name] > before[name] for name in steps)

        await eventually(each_step_counted, what="the move counted at each step")
    finally:
        for player in players:
            await player.close()
