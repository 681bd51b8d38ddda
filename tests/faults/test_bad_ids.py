"""Table ids from outside that are not table ids (4 KiB long, white space,
"..", NUL, NATS wildcards): each is refused at the edge on every route, with
a 4xx or a WebSocket error or close, never a 500; and afterwards the service
is still whole (ready, its bus connection alive, a new game played out)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import websockets
from websockets.exceptions import InvalidStatus

from muggins.eventstore.store import EventStore
from tests.support.clients import loopback_http, unpacked
from tests.support.processes import Launcher, unhandled_errors, wait_ready
from tests.support.scripted_players import bot_table, create_table, settle
from tests.support.store_watch import StoreWatch, TableProgress

BAD_IDS = {
    "4200 letters": "a" * 4200,
    "a space": "abc def",
    "a tab": "abc\tdef",
    "..": "..",
    "a NUL byte": "abc\x00def",
    "'*'": "*",
    "'>'": ">",
}
#: What refuses a request for a table that cannot exist (414: a 4 KiB path).
REFUSALS = {400, 404, 414}
ANSWER_WITHIN = 10.0
#: WebSocket close codes that mean the server failed, not that it refused.
FAILED_CLOSES = {1011, 1006}


def encoded(table_id: str) -> str:
    """Every byte but letters and digits percent-encoded (also the dots of "..")."""
    return "".join(chr(b) if chr(b).isalnum() and b < 128 else f"%{b:02X}"
                   for b in table_id.encode())


async def http_answer(http: httpx.AsyncClient, path: str) -> str | None:
    """None if refused as it should be, else what went wrong."""
    try:
        async with asyncio.timeout(ANSWER_WITHIN), http.stream("GET", path) as response:
            if response.status_code in REFUSALS:
                return None
            return f"answered {response.status_code}"
    except TimeoutError:
        return f"no answer within {ANSWER_WITHIN:.0f} s"
    except httpx.HTTPError as error:
        return f"failed: {error!r}"


async def socket_answer(url: str, first: dict[str, object] | None) -> str | None:
    """None if the socket was refused (a 4xx, an error message, a close), else
    what went wrong: a 5xx, an internal-error close, silence, or a welcome."""
    try:
        async with asyncio.timeout(ANSWER_WITHIN), websockets.connect(url) as ws:
            refused = False
            try:
                if first is not None:
                    await ws.send(json.dumps(first))
                while True:
                    message = unpacked(json.loads(await ws.recv()))[0]
                    if message.get("type") != "error":
                        return f"answered {message.get('type')}: {str(message)[:120]}"
                    refused = True
                    await ws.close()
            except websockets.ConnectionClosed as closed:
                code = closed.rcvd.code if closed.rcvd is not None else 1006
                if code in FAILED_CLOSES and not refused:
                    return f"closed with {code} ({closed.rcvd.reason if closed.rcvd else ''})"
                return None
    except InvalidStatus as error:
        status = error.response.status_code
        return None if 400 <= status < 500 else f"refused the handshake with {status}"
    except TimeoutError:
        return f"no answer, no close within {ANSWER_WITHIN:.0f} s"
    except (OSError, websockets.WebSocketException) as error:
        return f"failed: {error!r}"


@pytest.fixture
def temporary_files() -> Iterator[Path]:
    """The service's TMPDIR, apart, to see that a clean stop leaves nothing
    there.  Not under pytest's folder: the bot workers' fork server listens
    on a socket file in it, whose path may be at most 107 bytes long."""
    with tempfile.TemporaryDirectory(prefix="muggins-") as folder:
        yield Path(folder)


async def test_ids_that_are_not_table_ids_are_refused_and_harm_nothing(
    temporary_files: Path, launcher: Launcher, store: EventStore
) -> None:
    # (temporary_files first: torn down after the launcher has stopped the service)
    service = launcher.service("serve", bot_delay=0.05, hand_pause=0.2,
                               temporary_files=temporary_files)
    await service.start_ready()
    wrong: list[str] = []
    problems: list[str] = []
    async with loopback_http(base_url=service.url, timeout=ANSWER_WITHIN) as http:
        for name, table_id in BAD_IDS.items():
            path = f"/tables/{encoded(table_id)}"
            shown = path if len(path) < 40 else f"{path[:30]}...({len(path)} chars)"
            answers = {
                f"GET {shown}/events": await http_answer(http, f"{path}/events"),
                f"GET {shown}": await http_answer(http, path),
                f"GET {shown}/view": await http_answer(http, f"{path}/view"),
                f"GET {shown}/seating": await http_answer(http, f"{path}/seating"),
                f"GET {shown}/games/1/hands/1/analysis": await http_answer(
                    http, f"{path}/games/1/hands/1/analysis"),
                f"GET {shown}/games/1/hands/1/replay": await http_answer(
                    http, f"{path}/games/1/hands/1/replay"),
                f"WebSocket {shown}/watch": await socket_answer(
                    f"{service.ws_url}{path}/watch", None),
                f"WebSocket {shown}/play": await socket_answer(
                    f"{service.ws_url}{path}/play", {"type": "hello", "token": "x" * 43}),
            }
            wrong += [f"an id with {name}: {request} {answer}"
                      for request, answer in answers.items() if answer is not None]
            if not problems:  # the first id that breaks the service is named
                try:
                    await wait_ready(service.url, 5, service.process)
                except AssertionError as error:
                    problems.append(f"after the requests with an id with {name}, the service "
                                    f"is no longer ready: {error}")
        if wrong:
            problems.append("not refused as a bad request:\n  " + "\n  ".join(wrong))
        try:
            await wait_ready(service.url, 10, service.process)
        except AssertionError as error:
            problems.append(f"after all the bad ids the service is not ready: {error}")
        # The service is still whole: a new game plays out, and the bus carries it.
        if service.running:
            watching: asyncio.Task[list[str]] | None = None
            try:
                table_id = await create_table(http, **bot_table(50))
                watching = asyncio.create_task(_watch_to_the_end(service.ws_url, table_id))
                watch = StoreWatch(store)
                await watch.wait_finished([TableProgress(table_id)], within=30, stall=15,
                                          after="(a table created after the bad ids)")
                await watch.checked_game(table_id)
                await settle([watching], 15)
                seen = watching.result() if watching.done() else []
                if "GameEnded" not in seen:
                    problems.append(f"a spectator of {table_id} never saw GameEnded "
                                    f"(saw {len(seen)} events, the last {seen[-1:]})")
            except AssertionError as error:
                problems.append(str(error))
            finally:
                if watching is not None:
                    watching.cancel()
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await watching
    # The fork server's folder is there while it serves ...
    if not list(temporary_files.glob("pymp-*")):
        problems.append(f"no fork server's folder in the service's TMPDIR {temporary_files}")
    service.stop()
    # ... and a clean stop leaves nothing behind: its exit handlers ran (the bot
    # workers' fork server's folder once stayed in /tmp at every stop).
    assert service.process is not None
    if service.process.returncode != 0:
        problems.append(f"the service's stop ended with status {service.process.returncode}")
    if left := list(temporary_files.iterdir()):
        problems.append(f"the service's stop left temporary files: {left}")
    escaped = unhandled_errors(service.log_text())
    if escaped:
        problems.append(f"the service logged {len(escaped)} unhandled exceptions for "
                        f"refusals, e.g.:\n  " + "\n  ".join(escaped[:8]))
    assert not problems, "\n".join(problems)


async def _watch_to_the_end(ws_url: str, table_id: str) -> list[str]:
    """The types of the events a spectator sees, until GameEnded (or the socket ends)."""
    seen: list[str] = []
    try:
        async with websockets.connect(f"{ws_url}/tables/{table_id}/watch?since=0") as ws:
            while "GameEnded" not in seen:
                for message in unpacked(json.loads(await ws.recv())):
                    if message["type"] == "event":
                        seen.append(message["event"]["type"])
    except (OSError, websockets.WebSocketException) as error:
        seen.append(f"(the socket failed: {error!r})")
    return seen
