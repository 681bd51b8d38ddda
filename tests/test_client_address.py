"""Who the client is (muggins.tables.client_address): the peer, unless the
peer is a trusted proxy; then the right-most X-Forwarded-For address that
is not a trusted proxy.  And the setting that names the proxies."""

from __future__ import annotations

import re

import pytest

from muggins.infra.settings import Settings, SettingsError, load_settings, networks
from muggins.tables.client_address import address_behind_proxies

LOOPBACK = networks("127.0.0.1")
BALANCERS = networks("10.0.0.0/8, fd00::/8")


@pytest.mark.parametrize(
    ("peer", "header", "trusted", "client"),
    [
        # No proxy trusted (the default): the header is nobody's word.
        ("127.0.0.1", ["203.0.113.9"], (), "127.0.0.1"),
        ("198.51.100.7", ["203.0.113.9"], (), "198.51.100.7"),
        # A trusted peer without the header: the peer.
        ("127.0.0.1", [], LOOPBACK, "127.0.0.1"),
        # A trusted peer: its last value is the client...
        ("127.0.0.1", ["203.0.113.9"], LOOPBACK, "203.0.113.9"),
        # ...whatever the client wrote before it (walked from the right).
        ("127.0.0.1", ["1.1.1.1, 2.2.2.2, 203.0.113.9"], LOOPBACK, "203.0.113.9"),
        ("127.0.0.1", ["1.1.1.1", "203.0.113.9"], LOOPBACK, "203.0.113.9"),
        # A chain of trusted proxies is walked through to the first stranger.
        ("10.1.2.3", ["6.6.6.6, 203.0.113.9, 10.9.9.9, 10.4.4.4"], BALANCERS, "203.0.113.9"),
        # Every hop trusted: the furthest one.
        ("10.1.2.3", ["10.7.7.7, 10.9.9.9"], BALANCERS, "10.7.7.7"),
        # An untrusted peer sending the header is ignored.
        ("198.51.100.7", ["203.0.113.9"], BALANCERS, "198.51.100.7"),
        ("11.0.0.1", ["203.0.113.9"], BALANCERS, "11.0.0.1"),
        # IPv6: peers, hops and networks; written any way, counted as one.
        ("fd00::1", ["2001:DB8:0::1"], BALANCERS, "2001:db8::1"),
        ("fd12:3456::9", ["2001:db8::1, fd00::2"], BALANCERS, "2001:db8::1"),
        ("2001:db8::5", ["203.0.113.9"], BALANCERS, "2001:db8::5"),
        # An IPv4 peer seen through an IPv6 socket is that IPv4 address.
        ("::ffff:10.0.0.1", ["203.0.113.9"], BALANCERS, "203.0.113.9"),
        ("127.0.0.1", ["::ffff:127.0.0.1, 203.0.113.9"], LOOPBACK, "203.0.113.9"),
        # Garbage where an address should be: the peer.
        ("127.0.0.1", ["not-an-address"], LOOPBACK, "127.0.0.1"),
        ("127.0.0.1", ["203.0.113.9, unknown"], LOOPBACK, "127.0.0.1"),
        ("127.0.0.1", ["203.0.113.9:4711"], LOOPBACK, "127.0.0.1"),
        ("127.0.0.1", ["[2001:db8::1]"], LOOPBACK, "127.0.0.1"),
        ("127.0.0.1", ["203.0.113.9,"], LOOPBACK, "127.0.0.1"),
        ("127.0.0.1", [""], LOOPBACK, "127.0.0.1"),
        ("127.0.0.1", ["\x00\xff" * 3000], LOOPBACK, "127.0.0.1"),
        ("127.0.0.1", ["999.1.1.1"], LOOPBACK, "127.0.0.1"),
        # Garbage left of the client's address is never reached.
        ("127.0.0.1", ["<script>, 203.0.113.9"], LOOPBACK, "203.0.113.9"),
        # A peer that is no address at all (a test client, a Unix socket).
        ("testclient", ["203.0.113.9"], LOOPBACK, "testclient"),
        ("unknown", ["203.0.113.9"], LOOPBACK, "unknown"),
    ],
)
def test_the_client_address(peer: str, header: list[str], trusted: tuple[object, ...],
                            client: str) -> None:
    assert address_behind_proxies(peer, header, trusted) == client  # type: ignore[arg-type]


def test_trusted_proxies_default_to_none() -> None:
    settings = load_settings(environ={})
    assert settings.trusted_proxies == "" and settings.trusted_proxy_networks == ()


def test_trusted_proxies_are_addresses_and_networks() -> None:
    settings = load_settings(environ={"MUGGINS_TRUSTED_PROXIES": " 127.0.0.1, 10.0.0.0/8,fd00::/8"})
    assert [str(n) for n in settings.trusted_proxy_networks] == [
        "127.0.0.1/32", "10.0.0.0/8", "fd00::/8"]


def test_the_old_name_is_still_read() -> None:
    settings = load_settings(environ={"MUGGINS_FORWARDED_ALLOW_IPS": "172.30.0.10"})
    assert [str(n) for n in settings.trusted_proxy_networks] == ["172.30.0.10/32"]
    both = Settings(trusted_proxies="172.30.0.10", forwarded_allow_ips="172.30.0.10")
    assert both.trusted_proxy_networks == settings.trusted_proxy_networks
    with pytest.raises(SettingsError, match="differ"):
        load_settings(environ={"MUGGINS_FORWARDED_ALLOW_IPS": "172.30.0.10",
                               "MUGGINS_TRUSTED_PROXIES": "127.0.0.1"})


@pytest.mark.parametrize("bad", ["*", "localhost", "10.0.0.1/8", "10.0.0.0/33", "1.2.3",
                                 "127.0.0.1, nonsense"])
def test_a_bad_trusted_proxy_is_named(bad: str) -> None:
    entry = bad.split(",")[-1].strip()
    with pytest.raises(SettingsError, match=re.escape(f"trusted_proxies: '{entry}'")):
        load_settings(environ={"MUGGINS_TRUSTED_PROXIES": bad})
    with pytest.raises(SettingsError, match="trusted_proxies"):
        load_settings(environ={"MUGGINS_FORWARDED_ALLOW_IPS": bad})


def test_an_ipv6_client_is_its_slash_64() -> None:
    from muggins.tables.client_address import as_one_client

    assert as_one_client("2001:db8:1:2:aaaa::1") == as_one_client("2001:db8:1:2:bbbb::9") == (
        "2001:db8:1:2::/64")
    assert as_one_client("2001:db8:1:3::1") != as_one_client("2001:db8:1:2::1")
    assert as_one_client("203.0.113.9") == "203.0.113.9"
    assert as_one_client("::1") == "::1" and as_one_client("unknown") == "unknown"
