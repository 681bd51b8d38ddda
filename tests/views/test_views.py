"""What a reader sees of a game: properties over random games of every preset."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from muggins.bots.levels import RandomBot
from muggins.bots.selfplay import make_bots, play_game
from muggins.domain.views import count_parts, game_view
from muggins.rules.game import evolve
from muggins.rules.presets import PRESETS, preset, seatings
from muggins.rules.state import GameState

SEATINGS = [(name, seats, partners) for name in PRESETS for seats, partners in seatings(name)]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(SEATINGS), st.binary(min_size=8, max_size=8))
def test_the_count_parts_add_up_to_the_count(seating: tuple[str, int, bool],
                                              seed: bytes) -> None:
    name, seats, partners = seating
    rules = preset(name, seats, partners)
    rng = random.Random(seed)
    bots = [RandomBot(random.Random(rng.random())) for _ in range(seats)]
    state: GameState | None = None
    for event in play_game(rules, seed, bots):
        state = evolve(state, event)
        if state.hand is not None:
            layout = state.hand.layout
            assert sum(count_parts(layout)) == layout.count
            view = game_view(state, 0, [None] * seats, [True] * seats)
            assert view.layout.count_parts == count_parts(layout)
            pending = state.hand.pending
            assert (view.unclaimed is None) == (pending is None)


def test_an_unclaimed_count_is_shown_to_everyone() -> None:
    rules = preset("classic-muggins", 2, False)
    bots = make_bots(["random", "random"], b"unclaimed-seed")
    state: GameState | None = None
    for event in play_game(rules, b"unclaimed-seed", bots):
        state = evolve(state, event)
        if state.hand is not None and state.hand.pending is not None:
            for reader in (0, 1, None):
                view = game_view(state, reader, ["a", "b"], [True, True])
                assert view.unclaimed is not None
                assert view.unclaimed.points == state.hand.pending.points
            return
    raise AssertionError("no play left a count unclaimed in this game")
