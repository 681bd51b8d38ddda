"""docs/check_evidence.py, the standalone checker of evidence files, against
the project's own chain and signing code: synthetic files built here with
muggins.eventstore and muggins.evidence must pass it, and every kind of
tampering docs/fairness.md promises to show must be named by it."""

from __future__ import annotations

import copy
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import msgspec
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from muggins.eventstore.records import (
    GENESIS_CHAIN,
    canonical_json,
    chain_link,
    event_digest,
    global_link,
)
from muggins.evidence.documents import sign_checkpoint, sign_receipt, signed_bytes
from muggins.evidence.signing import SiteKey

#: One worker builds this module's played games once (its module-wide fixtures).
pytestmark = pytest.mark.xdist_group("evidence-checker")

ZERO = GENESIS_CHAIN.hex()
CHECKER_PATH = Path(__file__).resolve().parents[2] / "docs" / "check_evidence.py"


def _import_checker() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_evidence", CHECKER_PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


checker = _import_checker()

TABLE = "Tab1x"
GAME = f"{TABLE}-g1"
OTHER = "Oth3r-g1"  # another table's game: only its chain values are exported

#: The store, in position order: (stream, event type, payload).  Positions 1
#: to 3 come before the export; the chosen table's first event is at 4.
HISTORY: list[tuple[str, str, dict[str, Any]]] = [
    (OTHER, "GameStarted", {"players": ["ann", "bob"]}),
    (OTHER, "HandStarted", {"hand": 1}),
    (OTHER, "TilePlayed", {"seat": 0, "tile": [6, 6]}),
    (f"{TABLE}-table", "TableOpened", {"preset": "muggins", "seats": 2}),
    (f"{TABLE}-table", "SeatTaken", {"seat": 0, "name": "José \"Pepe\"\n\\ 🁣 \u0007"}),
    (f"{TABLE}-chat", "ChatSaid", {"seat": 0, "text": "¡hola!"}),
    (OTHER, "TilePlayed", {"seat": 1, "tile": [6, 5]}),
    (GAME, "GameStarted", {"players": ["José", "bot"], "target": 100}),
    (GAME, "HandStarted", {"hand": 1, "commitment": "ab" * 32}),
    (GAME, "TilePlayed", {"seat": 0, "tile": [5, 5], "scored": 10}),
    (OTHER, "TilePlayed", {"seat": 0, "tile": [5, 0]}),
    (GAME, "HandEnded", {"hand": 1, "seed": "cd" * 32, "points": [10, 0]}),  # 12: receipt
    (f"{TABLE}-table", "HandSealed", {"game": 1, "hand": 1, "version": 4}),
    (GAME, "HandStarted", {"hand": 2, "commitment": "ef" * 32}),
    (GAME, "TilePlayed", {"seat": 1, "tile": [3, 2], "scored": 5}),
    (GAME, "HandEnded", {"hand": 2, "seed": "01" * 32, "points": [0, 5]}),
    (GAME, "GameEnded", {"winner": None, "empty": {}, "nested": [[], [{}]]}),  # 17: receipt
    (f"{TABLE}-table", "HandSealed", {"game": 1, "hand": 2, "version": 8}),
    (OTHER, "TilePlayed", {"seat": 1, "tile": [4, 4]}),
    (OTHER, "TilePlayed", {"seat": 0, "tile": [4, 1]}),  # 20: the checkpoint
]
FIRST = 4
RECEIPTS = [(1, 1, 12), (1, 2, 17)]  # game, hand, position of the hand's last event


def _store(history: list[tuple[str, str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """Every event of ``history`` as the store holds it, chained by the project's code."""
    rows = []
    last_chain: dict[str, bytes] = {}
    versions: dict[str, int] = {}
    global_chain = GENESIS_CHAIN
    for position, (stream, event_type, payload) in enumerate(history, start=1):
        version = versions[stream] = versions.get(stream, 0) + 1
        fields: dict[str, Any] = {
            "stream_id": stream, "stream_version": version, "event_type": event_type,
            "audience": "public" if position % 3 else "seat:1", "actor": f"user:{position}",
            "correlation_id": None if position % 2 else f"00000000-0000-4000-8000-{position:012d}",
            "causation_id": None if position % 4 else f"00000000-0000-4000-9000-{position:012d}",
            "event_id": f"10000000-0000-4000-8000-{position:012d}",
        }
        # Any key order and spacing: the digest is of the canonical form.
        digest = event_digest(payload=json.dumps(payload, indent=1), **fields)
        recorded_at = f"2026-12-01T09:30:{position:02d}.{position * 12345 % 10**6:06d}Z"
        previous = last_chain.get(stream, GENESIS_CHAIN)
        chain = last_chain[stream] = chain_link(previous, digest, position, recorded_at)
        global_chain = global_link(global_chain, chain)
        rows.append({**fields, "position": position, "payload": payload,
                     "recorded_at": recorded_at, "previous": previous.hex(),
                     "chain": chain.hex(), "global_chain": global_chain.hex()})
    return rows


def _receipts(key: SiteKey, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [msgspec.to_builtins(sign_receipt(
        key, table=TABLE, game=game, hand=hand, stream=rows[position - 1]["stream_id"],
        version=rows[position - 1]["stream_version"],
        chain=bytes.fromhex(rows[position - 1]["chain"]), position=position,
        global_chain=bytes.fromhex(rows[position - 1]["global_chain"])))
        for game, hand, position in RECEIPTS]


def _checkpoint(key: SiteKey, rows: list[dict[str, Any]]) -> dict[str, Any]:
    checkpoint: dict[str, Any] = msgspec.to_builtins(
        sign_checkpoint(key, len(rows), bytes.fromhex(rows[-1]["global_chain"])))
    return checkpoint


def _evidence(rows: list[dict[str, Any]], key: SiteKey, receipts: list[dict[str, Any]],
              checkpoint: dict[str, Any] | None, first: int = FIRST) -> dict[str, Any]:
    """The evidence file docs/fairness.md defines, of TABLE's events in ``rows``."""
    return {
        "format": "muggins-evidence", "format_version": 1, "table": TABLE,
        "game": None, "hand": None, "exported_at": "2026-12-01T10:00:00.000000Z",
        "events": [dict(row) for row in rows if row["stream_id"].startswith(f"{TABLE}-")],
        "links": {"first": first,
                  "previous_global": rows[first - 2]["global_chain"] if first > 1 else ZERO,
                  "chains": [row["chain"] for row in rows[first - 1:]]},
        "receipts": receipts,
        "checkpoint": checkpoint,
        "keys": [{"key_id": key.key_id, "public_key": key.public_key.hex(),
                  "first_used": "2026-01-01T00:00:00.000000Z"}],
    }


@pytest.fixture(scope="module")
def site_key() -> SiteKey:
    return SiteKey.generate()


@pytest.fixture(scope="module")
def good(site_key: SiteKey) -> dict[str, Any]:
    rows = _store(HISTORY)
    return _evidence(rows, site_key, _receipts(site_key, rows), _checkpoint(site_key, rows))


@pytest.fixture
def document(good: dict[str, Any]) -> dict[str, Any]:
    """A copy of the good file, to tamper with."""
    return copy.deepcopy(good)


def _event(document: dict[str, Any], stream: str, version: int) -> dict[str, Any]:
    return next(event for event in document["events"]
                if event["stream_id"] == stream and event["stream_version"] == version)


def _only(problems: list[str], *words: str) -> str:
    """The one problem found, which must hold every word."""
    assert len(problems) == 1, problems
    for word in words:
        assert word in problems[0], problems
    return problems[0]


def _write(tmp_path: Path, document: object, name: str = "evidence.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return path


# --- A good file ------------------------------------------------------------------------------


def test_a_good_file_passes_every_check(good: dict[str, Any], tmp_path: Path) -> None:
    loaded = checker.load(_write(tmp_path, good))
    assert loaded == good
    findings = checker.examine(loaded)
    assert findings.problems == []
    assert checker.check(loaded) == []
    text = "\n".join(findings.checked)
    assert "keys: 1 listed" in text
    assert "stream chains: 13 events in 3 streams" in text
    assert "links: positions 4 to 20 (17 chain values, 4 of them of events not exported)" in text
    assert "receipt for game 1 hand 1: Tab1x-g1 v4 at position 12" in text
    assert "receipt for game 1 hand 2: Tab1x-g1 v8 at position 17" in text
    assert "checkpoint: position 20" in text
    assert "published keys" in findings.summary


def test_the_checker_hashes_as_the_store_does() -> None:
    """Its canonical JSON and chain are the project's, on awkward text too."""
    content: dict[str, Any] = {
        "z": "José \"Pepe\"\n\\ 🁣 \u0007\u001f\u007f", "a": [1, -2, True, None, {}],
        "m": {"b": 10**18, "a": ""}}
    assert checker._canonical(content) == canonical_json(content)
    row = _store(HISTORY)[4]
    assert checker.event_chain(row) == row["chain"]


def test_without_a_checkpoint_the_links_end_at_the_last_event(site_key: SiteKey) -> None:
    rows = _store(HISTORY)[:18]
    assert checker.check(_evidence(rows, site_key, _receipts(site_key, rows), None)) == []
    # Run on past the last exported event with nothing to end at: not as defined.
    rows = _store(HISTORY)
    _only(checker.check(_evidence(rows, site_key, _receipts(site_key, rows), None)),
          "links run to position 20", "at position 18")


# --- Tampering --------------------------------------------------------------------------------


def test_an_edited_payload_field_names_its_event(document: dict[str, Any]) -> None:
    _event(document, GAME, 3)["payload"]["scored"] = 15
    _only(checker.check(document), "event Tab1x-g1 v3 (position 10, TilePlayed)",
          "does not give its chain value")


def test_an_edited_stored_field_names_its_event(document: dict[str, Any]) -> None:
    _event(document, f"{TABLE}-table", 2)["actor"] = "user:99"
    _only(checker.check(document), "event Tab1x-table v2 (position 5, SeatTaken)")


def test_a_removed_event_shows_as_a_gap(document: dict[str, Any]) -> None:
    document["events"].remove(_event(document, GAME, 3))
    _only(checker.check(document), "event Tab1x-g1 v4 (position 12, HandEnded) follows v2",
          "version 3 is missing")


def test_events_left_out_at_the_front_are_caught(document: dict[str, Any]) -> None:
    """The file holds the table's own streams whole, and its links begin at its first event."""
    document["events"].remove(_event(document, f"{TABLE}-table", 1))
    problems = checker.check(document)
    assert problems == [
        "the file holds Tab1x-table from v2, not whole: version 1 is left out",
        "links start at position 4, but the first exported event is at position 5: the events "
        "from the links' first position on are not all in the file"]
    document["events"] = [event for event in document["events"]
                          if event["stream_id"] != f"{TABLE}-table"]
    assert "the file holds no event of the table stream Tab1x-table" in checker.check(
        document)[0]


def test_a_removed_event_with_the_rest_renumbered_is_named(document: dict[str, Any]) -> None:
    document["events"].remove(_event(document, GAME, 3))
    for event in document["events"]:
        if event["stream_id"] == GAME and event["stream_version"] > 3:
            event["stream_version"] -= 1
    problems = checker.check(document)
    assert problems and all("Tab1x-g1 v3 (position 12" in problem for problem in problems[:2])
    assert "does not follow the event before it" in problems[0]


def test_a_rewritten_history_is_caught_by_the_receipts_and_the_checkpoint(
        good: dict[str, Any], site_key: SiteKey) -> None:
    """Whoever can rewrite the store can recompute every chain, but not sign."""
    history = copy.deepcopy(HISTORY)
    history[9][2]["scored"] = 50  # Tab1x-g1 v3, at position 10
    forged = _evidence(_store(history), site_key, good["receipts"], good["checkpoint"])
    problems = checker.check(forged)
    assert not any("forgery" in problem for problem in problems)
    assert [problem.split(":")[0] for problem in problems] == [
        "the receipt for game 1 hand 1", "the receipt for game 1 hand 1",
        "the receipt for game 1 hand 2", "the receipt for game 1 hand 2",
        "the checkpoint at position 20"]
    assert "global chain recomputed from the links at position 12" in problems[0]


def test_an_edited_receipt_is_a_forgery(document: dict[str, Any]) -> None:
    document["receipts"][1]["hand"] = 3
    problems = checker.check(document)
    assert "the receipt for game 1 hand 3 is a forgery" in problems[0]
    assert "its signature is not the site's" in problems[0]
    # ... and the file no longer holds what its table stream seals.
    assert problems[1:] == [
        "the table stream seals game 1 hand 2, but the file holds no receipt for it (a "
        "receipt was left out)",
        "the receipt for game 1 hand 3 has no seal in the table stream (the table stream "
        "was cut, or the receipt is not of this record)"]


def test_a_receipt_or_a_sealed_hand_end_left_out_is_named(document: dict[str, Any]) -> None:
    left_out = copy.deepcopy(document)
    left_out["receipts"].pop(0)
    _only(checker.check(left_out), "seals game 1 hand 1, but the file holds no receipt")
    cut = copy.deepcopy(document)
    cut["events"] = [e for e in cut["events"]
                     if not (e["stream_id"] == GAME and e["event_type"] == "GameEnded")]
    problems = checker.check(cut)
    assert any("game 1 hand 2 ended at Tab1x-g1 v8, which the file leaves out" in p
               for p in problems), problems


def test_a_receipt_moved_to_another_event_is_a_forgery(document: dict[str, Any]) -> None:
    receipt = document["receipts"][0]
    receipt.update(version=5, position=14, chain=_event(document, GAME, 5)["chain"],
                   global_chain=_event(document, GAME, 5)["global_chain"])
    _only(checker.check(document), "the receipt for game 1 hand 1 is a forgery")


def test_a_receipt_signed_by_another_key_is_a_forgery(
        document: dict[str, Any], site_key: SiteKey) -> None:
    stranger = SiteKey.generate()
    rows = _store(HISTORY)
    # Under its own key id: a key the file does not list.
    document["receipts"][0] = _receipts(stranger, rows)[0]
    # Under the site's key id: a signature that is not the site's.
    document["receipts"][1] = {**_receipts(stranger, rows)[1], "key_id": site_key.key_id}
    document["receipts"][1]["signature"] = stranger.sign(
        checker._canonical({k: v for k, v in document["receipts"][1].items()
                            if k != "signature"})).hex()
    problems = checker.check(document)
    assert len(problems) == 2, problems
    assert problems[0].startswith("the receipt for game 1 hand 1 is a forgery: it names key "
                                  f"{stranger.key_id}, which is not one of the file's keys")
    assert problems[1].startswith("the receipt for game 1 hand 2 is a forgery: its signature "
                                  "is not the site's")


def test_a_signed_bytes_agree_with_the_project(good: dict[str, Any], site_key: SiteKey) -> None:
    rows = _store(HISTORY)
    receipt = sign_receipt(site_key, table=TABLE, game=1, hand=1, stream=GAME, version=4,
                           chain=bytes.fromhex(rows[11]["chain"]), position=12,
                           global_chain=bytes.fromhex(rows[11]["global_chain"]))
    fields = msgspec.to_builtins(receipt)
    del fields["signature"]
    assert checker._canonical(fields) == signed_bytes(receipt)


def test_a_key_whose_id_is_not_its_hash_is_named(document: dict[str, Any]) -> None:
    document["keys"][0]["key_id"] = "0123456789abcdef"
    problems = checker.check(document)
    assert "key 0123456789abcdef is not the id of the public key" in problems[0]
    # Nothing can be checked under it: what names the site's real id names no key.
    assert sum("forgery" in problem for problem in problems) == 3


def test_a_checkpoint_off_the_recomputed_chain_is_caught(
        document: dict[str, Any], site_key: SiteKey) -> None:
    document["checkpoint"] = msgspec.to_builtins(sign_checkpoint(site_key, 20, bytes(32)))
    _only(checker.check(document), "the checkpoint at position 20",
          "not the one the site signed")


def test_an_edited_checkpoint_is_a_forgery(document: dict[str, Any]) -> None:
    document["checkpoint"]["global_chain"] = "00" * 32
    problems = checker.check(document)
    assert problems[0].startswith("the checkpoint is a forgery: its signature is not the site's")
    assert len(problems) == 2  # and it does not match the chain either


def test_links_cut_short_are_caught(document: dict[str, Any]) -> None:
    document["links"]["chains"] = document["links"]["chains"][:-2]
    _only(checker.check(document), "the checkpoint is at position 20",
          "the links end at position 18")
    # Cut into the exported events: those are named too.
    document["links"]["chains"] = document["links"]["chains"][:12]
    problems = checker.check(document)
    assert "event Tab1x-g1 v7 (position 16, HandEnded) lies outside the links" in problems[0]
    assert "(and 2 more outside the links)" in problems[0]
    assert any("the receipt for game 1 hand 2 is at position 17, outside" in problem
               for problem in problems)


def test_a_foreign_chain_value_changed_in_the_links_is_caught(document: dict[str, Any]) -> None:
    document["links"]["chains"][7 - FIRST] = "11" * 32  # position 7: another table's event
    problems = checker.check(document)
    assert "event Tab1x-g1 v1 (position 8, GameStarted): its global chain value" in problems[0]
    assert "(and 9 more" in problems[0]
    assert problems[-1].startswith("the checkpoint at position 20")


def test_a_changed_global_value_is_named(document: dict[str, Any]) -> None:
    _event(document, f"{TABLE}-chat", 1)["global_chain"] = "22" * 32
    _only(checker.check(document), "event Tab1x-chat v1 (position 6, ChatSaid)",
          "its global chain value")


def test_chains_start_from_zero(site_key: SiteKey) -> None:
    """A stream's version 1 and the store's position 1 follow 32 zero bytes."""
    rows = _store(HISTORY[3:])  # the table's first event at position 1
    document = _evidence(rows, site_key, _receipts(site_key, rows),
                         _checkpoint(site_key, rows), first=1)
    assert checker.check(document) == []
    document["links"]["previous_global"] = "33" * 32
    problems = checker.check(document)
    assert problems[0].startswith("links start at position 1, but their previous_global is not")
    _event(document, f"{TABLE}-chat", 1)["previous"] = "44" * 32
    assert "event Tab1x-chat v1 (position 3, ChatSaid) is the stream's first, but its previous" \
        in checker.check(document)[0]


def test_events_out_of_position_order_are_named(document: dict[str, Any]) -> None:
    events = document["events"]
    events[0], events[1] = events[1], events[0]
    _only(checker.check(document), "event Tab1x-table v1 (position 4, TableOpened) comes after "
          "position 5")


def test_names_from_the_file_cannot_print_lines_of_their_own(document: dict[str, Any]) -> None:
    event = _event(document, GAME, 2)
    event["event_type"] = "HandStarted\nOK: all is well"
    problem = _only(checker.check(document), "event Tab1x-g1 v2")
    assert "\n" not in problem and "'HandStarted\\nOK: all is well'" in problem


# --- Files that are not evidence --------------------------------------------------------------


def _refused(path: Path, *words: str) -> str:
    with pytest.raises(checker.EvidenceFileError) as caught:
        checker.load(path)
    message = str(caught.value)
    assert "\n" not in message
    for word in words:
        assert word in message, message
    return message


@pytest.mark.parametrize(("change", "words"), [
    (lambda d: d.update(format="muggins-receipt"), ["format must be 'muggins-evidence'"]),
    (lambda d: d.update(format_version=2), ["format_version must be 1"]),
    (lambda d: d.update(format_version=True), ["format_version must be 1", "boolean"]),
    (lambda d: d.pop("links"), ["the file has no member 'links'"]),
    (lambda d: d["links"].pop("previous_global"), ["links has no member 'previous_global'"]),
    (lambda d: d["events"][2].pop("recorded_at"), ["events[2] has no member 'recorded_at'"]),
    (lambda d: d["events"][0].update(position="4"),
     ["events[0].position must be an integer", "not 4 (a JSON string)"]),
    (lambda d: d["events"][0].update(stream_version=True), ["events[0].stream_version"]),
    (lambda d: d["events"][0].update(payload=[]), ["events[0].payload must be an object"]),
    (lambda d: d["events"][1].update(chain="ab" * 31), ["events[1].chain must be 64 lowercase"]),
    (lambda d: d["events"][1].update(previous=d["events"][1]["previous"].upper()),
     ["events[1].previous must be 64 lowercase hex digits"]),
    (lambda d: d["events"][1].update(recorded_at="2026-12-01 09:30:05Z"),
     ["events[1].recorded_at must be a UTC time"]),
    (lambda d: d["links"]["chains"].append(7), ["links.chains[17] must be 64 lowercase"]),
    (lambda d: d["receipts"][0].update(signature="00" * 63),
     ["receipts[0].signature must be 128 lowercase hex digits"]),
    (lambda d: d["receipts"][1].pop("key_id"), ["receipts[1] has no member 'key_id'"]),
    (lambda d: d["checkpoint"].update(format="muggins-receipt"),
     ["checkpoint.format must be 'muggins-checkpoint'"]),
    (lambda d: d.update(checkpoint=[]), ["checkpoint must be an object"]),
    (lambda d: d["keys"][0].update(public_key="00" * 33), ["keys[0].public_key must be 64"]),
    (lambda d: d.update(events={}), ["events must be a list"]),
    (lambda d: d.update(game=0), ["game must be an integer from 1"]),
])
def test_a_member_missing_or_of_the_wrong_type_is_refused(
        document: dict[str, Any], tmp_path: Path, change: Any, words: list[str]) -> None:
    change(document)
    _refused(_write(tmp_path, document), "evidence.json: ", *words)


def test_files_that_are_not_json_are_refused(good: dict[str, Any], tmp_path: Path) -> None:
    text = json.dumps(good)
    cases = {
        "missing.json": None,
        "empty.json": "  \n",
        "prose.json": "this is not JSON",
        "list.json": "[1, 2]",
        "cut.json": text[: len(text) // 2],
        "cut-in-string.json": text[: text.index("muggins-evidence") + 3],
        "cut-in-null.json": text[: text.index("null") + 2],
        "cut-in-escape.json": text[: text.index("\\u00e9") + 3],
        "broken.json": text.replace("null", "nil", 1),
        "twice.json": '{"format": "muggins-evidence", "format": "x"}',
        "fraction.json": text.replace('"format_version": 1', '"format_version": 1.0'),
        "nan.json": text.replace('"format_version": 1', '"format_version": NaN'),
        "surrogate.json": text.replace('"actor": "user:4"', '"actor": "\\ud800"'),
        "deep.json": "[" * 100_000 + "]" * 100_000,
    }
    for name, content in cases.items():
        if content is not None:
            (tmp_path / name).write_text(content, encoding="utf-8")
    (tmp_path / "latin1.json").write_bytes(b'{"table": "caf\xe9"}')
    _refused(tmp_path / "missing.json", "missing.json: no such file")
    _refused(tmp_path, "is a directory")
    _refused(tmp_path / "empty.json", "is empty")
    _refused(tmp_path / "prose.json", "prose.json is not JSON (Expecting value: line 1 column 1)")
    _refused(tmp_path / "list.json", "it holds a JSON list, not an object")
    _refused(tmp_path / "cut.json", "cut.json is cut short", "not a whole evidence file")
    _refused(tmp_path / "cut-in-string.json", "is cut short (Unterminated string")
    _refused(tmp_path / "cut-in-null.json", "is cut short (Expecting value")
    _refused(tmp_path / "cut-in-escape.json", "is cut short (Invalid \\uXXXX escape")
    _refused(tmp_path / "broken.json", "broken.json is not JSON (Expecting value: line 1")
    _refused(tmp_path / "twice.json", "has the member format twice")
    _refused(tmp_path / "fraction.json", "the number 1.0")
    _refused(tmp_path / "nan.json", "holds NaN")
    _refused(tmp_path / "surrogate.json", "lone surrogate")
    _refused(tmp_path / "deep.json", "nested too deeply")
    _refused(tmp_path / "latin1.json", "not JSON: byte 14 is not UTF-8")


def test_an_oversized_file_is_refused_before_it_is_read(
        good: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path, good)
    monkeypatch.setattr(checker, "MAX_FILE_BYTES", 1000)
    _refused(path, f"is {path.stat().st_size} bytes: an evidence file is at most 1000 bytes")


def test_the_default_size_limit_is_64_mib() -> None:
    assert checker.MAX_FILE_BYTES == 64 * 1024 * 1024


# --- The command ------------------------------------------------------------------------------


def test_the_command_exits_0_1_or_2(good: dict[str, Any], tmp_path: Path) -> None:
    """Run as anyone would: with Python's standard library alone (-S: no site-packages)."""
    def run(path: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-I", "-S", str(CHECKER_PATH), str(path)],
                              capture_output=True, text=True, timeout=60, check=False)

    passed = run(_write(tmp_path, good, "good.json"))
    assert passed.returncode == 0, passed.stderr
    lines = passed.stdout.splitlines()
    assert [line.split(":")[0] for line in lines] == [
        "keys", "stream chains", "links", "global chain", "receipt for game 1 hand 1",
        "receipt for game 1 hand 2", "completeness", "checkpoint", "OK"]
    assert passed.stderr == ""

    bad = copy.deepcopy(good)
    bad["receipts"][0]["game"] = 2
    _event(bad, GAME, 3)["payload"]["scored"] = 15
    failed = run(_write(tmp_path, bad, "bad.json"))
    assert failed.returncode == 1, failed.stderr
    problems = [line for line in failed.stdout.splitlines() if line.startswith("PROBLEM: ")]
    assert failed.stdout.splitlines()[-len(problems):] == problems  # the problems come last
    assert "event Tab1x-g1 v3 (position 10, TilePlayed)" in problems[0]
    assert problems[1].startswith("PROBLEM: the receipt for game 2 hand 1 is a forgery: "
                                  "its signature is not the site's")
    assert "OK" not in failed.stdout

    (tmp_path / "cut.json").write_text(json.dumps(good)[:-40], encoding="utf-8")
    refused = run(tmp_path / "cut.json")
    assert refused.returncode == 2
    assert refused.stdout == ""
    assert refused.stderr.count("\n") == 1 and "Traceback" not in refused.stderr
    assert refused.stderr.startswith("cannot check: ") and "is cut short" in refused.stderr


# --- Ed25519 ----------------------------------------------------------------------------------


def test_ed25519_rfc_8032_test_vector_1() -> None:
    public = bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
    signature = bytes.fromhex(
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e"
        "39701cf9b46bd25bf5f0595bbe24655141438e7a100b")
    private = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(
        "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"))
    assert private.sign(b"") == signature  # the vector as transcribed
    assert checker.ed25519_verify(public, signature, b"")
    assert not checker.ed25519_verify(public, signature, b"\x00")


def test_ed25519_agrees_with_cryptography() -> None:
    for size in (0, 1, 33, 200, 1000):
        key = SiteKey.generate()
        message = bytes(range(256))[:size] * 1
        signature = key.sign(message)
        assert checker.ed25519_verify(key.public_key, signature, message)
        for bit in (0, 5 * 8 + 3, 40 * 8 + 7, 511):  # in R, in S
            flipped = bytearray(signature)
            flipped[bit // 8] ^= 1 << (bit % 8)
            assert not checker.ed25519_verify(key.public_key, bytes(flipped), message)
        if message:
            flipped = bytearray(message)
            flipped[-1] ^= 1
            assert not checker.ed25519_verify(key.public_key, signature, bytes(flipped))
        assert not checker.ed25519_verify(SiteKey.generate().public_key, signature, message)
        # S + L is the same point, but a second encoding of it: refused (no malleability).
        s = int.from_bytes(signature[32:], "little") + checker._L
        assert not checker.ed25519_verify(key.public_key, signature[:32] + s.to_bytes(32, "little"),
                                          message)
        assert not checker.ed25519_verify(key.public_key[:31], signature, message)
        assert not checker.ed25519_verify(key.public_key, signature[:63], message)
