"""The evidence file of a hand, a game or a table, for anyone to check offline.

One JSON file that anyone can check offline, chains, signatures and all
(docs/fairness.md, "The evidence file"; docs/check_evidence.py checks it with
nothing but Python)."""

from __future__ import annotations

import datetime

import msgspec

from muggins.eventstore.records import GENESIS_CHAIN, RecordedEvent, recorded_at_text
from muggins.eventstore.store import EventStore
from muggins.evidence.checkpoints import checkpoint_at_or_after, site_keys
from muggins.evidence.documents import Checkpoint, Receipt
from muggins.evidence.receipts import receipts_of
from muggins.replay.record import RecordError, StoredEvent, hands_of
from muggins.replay.source import TableRecord, load_table_record

EVIDENCE_FORMAT = "muggins-evidence"
EVIDENCE_FORMAT_VERSION = 1


class EvidenceEvent(msgspec.Struct, frozen=True):
    position: int
    stream_id: str
    stream_version: int
    event_type: str
    payload: msgspec.Raw
    audience: str
    actor: str
    correlation_id: str | None
    causation_id: str | None
    event_id: str
    recorded_at: str
    previous: str
    chain: str
    global_chain: str


class Links(msgspec.Struct, frozen=True):
    first: int
    previous_global: str
    chains: list[str]


class EvidenceKey(msgspec.Struct, frozen=True):
    key_id: str
    public_key: str


class Evidence(msgspec.Struct, frozen=True):
    table: str
    game: int | None
    hand: int | None
    exported_at: str
    events: list[EvidenceEvent]
    links: Links
    receipts: list[Receipt]
    checkpoint: Checkpoint | None
    keys: list[EvidenceKey]
    format: str = EVIDENCE_FORMAT
    format_version: int = EVIDENCE_FORMAT_VERSION


def ended_through(events: list[StoredEvent]) -> int:
    """How many of a game's events lie up to its last ended hand (GameEnded
    after it included); just GameStarted when no hand has ended yet."""
    finished = [part.stop for part in hands_of(events) if part.finished]
    return max(finished, default=min(1, len(events)))


def _chosen(record: TableRecord, game: int | None, hand: int | None
            ) -> list[tuple[RecordedEvent, bytes]]:
    """The events to export, each with the stream chain value before it."""
    chosen: list[tuple[RecordedEvent, bytes]] = []
    by_stream: dict[str, list[RecordedEvent]] = {}
    for entry in record.every_event:
        by_stream.setdefault(entry.stream_id, []).append(entry)
    for stream in by_stream.values():
        stream.sort(key=lambda e: e.stream_version)
    games = record.games if game is None else [g for g in record.games if g.number == game]
    if game is not None and not games:
        raise RecordError(f"table {record.table!r} has no game {game}")
    wanted = {g.stream for g in games}
    every_game = {g.stream for g in record.games}
    for stream_id, entries in by_stream.items():
        if stream_id in every_game and stream_id not in wanted:
            continue
        start, stop = 0, len(entries)
        if stream_id in wanted:
            # Only what has been revealed: a hand still being played keeps its
            # tiles, its boneyard and its seed secret until it ends.
            stop = ended_through(next(g for g in games if g.stream == stream_id).events)
        if hand is not None and stream_id in wanted:
            part = next((h for h in hands_of(games[0].events) if h.hand == hand), None)
            if part is None or not part.finished:
                raise RecordError(f"game {games[0].number} has no finished hand {hand}")
            start, stop = part.start, part.stop
        previous = entries[start - 1].chain if start else GENESIS_CHAIN
        for entry in entries[start:stop]:
            chosen.append((entry, previous or GENESIS_CHAIN))
            previous = entry.chain
    chosen.sort(key=lambda pair: pair[0].position)
    return chosen


async def export_evidence(store: EventStore, table: str, game: int | None = None,
                          hand: int | None = None) -> Evidence:
    """The evidence file of a table, one of its games, or one hand of it:
    never more of a game than its hands that have ended (a hand being played
    is secret until it ends)."""
    if hand is not None and game is None:
        raise RecordError("a hand is named with its game: add --game N")
    record = await load_table_record(store, table)
    chosen = _chosen(record, game, hand)
    first = chosen[0][0].position
    last_event = chosen[-1][0].position
    checkpoint = await checkpoint_at_or_after(store.pool, last_event)
    last = checkpoint.position if checkpoint is not None else last_event
    links = await store.chain_links(first, last)
    positions = [position for position, _, _ in links]
    if positions != list(range(first, last + 1)):
        present = set(positions)
        missing = next(p for p in range(first, last + 1) if p not in present)
        raise RecordError(f"position {missing} holds no event: the store has a gap there, so "
                          "no evidence file can link the table to a checkpoint (run "
                          "`muggins replay verify --store`)")
    before = GENESIS_CHAIN if first == 1 else \
        (await store.global_chains_at([first - 1])).get(first - 1)
    if before is None:
        raise RecordError(f"position {first - 1} holds no event: the store has a gap there")
    events = [
        EvidenceEvent(
            position=e.position, stream_id=e.stream_id, stream_version=e.stream_version,
            event_type=e.event_type, payload=e.payload, audience=e.audience, actor=e.actor,
            correlation_id=e.correlation_id, causation_id=e.causation_id, event_id=e.event_id,
            recorded_at=recorded_at_text(e.recorded_at), previous=previous.hex(),
            chain=(e.chain or b"").hex(), global_chain=(e.global_chain or b"").hex())
        for e, previous in chosen
    ]
    return Evidence(
        table=record.table, game=game, hand=hand,
        exported_at=recorded_at_text(datetime.datetime.now(datetime.UTC)),
        events=events,
        links=Links(first, before.hex(), [chain.hex() for _, chain, _ in links]),
        receipts=receipts_of(record.table, record.table_events),
        checkpoint=checkpoint,
        keys=[EvidenceKey(k.key_id, k.public_key) for k in await site_keys(store.pool)],
    )


def encode_evidence(evidence: Evidence) -> bytes:
    return msgspec.json.format(msgspec.json.encode(evidence), indent=1) + b"\n"
