"""Hand-dealt scenarios with exact scores: each rule of RULES.md in play."""

from __future__ import annotations

import hashlib

import pytest

from muggins.rules import errors
from muggins.rules.commands import CallMuggins, Play, StartHand
from muggins.rules.events import (
    Event,
    GameEnded,
    HandEnded,
    HandStarted,
    PointsScored,
    TileDrawn,
    TilePlayed,
)
from muggins.rules.game import apply, legal_plays, play, start_game
from muggins.rules.presets import preset
from tests.rules.scenario import dealt, t


def kinds(events: list[Event]) -> list[str]:
    return [type(e).__name__ for e in events]


def scored(events: list[Event]) -> list[tuple[str, int, int]]:
    return [(e.reason, e.side, e.points) for e in events if isinstance(e, PointsScored)]


def ended(events: list[Event]) -> HandEnded:
    return next(e for e in events if isinstance(e, HandEnded))


def test_domino_scores_the_last_count_then_the_rounded_opponents_not_the_partner() -> None:
    rules = preset("playelephant", 4, partnerships=True)
    state = dealt(rules, ["6-4", "2-2 1-1", "6-6 6-5", "3-0 0-0"])
    state, events = play(state, Play(seat=0, tile=t("6-4")))
    # Count 10 first; then seats 1 and 3 hold 6 + 3 = 9 pips -> 10.  Seat 2's 23 pips never count.
    assert scored(events) == [("count", 0, 10), ("domino", 0, 10)]
    assert ended(events).outcome == "domino" and ended(events).winner_seat == 0
    assert ended(events).pips == (0, 6, 23, 3)
    assert state.scores == (20, 0)
    assert state.phase == "between-hands"


def test_total_rounding_adds_the_opponents_before_rounding() -> None:
    rules = preset("all-fives", 3)
    state = dealt(rules, ["6-3", "4-3", "2-1 3-0"])
    state, events = play(state, Play(seat=0, tile=t("6-3")))
    assert scored(events) == [("domino", 0, 15)]  # 7 + 6 = 13 -> 15


def test_per_opponent_rounding_rounds_each_hand() -> None:
    rules = preset("muggins", 3)
    state = dealt(rules, ["6-3", "4-3", "2-1 3-0"], must_lead="6-3")
    state, events = play(state, Play(seat=0, tile=t("6-3")))
    assert scored(events) == [("domino", 0, 10)]  # 7 -> 5 and 6 -> 5


def test_blocked_tie_for_lowest_scores_nothing_but_keeps_points_made() -> None:
    rules = preset("playelephant", 2)
    state = dealt(rules, ["5-5 2-1", "3-0"], scores=(20, 30))
    state, events = play(state, Play(seat=0, tile=t("5-5")))
    assert kinds(events) == ["TilePlayed", "PointsScored", "Passed", "Passed", "HandEnded"]
    hand_end = ended(events)
    assert hand_end.outcome == "blocked" and hand_end.winner_side is None
    assert hand_end.pips == (3, 3)
    assert state.scores == (30, 30)


def test_blocked_hand_goes_to_the_lowest_pips_with_the_opponents_rounded() -> None:
    rules = preset("playelephant", 2)
    state = dealt(rules, ["6-6 2-1", "3-1"])
    state, events = play(state, Play(seat=0, tile=t("6-6")))
    assert scored(events) == [("blocked", 0, 5)]  # seat 0 holds 3, seat 1 holds 4 -> 5
    assert ended(events).winner_seat == 0


def test_blocked_partnerships_compare_both_hands_of_each_side() -> None:
    rules = preset("playelephant", 4, partnerships=True)
    # Sides: 0+2 hold 1 + 12 = 13, 1+3 hold 5 + 5 = 10: side 1 wins, scores 13 -> 15.
    state = dealt(rules, ["6-6 1-0", "3-2", "4-4 2-2", "4-1"])
    state, events = play(state, Play(seat=0, tile=t("6-6")))
    assert scored(events) == [("blocked", 1, 15)]
    assert ended(events).winner_side == 1


def test_muggins_blocked_award_is_opponents_minus_own_each_rounded() -> None:
    rules = preset("muggins", 2)
    state = dealt(rules, ["6-6 5-4 4-3", "1-0 2-0"], must_lead="6-6")
    state, events = play(state, Play(seat=0, tile=t("6-6")))
    # Seat 1 wins with 3 pips (-> 5) against 16 (-> 15): 15 - 5 = 10.
    assert scored(events) == [("blocked", 1, 10)]


def test_muggins_blocked_award_never_goes_below_zero() -> None:
    rules = preset("muggins", 2)
    state = dealt(rules, ["6-6 5-4", "3-1 2-2"], must_lead="6-6")
    state, events = play(state, Play(seat=0, tile=t("6-6")))
    # 9 -> 10 minus 8 -> 10: nothing, and no PointsScored event for 0.
    assert scored(events) == []
    assert ended(events).winner_seat == 1


def test_immediate_target_ends_the_game_mid_hand_without_end_of_hand_points() -> None:
    rules = preset("playelephant", 2)
    state = dealt(rules, ["6-4", "1-1"], scores=(245, 0))
    state, events = play(state, Play(seat=0, tile=t("6-4")))
    # The play is also a domino, but the target comes first: no domino bonus.
    assert kinds(events) == ["TilePlayed", "PointsScored", "HandEnded", "GameEnded"]
    assert ended(events).outcome == "target-reached"
    assert state.phase == "game-over" and state.winner_side == 0
    assert state.scores == (255, 0)


def test_end_of_hand_target_check_finishes_the_hand_first() -> None:
    rules = preset("all-fives", 2)
    state = dealt(rules, ["6-4 1-1", "4-0 3-3"], scores=(140, 150))
    state, events = play(state, Play(seat=0, tile=t("6-4")))
    assert state.scores == (150, 150) and state.phase == "playing"
    state, events = play(state, Play(seat=1, tile=t("4-0"), end=1))
    # Blocked: seat 0 holds 2, seat 1 holds 6 -> 5.
    assert scored(events) == [("blocked", 0, 5)]
    assert isinstance(events[-1], GameEnded) and events[-1].winner_side == 0


def test_end_of_hand_tie_at_the_top_plays_another_hand() -> None:
    rules = preset("all-fives", 2)
    state = dealt(rules, ["6-4 1-1", "4-0 3-3"], scores=(135, 150))
    state, _ = play(state, Play(seat=0, tile=t("6-4")))
    state, events = play(state, Play(seat=1, tile=t("4-0"), end=1))
    assert state.scores == (150, 150)
    assert not any(isinstance(e, GameEnded) for e in events)
    assert state.phase == "between-hands"


def test_left_of_previous_leader_after_a_blocked_tie_in_all_fives() -> None:
    rules = preset("all-fives", 3)
    state = dealt(rules, ["3-0", "6-6 2-1", "4-0"], leader=1)
    state, events = play(state, Play(seat=1, tile=t("6-6")))
    assert ended(events).winner_side is None  # seats 0 and 1 tie at 3
    state, events = apply(state, StartHand(seed="ab" * 32))
    started = events[0]
    assert isinstance(started, HandStarted)
    assert (started.leader, started.leader_reason) == (2, "left-of-previous-leader")


def test_all_fives_blocked_winner_leads_next() -> None:
    rules = preset("all-fives", 3)
    state = dealt(rules, ["3-0", "6-6 2-0", "4-0"], leader=1)
    state, events = play(state, Play(seat=1, tile=t("6-6")))
    assert ended(events).winner_seat == 1
    state, events = apply(state, StartHand(seed="ab" * 32))
    assert isinstance(events[0], HandStarted)
    assert (events[0].leader, events[0].leader_reason) == (1, "hand-winner")


def test_playelephant_domino_player_leads_next_and_lottery_after_a_block() -> None:
    rules = preset("playelephant", 2)
    state = dealt(rules, ["6-2", "1-1"], leader=0)
    state, _ = play(state, Play(seat=0, tile=t("6-2")))
    state, events = apply(state, StartHand(seed="cd" * 32))
    assert isinstance(events[0], HandStarted)
    assert (events[0].leader, events[0].leader_reason) == (0, "domino-player")
    blocked = dealt(rules, ["5-5 2-1", "3-0"], hand_number=3)
    blocked, _ = play(blocked, Play(seat=0, tile=t("5-5")))
    blocked, events = apply(blocked, StartHand(seed="cd" * 32))
    assert isinstance(events[0], HandStarted) and events[0].leader_reason == "lottery"


def _seed_where(condition: object, rules_name: str = "muggins") -> tuple[str, list[Event]]:
    rules = preset(rules_name, 2)
    for k in range(5000):
        seed = hashlib.sha256(k.to_bytes(4, "big")).hexdigest()
        state, _ = start_game(rules)
        _, events = apply(state, StartHand(seed=seed))
        if condition(events):  # type: ignore[operator]
            return seed, events
    raise AssertionError("no such seed")


def test_highest_double_must_be_led_in_muggins() -> None:
    rules = preset("muggins", 2)
    state, _ = start_game(rules)
    state, events = apply(state, StartHand(seed="11" * 32))
    started = events[0]
    assert isinstance(started, HandStarted)
    assert state.hand is not None
    doubles = [tile for hand in state.hand.hands for tile in hand if tile.is_double]
    assert started.must_lead == max(doubles)
    assert started.must_lead in state.hand.hands[started.leader]
    assert started.leader_reason == "highest-double"
    assert legal_plays(state) == [Play(seat=started.leader, tile=started.must_lead)]
    other = next(x for x in state.hand.hands[started.leader] if x != started.must_lead)
    with pytest.raises(errors.MustLeadTile):
        apply(state, Play(seat=started.leader, tile=other))


def test_heaviest_tile_leads_when_nobody_holds_a_double() -> None:
    def no_double_dealt(events: list[Event]) -> bool:
        return isinstance(events[0], HandStarted) and events[0].leader_reason == "heaviest-tile"

    seed, events = _seed_where(no_double_dealt)
    started = events[0]
    assert isinstance(started, HandStarted) and started.must_lead is not None
    rules = preset("muggins", 2)
    state, _ = start_game(rules)
    state, _ = apply(state, StartHand(seed=seed))
    assert state.hand is not None
    held = [tile for hand in state.hand.hands for tile in hand]
    assert not any(tile.is_double for tile in held)
    assert started.must_lead == max(held, key=lambda x: (x.value, x.high))


def test_draw_until_a_tile_fits_then_play_it() -> None:
    rules = preset("playelephant", 2)
    state = dealt(rules, ["6-4 1-1", "2-0 3-3"], boneyard="1-0 5-2 4-2 3-2")
    state, events = play(state, Play(seat=0, tile=t("6-4")))
    # Seat 1 holds nothing with a 6 or a 4: draws 1-0, 5-2, then 4-2 fits; stops there.
    assert kinds(events) == ["TilePlayed", "PointsScored", "TileDrawn", "TileDrawn", "TileDrawn"]
    assert [e.tile for e in events if isinstance(e, TileDrawn)] == [t("1-0"), t("5-2"), t("4-2")]
    assert state.hand is not None and state.hand.turn == 1
    assert state.hand.boneyard == (t("3-2"),)
    assert legal_plays(state) == [Play(seat=1, tile=t("4-2"), end=1)]


def test_pass_only_when_the_boneyard_is_empty() -> None:
    rules = preset("playelephant", 2)
    state = dealt(rules, ["6-4 6-6 1-1", "2-0 3-3"], boneyard="1-0")
    state, events = play(state, Play(seat=0, tile=t("6-4")))
    # Seat 1 draws the last tile, still cannot play, passes.
    assert kinds(events)[2:] == ["TileDrawn", "Passed"]
    assert state.hand is not None and state.hand.turn == 0


def test_block_game_passes_instead_of_drawing_and_a_blocked_tie_is_a_draw() -> None:
    rules = preset("block", 2)
    state = dealt(rules, ["6-4 1-1", "2-0 4-3"], boneyard="6-6 1-0")
    state, events = play(state, Play(seat=0, tile=t("6-4")))
    assert kinds(events) == ["TilePlayed"]  # no points in block; seat 1 can play 4-3
    state, events = play(state, Play(seat=1, tile=t("4-3"), end=1))
    # Nobody draws: seat 0 (1-1) and seat 1 (2-0) pass; 2 pips each: a drawn game.
    assert kinds(events) == ["TilePlayed", "Passed", "Passed", "HandEnded", "GameEnded"]
    assert ended(events).winner_side is None
    assert isinstance(events[-1], GameEnded) and events[-1].winner_side is None


def test_block_game_blocked_winner_takes_the_others_pips_unrounded() -> None:
    rules = preset("block", 2)
    state = dealt(rules, ["6-4 1-1", "2-1 4-3"])
    state, _ = play(state, Play(seat=0, tile=t("6-4")))
    state, events = play(state, Play(seat=1, tile=t("4-3"), end=1))
    # Seat 0 holds 2, seat 1 holds 3: seat 0 wins 3, not rounded.
    assert scored(events) == [("blocked", 0, 3)]
    assert isinstance(events[-1], GameEnded) and events[-1].winner_side == 0


def test_block_game_winner_scores_the_others_pips_unrounded() -> None:
    rules = preset("block", 3)
    state = dealt(rules, ["6-4", "2-0 4-3", "1-1 5-5"])
    state, events = play(state, Play(seat=0, tile=t("6-4")))
    assert scored(events) == [("domino", 0, 9 + 12)]
    assert isinstance(events[-1], GameEnded) and events[-1].winner_side == 0


def test_fives_and_threes_counts_cribbage_points_and_one_for_the_hand() -> None:
    rules = preset("fives-and-threes", 2)
    state = dealt(rules, ["5-5 5-0", "5-3 6-6"], must_lead="5-5")
    state, events = play(state, Play(seat=0, tile=t("5-5")))
    assert scored(events) == [("count", 0, 2)]  # 10: two fives
    state, events = play(state, Play(seat=1, tile=t("5-3"), end=0))
    assert scored(events) == []  # 3 + 10 = 13
    state, events = play(state, Play(seat=0, tile=t("5-0"), end=1))
    # 3 + 0 = 3: one three; then one point for going out.
    assert scored(events) == [("count", 0, 1), ("domino", 0, 1)]


SEED_004_PRESETS = ["sniff", "five-up", "all-threes", "fives-and-threes", "classic-muggins"]


@pytest.mark.parametrize("name", SEED_004_PRESETS)
def test_seed_004_deals_seven_tiles_each_to_three_players(name: str) -> None:
    # seed 004: "Cada jugador toma cinco fichas, cuando juega con cuatro jugadores o más,
    # o siete cuando juega con dos o tres.  El resto se aparta para formar el cementerio."
    for seats, partners, each in ((2, False, 7), (3, False, 7), (4, False, 5), (4, True, 5)):
        rules = preset(name, seats, partners)
        assert rules.tiles_per_seat == each
        state, _ = start_game(rules)
        state, _ = apply(state, StartHand(seed="34" * 32))
        assert state.hand is not None
        assert [len(hand) for hand in state.hand.hands] == [each] * seats
        assert len(state.hand.boneyard) == 28 - each * seats  # 7 left with three players
    assert preset("muggins", 3).tiles_per_seat == 5  # seed 002's own deal is unchanged


class TestMugginsRule:
    rules = preset("classic-muggins", 2)

    def test_claimed_count_scores(self) -> None:
        state = dealt(self.rules, ["5-5 1-0", "5-4 3-3"], must_lead="5-5")
        state, events = play(state, Play(seat=0, tile=t("5-5"), claim=10))
        assert scored(events) == [("count", 0, 10)]

    def test_unclaimed_count_can_be_taken_by_an_opponent(self) -> None:
        state = dealt(self.rules, ["5-5 1-0", "5-4 3-3"], must_lead="5-5")
        state, events = play(state, Play(seat=0, tile=t("5-5")))
        assert scored(events) == []
        state, events = apply(state, CallMuggins(seat=1))
        assert scored(events) == [("muggins", 1, 10)]
        with pytest.raises(errors.NothingToCall):
            apply(state, CallMuggins(seat=1))

    def test_wrong_claim_scores_nothing_and_can_be_called(self) -> None:
        state = dealt(self.rules, ["5-5 1-0", "5-4 3-3"], must_lead="5-5")
        state, events = play(state, Play(seat=0, tile=t("5-5"), claim=15))
        assert scored(events) == []
        with pytest.raises(errors.NothingToCall):
            apply(state, CallMuggins(seat=0))  # not against yourself
        state, events = apply(state, CallMuggins(seat=1))
        assert scored(events) == [("muggins", 1, 10)]

    def test_the_call_must_come_before_the_next_play(self) -> None:
        state = dealt(self.rules, ["5-5 1-0", "5-4 5-3"], must_lead="5-5")
        state, _ = play(state, Play(seat=0, tile=t("5-5")))
        state, _ = play(state, Play(seat=1, tile=t("5-3"), end=0))
        with pytest.raises(errors.NothingToCall):
            apply(state, CallMuggins(seat=1))

    def test_a_partner_cannot_call(self) -> None:
        rules = preset("classic-muggins", 4, partnerships=True)
        state = dealt(rules, ["5-5 1-0", "5-4 3-3", "2-1 2-2", "4-4 1-1"], must_lead="5-5")
        state, _ = play(state, Play(seat=0, tile=t("5-5")))
        with pytest.raises(errors.NothingToCall):
            apply(state, CallMuggins(seat=2))
        state, events = apply(state, CallMuggins(seat=3))
        assert scored(events) == [("muggins", 1, 10)]


def test_a_count_that_is_not_a_multiple_of_five_scores_nothing() -> None:
    rules = preset("playelephant", 2)
    state = dealt(rules, ["5-5 5-0 6-1", "6-5 4-2"])
    state, events = play(state, Play(seat=0, tile=t("5-5")))
    assert scored(events) == [("count", 0, 10)]
    state, events = play(state, Play(seat=1, tile=t("6-5"), end=0))
    assert isinstance(events[0], TilePlayed) and events[0].count == 16
    assert scored(events) == []
    state, events = play(state, Play(seat=0, tile=t("5-0"), end=1))
    assert isinstance(events[0], TilePlayed) and events[0].count == 6
    assert scored(events) == []
