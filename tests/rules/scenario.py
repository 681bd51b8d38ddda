"""Hand-dealt scenarios: a game state folded from chosen tiles, for exact tests."""

from __future__ import annotations

from collections.abc import Sequence

from muggins.rules.commands import AnyCommand
from muggins.rules.events import (
    BoneyardStacked,
    Event,
    GameStarted,
    HandStarted,
    PointsScored,
    SeedSealed,
    TilesDealt,
)
from muggins.rules.game import apply, fold
from muggins.rules.ruleset import Ruleset
from muggins.rules.shuffle import commitment
from muggins.rules.state import GameState
from muggins.rules.tiles import Tile, parse_tile

SEED = "00" * 32


def tiles(text: str) -> tuple[Tile, ...]:
    """ "6-4 5-5" -> the tiles, sorted as a dealt hand is."""
    return tuple(sorted(parse_tile(t) for t in text.split()))


def t(text: str) -> Tile:
    return parse_tile(text)


def dealt(
    rules: Ruleset,
    hands: Sequence[str],
    boneyard: str = "",
    leader: int = 0,
    scores: Sequence[int] | None = None,
    must_lead: str | None = None,
    hand_number: int = 1,
) -> GameState:
    """A game whose hand ``hand_number`` was dealt ``hands`` (and the boneyard, front first)."""
    events: list[Event] = [GameStarted(ruleset=rules)]
    for side, points in enumerate(scores or ()):
        if points:
            events.append(PointsScored(hand=0, side=side, seat=side, points=points, reason="count"))
    state = fold(events)
    if hand_number > 1:
        from muggins.rules.state import replaced

        state = replaced(state, hands_played=hand_number - 1)
    yard = tuple(parse_tile(x) for x in boneyard.split())
    setup: list[Event] = [
        HandStarted(
            hand=hand_number,
            leader=leader,
            leader_reason="lottery",
            must_lead=parse_tile(must_lead) if must_lead else None,
            commitment=commitment(bytes(32)),
            shuffle_version=1,
        ),
        SeedSealed(hand=hand_number, seed=SEED),
    ]
    setup += [
        TilesDealt(hand=hand_number, seat=seat, tile_count=len(tiles(h)), tiles=tiles(h))
        for seat, h in enumerate(hands)
    ]
    setup.append(BoneyardStacked(hand=hand_number, tile_count=len(yard), tiles=yard))
    return fold(setup, state)


def run(state: GameState, *commands: AnyCommand) -> tuple[GameState, list[Event]]:
    """Apply commands one after another (no forced moves in between)."""
    events: list[Event] = []
    for command in commands:
        state, new = apply(state, command)
        events += new
    return state, events
