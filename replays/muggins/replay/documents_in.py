"""Reading signed documents and keys from a file or the site's address.

Where a person keeps them: a file, or an address of the site (``https://…/checkpoints/latest``)."""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path

import msgspec

from muggins.evidence.documents import (
    MAX_DOCUMENT_BYTES,
    Checkpoint,
    DocumentError,
    Receipt,
    read_checkpoint,
    read_receipts,
)
from muggins.evidence.signing import PublicKeys, key_id_of


class KeysFile(msgspec.Struct, frozen=True):
    class Key(msgspec.Struct, frozen=True):
        key_id: str
        public_key: str

    format: str
    keys: list[Key]


def fetch_bytes(source: str) -> bytes:
    """A file's bytes, or an http(s) address's answer (at most
    MAX_DOCUMENT_BYTES + 1 read: a larger answer is refused by the reader)."""
    if source.startswith(("http://", "https://")):
        try:
            with urllib.request.urlopen(source, timeout=10) as answer:
                return bytes(answer.read(MAX_DOCUMENT_BYTES + 1))
        except (urllib.error.URLError, OSError, ValueError) as error:
            raise DocumentError(f"cannot fetch {source}: {error}") from None
    try:
        return Path(source).read_bytes()
    except OSError as error:
        raise DocumentError(f"cannot read {source}: {error.strerror}") from None


def checkpoint_from(source: str) -> Checkpoint:
    return read_checkpoint(fetch_bytes(source), source)


def receipts_from(source: str) -> list[Receipt]:
    return read_receipts(fetch_bytes(source), source)


def keys_from(source: str) -> PublicKeys:
    """The site's public keys from a keys file or /.well-known/muggins-keys.json."""
    data = fetch_bytes(source)
    try:
        found = msgspec.json.decode(data, type=KeysFile)
    except (msgspec.ValidationError, msgspec.DecodeError) as error:
        raise DocumentError(f"{source} is not a muggins keys file: {error}") from None
    if found.format != "muggins-keys":
        raise DocumentError(f"{source} is not a muggins keys file (format {found.format!r})")
    keys: dict[str, bytes] = {}
    for key in found.keys:
        try:
            raw = bytes.fromhex(key.public_key)
        except ValueError:
            raw = b""
        if len(raw) != 32 or key_id_of(raw) != key.key_id:
            raise DocumentError(f"{source}: key {key.key_id!r} is not a 32-byte key whose id "
                                "is the start of its SHA-256")
        keys[key.key_id] = raw
    return keys
