"""The README's first command, ``python3 deploy/dev.py run``, stops as a
service should: a SIGTERM to the process it printed stops the service and
its embedded servers, and leaves nothing running (it once left ``muggins
serve`` running on its own, with PostgreSQL and NATS under it)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from muggins.infra.embedded import EmbeddedNats, EmbeddedPostgres, free_port, pid_alive
from tests.support.clients import loopback_http_sync

ROOT = Path(__file__).resolve().parents[2]
STAMP = Path(sys.prefix) / ".muggins-installed"


def processes_of(data: Path) -> list[int]:
    """The processes started with ``data`` as their data folder in their
    environment (a service that outlived its dev.py would be one)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and str(data).encode() in (entry / "environ").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


@pytest.mark.servers
def test_a_sigterm_to_dev_run_stops_the_service_and_its_servers(tmp_path: Path) -> None:
    # dev.py run is tried on the environment dev.py made (the README's test
    # command runs the suite there), so that it installs nothing.
    assert sys.prefix != sys.base_prefix and STAMP.exists(), (
        "run the suite with `python3 deploy/dev.py test`: this test needs its environment")
    port = free_port()
    data = tmp_path / "data"
    # The environment this test runs in, which dev.py made and finds up to
    # date (so it installs nothing); the embedded servers, whatever the
    # caller's environment names.
    environment = {name: value for name, value in os.environ.items()
                   if name not in ("MUGGINS_DATABASE_URL", "MUGGINS_NATS_URL")}
    environment.update(MUGGINS_DATA_DIR=str(data), MUGGINS_VENV=sys.prefix)
    postgres, nats = EmbeddedPostgres(data), EmbeddedNats(data)
    with open(tmp_path / "run.log", "w") as log:
        run = subprocess.Popen([sys.executable, "deploy/dev.py", "run", "serve", "--port",
                                str(port)], cwd=ROOT, env=environment, stdout=log,
                               stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 90
        with loopback_http_sync(f"http://127.0.0.1:{port}") as http:
            while True:
                assert run.poll() is None, (tmp_path / "run.log").read_text()[-2000:]
                assert time.monotonic() < deadline, "not ready in 90 s"
                try:
                    if http.get("/readyz").status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                time.sleep(0.2)
        servers = [postgres.running_pid(), nats.running_pid()]
        assert None not in servers, servers
        run.send_signal(signal.SIGTERM)
        code = run.wait(60)
        assert code == 0, (code, (tmp_path / "run.log").read_text()[-2000:])  # a normal exit
        deadline = time.monotonic() + 30
        while any(pid_alive(pid) for pid in servers):
            assert time.monotonic() < deadline, f"left running: {servers}"
            time.sleep(0.1)
    finally:
        if run.poll() is None:  # the test failed: nothing of it may outlive it
            run.kill()
            run.wait()
        for pid in processes_of(data):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        postgres.stop("immediate")
        nats.stop()
