"""Properties over many random games of every preset and seat count."""

from __future__ import annotations

import random
from collections.abc import Sequence

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from muggins.bots.levels import Bot, GreedyBot, RandomBot
from muggins.bots.selfplay import MAX_HANDS, play_game
from muggins.rules.commands import AnyCommand, CallMuggins, Draw, Pass, Play, StartHand
from muggins.rules.events import Event, PointsScored, TileDrawn, TilePlayed
from muggins.rules.game import (
    advance,
    apply,
    evolve,
    fold,
    forced_move,
    has_play,
    play,
    start_game,
)
from muggins.rules.presets import PRESETS, preset, seatings
from muggins.rules.ruleset import Ruleset
from muggins.rules.scoring import points_for_count
from muggins.rules.shuffle import hand_seed
from muggins.rules.state import GameState
from muggins.rules.tiles import tile_set

SEATINGS = [(name, seats, partners) for name in PRESETS for seats, partners in seatings(name)]


def check_tiles_conserved(state: GameState) -> None:
    hand = state.hand
    if hand is None:
        return
    held = [tile for tiles in hand.hands for tile in tiles]
    everything = held + list(hand.boneyard) + hand.layout.tiles()
    assert sorted(everything) == list(tile_set(state.ruleset.max_pip))


def check_scoring(rules: Ruleset, events: Sequence[Event]) -> None:
    last_count = None
    for event in events:
        if isinstance(event, TilePlayed):
            last_count = event.count
        if isinstance(event, PointsScored) and event.reason == "count":
            assert last_count is not None and event.points == points_for_count(
                last_count, rules.scoring
            )
            if rules.scoring == "fives":
                assert event.points == last_count and last_count % 5 == 0
            if rules.scoring == "threes":
                assert event.points == last_count and last_count % 3 == 0


def run_checked_game(rules: Ruleset, game_seed: bytes, bots: Sequence[Bot]) -> tuple[
    GameState, list[Event], list[AnyCommand]
]:
    """Play a game step by step, checking the invariants after every event."""
    state, events = start_game(rules)
    decisions: list[AnyCommand] = []
    while state.phase != "game-over":
        assert state.hands_played <= MAX_HANDS, "the game does not terminate"
        if state.phase == "between-hands":
            command: AnyCommand = StartHand(seed=hand_seed(game_seed, state.hands_played + 1).hex())
        else:
            assert state.hand is not None
            callers = [
                s for s in range(rules.seats) if bots[s].calls_muggins(state, s)
            ]
            command = CallMuggins(seat=callers[0]) if callers else bots[state.hand.turn].choose(
                state
            )
        decisions.append(command)
        state, new_events = apply(state, command)
        events += new_events
        # Forced moves, one at a time, each checked: only when nothing fits.
        while (forced := forced_move(state)) is not None:
            assert state.hand is not None
            assert not has_play(state, state.hand.turn)
            if isinstance(forced, Draw):
                assert rules.drawing == "draw" and state.hand.boneyard
            else:
                assert isinstance(forced, Pass)
                assert rules.drawing == "none" or not state.hand.boneyard
            previous_scores = state.scores
            state, forced_events = apply(state, forced)
            assert all(a >= b for a, b in zip(state.scores, previous_scores, strict=True))
            events += forced_events
            check_tiles_conserved(state)
        check_tiles_conserved(state)
    check_scoring(rules, events)
    running = [0] * rules.side_count
    for event in events:
        if isinstance(event, PointsScored):
            assert event.points > 0
            running[event.side] += event.points
    assert tuple(running) == state.scores
    return state, events, decisions


def replay_decisions(
    rules: Ruleset, decisions: Sequence[AnyCommand]
) -> tuple[GameState, list[Event]]:
    state, events = start_game(rules)
    for command in decisions:
        state, new_events = play(state, command)
        events += new_events
    return state, events


def bots_for(rules: Ruleset, rng_seed: int, greedy: bool) -> list[Bot]:
    return [
        GreedyBot() if greedy and seat % 2 else RandomBot(random.Random(rng_seed * 7 + seat))
        for seat in range(rules.seats)
    ]


def check_game(name: str, seats: int, partners: bool, seed: bytes, rng_seed: int,
               greedy: bool) -> None:
    rules = preset(name, seats, partners)
    state, events, decisions = run_checked_game(rules, seed, bots_for(rules, rng_seed, greedy))
    # The fold of the events is the state the commands reached.
    assert fold(events) == state
    # After every single event a hand is held exactly while one is being
    # played (the engine's queries rely on it instead of re-reading the phase).
    folded: GameState | None = None
    for event in events:
        folded = evolve(folded, event)
        assert (folded.hand is not None) == (folded.phase == "playing")
    # Re-applying the players' decisions alone rebuilds the same game, event for event.
    replayed, replayed_events = replay_decisions(rules, decisions)
    assert replayed == state
    assert replayed_events == events
    # Scores only increase: every PointsScored is positive (checked above).
    assert state.phase == "game-over"


@settings(
    max_examples=800,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
)
@given(
    st.sampled_from(SEATINGS),
    st.binary(min_size=32, max_size=32),
    st.integers(min_value=0, max_value=2**32),
    st.booleans(),
)
def test_random_games_keep_every_invariant(
    seating: tuple[str, int, bool], seed: bytes, rng_seed: int, greedy: bool
) -> None:
    name, seats, partners = seating
    check_game(name, seats, partners, seed, rng_seed, greedy)


def test_a_sweep_of_seeded_games_of_every_preset_and_seating() -> None:
    games = 0
    for name, seats, partners in SEATINGS:
        for k in range(48):
            check_game(name, seats, partners, bytes([k, seats]) * 16, k, k % 3 == 0)
            games += 1
    assert games >= 1300


def test_larger_sets_play_to_the_end() -> None:
    for max_pip in (9, 12, 15):
        rules = preset("all-fives", 4, max_pip=max_pip)
        state, events, _ = run_checked_game(rules, bytes(32), bots_for(rules, 1, True))
        assert state.phase == "game-over"
        assert any(isinstance(e, TileDrawn) for e in events) or max_pip > 6


def test_same_seed_same_game() -> None:
    rules = preset("five-up", 4, partnerships=True)
    seed = b"\x07" * 32

    def game() -> list[Event]:
        bots = [RandomBot(random.Random(3 + seat)) for seat in range(4)]
        return list(play_game(rules, seed, bots))

    assert game() == game()


def test_advance_is_idempotent_when_nothing_is_forced() -> None:
    rules = preset("playelephant", 2)
    state, _ = start_game(rules)
    state, _ = play(state, StartHand(seed="42" * 32))
    again, events = advance(state)
    assert again == state and events == []


def test_greedy_bot_takes_the_most_points() -> None:
    from tests.rules.scenario import dealt, t

    rules = preset("playelephant", 2)
    state = dealt(rules, ["6-4 1-1", "4-1 6-2 6-1"])
    state, _ = play(state, Play(seat=0, tile=t("6-4")))
    # On the 6 left / 4 right: 4-1 right gives 6+1=7; 6-1 left gives 1+4=5 (scores 5).
    choice = GreedyBot().choose(state)
    assert choice == Play(seat=1, tile=t("6-1"), end=0)
