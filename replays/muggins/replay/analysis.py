"""A finished hand's decisions as the expert judges them: for each play a
seat chose among several, the play the expert prefers and the expected
points the choice gave up.

The expert judges each decision from what that seat knew then (its tiles
and the hand's public events), never from the revealed hands, with a fixed
number of simulations and a seed made from the hand and the decision: the
analysis of a hand is the same every time it is asked for.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import msgspec

from muggins.expert.bot import PlayAssessment, analyse_state
from muggins.expert.search_structs import SearchSettings
from muggins.rules.events import Event, GameStarted, HandStarted, TilePlayed
from muggins.rules.game import evolve, legal_plays
from muggins.rules.state import GameState
from muggins.rules.tiles import Tile

#: Simulations per decision: enough that the preferred play is stable.
ANALYSIS_ITERATIONS = 1500
#: A choice that gives up at least this many expected points is flagged.
COSTLY_POINTS = 4.0


class Decision(msgspec.Struct, frozen=True):
    """One choice a seat made, and how it compares with the expert's."""

    #: The step of the hand (1 is its first event) the play was made at.
    step: int
    seat: int
    tile: Tile
    end: int | None
    preferred_tile: Tile
    preferred_end: int | None
    #: Expected points (the seat's side minus the others', to the hand's end)
    #: the choice gave up against the preferred play; 0 when it was the preferred play.
    given_up: float
    costly: bool
    #: Every legal play as the expert saw it, best first.
    plays: list[PlayAssessment]


class HandAnalysis(msgspec.Struct, frozen=True):
    hand: int
    iterations: int
    decisions: list[Decision]


def analyse_hand(before: GameState, events: Sequence[Event], *, seed: str,
                 iterations: int = ANALYSIS_ITERATIONS) -> HandAnalysis:
    """The decisions of the hand whose events (from its HandStarted) follow ``before``."""
    settings = SearchSettings(iterations=iterations)
    state = before
    hand_events: list[Event] = []
    decisions: list[Decision] = []
    number = 0
    for step, event in enumerate(events, start=1):
        if isinstance(event, HandStarted):
            number, hand_events = event.hand, []
        if (isinstance(event, TilePlayed) and state.hand is not None
                and state.hand.turn == event.seat and len(legal_plays(state)) > 1):
            judged = analyse_state(state, hand_events, settings,
                                   random.Random(f"{seed}/{number}/{step}"))
            given_up = max(0.0, judged.given_up(event.tile, event.end))
            decisions.append(Decision(
                step=step, seat=event.seat, tile=event.tile, end=event.end,
                preferred_tile=judged.preferred.tile, preferred_end=judged.preferred.end,
                given_up=round(given_up, 2), costly=given_up >= COSTLY_POINTS,
                plays=sorted(judged.plays, key=lambda p: -p.expected_points)))
        if not isinstance(event, GameStarted):
            state = evolve(state, event)
        hand_events.append(event)
    return HandAnalysis(hand=number, iterations=iterations, decisions=decisions)


_WHERE = ("at the left end", "at the right end", "on the top arm", "on the bottom arm")


def _play_text(tile: Tile, end: int | None, lead_word: str = "led") -> str:
    shown = f"{max(tile)}-{min(tile)}"
    if end is None:
        return f"{lead_word} {shown}"
    return f"{shown} {_WHERE[end] if end < len(_WHERE) else f'on arm {end}'}"


def analysis_lines(analysis: HandAnalysis) -> list[str]:
    """The analysis as text, one line per decision."""
    lines = ["", f"Hand {analysis.hand} as the expert sees it ({analysis.iterations} "
             "simulations per decision, from what each seat knew):"]
    if not analysis.decisions:
        lines.append("  no decision had a choice")
    for d in analysis.decisions:
        played = _play_text(d.tile, d.end)
        if d.given_up < 0.05:
            lines.append(f"  step {d.step}, seat {d.seat + 1}: {played} (the expert agrees)")
            continue
        mark = "  ✗ costly" if d.costly else ""
        lines.append(f"  step {d.step}, seat {d.seat + 1}: {played}; the expert prefers "
                     f"{_play_text(d.preferred_tile, d.preferred_end, 'leading')}, "
                     f"{d.given_up:.1f} expected points better{mark}")
    costly = sum(d.costly for d in analysis.decisions)
    lost = sum(d.given_up for d in analysis.decisions)
    lines.append(f"  {costly} costly decision(s); {lost:.1f} expected points given up in all")
    return lines
