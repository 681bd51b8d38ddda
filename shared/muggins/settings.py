"""Configuration: from a TOML file and MUGGINS_* environment variables.

With no server URLs configured, muggins starts real PostgreSQL and NATS
servers itself (``muggins.embedded``), with their data in ``data_dir``.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

import msgspec

LogFormat = Literal["auto", "console", "json"]


class SettingsError(ValueError):
    """A configuration value that cannot be used; the message names it."""


class Settings(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
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
    log_format: LogFormat = "auto"
    log_level: Literal["debug", "info", "warning", "error"] = "info"

    def __post_init__(self) -> None:
        if self.migration_database_url is not None and self.database_url is None:
            raise SettingsError(
                "migration_database_url needs database_url: the embedded server "
                "(no database_url) makes its own roles and URLs"
            )

    @property
    def data_path(self) -> Path:
        return Path(self.data_dir).expanduser().resolve()


_ENVIRONMENT = {
    "MUGGINS_DATABASE_URL": "database_url",
    "MUGGINS_MIGRATION_DATABASE_URL": "migration_database_url",
    "MUGGINS_NATS_URL": "nats_url",
    "MUGGINS_DATA_DIR": "data_dir",
    "MUGGINS_LOG_FORMAT": "log_format",
    "MUGGINS_LOG_LEVEL": "log_level",
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
    for variable, field in _ENVIRONMENT.items():
        if environ.get(variable):
            values[field] = environ[variable]
    try:
        return msgspec.convert(values, Settings)
    except msgspec.ValidationError as error:
        raise SettingsError(f"invalid setting: {error}") from None
