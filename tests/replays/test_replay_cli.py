"""`muggins replay ...` as an operator and a player use it."""

from __future__ import annotations

import json
from pathlib import Path

import asyncpg
import pytest
from click.testing import CliRunner

from muggins.cli import main
from muggins.domain.streams import game_stream
from muggins.eventstore.store import EventStore
from muggins.replay.record import hands_of
from tests.replays.games import store_game
from tests.support.replays import first_version, muggins, tamper

EXAMPLES = Path(__file__).resolve().parents[2] / "replays" / "examples"


@pytest.fixture
async def table(store: EventStore) -> str:
    await store_game(store, "cli-game", "playelephant")
    return "cli-game"


#: A table id, as a person sees it in /play/{table}; its games are streams.
REMATCHED = "Rematch2games"


@pytest.fixture
async def rematched(store: EventStore) -> list[int]:
    """A table that played two games; how many hands each game had."""
    hands = []
    for number in (1, 2):
        stored = await store_game(store, game_stream(REMATCHED, number), "playelephant")
        hands.append(len(hands_of(stored)))
    return hands


async def test_verify_show_export_against_the_store(
    table: str, database_url: str, tmp_path: Path
) -> None:
    # Fresh interpreters here (the other calls are forked from one that has
    # imported the command line: see tests.support.replays).
    verified = muggins("replay", "verify", table, "--all", database_url=database_url,
                       fresh=True)
    assert verified.returncode == 0, verified.stderr
    assert "all fair" in verified.stdout and "✓ hand 1" in verified.stdout
    shown = muggins("replay", "show", table, "--hand", "1", database_url=database_url,
                    fresh=True)
    assert shown.returncode == 0
    assert "Hand 1:" in shown.stdout and "open ends" in shown.stdout
    assert "seed revealed" in shown.stdout and "rounded" in shown.stdout
    exported = muggins("replay", "export", table, "--hand", "1", database_url=database_url,
                       fresh=True)
    assert exported.returncode == 0
    path = tmp_path / "hand.json"
    path.write_text(exported.stdout)
    from_file = muggins("replay", "verify", "--file", str(path), database_url=database_url)
    assert from_file.returncode == 0 and "all fair" in from_file.stdout
    record = json.loads(exported.stdout)
    scored = next(e for e in record["events"] if e["event"]["type"] == "PointsScored")
    scored["event"]["points"] += 10
    path.write_text(json.dumps(record))
    tampered = muggins("replay", "verify", "--file", str(path), database_url=database_url,
                       fresh=True)
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


async def test_a_table_id_names_every_game_played_at_the_table(
    rematched: list[int], database_url: str
) -> None:
    every = muggins("replay", "verify", REMATCHED, database_url=database_url)
    assert every.returncode == 0, every.stderr
    assert "=== game 1 ===" in every.stdout and "=== game 2 ===" in every.stdout
    assert f"table {REMATCHED}, 2 games: {sum(rematched)} hand(s) checked, all fair" in every.stdout
    assert every.stdout.count("✓ hand") == sum(rematched)

    second = muggins("replay", "verify", REMATCHED, "--game", "2", database_url=database_url)
    assert second.returncode == 0, second.stderr
    assert "=== game" not in second.stdout
    assert f"table {REMATCHED}, game 2: {rematched[1]} hand(s) checked, all fair" in second.stdout

    third = muggins("replay", "verify", REMATCHED, "--game", "3", database_url=database_url)
    assert third.returncode == 1
    assert f"table '{REMATCHED}' has no game 3: it has games 1 to 2" in third.stderr

    shown = muggins("replay", "show", REMATCHED, database_url=database_url)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.index("=== game 1 ===") < shown.stdout.index("=== game 2 ===")
    assert shown.stdout.count("Hand 1:") == 2


async def test_one_hand_of_a_table_with_several_games_needs_its_game(
    rematched: list[int], database_url: str, tmp_path: Path
) -> None:
    unsaid = muggins("replay", "export", REMATCHED, "--hand", "1", database_url=database_url)
    assert unsaid.returncode == 2
    assert f"table '{REMATCHED}' has 2 games: add --game N" in unsaid.stderr
    stepping = muggins("replay", "show", REMATCHED, "--step", database_url=database_url)
    assert stepping.returncode == 2 and "add --game N" in stepping.stderr

    exported = muggins(
        "replay", "export", REMATCHED, "--hand", "1", "--game", "2", database_url=database_url
    )
    assert exported.returncode == 0, exported.stderr
    assert json.loads(exported.stdout)["table"] == game_stream(REMATCHED, 2)
    path = tmp_path / "hand.json"
    path.write_text(exported.stdout)
    from_file = muggins("replay", "verify", "--file", str(path), database_url=database_url)
    assert from_file.returncode == 0 and "all fair" in from_file.stdout
    with_game = muggins(
        "replay", "verify", "--file", str(path), "--game", "1", database_url=database_url
    )
    assert with_game.returncode == 2


async def test_a_table_with_one_game_needs_no_game_number(
    store: EventStore, database_url: str
) -> None:
    await store_game(store, game_stream("Single1", 1), "playelephant")
    exported = muggins("replay", "export", "Single1", "--hand", "1", database_url=database_url)
    assert exported.returncode == 0, exported.stderr
    assert json.loads(exported.stdout)["hand"] == 1
    verified = muggins("replay", "verify", "Single1", database_url=database_url)
    assert verified.returncode == 0
    assert "table Single1, game 1:" in verified.stdout and "all fair" in verified.stdout
    missing = muggins("replay", "verify", "Nosuch12", database_url=database_url)
    assert missing.returncode == 1 and "there is no table 'Nosuch12'" in missing.stderr


async def test_a_tampered_later_game_fails_the_table_and_is_named(
    rematched: list[int], pool: asyncpg.Pool, database_url: str
) -> None:
    stream = game_stream(REMATCHED, 2)
    version = await first_version(pool, stream, "PointsScored")
    await tamper(pool, """UPDATE events SET payload = jsonb_set(payload, '{points}',
                         to_jsonb((payload->>'points')::int + 5))
                         WHERE stream_id = $1 AND stream_version = $2""", stream, version)
    verified = muggins("replay", "verify", REMATCHED, database_url=database_url)
    assert verified.returncode == 1
    assert "PROBLEMS FOUND in game 2" in verified.stdout
    game_two = verified.stdout.split("=== game 2 ===")[1]
    assert f"event {version}" in game_two and "✗" in game_two
    assert "✗" not in verified.stdout.split("=== game 2 ===")[0]
    first = muggins("replay", "verify", REMATCHED, "--game", "1", database_url=database_url)
    assert first.returncode == 0


async def test_the_old_names_still_work(store: EventStore, database_url: str) -> None:
    recorded = muggins(
        "simulate", "--seed", "old", "--games", "2", "--record", "sim", database_url=database_url
    )
    assert recorded.returncode == 0, recorded.stderr
    assert "recorded table sim-2" in recorded.stdout
    simulated = muggins("replay", "verify", "sim-2", database_url=database_url)
    assert simulated.returncode == 0, simulated.stderr
    assert "table sim-2: " in simulated.stdout and "all fair" in simulated.stdout

    await store_game(store, "abc-g1", "playelephant")
    await store_game(store, game_stream(REMATCHED, 1), "playelephant")
    for stream in ("abc-g1", game_stream(REMATCHED, 1)):
        verified = muggins("replay", "verify", stream, database_url=database_url)
        assert verified.returncode == 0, verified.stderr
        assert f"table {stream}: " in verified.stdout and "all fair" in verified.stdout
        exported = muggins("replay", "export", stream, "--hand", "1", database_url=database_url)
        assert exported.returncode == 0, exported.stderr
        assert json.loads(exported.stdout)["table"] == stream
