"""The local cluster's HAProxy on a port taken between the plan and its
start: HAProxy exits at once ("cannot bind socket"), and the cluster, whose
planner chose that port, starts it again on others; a port the operator
chose is never moved, and the failure is told at once, not after a timeout.
(Seen once in the whole suite: the site "not ready through HAProxy within
120 s" while another process answered on the planned front port.)

Real HAProxy, no other part of the cluster: a small HTTP server stands in
for the service replica its health checks ask."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from muggins.cluster.local import ClusterError, LocalCluster
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
    """Another process's listener on ``port``."""
    with socket.socket() as other:
        other.bind(("127.0.0.1", port))
        other.listen()
        yield


def planned(directory: Path, port: int) -> LocalCluster:
    cluster = LocalCluster(directory)
    cluster.state = cluster._plan(port, 1, {})
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
