"""A process's background loops by name: one that ends by an error is logged and kept."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

import structlog

from muggins.infra.retry import LOGGED_NOTE

log = structlog.get_logger(__name__)


class BackgroundTasks:
    """The loops a process runs beside its requests (the relay, the
    scheduler, the projectors, the bus's watchdog).  Each loop retries what
    passes by itself (muggins.infra.retry); one that still ends by an exception met
    a bug: it is logged with its traceback, kept in ``failures`` (/readyz and
    /healthz name it) and told to ``on_failure`` listeners (``muggins
    serve`` then stops with an error rather than run on without it)."""

    def __init__(self) -> None:
        #: Loop name -> the exception that ended it.
        self.failures: dict[str, BaseException] = {}
        self._listeners: list[Callable[[str, BaseException], None]] = []
        self._tasks: set[asyncio.Task[Any]] = set()

    def start(self, name: str, work: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Run ``work`` as the loop ``name``; its owner still stops it (and awaits it)."""
        task = asyncio.get_running_loop().create_task(work, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._ended)
        return task

    def on_failure(self, listener: Callable[[str, BaseException], None]) -> None:
        """Call ``listener(name, error)`` when a loop ends by an error (at once
        for those that already have)."""
        self._listeners.append(listener)
        for name, error in list(self.failures.items()):
            listener(name, error)

    @property
    def failure(self) -> str | None:
        """The first loop that ended by an error, and why (None: none did)."""
        for name, error in self.failures.items():
            return f"{name}: {type(error).__name__}: {error}"
        return None

    def _ended(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        error = task.exception()
        if error is None:
            return
        name = task.get_name()
        self.failures[name] = error
        traced = LOGGED_NOTE in getattr(error, "__notes__", ())
        log.error("a background loop ended by an error; it is not started again",
                  loop=name, error=repr(error), exc_info=None if traced else error)
        for listener in list(self._listeners):
            listener(name, error)
