"""Thin HTTP handlers for the site's keys, checkpoints, receipts and disputes.

What holds the site to its record: its public keys, its signed checkpoints, a
table's receipts, and disputes (opened by a seated person; listed, read and
resolved by operators). Each id is checked at the edge; each refusal is a 4xx
with a stable code and writes nothing."""

from __future__ import annotations

import asyncio
import secrets

from litestar import Request, Response, get, post
from litestar.exceptions import HTTPException
from litestar.params import FromPath, FromQuery, JSONBody

from muggins.domain import streams
from muggins.evidence.checkpoints import checkpoint_at_or_after, latest_checkpoint, site_keys
from muggins.evidence.documents import Checkpoint, Receipt
from muggins.evidence.receipts import receipt_of
from muggins.replay.record import RecordError
from muggins.tables.admission import Payer, Throttled
from muggins.tables.client_address import client_address
from muggins.tables.disputes import dispute_of, every_dispute, table_disputes
from muggins.tables.errors import BadRequest, NotAnOperator, Refusal
from muggins.tables.http import refused, runtime_of, strictly, throttled
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
      summary="Dispute a finished hand (a seated person, with their seat's token)",
      description="With the receipt the page kept for the hand.  A few a minute per "
                  "address (429 with Retry-After beyond).")
async def open_dispute(request: Request, table_id: FromPath[str],  # type: ignore[type-arg]
                       data: JSONBody[OpenDispute]) -> DisputeView:
    runtime = runtime_of(request)
    data = await strictly(request, OpenDispute)
    checked = streams.table_id(table_id)
    try:
        runtime.admission.admit("dispute", [Payer("address", client_address(request))])
    except Throttled as error:
        raise await throttled(error) from None
    try:
        opened = await runtime.disputes.open(checked, data.token, data.game, data.hand,
                                             data.reason, data.receipt)
    except Refusal as error:
        raise refused(error) from None
    views = await table_disputes(runtime.infra.store, checked)
    return next(v for v in views if v.dispute == opened.opened.dispute)


@get("/tables/{table_id:str}/evidence",
     summary="The evidence file of a table, a game or a hand, for anyone to check offline",
     description="docs/fairness.md, \"The evidence file\"; checked by "
                 "docs/check_evidence.py.  A few new ones a minute per address, a dozen "
                 "for everyone together (429 beyond); a closed table's are kept.")
async def evidence_file(request: Request, table_id: FromPath[str],  # type: ignore[type-arg]
                        game: FromQuery[int | None] = None,
                        hand: FromQuery[int | None] = None) -> Response[bytes]:
    runtime = runtime_of(request)
    checked = streams.table_id(table_id)
    if hand is not None and game is None:
        raise refused(BadRequest("a hand is named with its game: ?game=N&hand=N"))
    if game is not None:
        streams.hand_ref(checked, game, hand or 1)  # NoSuchHand: 404 for numbers out of range
    try:
        body = await runtime.evidence_files.file(checked, game, hand, client_address(request))
    except Throttled as error:
        raise await throttled(error) from None
    except Refusal as error:
        raise refused(error) from None
    except RecordError as error:
        text = str(error)
        code, status = (("no-such-table", 404) if text.startswith("there is no table")
                        else ("no-such-hand", 404) if "has no game" in text
                        or "has no finished hand" in text
                        else ("no-evidence", 409))  # a gap in the store: it cannot be linked
        raise HTTPException(status_code=status, detail=text, extra={"code": code}) from None

    scope = "".join(f"-{letter}{number}" for letter, number in (("g", game), ("h", hand))
                    if number is not None)
    return Response(body, media_type="application/json", headers={
        "Content-Disposition": f'attachment; filename="muggins-{checked}{scope}-evidence.json"'})


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
                          number: FromPath[int]) -> DisputeView:
    """The body, ``{verdict, note, by}`` (ResolveDispute), is read only once
    the operator token is proven: nobody else learns its schema."""
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
                    list_table_disputes, evidence_file, operator_disputes, operator_dispute]
EVIDENCE_WRITERS = [open_dispute, resolve_dispute]


