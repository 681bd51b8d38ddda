"""Each ended hand sealed in the table stream, signed: the seats' receipts.

The table stream then vouches for its games, and the seal is the receipt every
seat is given (docs/fairness.md, "Receipts").  A step of the scheduler
(muggins.tables.next_step: "seal"), so any process does it, once."""

from __future__ import annotations

from muggins.domain.streams import game_stream
from muggins.domain.table_events import HandSealed
from muggins.eventstore.store import EventStore
from muggins.evidence.documents import sign_receipt
from muggins.evidence.signing import SiteKey
from muggins.rules.events import GameEnded
from muggins.tables.commands import Game
from muggins.tables.seating import Seating, Table


class SealError(RuntimeError):
    """A game stream whose ended hand cannot be found: a bug, not an outage."""


class Seals:
    def __init__(self, store: EventStore, seating: Seating, key: SiteKey) -> None:
        self.store = store
        self.seating = seating
        self.key = key

    async def seal(self, table: Table, game: Game) -> Table:
        """Seal the game's last ended hand (ConcurrencyError if the table
        moved on meanwhile: nothing written, derived anew)."""
        state = game.state
        if state is None:
            raise SealError(f"game {game.number} has no events to seal")
        table_id = table.state.table_id
        stream = game_stream(table_id, game.number)
        ended = await self.store.last_hand_end(stream)
        if ended is None or ended.chain is None or ended.global_chain is None:
            raise SealError(f"{stream} has no ended hand with chain values to seal")
        receipt = sign_receipt(
            self.key, table=table_id, game=game.number, hand=state.hands_played,
            stream=stream, version=ended.stream_version, chain=ended.chain,
            position=ended.position, global_chain=ended.global_chain)
        sealed = HandSealed(
            game=game.number, hand=state.hands_played, version=receipt.version,
            chain=receipt.chain, position=receipt.position, global_chain=receipt.global_chain,
            game_over=ended.event_type == GameEnded.__name__, signed_at=receipt.signed_at,
            key_id=receipt.key_id, signature=receipt.signature)
        return await self.seating.seal(table, sealed)


