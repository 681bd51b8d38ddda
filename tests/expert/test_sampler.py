"""The deal sampler's own shuffle (the sampler's deals themselves are
checked against the engine in test_knowledge.py)."""

from __future__ import annotations

from collections import Counter

from muggins.expert.sampler import shuffle
from muggins.expert.search_random import SearchRandom


def test_the_samplers_shuffle_is_a_uniform_permutation() -> None:
    """``sampler.shuffle`` replaced ``Random.shuffle`` (interpreted Python,
    once a simulation): every order of three tiles about equally often, each
    a permutation, the same for the same seed of the search's generator."""
    rng = SearchRandom.from_seed(5)
    seen: Counter[tuple[int, ...]] = Counter()
    for _ in range(6000):
        items = [0, 1, 2]
        shuffle(items, rng)
        seen[tuple(items)] += 1
    assert len(seen) == 6 and all(800 < count < 1200 for count in seen.values()), seen
    first, again = list(range(28)), list(range(28))
    shuffle(first, SearchRandom.from_seed(9))
    shuffle(again, SearchRandom.from_seed(9))
    assert first == again and sorted(first) == list(range(28)) and first != list(range(28))
