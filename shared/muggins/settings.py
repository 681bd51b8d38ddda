"""Configuration: from a TOML file and MUGGINS_* environment variables.

Every setting has a TOML key (the field's name) and an environment variable
(``MUGGINS_`` and the name in capitals); the environment wins, and a
command-line flag wins over both.  deploy/README.md lists them in one table.

With no server URLs configured, muggins starts real PostgreSQL and NATS
servers itself (``muggins.embedded``), with their data in ``data_dir``.
"""

from __future__ import annotations

import ipaddress
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Literal

import msgspec

LogFormat = Literal["auto", "console", "json"]
Role = Literal["all", "spectators"]

#: Up to ten years: NATS counts in nanoseconds (and "inf" is no duration).
Seconds = Annotated[float, msgspec.Meta(ge=0, le=10 * 365 * 24 * 3600)]
Port = Annotated[int, msgspec.Meta(ge=0, le=65535)]
Positive = Annotated[int, msgspec.Meta(ge=1)]
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class SettingsError(ValueError):
    """A configuration value that cannot be used; the message names it."""


class Settings(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    # -- servers -------------------------------------------------------------
    #: postgresql://user@host:port/db, as the service's role (muggins_service:
    #: docs/eventstore.md, "Roles"); None: start the embedded server.
    database_url: str | None = None
    #: The same database as the role that owns the schema (muggins_owner):
    #: migrations run with it.  None: they run with ``database_url``.
    migration_database_url: str | None = None
    #: nats://host:port (comma-separate a cluster's servers); None: start the embedded server.
    nats_url: str | None = None
    #: Where embedded servers keep their data.
    data_dir: str = ".muggins"
    #: Connections each process keeps to PostgreSQL (at least, at most).
    db_pool_min: Positive = 1
    db_pool_max: Annotated[int, msgspec.Meta(ge=1, le=1000)] = 10

    # -- the JetStream stream and its consumers -------------------------------
    stream_name: Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_-]{1,64}$")] = (
        "MUGGINS_EVENTS")
    #: Copies of the stream in a NATS cluster (1 on one server; 3 in a cluster of three).
    stream_replicas: Annotated[int, msgspec.Meta(ge=1, le=5)] = 1
    #: How long the stream keeps a message, 0 for no limit (the store keeps
    #: everything forever).
    stream_max_age: Seconds = 7 * 24 * 3600.0
    stream_max_bytes: Annotated[int, msgspec.Meta(ge=1, le=2**62)] = 8 * 1024**3
    #: A republished message inside this window is dropped as a duplicate: it
    #: must outlast a relay crash between publishing and saving its checkpoint.
    stream_duplicate_window: Annotated[float, msgspec.Meta(ge=1, le=7 * 24 * 3600)] = 15 * 60.0
    #: The projectors' durable consumers: how long a fetched message waits for
    #: its ack before it is sent again, and how many may wait at once.
    consumer_ack_wait: Annotated[float, msgspec.Meta(ge=1, le=3600)] = 30.0
    consumer_max_ack_pending: Annotated[int, msgspec.Meta(ge=1, le=1_000_000)] = 10_000

    # -- the table service ------------------------------------------------------
    #: Where ``muggins serve`` listens.
    listen_host: str = "127.0.0.1"
    listen_port: Port = 8000
    #: How people reach the site (share links), e.g. https://muggins.example;
    #: None: http://listen_host:listen_port.  Behind a load balancer, its address.
    public_url: str | None = None
    #: "spectators": only what spectators and the lobby read (docs/service.md).
    role: Role = "all"
    #: Run the projectors inside ``muggins serve`` (one machine); False where
    #: they run as their own processes (``muggins project NAME``).
    projectors_in_process: bool = True
    #: A bot's human-like pause before it moves.
    bot_delay: Annotated[float, msgspec.Meta(ge=0, le=10)] = 0.8
    #: The pause after a hand ends before the next is dealt.
    hand_pause: Annotated[float, msgspec.Meta(ge=0, le=60)] = 2.0
    #: Worker processes the expert bot thinks in (0: one fewer than the cores, at least one).
    bot_workers: Annotated[int, msgspec.Meta(ge=0, le=256)] = 0
    #: The expert's thinking time per decision, unless a table sets its own.
    expert_budget_ms: Annotated[int, msgspec.Meta(ge=10, le=10_000)] = 200
    #: The bot that plays a person's seat when their clock runs out or they leave.
    takeover_bot: Literal["random", "greedy", "expert"] = "expert"
    #: How long a disconnected player has to come back before a bot takes the seat.
    grace_period: Annotated[float, msgspec.Meta(ge=0, le=3600)] = 30.0
    #: A new table's turn clock when its creator names none.
    turn_clock_seconds: Annotated[int, msgspec.Meta(ge=1, le=600)] = 30
    #: Tables one client address may create a minute (429 beyond).
    tables_per_minute: Annotated[int, msgspec.Meta(ge=1, le=1_000_000)] = 30
    #: WebSockets and event streams one client address may hold open at once.
    sockets_per_address: Annotated[int, msgspec.Meta(ge=1, le=1_000_000)] = 64
    #: Seconds an address gets no new socket after one was closed for abuse.
    penalty_seconds: Annotated[float, msgspec.Meta(ge=0, le=3600)] = 10.0
    #: The load balancers whose X-Forwarded-For is believed: addresses or
    #: networks (CIDR), comma-separated.  Empty: nobody's, every client is
    #: the address it connects from (muggins.tables.client_address).
    trusted_proxies: str = ""
    #: trusted_proxies's old name, still read; None: not set.
    forwarded_allow_ips: str | None = None

    # -- logs -------------------------------------------------------------------
    log_format: LogFormat = "auto"
    log_level: Literal["debug", "info", "warning", "error"] = "info"

    def __post_init__(self) -> None:
        if self.migration_database_url is not None and self.database_url is None:
            raise SettingsError(
                "migration_database_url needs database_url: the embedded server "
                "(no database_url) makes its own roles and URLs"
            )
        if self.db_pool_min > self.db_pool_max:
            raise SettingsError("db_pool_min is larger than db_pool_max")
        if self.stream_max_age and self.stream_duplicate_window > self.stream_max_age:
            # JetStream refuses such a stream at start; say so before.
            raise SettingsError("stream_duplicate_window is longer than stream_max_age")
        if (self.forwarded_allow_ips is not None and self.trusted_proxies
                and self.forwarded_allow_ips != self.trusted_proxies):
            raise SettingsError("trusted_proxies and forwarded_allow_ips (its old name) "
                                "differ: set trusted_proxies only")
        networks(self.trusted_proxies or self.forwarded_allow_ips or "")

    @property
    def trusted_proxy_networks(self) -> tuple[Network, ...]:
        """The networks of trusted_proxies (or of its old name)."""
        return networks(self.trusted_proxies or self.forwarded_allow_ips or "")

    @property
    def data_path(self) -> Path:
        return Path(self.data_dir).expanduser().resolve()


def networks(text: str) -> tuple[Network, ...]:
    """The comma-separated addresses and CIDR networks of ``text`` (an
    address is a network of one); SettingsError names an entry that is neither."""
    found = []
    for entry in (part.strip() for part in text.split(",")):
        if not entry:
            continue
        try:
            found.append(ipaddress.ip_network(entry))
        except ValueError as error:
            raise SettingsError(f"trusted_proxies: {entry[:60]!r} is not an address or a "
                                f"network ({error})") from None
    return tuple(found)


#: Every setting's environment variable: MUGGINS_ and its name in capitals.
ENVIRONMENT: dict[str, str] = {
    f"MUGGINS_{name.upper()}": name for name in Settings.__struct_fields__
}


def load_settings(
    environ: Mapping[str, str] | None = None, config_file: str | Path | None = None
) -> Settings:
    """Settings from ``config_file`` (or $MUGGINS_CONFIG), overridden by the environment."""
    environ = os.environ if environ is None else environ
    values: dict[str, object] = {}
    path = config_file or environ.get("MUGGINS_CONFIG")
    if path:
        try:
            values.update(tomllib.loads(Path(path).read_text()))
        except FileNotFoundError:
            raise SettingsError(f"config file {path} does not exist") from None
        except tomllib.TOMLDecodeError as error:
            raise SettingsError(f"config file {path} is not valid TOML: {error}") from None
    for variable, field in ENVIRONMENT.items():
        if environ.get(variable):
            values[field] = environ[variable]
    try:
        # Not strict: an environment variable is text, "3" must become 3.
        return msgspec.convert(values, Settings, strict=False)
    except msgspec.ValidationError as error:
        raise SettingsError(f"invalid setting: {error}") from None
