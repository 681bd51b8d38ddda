"""A finished hand for the replay page: every step with every hand visible,
and the replay tool's verdict on it."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from muggins.bots.playbyplay import summary
from muggins.domain.table_events import bot_name
from muggins.domain.views import LayoutView, layout_view
from muggins.replay.record import HandInPlay, StoredEvent
from muggins.replay.show import frames
from muggins.replay.verify import slice_of, verify_game
from muggins.rules.events import AnyEvent, GameStarted, HandEnded, HandStarted
from muggins.rules.game import fold
from muggins.rules.tiles import Tile


class ReplayStep(msgspec.Struct, frozen=True):
    """The table after one event of the hand."""

    version: int
    event: AnyEvent
    #: The event in words (English; the page words it in the reader's language).
    summary: str
    layout: LayoutView
    hands: list[list[Tile]]
    boneyard: int
    scores: list[int]
    turn: int | None


class HandReplay(msgspec.Struct, frozen=True):
    table_id: str
    game: int
    hand: int
    preset: str
    seats: int
    partnerships: bool
    names: list[str]
    commitment: str
    seed: str
    #: "fair" when the hand rebuilt from its seed and decisions is the record.
    status: str
    problems: list[str]
    steps: list[ReplayStep]


def hand_replay(stored: Sequence[StoredEvent], table_id: str, game: int, hand: int
                ) -> HandReplay:
    """The hand's steps and verdict; RecordError if there is no such hand,
    HandInPlay (one) if it is still being played (its tiles and seed are
    secret until it ends)."""
    part = slice_of(stored, hand)
    if not part.finished:
        raise HandInPlay(f"hand {hand} is still being played: it can be replayed when it ends")
    verdict = verify_game(stored, only_hand=hand)
    hand_verdict = verdict.hands[0]
    before = fold(entry.event for entry in stored[: part.start])
    entries = stored[part.start : part.stop]
    steps: list[ReplayStep] = []
    for frame, entry in zip(frames(before, [e.event for e in entries]), entries, strict=True):
        state = frame.state
        current = state.hand
        if current is None and steps:
            # The hand is over: its last board and the tiles left in hand
            # stay on show to the end (the reckoning is about them).
            last = steps[-1]
            layout, hands, boneyard = last.layout, last.hands, last.boneyard
        else:
            layout = layout_view(state)
            hands = [list(tiles) for tiles in current.hands] if current else []
            boneyard = len(current.boneyard) if current else 0
        steps.append(ReplayStep(
            version=entry.version,
            event=frame.event,  # type: ignore[arg-type]
            summary=summary(frame.event),
            layout=layout,
            hands=hands,
            boneyard=boneyard,
            scores=list(state.scores),
            turn=current.turn if current is not None and state.phase == "playing" else None,
        ))
    first = stored[0].event
    players = first.players if isinstance(first, GameStarted) else ()
    rules = before.ruleset
    # A bot is called at the replay what it was called at the table.
    names = [next((bot_name(p.seat) if p.bot else p.name for p in players if p.seat == seat),
                  f"seat {seat + 1}")
             for seat in range(rules.seats)]
    started = next(e.event for e in entries if isinstance(e.event, HandStarted))
    ended = next(e.event for e in entries if isinstance(e.event, HandEnded))
    assert isinstance(started, HandStarted) and isinstance(ended, HandEnded)
    problems = [str(p) for p in (*verdict.stream_problems, *hand_verdict.problems)]
    return HandReplay(
        table_id=table_id, game=game, hand=hand, preset=rules.preset, seats=rules.seats,
        partnerships=rules.partnerships, names=names, commitment=started.commitment,
        seed=ended.seed, status=hand_verdict.status if not problems else "problems",
        problems=problems, steps=steps,
    )
