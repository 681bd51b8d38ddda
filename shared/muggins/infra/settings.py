"""Configuration: from a TOML file and MUGGINS_* environment variables.

Every setting has a TOML key (the field's name) and an environment variable
(``MUGGINS_`` and the name in capitals); the environment wins, and a
command-line flag wins over both.  deploy/README.md lists them in one table.

With no server URLs configured, muggins starts real PostgreSQL and NATS
servers itself (``muggins.infra.embedded``), with their data in ``data_dir``.
"""

from __future__ import annotations

import ipaddress
import os
import tomllib
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Literal

import msgspec

from muggins.bots.ladder import EXPERT_BUDGET_MS, STRONGEST, BotLevel

LogFormat = Literal["auto", "console", "json"]
Role = Literal["all", "spectators"]

#: Up to ten years: NATS counts in nanoseconds (and "inf" is no duration).
Seconds = Annotated[float, msgspec.Meta(ge=0, le=10 * 365 * 24 * 3600)]
Port = Annotated[int, msgspec.Meta(ge=0, le=65535)]
Positive = Annotated[int, msgspec.Meta(ge=1)]
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class SettingsError(ValueError):
    """A configuration value that cannot be used; the message names it."""


def about(text: str) -> msgspec.Meta:
    """A setting's description: shown by ``muggins serve --help`` for its flag."""
    return msgspec.Meta(description=text)


def environment_variable(name: str) -> str:
    """A setting's environment variable: MUGGINS_ and its name in capitals."""
    return f"MUGGINS_{name.upper()}"


#: The schemes of a PostgreSQL URL as asyncpg reads one (in any case): any
#: other was a traceback from the driver at the first connection.
POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def check_database_url(name: str, url: str | None) -> None:
    """A SettingsError naming the setting unless ``url`` is a PostgreSQL URL
    (its scheme alone is said: the rest may hold a password)."""
    if url is None or url.lower().startswith(POSTGRES_SCHEMES):
        return
    scheme = url.split("://", 1)[0][:20] if "://" in url else None
    raise SettingsError(
        f"{name} ({environment_variable(name)}) must be a postgresql:// or postgres:// URL, "
        + (f"not {scheme}://" if scheme is not None else "and has no scheme"))


class Settings(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Every setting, its type, range, default and description: the one
    place they are declared (deploy/README.md lists them; ``muggins serve``
    makes its flags from them)."""

    # -- servers -------------------------------------------------------------
    database_url: Annotated[str | None, about(
        "postgresql://user@host:port/db, as the service's role (muggins_service: "
        "docs/eventstore.md, \"Roles\"); none: start the embedded server.")] = None
    migration_database_url: Annotated[str | None, about(
        "The same database as the role that owns the schema (muggins_owner): "
        "migrations run with it.  None: they run with database_url.")] = None
    nats_url: Annotated[str | None, about(
        "nats://host:port (comma-separate a cluster's servers); none: start the "
        "embedded server.")] = None
    data_dir: Annotated[str, about("Where embedded servers keep their data.")] = ".muggins"
    db_pool_min: Annotated[Positive, about(
        "PostgreSQL connections each process keeps open at least.")] = 1
    db_pool_max: Annotated[int, msgspec.Meta(ge=1, le=1000), about(
        "PostgreSQL connections each process keeps open at most (size max_connections "
        "for every process's).")] = 10

    # -- the JetStream stream and its consumers -------------------------------
    stream_name: Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_-]{1,64}$"), about(
        "The JetStream stream.")] = "MUGGINS_EVENTS"
    stream_replicas: Annotated[int, msgspec.Meta(ge=1, le=5), about(
        "Copies of the stream in a NATS cluster (1 on one server; 3 in a cluster "
        "of three).")] = 1
    stream_max_age: Annotated[Seconds, about(
        "Seconds the stream keeps a message, 0 for no limit (the store keeps "
        "everything forever).")] = 7 * 24 * 3600.0
    stream_max_bytes: Annotated[int, msgspec.Meta(ge=1, le=2**62), about(
        "The stream's size before the oldest messages go.")] = 8 * 1024**3
    stream_duplicate_window: Annotated[float, msgspec.Meta(ge=1, le=7 * 24 * 3600), about(
        "Seconds in which a republished message is dropped as a duplicate: it must "
        "outlast a relay crash between publishing and saving its checkpoint.")] = 15 * 60.0

    # -- the table service ------------------------------------------------------
    listen_host: Annotated[str, about("Where muggins serve listens.")] = "127.0.0.1"
    listen_port: Annotated[Port, about(
        "The port muggins serve listens on (0: any free one).")] = 8000
    public_url: Annotated[str | None, about(
        "How people reach the site (share and watch links), e.g. "
        "https://muggins.example; behind a load balancer, its address.  None: "
        "http://listen_host:listen_port.")] = None
    role: Annotated[Role, about(
        "'spectators' serves only what spectators and the lobby read (no commands, "
        "no bots, no projectors): run it beside the players' process so that a "
        "crowd of spectators cannot slow them.")] = "all"
    spectators_niceness: Annotated[int, msgspec.Meta(ge=0, le=19), about(
        "How far a 'spectators' process yields the CPU to the players' processes "
        "on the same host (the Unix niceness it takes at start; 0: none).  Higher "
        "keeps a crowd's fan-out from delaying moves, at the cost of the crowd's "
        "delivery time (docs/edge.md has both measured).")] = 0
    projectors_in_process: Annotated[bool, about(
        "Run the projectors inside muggins serve (one machine); false where they run "
        "as their own processes (muggins project NAME).")] = True
    bot_delay: Annotated[float, msgspec.Meta(ge=0, le=10), about(
        "Seconds a bot waits before it moves, as a person would.")] = 0.8
    hand_pause: Annotated[float, msgspec.Meta(ge=0, le=60), about(
        "Seconds between the end of a hand and the next deal.")] = 2.0
    bot_workers: Annotated[int, msgspec.Meta(ge=0, le=256), about(
        "Worker processes the expert bot thinks in (0: one fewer than the cores, "
        "at least one).")] = 0
    expert_budget_ms: Annotated[int, msgspec.Meta(ge=10, le=10_000), about(
        "The expert bot's thinking time per decision, unless a table sets its "
        "own.")] = EXPERT_BUDGET_MS
    takeover_bot: Annotated[BotLevel, about(
        "The bot that plays a person's seat when their clock runs out or they "
        "leave: the strongest level unless told.")] = STRONGEST
    idle_close: Annotated[float, msgspec.Meta(ge=1, le=7 * 24 * 3600), about(
        "Seconds a table may wait with nobody sitting down, or stand with its game "
        "over and no rematch, before it closes (as idle, or finished).")] = 1800.0
    absence_wait: Annotated[float, msgspec.Meta(ge=0, le=24 * 3600), about(
        "Seconds a game paused for a person who left waits for them before those "
        "who stayed may choose: play on with the bot (unrated) or end the "
        "game.")] = 120.0
    grace_period: Annotated[float, msgspec.Meta(ge=0, le=3600), about(
        "Seconds a player who left has to come back before a bot takes the "
        "seat.")] = 30.0
    turn_clock_seconds: Annotated[int, msgspec.Meta(ge=1, le=600), about(
        "A new table's turn clock when its creator names none.")] = 30
    tables_per_minute: Annotated[int, msgspec.Meta(ge=1, le=1_000_000), about(
        "Tables one client address may create a minute (429 beyond).")] = 30
    sockets_per_address: Annotated[int, msgspec.Meta(ge=1, le=1_000_000), about(
        "WebSockets and event streams one client address may hold open at "
        "once.")] = 64
    sockets_per_minute: Annotated[int, msgspec.Meta(ge=1, le=1_000_000), about(
        "WebSockets and event streams one client address may open a minute (a "
        "burst of a third of it, then that pace), per process: a socket for each "
        "request is refused.")] = 20
    penalty_seconds: Annotated[float, msgspec.Meta(ge=0, le=3600), about(
        "Seconds an address gets no new socket after one of its sockets was closed "
        "for too many refused messages.")] = 10.0
    secret_rotations_per_minute: Annotated[int, msgspec.Meta(ge=1, le=1_000_000), about(
        "Player secrets one client address may rotate a minute (429 beyond).")] = 10
    trusted_proxies: Annotated[str, about(
        "The load balancers whose X-Forwarded-For is believed: addresses or networks "
        "(CIDR), comma-separated.  Empty: nobody's, every client is the address it "
        "connects from.")] = ""
    #: trusted_proxies's old name, still read (not a flag of its own); None: not set.
    forwarded_allow_ips: str | None = None

    # -- evidence: signed checkpoints, receipts, disputes --------------------------
    signing_key_file: Annotated[str | None, about(
        "The site's Ed25519 private key (PEM, PKCS#8) that signs checkpoints and "
        "receipts; readable by muggins only, never in the database.  None: "
        "data_dir/signing-key.pem, made at the first start.  A new file is a key "
        "rotation: the old public key stays listed (docs/fairness.md).")] = None
    checkpoint_interval: Annotated[float, msgspec.Meta(ge=0.1, le=3600), about(
        "Seconds between signed checkpoints of the whole store, while events are "
        "written.")] = 5.0
    operator_token: Annotated[Annotated[str, msgspec.Meta(min_length=16, max_length=256)] | None,
                              about(
        "The secret operators present (Authorization: Bearer ...) to list and "
        "resolve disputes.  None: the operators' pages and API refuse everyone.")] = None

    # -- logs -------------------------------------------------------------------
    log_format: Annotated[LogFormat, about(
        "json (one object a line, every logger), console, or auto (console on a "
        "terminal).")] = "auto"
    log_level: Annotated[Literal["debug", "info", "warning", "error"], about(
        "The least a log line must be to be written.")] = "info"

    def __post_init__(self) -> None:
        check_database_url("database_url", self.database_url)
        check_database_url("migration_database_url", self.migration_database_url)
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

    @property
    def signing_key_path(self) -> Path:
        """Where the site's signing key is (signing_key_file, else in data_dir)."""
        if self.signing_key_file:
            return Path(self.signing_key_file).expanduser().resolve()
        return self.data_path / "signing-key.pem"

    @property
    def site_url(self) -> str:
        """Where people reach the site, for share and watch links: public_url,
        else where this process listens (never "every interface", which says
        nothing of how to reach it)."""
        if self.public_url:
            return self.public_url
        host = ("localhost" if self.listen_host in ("0.0.0.0", "::", "")
                else self.listen_host)
        return f"http://{host}:{self.listen_port}"


def with_values(settings: Settings, values: Mapping[str, object]) -> Settings:
    """``settings`` with ``values`` (setting name -> value or its text) on top,
    checked as every setting is; SettingsError names a bad one."""
    merged = {**msgspec.structs.asdict(settings), **values}
    try:
        # Not strict: a flag's or a variable's value is text, "3" must become 3.
        return msgspec.convert(merged, Settings, strict=False)
    except msgspec.ValidationError as error:
        raise SettingsError(f"invalid setting: {error}") from None


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


#: Settings that no longer do anything, and why: a config file that still
#: has one loads with a warning, not a refusal.
RETIRED: dict[str, str] = {
    "consumer_ack_wait": "the projectors wake on the relay's bell, with no consumer to ack",
    "consumer_max_ack_pending": "the projectors wake on the relay's bell, with no consumer",
}

#: Every setting's environment variable (``environment_variable``) and the setting.
ENVIRONMENT: dict[str, str] = {
    environment_variable(name): name for name in Settings.__struct_fields__
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
        for name, why in RETIRED.items():
            if values.pop(name, None) is not None:
                warnings.warn(f"{path}: setting {name} no longer does anything ({why}): "
                              "remove it", stacklevel=2)
    for name, why in RETIRED.items():
        # Said, not ignored: a deployment that still sets it is told to drop it.
        if environ.get(environment_variable(name)):
            warnings.warn(f"{environment_variable(name)}: setting {name} no longer does anything "
                          f"({why}): remove it", stacklevel=2)
    for variable, field in ENVIRONMENT.items():
        if environ.get(variable):
            values[field] = environ[variable]
    try:
        # Not strict: an environment variable is text, "3" must become 3.
        return msgspec.convert(values, Settings, strict=False)
    except msgspec.ValidationError as error:
        raise SettingsError(f"invalid setting: {error}") from None
