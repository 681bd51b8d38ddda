"""The replay and audit tool: rebuild, verify, export, tampering caught."""

from __future__ import annotations

import json
import os
from pathlib import Path

import asyncpg
import msgspec
import pytest

from muggins.eventstore.store import EventStore
from muggins.replay.record import RecordError, StoredEvent, hands_of
from muggins.replay.show import show_lines
from muggins.replay.source import encode_record, export_hand, load_game, read_record
from muggins.replay.verify import (
    GameVerdict,
    Problem,
    check_stream_order,
    rebuilt_hands,
    verify_game,
    verify_record,
)
from muggins.rules.events import TilePlayed
from muggins.rules.presets import PRESETS, seatings
from tests.replays.games import store_game
from tests.support.replays import first_version, tamper

SEATINGS = [(name, seats, partners) for name in PRESETS for seats, partners in seatings(name)]
GOLDEN = Path(__file__).parent / "golden"
EXAMPLES = Path(__file__).resolve().parents[2] / "replays" / "examples"


@pytest.mark.parametrize(("name", "seats", "partners"), SEATINGS)
async def test_every_preset_stored_exported_and_verified(
    store: EventStore, tmp_path: Path, name: str, seats: int, partners: bool
) -> None:
    table = f"{name}-{seats}{'p' if partners else ''}"
    stored = await store_game(store, table, name, seats, partners, bot="random")
    verdict = verify_game(stored)
    assert verdict.ok, verdict.problems
    assert {h.status for h in verdict.hands} == {"fair"}
    for part in hands_of(stored):
        record = export_hand(stored, table, part.hand)
        path = tmp_path / f"{table}-{part.hand}.json"
        path.write_bytes(encode_record(record))
        again = verify_record(read_record(path))
        assert again.ok, again.problems
        assert again.rebuilt == tuple(e.event for e in stored[part.start : part.stop])


def rules_problem(verdict: GameVerdict) -> Problem:
    """The first problem the rules found (the hash chain reports first, in the
    stream's problems, the same event as the first changed one)."""
    return next(p for h in verdict.hands for p in h.problems)


def chain_caught(verdict: GameVerdict, version: int) -> bool:
    first = verdict.problems[0]
    return first.version == version and "is the first changed event" in first.message


async def test_a_changed_score_is_caught_and_named(store: EventStore, pool: asyncpg.Pool) -> None:
    await store_game(store, "t-score", "playelephant")
    version = await first_version(pool, "t-score", "PointsScored")
    await tamper(pool, """UPDATE events SET payload = jsonb_set(payload, '{points}',
                         to_jsonb((payload->>'points')::int + 5))
                         WHERE stream_id = 't-score' AND stream_version = $1""", version)
    verdict = verify_game(await load_game(store, "t-score"))
    assert not verdict.ok
    assert chain_caught(verdict, version)
    problem = rules_problem(verdict)
    assert problem.version == version
    assert "the score the rules give" in problem.message and "points is" in problem.message


async def test_a_changed_tile_is_caught_and_named(store: EventStore, pool: asyncpg.Pool) -> None:
    stored = await store_game(store, "t-tile", "muggins")
    played = next(
        e for e in stored if isinstance(e.event, TilePlayed) and e.event.end is not None
    )
    await tamper(pool, """UPDATE events SET payload = jsonb_set(payload, '{tile}', '[6, 6]')
                         WHERE stream_id = 't-tile' AND stream_version = $1""", played.version)
    verdict = verify_game(await load_game(store, "t-tile"))
    assert not verdict.ok
    assert verdict.problems[0].version == played.version
    assert "6-6" in verdict.problems[0].message


async def test_a_deleted_draw_is_caught_and_named(store: EventStore, pool: asyncpg.Pool) -> None:
    await store_game(store, "t-draw", "playelephant")
    version = await first_version(pool, "t-draw", "TileDrawn")
    await tamper(pool, "DELETE FROM events WHERE stream_id = 't-draw' AND stream_version = $1",
                 version)
    verdict = verify_game(await load_game(store, "t-draw"))
    assert not verdict.ok
    assert f"version {version} is missing" in str(verdict.stream_problems[0])
    hand_problem = next(p for h in verdict.hands for p in h.problems)
    assert hand_problem.version == version + 1
    assert "draws" in hand_problem.message


async def test_a_deleted_draw_with_versions_renumbered_is_still_caught(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    await store_game(store, "t-renum", "playelephant")
    version = await first_version(pool, "t-renum", "TileDrawn")
    async with pool.acquire() as connection, connection.transaction():
        await connection.execute("ALTER TABLE events DISABLE TRIGGER events_append_only_rows")
        await connection.execute(
            "DELETE FROM events WHERE stream_id = 't-renum' AND stream_version = $1", version
        )
        await connection.execute(
            "UPDATE events SET stream_version = stream_version - 1 "
            "WHERE stream_id = 't-renum' AND stream_version > $1", version
        )
        await connection.execute("ALTER TABLE events ENABLE TRIGGER events_append_only_rows")
    verdict = verify_game(await load_game(store, "t-renum"))
    assert not check_stream_order(await load_game(store, "t-renum"))  # the numbering looks fine,
    assert chain_caught(verdict, version)  # but the chain shows the change ...
    problem = rules_problem(verdict)  # ... and the rules know a draw belongs there
    assert problem.version == version and "draws" in problem.message


async def test_a_changed_deal_or_seed_is_caught(store: EventStore, pool: asyncpg.Pool) -> None:
    await store_game(store, "t-deal", "all-fives", seats=3)
    deal = await first_version(pool, "t-deal", "TilesDealt")
    await tamper(pool, """UPDATE events SET payload = jsonb_set(payload, '{tiles,0}', '[6, 6]')
                         WHERE stream_id = 't-deal' AND stream_version = $1""", deal)
    verdict = verify_game(await load_game(store, "t-deal"))
    assert chain_caught(verdict, deal)
    assert rules_problem(verdict).version == deal
    assert "the deal the seed gives" in rules_problem(verdict).message

    await store_game(store, "t-seed", "playelephant")
    ended = await first_version(pool, "t-seed", "HandEnded")
    await tamper(
        pool,
        """UPDATE events SET payload = jsonb_set(payload, '{seed}', to_jsonb($2::text))
           WHERE stream_id = 't-seed' AND stream_version = $1""",
        ended,
        "ab" * 32,
    )
    verdict = verify_game(await load_game(store, "t-seed"))
    assert chain_caught(verdict, ended)
    assert rules_problem(verdict).version == ended
    assert "does not match the commitment" in rules_problem(verdict).message


async def test_tampered_files_are_caught(store: EventStore, tmp_path: Path) -> None:
    stored = await store_game(store, "t-file", "playelephant")
    record = json.loads(encode_record(export_hand(stored, "t-file", 1)))

    def check(changed: dict[str, object]) -> str:
        path = tmp_path / "hand.json"
        path.write_text(json.dumps(changed))
        verdict = verify_record(read_record(path))
        assert not verdict.ok
        return " | ".join(str(p) for p in verdict.problems)

    scored = json.loads(json.dumps(record))
    entry = next(e for e in scored["events"] if e["event"]["type"] == "PointsScored")
    entry["event"]["points"] += 1
    assert "the score the rules give" in check(scored)

    without_draw = json.loads(json.dumps(record))
    draw = next(i for i, e in enumerate(without_draw["events"])
                if e["event"]["type"] == "TileDrawn")
    del without_draw["events"][draw]
    assert "missing" in check(without_draw)

    other_tile = json.loads(json.dumps(record))
    play = next(e for e in other_tile["events"]
                if e["event"]["type"] == "TilePlayed" and e["event"]["end"] is not None)
    play["event"]["tile"] = [0, 0] if play["event"]["tile"] != [0, 0] else [6, 6]
    assert check(other_tile).startswith(f"hand 1, event {play['version']}")


def test_a_file_from_another_algorithm_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.json"
    path.write_text(json.dumps({"format": "muggins-hand-record", "format_version": 1,
                                "shuffle_version": 2, "events": []}))
    with pytest.raises(RecordError, match="shuffle algorithm version 2"):
        read_record(path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "is not JSON"),
        ('{"format": "something-else"}', "not a muggins hand record"),
        ('{"format": "muggins-hand-record", "hand": "one"}', "not a valid hand record"),
    ],
)
def test_bad_files_are_clear_errors(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(RecordError, match=message):
        read_record(path)


def test_a_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="cannot read"):
        read_record(tmp_path / "nothing.json")


async def test_unfinished_hands_are_reported_not_failed(store: EventStore) -> None:
    stored = await store_game(store, "t-open", "playelephant")
    cut = next(i for i, e in enumerate(stored) if type(e.event).__name__ == "HandEnded")
    partial: list[StoredEvent] = stored[: cut - 2]
    verdict = verify_game(partial)
    assert verdict.ok and verdict.hands[-1].status == "unfinished"
    with pytest.raises(RecordError, match="still being played"):
        export_hand(partial, "t-open", verdict.hands[-1].hand)


@pytest.mark.parametrize(
    ("name", "seats", "partners"),
    [("playelephant", 2, False), ("five-up", 4, True), ("muggins", 3, False)],
)
async def test_show_matches_golden(
    store: EventStore, name: str, seats: int, partners: bool
) -> None:
    table = f"g-{name}-{seats}"
    stored = await store_game(store, table, name, seats, partners, seed="golden")
    text = ""
    for before, verdict in rebuilt_hands(stored, 2):
        text += "\n".join(show_lines(before, verdict)) + "\n"
    path = GOLDEN / f"show-{name}-{seats}{'p' if partners else ''}-hand2.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()


def test_the_kept_example_records_verify() -> None:
    examples = sorted(EXAMPLES.glob("*.json"))
    assert len(examples) >= 4
    presets = set()
    for path in examples:
        record = read_record(path)
        verdict = verify_record(record)
        assert verdict.ok, (path.name, verdict.problems)
        presets.add(record.ruleset.preset)
    assert len(presets) >= 4


def test_records_round_trip_through_json(tmp_path: Path) -> None:
    examples = sorted(EXAMPLES.glob("*.json"))
    record = read_record(examples[0])
    assert msgspec.json.decode(encode_record(record)) == msgspec.json.decode(
        examples[0].read_bytes()
    )
