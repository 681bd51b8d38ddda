"""Benchmarks cannot rot unnoticed: each one measured on demand also runs
here at a smoke size (tiny counts, the same code path; the speed bars are
not judged, but it must run to the end with nothing broken or lost).

Not here: bench_soak, bench_cluster and bench_cluster_cycles, which each
start a whole cluster behind HAProxy: the suite runs them at their smoke
sizes on the cluster tests' own cluster instead
(tests/cluster/test_smoke_benchmarks.py).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

#: (benchmark, a line its smoke run must print).
SMOKES = [
    # Its yardstick (the eventsourcing library) is in the bench extra: the
    # comparison runs only where it is installed.
    pytest.param("bench_eventstore", "the whole store verified from a checkpoint",
                 marks=pytest.mark.servers),
    pytest.param("bench_replay", "smoke run: ok", marks=pytest.mark.servers),
    pytest.param("bench_projectors", "smoke run: ok", marks=pytest.mark.servers),
    pytest.param("bench_append_lock", "smoke run: ok", marks=pytest.mark.servers),
    # OpenSpiel, its yardstick, is left out at smoke size where not installed.
    pytest.param("bench_engine", "smoke run: ok"),
    pytest.param("bench_service", "smoke run: ok", marks=pytest.mark.servers),
    pytest.param("bench_floods", "smoke run: ok", marks=pytest.mark.servers),
    pytest.param("bench_spectators", "smoke run: ok", marks=pytest.mark.servers),
    pytest.param("bench_costly_floods", "smoke run: ok", marks=pytest.mark.servers),
    pytest.param("bench_restarts", "smoke run: ok", marks=pytest.mark.servers),
    pytest.param("bench_expert", "smoke run: ok"),
    # Under node, as tests/client's own tests (the fast tier has it too).
    pytest.param("bench_layout", "smoke run: ok"),
]
#: Seconds a smoke run may take, on a machine busy with the rest of the suite.
TIMEOUT = 120
#: Longer: five runs on one service process, each with a flooder process
#: of its own: 24 s here when idle.
TIMEOUTS = {"bench_costly_floods": 180}


@pytest.mark.slow
@pytest.mark.parametrize(("benchmark", "expected"), SMOKES)
def test_the_benchmark_runs_at_its_smoke_size(benchmark: str, expected: str) -> None:
    # Sizes left in the environment do not apply at smoke size, but the
    # other knobs (bots, profiling) would: none of them here.
    env = {name: value for name, value in os.environ.items()
           if not name.startswith("MUGGINS_BENCH_")}
    result = subprocess.run([sys.executable, "-m", f"tests.benchmarks.{benchmark}", "--smoke"],
                            capture_output=True, text=True, check=False, env=env,
                            timeout=TIMEOUTS.get(benchmark, TIMEOUT))
    output = result.stdout[-3000:] + result.stderr[-3000:]
    assert result.returncode == 0, output
    assert expected in result.stdout, output
