"""The load balancer's configuration (HAProxy), made from the topology.

The same text serves the local cluster, compose and Kubernetes: only the
addresses differ (tests/deploy checks the committed copies are this text).

* Players' paths go to the service replicas, least connections first; the
  spectators' paths (topology.SPECTATOR_PATHS) to the spectators' process,
  with the service replicas as backups when it is down.
* A server takes traffic only while ``GET /readyz`` answers 200 (checked
  every second, out after 2 failures, back after 2 successes).
* WebSockets are tunnels: they stay open for an hour of silence (the
  client pings every few seconds anyway); event streams send a keep-alive
  every 15 s, inside the 75 s timeouts.  When a replica dies, its sockets
  close and the clients reconnect through here to another one.
* ``/metrics`` is refused from outside: scrape each process directly.
* Every request gets an ``X-Request-Id`` the service logs as its
  correlation id, and ``X-Forwarded-For`` with the client's address, which
  the service believes from here only (setting trusted_proxies:
  muggins.tables.client_address).  ``option forwardfor`` appends it as the
  last value, whatever the client sent: the right-most is the one to believe.
"""

from __future__ import annotations

from collections.abc import Sequence

from muggins.cluster.topology import SPECTATOR_PATHS

Server = tuple[str, str]  # (name, host:port)


def haproxy_config(bind: str, players: Sequence[Server], spectators: Sequence[Server],
                   *, stats: str | None = None, nameserver: str | None = None) -> str:
    """HAProxy's configuration: listening on ``bind`` (host:port), in front of
    the ``players`` (service replicas) and ``spectators`` processes.

    ``nameserver`` (host:port): the servers' names are looked up there, again
    and again, instead of once at start; where a restarted container may come
    back at another address (compose: Docker's 127.0.0.11:53).  A name not
    found yet only leaves that server down until it is.
    """
    resolving = " resolvers site init-addr last,libc,none" if nameserver else ""
    lines = [
        "# Made by muggins.cluster.haproxy from the topology: change it there.",
        "global",
        # Each connection is two descriptors (client and server): within a 20,000 limit.
    "    maxconn 8000",
        "",
        "defaults",
        "    mode http",
        "    option forwardfor",
        "    option redispatch",
        "    retries 2",
        "    timeout connect 2s",
        "    timeout client 75s",
        "    timeout server 75s",
        "    timeout http-keep-alive 75s",
        "    timeout tunnel 1h",
        "    timeout client-fin 5s",
        f"    default-server inter 1s fall 2 rise 2{resolving}",
        "",
        *([
            "resolvers site",
            f"    nameserver dns {nameserver}",
            "    hold valid 1s",
            "",
        ] if nameserver else []),
        "frontend site",
        f"    bind {bind}",
        "    unique-id-format %{+X}o%ci%cp%fp%Ts%rt%pid",
        "    unique-id-header X-Request-Id",
        # Metrics are for the operator, scraped from each process directly:
        # from outside, they would leak figures and cost database queries.
        "    http-request deny deny_status 404 if { path /metrics }",
        f"    acl for_spectators path_reg {SPECTATOR_PATHS}",
        "    use_backend spectators if for_spectators",
        "    default_backend players",
        "",
        "backend players",
        "    balance leastconn",
        "    option httpchk GET /readyz",
        "    http-check expect status 200",
        *(f"    server {name} {address} check" for name, address in players),
        "",
        "backend spectators",
        "    balance leastconn",
        "    option httpchk GET /readyz",
        "    http-check expect status 200",
        *(f"    server {name} {address} check" for name, address in spectators),
        *(f"    server {name} {address} check backup" for name, address in players),
    ]
    if stats is not None:
        lines += [
            "",
            "frontend stats",
            f"    bind {stats}",
            "    stats enable",
            "    stats uri /",
            "    stats refresh 5s",
            "    http-request use-service prometheus-exporter if { path /metrics }",
        ]
    return "\n".join(lines) + "\n"
