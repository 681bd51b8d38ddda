"""The tests' own service socket (tests.support.service.bound_socket): the
connections it accepts send at once.

asyncio sets TCP_NODELAY on an accepted connection only when the listening
socket's protocol says TCP.  The socket the test service binds for uvicorn
was made without it (protocol 0), and every response written in two parts
(its head, then its body) waited for the client's delayed ACK: about 40 ms
a request, most of the hostile fuzz's 100 s, in every test that spoke HTTP
or WebSocket to a test service."""

from __future__ import annotations

import asyncio
import socket

from tests.support.service import bound_socket


async def test_a_connection_to_the_test_service_socket_sends_without_waiting() -> None:
    listening = bound_socket(None)
    accepted: asyncio.Queue[asyncio.StreamWriter] = asyncio.Queue()

    async def on_connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await accepted.put(writer)

    server = await asyncio.start_server(on_connection, sock=listening)
    async with server:
        port = listening.getsockname()[1]
        _, client = await asyncio.open_connection("127.0.0.1", port)
        writer = await asyncio.wait_for(accepted.get(), timeout=10)
        connection: socket.socket = writer.get_extra_info("socket")
        assert listening.proto == socket.IPPROTO_TCP
        assert connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
        for stream in (writer, client):
            stream.close()
            await stream.wait_closed()
