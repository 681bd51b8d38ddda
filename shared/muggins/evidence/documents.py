"""Signed checkpoints and receipts: their fields, signed bytes and files.

What they hold, the exact bytes the site signs, and reading them back from a
file with a clear error for anything that is not one (docs/fairness.md,
"Signed checkpoints", "Receipts").

A signed document is a JSON object. Its signature (hex) is the site's Ed25519
signature of the canonical JSON (keys sorted, no whitespace, UTF-8:
muggins.eventstore.store.canonical_json) of every other field."""

from __future__ import annotations

import datetime
from typing import Annotated, Final, Literal, TypeVar

import msgspec

from muggins.eventstore.records import canonical_json, recorded_at_text
from muggins.evidence.signing import PublicKeys, SiteKey, key_id_of, signature_holds

T = TypeVar("T")

Hex32 = Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{64}$")]
Hex64 = Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{128}$")]
KeyId = Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{16}$")]
Instant = Annotated[str, msgspec.Meta(
    pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z$")]
Count = Annotated[int, msgspec.Meta(ge=1, le=2**62)]
StreamName = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_-]{1,64}$")]
TableName = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9]{4,32}$")]

#: The largest receipt or checkpoint file read (a table's receipts: a few hundred KiB).
MAX_DOCUMENT_BYTES = 1024 * 1024

CHECKPOINT_FORMAT: Final = "muggins-checkpoint"
RECEIPT_FORMAT: Final = "muggins-receipt"


class Checkpoint(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The site's word that the whole store's chain stood at ``global_chain``
    after position ``position``, at ``signed_at``."""

    format: Literal["muggins-checkpoint"] = CHECKPOINT_FORMAT
    position: Count
    global_chain: Hex32
    signed_at: Instant
    key_id: KeyId
    signature: Hex64


class Receipt(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What every seat at a table is given when a hand ends: where the
    hand's record stood in its game's stream and in the whole store."""

    format: Literal["muggins-receipt"] = RECEIPT_FORMAT
    table: TableName
    game: Count
    hand: Count
    #: The game's stream, at the hand's last event (HandEnded, or GameEnded after it).
    stream: StreamName
    version: Count
    chain: Hex32
    position: Count
    global_chain: Hex32
    signed_at: Instant
    key_id: KeyId
    signature: Hex64


Signed = Checkpoint | Receipt


class DocumentError(ValueError):
    """A file that is not a well-formed signed document; the message says what is wrong."""


class Forgery(ValueError):
    """A document whose signature is not the site's."""


def signed_bytes(document: Signed) -> bytes:
    """The bytes the site signs: the canonical JSON of every field but the signature."""
    fields = msgspec.to_builtins(document)
    del fields["signature"]
    return canonical_json(fields)


def now_text() -> str:
    return recorded_at_text(datetime.datetime.now(datetime.UTC))


def sign_checkpoint(key: SiteKey, position: int, global_chain: bytes) -> Checkpoint:
    unsigned = Checkpoint(position=position, global_chain=global_chain.hex(),
                          signed_at=now_text(), key_id=key.key_id, signature="0" * 128)
    return msgspec.structs.replace(
        unsigned, signature=key.sign(signed_bytes(unsigned)).hex())


def sign_receipt(key: SiteKey, *, table: str, game: int, hand: int, stream: str, version: int,
                 chain: bytes, position: int, global_chain: bytes) -> Receipt:
    unsigned = Receipt(table=table, game=game, hand=hand, stream=stream, version=version,
                       chain=chain.hex(), position=position, global_chain=global_chain.hex(),
                       signed_at=now_text(), key_id=key.key_id, signature="0" * 128)
    return msgspec.structs.replace(
        unsigned, signature=key.sign(signed_bytes(unsigned)).hex())


def check_signature(document: Signed, keys: PublicKeys) -> None:
    """Forgery (in those words) unless one of the site's keys signed ``document``."""
    kind = "receipt" if isinstance(document, Receipt) else "checkpoint"
    public_key = keys.get(document.key_id)
    if public_key is None or key_id_of(public_key) != document.key_id:
        known = ", ".join(sorted(keys)) or "none"
        raise Forgery(f"this {kind} is a forgery: it names key {document.key_id}, which is "
                      f"not one of the site's keys ({known})")
    if not signature_holds(public_key, bytes.fromhex(document.signature),
                           signed_bytes(document)):
        raise Forgery(f"this {kind} is a forgery: its signature is not the site's (key "
                      f"{document.key_id} did not sign these fields; one was changed, or "
                      "somebody else signed it)")


_checkpoint = msgspec.json.Decoder(Checkpoint)
_receipts = msgspec.json.Decoder(Receipt | list[Receipt])


def read_checkpoint(data: bytes, source: str) -> Checkpoint:
    """A checkpoint from a file's (or an answer's) bytes; DocumentError says what is wrong."""
    return _decode(data, source, "checkpoint", _checkpoint)


def read_receipts(data: bytes, source: str) -> list[Receipt]:
    """One receipt, or a list of them (the page's "all receipts" download)."""
    found = _decode(data, source, "receipt", _receipts)
    receipts = found if isinstance(found, list) else [found]
    if not receipts:
        raise DocumentError(f"{source} holds an empty list: no receipt to check")
    return receipts


def _decode(data: bytes, source: str, kind: str, decoder: msgspec.json.Decoder[T]) -> T:
    if len(data) > MAX_DOCUMENT_BYTES:
        raise DocumentError(f"{source} is {len(data)} bytes: a {kind} file is at most "
                            f"{MAX_DOCUMENT_BYTES} bytes")
    if not data.strip():
        raise DocumentError(f"{source} is empty: it holds no {kind}")
    try:
        return decoder.decode(data)
    except msgspec.ValidationError as error:
        raise DocumentError(f"{source} is not a muggins {kind}: {error}") from None
    except msgspec.DecodeError as error:
        cut = "truncated" in str(error).lower()
        raise DocumentError(
            f"{source} is {'cut short' if cut else 'not JSON'} ({error}): it is not a whole "
            f"{kind} file") from None
