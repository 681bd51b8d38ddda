"""The search's own generator (``muggins.expert.search_random``): the
published xoshiro128** sequence, uniform draws, and the same numbers
compiled and interpreted."""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path
from types import ModuleType

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


def _reference_words(state: tuple[int, int, int, int], count: int) -> list[int]:
    """xoshiro128** as published, in plain ints masked to 32 bits: the
    yardstick for the module's i64 arithmetic, compiled or not."""
    s0, s1, s2, s3 = state
    mask = 0xFFFFFFFF
    words = []
    for _ in range(count):
        times_five = (s1 * 5) & mask
        words.append((((times_five << 7 | times_five >> 25) & mask) * 9) & mask)
        shifted = (s1 << 9) & mask
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= shifted
        s3 = (s3 << 11 | s3 >> 21) & mask
    return words


def test_every_build_draws_the_reference_numbers() -> None:
    """The i64 words are machine integers compiled and ints interpreted:
    nothing may overflow in either.  The module as it runs here (compiled in
    the suite) and the same source interpreted both draw, from a 128-bit
    seed, the words the plain-int reference gives, and ``below`` and
    ``random`` are those words scaled as documented."""
    seed = 2**127 + 12345
    for module_random in (SearchRandom, _interpreted().SearchRandom):
        rng = module_random.from_seed(seed)
        twin = module_random.from_seed(seed)
        state = (rng.s0, rng.s1, rng.s2, rng.s3)
        assert state == (twin.s0, twin.s1, twin.s2, twin.s3)
        words = _reference_words(state, 6_000)
        drawn = []
        for word in range(0, 6_000, 3):
            drawn.append(rng.next_word())
            below = rng.below(91)
            assert below == ((words[word + 1] >> 3) * 91) >> 29
            drawn.append(words[word + 1])
            assert rng.random() == words[word + 2] / 2**32
            drawn.append(words[word + 2])
        assert drawn == words
    fast, plain = SearchRandom.from_seed(seed), _interpreted().SearchRandom.from_seed(seed)
    assert fast.spawn().next_word() == plain.spawn().next_word()
