"""A player's receipt for a hand, made from the table stream's HandSealed
(the one place its fields come from)."""

from __future__ import annotations

from muggins.evidence.documents import Receipt
from muggins.streams import game_stream
from muggins.table_events import HandSealed


def receipt_of(table_id: str, sealed: HandSealed) -> Receipt:
    return Receipt(table=table_id, game=sealed.game, hand=sealed.hand,
                   stream=game_stream(table_id, sealed.game), version=sealed.version,
                   chain=sealed.chain, position=sealed.position,
                   global_chain=sealed.global_chain, signed_at=sealed.signed_at,
                   key_id=sealed.key_id, signature=sealed.signature)
