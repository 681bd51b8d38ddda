"""The retry helper on its own, no server: pauses, jitter, stop, bugs, counters."""

from __future__ import annotations

import asyncio
import time

import pytest
import structlog

from muggins.infra.background import BackgroundTasks
from muggins.infra.retry import ERRORS, LOGGED_NOTE, RETRIES, Backoff, Retry, Stopped


def counted(counter: object, where: str) -> float:
    return float(counter.labels(where)._value.get())  # type: ignore[attr-defined]


def test_the_ceiling_doubles_and_stops_at_the_cap() -> None:
    backoff = Backoff(first=0.25, cap=5.0)
    assert [backoff.ceiling(n) for n in range(1, 9)] == [0.25, 0.5, 1, 2, 4, 5, 5, 5]


async def test_each_pause_is_drawn_below_its_ceiling() -> None:
    """Full jitter: the pause is the ceiling times a draw in [0, 1)."""
    draws = iter([0.0, 0.5, 0.999, 0.5])
    pauses: list[float] = []
    retry = Retry("test-jitter", (OSError,), backoff=Backoff(first=1.0, cap=3.0),
                  jitter=lambda: next(draws))

    async def record(seconds: float) -> None:
        pauses.append(seconds)

    retry.pause = record  # type: ignore[method-assign]
    with structlog.testing.capture_logs():
        for _ in range(4):
            await retry.failed(OSError("down"))
    assert pauses == pytest.approx([0.0, 1.0, 2.997, 1.5])
    assert retry.failures == 4
    retry.succeeded()
    assert retry.failures == 0


async def test_a_transient_failure_is_a_warning_counted_and_tried_again() -> None:
    attempts = 0

    async def flaky() -> str:
        nonlocal attempts
        attempts += 1
        if attempts < 3:
            raise ConnectionRefusedError("not yet")
        return "done"

    before = counted(RETRIES, "test-flaky")
    heard: list[BaseException] = []
    retry = Retry("test-flaky", (OSError,), backoff=Backoff(first=0.001, cap=0.002),
                  on_failure=heard.append)
    with structlog.testing.capture_logs() as logs:
        assert await retry.call(flaky) == "done"
    assert attempts == 3 and len(heard) == 2 and retry.failures == 0
    assert counted(RETRIES, "test-flaky") - before == 2
    warnings = [entry for entry in logs if entry["log_level"] == "warning"]
    assert [entry["attempt"] for entry in warnings] == [1, 2]
    assert all(entry["where"] == "test-flaky" and "retry_in" in entry
               and "not yet" in entry["error"] for entry in warnings)


async def test_a_bug_is_raised_at_once_and_logged_with_its_traceback() -> None:
    attempts = 0

    async def broken() -> None:
        nonlocal attempts
        attempts += 1
        raise KeyError("no such column")

    before = counted(ERRORS, "test-bug")
    retries_before = counted(RETRIES, "test-bug")
    retry = Retry("test-bug", (OSError,))
    with structlog.testing.capture_logs() as logs, pytest.raises(KeyError) as raised:
        await retry.call(broken)
    assert attempts == 1
    assert counted(ERRORS, "test-bug") - before == 1
    assert counted(RETRIES, "test-bug") == retries_before
    [error] = [entry for entry in logs if entry["log_level"] == "error"]
    assert error["exc_info"] is raised.value and error["where"] == "test-bug"
    assert LOGGED_NOTE in raised.value.__notes__


async def test_stop_cuts_a_pause_short() -> None:
    stop = asyncio.Event()
    retry = Retry("test-stop", (OSError,), backoff=Backoff(first=60, cap=60), stop=stop,
                  jitter=lambda: 1.0)

    async def down() -> None:
        raise OSError("down")

    asyncio.get_running_loop().call_later(0.05, stop.set)
    started = time.monotonic()
    with structlog.testing.capture_logs(), pytest.raises(Stopped):
        await retry.call(down)
    assert time.monotonic() - started < 5


async def test_past_its_deadline_the_failure_is_raised() -> None:
    retry = Retry("test-deadline", (OSError,), backoff=Backoff(first=0.01, cap=0.01),
                  give_up_after=0.05, jitter=lambda: 1.0)

    async def down() -> None:
        raise OSError("still down")

    with structlog.testing.capture_logs() as logs, pytest.raises(OSError, match="still down"):
        await retry.call(down)
    assert [entry["event"] for entry in logs if entry["log_level"] == "error"] == [
        "test-deadline: giving up"]


async def test_a_loop_ended_by_a_bug_is_kept_and_told() -> None:
    tasks = BackgroundTasks()
    told: list[str] = []
    tasks.on_failure(lambda name, error: told.append(name))

    async def loop() -> None:
        await Retry("test-loop", (OSError,)).call(_broken)

    with structlog.testing.capture_logs() as logs:
        task = tasks.start("test-loop", loop())
        await asyncio.wait([task])
    assert told == ["test-loop"] and tasks.failure is not None
    assert tasks.failure.startswith("test-loop: ValueError")
    errors = [entry for entry in logs if entry["log_level"] == "error"]
    # The traceback once (by the retry), then the loop's end without it.
    assert [entry.get("exc_info") is not None for entry in errors] == [True, False]


async def _broken() -> None:
    raise ValueError("a bug")
