"""What a table must do next, derived from its streams alone (pure)."""

from __future__ import annotations

import msgspec

from muggins.domain.table_events import (
    AbsenceDecided,
    BotAtSeat,
    BotTookOver,
    GameBegun,
    HandSealed,
    PlayerReturned,
    RematchAsked,
    SeatTaken,
    TableClosed,
    TableOpened,
    TableState,
    fold_table,
)
from muggins.domain.table_life import TableLife, table_life
from muggins.rules.commands import StartHand
from muggins.rules.game import play, start_game
from muggins.rules.presets import preset
from muggins.rules.state import GameState, PendingCount, replaced
from muggins.tables.next_step import Step, Timings, next_step, seconds_to_move

TIMINGS = Timings(bot_delay=0.8, hand_pause=2.0)
RULES = preset("playelephant", 2, False)


def table(*more: msgspec.Struct, clock: int = 30) -> TableState:
    return fold_table([TableOpened(ruleset=RULES, turn_clock_seconds=clock,
                                   bots=(BotAtSeat(1, "greedy"),)),
                       SeatTaken(seat=0, player_id="p", name="Ana"), GameBegun(game=1),
                       *more], "Tab1")  # type: ignore[list-item]


def sealed(hand: int, game: int = 1) -> HandSealed:
    """The seal of an ended hand (its values do not matter to the next step)."""
    return HandSealed(game=game, hand=hand, version=9, chain="0" * 64, position=9,
                      global_chain="0" * 64, signed_at="2026-12-01T00:00:00.000000Z",
                      key_id="0" * 16, signature="0" * 128)


def dealt() -> GameState:
    state, _ = start_game(RULES, ())
    state, _ = play(state, StartHand(seed="5" * 64))
    return state


def test_a_table_waiting_for_people_or_after_its_game_closes_after_the_idle_wait() -> None:
    waiting = fold_table([TableOpened(ruleset=RULES, turn_clock_seconds=30)], "Tab1")
    assert next_step(waiting, None, 0.0, TIMINGS) == Step("close", 1800.0, reason="idle")
    over = replaced(dealt(), phase="game-over", hand=None)
    assert next_step(table(), over, 99.0, TIMINGS) == Step("close", 1701.0,
                                                          reason="finished")
    assert table_life(waiting, None).kind == "waiting"
    assert table_life(table(), over).kind == "between-games"


def test_a_closed_table_has_nothing_due_ever() -> None:
    for reason in ("finished", "abandoned", "everyone-left", "idle"):
        closed = table(TableClosed(reason=reason))
        assert next_step(closed, dealt(), 99.0, TIMINGS) is None
        assert table_life(closed, dealt()) == TableLife("closed", reason)


def test_a_table_of_bots_closes_as_soon_as_its_game_is_over() -> None:
    bots = fold_table([TableOpened(ruleset=RULES, turn_clock_seconds=30,
                                   bots=(BotAtSeat(0, "greedy"), BotAtSeat(1, "greedy"))),
                       GameBegun(game=1)], "Tab1")
    over = replaced(dealt(), phase="game-over", hand=None)
    assert next_step(bots, over, 0.0, TIMINGS) == Step("close", 0.0, reason="finished")
    assert next_step(bots, dealt(), 0.0, TIMINGS) != Step("close", 0.0, reason="finished")


def test_a_bot_finishes_the_hand_of_a_person_who_left_then_the_game_pauses() -> None:
    state = dealt()
    assert state.hand is not None
    left = BotTookOver(seat=0, reason="absent", game=1, version=7, hand=1)
    # Alone with a bot: the bot finishes the hand, then the table closes.
    alone = table(left, sealed(1))
    assert table_life(alone, state) == TableLife("playing", missing=(0,))
    if state.hand.turn == 0:
        step = next_step(alone, state, 0.0, TIMINGS)
        assert step is not None and step.kind == "bot-move"
    between = replaced(state, phase="between-hands", hand=None,
                                      hands_played=1)
    assert next_step(alone, between, 0.0, TIMINGS) == Step("close", 0.0,
                                                           reason="everyone-left")
    # With somebody who stayed: no deal; the pause ends the game after the idle wait.
    two = fold_table([TableOpened(ruleset=RULES, turn_clock_seconds=30),
                      SeatTaken(seat=0, player_id="p", name="Ana"),
                      SeatTaken(seat=1, player_id="q", name="Bea"), GameBegun(game=1), left,
                      sealed(1)],
                     "Tab1")
    assert table_life(two, between) == TableLife("paused", missing=(0,))
    assert next_step(two, between, 10.0, TIMINGS) == Step("close", 1790.0,
                                                          reason="abandoned")
    # Those who stayed chose to play on with the bot: the deal comes again.
    on = fold_table([AbsenceDecided(game=1, seats=(0,), choice="bot", by_seat=1)], "Tab1",
                    two)
    assert table_life(on, between).kind == "playing"
    assert next_step(on, between, 10.0, TIMINGS) == Step("deal", -8.0)
    # A new game forgets the choice.
    assert fold_table([GameBegun(game=2)], "Tab1", on).absence_choice is None
    # The person came back: the deal comes again, nothing to choose.
    back = fold_table([PlayerReturned(seat=0, reason="back")], "Tab1", two)
    assert table_life(back, between) == TableLife("playing")


def test_a_begun_game_with_no_events_starts_now() -> None:
    assert next_step(table(), None, 0.0, TIMINGS) == Step("start-game", 0.0)


def test_the_first_hand_is_dealt_at_once_the_next_after_the_pause() -> None:
    started, _ = start_game(RULES, ())
    assert next_step(table(), started, 0.0, TIMINGS) == Step("deal", 0.0)
    between = replaced(started, hands_played=1)
    assert next_step(table(sealed(1)), between, 0.5, TIMINGS) == Step("deal", 1.5)


def test_an_ended_hand_is_sealed_before_anything_else_happens() -> None:
    started, _ = start_game(RULES, ())
    between = replaced(started, hands_played=2)
    assert next_step(table(), between, 0.5, TIMINGS) == Step("seal", 0.0)
    assert next_step(table(sealed(1)), between, 0.5, TIMINGS) == Step("seal", 0.0)
    assert next_step(table(sealed(2)), between, 0.5, TIMINGS) == Step("deal", 1.5)
    # A seal of another game's hand is not this game's.
    assert next_step(table(sealed(2, game=0)), between, 0.5, TIMINGS) == Step("seal", 0.0)
    over = replaced(between, phase="game-over")
    assert next_step(table(), over, 0.0, TIMINGS) == Step("seal", 0.0)
    # A table closed just after a hand ended (the game ended by a choice)
    # still seals that hand; then nothing is due there again.
    closed = TableClosed(reason="abandoned")
    assert next_step(table(closed), over, 0.0, TIMINGS) == Step("seal", 0.0)
    assert next_step(table(closed, sealed(2)), over, 0.0, TIMINGS) is None


def test_a_person_on_turn_has_the_clock_a_bot_its_pause() -> None:
    state = dealt()
    assert state.hand is not None
    turn = state.hand.turn
    step = next_step(table(), state, 10.0, TIMINGS)
    assert step is not None and step.seat == turn
    if turn == 0:
        assert step == Step("clock-out", 20.0, 0)
        assert seconds_to_move(table(), state, 10.0) == 20.0
    else:
        assert step.kind == "bot-move" and abs(step.after - (0.8 - 10.0)) < 1e-9
        assert seconds_to_move(table(), state, 10.0) is None


def test_a_seat_a_bot_took_over_is_played_by_the_bot_until_its_player_returns() -> None:
    state = dealt()
    assert state.hand is not None
    taken = table(BotTookOver(seat=0, reason="clock", game=1, version=7, hand=1))
    assert taken.seats[0].is_bot and taken.seats[0].last_timeout == (1, 7)
    if state.hand.turn == 0:
        step = next_step(taken, state, 0.0, TIMINGS)
        assert step is not None and step.kind == "bot-move"
    back = table(BotTookOver(seat=0, reason="clock", game=1, version=7, hand=1),
                 PlayerReturned(seat=0, reason="back"))
    assert not back.seats[0].is_bot and back.seats[0].last_timeout == (1, 7)


def test_the_same_timings_give_the_same_step_wherever_they_are_derived() -> None:
    state = dealt()
    steps = {next_step(table(), state, 3.0, TIMINGS) for _ in range(5)}
    assert len(steps) == 1


def test_every_state_of_a_tables_life_has_an_http_status() -> None:
    from typing import get_args

    from muggins.domain.table_life import LifeKind
    from muggins.tables.http import STATUS_OF_LIFE

    assert set(STATUS_OF_LIFE) == set(get_args(LifeKind))


def test_a_rematch_begins_when_the_last_who_had_not_asked_leaves() -> None:
    two = fold_table([TableOpened(ruleset=RULES, turn_clock_seconds=30),
                      SeatTaken(seat=0, player_id="p", name="Ana"),
                      SeatTaken(seat=1, player_id="q", name="Bea"), GameBegun(game=1),
                      RematchAsked(seat=1, game=1)], "Tab1")
    over = replaced(dealt(), phase="game-over", hand=None)
    assert next_step(two, over, 5.0, TIMINGS) == Step("close", 1795.0, reason="finished")
    gone = fold_table([BotTookOver(seat=0, reason="absent", game=1, version=90, hand=3)],
                      "Tab1", two)
    assert next_step(gone, over, 5.0, TIMINGS) == Step("rematch", 0.0)


def test_a_careless_bot_calls_muggins_about_half_the_time_and_the_same_each_derivation() -> None:
    """An easy (or random) bot calls an uncalled count half the time.  Its luck
    was a fixed Random(0), whose first draw (0.84) never called: the ladder's
    easy bot never called in the service."""
    rules = preset("muggins", 2, False)
    easy = fold_table([TableOpened(ruleset=rules, turn_clock_seconds=30,
                                   bots=(BotAtSeat(1, "easy"),)),
                       SeatTaken(seat=0, player_id="p", name="Ana"), GameBegun(game=1)],
                      "Tab1")
    calls = 0
    for number in range(1, 41):
        state, _ = start_game(rules, ())
        state, _ = play(state, StartHand(seed=f"{number:064x}"))
        assert state.hand is not None
        uncalled = replaced(
            state, hand=replaced(state.hand, pending=PendingCount(seat=0, points=10),
                                                number=number))
        step = next_step(easy, uncalled, 0.0, TIMINGS)
        assert next_step(easy, uncalled, 0.0, TIMINGS) == step  # derived again: the same
        assert step is not None
        calls += step.kind == "bot-call"
    assert 8 <= calls <= 32, calls
