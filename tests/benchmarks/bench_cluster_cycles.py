"""The local cluster comes back every time: ``cluster up`` then ``cluster
down``, N times in a row (10 by default), each up checked by the site
answering through HAProxy (``/readyz`` 200 and ``/lobby`` 200).

Printed: each round's time to up and its answers, and "N of N up".  What
it guards against: a replica that gave up at start because JetStream's
stream had no leader yet (3 in 6 before the services waited for it).

    python3 deploy/dev.py bench cluster_cycles
    MUGGINS_BENCH_CYCLES=3 python3 deploy/dev.py bench cluster_cycles

``--smoke``: one round.  The suite brings the cluster tests' own cluster
down and runs ``one_round`` on it (tests/cluster/test_smoke_benchmarks.py),
which leaves it up.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from tests.benchmarks.common import SMOKE, bench_setting
from tests.support.clients import loopback_http_sync

ROOT = Path(__file__).resolve().parents[2]
CYCLES = int(bench_setting("CYCLES", "10", "1"))


def cluster(folder: Path, *words: str, timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "deploy" / "cluster.py"), "--dir",
                           str(folder), *words], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


def answers(folder: Path) -> tuple[int, int]:
    port = json.loads((folder / "cluster.json").read_text())["front_port"]
    with loopback_http_sync(base_url=f"http://127.0.0.1:{port}", timeout=5) as http:
        return http.get("/readyz").status_code, http.get("/lobby").status_code


def one_round(folder: Path, round_number: int) -> bool:
    """``cluster up`` in ``folder`` (the cluster there made, or brought back),
    checked through HAProxy; prints the round's line.  Whether it came up."""
    started = time.monotonic()
    result = cluster(folder, "up", "--port", "0", timeout=400)
    took = time.monotonic() - started
    ready, lobby = (0, 0)
    if result.returncode == 0:
        try:
            ready, lobby = answers(folder)
        except (httpx.HTTPError, OSError, KeyError, ValueError) as error:
            print(f"  no answer: {error!r}")
    ok = result.returncode == 0 and ready == lobby == 200
    print(f"round {round_number}: up exit {result.returncode} in {took:.1f} s, "
          f"/readyz {ready}, /lobby {lobby}" + ("" if ok else "  FAILED"), flush=True)
    if not ok:
        print("  " + (result.stderr or result.stdout)[-800:].replace("\n", "\n  "))
    return ok


def main() -> int:
    up = 0
    with tempfile.TemporaryDirectory(prefix="muggins-cycles-") as scratch:
        folder = Path(scratch)
        try:
            for round_number in range(1, CYCLES + 1):
                up += one_round(folder, round_number)
                cluster(folder, "down", timeout=200)
        finally:
            cluster(folder, "down", timeout=200)
    print(f"{up} of {CYCLES} up")
    if SMOKE:
        print("smoke run: ok" if up == CYCLES else
              f"SMOKE RUN BROKEN: {CYCLES - up} of {CYCLES} rounds did not come up")
    return 0 if up == CYCLES else 1


if __name__ == "__main__":
    sys.exit(main())
