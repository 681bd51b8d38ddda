from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import structlog

from muggins.logs import configure_logging, log_context
from muggins.settings import Settings, SettingsError, load_settings


def test_defaults_start_embedded_servers() -> None:
    settings = load_settings(environ={})
    assert settings.database_url is None and settings.nats_url is None
    assert settings.data_path == (Path.cwd() / ".muggins").resolve()


def test_environment_overrides_the_config_file(tmp_path: Path) -> None:
    config = tmp_path / "muggins.toml"
    config.write_text('database_url = "postgresql://a@db/x"\nlog_format = "json"\n')
    settings = load_settings(
        environ={"MUGGINS_CONFIG": str(config), "MUGGINS_NATS_URL": "nats://bus:4222",
                 "MUGGINS_LOG_FORMAT": "console"}
    )
    assert settings == Settings(
        database_url="postgresql://a@db/x", nats_url="nats://bus:4222", log_format="console"
    )


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"MUGGINS_LOG_FORMAT": "xml"}, "invalid setting"),
        ({"MUGGINS_CONFIG": "/nonexistent/muggins.toml"}, "does not exist"),
    ],
)
def test_bad_settings_are_clear_errors(environ: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        load_settings(environ=environ)


def test_unknown_config_keys_are_refused(tmp_path: Path) -> None:
    config = tmp_path / "muggins.toml"
    config.write_text('databse_url = "typo"\n')
    with pytest.raises(SettingsError, match="databse_url"):
        load_settings(environ={"MUGGINS_CONFIG": str(config)})


def test_json_logs_carry_the_bound_context() -> None:
    out = io.StringIO()
    configure_logging("json", "info", stream=out)
    log = structlog.get_logger("test")
    with log_context(table="t-1", hand=3, seat=2, correlation_id="c-9"):
        log.info("tile played", tile="6-4")
    log.info("outside")
    first, second = (json.loads(line) for line in out.getvalue().splitlines())
    assert first["table"] == "t-1" and first["hand"] == 3 and first["seat"] == 2
    assert first["correlation_id"] == "c-9" and first["event"] == "tile played"
    assert "table" not in second


def test_console_logs_are_readable() -> None:
    out = io.StringIO()
    configure_logging("console", "info", stream=out)
    with log_context(table="t-2"):
        structlog.get_logger("test").info("hello")
    assert "hello" in out.getvalue() and "table" in out.getvalue()
