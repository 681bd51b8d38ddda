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
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
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
    logging.basicConfig(stream=stream, level=level.upper(), format="%(name)s %(message)s")


@contextmanager
def log_context(**values: Any) -> Iterator[None]:
    """Bind table, hand, seat, correlation_id ... to every line logged inside."""
    bound = {key: value for key, value in values.items() if value is not None}
    with structlog.contextvars.bound_contextvars(**bound):
        yield
