"""uvicorn's shutdown meets a WebSocket its client is closing
(muggins.tables.websocket_protocol): the socket is closed, nothing raised.

The state is caught where it happened in the suite: the client's close has
been answered and the transport is closing, but the connection is still in
the server's set.  The app is woken by the client's close before the
connection is gone, and does there what uvicorn's ``Server.shutdown``
begins with: ``shutdown()`` on every connection.  uvicorn's own protocol
(0.55) raised ``InvalidState: connection is closing`` here."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import uvicorn
from websockets.asyncio.client import connect

from muggins.tables.websocket_protocol import WebSocketProtocol
from tests.support.service import bound_socket


async def test_a_socket_its_client_is_closing_is_closed_by_the_shutdown_without_an_error() -> None:
    raised: list[BaseException] = []
    shut_down = asyncio.Event()
    server: uvicorn.Server

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        # (any failure here is kept and the test told at once: an app's
        # exception would only reach uvicorn's log)
        try:
            assert scope["type"] == "websocket"
            assert (await receive())["type"] == "websocket.connect"
            await send({"type": "websocket.accept"})
            assert (await receive())["type"] == "websocket.disconnect"
            closing = list(server.server_state.connections)
            assert closing, "the connection was gone before the shutdown came"
            for connection in closing:
                connection.shutdown()  # uvicorn's own protocol: InvalidState
        except BaseException as error:
            raised.append(error)
        finally:
            shut_down.set()

    listening = bound_socket(None)
    port = listening.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, lifespan="off",
                                           ws=WebSocketProtocol, log_level="warning"))
    serving = asyncio.create_task(server.serve(sockets=[listening]))
    try:
        async with asyncio.timeout(30):
            while not server.started:
                await asyncio.sleep(0.01)
            async with connect(f"ws://127.0.0.1:{port}/") as client:
                await client.close()
            await shut_down.wait()
        assert raised == []
        assert client.close_code == 1000
    finally:
        server.should_exit = True
        with contextlib.suppress(Exception):
            await asyncio.wait_for(serving, 10)
        listening.close()
