"""Signed checkpoints of the whole store: made, kept, published and read.

Made every few seconds while events are written, kept append-only
(``signed_checkpoints``), published on NATS (``muggins.checkpoints``) and read
back for the HTTP API and ``replay verify``.

Every process that serves players runs a ``Checkpointer``; a position is
signed once (its row's key), whichever process gets there first."""

from __future__ import annotations

import asyncio
import datetime
import random
from collections.abc import Awaitable, Callable
from pathlib import Path

import asyncpg
import msgspec
import structlog

from muggins.eventstore.store import TRANSIENT
from muggins.evidence.documents import Checkpoint, sign_checkpoint
from muggins.evidence.signing import PublicKeys, SiteKey
from muggins.infra.retry import Backoff, Retry
from muggins.infra.sql import load_queries

QUERIES = load_queries(Path(__file__).parent / "queries.sql")
#: Where each new checkpoint is published (core NATS: the store keeps them).
CHECKPOINT_SUBJECT = "muggins.checkpoints"
log = structlog.get_logger(__name__)


class SiteKeyInfo(msgspec.Struct, frozen=True):
    """One of the site's public keys, as served at /.well-known/muggins-keys.json."""

    key_id: str
    #: The raw 32-byte Ed25519 public key, hex.
    public_key: str
    first_used: str


def _checkpoint(row: asyncpg.Record) -> Checkpoint:
    return Checkpoint(position=row["position"], global_chain=row["global_chain"].hex(),
                      signed_at=row["signed_at"], key_id=row["key_id"],
                      signature=row["signature"].hex())


async def register_key(pool: asyncpg.Pool, key: SiteKey) -> None:
    """List ``key``'s public half among the site's keys (once; kept for good)."""
    await pool.execute(QUERIES["register_key"], key.key_id, key.public_key)


async def site_keys(pool: asyncpg.Pool) -> list[SiteKeyInfo]:
    rows = await pool.fetch(QUERIES["keys"])
    return [SiteKeyInfo(row["key_id"], row["public_key"].hex(),
                        row["first_used"].astimezone(datetime.UTC).isoformat())
            for row in rows]


async def public_keys(pool: asyncpg.Pool) -> PublicKeys:
    return {row["key_id"]: bytes(row["public_key"]) for row in await pool.fetch(QUERIES["keys"])}


async def latest_checkpoint(pool: asyncpg.Pool) -> Checkpoint | None:
    row = await pool.fetchrow(QUERIES["latest_checkpoint"])
    return _checkpoint(row) if row is not None else None


async def checkpoint_at_or_after(pool: asyncpg.Pool, position: int) -> Checkpoint | None:
    """The first checkpoint that covers ``position``."""
    row = await pool.fetchrow(QUERIES["checkpoint_at_or_after"], position)
    return _checkpoint(row) if row is not None else None


async def checkpoint_at_or_before(pool: asyncpg.Pool, position: int) -> Checkpoint | None:
    row = await pool.fetchrow(QUERIES["checkpoint_at_or_before"], position)
    return _checkpoint(row) if row is not None else None


async def checkpoints_between(pool: asyncpg.Pool, first: int, last: int,
                              limit: int = 1000) -> list[Checkpoint]:
    return [_checkpoint(row)
            for row in await pool.fetch(QUERIES["checkpoints_between"], first, last, limit)]


class Checkpointer:
    """Signs the store's head every ``interval`` seconds when it has moved."""

    def __init__(self, pool: asyncpg.Pool, key: SiteKey, interval: float,
                 publish: Callable[[str, bytes], Awaitable[None]] | None = None) -> None:
        self.pool = pool
        self.key = key
        self.interval = interval
        self.publish = publish

    async def sign_head(self) -> Checkpoint | None:
        """A checkpoint of the store's last event, if none is signed yet at or past it."""
        head = await self.pool.fetchrow(QUERIES["store_head"])
        if head is None:
            return None
        if await self.pool.fetchval(QUERIES["last_checkpoint_position"]) >= head["position"]:
            return None
        checkpoint = sign_checkpoint(self.key, head["position"], bytes(head["global_chain"]))
        kept = await self.pool.fetchval(
            QUERIES["save_checkpoint"], checkpoint.position, bytes(head["global_chain"]),
            checkpoint.signed_at, checkpoint.key_id, bytes.fromhex(checkpoint.signature))
        if kept is None:  # another process signed this position first: theirs stands
            return None
        if self.publish is not None:
            try:
                await self.publish(CHECKPOINT_SUBJECT, msgspec.json.encode(checkpoint))
            except Exception as error:  # a courtesy: the store and the API have it
                log.warning("could not publish a checkpoint", position=checkpoint.position,
                            error=repr(error))
        return checkpoint

    async def run(self, stop: asyncio.Event) -> None:
        """Until ``stop``: the key registered, then a checkpoint each interval.
        The database away is waited out; a bug ends the loop (and is reported)."""
        retry = Retry("checkpointer", TRANSIENT, backoff=Backoff(first=0.5, cap=10.0),
                      stop=stop, message="could not sign a checkpoint; retrying")
        registered = False
        while not stop.is_set():
            try:
                if not registered:
                    await register_key(self.pool, self.key)
                    registered = True
                await self.sign_head()
            except Exception as error:
                await retry.failed(error)  # raises a bug
                continue
            retry.succeeded()
            await retry.pause(self.interval * random.uniform(0.9, 1.1))
