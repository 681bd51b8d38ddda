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


def test_every_setting_comes_from_the_environment_as_its_type() -> None:
    settings = load_settings(environ={
        "MUGGINS_STREAM_REPLICAS": "3", "MUGGINS_BOT_DELAY": "0.25",
        "MUGGINS_PROJECTORS_IN_PROCESS": "false", "MUGGINS_LISTEN_PORT": "9000",
        "MUGGINS_PUBLIC_URL": "https://muggins.example", "MUGGINS_ROLE": "spectators"})
    assert settings.stream_replicas == 3 and settings.bot_delay == 0.25
    assert settings.projectors_in_process is False and settings.listen_port == 9000
    assert settings.role == "spectators"


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"MUGGINS_STREAM_REPLICAS": "7"}, "stream_replicas"),
        ({"MUGGINS_BOT_DELAY": "soon"}, "bot_delay"),
        ({"MUGGINS_STREAM_NAME": "has spaces"}, "stream_name"),
        ({"MUGGINS_DB_POOL_MIN": "20"}, "db_pool_min"),
    ],
)
def test_bad_values_name_their_setting(environ: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        load_settings(environ=environ)


def test_the_deploy_readme_lists_every_setting() -> None:
    readme = (Path(__file__).resolve().parents[1] / "deploy" / "README.md").read_text()
    missing = [name for name in Settings.__struct_fields__
               if f"`{name}` (`MUGGINS_{name.upper()}`)" not in readme]
    assert not missing, f"deploy/README.md's settings table lacks {missing}"


def test_service_options_from_settings_with_flags_on_top() -> None:
    from muggins.tables.runtime import ServiceOptions

    settings = Settings(public_url="https://muggins.example", bot_delay=0.3, role="spectators",
                        projectors_in_process=False, turn_clock_seconds=45)
    options = ServiceOptions.from_settings(settings, bot_delay=0.1, hand_pause=None)
    assert options.base_url == "https://muggins.example" and options.bot_delay == 0.1
    assert options.hand_pause == 2.0 and options.role == "spectators"
    assert options.projectors is False and options.turn_clock_seconds == 45


def test_standard_library_loggers_write_json_lines_too() -> None:
    import logging

    out = io.StringIO()
    configure_logging("json", "info", stream=out)
    try:
        raise ValueError("boom")
    except ValueError:
        logging.getLogger("asyncpg.pool").warning("a library's warning", exc_info=True)
    line = json.loads(out.getvalue().strip())
    assert line["event"] == "a library's warning" and line["logger"] == "asyncpg.pool"
    assert "ValueError: boom" in line["exception"]


def test_a_duplicate_window_longer_than_the_stream_keeps_is_refused() -> None:
    with pytest.raises(SettingsError, match="stream_duplicate_window"):
        load_settings(environ={"MUGGINS_STREAM_MAX_AGE": "600"})
    assert load_settings(environ={"MUGGINS_STREAM_MAX_AGE": "0"}).stream_max_age == 0


@pytest.mark.parametrize("variable", ["MUGGINS_STREAM_MAX_AGE", "MUGGINS_CONSUMER_ACK_WAIT"])
def test_no_endless_durations(variable: str) -> None:
    with pytest.raises(SettingsError, match=variable.removeprefix("MUGGINS_").lower()):
        load_settings(environ={variable: "inf"})


def test_share_links_never_point_at_every_interface() -> None:
    from muggins.tables.runtime import ServiceOptions

    options = ServiceOptions.from_settings(Settings(listen_host="0.0.0.0", listen_port=8000))
    assert options.base_url == "http://localhost:8000"
