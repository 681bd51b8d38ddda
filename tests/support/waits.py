"""Waiting for a condition, never for a fixed time: ``eventually``."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, overload

T = TypeVar("T")


@overload
async def eventually(condition: Callable[[], Awaitable[T]], *, within: float = ...,
                     every: float = ..., what: str = ...) -> T: ...
@overload
async def eventually(condition: Callable[[], T], *, within: float = ..., every: float = ...,
                     what: str = ...) -> T: ...


async def eventually(condition: Callable[[], Any], *, within: float = 20.0,
                     every: float = 0.05, what: str = "the condition") -> Any:
    """``condition()``'s first truthy value (it may be a coroutine function),
    asked every ``every`` seconds; AssertionError naming ``what`` and the
    last value seen if none comes within ``within`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while True:
        value = condition()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return value
        if loop.time() >= deadline:
            raise AssertionError(f"{what} did not hold within {within} s (last: {value!r})")
        await asyncio.sleep(every)
