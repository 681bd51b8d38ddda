"""One WebSocket, seat or spectator: the plumbing every socket shares.

A ``SocketSession`` owns what does not depend on who is at the other end:
the socket's place in its address's count, size limits and strict
decoding, strikes for refused messages (past the limit the socket is
closed and the address sent away for a while), the outbox and the send
and receive loops, pings, throttled resends ("since"), the chat, and the
close at shutdown.  What differs between a seat and a spectator is a small
``SocketHandler`` (muggins.tables.play_socket, muggins.tables.watch): how
it starts, what it does with a message, how it resumes, how it talks.

The outbox is bounded: a client that lets it fill is cut off (close 1013:
"reconnect with since") rather than holding up the table's other readers,
which only ever queue into it.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

import msgspec
import structlog
from litestar.connection import WebSocket
from litestar.exceptions import WebSocketDisconnect

from muggins.bus.jetstream import outage
from muggins.domain.streams import NoSuchTable, is_table_id
from muggins.infra.logs import log_context
from muggins.rules.errors import IllegalMove
from muggins.tables.admission import Payer, Throttled
from muggins.tables.client_address import client_address
from muggins.tables.errors import Refusal
from muggins.tables.limits import POLICY_VIOLATION, SocketKind, Strikes, TokenBucket
from muggins.tables.protocol import (
    Chat,
    ErrorMessage,
    Ping,
    Pong,
    Since,
    client_message_decoder,
    encode,
)
from muggins.tables.runtime import Runtime

log = structlog.get_logger(__name__)

MAX_MESSAGE_BYTES = 4096
#: Messages a socket may have waiting before it is cut off as too slow.
OUTBOX_LIMIT = 5000
#: Pings a socket may send: a burst, then one a second (the page pings every 10 s).
PING_BURST = 5
PINGS_PER_SECOND = 1.0
#: Resends ("since") a socket may ask for: a burst, then this many a second;
#: one at a time, so that a loop of "since 0" cannot make the socket an amplifier.
SINCE_BURST = 3
SINCE_PER_SECOND = 1.0
#: Close codes: going away (shutdown), ours failed, try again later (overloaded, too slow).
GOING_AWAY = 1001
INTERNAL_ERROR = 1011
TRY_AGAIN_LATER = 1013


@dataclass(frozen=True)
class Closing:
    """What the send loop does after the messages before it: close the socket."""

    code: int
    reason: str


TOO_SLOW = Closing(TRY_AGAIN_LATER, "you fell too far behind: reconnect with since")


class Refused(Exception):
    """The socket is refused at its start: ``code`` and ``message`` are told,
    then it is closed with ``close``."""

    def __init__(self, code: str, message: str, close: int = POLICY_VIOLATION) -> None:
        super().__init__(message)
        self.code = code
        self.close = close


class SocketHandler(Protocol):
    """What differs between a seat's socket and a spectator's."""

    kind: SocketKind

    async def start(self, session: SocketSession) -> None:
        """Begin: hello, joining the table; queue the first messages (Refused: turned away)."""

    async def handle(self, session: SocketSession, message: object) -> None:
        """A message other than ping, since and chat (Refusal, IllegalMove: told back)."""

    async def resume(self, session: SocketSession, version: int) -> None:
        """Queue everything after ``version`` again ("since")."""

    async def say(self, session: SocketSession, chat: Chat) -> None:
        """A chat line from this socket (Refusal: told back)."""

    async def finish(self, session: SocketSession) -> None:
        """Leave the table (the socket is closing); must not raise."""

    def version(self) -> int | None:
        """The version the socket's view is at (sent with refusals)."""


class SocketSession:
    def __init__(self, socket: WebSocket, runtime: Runtime,  # type: ignore[type-arg]
                 handler: SocketHandler) -> None:
        self.socket = socket
        self.runtime = runtime
        self.handler = handler
        self.address = client_address(socket)
        self.outbox: asyncio.Queue[str | Closing] = asyncio.Queue(OUTBOX_LIMIT)
        self.send_lock = asyncio.Lock()
        #: Closed by this side: what fails to be sent after it is no error.
        self.closed = False
        self.strikes = Strikes()
        self.commands = TokenBucket(runtime.options.commands_per_second,
                                    runtime.options.command_burst)
        self.pings = TokenBucket(PINGS_PER_SECOND, PING_BURST)
        self.resends = TokenBucket(SINCE_PER_SECOND, SINCE_BURST)
        #: Where the send loop takes what to send, if not the outbox: a
        #: spectator's place in the table's feed (muggins.tables.watch).
        self.source: Callable[[], Awaitable[str | Closing]] = self.outbox.get
        #: Who pays for what this socket asks (muggins.tables.admission):
        #: its address, and the socket itself (an id never given twice).
        self.address_payer = Payer("address", self.address)
        self.socket_payer = Payer("socket", uuid.uuid4().hex)

    # ------------------------------------------------------------ sending

    def post(self, message: object) -> None:
        """Queue for the send loop (what the table tells this socket): never
        blocks; a client that lets OUTBOX_LIMIT messages pile up is cut off."""
        text = message if isinstance(message, str) else encode(message).decode()
        try:
            self.outbox.put_nowait(text)
        except asyncio.QueueFull:
            self.outbox = asyncio.Queue(1)
            self.outbox.put_nowait(TOO_SLOW)  # the send loop closes the socket
            self.source = self.outbox.get

    def close_after_sent(self, reason: str, code: str) -> None:
        """Tell ``code`` and close (1011: reconnect) once what is queued is sent."""
        self.post(ErrorMessage(code, reason))
        with contextlib.suppress(asyncio.QueueFull):
            self.outbox.put_nowait(Closing(INTERNAL_ERROR, reason))

    async def send(self, message: object) -> None:
        """Send at once (a reply to this socket's own message)."""
        async with self.send_lock:
            await self.socket.send_data(encode(message).decode())

    async def fail(self, code: str, message: str, close: int | None = None,
                   retry_after: int | None = None) -> None:
        """Tell the client what was refused (and close, with ``close``)."""
        with contextlib.suppress(Exception):
            await self.send(ErrorMessage(code, message, self.handler.version(), retry_after))
        if close is not None:
            await self.close(close, message)

    async def refuse(self, error: Refusal | IllegalMove, close: int | None = None) -> None:
        """``fail`` with a refusal's code and words, and a spent budget's wait."""
        await self.fail(error.code, str(error), close, _wait(error))

    def told(self, error: Refusal | IllegalMove) -> ErrorMessage:
        """A refusal as this socket tells it: its code, words and wait."""
        return ErrorMessage(error.code, str(error), self.handler.version(), _wait(error))

    async def close(self, code: int, reason: str) -> None:
        self.closed = True
        with contextlib.suppress(Exception):
            await self.socket.close(code, reason[:120])

    async def strike(self, code: str, message: str, retry_after: int | None = None) -> None:
        """Tell the client what was refused; past the limit, close the socket
        and send its address away for a while."""
        if self.strikes.add():
            self.runtime.sockets.send_away(self.address)
            await self.fail(code, "too many refused messages: goodbye", POLICY_VIOLATION)
            raise WebSocketDisconnect(detail="closed for too many refused messages")
        await self.send(ErrorMessage(code, message, self.handler.version(), retry_after))

    # ------------------------------------------------------------ life

    async def run(self) -> None:
        """The socket from accept to close."""
        await self.socket.accept()
        try:
            self.runtime.admission.admit("socket", [self.address_payer])
        except Throttled as refused:
            await self.refuse(refused, TRY_AGAIN_LATER)
            return
        lease = self.runtime.sockets.lease(self.address, self.handler.kind)
        if lease is None:
            await self.fail("too-many-sockets", "too many connections from your address",
                            POLICY_VIOLATION)
            return
        self.runtime.sessions.add(self)
        try:
            await self._started_and_served()
        except WebSocketDisconnect:
            pass  # closed by the client, or by us for breaking the protocol
        finally:
            self.runtime.sessions.discard(self)
            lease.release()

    async def _started_and_served(self) -> None:
        try:
            await self.handler.start(self)
        except Refused as refused:
            await self.fail(refused.code, str(refused), refused.close)
            await self.handler.finish(self)
            return
        except (Refusal, NoSuchTable) as refusal:
            code = refusal.code if isinstance(refusal, Refusal) else "no-such-table"
            await self.fail(code, str(refusal), POLICY_VIOLATION)
            await self.handler.finish(self)
            return
        except Exception as error:
            if not outage(error):
                await self.handler.finish(self)
                raise
            log.warning("a socket could not start", error=repr(error))
            await self.fail("unavailable", "the table cannot be reached just now: "
                            "reconnect in a moment", TRY_AGAIN_LATER)
            await self.handler.finish(self)
            return
        except BaseException:
            await self.handler.finish(self)
            raise
        try:
            await self._serve_both_ways()
        finally:
            await self.handler.finish(self)

    async def receive_first(self, timeout: float) -> object:
        """The first message (a seat's hello), decoded; None if it was not one
        (already refused).  TimeoutError if none came in time."""
        async with asyncio.timeout(timeout):
            raw = await self.socket.receive_data(mode="text")
        return await self.decode(raw)

    async def _serve_both_ways(self) -> None:
        """Read messages and send the outbox until either side stops; then stop both."""
        tasks = [asyncio.create_task(self._receive_loop()),
                 asyncio.create_task(self._send_loop())]
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:  # also when this socket's own task is cancelled (shutdown)
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        for task in done:
            error = task.exception()
            if error is not None and not self._gone(error):
                log.error("connection failed", error=repr(error), exc_info=error)
                await self.close(INTERNAL_ERROR, "internal error")

    def _gone(self, error: BaseException) -> bool:
        """Whether ``error`` only says the connection ended: the client went
        (a disconnect; an OSError of the socket: the loops wait out the
        store's and the bus's own), or this side had closed it."""
        return self.closed or isinstance(error, (WebSocketDisconnect, OSError))

    async def _send_loop(self) -> None:
        while True:
            text = await self.source()
            if isinstance(text, Closing):
                await self.close(text.code, text.reason)
                return
            async with self.send_lock:
                await self.socket.send_data(text)

    # ------------------------------------------------------------ receiving

    async def decode(self, raw: str | bytes) -> object:
        """A client message, strictly; None (and a strike) if it is not one."""
        if len(raw) > MAX_MESSAGE_BYTES:
            await self.fail("message-too-large", f"messages are at most {MAX_MESSAGE_BYTES} "
                            "bytes", 1009)
            raise WebSocketDisconnect(detail="message too large")
        try:
            return client_message_decoder.decode(raw)
        except (msgspec.ValidationError, msgspec.DecodeError) as error:
            await self.strike("bad-message", str(error)[:300])
            return None

    async def _receive_loop(self) -> None:
        while True:
            raw = await self.socket.receive_data(mode="text")
            message = await self.decode(raw)
            if message is None:
                continue
            try:
                await self._dispatch(message)
            except IllegalMove as error:
                await self.send(self.told(error))
            except Refusal as error:
                if error.strikes:
                    await self.strike(error.code, str(error), _wait(error))
                else:  # the table's limit, not this client's doing
                    await self.send(self.told(error))
            except Exception as error:
                if not outage(error):
                    raise
                log.warning("a message could not be carried out now", error=repr(error))
                await self.send(ErrorMessage(
                    "unavailable", "the table cannot be reached just now: try again",
                    self.handler.version()))

    async def _dispatch(self, message: object) -> None:
        if isinstance(message, Ping):
            if not self.pings.take():
                await self.strike("rate-limited", "too many pings")
                return
            await self.send(Pong())
        elif isinstance(message, Since):
            if not self.resends.take():
                await self.strike("rate-limited", "one resend at a time: wait for the last")
                return
            await self.handler.resume(self, message.version)
        elif isinstance(message, Chat):
            await self.handler.say(self, message)
        else:
            if not self.commands.take():
                await self.strike("rate-limited", "too many messages: slow down")
                return
            await self.handler.handle(self, message)


async def serve_socket(socket: WebSocket, runtime: Runtime,  # type: ignore[type-arg]
                       handler: SocketHandler) -> None:
    """Run one socket with ``handler``, its log lines bound to its table."""
    table = socket.path_params.get("table_id")
    with log_context(table=table if isinstance(table, str) and is_table_id(table) else None,
                     reader=handler.kind):
        await SocketSession(socket, runtime, handler).run()


def _wait(error: Refusal | IllegalMove) -> int | None:
    """The seconds a client is told to wait: a spent budget's, else none."""
    return error.seconds if isinstance(error, Throttled) else None
