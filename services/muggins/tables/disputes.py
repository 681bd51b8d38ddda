"""Disputes: a seated person says a hand was not fair; an operator answers.

Both are events of the table stream (DisputeOpened, DisputeResolved); this
module decides who may do which, once, for the HTTP handlers, the page and
``muggins dispute`` alike (docs/fairness.md, "Disputes")."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from pathlib import Path

import asyncpg
import msgspec

from muggins.domain.codec import game_event
from muggins.domain.streams import game_stream, parse_table_stream, table_stream
from muggins.domain.table_events import (
    MAX_DISPUTE_REASON,
    MAX_RESOLUTION_NOTE,
    DisputeOpened,
    DisputeResolved,
    DisputeState,
    Verdict,
    table_event_decoder,
)
from muggins.eventstore.records import ConcurrencyError, RecordedEvent
from muggins.eventstore.store import EventStore
from muggins.evidence.documents import Receipt
from muggins.infra.sql import load_queries
from muggins.rules.events import GameStarted
from muggins.tables.commands import Commands
from muggins.tables.errors import (
    AlreadyDisputed,
    AlreadyResolved,
    BadRequest,
    BadToken,
    HandNotFound,
    NoSuchDispute,
    TableBusy,
)
from muggins.tables.protocol import DisputeView
from muggins.tables.seating import Seating

QUERIES = load_queries(Path(__file__).parent / "queries.sql")
#: Attempts when others append to the table meanwhile.
ATTEMPTS = 5
MAX_OPERATOR_NAME = 80


def checked_text(text: str, longest: int, what: str) -> str:
    """``text`` with its white space folded: BadRequest if it is empty, too
    long, or holds control characters (an operator's terminal shows it)."""
    cleaned = " ".join(text.split())
    if not cleaned:
        raise BadRequest(f"the {what} is empty: say in a few words what is wrong")
    if len(cleaned) > longest:
        raise BadRequest(f"the {what} is {len(cleaned)} characters long: at most {longest}")
    if not cleaned.isprintable():
        raise BadRequest(f"the {what} holds control characters: plain text only")
    return cleaned


class Disputes:
    def __init__(self, seating: Seating, commands: Commands) -> None:
        self.seating = seating
        self.commands = commands

    async def open(self, table_id: str, token: str, game: int, hand: int,
                   reason: str, receipt: Receipt | None = None) -> DisputeState:
        """Dispute hand ``hand`` of game ``game`` as the seat ``token`` holds,
        with the receipt the player kept for it (recorded with the dispute:
        what they were given, checked against the record by the operator).
        Refusals change nothing: BadToken (not a seat of this table, or not
        of this person in that game), HandNotFound (not played, or not over),
        AlreadyDisputed, BadRequest (a bad reason, a receipt of another hand)."""
        if receipt is not None and (receipt.table, receipt.game, receipt.hand) != \
                (table_id, game, hand):
            raise BadRequest("the receipt sent is not this hand's")
        text = checked_text(reason, MAX_DISPUTE_REASON, "reason")
        seat = await self.seating.seat_for_token(table_id, token)
        for _ in range(ATTEMPTS):
            table = await self.seating.table(table_id, fresh=True)
            player_id = table.state.seats[seat].player_id
            if player_id is None:
                raise BadToken("that seat token is not valid for this table")
            if not 1 <= game <= table.state.game:
                raise HandNotFound(f"this table has played no game {game}")
            state = (await self.commands.game(table_id, game)).state
            if state is None or hand > state.hands_played:
                raise HandNotFound(f"hand {hand} of game {game} has not ended: a hand can be "
                                   "disputed once it is over and its seed revealed")
            if not await self._played(table_id, game, seat, player_id):
                raise BadToken(f"you did not sit at this table in game {game}: only its "
                               "players may dispute its hands")
            if any(d.opened.player_id == player_id and d.opened.game == game
                   and d.opened.hand == hand for d in table.state.disputes):
                raise AlreadyDisputed(f"you have disputed hand {hand} of game {game} already")
            try:
                updated = await self.seating.open_dispute(
                    table, seat, game, hand, text,
                    msgspec.json.encode(receipt).decode() if receipt is not None else None)
            except ConcurrencyError:
                continue  # the table moved on: judged again on what it is now
            return updated.state.disputes[-1]
        raise TableBusy("the table kept changing meanwhile; nothing was written: try again")

    async def _played(self, table_id: str, game: int, seat: int, player_id: str) -> bool:
        """Whether ``player_id`` sat in ``seat`` in game ``game`` (its GameStarted says)."""
        first = await self.seating.store.stream_event(game_stream(table_id, game), 1)
        if first is None:
            return False
        started = game_event(first)
        return isinstance(started, GameStarted) and any(
            p.seat == seat and p.player_id == player_id for p in started.players)

    async def resolve(self, table_id: str, number: int, verdict: Verdict, note: str,
                      by: str) -> DisputeState:
        """An operator's verdict; the first one stands (AlreadyResolved)."""
        text = checked_text(note, MAX_RESOLUTION_NOTE, "note")
        name = checked_text(by, MAX_OPERATOR_NAME, "operator's name")
        for _ in range(ATTEMPTS):
            table = await self.seating.table(table_id, fresh=True)
            found = dispute_of(table.state.disputes, number)
            if found.resolved is not None:
                raise AlreadyResolved(f"dispute {number} was resolved already "
                                      f"({found.resolved.verdict}, by {found.resolved.by})")
            try:
                updated = await self.seating.resolve_dispute(
                    table, DisputeResolved(dispute=number, verdict=verdict, note=text, by=name))
            except ConcurrencyError:
                continue
            return dispute_of(updated.state.disputes, number)
        raise TableBusy("the table kept changing meanwhile; nothing was written: try again")


def kept_receipt(opened: DisputeOpened) -> Receipt | None:
    """The receipt the person sent with their dispute (None: none, or not one)."""
    if opened.receipt is None:
        return None
    try:
        return msgspec.json.decode(opened.receipt, type=Receipt)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


def dispute_of(disputes: tuple[DisputeState, ...], number: int) -> DisputeState:
    for dispute in disputes:
        if dispute.opened.dispute == number:
            return dispute
    raise NoSuchDispute(f"this table has no dispute {number}")




def dispute_views(found: Sequence[tuple[str, bytes, datetime.datetime]]
                  ) -> list[DisputeView]:
    """Disputes as people read them, from their events: (stream, payload,
    recorded at), in order."""
    views: dict[tuple[str, int], DisputeView] = {}
    for stream, payload, at in found:
        table_id = parse_table_stream(stream)
        if table_id is None:
            continue
        try:
            event = table_event_decoder.decode(payload)
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue  # a changed event: replay verify names it; the others are listed

        when = at.astimezone(datetime.UTC).isoformat()
        if isinstance(event, DisputeOpened):
            views[(table_id, event.dispute)] = DisputeView(
                table_id, event.dispute, event.seat, event.name, event.game, event.hand,
                event.reason, when, receipt=kept_receipt(event))
        elif isinstance(event, DisputeResolved) and (table_id, event.dispute) in views:
            views[(table_id, event.dispute)] = msgspec.structs.replace(
                views[(table_id, event.dispute)], verdict=event.verdict, note=event.note,
                by=event.by, resolved_at=when)
    return list(views.values())


def disputes_in(recorded: Sequence[RecordedEvent]) -> list[DisputeView]:
    """The disputes a table stream, as read, tells."""
    return dispute_views([(r.stream_id, bytes(r.payload), r.recorded_at)
                          for r in recorded if r.event_type.startswith("Dispute")])


async def table_disputes(store: EventStore, table_id: str) -> list[DisputeView]:
    return disputes_in(await store.read_stream(table_stream(table_id)))


async def every_dispute(pool: asyncpg.Pool, limit: int = 10_000) -> list[DisputeView]:
    """The newest disputes of every table (their ``limit`` newest events), oldest first."""
    rows = list(reversed(await pool.fetch(QUERIES["disputes"], limit)))
    return dispute_views([(row["stream_id"], row["payload"].encode(),
                           row["recorded_at"]) for row in rows])
