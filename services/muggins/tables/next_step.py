"""What a table must do next, and when: derived from its streams alone.

A pure function of the table's state, its game's state and how long ago the
turn began, so that any process (the one that just appended, or another
that finds the table due after the first one died) reaches the same answer.
The scheduler carries the step out; appends record when it is due.
"""

from __future__ import annotations

import datetime
import random
from dataclasses import dataclass
from typing import Literal

from muggins.bots.levels import make_bot
from muggins.domain.table_events import CloseReason, TableState
from muggins.domain.table_life import closing_now, table_life
from muggins.rules.state import GameState

StepKind = Literal["start-game", "deal", "bot-call", "bot-move", "clock-out", "close",
                   "rematch", "seal"]


@dataclass(frozen=True)
class Timings:
    """The service's pauses, in seconds (the turn clock is each table's own)."""

    #: A bot's human-like pause before it moves.
    bot_delay: float = 0.8
    #: The pause after a hand ends before the next is dealt.
    hand_pause: float = 2.0
    #: How long a table waits for people, or stands with its game over,
    #: before it closes.
    idle_close: float = 1800.0
    #: How long a game paused for a missing person waits for them before
    #: those who stayed may choose (muggins.tables.commands.decide).
    absence_wait: float = 120.0


@dataclass(frozen=True)
class Step:
    """Do ``kind`` (for ``seat``) in ``after`` seconds (now or overdue when <= 0)."""

    kind: StepKind
    after: float
    seat: int | None = None
    #: Why the table closes (a "close" step).
    reason: CloseReason | None = None


def turn_began(last_event_at: datetime.datetime,
               seat_changed_at: datetime.datetime | None) -> datetime.datetime:
    """When the seat on turn started its turn: the last move, or later, the
    moment the seat changed hands (its player came back: the clock re-arms;
    a bot took over: it takes its usual pause before it plays)."""
    if seat_changed_at is not None and seat_changed_at > last_event_at:
        return seat_changed_at
    return last_event_at


def next_step(table: TableState, game: GameState | None, waited: float,
              timings: Timings) -> Step | None:
    """The table's next step, ``waited`` seconds after its turn began
    (turn_began; for a table still waiting for people, after its last
    event); None when it is closed (and its last hand sealed): nothing is
    ever due there again."""
    if game is not None and game.hands_played > table.last_sealed_hand(table.game):
        # A hand ended: its record is sealed in the table stream, and every
        # seat given its receipt, before anything else happens at the table
        # (a table closed meanwhile, by a choice to end the game, too).
        return Step("seal", 0.0)
    if table.closed is not None:
        return None
    if table.game == 0:
        return Step("close", timings.idle_close - waited, reason="idle")
    if game is None:
        return Step("start-game", 0.0)
    closing = closing_now(table, game)
    if closing is not None:
        return Step("close", 0.0, reason=closing)
    if game.phase == "game-over":
        if table.rematch_asked and set(table.still_seated) <= set(table.rematch_asked):
            # Everyone still here has asked (the last one who had not left).
            return Step("rematch", 0.0)
        return Step("close", timings.idle_close - waited, reason="finished")
    if table_life(table, game).kind == "paused":
        # No deal while a person is missing: they come back, or those who
        # stayed choose; nobody doing either for long ends the game.
        return Step("close", timings.idle_close - waited, reason="abandoned")
    if game.phase == "between-hands" or game.hand is None:
        pause = timings.hand_pause if game.hands_played else 0.0
        return Step("deal", pause - waited)
    hand = game.hand
    rules = game.ruleset
    if hand.pending is not None:
        caller_side = rules.side_of(hand.pending.seat)
        for seat in range(rules.seats):
            held = table.seats[seat]
            if (held.is_bot and rules.side_of(seat) != caller_side
                    and make_bot(held.bot_level or "greedy",  # type: ignore[arg-type]
                                 _call_luck(table.table_id, game, seat)
                                 ).calls_muggins(game, seat)):
                return Step("bot-call", timings.bot_delay / 2 - waited, seat)
    seat = hand.turn
    if table.seats[seat].is_bot:
        return Step("bot-move", timings.bot_delay - waited, seat)
    return Step("clock-out", table.turn_clock_seconds - waited, seat)


def seconds_to_move(table: TableState, game: GameState, waited: float) -> float | None:
    """What a view shows of the seat on turn's clock: None when no person's clock runs."""
    if game.phase != "playing" or game.hand is None:
        return None
    if table.seats[game.hand.turn].is_bot:
        return None
    return max(0.0, table.turn_clock_seconds - waited)


def _call_luck(table_id: str, game: GameState, seat: int) -> random.Random:
    """The luck of a careless bot's muggins call (easy, random): the same for
    every derivation of this step, in any process, and new for each count
    left uncalled.  (A fixed Random(0) drew 0.84 every time: they never called.)"""
    hand = game.hand
    if hand is None:
        return random.Random(f"{table_id}/{game.hands_played}/{seat}/muggins-call")
    # The tiles still held and in the boneyard: one fewer after every play.
    left = sum(len(tiles) for tiles in hand.hands) + len(hand.boneyard)
    return random.Random(f"{table_id}/{hand.number}/{left}/{hand.pending!r}/{seat}/muggins-call")
