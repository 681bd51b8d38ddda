"""What the table service tells Prometheus (``GET /metrics``), in one place.

Counted where it happens: moves in Commands, command-to-broadcast latency
between Commands (the command came in) and the table's follower (its view
went out to the seats), sockets in SocketsPerAddress.  Measured at each
scrape from the database, so any process reports the whole site: relay lag,
projector lag and the scheduler's queue (``refresh``).

deploy/README.md ("Alerts") says what each means for an operator.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING

from prometheus_client import Counter, Gauge, Histogram

from muggins.bus import RELAY_READER
from muggins.infra.latency import LATENCY_BUCKETS
from muggins.infra.sql import load_queries
from muggins.projections.projection import LAG as PROJECTOR_LAG
from muggins.projections.read_models import PROJECTIONS

if TYPE_CHECKING:
    from muggins.eventstore.store import EventStore

QUERIES = load_queries(Path(__file__).parent / "queries.sql")

MOVES = Counter("muggins_moves_total", "Game commands applied (plays, draws, passes, claims)",
                ["command", "by"])
COMMAND_TO_BROADCAST = Histogram(
    "muggins_command_to_broadcast_seconds",
    "From a command reaching this process to its view going out to the table's sockets",
    buckets=LATENCY_BUCKETS)
#: The steps of a move between those two ends (docs/service.md, "A move's
#: steps"): the command decided and appended; then, from the append's start
#: on the database's clock (``recorded_at``, so both include the append's own
#: lock wait and commit, and they need the hosts' clocks in step), the
#: relay's publishing (muggins.bus.relay's muggins_relay_publish_seconds) and
#: the bus's delivery to the table's follower.
APPENDED = Histogram(
    "muggins_command_append_seconds",
    "From a command reaching this process to its events' being stored (the table's "
    "lock, the decision and the append)",
    buckets=LATENCY_BUCKETS)
DELIVERED = Histogram(
    "muggins_bus_delivery_seconds",
    "From the start of a game event's append (the database's clock) to a table's "
    "follower taking it from the bus (the append's commit and publishing included)",
    buckets=LATENCY_BUCKETS)
OPEN_SOCKETS = Gauge("muggins_open_sockets", "Open sockets by kind (play, watch, events)",
                     ["kind"])
BOT_DECISIONS_WAITING = Gauge("muggins_bot_decisions_waiting",
                              "Expert decisions asked of the bot workers and not answered yet")
BOT_BUDGET = Gauge("muggins_bot_budget_ms",
                   "The thinking time the expert's last decision got (shortened under load), "
                   "by when it was asked: due now, or ahead, during the bot's pause",
                   ["asked"])
BOT_DECISIONS = Counter("muggins_bot_decisions_total",
                        "Expert decisions, by whether they had their table's whole budget "
                        "(full) or a share of it because decisions queued (shortened)",
                        ["budget"])
RELAY_BEHIND = Gauge("muggins_relay_lag_events", "Events stored but not yet published to NATS")
DUE_TABLES = Gauge("muggins_due_tables", "Tables with a next step armed (deal, bot, clock)")
OVERDUE_TABLES = Gauge("muggins_overdue_tables",
                       "Tables whose next step is due and not yet done (the bot/clock queue)")
OLDEST_OVERDUE = Gauge("muggins_oldest_overdue_seconds",
                       "How long the longest-waiting due step has waited")

#: Appends awaiting their broadcast; beyond this the oldest are forgotten.
MAX_PENDING = 10_000


class BroadcastClock:
    """When each append's command came in, until its view goes out.

    Commands starts the clock for (stream, version) it appended; the table's
    follower in the same process stops it when a view at that version or
    later reaches the sockets (a burst of appends settles once, at its last
    version: every command in it is timed then).  The appends of a table
    nobody here follows are forgotten, the oldest first, past MAX_PENDING.

    The view may go out before the append's caller hears that it committed
    (the relay and the follower are woken on other connections): so the
    version each stream's views have reached is kept too, and a command
    started at or below it is timed at once.
    """

    def __init__(self) -> None:
        #: stream -> [(version, when its command came in)], oldest first.
        self._started: OrderedDict[str, list[tuple[int, float]]] = OrderedDict()
        self._pending = 0
        #: stream -> (the version its follower here has reached, whether that
        #: went out as a view: False where the follower began there).
        self._reached: OrderedDict[str, tuple[int, bool]] = OrderedDict()

    def started(self, stream: str, version: int, at: float) -> None:
        reached = self._reached.get(stream)
        if reached is not None and reached[0] >= version:
            if reached[1]:  # its view went out already: now is late, not early
                COMMAND_TO_BROADCAST.observe(time.monotonic() - at)
            return
        self._started.setdefault(stream, []).append((version, at))
        self._started.move_to_end(stream)
        self._pending += 1
        while self._pending > MAX_PENDING:
            _stream, forgotten = self._started.popitem(last=False)
            self._pending -= len(forgotten)

    def broadcast(self, stream: str, version: int) -> None:
        """The view at ``version`` went out: every command up to it is timed."""
        self._settle(stream, version, observe=True)

    def forget(self, stream: str, version: int) -> None:
        """A follower starts at ``version``: the appends up to it were made
        while nobody here followed the table, and are not timed (they would
        count as waiting until the first view after it, a move later)."""
        self._settle(stream, version, observe=False)

    def _settle(self, stream: str, version: int, *, observe: bool) -> None:
        self._reached.pop(stream, None)
        self._reached[stream] = (version, observe)
        while len(self._reached) > MAX_PENDING:
            self._reached.popitem(last=False)
        waiting = self._started.get(stream)
        if not waiting:
            return
        now = time.monotonic()
        while waiting and waiting[0][0] <= version:
            started = waiting.pop(0)[1]
            if observe:
                COMMAND_TO_BROADCAST.observe(now - started)
            self._pending -= 1
        if not waiting:
            del self._started[stream]


async def refresh(store: EventStore) -> None:
    """The gauges measured from the database (the store's), at a scrape."""
    pool = store.pool
    head = await store.head_position()
    projectors = {f"projector:{name}": name for name in PROJECTIONS}
    readers = [RELAY_READER, *projectors]
    stood = {row["reader"]: row["position"]
             for row in await pool.fetch(QUERIES["checkpoints_of"], readers)}
    RELAY_BEHIND.set(max(0, head - stood.get(RELAY_READER, 0)))
    for reader, name in projectors.items():
        PROJECTOR_LAG.labels(name).set(max(0, head - stood.get(reader, 0)))
    row = await pool.fetchrow(QUERIES["due_counts"])
    assert row is not None
    DUE_TABLES.set(row["armed"])
    OVERDUE_TABLES.set(row["overdue"])
    OLDEST_OVERDUE.set(row["oldest_overdue"] or 0.0)
