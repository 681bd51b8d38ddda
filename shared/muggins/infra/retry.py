"""Trying again what failed for a moment: one backoff policy for every loop outlasting an outage."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import structlog
from prometheus_client import Counter

log = structlog.get_logger(__name__)

RETRIES = Counter(
    "muggins_retries_total",
    "Failures that pass (a server away, a timeout), tried again after a pause, by loop",
    ["where"],
)
ERRORS = Counter(
    "muggins_loop_errors_total",
    "Failures that are not an outage (a bug), logged with their traceback and not "
    "retried as one, by loop",
    ["where"],
)

Result = TypeVar("Result")
#: Which failures pass: exception types, or a test of the exception.
Transient = tuple[type[BaseException], ...] | Callable[[BaseException], bool]

#: Added to a bug's notes once it is logged with its traceback, so that
#: whoever sees it next (muggins.infra.background) does not print it twice.
LOGGED_NOTE = "(logged with its traceback by muggins.infra.retry)"


class Stopped(Exception):
    """``stop`` was set while waiting to try again: the work was not done."""


@dataclass(frozen=True)
class Backoff:
    """Pauses between tries: the ceiling doubles from ``first`` up to ``cap``
    and each pause is drawn uniformly below it ("full jitter"), so that
    processes that failed together do not all come back at the same instant."""

    first: float = 0.25
    cap: float = 5.0

    def ceiling(self, failures: int) -> float:
        """The longest pause after ``failures`` failures in a row."""
        return min(self.cap, self.first * 2.0 ** max(0, failures - 1))


class Retry:
    """How one loop tries again.  ``where`` is a fixed name (its label in the
    logs and in ``muggins_retries_total``); ``transient`` says which
    failures pass.  Anything else is a bug: it is logged as an error with
    its traceback, counted, and raised at once, never retried as an outage.

    ``stop`` cuts a pause short (shutdown); ``give_up_after`` raises the
    failure once that many seconds have gone by since the first of a run of
    failures; ``on_failure`` hears of every transient failure (what a
    starting process waits for, for /readyz); ``message`` is the warning's
    text ("relay could not publish; retrying"), "WHERE failed; trying
    again" unless given."""

    def __init__(
        self,
        where: str,
        transient: Transient,
        *,
        backoff: Backoff | None = None,
        stop: asyncio.Event | None = None,
        give_up_after: float | None = None,
        on_failure: Callable[[BaseException], None] | None = None,
        message: str | None = None,
        jitter: Callable[[], float] = random.random,
    ) -> None:
        self.where = where
        self.message = message or f"{where} failed; trying again"
        self._transient = transient
        self.backoff = backoff or Backoff()
        self.stop = stop
        self.give_up_after = give_up_after
        self._on_failure = on_failure
        self._jitter = jitter
        #: Failures in a row since the last success.
        self.failures = 0
        self._first_failure_at = 0.0

    def is_transient(self, error: BaseException) -> bool:
        if isinstance(self._transient, tuple):
            return isinstance(error, self._transient)
        return self._transient(error)

    def succeeded(self) -> None:
        """The work went through: the next failure starts from the first pause."""
        self.failures = 0

    async def failed(self, error: BaseException) -> None:
        """``error`` ended an attempt.  Transient: logged as a warning and
        counted, then a pause before the next try (returns early if ``stop``
        is set).  A bug, or past ``give_up_after``: logged as an error and
        raised."""
        if not self.is_transient(error):
            self.bug(error)
            raise error
        now = time.monotonic()
        if self.failures == 0:
            self._first_failure_at = now
        self.failures += 1
        pause = self.backoff.ceiling(self.failures) * self._jitter()
        if (self.give_up_after is not None
                and now + pause - self._first_failure_at > self.give_up_after):
            log.error(f"{self.where}: giving up", where=self.where, attempt=self.failures,
                      seconds=round(now - self._first_failure_at, 1), error=_told(error))
            raise error
        RETRIES.labels(self.where).inc()
        log.warning(self.message, where=self.where,
                    attempt=self.failures, retry_in=round(pause, 2), error=_told(error))
        if self._on_failure is not None:
            self._on_failure(error)
        await self.pause(pause)

    def bug(self, error: BaseException) -> None:
        """Log ``error`` as the bug it is, with its traceback (and count it),
        unless an inner loop's Retry has already."""
        if LOGGED_NOTE in getattr(error, "__notes__", ()):
            return
        ERRORS.labels(self.where).inc()
        log.error(f"{self.where} failed with an error that is not an outage",
                  where=self.where, error=_told(error), exc_info=error)
        error.add_note(LOGGED_NOTE)

    async def pause(self, seconds: float) -> None:
        """Wait ``seconds``, or less if ``stop`` is set meanwhile."""
        if self.stop is None:
            await asyncio.sleep(seconds)
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                await self.stop.wait()

    async def call(self, work: Callable[[], Awaitable[Result]]) -> Result:
        """``await work()`` until it succeeds, pausing after each transient
        failure; a bug is raised at once (logged); Stopped if ``stop`` is set
        before it succeeded."""
        while True:
            if self.stop is not None and self.stop.is_set():
                raise Stopped(f"{self.where}: stopped before it succeeded")
            try:
                result = await work()
            except Exception as error:
                await self.failed(error)
            else:
                self.succeeded()
                return result


def _told(error: BaseException) -> str:
    """An exception for a log line: its message, or its type when it has none."""
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else repr(error)
