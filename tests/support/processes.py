"""The service as a process of its own, and PostgreSQL's processes to pause:
what the fault tests and bench_restarts start, kill and freeze.

Everything here keeps to the service's documented surface (docs/service.md):
``muggins serve`` and its options, HTTP, its log.  Starting a process is
the local cluster's own way (muggins.cluster.processes).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import signal
import subprocess
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

import httpx

from muggins.cluster import processes as cluster_processes
from muggins.cluster.local import kept_port
from tests.support.clients import loopback_http

#: The ports the fault tests' services take (muggins.cluster.local.kept_port):
#: below the kernel's range for outgoing connections (one of which could take
#: a service's port while it is down between two starts) and below the local
#: cluster's (KEPT_PORTS), so that neither takes the other's.
FAULT_SERVICE_PORTS = (10_000, 20_000)
#: What asyncio and uvicorn print when an exception escaped every handler.
UNHANDLED_MARKERS = (
    "Task exception was never retrieved",
    "Future exception was never retrieved",
    "Exception in callback",
    "Exception in ASGI application",
)


# ---------------------------------------------------------------- the service process


def muggins_command() -> list[str]:
    """The ``muggins`` command: $MUGGINS_FAULTS_COMMAND if set (another build
    to judge), else the one the local cluster starts (beside this Python)."""
    chosen = os.environ.get("MUGGINS_FAULTS_COMMAND")
    return [chosen] if chosen else cluster_processes.muggins_command()


@functools.cache
def serve_options() -> frozenset[str]:
    """The long options ``muggins serve --help`` lists (read once)."""
    result = subprocess.run([*muggins_command(), "serve", "--help"], capture_output=True,
                            text=True, check=True, timeout=60)
    return frozenset(word.rstrip(",") for word in result.stdout.split()
                     if word.startswith("--"))


def serve_arguments(*, bot_delay: float, hand_pause: float | None = None,
                    grace_period: float | None = None) -> list[str]:
    """``serve`` options; the pause and grace options only where this build has them."""
    arguments = ["--bot-delay", str(bot_delay)]
    known = serve_options()
    if hand_pause is not None and "--hand-pause" in known:
        arguments += ["--hand-pause", str(hand_pause)]
    if grace_period is not None and "--grace-period" in known:
        arguments += ["--grace-period", str(grace_period)]
    # The load comes from one address here (loopback): no per-address quota.
    for quota in ("--tables-per-minute", "--sockets-per-address", "--sockets-per-minute"):
        if quota in known:
            arguments += [quota, "1000000"]
    return arguments


async def wait_ready(url: str, timeout: float,
                     process: subprocess.Popen[bytes] | None = None) -> float:
    """Seconds until ``GET /readyz`` answers 200; AssertionError (with the last
    answer) if it does not within ``timeout``."""
    started = time.monotonic()
    last = "no answer"
    async with loopback_http(base_url=url, timeout=2) as http:
        while time.monotonic() - started < timeout:
            if process is not None and process.poll() is not None:
                raise AssertionError(f"the service at {url} exited with {process.returncode}")
            try:
                response = await http.get("/readyz")
                if response.status_code == 200:
                    return time.monotonic() - started
                last = f"{response.status_code} {response.text}"
            except httpx.HTTPError as error:
                last = repr(error)
            await asyncio.sleep(0.1)
    raise AssertionError(f"{url}/readyz did not answer 200 within {timeout:.0f} s: {last}")


class ServiceProcess:
    """``muggins serve`` in a process of its own, its output in a log file."""

    def __init__(self, folder: Path, name: str, database_url: str, nats_url: str,
                 arguments: Sequence[str], port: int | None = None,
                 log_level: str = "info", migration_url: str | None = None,
                 temporary_files: Path | None = None) -> None:
        self.folder = folder
        #: Its TMPDIR if given (else this process's).  A short path: the bot
        #: workers' fork server listens on a socket file in it, and a Unix
        #: socket's path may not be longer than 107 bytes.
        self.temporary_files = temporary_files
        #: The owner role's URL the migrations run with (the service's own
        #: role may not change the schema).
        self.migration_url = migration_url
        self.log_level = log_level
        self.name = name
        self.database_url = database_url
        self.nats_url = nats_url
        self.arguments = list(arguments)
        # (FAULT_SERVICE_PORTS: why not the system's free_port)
        self.port = port or kept_port(set(), FAULT_SERVICE_PORTS)
        self.process: subprocess.Popen[bytes] | None = None
        #: Every log file this service wrote (one per start).
        self.logs: list[Path] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Start (or start again, on the same port)."""
        assert self.process is None or self.process.poll() is not None, "already running"
        settings = {"MUGGINS_DATABASE_URL": self.database_url,
                    "MUGGINS_NATS_URL": self.nats_url, "MUGGINS_LOG_FORMAT": "json",
                    "MUGGINS_LOG_LEVEL": self.log_level,
                    "MUGGINS_DATA_DIR": str(self.folder / "data")}
        if self.temporary_files is not None:
            settings["TMPDIR"] = str(self.temporary_files)
        if self.migration_url is not None:
            settings["MUGGINS_MIGRATION_DATABASE_URL"] = self.migration_url
        log_path = self.folder / f"{self.name}-{len(self.logs) + 1}.log"
        self.logs.append(log_path)
        self.process = cluster_processes.spawn(
            [*muggins_command(), "serve", "--host", "127.0.0.1", "--port", str(self.port),
             *self.arguments],
            cluster_processes.muggins_environment(settings), log_path)

    async def ready(self, timeout: float = 60) -> float:
        return await wait_ready(self.url, timeout, self.process)

    async def start_ready(self, timeout: float = 60) -> float:
        self.start()
        return await self.ready(timeout)

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL, as a crash or the OOM killer would: no shutdown code runs."""
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(30)

    def stop(self, timeout: float = 15) -> None:
        """SIGTERM (a clean shutdown), then SIGKILL if it takes longer than ``timeout``."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()

    def log_text(self) -> str:
        return "".join(path.read_text(errors="replace") for path in self.logs if path.exists())

    def log_tail(self, lines: int = 30, width: int = 300) -> str:
        return "\n".join(line[:width] for line in self.log_text().splitlines()[-lines:])


class Launcher:
    """Service processes for one test, every one stopped at the end."""

    def __init__(self, folder: Path, database_url: str, nats_url: str,
                 migration_url: str | None = None) -> None:
        self.folder = folder
        self.database_url = database_url
        self.nats_url = nats_url
        self.migration_url = migration_url
        self.services: list[ServiceProcess] = []

    def service(self, name: str, *, bot_delay: float, hand_pause: float | None = None,
                grace_period: float | None = None, extra: Sequence[str] = (),
                temporary_files: Path | None = None) -> ServiceProcess:
        """A service process (not started); ``extra``: more ``serve`` options."""
        arguments = [*serve_arguments(bot_delay=bot_delay, hand_pause=hand_pause,
                                      grace_period=grace_period), *extra]
        service = ServiceProcess(self.folder, name, self.database_url, self.nats_url, arguments,
                                 migration_url=self.migration_url,
                                 temporary_files=temporary_files)
        self.services.append(service)
        return service

    def stop_all(self) -> None:
        for service in self.services:
            with contextlib.suppress(Exception):
                service.stop()
        for service in self.services:
            with contextlib.suppress(Exception):
                service.kill()

    def report(self) -> str:
        """Where each log is and how it ends (printed; pytest shows it on failure)."""
        parts = []
        for service in self.services:
            parts.append(f"--- {service.name}: {', '.join(str(p) for p in service.logs)}")
            parts.append(service.log_tail())
        return "\n".join(parts)


def unhandled_errors(log_text: str) -> list[str]:
    """Exceptions that escaped the service's own handling, from its log.

    The service logs JSON lines (structlog); a traceback inside one of them
    was logged on purpose.  What asyncio, uvicorn or the interpreter print
    on their own (plain-text lines: an exception nobody caught, a task
    whose exception nobody retrieved) is what this returns, a line each.
    """
    found = []
    told = False  # a marker line is followed by its own traceback: one finding
    for line in log_text.splitlines():
        stripped = line.strip()
        if any(marker in line for marker in UNHANDLED_MARKERS):
            found.append(stripped[:300])
            told = True
        elif stripped.startswith("Traceback") and not told:
            found.append(stripped[:300])
        elif stripped.startswith("{") or stripped.startswith("Traceback"):
            told = False
    return found


# ---------------------------------------------------------------- PostgreSQL's processes


def postgres_pids(pgdata: Path) -> list[int]:
    """The postmaster (from ``postmaster.pid``) and every process it started."""
    postmaster = int((pgdata / "postmaster.pid").read_text().split()[0])
    children = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # gone meanwhile
        # pid (comm) state ppid ...: comm may hold spaces and parentheses.
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == postmaster:
            children.append(int(entry.name))
    return [postmaster, *children]


def signal_all(pids: Iterable[int], signum: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signum)


def freeze_postgres(pgdata: Path, stopped: list[int]) -> None:
    """SIGSTOP the postmaster first (it starts nothing new while stopped), then
    every child; each pid goes into ``stopped`` as it is stopped, so that a
    ``finally: thaw(stopped)`` wakes every one even if this fails half-way."""
    for _ in range(3):  # a child started while we looked is caught next round
        fresh = [pid for pid in postgres_pids(pgdata) if pid not in stopped]
        if not fresh:
            break
        for pid in fresh:
            stopped.append(pid)
            signal_all([pid], signal.SIGSTOP)


def thaw(pids: Iterable[int]) -> None:
    signal_all(pids, signal.SIGCONT)
