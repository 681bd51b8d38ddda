from __future__ import annotations

import io
import json
import re
from pathlib import Path

import msgspec
import pytest
import structlog

from muggins.infra.logs import configure_logging, log_context
from muggins.infra.settings import Settings, SettingsError, load_settings, with_values


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


def test_a_retired_setting_in_a_config_file_is_a_warning_not_a_refusal(
    tmp_path: Path,
) -> None:
    config = tmp_path / "muggins.toml"
    config.write_text('consumer_ack_wait = 45\nhand_pause = 2.5\n')
    with pytest.warns(UserWarning, match="consumer_ack_wait no longer does anything"):
        settings = load_settings(environ={"MUGGINS_CONFIG": str(config)})
    assert settings.hand_pause == 2.5


def test_a_retired_setting_in_the_environment_is_a_warning_too() -> None:
    with pytest.warns(UserWarning, match="MUGGINS_CONSUMER_ACK_WAIT: setting consumer_ack_wait "
                                         "no longer does anything"):
        settings = load_settings(environ={"MUGGINS_CONSUMER_ACK_WAIT": "45",
                                          "MUGGINS_HAND_PAUSE": "2.5"})
    assert settings.hand_pause == 2.5


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
        ({"MUGGINS_DATABASE_URL": "mysql://a@db/x"}, "database_url"),
        ({"MUGGINS_DATABASE_URL": "postgresql://a@db/x",
          "MUGGINS_MIGRATION_DATABASE_URL": "db/x"}, "migration_database_url"),
    ],
)
def test_bad_values_name_their_setting(environ: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        load_settings(environ=environ)


@pytest.mark.parametrize("url", ["postgresql://a@db/x", "postgres://a@db/x",
                                 "PostgreSQL://a@db/x", "postgresql:///muggins?host=/run/pg",
                                 "postgresql://a@db1:5432,db2:5433/x"])
def test_every_scheme_the_driver_reads_is_a_database_url(url: str) -> None:
    assert load_settings(environ={"MUGGINS_DATABASE_URL": url}).database_url == url


@pytest.mark.parametrize(("url", "said"), [
    ("mysql://a:secret@db/x", "not mysql://"),
    ("postgresql+asyncpg://a:secret@db/x", "not postgresql+asyncpg://"),
    ("a:secret@db/x", "has no scheme"),
])
def test_a_database_url_of_another_kind_is_refused_without_its_password(
        url: str, said: str) -> None:
    with pytest.raises(SettingsError) as refused:
        load_settings(environ={"MUGGINS_DATABASE_URL": url})
    message = str(refused.value)
    assert "MUGGINS_DATABASE_URL" in message and said in message and "secret" not in message
    with pytest.raises(SettingsError):  # built directly too
        Settings(database_url=url)


def test_the_deploy_readme_lists_every_setting() -> None:
    readme = (Path(__file__).resolve().parents[1] / "deploy" / "README.md").read_text()
    missing = [name for name in Settings.__struct_fields__
               if f"`{name}` (`MUGGINS_{name.upper()}`)" not in readme]
    assert not missing, f"deploy/README.md's settings table lacks {missing}"


def test_the_deploy_readme_gives_each_setting_its_default() -> None:
    """The table's default column against Settings' own defaults (a default
    of None is described in words there: "none: embedded")."""
    readme = (Path(__file__).resolve().parents[1] / "deploy" / "README.md").read_text()
    rows = {match[1]: match[2] for match in re.finditer(
        r"^\| `(\w+)` \(`MUGGINS_\w+`\) \| ([^|]+) \|", readme, re.MULTILINE)}
    wrong = []
    for name in Settings.__struct_fields__:
        default = getattr(Settings(), name)
        if default is None or default == "":  # described in words ("none: ...")
            continue
        cell = rows[name].strip().strip("`").split(" (")[0]
        if cell.endswith(" GiB"):
            cell = str(int(cell.removesuffix(" GiB")) * 1024**3)
        told = str(default).lower() if isinstance(default, bool) else (
            f"{default:g}" if isinstance(default, float) else str(default))
        if cell != told:
            wrong.append(f"{name}: README {rows[name].strip()!r}, Settings {default!r}")
    assert not wrong, "deploy/README.md's defaults differ:\n" + "\n".join(wrong)


def test_values_on_top_of_settings_are_checked_as_settings() -> None:
    settings = Settings(public_url="https://muggins.example", bot_delay=0.3)
    changed = with_values(settings, {"bot_delay": "0.1", "role": "spectators"})
    assert changed.bot_delay == 0.1 and changed.role == "spectators"
    assert changed.public_url == "https://muggins.example" and changed.hand_pause == 2.0
    with pytest.raises(SettingsError, match="bot_delay"):
        with_values(settings, {"bot_delay": "11"})
    with pytest.raises(SettingsError, match="db_pool_min"):
        with_values(settings, {"db_pool_min": 20})


def test_serve_flags_are_made_from_the_settings() -> None:
    from click.testing import CliRunner

    from muggins.cli import SERVE_FLAGS, main

    runner = CliRunner()
    shown = " ".join(runner.invoke(main, ["serve", "--help"], terminal_width=1000)
                     .output.split())
    described = msgspec.inspect.type_info(Settings)
    assert isinstance(described, msgspec.inspect.StructType)
    fields = {field.name: field for field in described.fields}
    for name, flag in SERVE_FLAGS.items():
        field = fields[name]
        assert isinstance(field.type, msgspec.inspect.Metadata)
        about = " ".join((field.type.extra_json_schema or {})["description"].split())
        assert f"{about} [setting {name}, MUGGINS_{name.upper()}; default" in shown, name
        assert (flag or f"--{name.replace('_', '-')}") in shown
    refused = runner.invoke(main, ["serve", "--bot-delay", "11"])
    assert refused.exit_code == 2 and "bot_delay" in refused.output and "10" in refused.output
    refused = runner.invoke(main, ["serve", "--role", "referee"])
    assert refused.exit_code == 2 and "setting role" in refused.output


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


@pytest.mark.parametrize("variable", ["MUGGINS_STREAM_MAX_AGE", "MUGGINS_STREAM_DUPLICATE_WINDOW"])
def test_no_endless_durations(variable: str) -> None:
    with pytest.raises(SettingsError, match=variable.removeprefix("MUGGINS_").lower()):
        load_settings(environ={variable: "inf"})


def test_share_links_never_point_at_every_interface() -> None:
    assert Settings(listen_host="0.0.0.0", listen_port=8000).site_url == "http://localhost:8000"
    assert Settings(public_url="https://m.example").site_url == "https://m.example"
