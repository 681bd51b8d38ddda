"""A hint's delivery, without a socket: a socket that went while its hint was
thought is the client's doing, not the expert's failure (a flooder asks and
hangs up); an expert that fails is logged and the seat told."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
import structlog
from litestar.exceptions import WebSocketDisconnect

from muggins.tables.admission import Payer
from muggins.tables.play_socket import SeatHandler


class Session:
    """What a hint needs of its socket's session; ``send`` fails as ``gone`` says."""

    address_payer = Payer("address", "192.0.2.1")

    def __init__(self, gone: BaseException | None = None) -> None:
        self.gone = gone
        self.sent: list[object] = []
        self.failed: list[str] = []

    async def send(self, message: object) -> None:
        if self.gone is not None:
            raise self.gone
        self.sent.append(message)

    async def fail(self, code: str, message: str, close: int | None = None) -> None:
        self.failed.append(code)


def handler(hint: Any) -> SeatHandler:
    async def think(following: object, seat: int, payers: list[Payer]) -> object:
        if isinstance(hint, BaseException):
            raise hint
        return hint

    seat = SeatHandler(SimpleNamespace(hints=SimpleNamespace(hint=think)),  # type: ignore[arg-type]
                       "AbCdEfGh1234")
    seat.seat, seat.follower = 0, object()  # type: ignore[assignment]
    return seat


@pytest.mark.parametrize("gone", [OSError("client disconnected"),
                                  RuntimeError("websocket.send after websocket.close"),
                                  WebSocketDisconnect(detail="gone")])
async def test_a_socket_gone_before_its_hint_is_told_is_no_failure(gone: BaseException) -> None:
    session = Session(gone)
    with structlog.testing.capture_logs() as logs:
        await handler("the hint")._hint(session)  # type: ignore[arg-type]
    assert [entry for entry in logs if entry["log_level"] == "error"] == []
    assert session.failed == []


async def test_a_hint_is_told() -> None:
    session = Session()
    await handler("the hint")._hint(session)  # type: ignore[arg-type]
    assert session.sent == ["the hint"] and session.failed == []


async def test_an_expert_that_fails_is_logged_and_the_seat_told() -> None:
    session = Session()
    with structlog.testing.capture_logs() as logs:
        await handler(ValueError("a bug"))._hint(session)  # type: ignore[arg-type]
    assert [entry["event"] for entry in logs if entry["log_level"] == "error"] == [
        "a hint could not be thought out"]
    assert session.failed == ["hint-unavailable"]
