"""The game's state: what a fold of ``game.evolve`` over the events builds.

Kept apart from ``game`` (the functions over it) because the rules functions
are compiled with mypyc, and a msgspec Struct must stay an ordinary Python
class to keep its frozen, tagged behaviour.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from muggins.rules.layout import Layout
from muggins.rules.ruleset import Ruleset
from muggins.rules.tiles import Tile

Phase = Literal["between-hands", "playing", "game-over"]


# State, events and commands are immutable trees (no reference cycles), so
# they stay out of the cyclic garbage collector (gc=False): a server holding
# hundreds of games would otherwise pause for full collections.
class PendingCount(msgspec.Struct, frozen=True, gc=False):
    """A count its player did not claim (muggins rule): open to a call until the next play."""

    seat: int
    points: int


class HandState(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    number: int
    leader: int
    must_lead: Tile | None
    commitment: str
    #: Secret until the hand ends; only the audit trail and HandEnded carry it.
    seed: str | None = None
    hands: tuple[tuple[Tile, ...], ...]
    boneyard: tuple[Tile, ...] = ()
    layout: Layout = Layout()
    turn: int
    #: Passes in a row; as many as there are seats blocks the hand.
    passes: int = 0
    pending: PendingCount | None = None


class GameState(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A game between events.

    Invariant: ``hand`` is set exactly while ``phase`` is "playing" (HandStarted
    sets both, HandEnded clears both), so the rules' hot queries test ``hand``
    alone.  tests/rules/test_properties.py checks it after every event.
    """

    ruleset: Ruleset
    #: Points per side (a seat, or a partnership).
    scores: tuple[int, ...]
    phase: Phase = "between-hands"
    hand: HandState | None = None
    hands_played: int = 0
    last_leader: int | None = None
    last_domino_seat: int | None = None
    last_winner_seat: int | None = None
    winner_side: int | None = None
