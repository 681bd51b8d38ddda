"""The fairness algorithm, pinned by test vectors docs/fairness.md repeats."""

from __future__ import annotations

import hashlib
import struct
from collections import Counter
from collections.abc import Callable

import pytest

from muggins.rules.errors import InvalidSeed
from muggins.rules.shuffle import (
    LOTTERY_LABEL,
    SHUFFLE_LABEL,
    _swap_reading_bytes,
    _swap_reading_values,
    commitment,
    lottery,
    seed_from_hex,
    shuffled,
    stream_bytes,
    stream_values,
)
from muggins.rules.tiles import tile_set

ZERO_SEED = bytes(32)
COUNTING_SEED = bytes(range(32))


def test_commitment_is_sha256_of_the_seed_bytes() -> None:
    assert commitment(ZERO_SEED) == hashlib.sha256(ZERO_SEED).hexdigest()
    assert commitment(ZERO_SEED) == (
        "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
    )


def test_stream_is_shake256_of_label_then_seed_read_big_endian() -> None:
    data = hashlib.shake_256(SHUFFLE_LABEL + COUNTING_SEED).digest(16)
    expected = (int.from_bytes(data[:8], "big"), int.from_bytes(data[8:], "big"))
    assert stream_values(COUNTING_SEED, SHUFFLE_LABEL, 2) == expected


# Test vectors: change them only with a new SHUFFLE_VERSION.
VECTORS = {
    ZERO_SEED: "5-1 3-0 6-1 2-2 6-6 6-5 4-1 6-3 5-5 5-4 4-2 3-1 2-0 4-0 "
    "6-4 1-0 0-0 3-2 2-1 4-4 1-1 5-3 6-2 6-0 5-0 5-2 4-3 3-3",
    COUNTING_SEED: "4-4 6-0 6-3 2-2 6-1 6-4 6-5 5-4 4-1 1-1 2-1 5-1 5-5 3-0 "
    "6-2 5-2 4-3 4-0 1-0 2-0 6-6 3-3 3-2 5-0 5-3 3-1 4-2 0-0",
}


def _deck_text(seed: bytes, max_pip: int = 6) -> str:
    return " ".join(str(t) for t in shuffled(seed, tile_set(max_pip)))


def test_shuffle_vectors() -> None:
    for seed, expected in VECTORS.items():
        assert _deck_text(seed) == expected


def test_lottery_vectors() -> None:
    assert [lottery(COUNTING_SEED, seats) for seats in (2, 3, 4)] == [0, 0, 2]


def test_shuffle_is_a_permutation_of_every_set() -> None:
    for max_pip in (6, 9, 12, 15):
        deck = shuffled(COUNTING_SEED, tile_set(max_pip))
        assert sorted(deck) == list(tile_set(max_pip))


def test_shuffle_positions_are_roughly_uniform() -> None:
    # 2,800 shuffles: each tile lands first about 100 times; a broken shuffle is far off.
    firsts = Counter(shuffled(i.to_bytes(32, "big"), tile_set(6))[0] for i in range(2800))
    assert len(firsts) == 28
    assert min(firsts.values()) > 50 and max(firsts.values()) < 160


@pytest.mark.parametrize("bad", ["", "zz" * 32, "00" * 31, "00" * 33, "0" * 63])
def test_seed_must_be_32_bytes_of_hex(bad: str) -> None:
    with pytest.raises(InvalidSeed):
        seed_from_hex(bad)


def _reference_shuffle(seed: bytes, n: int) -> list[int]:
    """docs/fairness.md read literally, with nothing shared with the engine."""
    stream = hashlib.shake_256(b"muggins/shuffle/v1" + seed).digest(8 * 4 * n)
    values = [int.from_bytes(stream[k : k + 8], "big") for k in range(0, len(stream), 8)]
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        while True:
            u = values.pop(0)
            if u < 2**64 - (2**64 % (i + 1)):
                break
        j = u % (i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def test_engine_shuffle_equals_a_literal_reading_of_the_spec() -> None:
    for max_pip in (6, 9, 12):
        tiles = tile_set(max_pip)
        for k in range(30):
            seed = hashlib.sha256(bytes([k, max_pip])).digest()
            expected = [tiles[i] for i in _reference_shuffle(seed, len(tiles))]
            assert shuffled(seed, tiles) == expected


def _stream_of(values: list[int]) -> Callable[[bytes, bytes, int], bytes]:
    """A stream reader giving ``values`` (then 7s) instead of SHAKE-256 output."""

    def fake(seed: bytes, label: bytes, count: int) -> bytes:
        read = values[:count] + [7] * max(0, count - len(values))
        return struct.pack(f">{count}Q", *read)

    return fake


def _literal_shuffle(values: list[int], n: int) -> list[int]:
    """docs/fairness.md read literally over a given stream of values."""
    stream = iter([*values, *([7] * 4 * n)])
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        u = next(stream)
        while u >= 2**64 - (2**64 % (i + 1)):
            u = next(stream)
        j = u % (i + 1)
        order[i], order[j] = order[j], order[i]
    return order


@pytest.mark.parametrize(
    ("rejected_at", "near_limit_at"),
    [([0], []), ([3, 4], []), ([26], []), ([0, 1, 2, 30, 31], []), ([], [5]), ([2], [0, 9])],
)
def test_shuffle_skips_rejected_values_wherever_they_fall(
    rejected_at: list[int], near_limit_at: list[int]
) -> None:
    # Rejections happen about once in 2^57 hands, so a real seed never shows
    # one: feed the shuffle a stream with values past every limit instead,
    # and values just under the limits (high half all ones, yet accepted).
    values = [(k * 0x9E3779B97F4A7C15) % 2**60 for k in range(40)]
    for position in rejected_at:
        values[position] = 2**64 - 1
    for position in near_limit_at:
        values[position] = 2**64 - 2**20 + position
    tiles = tile_set(6)
    expected = [tiles[i] for i in _literal_shuffle(values, len(tiles))]
    assert shuffled(ZERO_SEED, tiles, read=_stream_of(values)) == expected


@pytest.mark.parametrize("rejected", [0, 1, 4, 5, 9])
def test_lottery_skips_rejected_values(rejected: int) -> None:
    # 3 seats: 2^64 - 1 is the one value at or past the limit; the first value below it picks.
    limit_for_three = 2**64 - 2**64 % 3
    assert limit_for_three == 2**64 - 1
    stream = _stream_of([limit_for_three] * rejected + [10, 11])
    assert lottery(ZERO_SEED, 3, read=stream) == 10 % 3


def test_seven_bytes_of_ones_across_two_values_reject_nothing() -> None:
    # 0x..00FFFFFF then 0xFFFFFFFF..: seven 0xff bytes in a row, but neither
    # value is past a limit.  The shuffle takes its general path here.
    values = [(k * 0x9E3779B97F4A7C15) % 2**60 for k in range(40)]
    values[6] = 0x0000_0000_00FF_FFFF
    values[7] = 0xFFFF_FFFF_0000_0000
    tiles = tile_set(6)
    expected = [tiles[i] for i in _literal_shuffle(values, len(tiles))]
    assert shuffled(ZERO_SEED, tiles, read=_stream_of(values)) == expected


def test_both_ways_of_reading_the_stream_swap_alike() -> None:
    # The compiled engine reads the stream byte by byte, the interpreted one
    # unpacks whole values: each is tested here whichever way this runs.
    for max_pip in (6, 9, 12, 15):
        n = len(tile_set(max_pip))
        for k in range(50):
            data = stream_bytes(bytes([k, max_pip]) * 16, SHUFFLE_LABEL, n - 1)
            by_values, by_bytes = list(range(n)), list(range(n))
            _swap_reading_values(by_values, data)
            _swap_reading_bytes(by_bytes, data)
            assert by_values == by_bytes


def test_engine_lottery_equals_a_literal_reading_of_the_spec() -> None:
    for k in range(40):
        seed = hashlib.sha256(bytes([k])).digest()
        first = hashlib.shake_256(LOTTERY_LABEL + seed).digest(8)
        for seats in (2, 3, 4):
            # A first value past the limit is rejected about once in 2^62 draws.
            assert lottery(seed, seats) == int.from_bytes(first, "big") % seats


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_the_lottery_takes_a_value_whose_high_half_is_all_ones_yet_under_the_limit(
    seats: int,
) -> None:
    # The lottery's quick reading takes a first value whose high half is not
    # all ones; this one's is, so it reads the stream the general way.
    value = 2**64 - 2**20 + 5
    assert lottery(ZERO_SEED, seats, read=_stream_of([value, 10])) == value % seats


def test_a_set_larger_than_the_quick_readings_tables_is_shuffled_the_general_way() -> None:
    # 137 places: past the 136 the rejection tables hold (double-15 has 136 tiles).
    seed = bytes(range(32))
    values = list(stream_values(seed, SHUFFLE_LABEL, 136 + 8))
    assert shuffled(seed, range(137)) == _literal_shuffle(values, 137)


def test_more_rejections_than_spare_values_read_the_stream_on() -> None:
    values = [2**64 - 1] * 10 + [5, 6, 7]
    assert shuffled(ZERO_SEED, range(3), read=_stream_of(values)) == _literal_shuffle(values, 3)
