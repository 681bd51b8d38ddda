"""uvicorn's WebSocket protocol, stopping cleanly a socket that is already closing.

uvicorn (0.55) stops its connections one after another at the start of its
``Server.shutdown``.  A socket whose client had just sent its close (the
reply sent, the transport closing, the connection not yet gone from the
server's set) was sent a second close, which websockets refuses
(``InvalidState: connection is closing``).  Raised there, it ended the
shutdown: the connections after it were never closed, and the app's
lifespan shutdown (the background tasks stopped, the pool closed in
order) never ran.  Seen in the tests: a browser closed its page as the
service stopped, and the browser's next page was answered by the
half-stopped service with 503s.  ``muggins serve`` stops through the same
code at every SIGTERM."""

from __future__ import annotations

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State


class WebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's own (websockets' sans-I/O protocol, what its ``ws="auto"``
    chooses), except that at shutdown a socket already closing is only
    closed: its close was already sent, by websockets in answer to the
    client's.  (Its app was already told: the client's close queued the
    disconnect, and the transport's loss queues another.)"""

    def shutdown(self) -> None:
        if (self.handshake_complete and not self.close_sent
                and self.conn.state in (State.CLOSING, State.CLOSED)):
            self.stop_keepalive()
            self.transport.close()
            return
        super().shutdown()
