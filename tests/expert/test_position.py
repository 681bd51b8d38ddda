"""The search-only Position agrees with the engine: over thousands of random
positions of every preset and seating, the same legal plays in the same
order, the same counts and points for each, and after a play the same
position (hands, boneyard, layout, turn, scores) or the same hand ending."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from muggins.expert.position import (
    Position,
    from_state,
    move_code,
    move_end,
    move_tile,
    tables_for,
)
from muggins.rules.commands import Play, StartHand
from muggins.rules.game import legal_plays, play, points_if_played, start_game
from muggins.rules.presets import PRESETS, preset, seatings
from muggins.rules.shuffle import hand_seed
from muggins.rules.state import GameState
from muggins.rules.tiles import Tile

SEATINGS = [(name, seats, partners) for name in PRESETS for seats, partners in seatings(name)]


def same_position(mine: Position, engine: Position) -> None:
    """Everything the rules read of two positions is equal."""
    assert mine.hands == engine.hands
    assert mine.boneyard == engine.boneyard
    assert mine.lead == engine.lead
    assert mine.ends == engine.ends
    assert mine.count == engine.count
    assert mine.contributions == engine.contributions
    assert mine.arm_lengths == engine.arm_lengths
    assert mine.spinners == engine.spinners
    assert mine.lead_double_pips == engine.lead_double_pips
    assert mine.open_mask == engine.open_mask
    assert mine.turn == engine.turn
    assert mine.passes == engine.passes
    assert mine.scores == engine.scores


def check_position(state: GameState, chosen: Play) -> GameState:
    """Compare every play of ``state`` in both representations, then play ``chosen``."""
    tables = tables_for(state.ruleset)
    position = from_state(state)
    engine_plays = [p for p in legal_plays(state) if isinstance(p, Play)]
    moves = position.legal_moves()
    assert [(tables.tiles[move_tile(m)], move_end(m)) for m in moves] == [
        (p.tile, p.end) for p in engine_plays
    ]
    for move, engine_play in zip(moves, engine_plays, strict=True):
        assert position.points_after(move) == points_if_played(state, engine_play)
    claimed = Play(
        seat=chosen.seat,
        tile=chosen.tile,
        end=chosen.end,
        claim=points_if_played(state, chosen) or None,
    )
    after, events = play(state, claimed)
    played = [e for e in events if type(e).__name__ == "TilePlayed"]
    move = move_code(tables.index(chosen.tile), chosen.end)
    assert position.count_after(move) == played[0].count  # type: ignore[attr-defined]
    mine = position.copy()
    mine.play(move)
    if after.phase == "playing":
        assert not mine.hand_over
        same_position(mine, from_state(after))
    else:
        assert mine.hand_over
        assert tuple(mine.scores) == after.scores
        assert mine.game_over() == (after.phase == "game-over")
        if after.phase == "game-over":
            assert (mine.game_winner if mine.game_winner >= 0 else None) == after.winner_side
    # The copy played; the original is untouched.
    same_position(position, from_state(state))
    return after


def play_checked_game(name: str, seats: int, partners: bool, seed: int) -> int:
    """One whole game of random plays, every position checked; how many were."""
    rules = preset(name, seats, partners)
    rng = random.Random(seed)
    state, _ = start_game(rules)
    checked = 0
    hands = 0
    while state.phase != "game-over" and hands < 8:
        if state.phase == "between-hands":
            hands += 1
            state, _ = play(state, StartHand(seed=hand_seed(seed.to_bytes(8, "big"), hands).hex()))
            continue
        plays = [p for p in legal_plays(state) if isinstance(p, Play)]
        # Mostly the heaviest scoring play, so that hands reach high counts and targets.
        if rng.random() < 0.5:
            chosen = max(plays, key=lambda p: (points_if_played(state, p), p.tile.value))
        else:
            chosen = plays[int(rng.random() * len(plays))]
        state = check_position(state, chosen)
        checked += 1
    return checked


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SEATINGS), st.integers(min_value=0, max_value=2**63))
def test_position_agrees_with_the_engine(
    seating: tuple[str, int, bool], seed: int
) -> None:
    name, seats, partners = seating
    assert play_checked_game(name, seats, partners, seed) > 0


def test_every_seating_thousands_of_positions() -> None:
    """Each preset and seating, a few whole games: thousands of positions in all."""
    total = 0
    for index, (name, seats, partners) in enumerate(SEATINGS):
        for game in range(3):
            total += play_checked_game(name, seats, partners, index * 1000 + game)
    assert total >= 3000


def test_larger_sets_and_low_targets() -> None:
    """Double-nine and double-twelve, and targets low enough to end games mid-hand."""
    total = 0
    for max_pip in (9, 12):
        for name in ("playelephant", "five-up", "muggins"):
            for seats, partners in seatings(name):
                rules = preset(name, seats, partners, max_pip=max_pip, target=40)
                state, _ = start_game(rules)
                rng = random.Random(max_pip * 100 + seats)
                hands = 0
                while state.phase != "game-over" and hands < 6:
                    if state.phase == "between-hands":
                        hands += 1
                        seed = hand_seed(b"larger-sets", hands + max_pip).hex()
                        state, _ = play(state, StartHand(seed=seed))
                        continue
                    plays = [p for p in legal_plays(state) if isinstance(p, Play)]
                    state = check_position(state, plays[int(rng.random() * len(plays))])
                    total += 1
    assert total > 300


def test_tile_index_is_the_canonical_order() -> None:
    for max_pip in (6, 9, 12, 15):
        tables = tables_for(preset("playelephant", 2, False, max_pip=max_pip))
        assert [tables.index(tile) for tile in tables.tiles] == list(range(len(tables.tiles)))
        assert tables.index(Tile(0, 0)) == 0
