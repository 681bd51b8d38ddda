"""The whole site on one machine, from real parts: PostgreSQL, a three-node
NATS JetStream cluster, the muggins processes of the topology (service
replicas, a spectators' process, one process per projector) and HAProxy in
front of the HTTP ones.  ``muggins cluster up|down|status|kill|start|restart|roll``.

Every process runs detached, its output in ``<directory>/logs/<name>.log``;
what runs where is kept in ``<directory>/cluster.json``, so any later
command (or test) finds it.  Ports are chosen once, at the first ``up``, and
kept: a process restarted comes back where it was.  (A port another process
takes between the plan and our process's start is the exception: that
process exits at once, saying so, and ``up`` gives it another.)
"""

from __future__ import annotations

import contextlib
import csv
import http.client
import os
import random
import shutil
import signal
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import msgspec

from muggins.cluster.haproxy import haproxy_config
from muggins.cluster.processes import answers_ok, muggins_command, muggins_environment, spawn
from muggins.cluster.topology import (
    ADDRESS_SETTINGS,
    NATS_CLUSTER_NAME,
    NATS_NODES,
    MugginsProcess,
    muggins_processes,
)
from muggins.infra.embedded import (
    EmbeddedNats,
    EmbeddedPostgres,
    EmbeddedServerError,
    NatsRoutes,
    pid_alive,
    port_is_free,
    wait_gone,
)
from muggins.infra.settings import SettingsError, load_settings

#: Ports a cluster keeps (chosen at its first ``up``): below Linux's default
#: range for outgoing connections (32768-60999).
KEPT_PORTS = (20000, 32000)
#: Starts of a process on ports of the planner's choice before ``up`` gives
#: up: a port free when planned can be taken by another process before ours
#: binds it (seen in the tests, with four or five workers on the machine:
#: HAProxy's front once, a service replica's port once).
PORT_TRIES = 3
#: What uvicorn and nats-server log when their port is taken (the system's words).
PORT_TAKEN = "address already in use"
#: The lines of a process's log an error about its start quotes.
LOG_TAIL_LINES = 15
#: Settings that shape the topology itself: never given to every process.
TOPOLOGY_SETTINGS = ADDRESS_SETTINGS | {"MUGGINS_ROLE", "MUGGINS_PROJECTORS_IN_PROCESS"}


class ClusterError(Exception):
    """The cluster cannot do what was asked; the message says why."""


class PortTaken(ClusterError):
    """A process stopped as it started because another process had its port."""


class Instance(msgspec.Struct, kw_only=True):
    """One running (or stopped) process of the cluster."""

    name: str
    kind: str  # postgres, nats, service, spectators, projector, haproxy
    #: Its client port (HTTP for muggins and HAProxy); 0 for projectors.
    port: int = 0
    pid: int | None = None
    #: When that pid's process started (/proc): a pid reused by another
    #: process after a reboot is not ours, and is never signalled.
    started: str = ""
    #: NATS: its route port and monitoring port.
    route_port: int = 0
    monitor_port: int = 0


class ClusterState(msgspec.Struct, kw_only=True):
    front_port: int
    stats_port: int
    postgres_port: int
    #: The service replicas asked for at ``up``.
    service_replicas: int
    #: Extra MUGGINS_* settings every muggins process gets (tests: short bot delays).
    extra_settings: dict[str, str] = {}
    instances: list[Instance] = []
    #: The front's port was the planner's choice (``up --port 0``), so it may
    #: move when another process takes it first.
    front_port_chosen: bool = False


def _check_extra_settings(extra: dict[str, str]) -> None:
    refused = sorted(set(extra) & TOPOLOGY_SETTINGS)
    if refused:
        raise ClusterError(f"{', '.join(refused)} shape the cluster itself: not settable for "
                           "every process")
    try:
        load_settings(environ=extra)
    except SettingsError as error:
        raise ClusterError(str(error)) from None


def _start_time(pid: int | None) -> str:
    """A process's start time, in clock ticks since boot ("" if none)."""
    if pid is None:
        return ""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def _listens(pid: int | None, *ports: int) -> bool:
    """Whether process ``pid`` holds a socket listening on each TCP port of
    ``ports`` (read from /proc: Linux; elsewhere, taken on trust).  An answer
    on a planned port proves nothing by itself: until our process binds it,
    whoever took the port since the plan answers there (another cluster's
    replica, say)."""
    try:
        rows = Path("/proc/net/tcp").read_text().splitlines()[1:]
        rows += Path("/proc/net/tcp6").read_text().splitlines()[1:]
    except OSError:
        return True
    # The listening sockets' inodes, by port.
    listening: dict[int, set[str]] = {port: set() for port in ports}
    for fields in (row.split() for row in rows):
        port = int(fields[1].rsplit(":", 1)[1], 16)
        if fields[3] == "0A" and port in listening:
            listening[port].add(fields[9])
    if pid is None or not all(listening.values()):
        return False
    try:
        descriptors = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    held: set[str] = set()
    for descriptor in descriptors:
        with contextlib.suppress(OSError):
            target = os.readlink(f"/proc/{pid}/fd/{descriptor}")
            if target.startswith("socket:["):
                held.add(target[8:-1])
    return all(inodes & held for inodes in listening.values())


def _ours(instance: Instance) -> bool:
    """The instance's process runs: its pid is alive and is still that process."""
    return pid_alive(instance.pid) and (
        not instance.started or _start_time(instance.pid) == instance.started)


def kept_port(taken: set[int], span: tuple[int, int] = KEPT_PORTS) -> int:
    """A port free now in ``span`` (below the kernel's range for outgoing
    connections, which could take it while its process is down), not in
    ``taken`` (to which it is added)."""
    chooser = random.Random()
    for _ in range(1000):
        port = chooser.randrange(*span)
        if port not in taken and port_is_free(port, reuse_address=False):
            taken.add(port)
            return port
    raise ClusterError(f"no free port between {span[0]} and {span[1]}")


def haproxy_binary() -> str:
    found = shutil.which("haproxy") or next(
        (path for path in ("/usr/sbin/haproxy", "/usr/local/sbin/haproxy")
         if Path(path).exists()), None)
    if found is None:
        raise ClusterError("haproxy is not installed: apt-get install haproxy "
                           "(python3 deploy/dev.py test installs it where it can)")
    return found


class LocalCluster:
    """The cluster kept in ``directory``."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory.resolve()
        self.state_file = self.directory / "cluster.json"
        self.logs = self.directory / "logs"
        self.state: ClusterState | None = None
        #: Where each process's log stood when this object last started it:
        #: an error about that start quotes only what the start wrote.
        self._log_starts: dict[str, int] = {}
        if self.state_file.exists():
            try:
                self.state = msgspec.json.decode(self.state_file.read_bytes(),
                                                 type=ClusterState)
            except msgspec.DecodeError as error:
                raise ClusterError(f"{self.state_file} is damaged ({error}): stop what runs "
                                   "by hand and remove it") from None

    # ------------------------------------------------------------ addresses

    @property
    def url(self) -> str:
        """The site, through the load balancer."""
        return f"http://127.0.0.1:{self._state.front_port}"

    @property
    def stats_port(self) -> int:
        return self._state.stats_port

    @property
    def nats_url(self) -> str:
        return ",".join(f"nats://127.0.0.1:{i.port}" for i in self.instances("nats"))

    @property
    def postgres(self) -> EmbeddedPostgres:
        return EmbeddedPostgres(self.directory, port=self._state.postgres_port)

    def instances(self, kind: str | None = None) -> list[Instance]:
        return [i for i in self._state.instances if kind is None or i.kind == kind]

    def instance(self, name: str) -> Instance:
        for candidate in self._state.instances:
            if candidate.name == name:
                return candidate
        known = ", ".join(i.name for i in self._state.instances)
        raise ClusterError(f"no process {name!r} in the cluster (it has {known})")

    @property
    def _state(self) -> ClusterState:
        if self.state is None:
            raise ClusterError(f"no cluster in {self.directory}: run `muggins cluster up` first")
        return self.state

    def _save(self) -> None:
        """Written aside, then moved in place: an interrupted write leaves the old file."""
        self.directory.mkdir(parents=True, exist_ok=True)
        written = self.state_file.with_suffix(".json.new")
        written.write_bytes(msgspec.json.format(msgspec.json.encode(self._state)))
        os.replace(written, self.state_file)

    # ------------------------------------------------------------ up and down

    def up(self, *, port: int | None = None, service_replicas: int | None = None,
           extra_settings: dict[str, str] | None = None, timeout: float = 90.0) -> None:
        """Start everything not running yet (all of it the first time: HAProxy
        on ``port``, 8080 unless given, 0 for any free one; two service
        replicas unless given).  ``extra_settings`` (MUGGINS_* variables) go to
        every muggins process; those that shape the topology are refused."""
        extra = dict(extra_settings or {})
        _check_extra_settings(extra)
        if self.state is None:
            self.state = self._plan(8080 if port is None else port,
                                    2 if service_replicas is None else service_replicas, extra)
            self._save()
        else:
            made = self.state
            if (port not in (None, 0, made.front_port)
                    or service_replicas not in (None, made.service_replicas)):
                raise ClusterError(
                    f"the cluster in {self.directory} was made with --port {made.front_port} "
                    f"--replicas {made.service_replicas}: use those, or `down` and remove "
                    "the directory for another")
            if extra:
                made.extra_settings.update(extra)
                self._save()
        self.logs.mkdir(parents=True, exist_ok=True)
        self.start_postgres()
        self._start_nats(timeout)
        # The first muggins process migrates the database and makes the stream;
        # the others then start together.
        others = [i for i in self._state.instances if i.kind not in ("postgres", "nats",
                                                                     "haproxy")]
        for instance in others[:1]:
            self.start(instance.name, wait=False)
            self._wait_ready_moving_port(instance.name, timeout)
        for instance in others[1:]:
            self.start(instance.name, wait=False)
        for instance in others[1:]:
            self._wait_ready_moving_port(instance.name, timeout)
        self._start_front(timeout)
        self.wait_site_ready(timeout)

    def _start_nats(self, timeout: float) -> None:
        """Start the NATS nodes not running and wait for their JetStream
        quorum.  A node whose port was taken since the plan stops at once;
        while no muggins process runs (none has their addresses yet), every
        node gets new ports and they start again."""
        def attempt() -> None:
            for node in self.instances("nats"):
                self.start(node.name, wait=False)
            self._wait_for_jetstream(timeout)

        def no_muggins_process() -> bool:
            return not any(self.is_running(i.name) for i in self.instances()
                           if i.kind not in ("postgres", "nats", "haproxy"))

        self._on_other_ports(attempt, self._move_nats, no_muggins_process)

    def _move_nats(self) -> None:
        """Every NATS node stopped, and new client, route and monitoring ports."""
        for node in self.instances("nats"):
            self.stop(node.name)
        taken = self._ports()
        for node in self.instances("nats"):
            node.port, node.route_port, node.monitor_port = (
                kept_port(taken), kept_port(taken), kept_port(taken))
        self._save()

    def _wait_ready_moving_port(self, name: str, timeout: float) -> None:
        """``wait_ready`` for a muggins process started; one that stopped
        because its port was taken since the plan (always the planner's
        choice) gets another and starts again.  HAProxy, if it runs, starts
        again too: its configuration names the port."""
        instance = self.instance(name)
        planned_port = instance.port

        def move() -> None:
            instance.port = kept_port(self._ports())
            self._save()
            self.start(name, wait=False)

        self._on_other_ports(lambda: self.wait_ready(name, timeout), move,
                             lambda: bool(instance.port))  # (a projector has no port)
        if instance.port != planned_port and self.is_running("haproxy"):
            self.stop("haproxy")
            self._start_front(timeout)

    @staticmethod
    def _on_other_ports(attempt: Callable[[], None], move: Callable[[], None],
                        movable: Callable[[], bool]) -> None:
        """``attempt``; while it fails with PortTaken and the ports are
        ``movable`` (the planner's, and nothing depends on them yet), ``move``
        them and attempt again: PORT_TRIES attempts in all."""
        for tries_left in reversed(range(PORT_TRIES)):
            try:
                attempt()
                return
            except PortTaken:
                if not tries_left or not movable():
                    raise
            move()

    def _ports(self) -> set[int]:
        """Every port the cluster's plan holds."""
        state = self._state
        taken = {port for i in state.instances for port in (i.port, i.route_port, i.monitor_port)}
        return taken | {state.front_port, state.stats_port, state.postgres_port}

    def _start_front(self, timeout: float) -> None:
        """Start HAProxy.  It exits at once if one of its ports is taken: when
        the planner chose them, choose others and start it again."""
        self._on_other_ports(lambda: self.start("haproxy", timeout=timeout), self._move_front,
                             lambda: self._state.front_port_chosen)

    def _move_front(self) -> None:
        """New ports for HAProxy's front and statistics, of the planner's kind."""
        state = self._state
        taken = self._ports()
        state.front_port = kept_port(taken)
        state.stats_port = kept_port(taken)
        self.instance("haproxy").port = state.front_port
        self._save()

    def down(self) -> None:
        """Stop every process (muggins first, then HAProxy, NATS, PostgreSQL)."""
        if self.state is None:
            return
        order = {"service": 0, "spectators": 0, "projector": 0, "haproxy": 1, "nats": 2}
        failures = []
        for instance in sorted(self.instances(), key=lambda i: order.get(i.kind, 3)):
            try:  # one that will not stop does not keep the others running
                if instance.kind == "postgres":
                    self.stop_postgres()
                else:
                    self.stop(instance.name)
            except (ClusterError, OSError) as error:
                failures.append(f"{instance.name}: {error}")
        if failures:
            raise ClusterError("could not stop " + "; ".join(failures))

    def _plan(self, port: int, service_replicas: int,
              extra_settings: dict[str, str]) -> ClusterState:
        if service_replicas < 1:
            raise ClusterError("a cluster needs at least one service replica")
        taken: set[int] = set()

        def free_port() -> int:
            return kept_port(taken)

        instances = [Instance(name="postgres", kind="postgres")]
        instances += [Instance(name=f"nats-{n}", kind="nats", port=free_port(),
                               route_port=free_port(), monitor_port=free_port())
                      for n in range(1, NATS_NODES + 1)]
        for process in muggins_processes(service_replicas):
            instances += [Instance(name=name, kind=process.kind,
                                   port=free_port() if process.serves_http else 0)
                          for name in process.instance_names()]
        if port:
            taken.add(port)
        instances.append(Instance(name="haproxy", kind="haproxy", port=port or free_port()))
        front = instances[-1].port
        return ClusterState(front_port=front, stats_port=free_port(), postgres_port=free_port(),
                            service_replicas=service_replicas, extra_settings=extra_settings,
                            instances=instances, front_port_chosen=not port)

    # ------------------------------------------------------------ one process

    def start(self, name: str, *, wait: bool = True, timeout: float = 60.0) -> None:
        """Start one process if it is not running (and wait for it to be ready)."""
        instance = self.instance(name)
        if instance.kind == "postgres":
            self.start_postgres()
            return
        if _ours(instance):
            return
        self.logs.mkdir(parents=True, exist_ok=True)
        log = self.log_of(name)
        self._log_starts[name] = log.stat().st_size if log.exists() else 0
        if instance.kind == "nats":
            node = self._nats_node(instance)
            try:
                node.start(timeout)
            except EmbeddedServerError:
                if node.process is not None and node.process.poll() is None:
                    # Alive, but not answering in time: kept, so that `down` stops it.
                    instance.pid = node.process.pid
                    instance.started = _start_time(instance.pid)
                    self._save()
                    raise ClusterError(f"{name} did not answer within {timeout:.0f} s: see "
                                       f"{self.log_of(name)}{self._last_lines(name)}") from None
                instance.pid = None
                self._save()
                raise self._stopped_while_starting(name) from None
            # The process started now (its pid file may not be written yet).
            instance.pid = node.process.pid if node.process else node.running_pid()
            instance.started = _start_time(instance.pid)
        else:
            argv, environment = self._command(instance)
            process = spawn(argv, environment, self.logs / f"{name}.log", cwd=self.directory)
            instance.pid = process.pid
            instance.started = _start_time(process.pid)
        self._save()
        if wait:
            self.wait_ready(name, timeout)

    def stop(self, name: str, *, timeout: float = 15.0) -> None:
        """Stop one process: SIGTERM (its graceful shutdown), SIGKILL after ``timeout``."""
        instance = self.instance(name)
        if instance.kind == "postgres":
            self.stop_postgres()
            return
        self._signal(instance, signal.SIGTERM)
        if not wait_gone(instance.pid, timeout):
            self._signal(instance, signal.SIGKILL)
            wait_gone(instance.pid, 5)
        instance.pid = None
        self._save()

    def kill(self, name: str, how: signal.Signals = signal.SIGKILL) -> None:
        """Kill one process at once, as a crash would (PostgreSQL: an immediate stop)."""
        instance = self.instance(name)
        if instance.kind == "postgres":
            self.stop_postgres(mode="immediate")
            return
        self._signal(instance, how)
        if how in (signal.SIGKILL, signal.SIGTERM):
            wait_gone(instance.pid, 15)
            instance.pid = None
            self._save()

    def restart(self, name: str, *, timeout: float = 60.0) -> None:
        self.stop(name)
        self.start(name, timeout=timeout)

    def roll(self, *, timeout: float = 60.0, pause: float = 1.0) -> Iterator[str]:
        """Restart every service replica, one after another, each back and
        ready before the next goes (yields each name as it is done)."""
        for instance in self.instances("service"):
            self.restart(instance.name, timeout=timeout)
            self.wait_balanced(instance.name, timeout)
            time.sleep(pause)  # settle: its players reconnected before the next goes
            yield instance.name

    def wait_balanced(self, name: str, timeout: float = 30.0) -> None:
        """Until HAProxy counts ``name`` up again (its statistics, as CSV)."""
        deadline = time.monotonic() + timeout
        url = f"http://127.0.0.1:{self._state.stats_port}/;csv"
        while time.monotonic() < deadline:
            with (contextlib.suppress(OSError, urllib.error.URLError, http.client.HTTPException),
                  urllib.request.urlopen(url, timeout=2) as response):
                for row in csv.reader(response.read().decode().splitlines()):
                    if (len(row) > 17 and row[0] == "players" and row[1] == name
                            and row[17].startswith("UP")):
                        return
            time.sleep(0.2)
        raise ClusterError(f"HAProxy did not take {name} back within {timeout:.0f} s")

    def start_postgres(self) -> None:
        try:
            self.postgres.start()
        except EmbeddedServerError as error:
            raise ClusterError(str(error)) from None

    def stop_postgres(self, mode: str = "fast") -> None:
        try:
            self.postgres.stop(mode)
        except EmbeddedServerError as error:
            raise ClusterError(str(error)) from None

    # ------------------------------------------------------------ health

    def is_running(self, name: str) -> bool:
        instance = self.instance(name)
        if instance.kind == "postgres":
            return self.postgres.running_port(self.postgres.pgdata) is not None
        return _ours(instance)

    def is_ready(self, name: str) -> bool:
        """Running and, for HTTP processes, answering /readyz with 200 on its
        own listener (and NATS on its own client and monitoring ports)."""
        instance = self.instance(name)
        if not self.is_running(name):
            return False
        if instance.kind in ("service", "spectators"):
            return (answers_ok(f"http://127.0.0.1:{instance.port}/readyz")
                    and _listens(instance.pid, instance.port))
        if instance.kind == "nats":
            return (answers_ok(f"http://127.0.0.1:{instance.monitor_port}/healthz")
                    and _listens(instance.pid, instance.port, instance.monitor_port))
        if instance.kind == "haproxy":
            # Its statistics page first: HAProxy binds every listener or
            # exits, so that page proves the front is its own, not another
            # process's on a port taken since the plan.
            return (answers_ok(f"http://127.0.0.1:{self._state.stats_port}/")
                    and answers_ok(f"{self.url}/healthz"))
        return True

    def wait_ready(self, name: str, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.is_ready(name):
                return
            if not self.is_running(name):
                raise self._stopped_while_starting(name)
            time.sleep(0.1)
        raise ClusterError(f"{name} was not ready within {timeout:.0f} s: see "
                           f"{self.log_of(name)}{self._last_lines(name)}")

    def _stopped_while_starting(self, name: str) -> ClusterError:
        """The error for a process that stopped as it started: PortTaken if
        its log says its port was taken; its last lines either way (a test
        run's folders may be gone when its output is read)."""
        taken = name in self._log_starts and PORT_TAKEN in self._log_since_start(name).lower()
        kind = PortTaken if taken else ClusterError
        return kind(f"{name} stopped while starting: see {self.log_of(name)}"
                    f"{self._last_lines(name)}")

    def _log_since_start(self, name: str) -> str:
        """What the process's log gained since this object last started it
        (the whole log if it did not, or if the log is shorter now)."""
        try:
            with open(self.log_of(name), "rb") as log:
                start = self._log_starts.get(name, 0)
                if os.fstat(log.fileno()).st_size >= start:
                    log.seek(start)
                return log.read().decode(errors="replace")
        except OSError:
            return ""

    def _last_lines(self, name: str) -> str:
        lines = self._log_since_start(name).strip().splitlines()[-LOG_TAIL_LINES:]
        return "; its last lines:\n" + "\n".join(lines) if lines else ""

    def log_of(self, name: str) -> Path:
        """Where a process's output goes."""
        kind = self.instance(name).kind
        if kind == "nats":
            return self.directory / name / "nats" / "nats-server.log"
        if kind == "postgres":
            return self.postgres.pgdata / "server.log"
        return self.logs / f"{name}.log"

    def wait_site_ready(self, timeout: float = 60.0) -> None:
        """Until the site answers /readyz through the load balancer."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if answers_ok(f"{self.url}/readyz"):
                return
            if not self.is_running("haproxy"):
                raise ClusterError(f"haproxy stopped: see {self.log_of('haproxy')}")
            time.sleep(0.1)
        raise ClusterError(f"the site was not ready through HAProxy within {timeout:.0f} s")

    def _wait_for_jetstream(self, timeout: float) -> None:
        """Until the NATS cluster has elected its JetStream meta leader."""
        deadline = time.monotonic() + timeout
        nodes = self.instances("nats")
        while time.monotonic() < deadline:
            for node in nodes:
                # Stopped: its port was taken, say (another's listener may
                # even answer on its client port), or worse.  Not a wait.
                if not self.is_running(node.name):
                    raise self._stopped_while_starting(node.name)
            # Each answering on its own listeners, not another's on a taken
            # port.  Whose listeners they are is asked last, once all answer
            # and JetStream has its leader: /proc/net/tcp lists every socket
            # of the network namespace, thousands in a busy test run.
            if all(answers_ok(f"http://127.0.0.1:{node.monitor_port}/healthz?js-enabled-only=true")
                   for node in nodes) and any(
                    answers_ok(f"http://127.0.0.1:{node.monitor_port}/healthz") for node in nodes
            ) and all(_listens(node.pid, node.port, node.monitor_port) for node in nodes):
                return
            time.sleep(0.2)
        raise ClusterError(f"the NATS cluster had no JetStream quorum within {timeout:.0f} s")

    # ------------------------------------------------------------ pieces

    def _nats_node(self, instance: Instance) -> EmbeddedNats:
        routes = tuple(f"nats://127.0.0.1:{node.route_port}" for node in self.instances("nats"))
        return EmbeddedNats(self.directory / instance.name, instance.port, name=instance.name,
                            cluster=NatsRoutes(NATS_CLUSTER_NAME, instance.route_port, routes),
                            monitor_port=instance.monitor_port)

    def _process(self, instance: Instance) -> MugginsProcess:
        for process in muggins_processes(self._state.service_replicas):
            if instance.name in process.instance_names():
                return process
        raise ClusterError(f"{instance.name} is not a muggins process")

    def _command(self, instance: Instance) -> tuple[list[str], dict[str, str]]:
        if instance.kind == "haproxy":
            config = self.directory / "haproxy.cfg"
            config.write_text(self.haproxy_config())
            return [haproxy_binary(), "-db", "-f", str(config)], dict(os.environ)
        process = self._process(instance)
        postgres = self.postgres
        # Its URLs whether it runs now or not (a process may start while it restarts).
        postgres.port = self._state.postgres_port
        postgres.passwords = postgres.load_passwords()
        environment = muggins_environment({**process.settings, **{
            "MUGGINS_DATABASE_URL": postgres.service_url,
            "MUGGINS_MIGRATION_DATABASE_URL": postgres.owner_url,
            "MUGGINS_NATS_URL": self.nats_url,
            "MUGGINS_DATA_DIR": str(self.directory),
            "MUGGINS_PUBLIC_URL": self.url,
            "MUGGINS_LISTEN_HOST": "127.0.0.1",
            "MUGGINS_LISTEN_PORT": str(instance.port),
            # HAProxy runs on loopback here: its X-Forwarded-For is believed.
            "MUGGINS_TRUSTED_PROXIES": "127.0.0.1",
        }, **self._state.extra_settings})
        return [*muggins_command(), *process.argv], environment

    def haproxy_config(self) -> str:
        def servers(kind: str) -> list[tuple[str, str]]:
            return [(i.name, f"127.0.0.1:{i.port}") for i in self.instances(kind)]
        return haproxy_config(f"127.0.0.1:{self._state.front_port}", servers("service"),
                              servers("spectators"),
                              stats=f"127.0.0.1:{self._state.stats_port}")

    @staticmethod
    def _signal(instance: Instance, how: signal.Signals) -> None:
        if instance.pid is not None and _ours(instance):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(instance.pid, how)
