"""Who the client is: the one place that decides (STYLE.md 15).

Every per-address limit (tables created, secrets rotated, sockets held,
the penalty after abuse) counts the address this module names.  It is the
address the connection comes from, unless that is a trusted proxy (setting
``trusted_proxies``, none by default): then it is the right-most address in
``X-Forwarded-For`` that is not a trusted proxy itself.  Walking from the
right matters: every proxy appends the address it saw, so the entries on
the left are whatever the client wrote and prove nothing.

uvicorn's own proxy handling is off (``muggins serve``), so the same rule
holds in every process, in tests and behind every balancer.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from typing import Any

from litestar.connection import ASGIConnection

from muggins.infra.settings import Network

#: The key on ``app.state`` that holds the trusted networks (create_app puts them there).
TRUSTED_PROXIES = "trusted_proxies"
#: Where there is no peer at all (a Unix socket): one address for all of them.
UNKNOWN = "unknown"

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def client_address(connection: ASGIConnection[Any, Any, Any, Any]) -> str:
    """The client's address for a request or a WebSocket (module docstring),
    as every per-address limit counts it (``as_one_client``)."""
    peer = connection.client.host if connection.client else UNKNOWN
    trusted: tuple[Network, ...] = getattr(connection.app.state, TRUSTED_PROXIES, ())
    return as_one_client(address_behind_proxies(
        peer, connection.headers.getall("x-forwarded-for", []), trusted))


#: An IPv6 client is its /64: one household or one server gets a /64 (or
#: more) to itself, so counting single addresses would give each client
#: billions of budgets.
IPV6_CLIENT_PREFIX = 64


def as_one_client(address: str) -> str:
    """``address`` as one client: itself, or for IPv6 its /64 network."""
    parsed = _parsed(address)
    if isinstance(parsed, ipaddress.IPv6Address) and not parsed.is_loopback:
        return str(ipaddress.IPv6Network((parsed, IPV6_CLIENT_PREFIX), strict=False))
    return address


def address_behind_proxies(peer: str, forwarded_for: Sequence[str],
                           trusted: Iterable[Network]) -> str:
    """``peer``, or when it is a trusted proxy, the right-most address of the
    ``forwarded_for`` header values that is not (the left-most when every one
    is).  A value that is not a list of bare addresses is not believed: the
    answer is then ``peer``."""
    networks = tuple(trusted)
    if not networks or not _is_trusted(_parsed(peer), networks):
        return peer
    hops = [hop.strip() for value in forwarded_for for hop in value.split(",")]
    client = peer
    for hop in reversed(hops):
        address = _parsed(hop)
        if address is None:
            return peer
        client = str(address)
        if not _is_trusted(address, networks):
            break
    return client


def _parsed(text: str) -> Address | None:
    """The address ``text`` is (an IPv4 address mapped into IPv6 as itself), or None."""
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _is_trusted(address: Address | None, networks: tuple[Network, ...]) -> bool:
    # An IPv4 address is never in an IPv6 network, nor the other way round
    # ("in" is simply False for a network of the other version).
    return address is not None and any(address in network for network in networks)
