"""Waiting in background loops that must stop when told."""

from __future__ import annotations

import asyncio
import contextlib


async def pause_unless_stopped(stop: asyncio.Event, seconds: float) -> None:
    """Wait ``seconds``, or less if ``stop`` is set meanwhile."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            await stop.wait()
