"""Where records come from: the event store, or a hand record file."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import msgspec

from muggins.domain.codec import game_event
from muggins.domain.streams import (
    chat_stream,
    game_stream,
    is_table_id,
    parse_game_stream,
    table_id,
    table_stream,
)
from muggins.eventstore.records import (
    GENESIS_CHAIN,
    RecordedEvent,
    canonical_json,
    recorded_at_text,
)
from muggins.eventstore.store import EventStore
from muggins.replay.record import (
    HandInPlay,
    HandRecord,
    RecordError,
    StateBefore,
    StoredEvent,
    StoredFields,
    decisions_of,
    record_decoder,
    ruleset_of,
)
from muggins.replay.verify import slice_of
from muggins.rules.events import HandEnded, HandStarted
from muggins.rules.game import fold
from muggins.rules.shuffle import SHUFFLE_VERSION


class TableGame(msgspec.Struct, frozen=True):
    """One game played at a table, with its events as stored."""

    #: From 1: the first game at the table, then each rematch.
    number: int
    #: The stream the game is stored in (the name a hand record carries).
    stream: str
    events: list[StoredEvent]


class TableRecord(msgspec.Struct, frozen=True):
    """Everything stored of one table, as loaded from the store."""

    table: str
    #: The table stream (``<table>-table``) and the chat (``<table>-chat``), as stored.
    table_events: list[RecordedEvent]
    chat_events: list[RecordedEvent]
    games: list[TableGame]
    #: Every event of the table's streams, games included, as stored.
    every_event: list[RecordedEvent]
    #: The whole store's chain value at the position before each of the
    #: table's events (missing: no event is stored there).
    globals_before: dict[int, bytes]


async def load_game(store: EventStore, table: str) -> list[StoredEvent]:
    """One stream, whole, from the store."""
    recorded = await store.read_stream(table)
    if not recorded:
        raise RecordError(f"there is no table {table!r} in the event store")
    return stored_events(recorded)


def stored_events(recorded: Sequence[RecordedEvent]) -> list[StoredEvent]:
    """A whole stream as read from the store, each event with the rest of its
    row and the chain value before it, so that its hash chain can be checked."""
    entries = []
    previous = GENESIS_CHAIN
    for r in recorded:
        if r.chain is None:
            raise RecordError(f"{r.stream_id} event {r.stream_version} has no chain value")
        fields = StoredFields(
            position=r.position,
            stream_id=r.stream_id,
            event_id=r.event_id,
            event_type=r.event_type,
            audience=r.audience,
            actor=r.actor,
            correlation_id=r.correlation_id,
            causation_id=r.causation_id,
            recorded_at=recorded_at_text(r.recorded_at),
            previous=previous.hex(),
            chain=r.chain.hex(),
            payload=r.payload,
        )
        try:
            event = game_event(r)
        except (msgspec.DecodeError, msgspec.ValidationError) as error:
            raise RecordError(
                f"{r.stream_id} version {r.stream_version} ({r.event_type}) is no longer an "
                f"event at all: its stored payload was changed ({error})") from None
        entries.append(StoredEvent(r.stream_version, event, fields))
        previous = r.chain
    return entries


async def game_streams(store: EventStore, table: str) -> list[tuple[int, str]]:
    """Which streams hold the games of ``table``: (game number, stream id) pairs, in order.

    A table id (what a person sees in ``/play/{table}``) names its games'
    streams, game 1, 2 ... up to the first with no events.  Anything else,
    and a table id with no game 1, must be one stream's exact name, kept as a
    single game: the games ``muggins simulate --record PREFIX`` stores as
    ``PREFIX-1``, ``PREFIX-2`` ..., and a game's stream id given in full.
    """
    streams: list[tuple[int, str]] = []
    if is_table_id(table):
        number = 1
        while await store.stream_version(game_stream(table, number)):
            streams.append((number, game_stream(table, number)))
            number += 1
    if streams:
        return streams
    if await store.stream_version(table):
        # A game's stream id given in full keeps its number ("abcd-g2" is game 2).
        parsed = parse_game_stream(table)
        return [(parsed[1] if parsed else 1, table)]
    raise RecordError(f"there is no table {table!r} in the event store")


async def load_table_games(
    store: EventStore, table: str, game: int | None = None
) -> list[TableGame]:
    """Every game played at ``table`` (see ``game_streams``), or only game ``game``."""
    streams = await game_streams(store, table)
    if game is not None:
        chosen = [(number, stream) for number, stream in streams if number == game]
        if not chosen:
            raise RecordError(f"table {table!r} has no game {game}: {_games_text(streams)}")
        streams = chosen
    return [
        TableGame(number, stream, await load_game(store, stream)) for number, stream in streams
    ]


async def load_table_record(store: EventStore, table: str) -> TableRecord:
    """Everything stored of a table: its table stream, its chat, every game,
    and the store's chain values just before each of their events."""
    checked = table_id(table) if is_table_id(table) else None
    if checked is None:
        raise RecordError(f"{table!r} is not a table id (4 to 32 letters and digits)")
    table_events = await store.read_stream(table_stream(checked))
    if not table_events:
        raise RecordError(f"there is no table {table!r} in the event store")
    chat_events = await store.read_stream(chat_stream(checked))
    games: list[TableGame] = []
    every = [*table_events, *chat_events]
    number = 1
    while recorded := await store.read_stream(game_stream(checked, number)):
        games.append(TableGame(number, game_stream(checked, number), stored_events(recorded)))
        every += recorded
        number += 1
    before = sorted({e.position - 1 for e in every if e.position > 1})
    return TableRecord(checked, table_events, chat_events, games, every,
                       await store.global_chains_at(before))


def _games_text(streams: list[tuple[int, str]]) -> str:
    if len(streams) == 1:
        return f"its only game is game {streams[0][0]}"
    return f"it has games {streams[0][0]} to {streams[-1][0]}"


def export_hand(stored: list[StoredEvent], table: str, hand: int) -> HandRecord:
    """The self-contained record of one finished hand."""
    part = slice_of(stored, hand)
    if not part.finished:
        raise HandInPlay(f"hand {hand} is still being played: its seed is revealed when it ends")
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
        events=[_without_same_payload(entry) for entry in entries],
    )


def _without_same_payload(entry: StoredEvent) -> StoredEvent:
    """The entry for a record file: the stored payload only where ``event``
    does not already say exactly the same (docs/replays.md)."""
    stored = entry.stored
    if stored is None or stored.payload is None:
        return entry
    if canonical_json(msgspec.json.decode(stored.payload)) != canonical_json(entry.event):
        return entry
    return msgspec.structs.replace(entry, stored=msgspec.structs.replace(stored, payload=None))


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
