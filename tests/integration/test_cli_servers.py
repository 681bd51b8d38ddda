"""`muggins up`, `muggins down` and `muggins db upgrade` with real servers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from muggins.eventstore.migrations import MIGRATIONS
from muggins.infra.embedded import PASSWORDS_FILE, EmbeddedNats, EmbeddedPostgres
from muggins.infra.sql import migration_files


def muggins(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "muggins.cli", *args],
        capture_output=True, text=True, env={**os.environ, **env}, timeout=120, check=False,
    )


def test_up_prints_where_everything_is_and_down_stops_it(tmp_path: Path) -> None:
    env = {"MUGGINS_DATA_DIR": str(tmp_path), "MUGGINS_LOG_FORMAT": "json"}
    env.pop("MUGGINS_DATABASE_URL", None)
    up = muggins("up", env=env)
    assert up.returncode == 0, up.stderr
    assert "postgresql://" in up.stdout and "nats://" in up.stdout
    passwords = json.loads((tmp_path / PASSWORDS_FILE).read_text())
    assert passwords and not any(str(p) in up.stdout for p in passwords.values()), \
        "the passwords stay in their file"
    assert EmbeddedNats(tmp_path).running_pid() is not None
    again = muggins("up", env=env)  # already up: reused, same addresses
    assert again.returncode == 0 and again.stdout == up.stdout
    upgrade = muggins("db", "upgrade", env=env)
    assert upgrade.returncode == 0 and "up to date" in upgrade.stdout
    down = muggins("down", env=env)
    assert down.returncode == 0, down.stderr
    assert EmbeddedNats(tmp_path).running_pid() is None
    assert EmbeddedPostgres(tmp_path).running_port(tmp_path / "postgres") is None


def test_db_upgrade_against_a_configured_server(blank_database_url: str, tmp_path: Path
                                                ) -> None:
    env = {"MUGGINS_DATABASE_URL": blank_database_url, "MUGGINS_DATA_DIR": str(tmp_path)}
    first = muggins("db", "upgrade", env=env)
    assert first.returncode == 0, first.stderr
    every = [version for version, _, _ in migration_files(MIGRATIONS)]
    assert f"applied migrations {every}" in first.stdout
    second = muggins("db", "upgrade", env=env)
    assert "up to date" in second.stdout
    assert not (tmp_path / "postgres").exists(), "a configured server must not start one"


def test_unreachable_configured_database_is_a_clear_error(tmp_path: Path) -> None:
    env = {"MUGGINS_DATABASE_URL": "postgresql://postgres@127.0.0.1:9/x",
           "MUGGINS_DATA_DIR": str(tmp_path)}
    result = muggins("db", "upgrade", env=env)
    assert result.returncode == 1
    assert "cannot reach PostgreSQL at 127.0.0.1:9/x" in result.stderr
