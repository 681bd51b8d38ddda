"""Benchmarks cannot rot unnoticed: each one measured on demand also runs
here at a smoke size (tiny counts, the same code path)."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.servers  # it starts embedded PostgreSQL and NATS itself
def test_the_event_store_benchmark_runs_at_its_smoke_size() -> None:
    # Its yardstick (the eventsourcing library) is in the bench extra: the
    # comparison runs only where it is installed.
    result = subprocess.run([sys.executable, "-m", "tests.benchmarks.bench_eventstore",
                             "--smoke"], capture_output=True, text=True, timeout=300,
                            check=False)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "the whole store verified from a checkpoint" in result.stdout
