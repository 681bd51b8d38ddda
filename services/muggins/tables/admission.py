"""Who may start costly work, and who pays for it: one policy for the site.

Costly work is anything a request makes the site spend CPU or storage on:

* a **bot's move** (the expert's search): the tables' own work, never
  refused or queued behind anything else; it has worker processes of its
  own (muggins.tables.bot_workers.BotWorkers);
* a **hint** (the same search for a person) and a finished hand's
  **analysis** (the expert over a whole hand): they think in the spare-time
  worker, at the operating system's lowest priority and hints before
  analyses, so that they take only the CPU the bots leave
  (bot_workers.SpareTimeWorker); each is thought once and kept, so asking
  again is a read (muggins.tables.hints, muggins.tables.analysis);
* a **chat line**: a row kept for ever and sent to every reader;
* a **dispute** (an event kept for good) and an **evidence file** (a
  table's every stream and the store's chain values, read and encoded);
* a new **socket** (a WebSocket or an event stream): a seat's hello, the
  table's follower joined, subscriptions, presence written and unwritten;
  a client that opens one for each request pays per socket
  (setting ``sockets_per_minute``).

Before any of it starts, ``Admission.admit`` charges each payer named (the
seat, the person's identity, the client's address, the table) one token of
its budget for that kind of work.  A payer out of tokens is refused with a
429 and the seconds until it has one again (``Throttled``): so a flood
costs the flooder its own budget, not the other tables their bots' time.
The budgets are per process (a replica's share); the durable caches and
the chat's per-table cap (muggins.tables.chat) hold across processes.
Metrics: ``muggins_costly_work_total{work,outcome}``, where a refusal's
outcome names the payer that ran out: a flood shows as its own line.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

from prometheus_client import Counter

from muggins.tables.errors import Refusal

Work = Literal["socket", "hint", "analysis", "analysis-request", "chat-seat",
               "chat-spectator", "dispute", "evidence", "evidence-request"]
PayerKind = Literal["seat", "identity", "address", "table", "socket", "site"]

COSTLY_WORK = Counter("muggins_costly_work_total",
                      "Costly requests by kind of work and outcome (admitted, cached, "
                      "busy, or refused: the payer that ran out of budget)",
                      ["work", "outcome"])


@dataclass(frozen=True)
class Quota:
    """``burst`` at once, then ``per_minute``."""

    burst: float
    per_minute: float


@dataclass(frozen=True)
class Payer:
    """Who is charged: a kind (seat, identity, address, table, socket) and its key."""

    kind: PayerKind
    key: str


#: Each kind of work's budget per payer.  A person asks one hint per turn
#: at most (the same position's hint is a read); an analysis is a few per
#: hand watched back; people say a few lines a minute, and a spectator less
#: than a player.
QUOTAS: dict[tuple[Work, PayerKind], Quota] = {
    ("hint", "seat"): Quota(burst=5, per_minute=6),
    ("hint", "identity"): Quota(burst=8, per_minute=10),
    ("hint", "address"): Quota(burst=12, per_minute=20),
    ("analysis", "address"): Quota(burst=4, per_minute=6),
    #: Any analysis request, a read of a kept one too, before it costs a query.
    ("analysis-request", "address"): Quota(burst=30, per_minute=60),
    ("chat-seat", "socket"): Quota(burst=4, per_minute=30),
    ("chat-seat", "address"): Quota(burst=8, per_minute=40),
    ("chat-spectator", "socket"): Quota(burst=2, per_minute=4),
    ("chat-spectator", "address"): Quota(burst=3, per_minute=6),
    #: Every spectator of a table together: the players' talk is not drowned.
    ("chat-spectator", "table"): Quota(burst=4, per_minute=8),
    #: A dispute is an event kept for good: a person disputes a hand or two.
    ("dispute", "address"): Quota(burst=5, per_minute=10),
    #: A new evidence file reads a table's every stream and the store's chain
    #: values between: a few a minute per address, and a dozen a minute for
    #: everyone together (the site, per process), so that a flood from many
    #: addresses cannot take the tables' time; one kept is a read.
    ("evidence", "address"): Quota(burst=3, per_minute=6),
    ("evidence", "site"): Quota(burst=4, per_minute=12),
    ("evidence-request", "address"): Quota(burst=30, per_minute=60),
}

#: Budgets remembered at once; the least recently used are forgotten (a
#: forgotten payer starts full again, which only an attacker with more
#: addresses than this could use, and addresses are what cost them).
MAX_BUDGETS = 100_000


class Throttled(Refusal):
    """A payer's budget for this kind of work is spent: try again later."""

    status = 429

    def __init__(self, work: Work, payer: PayerKind, retry_after: float) -> None:
        noun = {"hint": "hints", "analysis": "analyses", "socket": "new connections",
                "analysis-request": "analysis requests", "dispute": "disputes",
                "evidence": "evidence files", "evidence-request": "evidence requests"
                }.get(work, "messages")
        whose = {"seat": "this seat", "identity": "you", "address": "your address",
                 "table": "this table's spectators", "socket": "you",
                 "site": "everyone together"}[payer]
        self.retry_after = retry_after
        wait = self.seconds
        super().__init__(f"talking too fast ({whose}): try again in {wait} s"
                         if work.startswith("chat")
                         else f"too many {noun} from {whose}: try again in {wait} s")
        self.code = ("chat-rate-limited" if work.startswith("chat")
                     else "analysis-rate-limited" if work.startswith("analysis")
                     else "too-many-sockets" if work == "socket"
                     else "evidence-rate-limited" if work.startswith("evidence")
                     else f"{work}-rate-limited")
        self.payer = payer
        # The table's spectators together ran out: not this socket's doing alone.
        self.strikes = payer != "table"

    @property
    def seconds(self) -> int:
        """The wait as clients are told it (whole seconds, at least one): the
        message's words, an HTTP Retry-After, a socket error's retry_after.
        Rounded up, so a client that waits that long is not refused again
        (to the millisecond first: float noise adds no second)."""
        return max(1, math.ceil(round(self.retry_after, 3)))


class Budget:
    """A token bucket that can say when its next token comes."""

    def __init__(self, quota: Quota, now: float) -> None:
        self.quota = quota
        self.tokens = quota.burst
        self.at = now

    def refill(self, now: float) -> None:
        self.tokens = min(self.quota.burst,
                          self.tokens + (now - self.at) * self.quota.per_minute / 60.0)
        self.at = now

    def wait(self) -> float:
        """Seconds until one token is there (0: now)."""
        return max(0.0, (1 - self.tokens) * 60.0 / self.quota.per_minute)


def quotas_with(sockets_per_minute: int) -> dict[tuple[Work, PayerKind], Quota]:
    """QUOTAS with the settings' own budgets in them."""
    # A page opens one or two at a time (a reconnect, a few tabs): a burst of
    # a third of the minute's, at least 5.
    return {**QUOTAS, ("socket", "address"): Quota(burst=max(5, sockets_per_minute // 3),
                                                   per_minute=sockets_per_minute)}


class Admission:
    """Charges payers for costly work (see the module's doc)."""

    def __init__(self, quotas: dict[tuple[Work, PayerKind], Quota] | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 max_budgets: int = MAX_BUDGETS) -> None:
        self.quotas = dict(QUOTAS if quotas is None else quotas)
        self.clock = clock
        self.max_budgets = max_budgets
        self._budgets: OrderedDict[tuple[Work, PayerKind, str], Budget] = OrderedDict()

    def admit(self, work: Work, payers: Iterable[Payer]) -> None:
        """Charge each payer one ``work``; Throttled (and nobody charged) if
        any of them has no token left."""
        now = self.clock()
        charged: list[Budget] = []
        worst: tuple[float, PayerKind] | None = None
        for payer in payers:
            quota = self.quotas.get((work, payer.kind))
            if quota is None:
                continue
            budget = self._budget(work, payer, quota, now)
            if budget.tokens < 1:
                wait = budget.wait()
                if worst is None or wait > worst[0]:
                    worst = (wait, payer.kind)
            charged.append(budget)
        if worst is not None:
            COSTLY_WORK.labels(work, f"refused-{worst[1]}").inc()
            raise Throttled(work, worst[1], worst[0])
        for budget in charged:
            budget.tokens -= 1
        COSTLY_WORK.labels(work, "admitted").inc()

    def _budget(self, work: Work, payer: Payer, quota: Quota, now: float) -> Budget:
        key = (work, payer.kind, payer.key)
        budget = self._budgets.get(key)
        if budget is None:
            budget = self._budgets[key] = Budget(quota, now)
            while len(self._budgets) > self.max_budgets:
                self._budgets.popitem(last=False)
        else:
            self._budgets.move_to_end(key)
            budget.refill(now)
        return budget


def count(work: Work, outcome: Literal["cached", "busy", "failed"]) -> None:
    """Count a costly request that ended without new work (a read, or no room)."""
    COSTLY_WORK.labels(work, outcome).inc()


Key = TypeVar("Key", bound=Hashable)
Answer = TypeVar("Answer")


class OnceAtATime(Generic[Key, Answer]):
    """Answers being worked out in this process: whoever asks for the same
    key meanwhile waits for the same work (its answer or its failure)
    instead of starting it again.  The work is a task of its own: an asker
    that goes away (its socket closed) does not end it for the others, and
    what it works out is kept by the work itself."""

    def __init__(self) -> None:
        self._working: dict[Key, asyncio.Task[Answer]] = {}

    async def answer(self, key: Key, work: Callable[[], Awaitable[Answer]]) -> Answer:
        task = self._working.get(key)
        if task is None:
            task = self._working[key] = asyncio.create_task(_run(work))
            task.add_done_callback(lambda done: self._finished(key, done))
        return await asyncio.shield(task)

    def _finished(self, key: Key, task: asyncio.Task[Answer]) -> None:
        if self._working.get(key) is task:
            del self._working[key]
        if not task.cancelled():
            task.exception()  # (retrieved: each asker has it; none is logged twice)


async def _run(work: Callable[[], Awaitable[Answer]]) -> Answer:
    return await work()
