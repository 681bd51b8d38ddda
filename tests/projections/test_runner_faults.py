"""A bug in the projector's SQL, on a real PostgreSQL: logged once as an
error with its traceback, the runner ends (its process reports it), and it
does not spin retrying it as an outage."""

from __future__ import annotations

import asyncio
import time

import asyncpg
import pytest
import structlog

from muggins.eventstore.store import EventStore
from muggins.infra.retry import ERRORS, RETRIES
from muggins.projections.projection import QUERIES
from muggins.projections.read_models import TableViews
from muggins.projections.runner import ProjectorRunner
from muggins.rules.presets import preset
from tests.projections.streams import game_batches, store_interleaved


async def test_a_sql_bug_is_one_error_not_an_endless_retry(
    pool: asyncpg.Pool, store: EventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    await store_interleaved(store, [("faulty-g1", game_batches(preset("playelephant", 2),
                                                               "faulty"))])
    # The page's transaction meets a column that is not there: a bug, not an outage.
    monkeypatch.setitem(QUERIES, "lock_checkpoint",
                        "SELECT no_such_column FROM checkpoints WHERE reader = $1 FOR UPDATE")
    runner = ProjectorRunner(pool, store, TableViews())
    where = f"projector-{runner.name}"
    errors_before = ERRORS.labels(where)._value.get()
    retries_before = RETRIES.labels(where)._value.get()
    started = time.monotonic()
    with structlog.testing.capture_logs() as logs, \
            pytest.raises(asyncpg.UndefinedColumnError):
        async with asyncio.timeout(30):
            await runner.follow(asyncio.Event(), poll_interval=0.05)
    assert time.monotonic() - started < 10
    errors = [entry for entry in logs if entry["log_level"] == "error"]
    assert len(errors) == 1, errors
    assert isinstance(errors[0]["exc_info"], asyncpg.UndefinedColumnError)
    assert errors[0]["where"] == where
    assert not [entry for entry in logs if entry["log_level"] == "warning"], logs
    assert ERRORS.labels(where)._value.get() - errors_before == 1
    assert RETRIES.labels(where)._value.get() == retries_before
    assert await runner.checkpoint() == 0  # nothing was projected past the bug
