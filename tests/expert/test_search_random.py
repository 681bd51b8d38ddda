"""The search's own generator (``muggins.expert.search_random``): the
published xoshiro128** sequence, uniform draws, and the same numbers
compiled and interpreted."""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

from muggins.expert import search_random
from muggins.expert.search_random import SearchRandom


def test_it_draws_the_published_xoshiro128_starstar_sequence() -> None:
    """From the state (1, 2, 3, 4), the reference implementation's first words."""
    rng = SearchRandom(1, 2, 3, 4)
    assert [rng.next_word() for _ in range(6)] == [
        11520, 0, 5927040, 70819200, 2031721883, 1637235492,
    ]


def test_the_same_seed_draws_the_same_numbers_and_another_seed_others() -> None:
    first, again, other = (SearchRandom.from_seed(s) for s in (2**100 + 7, 2**100 + 7, 7))
    drawn = [first.next_word() for _ in range(50)]
    assert drawn == [again.next_word() for _ in range(50)]
    assert drawn != [other.next_word() for _ in range(50)]
    # Every 32-bit chunk of a 128-bit seed counts.
    states = {_state(SearchRandom.from_seed(1 << shift)) for shift in (0, 32, 64, 96)}
    assert len(states) == 4
    # The one state xoshiro never leaves is never made.
    assert any(_state(SearchRandom.from_seed(0)))


def _state(rng: SearchRandom) -> tuple[int, int, int, int]:
    return (rng.s0, rng.s1, rng.s2, rng.s3)


def test_below_and_random_are_uniform_and_in_range() -> None:
    rng = SearchRandom.from_seed(11)
    counts = Counter(rng.below(6) for _ in range(60_000))
    assert sorted(counts) == list(range(6))
    assert all(9_400 < n < 10_600 for n in counts.values()), counts
    floats = [rng.random() for _ in range(20_000)]
    assert all(0.0 <= x < 1.0 for x in floats)
    assert 0.48 < sum(floats) / len(floats) < 0.52
    assert max(rng.below(1) for _ in range(1_000)) == 0


def test_copy_repeats_and_spawn_starts_a_new_stream() -> None:
    rng = SearchRandom.from_seed(3)
    rng.next_word()
    twin = rng.copy()
    assert [rng.next_word() for _ in range(20)] == [twin.next_word() for _ in range(20)]
    child = rng.spawn()
    assert [child.next_word() for _ in range(20)] != [rng.next_word() for _ in range(20)]


def _interpreted() -> ModuleType:
    """search_random.py run by the interpreter, whether or not a compiled build shadows it."""
    source = Path(search_random.__file__).with_name("search_random.py")
    spec = importlib.util.spec_from_file_location("search_random_interpreted", source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_compiled_and_interpreted_draw_the_same_numbers() -> None:
    """The i64 words are machine integers compiled and ints interpreted:
    nothing may overflow in one and not the other."""
    if not search_random.__file__.endswith((".so", ".pyd")):
        pytest.skip("a pure-Python build: there is no compiled generator to compare")
    plain = _interpreted().SearchRandom.from_seed(2**127 + 12345)
    fast = SearchRandom.from_seed(2**127 + 12345)
    for _ in range(2_000):
        assert fast.next_word() == plain.next_word()
        assert fast.below(91) == plain.below(91)
        assert fast.random() == plain.random()
    assert fast.spawn().next_word() == plain.spawn().next_word()
