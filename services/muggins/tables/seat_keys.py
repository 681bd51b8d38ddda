"""The secrets kept beside the table's stream: each player's secret (hashed)
and each seat's token (hashed), in PostgreSQL (``PostgresSeatKeys``) or in
memory for fast tests (``MemorySeatKeys``), both held to one contract
(tests/contract/test_seat_keys.py).

Who sits where is not here: that is the table's event stream
(muggins.domain.table_events).  A token or a secret is never stored, only
its SHA-256 (muggins.tables.seating.token_hash): a copy of the database
seats nobody.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Protocol

import asyncpg
import msgspec

from muggins.infra.sql import load_queries

QUERIES = load_queries(Path(__file__).parent / "queries.sql")


class SeatKey(msgspec.Struct, frozen=True):
    """What a seat token was granted for."""

    seat: int
    player_id: str


class SeatKeys(Protocol):
    """Players' secrets and seats' tokens, by their hashes."""

    async def grant(self, table_id: str, token_hash: bytes, seat: int, player_id: str,
                    new_player_secret_hash: bytes | None) -> None:
        """Keep a seat's token, and the player's secret if the player is new:
        both or neither."""

    async def withdraw(self, table_id: str, token_hash: bytes, new_player_id: str | None
                       ) -> None:
        """Take back a grant whose seat was not won (and the player made for it)."""

    async def seat_key(self, table_id: str, token_hash: bytes) -> SeatKey | None:
        """What the token was granted for (None: it never was, or not at this table)."""

    async def secret_hash(self, player_id: str) -> bytes | None:
        """The hash of the player's secret (None: no such player)."""

    async def rotate(self, player_id: str, old_hash: bytes, new_hash: bytes) -> bool:
        """Replace the secret's hash while it is still ``old_hash``: of two
        rotations racing from one secret, one wins (True), the other changes nothing."""


class PostgresSeatKeys:
    """The keys in tables ``players`` and ``seat_tokens`` (migrations 0002, 0006)."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool

    async def grant(self, table_id: str, token_hash: bytes, seat: int, player_id: str,
                    new_player_secret_hash: bytes | None) -> None:
        try:
            async with self.pool.acquire() as connection, connection.transaction():
                if new_player_secret_hash is not None:
                    await connection.execute(QUERIES["insert_player"], uuid.UUID(player_id),
                                             new_player_secret_hash)
                await connection.execute(QUERIES["insert_seat_token"], table_id, token_hash,
                                         seat, uuid.UUID(player_id))
        except asyncpg.UniqueViolationError as error:  # as MemorySeatKeys: nothing kept
            raise ValueError(f"granted already: {error.detail or error}") from None

    async def withdraw(self, table_id: str, token_hash: bytes, new_player_id: str | None
                       ) -> None:
        async with self.pool.acquire() as connection, connection.transaction():
            await connection.execute(QUERIES["delete_seat_token"], table_id, token_hash)
            if new_player_id is not None:
                await connection.execute(QUERIES["delete_player"], uuid.UUID(new_player_id))

    async def seat_key(self, table_id: str, token_hash: bytes) -> SeatKey | None:
        row = await self.pool.fetchrow(QUERIES["seat_token"], table_id, token_hash)
        return SeatKey(int(row["seat"]), row["player_id"]) if row is not None else None

    async def secret_hash(self, player_id: str) -> bytes | None:
        stored = await self.pool.fetchval(QUERIES["player_secret_hash"], uuid.UUID(player_id))
        return bytes(stored) if stored is not None else None

    async def rotate(self, player_id: str, old_hash: bytes, new_hash: bytes) -> bool:
        return await self.pool.fetchval(QUERIES["rotate_player_secret"], uuid.UUID(player_id),
                                        old_hash, new_hash) is not None


class MemorySeatKeys:
    """The same keys in two dicts, for fast tests."""

    def __init__(self) -> None:
        self._players: dict[str, bytes] = {}
        self._tokens: dict[tuple[str, bytes], SeatKey] = {}

    async def grant(self, table_id: str, token_hash: bytes, seat: int, player_id: str,
                    new_player_secret_hash: bytes | None) -> None:
        player = str(uuid.UUID(player_id))
        if new_player_secret_hash is not None and player in self._players:
            raise ValueError(f"player {player} exists already")
        if (table_id, token_hash) in self._tokens:
            raise ValueError("that token was granted already")
        if new_player_secret_hash is not None:
            self._players[player] = new_player_secret_hash
        self._tokens[(table_id, token_hash)] = SeatKey(seat, player)

    async def withdraw(self, table_id: str, token_hash: bytes, new_player_id: str | None
                       ) -> None:
        self._tokens.pop((table_id, token_hash), None)
        if new_player_id is not None:
            self._players.pop(str(uuid.UUID(new_player_id)), None)

    async def seat_key(self, table_id: str, token_hash: bytes) -> SeatKey | None:
        return self._tokens.get((table_id, token_hash))

    async def secret_hash(self, player_id: str) -> bytes | None:
        return self._players.get(str(uuid.UUID(player_id)))

    async def rotate(self, player_id: str, old_hash: bytes, new_hash: bytes) -> bool:
        player = str(uuid.UUID(player_id))
        if self._players.get(player) != old_hash:
            return False
        self._players[player] = new_hash
        return True
