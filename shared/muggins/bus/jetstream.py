"""JetStream: the stream's configuration, the subjects, and publishing.

PostgreSQL is the only source of truth; JetStream delivers.  Every stored
event is published once per audience it has (docs/eventstore.md):

* ``muggins.table.<stream>.public`` carries every event, redacted where its
  content is secret (a drawn tile, a deal, the seed), so anyone may read it;
* ``muggins.table.<stream>.seat.<n>`` carries the full content of events only
  seat n may read (its deal, its draws);
* ``muggins.table.<stream>.audit`` carries the full content of audit events.

Each message's ``Nats-Msg-Id`` is the event id (plus the audience for the
private copies), so JetStream drops a republished duplicate inside the
duplicate window.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

import msgspec
import nats
import nats.errors
import nats.js.errors
import structlog
from nats.aio.client import Client as NatsClient
from nats.js import JetStreamContext
from nats.js.api import DiscardPolicy, RetentionPolicy, StorageType, StreamConfig

from muggins.domain.streams import ALL_EVENT_SUBJECTS, PUBLIC, audience, event_subject
from muggins.eventstore.records import RecordedEvent
from muggins.eventstore.store import store_down
from muggins.infra.settings import Settings

log = structlog.get_logger(__name__)

def stream_config(settings: Settings | None = None) -> StreamConfig:
    """The stream, configured explicitly from the settings (deploy/README.md):
    created at start, and brought back to this if it drifted."""
    settings = settings or Settings()
    return StreamConfig(
        name=settings.stream_name,
        description="muggins game events, delivered from the PostgreSQL event store",
        subjects=[ALL_EVENT_SUBJECTS],
        # Files, not memory: a restarted server still has what it acknowledged.
        storage=StorageType.FILE,
        # Limits retention: messages stay for late readers until max_age; the
        # store keeps everything forever, so readers further behind catch up from it.
        retention=RetentionPolicy.LIMITS,
        max_age=settings.stream_max_age,
        max_bytes=settings.stream_max_bytes,
        discard=DiscardPolicy.OLD,
        # Long enough to cover a relay crash between publishing and saving its
        # checkpoint: what it republishes then is dropped as a duplicate.
        duplicate_window=settings.stream_duplicate_window,
        num_replicas=settings.stream_replicas,
    )


#: The stream with every setting at its default (one server).
STREAM_CONFIG = stream_config()
STREAM_NAME: str = Settings().stream_name


class BusMessage(msgspec.Struct, frozen=True, gc=False):
    """What a bus message carries: the event and where it stands in the store."""

    position: int
    stream_id: str
    stream_version: int
    event_id: str
    actor: str
    recorded_at: str
    event: msgspec.Raw
    #: Who may read the full event: "public", "audit" or "seat:N".  On the
    #: public subject a non-public event comes redacted.
    audience: str = "public"
    #: The last event of the append it came in (a command's events are one
    #: append): a reader shows a view only there, never halfway through a deal.
    last_of_append: bool = True


bus_message_decoder = msgspec.json.Decoder(BusMessage)
_encode = msgspec.json.Encoder().encode


#: An event's JSON for readers outside its audience (muggins.domain.codec.public_payload:
#: the bus knows no event, only bytes).
Redactor = Callable[[RecordedEvent], bytes]


def messages_for(recorded: RecordedEvent, redacted: Redactor, last_of_append: bool = True
                 ) -> list[tuple[str, str, bytes]]:
    """(subject, Nats-Msg-Id, body) of every message one stored event becomes:
    one on its public subject (``redacted`` gives what the public may read of
    an event that is not public) and, for one that is not, one on its
    audience's subject with the whole event."""

    def body(event_json: bytes) -> bytes:
        return _encode(
            BusMessage(
                position=recorded.position,
                stream_id=recorded.stream_id,
                stream_version=recorded.stream_version,
                event_id=recorded.event_id,
                actor=recorded.actor,
                recorded_at=recorded.recorded_at.isoformat(),
                event=msgspec.Raw(event_json),
                audience=recorded.audience,
                last_of_append=last_of_append,
            )
        )

    full = bytes(recorded.payload)
    # Every table event, and most game events, are public: one message.
    if recorded.audience == "public":
        return [(event_subject(recorded.stream_id, PUBLIC), recorded.event_id, body(full))]
    public_json = redacted(recorded)
    return [
        (event_subject(recorded.stream_id, PUBLIC), recorded.event_id, body(public_json)),
        (
            # Checked before it becomes a subject: a stored audience is one of ours.
            event_subject(recorded.stream_id, audience(recorded.audience)),
            f"{recorded.event_id}/{recorded.audience}",
            body(full),
        ),
    ]


class BusUnavailable(Exception):
    """NATS cannot be reached at start; the message says where and why."""


#: Failures of NATS and JetStream that pass: the server away or reconnecting,
#: a request nobody answered in time, JetStream without a leader (a cluster
#: electing one after a restart answers "no responders", times out, or says
#: 503/500 "temporarily unavailable", "insufficient resources").  A request
#: JetStream refuses (400: a configuration it will not take) is not one.
BUS_TRANSIENT: tuple[type[Exception], ...] = (
    OSError,
    # nats.errors.TimeoutError (a request unanswered) is a TimeoutError too.
    TimeoutError,
    nats.errors.NoRespondersError,
    nats.errors.ConnectionClosedError,
    nats.errors.ConnectionReconnectingError,
    nats.errors.ConnectionDrainingError,
    nats.errors.StaleConnectionError,
    nats.errors.OutboundBufferLimitError,
    nats.errors.NoServersError,
    nats.js.errors.ServiceUnavailableError,
    nats.js.errors.ServerError,
    nats.js.errors.NoStreamResponseError,
)


def bus_down(error: BaseException) -> bool:
    """Whether ``error`` is NATS or JetStream away for a moment (BUS_TRANSIENT,
    or BusUnavailable caused by one: not a refused authorization)."""
    if isinstance(error, BusUnavailable):
        return error.__cause__ is None or isinstance(error.__cause__, BUS_TRANSIENT)
    return isinstance(error, BUS_TRANSIENT)


def outage(error: BaseException) -> bool:
    """Whether ``error`` is PostgreSQL's or NATS's passing absence: what a
    loop that reads the store and the bus waits out (anything else is a bug)."""
    return store_down(error) or bus_down(error)


async def connect(url: str, *, name: str = "muggins", timeout: float = 10.0) -> NatsClient:
    """A NATS connection that keeps reconnecting on its own when the server goes
    away later; BusUnavailable if it cannot connect at all within ``timeout``."""

    #: The last problem nats-py met, for the error when it never connects.
    met: list[Exception] = []
    connected = False

    async def error(problem: Exception) -> None:
        met[:] = [problem]
        if connected:
            log.warning("NATS connection problem", error=str(problem) or repr(problem))
        # Not connected yet: nats-py tries again and again until ``timeout``;
        # the caller says it once if the attempt fails (muggins.bootstrap).

    async def disconnected() -> None:
        if client.is_closed:  # our own close (shutdown): nothing is wrong
            log.info("NATS connection closed")
            return
        log.warning("NATS disconnected; reconnecting")

    async def reconnected() -> None:
        log.info("NATS reconnected")

    client = NatsClient()
    try:
        async with asyncio.timeout(timeout):
            await client.connect(
                # A cluster's servers, comma-separated: the client moves to
                # another when the one it uses goes away.
                [server.strip() for server in url.split(",") if server.strip()],
                name=name,
                connect_timeout=2,
                reconnect_time_wait=0.25,  # type: ignore[arg-type]  # typed int; takes seconds
                max_reconnect_attempts=-1,
                allow_reconnect=True,
                error_cb=error,
                disconnected_cb=disconnected,
                reconnected_cb=reconnected,
            )
    except (OSError, TimeoutError, nats.errors.Error) as problem:
        with contextlib.suppress(Exception):
            await client.close()
        why = problem if str(problem) or not met else met[-1]
        raise BusUnavailable(f"cannot reach NATS at {url}: {why or repr(why)}") from problem
    connected = True
    return client


async def ensure_stream(js: JetStreamContext, config: StreamConfig | None = None) -> None:
    """Create the stream, or bring its configuration back to ``config``
    (the defaults' when None): replicas and limits follow the settings.

    A stream with no leader yet (a NATS cluster just started) fails here
    with one of BUS_TRANSIENT: the caller waits and tries again
    (muggins.bootstrap)."""
    config = config or STREAM_CONFIG
    assert config.name is not None
    try:
        await js.stream_info(config.name)
    except nats.js.errors.NotFoundError:
        await js.add_stream(config)
        return
    await js.update_stream(config)
