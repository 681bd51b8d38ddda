"""Logging with structlog: JSON lines in production, readable on a terminal.

Context (table, hand, seat, correlation id) is bound at the edges with
``log_context`` and appears on every line logged inside it.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

import structlog


def configure_logging(
    log_format: str = "auto", level: str = "info", stream: TextIO | None = None
) -> None:
    """Set up structlog (and the standard library's logging) once, at start-up."""
    stream = stream or sys.stderr
    if log_format == "auto":
        log_format = "console" if stream.isatty() else "json"
    renderer: Any = (
        structlog.processors.JSONRenderer()
        if log_format == "json"
        else structlog.dev.ConsoleRenderer(colors=stream.isatty())
    )
    shared: list[Any] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    structlog.configure(
        processors=[
            *shared,
            structlog.processors.StackInfoRenderer(),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelName(level.upper())
        ),
        logger_factory=structlog.PrintLoggerFactory(stream),
        cache_logger_on_first_use=False,
    )
    # The standard library's loggers (asyncio, asyncpg, uvicorn) through the
    # same renderer: one JSON object a line, tracebacks inside it, so a log
    # shipper never sees a line that is not JSON.
    handler = logging.StreamHandler(stream)
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[*shared, structlog.stdlib.add_logger_name],
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                    structlog.processors.format_exc_info, renderer],
    ))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())


@contextmanager
def log_context(**values: Any) -> Iterator[None]:
    """Bind table, hand, seat, correlation_id ... to every line logged inside."""
    bound = {key: value for key, value in values.items() if value is not None}
    with structlog.contextvars.bound_contextvars(**bound):
        yield
