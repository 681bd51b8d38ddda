"""The deal sampler's own shuffle and its boneyard's order (the sampler's
deals themselves are checked against the engine in test_knowledge.py)."""

from __future__ import annotations

import random
from collections import Counter

from muggins.bots.levels import Bot, GreedyBot, RandomBot
from muggins.expert.knowledge import Knowledge, knowledge_of, seat_view
from muggins.expert.sampler import DealSampler, shuffle
from muggins.expert.search_random import SearchRandom
from muggins.rules.commands import AnyCommand
from muggins.rules.events import Event
from muggins.rules.presets import preset
from muggins.rules.state import GameState
from tests.expert.helpers import decisions


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


def _knowledge_with_a_proven_void() -> Knowledge:
    """A seat's knowledge in a real game where the other seat is proven to lack
    some unseen tiles (it drew), with a boneyard of at least four tiles."""
    rules = preset("playelephant", 2, False)
    found: list[Knowledge] = []

    def keep(state: GameState, events: list[Event], command: AnyCommand) -> None:
        hand = state.hand
        assert hand is not None
        knowledge = knowledge_of(seat_view(state, hand.turn), events)
        other = knowledge.groups[1 - hand.turn]
        if len(hand.boneyard) >= 4 and any(
                group.count and group.excluded & knowledge.unseen for group in other):
            found.append(knowledge)

    for seed in range(200):
        bots: list[Bot] = [RandomBot(random.Random(seed)), GreedyBot()]
        for _ in decisions(rules, seed.to_bytes(8, "big"), bots, max_hands=1, on_decision=keep):
            if found:
                return found[0]
    raise AssertionError("no position with a proven void in 200 games")


def test_the_boneyards_next_tile_is_uniform_whatever_the_hands_could_not_hold() -> None:
    """The sampler fills the hands from one random order, in which the tiles
    a hand may not hold are passed over and so come first; the boneyard is
    shuffled apart, so those tiles are drawn next as often as any other
    (the review of 2026-12-03 found them drawn last)."""
    knowledge = _knowledge_with_a_proven_void()
    sampler = DealSampler(knowledge, missed_points_weight=1.0)
    rng = SearchRandom.from_seed(17)
    inside: Counter[int] = Counter()
    next_drawn: Counter[int] = Counter()
    sizes = set()
    for _ in range(20_000):
        _, boneyard = sampler.deal(rng)
        sizes.add(len(boneyard))
        inside.update(boneyard)
        next_drawn[boneyard[-1]] += 1  # a Position draws from the end
    (size,) = sizes
    never_held = knowledge.unseen
    for group in knowledge.groups[1 - knowledge.view.seat]:
        if group.count:
            never_held &= group.excluded
    voids = [tile for tile in inside if never_held >> tile & 1]
    assert voids, "the position proves no void"
    # About 15,000 deals have each tile in the boneyard: one in 13 of them
    # drawn next is 1,150 +- 35, so 15% off is over four deviations (and the
    # seed is fixed: the same numbers every run).  Drawn last, the voids
    # were 25% off.
    for tile, times in inside.items():
        share = next_drawn[tile] / times
        assert abs(share * size - 1) < 0.15, (tile, tile in voids, share, 1 / size)
