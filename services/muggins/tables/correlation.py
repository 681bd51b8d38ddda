"""A correlation id on every request and socket: taken from the load
balancer's ``X-Request-Id`` when it is a sane id, made here otherwise, bound
to every log line the request causes (with the table, where the path names
one) and sent back in the response's ``X-Request-Id``."""

from __future__ import annotations

import re
import uuid

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from muggins.domain.streams import is_table_id
from muggins.infra.logs import log_context

_SANE_ID = re.compile(rb"^[A-Za-z0-9._:-]{1,64}$")
HEADER = b"x-request-id"


def correlation_middleware(app: ASGIApp) -> ASGIApp:
    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await app(scope, receive, send)
            return
        given = dict(scope.get("headers") or ()).get(HEADER, b"")
        correlation_id = (given.decode() if _SANE_ID.match(given) else uuid.uuid4().hex)
        parts = scope.get("path", "").split("/")
        table = parts[2] if len(parts) > 2 and parts[1] in ("tables", "play", "watch") else None

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers") or [])
                headers.append((HEADER, correlation_id.encode()))
                message = {**message, "headers": headers}
            await send(message)

        with log_context(correlation_id=correlation_id,
                         table=table if table and is_table_id(table) else None):
            # A socket's sends pass straight through: only an HTTP response
            # has headers to add to, and a crowd's every frame would pay the wrapper.
            await app(scope, receive, send_with_id if scope["type"] == ScopeType.HTTP else send)

    return middleware
