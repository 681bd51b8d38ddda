"""What an operator reads to settle a dispute.

The table verified whole, the disputed game move by move with who made each
move (a person or a bot), the receipts (the player's own copy held to the
record), and the signed checkpoints around the hand."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Literal

import msgspec

from muggins.bots.playbyplay import summary
from muggins.domain.codec import game_event
from muggins.domain.streams import game_stream
from muggins.eventstore.store import EventStore
from muggins.evidence.checkpoints import (
    checkpoint_at_or_after,
    checkpoint_at_or_before,
    public_keys,
)
from muggins.evidence.documents import Checkpoint, Receipt
from muggins.evidence.receipts import receipts_of
from muggins.replay.record import RecordError
from muggins.replay.source import load_table_record
from muggins.replay.store_checks import check_receipts
from muggins.replay.table_verify import TableVerdict, verify_table
from muggins.rules.events import HandStarted
from muggins.tables.disputes import disputes_in, table_disputes
from muggins.tables.errors import NoSuchDispute
from muggins.tables.protocol import DisputeView

Maker = Literal["person", "bot", "table"]


class Move(msgspec.Struct, frozen=True):
    version: int
    position: int
    summary: str
    #: Who made it: a person from their seat, a bot, or the table (deals, draws, scores).
    by: Maker
    seat: int | None


class HandMoves(msgspec.Struct, frozen=True):
    hand: int
    disputed: bool
    status: str
    problems: list[str]
    moves: list[Move]


class DisputeFile(msgspec.Struct, frozen=True):
    dispute: DisputeView
    #: "all fair", or what verify found, line by line.
    verified: bool
    findings: list[str]
    hands: list[HandMoves]
    receipts: list[Receipt]
    #: The receipt the player kept and sent, held to the record: what was
    #: found ("" first when it matches), or nothing when they sent none.
    kept_receipt: list[str]
    #: The newest checkpoint before the disputed hand, and the first after it.
    checkpoint_before: Checkpoint | None
    checkpoint_after: Checkpoint | None
    replay_link: str
    analysis_link: str


def _maker(actor: str) -> tuple[Maker, int | None]:
    kind, _, seat = actor.partition(":")
    if kind == "seat":
        return "person", int(seat)
    if kind == "bot":
        return "bot", int(seat)
    return "table", None


def _dispute(views: list[DisputeView], number: int) -> DisputeView:
    for view in views:
        if view.dispute == number:
            return view
    raise NoSuchDispute(f"this table has no dispute {number}")


def findings_of(verdict: TableVerdict) -> list[str]:
    lines = [f"{s.label}: {p}" for s in verdict.streams for p in s.problems]
    lines += [f"game {g.number}: {p}" for g, v in verdict.games for p in v.problems]
    lines += [str(p) for p in (*verdict.store_problems, *verdict.seal_problems)]
    return lines


async def dispute_file(store: EventStore, table_id: str, number: int,
                       run: Callable[..., Awaitable[Any]]) -> DisputeFile:
    """Everything about dispute ``number`` at ``table_id``; ``run`` runs the
    CPU-heavy verification (a thread, in the service)."""
    keys = await public_keys(store.pool)
    try:
        record = await load_table_record(store, table_id)
    except RecordError as error:  # an event that no longer decodes: said, not a 500
        view = _dispute(await table_disputes(store, table_id), number)
        return DisputeFile(
            dispute=view, verified=False, findings=[str(error)], hands=[], receipts=[],
            kept_receipt=[], checkpoint_before=None, checkpoint_after=None,
            replay_link=f"/replay/{table_id}/{view.hand}?game={view.game}",
            analysis_link=f"/tables/{table_id}/games/{view.game}/hands/{view.hand}/analysis")
    # The dispute as the table stream just read tells it (no second read).
    view = _dispute(disputes_in(record.table_events), number)
    verdict: TableVerdict = await run(verify_table, record, keys)
    stream = game_stream(table_id, view.game)
    raw = [e for e in record.every_event if e.stream_id == stream]
    game_verdict = next((v for g, v in verdict.games if g.number == view.game), None)
    hands: list[HandMoves] = []
    current: HandMoves | None = None
    for entry in sorted(raw, key=lambda e: e.stream_version):
        event = game_event(entry)
        if isinstance(event, HandStarted):
            hand_verdict = next((h for h in game_verdict.hands if h.hand == event.hand), None) \
                if game_verdict else None
            current = HandMoves(event.hand, event.hand == view.hand,
                                hand_verdict.status if hand_verdict else "unchecked",
                                [str(p) for p in hand_verdict.problems] if hand_verdict else [],
                                [])
            hands.append(current)
        if current is None:
            continue
        by, seat = _maker(entry.actor)
        current.moves.append(Move(entry.stream_version, entry.position, summary(event), by,
                                  seat))
    receipts = receipts_of(table_id, record.table_events)
    kept: list[str] = []
    if view.receipt is not None:
        first_position = min((e.position for e in record.every_event), default=1)
        checked, on_the_way = await check_receipts(store, table_id, [view.receipt], keys,
                                                   first_position)
        kept = [*(p for _, problems in checked for p in problems), *on_the_way]
        if not kept:
            kept = ["", "signed by the site, and the record is what the player was given"]
    disputed = next((h for h in hands if h.hand == view.hand), None)
    first = disputed.moves[0].position if disputed and disputed.moves else 1
    last = disputed.moves[-1].position if disputed and disputed.moves else first
    return DisputeFile(
        dispute=view, verified=verdict.ok, findings=findings_of(verdict), hands=hands,
        receipts=receipts, kept_receipt=kept,
        checkpoint_before=await checkpoint_at_or_before(store.pool, first - 1),
        checkpoint_after=await checkpoint_at_or_after(store.pool, last),
        replay_link=f"/replay/{table_id}/{view.hand}?game={view.game}",
        analysis_link=f"/tables/{table_id}/games/{view.game}/hands/{view.hand}/analysis",
    )


def dispute_lines(file: DisputeFile) -> list[str]:
    """A dispute file as an operator reads it in a terminal."""
    d = file.dispute
    lines = [f"dispute #{d.dispute} at table {d.table_id}: game {d.game}, hand {d.hand}",
             f"  by {d.name} (seat {d.seat}) at {d.opened_at}: “{d.reason}”",
             "  " + ("open" if d.verdict is None
                     else f"{d.verdict} by {d.by} at {d.resolved_at}: {d.note}"),
             "",
             "verification: " + ("✓ every stream as appended, every hand fair, every seal "
                                 "holds" if file.verified else "✗ PROBLEMS FOUND")]
    lines += [f"  ✗ {finding}" for finding in file.findings]
    for hand in file.hands:
        mark = "  ← disputed" if hand.disputed else ""
        lines.append(f"hand {hand.hand}: {hand.status}{mark}")
        lines += [f"  ✗ {problem}" for problem in hand.problems]
        if hand.disputed:
            lines += [f"  {m.version:>3} {m.by:<6} {m.summary}" for m in hand.moves]
    if file.kept_receipt:
        lines.append("the player's own receipt: " + (
            "✓ " + file.kept_receipt[1] if file.kept_receipt[0] == ""
            else "✗ " + "; ".join(file.kept_receipt)))
    else:
        lines.append("the player's own receipt: none sent")
    lines.append("receipts: " + (", ".join(f"hand {r.hand} (v{r.version}, key {r.key_id})"
                                          for r in file.receipts if r.game == d.game)
                                 or "none"))
    for name, checkpoint in (("before", file.checkpoint_before),
                             ("after", file.checkpoint_after)):
        lines.append(f"checkpoint {name}: " + (
            f"position {checkpoint.position} signed {checkpoint.signed_at} by key "
            f"{checkpoint.key_id}" if checkpoint else "none"))
    lines.append(f"replay: {file.replay_link}   analysis: {file.analysis_link}")
    return lines
