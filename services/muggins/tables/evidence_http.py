"""Thin HTTP handlers for what holds the site to its record: its public keys,
its signed checkpoints, a table's receipts, and disputes (opened by a seated
person; listed, read and resolved by operators).  Each id is checked at the
edge; each refusal is a 4xx with a stable code and writes nothing."""

from __future__ import annotations

import asyncio
import secrets

from litestar import Request, get, post
from litestar.exceptions import HTTPException
from litestar.params import FromPath, JSONBody

from muggins import streams
from muggins.evidence.checkpoints import checkpoint_at_or_after, latest_checkpoint, site_keys
from muggins.evidence.documents import Checkpoint, Receipt
from muggins.evidence.receipts import receipt_of
from muggins.tables.disputes import dispute_of, every_dispute, table_disputes
from muggins.tables.errors import NotAnOperator, Refusal
from muggins.tables.http import refused, runtime_of, strictly
from muggins.tables.operator_view import DisputeFile, dispute_file
from muggins.tables.protocol import (
    DisputeView,
    KeysDocument,
    OpenDispute,
    ResolveDispute,
)

#: The largest position anyone may ask a checkpoint for (beyond: there is none).
MAX_POSITION = 2**62


@get("/.well-known/muggins-keys.json", summary="The site's public signing keys",
     description="Ed25519 keys, by id, oldest first; a retired key stays listed "
                 "(docs/fairness.md, \"The site's keys\").")
async def signing_keys(request: Request) -> KeysDocument:  # type: ignore[type-arg]
    return KeysDocument(await site_keys(runtime_of(request).infra.pool))


@get("/checkpoints/latest", summary="The newest signed checkpoint of the whole store")
async def newest_checkpoint(request: Request) -> Checkpoint:  # type: ignore[type-arg]
    found = await latest_checkpoint(runtime_of(request).infra.pool)
    if found is None:
        raise HTTPException(status_code=404, detail="no checkpoint is signed yet",
                            extra={"code": "no-checkpoint"})
    return found


@get("/checkpoints/{position:int}",
     summary="The first signed checkpoint at or after a position of the store")
async def checkpoint_at(request: Request, position: FromPath[int]) -> Checkpoint:  # type: ignore[type-arg]
    if not 1 <= position <= MAX_POSITION:
        raise HTTPException(status_code=404, detail=f"positions are 1 to {MAX_POSITION}",
                            extra={"code": "no-checkpoint"})
    found = await checkpoint_at_or_after(runtime_of(request).infra.pool, position)
    if found is None:
        raise HTTPException(status_code=404,
                            detail=f"no checkpoint is signed at or after position {position} yet",
                            extra={"code": "no-checkpoint"})
    return found


@get("/tables/{table_id:str}/receipts", summary="Every receipt of a table's hands",
     description="What each seat was given when each hand ended: anyone may keep them.")
async def table_receipts(request: Request, table_id: FromPath[str]) -> list[Receipt]:  # type: ignore[type-arg]
    checked = streams.table_id(table_id)
    try:
        table = await runtime_of(request).seating.table(checked)
    except Refusal as error:
        raise refused(error) from None
    return [receipt_of(checked, sealed) for sealed in table.state.seals]


@get("/tables/{table_id:str}/disputes", summary="A table's disputes and their resolutions")
async def list_table_disputes(request: Request,  # type: ignore[type-arg]
                              table_id: FromPath[str]) -> list[DisputeView]:
    checked = streams.table_id(table_id)
    runtime = runtime_of(request)
    try:
        await runtime.seating.table(checked)
    except Refusal as error:
        raise refused(error) from None
    return await table_disputes(runtime.infra.store, checked)


@post("/tables/{table_id:str}/disputes", status_code=201,
      summary="Dispute a finished hand (a seated person, with their seat's token)")
async def open_dispute(request: Request, table_id: FromPath[str],  # type: ignore[type-arg]
                       data: JSONBody[OpenDispute]) -> DisputeView:
    runtime = runtime_of(request)
    data = await strictly(request, OpenDispute)
    checked = streams.table_id(table_id)
    try:
        opened = await runtime.disputes.open(checked, data.token, data.game, data.hand,
                                             data.reason)
    except Refusal as error:
        raise refused(error) from None
    views = await table_disputes(runtime.infra.store, checked)
    return next(v for v in views if v.dispute == opened.opened.dispute)


# ---------------------------------------------------------------- operators


def operator_only(request: Request) -> None:  # type: ignore[type-arg]
    """NotAnOperator unless the request bears the settings' operator token."""
    expected = runtime_of(request).settings.operator_token
    given = request.headers.get("authorization", "")
    scheme, _, token = given.partition(" ")
    if expected is None:
        raise refused(NotAnOperator("operators are off here: the setting operator_token "
                                    "is not set"))
    if scheme.lower() != "bearer" or not secrets.compare_digest(token.encode(),
                                                                expected.encode()):
        raise refused(NotAnOperator("this needs the operator token (Authorization: Bearer ...)"))


@get("/operator/api/disputes", summary="Every dispute (operators)")
async def operator_disputes(request: Request) -> list[DisputeView]:  # type: ignore[type-arg]
    operator_only(request)
    return await every_dispute(runtime_of(request).infra.pool)


@get("/operator/api/disputes/{table_id:str}/{number:int}",
     summary="One dispute with its verified record, receipts and checkpoints (operators)")
async def operator_dispute(request: Request, table_id: FromPath[str],  # type: ignore[type-arg]
                           number: FromPath[int]) -> DisputeFile:
    operator_only(request)
    runtime = runtime_of(request)
    checked = streams.table_id(table_id)
    try:
        table = await runtime.seating.table(checked, fresh=True)
        dispute_of(table.state.disputes, number)
        # Rebuilding every hand is CPU work: off the event loop.
        return await dispute_file(runtime.infra.store, checked, number,
                                  run=asyncio.to_thread)
    except Refusal as error:
        raise refused(error) from None


@post("/operator/api/disputes/{table_id:str}/{number:int}/resolve", status_code=200,
      summary="Resolve a dispute: upheld or rejected, with a note the player reads")
async def resolve_dispute(request: Request, table_id: FromPath[str],  # type: ignore[type-arg]
                          number: FromPath[int],
                          data: JSONBody[ResolveDispute]) -> DisputeView:
    operator_only(request)
    runtime = runtime_of(request)
    data = await strictly(request, ResolveDispute)
    checked = streams.table_id(table_id)
    try:
        await runtime.disputes.resolve(checked, number, data.verdict, data.note, data.by)
    except Refusal as error:
        raise refused(error) from None
    views = await table_disputes(runtime.infra.store, checked)
    return next(v for v in views if v.dispute == number)


EVIDENCE_READERS = [signing_keys, newest_checkpoint, checkpoint_at, table_receipts,
                    list_table_disputes, operator_disputes, operator_dispute]
EVIDENCE_WRITERS = [open_dispute, resolve_dispute]


