"""Where records come from: the event store, or a hand record file."""

from __future__ import annotations

from pathlib import Path

import msgspec

from muggins.eventstore.store import EventStore
from muggins.replay.record import (
    HandRecord,
    RecordError,
    StateBefore,
    StoredEvent,
    decisions_of,
    record_decoder,
    ruleset_of,
)
from muggins.replay.verify import slice_of
from muggins.rules.events import HandEnded, HandStarted
from muggins.rules.game import fold
from muggins.rules.shuffle import SHUFFLE_VERSION


async def load_game(store: EventStore, table: str) -> list[StoredEvent]:
    """A table's whole stream from the store."""
    recorded = await store.read_stream(table)
    if not recorded:
        raise RecordError(f"there is no table {table!r} in the event store")
    return [StoredEvent(r.stream_version, r.event()) for r in recorded]


def export_hand(stored: list[StoredEvent], table: str, hand: int) -> HandRecord:
    """The self-contained record of one finished hand."""
    part = slice_of(stored, hand)
    if not part.finished:
        raise RecordError(f"hand {hand} is still being played: its seed is revealed when it ends")
    ruleset = ruleset_of(stored)
    before = fold(entry.event for entry in stored[: part.start])
    entries = stored[part.start : part.stop]
    events = [entry.event for entry in entries]
    started = events[0]
    ended = next(e for e in events if isinstance(e, HandEnded))
    assert isinstance(started, HandStarted)
    return HandRecord(
        shuffle_version=started.shuffle_version or SHUFFLE_VERSION,
        table=table,
        hand=hand,
        ruleset=ruleset,
        before=StateBefore.of(before),
        seed=ended.seed,
        commitment=started.commitment,
        decisions=decisions_of(events),
        events=list(entries),
    )


def encode_record(record: HandRecord) -> bytes:
    return msgspec.json.format(msgspec.json.encode(record), indent=2) + b"\n"


def read_record(path: Path) -> HandRecord:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise RecordError(f"cannot read {path}: {error.strerror}") from None
    try:
        header = msgspec.json.decode(data)
    except msgspec.DecodeError as error:
        raise RecordError(f"{path} is not JSON: {error}") from None
    if isinstance(header, dict):
        if header.get("format") not in (None, "muggins-hand-record"):
            raise RecordError(f"{path} is not a muggins hand record")
        shuffle_version = header.get("shuffle_version")
        if shuffle_version is not None and shuffle_version != SHUFFLE_VERSION:
            raise RecordError(
                f"{path} was dealt with shuffle algorithm version {shuffle_version}; "
                f"this muggins checks version {SHUFFLE_VERSION} only"
            )
    try:
        return record_decoder.decode(data)
    except msgspec.ValidationError as error:
        raise RecordError(f"{path} is not a valid hand record: {error}") from None
