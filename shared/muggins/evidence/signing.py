"""The site's signing key (Ed25519), its id, and the public keys that check it.

The private key lives in a file (the setting ``signing_key_file``), never in
the database: whoever holds the database's keys can rewrite events and
recompute every chain, but cannot sign.  A key's id is the first 16 hex
digits of the SHA-256 of its raw 32-byte public key; the public keys are
kept in ``signing_keys`` for good, so that what an old key signed stays
checkable after a rotation (docs/fairness.md, "The site's keys").
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)


class KeyFileError(ValueError):
    """A signing key file that cannot be used; the message says why."""


def key_id_of(public_key: bytes) -> str:
    """A public key's id: the first 16 hex digits of SHA-256 of its 32 raw bytes."""
    return hashlib.sha256(public_key).hexdigest()[:16]


class SiteKey:
    """The private key this process signs with."""

    def __init__(self, private: Ed25519PrivateKey) -> None:
        self._private = private
        #: The raw 32-byte public key.
        self.public_key = private.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        self.key_id = key_id_of(self.public_key)

    def sign(self, message: bytes) -> bytes:
        """The 64-byte Ed25519 signature of ``message``."""
        return self._private.sign(message)

    @classmethod
    def generate(cls) -> SiteKey:
        return cls(Ed25519PrivateKey.generate())

    def pem(self) -> bytes:
        return self._private.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption())

    @classmethod
    def load(cls, path: Path) -> SiteKey:
        try:
            data = path.read_bytes()
        except OSError as error:
            raise KeyFileError(f"cannot read the signing key {path}: {error.strerror}") from None
        try:
            private = serialization.load_pem_private_key(data, password=None)
        except (ValueError, TypeError) as error:
            raise KeyFileError(f"{path} is not an unencrypted PEM private key: {error}") from None
        if not isinstance(private, Ed25519PrivateKey):
            raise KeyFileError(f"{path} holds a {type(private).__name__}, not an Ed25519 key")
        return cls(private)

    @classmethod
    def load_or_create(cls, path: Path) -> SiteKey:
        """The key in ``path``; a new one written there (readable by its owner
        only) when there is no file yet.  Two processes starting at once keep
        the same key: the file is linked into place only if it is still absent."""
        if path.exists():
            return cls.load(path)
        key = cls.generate()
        path.parent.mkdir(parents=True, exist_ok=True)
        draft = path.with_name(f".{path.name}.{os.getpid()}")
        descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "wb") as file:
            file.write(key.pem())
        try:
            os.link(draft, path)
        except FileExistsError:  # another process made it first: theirs stands
            return cls.load(path)
        finally:
            draft.unlink()
        return key


def signature_holds(public_key: bytes, signature: bytes, message: bytes) -> bool:
    """Whether ``signature`` is ``public_key``'s over ``message``."""
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


#: Key id -> raw public key: the site's keys, as served at /.well-known/muggins-keys.json.
PublicKeys = Mapping[str, bytes]
