"""The seeded shuffle: the deal, the draws and the leader lottery derive from
the hand's seed alone, by an algorithm another language can reimplement.

Algorithm version 1 (``SHUFFLE_VERSION``; docs/fairness.md has test vectors):

* Seed: 32 secret random bytes per hand.  Commitment: SHA-256 of the seed
  bytes, lowercase hex, published when the hand starts; the seed is revealed
  when it ends.
* Stream for a label: the SHAKE-256 output (FIPS 202) of ``label || seed``,
  read as unsigned 64-bit big-endian integers u0, u1, u2 ...  Labels are the
  ASCII strings "muggins/shuffle/v1" and "muggins/lottery/v1".  (An XOF
  gives any number of bytes from one call; a longer output starts with the
  shorter one, so the stream is well defined however much is read.)
* Uniform integer below m: take the next u; while u >= 2^64 - (2^64 mod m),
  discard it and take the next (rejection keeps it exactly uniform); the
  answer is u mod m.
* Shuffle: start from the set in canonical order (tiles.tile_set); for
  i = n-1 down to 1: j = uniform below i+1 from the shuffle stream; swap
  positions i and j (Fisher-Yates).
* Deal: seat s takes positions s*k .. s*k+k-1 of the shuffled set (k tiles
  per seat); the rest, in order, is the boneyard, drawn from its front.
* Lottery: the leader is uniform below the seat count, from the first values
  of the lottery stream.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Callable, Sequence
from functools import cache
from typing import Final, TypeVar

from mypy_extensions import i64

from muggins.rules.errors import InvalidSeed

SHUFFLE_VERSION: Final = 1
SEED_BYTES: Final = 32
SHUFFLE_LABEL: Final = b"muggins/shuffle/v1"
LOTTERY_LABEL: Final = b"muggins/lottery/v1"
HAND_SEED_LABEL: Final = b"muggins/hand-seed/v1"

_TWO_64: Final = 1 << 64
#: Values read beyond the n-1 a shuffle needs, so a rejection rarely costs a second call.
_SPARE_VALUES: Final = 8
#: The rejection limit 2^64 - (2^64 mod m) for every m a set up to double-15 needs.
_LIMITS: Final[tuple[int, ...]] = tuple(_TWO_64 - _TWO_64 % m if m else 0 for m in range(137))
#: 2^32 mod m for the same m (see _swap_reading_bytes).
_HIGH_MOD: Final[list[i64]] = [(1 << 32) % m if m else 0 for m in range(137)]
#: Seven bytes of all ones: how every rejected value starts (the lowest limit
#: above is 2^64 - 127).
_SEVEN_ONES: Final = b"\xff" * 7
#: Whether this module runs compiled by mypyc (hatch_build.py): then its file
#: is the extension module, not the source.
_COMPILED: Final = __file__.endswith((".so", ".pyd"))

T = TypeVar("T")

#: The hashes, bound once (compiled, a module attribute is a lookup by name at every use).
_SHA256: Final = hashlib.sha256
_SHAKE_256: Final = hashlib.shake_256


#: Reads the bytes of the first ``count`` values of a stream: (seed, label, count).
StreamReader = Callable[[bytes, bytes, int], bytes]


def seed_from_hex(seed_hex: str) -> bytes:
    """Decode a hex seed, refusing anything that is not exactly 32 bytes."""
    try:
        seed = bytes.fromhex(seed_hex)
    except ValueError:
        raise InvalidSeed("a seed is 64 hexadecimal digits") from None
    if len(seed) != SEED_BYTES:
        raise InvalidSeed(f"a seed is {SEED_BYTES} bytes (64 hex digits), not {len(seed)}")
    return seed


def commitment(seed: bytes) -> str:
    """The public commitment to a seed: SHA-256 of its bytes, lowercase hex."""
    return _SHA256(seed).hexdigest()


def stream_bytes(seed: bytes, label: bytes, count: int) -> bytes:
    """The bytes of the first ``count`` values of the ``label`` stream."""
    return _SHAKE_256(label + seed).digest(8 * count)


def stream_values(seed: bytes, label: bytes, count: int) -> tuple[int, ...]:
    """The first ``count`` unsigned 64-bit values of the ``label`` stream."""
    return _values(stream_bytes(seed, label, count))


def _values(data: bytes) -> tuple[int, ...]:
    """Bytes read as unsigned 64-bit big-endian values."""
    return _reader(len(data) // 8).unpack(data)


@cache
def _reader(count: int) -> struct.Struct:
    """The unpacker of ``count`` big-endian 64-bit values (made once per count)."""
    return struct.Struct(f">{count}Q")


def _next_accepted(
    seed: bytes, values: tuple[int, ...], position: int, limit: int, read: StreamReader
) -> tuple[int, int, tuple[int, ...]]:
    """Read on past a rejected value: (accepted value, new position, values read)."""
    while True:
        if position == len(values):
            values = _values(read(seed, SHUFFLE_LABEL, 2 * len(values)))
        value = values[position]
        position += 1
        if value < limit:
            return value, position, values


def shuffled(seed: bytes, items: Sequence[T], read: StreamReader | None = None) -> list[T]:
    """``items`` in the order the seed's Fisher-Yates shuffle gives.

    ``read`` is where the stream comes from: ``stream_bytes`` (None) but in
    the tests that feed it values a real seed practically never gives.
    """
    deck = list(items)
    n = len(deck)
    if n < 2:
        return deck
    if read is None:  # compiled, a direct call; through ``read``, a Python call
        data = stream_bytes(seed, SHUFFLE_LABEL, n - 1)
        read = stream_bytes
    else:
        data = read(seed, SHUFFLE_LABEL, n - 1)
    # The common case (all but about one hand in 2^48): no value is rejected.
    # A rejected value is at least 2^64 - 127, so its first seven bytes are
    # all ones; a stream without seven such bytes in a row has none.
    if n < len(_LIMITS) and _SEVEN_ONES not in data:
        if _COMPILED:
            _swap_reading_bytes(deck, data)
        else:
            _swap_reading_values(deck, data)
        return deck
    return _shuffled_with_rejections(seed, deck, read)


def _swap_reading_values(deck: list[T], data: bytes) -> None:
    """Fisher-Yates with no rejection: value k of the stream swaps i = n-1-k."""
    i = len(deck) - 1
    for value in _values(data):
        j = value % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
        i -= 1


def _swap_reading_bytes(deck: list[T], data: bytes) -> None:
    """``_swap_reading_values``, reading each value as its two 32-bit halves.

    Compiled, this is all machine arithmetic on ``i64`` (a 64-bit unsigned
    value is too big for it, its halves are not): u mod m = ((high mod m) *
    (2^32 mod m) + low) mod m, below 2^33.  Interpreted, it is several times
    slower than unpacking the values.
    """
    i: i64 = len(deck) - 1
    k: i64 = 0
    while i > 0:
        m: i64 = i + 1
        high: i64 = (i64(data[k]) << 24) | (i64(data[k + 1]) << 16) | (
            i64(data[k + 2]) << 8) | i64(data[k + 3])
        low: i64 = (i64(data[k + 4]) << 24) | (i64(data[k + 5]) << 16) | (
            i64(data[k + 6]) << 8) | i64(data[k + 7])
        j: i64 = (high % m * _HIGH_MOD[m] + low) % m
        deck[i], deck[j] = deck[j], deck[i]
        i -= 1
        k += 8


def _shuffled_with_rejections(seed: bytes, deck: list[T], read: StreamReader) -> list[T]:
    """The shuffle read step by step, skipping rejected values (the general case)."""
    n = len(deck)
    values = _values(read(seed, SHUFFLE_LABEL, n + _SPARE_VALUES))
    position = 0
    for i in range(n - 1, 0, -1):
        m = i + 1
        if position == len(values):  # more rejections than spare values: read on
            values = _values(read(seed, SHUFFLE_LABEL, 2 * len(values)))
        value = values[position]
        position += 1
        limit = _LIMITS[m] if m < len(_LIMITS) else _TWO_64 - _TWO_64 % m
        if value >= limit:
            value, position, values = _next_accepted(seed, values, position, limit, read)
        j = value % m
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def lottery(seed: bytes, seats: int, read: StreamReader | None = None) -> int:
    """The seat the lottery picks to lead (``read`` as for ``shuffled``)."""
    # Compiled, a direct call; through ``read``, a Python call.
    data = stream_bytes(seed, LOTTERY_LABEL, 1) if read is None else read(seed, LOTTERY_LABEL, 1)
    # The first value's high half below 2^32 - 1: the value is below
    # 2^64 - 2^32, under every rejection limit, so it is taken.
    high: i64 = (i64(data[0]) << 24) | (i64(data[1]) << 16) | (i64(data[2]) << 8) | i64(data[3])
    if high != 0xFFFFFFFF:
        low: i64 = (i64(data[4]) << 24) | (i64(data[5]) << 16) | (i64(data[6]) << 8) | i64(data[7])
        m: i64 = seats
        return int((high % m * _HIGH_MOD[m] + low) % m)
    if read is None:
        read = stream_bytes
    limit = _LIMITS[seats]
    count = 4
    while True:
        values = _values(read(seed, LOTTERY_LABEL, count))
        for value in values[count // 2 if count > 4 else 0 :]:
            if value < limit:
                return value % seats
        count *= 2  # every value so far rejected: read the stream on


def hand_seed(game_seed: bytes, hand_number: int) -> bytes:
    """A hand's seed derived from a game seed, for reproducible self-play.

    The service draws each hand's seed from the operating system instead;
    this derivation exists so that ``muggins simulate --seed S`` repeats.
    """
    message = HAND_SEED_LABEL + hand_number.to_bytes(8, "big") + game_seed
    return _SHAKE_256(message).digest(SEED_BYTES)


def game_seed_from_text(text: str) -> bytes:
    """A game seed from any text a person types (SHA-256 of its UTF-8)."""
    return _SHA256(text.encode("utf-8")).digest()
