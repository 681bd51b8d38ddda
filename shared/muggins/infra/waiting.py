"""Waiting for the first of several events, or a time: how a background
loop (the relay, the projectors) sleeps until it is woken, stopped or due
to poll."""

from __future__ import annotations

import asyncio


async def first_of(*events: asyncio.Event, seconds: float) -> None:
    """Return as soon as any of ``events`` is set, or after ``seconds``."""
    waiters = [asyncio.ensure_future(event.wait()) for event in events]
    try:
        await asyncio.wait(waiters, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waiters:
            waiter.cancel()
