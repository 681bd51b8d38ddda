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

from muggins.infra.embedded import free_port, pid_alive

ROOT = Path(__file__).resolve().parents[2]


def embedded_servers(data: Path) -> list[int]:
    """The process ids of the embedded PostgreSQL (its postmaster) and NATS
    on ``data``, from their pid files."""
    return [int(path.read_text().split()[0]) for path in (
        data / "postgres" / "postmaster.pid", data / "nats" / "nats-server.pid")]


def processes_of(data: Path) -> list[int]:
    """Every process started with ``data`` as its data folder (in its
    environment): what must not be left running, whatever happens."""
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
    port = free_port()
    environment = {**os.environ, "MUGGINS_DATA_DIR": str(tmp_path / "data"),
                   "MUGGINS_VENV": str(Path(sys.executable).parent.parent)}
    with open(tmp_path / "run.log", "w") as log:
        run = subprocess.Popen([sys.executable, "deploy/dev.py", "run", "serve", "--port",
                                str(port)], cwd=ROOT, env=environment, stdout=log,
                               stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 90
        while True:
            assert run.poll() is None, (tmp_path / "run.log").read_text()[-2000:]
            assert time.monotonic() < deadline, "not ready in 90 s"
            try:
                if httpx.get(f"http://127.0.0.1:{port}/readyz").status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        servers = embedded_servers(tmp_path / "data")
        assert all(pid_alive(pid) for pid in servers)
        run.send_signal(signal.SIGTERM)
        code = run.wait(60)
        assert code in (0, -signal.SIGTERM), (code, (tmp_path / "run.log").read_text()[-2000:])
        deadline = time.monotonic() + 30
        while any(pid_alive(pid) for pid in servers):
            assert time.monotonic() < deadline, f"left running: {servers}"
            time.sleep(0.1)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
        for pid in processes_of(tmp_path / "data"):  # a service left behind, and its servers
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
