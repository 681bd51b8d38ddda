"""The local cluster's ports taken between the plan and a process's start:
the process exits at once (HAProxy: "cannot bind socket"; a service replica
or a NATS node: "address already in use"), and the cluster, whose planner
chose that port, starts it again on others; a port the operator chose is
never moved, and the failure is told at once, not after a timeout.  (Seen
twice in whole runs of the suite: the site "not ready through HAProxy
within 120 s" while another process answered on the planned front port,
and, in CI, "service-1 stopped while starting" with its log's folder gone.)

Real processes: for HAProxy alone, a small HTTP server stands in for the
service replica its health checks ask; the last test brings up a whole
cluster of one replica."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from muggins.cluster.local import ClusterError, LocalCluster, PortTaken
from muggins.cluster.processes import answers_ok


class _Healthy(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args: object) -> None:
        pass


@contextlib.contextmanager
def replica_on(port: int) -> Iterator[None]:
    server = ThreadingHTTPServer(("127.0.0.1", port), _Healthy)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def taken(port: int) -> Iterator[None]:
    """Another process's listener on ``port`` (one of ours just closed there
    may have left it in TIME_WAIT: taken all the same, as servers bind)."""
    with socket.socket() as other:
        other.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        other.bind(("127.0.0.1", port))
        other.listen()
        yield


def planned(directory: Path, port: int, settings: dict[str, str] | None = None) -> LocalCluster:
    cluster = LocalCluster(directory)
    cluster.state = cluster._plan(port, 1, settings or {})
    cluster._save()
    return cluster


def test_a_chosen_front_port_taken_since_the_plan_moves(tmp_path: Path) -> None:
    cluster = planned(tmp_path / "cluster", 0)
    first = cluster.url
    try:
        with replica_on(cluster.instance("service-1").port), taken(cluster._state.front_port):
            cluster._start_front(timeout=30)
            assert cluster.url != first
            assert cluster.is_running("haproxy")
            assert answers_ok(f"{cluster.url}/readyz")  # the replica, through the new front
        # The move is kept: the cluster's file says where the site is now.
        assert LocalCluster(cluster.directory).url == cluster.url
    finally:
        cluster.stop("haproxy")


def test_a_front_port_the_operator_chose_is_not_moved(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    cluster = planned(tmp_path / "cluster", port)
    try:
        with replica_on(cluster.instance("service-1").port), taken(port), \
                pytest.raises(ClusterError, match="haproxy stopped while starting"):
            cluster._start_front(timeout=30)
        assert cluster._state.front_port == port
    finally:
        with contextlib.suppress(ClusterError):
            cluster.stop("haproxy")


def test_a_replica_stopped_by_its_taken_port_says_so_with_its_last_lines(
        tmp_path: Path) -> None:
    """The error carries the log's last lines: CI prints the error, and the
    folder the log was in is gone by the time anyone reads it."""
    cluster = planned(tmp_path / "cluster", 0)
    try:
        with taken(cluster.instance("service-1").port), \
                pytest.raises(PortTaken, match="service-1 stopped while starting") as refused:
            cluster.start("service-1", timeout=30)  # it stops before it needs the servers
        assert "address already in use" in str(refused.value)
        assert "its last lines:" in str(refused.value)
        assert not cluster.is_running("service-1")
    finally:
        cluster.stop("service-1")


def test_ports_taken_since_the_plan_move_even_where_another_answers(tmp_path: Path) -> None:
    """A replica's port held by another's server that answers /readyz (as
    another cluster's replica would) is not taken for ours, and a NATS
    node's route port taken moves every node's; then, the cluster running,
    a replica stopped whose port is taken meanwhile moves, and HAProxy is
    started again on the new one."""
    cluster = planned(tmp_path / "cluster", 0, {"MUGGINS_LOG_LEVEL": "info"})
    replica_port = cluster.instance("service-1").port
    route_port = cluster.instance("nats-2").route_port
    try:
        with replica_on(replica_port), taken(route_port):
            cluster.up(timeout=60)
            moved = LocalCluster(cluster.directory)  # as kept in the cluster's file
            assert moved.instance("service-1").port != replica_port
            assert moved.instance("nats-2").route_port != route_port
            assert all(cluster.is_ready(i.name) for i in cluster.instances())
            assert answers_ok(f"{cluster.url}/readyz")
            # Each stopped once, on its taken port, and said why.
            assert "address already in use" in cluster.log_of("service-1").read_text()
            assert "address already in use" in cluster.log_of("nats-2").read_text()
        cluster.stop("service-1")
        stopped_on = cluster.instance("service-1").port
        with taken(stopped_on):
            cluster.up(timeout=60)
        now_on = cluster.instance("service-1").port
        assert now_on != stopped_on
        assert f"127.0.0.1:{now_on}" in (cluster.directory / "haproxy.cfg").read_text()
        cluster.wait_balanced("service-1")
        assert answers_ok(f"{cluster.url}/readyz")
    finally:
        cluster.down()
