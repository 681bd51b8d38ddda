"""A player's receipt for a hand, made from the table stream's HandSealed.

The seal is the one place a receipt's fields come from."""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from muggins.domain.streams import game_stream
from muggins.domain.table_events import HandSealed
from muggins.eventstore.records import RecordedEvent
from muggins.evidence.documents import Receipt


def receipt_of(table_id: str, sealed: HandSealed) -> Receipt:
    return Receipt(table=table_id, game=sealed.game, hand=sealed.hand,
                   stream=game_stream(table_id, sealed.game), version=sealed.version,
                   chain=sealed.chain, position=sealed.position,
                   global_chain=sealed.global_chain, signed_at=sealed.signed_at,
                   key_id=sealed.key_id, signature=sealed.signature)


def receipts_of(table_id: str, table_events: Iterable[RecordedEvent]) -> list[Receipt]:
    """The receipts of a table stream as stored, in order (a seal that no
    longer decodes is left out: replay verify names it)."""
    receipts = []
    for entry in table_events:
        if entry.event_type != HandSealed.__name__:
            continue
        try:
            sealed = msgspec.json.decode(entry.payload, type=HandSealed)
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
        receipts.append(receipt_of(table_id, sealed))
    return receipts
