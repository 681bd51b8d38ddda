"""A NATS connection that never stays closed.

nats-py reconnects on its own when the server goes away, but some protocol
errors put its client in the *closed* state for good: the server answers a
line it refuses (a subject longer than its maximum control line, say) with
``-ERR`` and hangs up, and nats-py closes instead of reconnecting.  Without
help the process would have no bus until it restarts.

:class:`Bus` wraps the client: a watchdog task notices a closed client, makes
a new one with :func:`muggins.bus.jetstream.connect` and subscribes every live
:class:`BusSubscription` again on it.  Subjects are checked before anything is
sent, so a bad one never reaches the server and closes the connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Awaitable, Callable

import nats.errors
import structlog
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.js import JetStreamContext
from prometheus_client import Counter

from muggins.bus.jetstream import BUS_TRANSIENT, bus_down, connect
from muggins.infra.background import BackgroundTasks
from muggins.infra.retry import Backoff, Retry, Stopped

log = structlog.get_logger(__name__)

REBUILDS = Counter(
    "muggins_bus_rebuilds_total",
    "NATS connections made again after the client closed for good",
)

#: Far below the server's 4 KiB control line, whatever the UTF-8 encoding.
MAX_SUBJECT_LENGTH = 256
#: First pause between failed rebuild attempts; it doubles up to the cap.
REBUILD_BACKOFF_FIRST = 0.25
REBUILD_BACKOFF_CAP = 4.0
#: A publish only queues the message for nats-py's flusher; this long is a hang.
PUBLISH_TIMEOUT = 5.0
#: How long close() lets subscriptions drain before it closes the client anyway.
CLOSE_TIMEOUT = 10.0

MessageHandler = Callable[[Msg], Awaitable[None]]

# \s covers Unicode whitespace; \x00-\x1f and \x7f-\x9f are the control characters.
_WHITESPACE_OR_CONTROL = re.compile(r"[\s\x00-\x1f\x7f-\x9f]")
_WILDCARDS = ("*", ">")


def _shown(subject: str) -> str:
    """The subject for an error message, cut short: a refused one can be huge."""
    return repr(subject if len(subject) <= 64 else subject[:64] + "…")


def check_subject(subject: str, *, wildcards: bool) -> None:
    """Raise ValueError unless ``subject`` is one the server takes without a
    protocol error: not empty, at most MAX_SUBJECT_LENGTH characters, no
    whitespace or control characters, no empty token; the wildcards ``*`` and
    ``>`` only when ``wildcards`` (subscribing), as whole tokens, ``>`` last."""
    if not subject:
        raise ValueError("empty NATS subject")
    if len(subject) > MAX_SUBJECT_LENGTH:
        raise ValueError(
            f"NATS subject of {len(subject)} characters (at most {MAX_SUBJECT_LENGTH}): "
            f"{_shown(subject)}"
        )
    if _WHITESPACE_OR_CONTROL.search(subject):
        raise ValueError(f"NATS subject with whitespace or a control character: {_shown(subject)}")
    tokens = subject.split(".")
    if "" in tokens:
        raise ValueError(f"NATS subject with an empty token: {_shown(subject)}")
    last = len(tokens) - 1
    for index, token in enumerate(tokens):
        if not any(wildcard in token for wildcard in _WILDCARDS):
            continue
        if not wildcards:
            raise ValueError(f"wildcard in a NATS subject to publish to: {_shown(subject)}")
        if token not in _WILDCARDS or (token == ">" and index != last):
            raise ValueError(f"misplaced wildcard in a NATS subject: {_shown(subject)}")


class BusSubscription:
    """One subscription made through a :class:`Bus`: its subject and callback,
    made again on every new connection until :meth:`unsubscribe`."""

    def __init__(self, bus: Bus, subject: str, cb: MessageHandler) -> None:
        self.subject = subject
        self.cb = cb
        self._bus = bus
        self._active = True
        #: The client the current nats-py subscription is on (or being made on).
        self._client: NatsClient | None = None
        self._current: Subscription | None = None

    @property
    def active(self) -> bool:
        """Not unsubscribed yet: made again after each rebuild."""
        return self._active

    async def _deliver(self, msg: Msg) -> None:
        # nats-py accepts only coroutine functions as callbacks; this one lets
        # any callable returning an awaitable through.
        await self.cb(msg)

    async def _attach(self, client: NatsClient) -> None:
        """Subscribe on ``client`` unless already there (or on the way there)."""
        if not self._active or self._client is client:
            return
        self._client = client  # claimed before the await: no second attach races in
        try:
            current = await client.subscribe(self.subject, cb=self._deliver)
        except BaseException:
            if self._client is client:
                self._client = None
            raise
        if self._active and self._client is client:
            self._current = current
            return
        # Unsubscribed (or moved on) while the SUB was on its way.
        with contextlib.suppress(nats.errors.Error, OSError):
            await current.unsubscribe()

    async def unsubscribe(self) -> None:
        """Stop receiving; the subscription is not made again after a rebuild."""
        self._active = False
        self._bus._forget(self)
        current, self._current, self._client = self._current, None, None
        if current is not None:
            # A dead connection has forgotten the subscription already.
            with contextlib.suppress(nats.errors.Error, OSError):
                await current.unsubscribe()


class Bus:
    """The process's NATS connection: a nats-py client made again whenever it
    closes for good, with the subscriptions made through the Bus carried over,
    and subjects checked before anything is sent.  ``start()`` connects,
    ``close()`` ends it; nothing happens at construction."""

    def __init__(self, url: str, *, name: str = "muggins", rebuild_check: float = 0.5,
                 tasks: BackgroundTasks | None = None) -> None:
        self._url = url
        #: Where the watchdog runs (its end by a bug is reported there).
        self._tasks = tasks or BackgroundTasks()
        #: Set when close() begins: cuts the rebuild's pauses short.
        self._closed = asyncio.Event()
        self._name = name
        self._rebuild_check = rebuild_check
        self._connect_timeout = 10.0
        self._client: NatsClient | None = None
        self._js: JetStreamContext | None = None
        self._subscriptions: set[BusSubscription] = set()
        self._watchdog: asyncio.Task[None] | None = None
        self._closing_flag = False
        #: How many times the connection was made again after closing.
        self.rebuilds = 0

    async def start(self, timeout: float = 10.0) -> None:
        """Connect (BusUnavailable if NATS cannot be reached within ``timeout``)
        and start watching the connection."""
        if self._client is not None or self._closing():
            raise RuntimeError("a Bus starts once")
        self._connect_timeout = timeout
        self._use(await connect(self._url, name=self._name, timeout=timeout))
        self._watchdog = self._tasks.start(f"nats-bus-watchdog:{self._name}", self._watch())

    async def close(self) -> None:
        """Stop the watchdog and drain the client; nothing is rebuilt after this."""
        self._closing_flag = True
        self._closed.set()
        if self._watchdog is not None:
            self._watchdog.cancel()
            # wait() rather than awaiting the task: a cancel of close() itself
            # must still propagate, and the watchdog's own end is not an error.
            await asyncio.wait([self._watchdog])
            self._watchdog = None
        for subscription in list(self._subscriptions):
            subscription._active = False
        self._subscriptions.clear()
        client = self._client
        if client is None or client.is_closed:
            return
        try:
            async with asyncio.timeout(CLOSE_TIMEOUT):
                await client.drain()
        except Exception as problem:  # reconnecting, closed meanwhile, timed out
            log.info("NATS drain skipped on close", error=str(problem) or repr(problem))
            with contextlib.suppress(Exception):
                await client.close()

    @property
    def client(self) -> NatsClient:
        """The current nats-py client (a new one after each rebuild)."""
        if self._client is None:
            raise RuntimeError("Bus.start() has not run")
        return self._client

    @property
    def js(self) -> JetStreamContext:
        """JetStream on the current client (a new context after each rebuild)."""
        if self._js is None:
            raise RuntimeError("Bus.start() has not run")
        return self._js

    @property
    def is_connected(self) -> bool:
        """The current client is connected: False while down or being rebuilt."""
        return self._client is not None and self._client.is_connected

    async def publish(self, subject: str, data: bytes) -> None:
        """Publish ``data`` on ``subject`` (ValueError for a bad subject, before
        anything is sent).  While the connection is down nats-py's own errors
        come through: the caller retries or lets it go."""
        check_subject(subject, wildcards=False)
        async with asyncio.timeout(PUBLISH_TIMEOUT):
            await self.client.publish(subject, data)

    async def subscribe(self, subject: str, cb: MessageHandler) -> BusSubscription:
        """Call ``cb`` with every message on ``subject`` (wildcards allowed), on
        this connection and every one that replaces it.  ValueError for a bad
        subject, before anything is sent.  Made while the connection is being
        rebuilt, the subscription starts on the new one."""
        check_subject(subject, wildcards=True)
        client = self.client
        if self._closing():
            raise nats.errors.ConnectionClosedError
        subscription = BusSubscription(self, subject, cb)
        self._subscriptions.add(subscription)
        try:
            await subscription._attach(client)
        except nats.errors.ConnectionClosedError:
            if self._closing():
                self._forget(subscription)
                raise
            # Closed for good under us: the watchdog subscribes it on the new client.
            return subscription
        except BaseException:
            self._forget(subscription)
            raise
        if client is not self._client:  # rebuilt while subscribing
            await subscription._attach(self.client)
        return subscription

    def _closing(self) -> bool:
        # A method, not the attribute: mypy would keep an attribute's narrowing
        # across awaits, during which close() may run.
        return self._closing_flag

    def _forget(self, subscription: BusSubscription) -> None:
        self._subscriptions.discard(subscription)

    def _use(self, client: NatsClient) -> None:
        self._client = client
        self._js = client.jetstream()

    async def _watch(self) -> None:
        """Poll the client; rebuild it when it closed without our asking, and
        subscribe whatever is not on it yet.  NATS's own failures in a round
        are logged and the next round tries again (muggins.infra.retry,
        "nats-watchdog"); a bug ends the watchdog, with its traceback, and
        the process reports it (muggins.infra.background): a watchdog that died
        quietly would leave the process without a bus at the next close."""
        retry = Retry("nats-watchdog", BUS_TRANSIENT, stop=self._closed,
                      backoff=Backoff(self._rebuild_check, REBUILD_BACKOFF_CAP),
                      message="NATS watchdog failed; carrying on")
        while not self._closing():
            await asyncio.sleep(self._rebuild_check)
            if self._closing():
                return
            try:
                if self.client.is_closed:
                    await self._rebuild()
                elif self.client.is_connected:
                    await self._attach_stragglers()
            except Exception as error:
                await retry.failed(error)  # raises a bug
            else:
                retry.succeeded()

    async def _attach_stragglers(self) -> None:
        """Subscribe on the current client every live subscription not on it:
        one made while the client was closed, or one whose resubscribe failed."""
        client = self.client
        for subscription in list(self._subscriptions):
            if subscription._client is not client:
                await subscription._attach(client)

    async def _rebuild(self) -> None:
        old = self.client
        log.warning(
            "NATS connection closed; rebuilding",
            name=self._name,
            error=str(old.last_error or "") or None,
            subscriptions=len(self._subscriptions),
        )
        retry = Retry("nats-rebuild", bus_down, stop=self._closed,
                      backoff=Backoff(REBUILD_BACKOFF_FIRST, REBUILD_BACKOFF_CAP),
                      message="NATS connection rebuild failed; retrying")
        attempt = 0

        async def reconnect() -> NatsClient:
            nonlocal attempt
            attempt += 1
            return await connect(self._url, name=self._name, timeout=self._connect_timeout)

        try:
            client = await retry.call(reconnect)
        except Stopped:
            return  # close() ran meanwhile
        if self._closing():  # close() ran meanwhile (it cannot see this client)
            with contextlib.suppress(Exception):
                await client.close()
            return
        self._use(client)
        self.rebuilds += 1
        REBUILDS.inc()
        failed = 0
        for subscription in list(self._subscriptions):
            try:
                await subscription._attach(client)
            except (nats.errors.Error, OSError) as problem:
                # The new client is in trouble too; the next round rebuilds again
                # and attaches whatever is not on that client.
                failed += 1
                log.warning(
                    "NATS resubscribe failed",
                    subject=subscription.subject,
                    error=str(problem) or repr(problem),
                )
        log.info(
            "NATS connection rebuilt",
            name=self._name,
            rebuilds=self.rebuilds,
            attempts=attempt,
            subscriptions=len(self._subscriptions),
            failed=failed,
        )
