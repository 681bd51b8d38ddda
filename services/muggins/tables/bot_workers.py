"""Where bots think: the expert in worker processes, the others at once.

The expert searches for up to its budget (20 ms) of CPU per decision; run
on the service's event loop, that would stall every table of the process for
as long.  So it runs in a pool of worker processes (setting ``bot_workers``)
and the loop only waits for the answer, as for every level that searches
(``hard`` too: a few milliseconds, still not the loop's).  The others decide
in microseconds and stay on the loop.

Under load the expert thinks less: when more decisions wait than the
workers can take at once, each gets its share of the time the workers have
(never under MIN_BUDGET_MS), so that every table keeps moving at about the
bots' pace instead of queueing behind the others' full budgets.  A decision
asked ahead of time (the scheduler thinks during the bot's human-like pause)
has that pause to spare: it keeps its whole budget while the queue before
it fits in the pause.  The workers take decisions due now before those
asked ahead (WorkerTurns), so a head start never makes a move late.

Hints and analyses are not the bots' work: they think in the spare-time
worker (``SpareTimeWorker``), one process at the operating system's lowest
priority, fed from a queue where hints come before analyses.  Whatever a
flood of them asks, the bots' workers and the service's loop keep their CPU:
the spare-time worker gets what they leave (muggins.tables.admission).

A worker gets the game state and the hand's events as JSON (what it may
read of them is the expert's business: it keeps only its seat's view and
the public events) and answers with the command, as JSON.  A pool that
breaks (a worker killed) is made anew, and the move is tried once more on
the new one; failing that, the greedy bot moves so that the table goes on,
and the failure is logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import multiprocessing
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Literal

import msgspec
import structlog

from muggins.bots.ladder import BUDGETED, EXPERT_BUDGET_MS, SEARCHING, BotLevel
from muggins.expert.bot import PlayAssessment
from muggins.rules.commands import AnyCommand
from muggins.rules.events import Event
from muggins.rules.state import GameState
from muggins.rules.stored_state import encode_state
from muggins.tables.metrics import BOT_BUDGET, BOT_DECISIONS, BOT_DECISIONS_WAITING
from muggins.tables.worker_process import (
    analyse_in_worker,
    decide,
    decide_in_worker,
    encode,
    leave_with,
    lowest_priority,
    suggest_in_worker,
    warm,
)

log = structlog.get_logger(__name__)

#: The least an expert thinks, however busy the workers: below its default
#: budget, so that a busy site still shortens it (3.5 ms of search, some
#: 700 simulations on an idle core of this machine, where ``hard`` thinks 100).
MIN_BUDGET_MS = 5.0

_command_decoder = msgspec.json.Decoder(AnyCommand)


#: The longest path a Unix socket may have on Linux (``sun_path``'s 108
#: bytes, the last a NUL).
UNIX_SOCKET_PATH_MAX = 107
#: What the fork server adds to the temporary directory for its socket: a
#: folder ``/pymp-`` and a file ``/listener-``, each name with 8 random
#: characters after it (Python 3.11's multiprocessing).
FORK_SERVER_SOCKET_SUFFIX = 32


def fork_server_fits() -> bool:
    """Whether the fork server's socket path fits in the temporary directory
    (TMPDIR): in a longer one its start fails with "AF_UNIX path too long",
    and the table service with it (seen with a test's folder as TMPDIR)."""
    folder = os.fsencode(tempfile.gettempdir())
    return len(folder) + FORK_SERVER_SOCKET_SUFFIX <= UNIX_SOCKET_PATH_MAX


def worker_processes() -> multiprocessing.context.BaseContext:
    """How worker processes start: forked from a fork server, a fresh
    process of the service's program with this module's worker side
    (muggins.tables.worker_process) imported once, so that a worker is ready
    in milliseconds, however often a pool is made anew.  Never forked from
    the service itself: a worker must not inherit its loop, sockets and
    threads.  Spawned (each worker a fresh interpreter, its start slower)
    where there is no fork server, or no room for its socket's path."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    if not fork_server_fits():
        log.warning("the temporary directory's path is too long for the bot workers' fork "
                    "server's socket: they are spawned, slower to start (set a shorter TMPDIR)",
                    tmpdir=tempfile.gettempdir())
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    # The service's program too, imported once in the fork server: each
    # worker runs it again to find its main module, which would import the
    # whole CLI each time (0.6-0.7 s of CPU) for ``muggins serve`` (a script
    # whose one import is muggins.cli) and ``python -m muggins.cli serve``
    # alike, or a benchmark's own module for ``python -m tests.benchmarks...``.
    main = getattr(sys.modules["__main__"].__spec__, "name", None)
    context.set_forkserver_preload(
        ["muggins.cli", *([main] if main and not main.endswith("__main__") else []),
         "muggins.tables.worker_process"])
    return context


#: The order the workers take decisions in: those whose move is due now
#: first, then those asked ahead of their move (each kind as asked).
DUE_NOW, AHEAD = 0, 1


class WorkerTurns:
    """Who thinks next: at most one job a worker in the pool at once, the
    rest waiting here in rank order (DUE_NOW before AHEAD), since the pool
    itself takes jobs only in the order they came.  A turn ends when its
    job is really over (a worker cannot be stopped mid-thought), not when
    whoever asked for it stopped waiting."""

    def __init__(self, workers: int) -> None:
        self.free = workers
        self._waiting: list[tuple[int, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    async def take(self, rank: int) -> None:
        if self.free > 0 and not self._waiting:
            self.free -= 1
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiting, (rank, next(self._order), turn))
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():  # given, then cancelled: passed on
                self.end()
            raise

    def end(self) -> None:
        """A turn is over: the next waiting takes it (else a worker is free)."""
        while self._waiting:
            _, _, turn = heapq.heappop(self._waiting)
            if not turn.done():
                turn.set_result(None)
                return
        self.free += 1


class BotWorkers:
    """The pool the expert thinks in (``workers`` processes)."""

    def __init__(self, workers: int, budget_ms: float = EXPERT_BUDGET_MS) -> None:
        self.workers = max(1, workers)
        self.budget_ms = budget_ms
        self._pool: ProcessPoolExecutor | None = None
        self._turns = WorkerTurns(self.workers)
        #: Expert decisions asked and not answered yet.
        self.waiting = 0

    def budget(self, wanted: float, slack_ms: float = 0.0) -> float:
        """The time one more decision gets now: ``wanted`` while the workers
        keep up, a share of it when decisions queue (MIN_BUDGET_MS at least).
        ``slack_ms``: how long before its answer is needed it is asked; the
        workers' time until then is its to share too."""
        share = (wanted + slack_ms) * self.workers / max(self.workers, self.waiting)
        return max(min(wanted, MIN_BUDGET_MS), min(wanted, share))

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.workers, mp_context=worker_processes(),
                                             initializer=leave_with, initargs=(os.getpid(),))
        return self._pool

    async def start(self) -> None:
        """Start the workers now, so that the first expert move does not wait for them."""
        loop = asyncio.get_running_loop()
        pool = self._executor()
        await asyncio.gather(*(loop.run_in_executor(pool, warm) for _ in range(self.workers)))

    async def move(self, level: BotLevel, state: GameState, events: Sequence[Event], seed: str,
                   budget_ms: float | None = None, *, slack_ms: float = 0.0) -> AnyCommand:
        """The bot's move: at once for a light level, from a worker for one
        that searches (``slack_ms``: asked that long before it is needed)."""
        wanted = self.budget_ms if budget_ms is None else budget_ms
        if level not in SEARCHING:
            return decide(level, state, events, seed, wanted)
        if level not in BUDGETED:
            # A fixed-effort search (hard: a few ms) takes no share of the
            # workers' time: counted as a whole budget it would cut the
            # experts' share for work it never does.
            return await self._searched(level, state, events, seed, wanted, DUE_NOW)
        self.waiting += 1
        BOT_DECISIONS_WAITING.set(self.waiting)
        budget = self.budget(wanted, slack_ms)
        # Apart by when it was asked: a decision thought during the pause
        # has that slack too, and mostly gets the whole budget; the one due
        # now is the one a busy site shortens first.
        BOT_BUDGET.labels("ahead" if slack_ms > 0 else "due-now").set(budget)
        BOT_DECISIONS.labels("full" if budget >= wanted else "shortened").inc()
        try:
            return await self._searched(level, state, events, seed, budget,
                                        AHEAD if slack_ms > 0 else DUE_NOW)
        finally:
            self.waiting -= 1
            BOT_DECISIONS_WAITING.set(self.waiting)

    async def _searched(self, level: BotLevel, state: GameState, events: Sequence[Event],
                        seed: str, budget_ms: float, rank: int) -> AnyCommand:
        """A searching level's move from a worker; greedy's if that fails."""
        try:
            answer = await self._in_worker(rank, decide_in_worker, level, encode_state(state),
                                           encode(list(events)), seed, budget_ms)
            return _command_decoder.decode(answer)
        except Exception as error:
            # Whatever went wrong, the table must not wait on it for ever.
            log.error("a searching bot could not move; the greedy bot moves instead",
                      level=level, error=repr(error), exc_info=error)
            return decide("greedy", state, events, seed)

    async def _in_worker(self, rank: int, function: Callable[..., bytes],
                         *arguments: object) -> bytes:
        loop = asyncio.get_running_loop()

        def job_over(_: object) -> None:  # in the pool's thread: the turn ends on the loop
            with contextlib.suppress(RuntimeError):  # the loop closed first: nobody waits
                loop.call_soon_threadsafe(self._turns.end)

        for attempt in (1, 2):
            await self._turns.take(rank)
            pool = None
            try:
                pool = self._executor()
                job = pool.submit(function, *arguments)
            except BaseException as error:
                self._turns.end()
                if not isinstance(error, BrokenProcessPool):
                    raise
                log.error("the bot workers broke; starting them again", attempt=attempt,
                          error=repr(error))
                self._discard(pool)
                continue
            # The turn ends with the job (done, failed, or cancelled before it
            # began), not when its asker stops waiting for it.
            job.add_done_callback(job_over)
            try:
                return await asyncio.wrap_future(job)
            except BrokenProcessPool as error:
                log.error("the bot workers broke; starting them again", attempt=attempt,
                          error=repr(error))
                self._discard(pool)
        raise RuntimeError("the bot workers keep breaking")

    def _discard(self, pool: ProcessPoolExecutor | None = None) -> None:
        """Drop the pool (only ``pool``, if given: not one another caller made since)."""
        if pool is not None and pool is not self._pool:
            return
        broken, self._pool = self._pool, None
        if broken is not None:
            broken.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Stop the workers (what they are thinking about is dropped)."""
        self._discard()


#: Spare-time work, in the order it is taken: hints before analyses.
SpareWork = Literal["hint", "analysis"]
PRIORITY: dict[SpareWork, int] = {"hint": 0, "analysis": 1}
#: Requests of each kind that may wait at once, in all and from one payer
#: (an address); past either, "busy" (the asker's budget was charged
#: already).  A flood fills only its own few places, never the queue.
QUEUE_LIMIT: dict[SpareWork, int] = {"hint": 64, "analysis": 8}
PAYER_LIMIT: dict[SpareWork, int] = {"hint": 4, "analysis": 1}
#: The share of one core the spare-time worker may use, however much waits:
#: after each job it rests for as long as makes the job this share of the
#: time.  The lowest priority alone is not enough where the machine's cores
#: are hyperthreads of each other: a busy sibling slows the bots and the
#: service however nice it is.
SPARE_SHARE = 0.15
#: The longest rest after one job (seconds).
MAX_REST = 10.0


class SpareTimeBusy(Exception):
    """The spare-time worker's queue for that kind of work is full."""


class SpareTimeWorker:
    """One worker process at the lowest priority, for hints and analyses
    (see the module's doc): one job at a time, hints first."""

    def __init__(self, budget_ms: float = EXPERT_BUDGET_MS) -> None:
        self.budget_ms = budget_ms
        self._pool: ProcessPoolExecutor | None = None
        self._queue: asyncio.PriorityQueue[
            tuple[int, int, SpareWork, Callable[..., bytes], tuple[object, ...],
                  asyncio.Future[bytes]]] = asyncio.PriorityQueue()
        self._waiting: dict[SpareWork, int] = {"hint": 0, "analysis": 0}
        #: Places taken in the queue, by kind of work and payer.
        self._by_payer: Counter[tuple[SpareWork, str]] = Counter()
        self._order = itertools.count()
        self._runner: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Start the worker now: its start (a process importing the expert)
        is a burst of CPU better spent before the service takes players than
        at the first hint, amid their moves."""
        await asyncio.get_running_loop().run_in_executor(self._executor(), warm)

    async def suggest(self, state: GameState, events: Sequence[Event], seed: str,
                      budget_ms: float | None = None, *, payer: str = "") -> PlayAssessment:
        """A hint: the expert's play for the seat on turn, from what that seat knows."""
        budget = self.budget_ms if budget_ms is None else budget_ms
        answer = await self._run("hint", payer, suggest_in_worker, encode_state(state),
                                 encode(list(events)), seed, budget)
        return msgspec.json.decode(answer, type=PlayAssessment)

    async def analyse(self, before: GameState, events: Sequence[Event], seed: str, *,
                      payer: str = "") -> bytes:
        """A finished hand's analysis, as JSON."""
        return await self._run("analysis", payer, analyse_in_worker, encode_state(before),
                               encode(list(events)), seed)

    async def _run(self, work: SpareWork, payer: str, function: Callable[..., bytes],
                   *arguments: object) -> bytes:
        place = (work, payer)
        if self._waiting[work] >= QUEUE_LIMIT[work] or (
                self._by_payer[place] >= PAYER_LIMIT[work]):
            raise SpareTimeBusy(f"too many {work}s wait already")
        if self._runner is None or self._runner.done():
            self._runner = asyncio.create_task(self._serve(), name="spare-time-worker")
        answer: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._waiting[work] += 1
        self._by_payer[place] += 1
        try:
            await self._queue.put((PRIORITY[work], next(self._order), work, function,
                                   arguments, answer))
            return await answer
        finally:
            self._by_payer[place] -= 1
            if self._by_payer[place] <= 0:
                del self._by_payer[place]

    async def _serve(self) -> None:
        """Take the queue's first job, think it out, answer; for ever."""
        loop = asyncio.get_running_loop()
        while True:
            _, _, work, function, arguments, answer = await self._queue.get()
            self._waiting[work] -= 1
            if answer.done():  # the asker gave up while it waited
                continue
            started = time.monotonic()
            try:
                result = await loop.run_in_executor(self._executor(), function, *arguments)
            except BrokenProcessPool as error:
                log.error("the spare-time worker broke; starting it again", error=repr(error))
                self._discard()
                if not answer.done():
                    answer.set_exception(SpareTimeBusy("the spare-time worker restarted"))
            except Exception as error:  # a failure is the asker's to report
                if not answer.done():
                    answer.set_exception(error)
            else:
                if not answer.done():
                    answer.set_result(result)
            took = time.monotonic() - started
            await asyncio.sleep(min(MAX_REST, took * (1 - SPARE_SHARE) / SPARE_SHARE))

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(1, mp_context=worker_processes(),
                                             initializer=lowest_priority,
                                             initargs=(os.getpid(),))
        return self._pool

    def _discard(self) -> None:
        broken, self._pool = self._pool, None
        if broken is not None:
            broken.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        if self._runner is not None:
            self._runner.cancel()
        self._discard()
