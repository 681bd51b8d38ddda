"""`muggins replay ...` as an operator and a player use it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from muggins.cli import main
from muggins.eventstore.store import EventStore
from tests.replays.games import store_game

EXAMPLES = Path(__file__).resolve().parents[2] / "replays" / "examples"


def muggins(*args: str, database_url: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MUGGINS_DATABASE_URL": database_url, "MUGGINS_LOG_LEVEL": "warning"}
    return subprocess.run(
        [sys.executable, "-m", "muggins.cli", *args],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )


@pytest.fixture
async def table(store: EventStore) -> str:
    await store_game(store, "cli-game", "playelephant")
    return "cli-game"


async def test_verify_show_export_against_the_store(
    table: str, database_url: str, tmp_path: Path
) -> None:
    verified = muggins("replay", "verify", table, "--all", database_url=database_url)
    assert verified.returncode == 0, verified.stderr
    assert "all fair" in verified.stdout and "✓ hand 1" in verified.stdout
    shown = muggins("replay", "show", table, "--hand", "1", database_url=database_url)
    assert shown.returncode == 0
    assert "Hand 1:" in shown.stdout and "open ends" in shown.stdout
    assert "seed revealed" in shown.stdout and "rounded" in shown.stdout
    exported = muggins("replay", "export", table, "--hand", "1", database_url=database_url)
    assert exported.returncode == 0
    path = tmp_path / "hand.json"
    path.write_text(exported.stdout)
    from_file = muggins("replay", "verify", "--file", str(path), database_url=database_url)
    assert from_file.returncode == 0 and "all fair" in from_file.stdout
    record = json.loads(exported.stdout)
    scored = next(e for e in record["events"] if e["event"]["type"] == "PointsScored")
    scored["event"]["points"] += 10
    path.write_text(json.dumps(record))
    tampered = muggins("replay", "verify", "--file", str(path), database_url=database_url)
    assert tampered.returncode == 1 and "PROBLEMS FOUND" in tampered.stdout
    assert f"event {scored['version']}" in tampered.stdout


async def test_clear_errors(table: str, database_url: str, tmp_path: Path) -> None:
    missing = muggins("replay", "verify", "no-such-table", database_url=database_url)
    assert missing.returncode == 1 and "there is no table 'no-such-table'" in missing.stderr
    no_hand = muggins("replay", "export", table, "--hand", "99", database_url=database_url)
    assert no_hand.returncode == 1 and "no hand 99" in no_hand.stderr
    both = muggins("replay", "verify", table, "--file", "x.json", database_url=database_url)
    assert both.returncode == 2 and "not both" in both.stderr
    mixed = muggins("replay", "verify", table, "--hand", "1", "--all", database_url=database_url)
    assert mixed.returncode == 2


def test_step_mode_goes_forward_and_back() -> None:
    example = sorted(EXAMPLES.glob("playelephant-*.json"))[0]
    runner = CliRunner()
    result = runner.invoke(
        main, ["replay", "show", "--file", str(example), "--step"], input="nnnpq"
    )
    assert result.exit_code == 0, result.output
    steps = [line for line in result.output.splitlines() if line.startswith("step ")]
    numbers = [int(line.split()[1].split("/")[0]) for line in steps]
    assert numbers == [1, 2, 3, 4, 3]
    assert "seat 0:" in result.output and "scores:" in result.output


def test_show_from_a_file_needs_no_server() -> None:
    example = sorted(EXAMPLES.glob("classic-muggins-*.json"))[0]
    result = CliRunner().invoke(main, ["replay", "show", "--file", str(example)])
    assert result.exit_code == 0
    assert "calling muggins" in result.output
