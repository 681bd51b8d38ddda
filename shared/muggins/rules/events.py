"""Events: the facts of a game, past tense, frozen, one tagged union.

A game's state is a fold of ``game.evolve`` over these.  Each event type has
an audience (who may read its content): ``"public"``, ``"audit"`` (the
operator and, after the hand, the replay tool) or one seat.  A reader outside
the audience gets ``redact(event)``: the bare fact with the secret removed, so
every reader still sees every version of the stream.

New fields are added with defaults; anything else is a new event type
(STYLE.md 3).  docs/events.md lists them all.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from muggins.rules.ruleset import Ruleset
from muggins.rules.tiles import Tile

LeaderReason = Literal[
    "lottery",
    "highest-double",
    "heaviest-tile",
    "domino-player",
    "hand-winner",
    "left-of-previous-leader",
]
ScoreReason = Literal["count", "domino", "blocked", "muggins"]
HandOutcome = Literal["domino", "blocked", "target-reached"]


class Event(msgspec.Struct, frozen=True, gc=False, kw_only=True, tag=True, tag_field="type"):
    """Base of every event; the tag is the class name."""


class SeatedPlayer(msgspec.Struct, frozen=True, gc=False, kw_only=True):
    """Who sat in a seat when the game began: for leaderboards, not for the rules."""

    seat: int
    #: The player's identity (a bot's is "bot:LEVEL": all bots of a level are one player).
    player_id: str
    name: str
    bot: bool = False


class GameStarted(Event, frozen=True, kw_only=True):
    ruleset: Ruleset
    #: The seats' players at the start (empty for games played outside a table).
    players: tuple[SeatedPlayer, ...] = ()


class HandStarted(Event, frozen=True, kw_only=True):
    hand: int
    leader: int
    leader_reason: LeaderReason
    #: SHA-256 of the hand's seed, hex: the fairness commitment.
    commitment: str
    shuffle_version: int
    #: The tile the leader must lead (highest-double rule), else None.
    must_lead: Tile | None = None


class SeedSealed(Event, frozen=True, kw_only=True):
    """The hand's secret seed, kept for audit; revealed by HandEnded."""

    hand: int
    seed: str | None = None


class TilesDealt(Event, frozen=True, kw_only=True):
    hand: int
    seat: int
    tile_count: int
    tiles: tuple[Tile, ...] | None = None


class BoneyardStacked(Event, frozen=True, kw_only=True):
    """The undealt tiles in drawing order (front first)."""

    hand: int
    tile_count: int
    tiles: tuple[Tile, ...] | None = None


class TileDrawn(Event, frozen=True, kw_only=False):
    hand: int
    seat: int
    tile: Tile | None = None


class TilePlayed(Event, frozen=True, kw_only=False):
    hand: int
    seat: int
    tile: Tile
    #: The arm whose open end the tile went on; None for the lead.
    end: int | None
    #: The open ends added up after the play.
    count: int
    #: Points the player claimed (muggins rule only).
    claim: int | None = None


class Passed(Event, frozen=True, kw_only=False):
    hand: int
    seat: int


class PointsScored(Event, frozen=True, kw_only=False):
    hand: int
    side: int
    #: The seat whose play, domino, low hand or call earned the points.
    seat: int
    points: int
    reason: ScoreReason


class HandEnded(Event, frozen=True, kw_only=True):
    hand: int
    outcome: HandOutcome
    #: The side that won the hand; None for a blocked tie or a target reached mid-hand.
    winner_side: int | None
    #: The seat that dominoed, or held the lowest hand of the winning side.
    winner_seat: int | None
    #: Pips left in each seat's hand.
    pips: tuple[int, ...]
    #: Every seat's remaining tiles, revealed.
    hands: tuple[tuple[Tile, ...], ...]
    #: The hand's seed, revealed: check it against HandStarted.commitment.
    seed: str


class GameEnded(Event, frozen=True, kw_only=True):
    #: The winning side; None for a drawn game.
    winner_side: int | None
    scores: tuple[int, ...]


AnyEvent = (
    GameStarted
    | HandStarted
    | SeedSealed
    | TilesDealt
    | BoneyardStacked
    | TileDrawn
    | TilePlayed
    | Passed
    | PointsScored
    | HandEnded
    | GameEnded
)

Audience = Literal["public", "audit"] | int


def audience(event: Event) -> Audience:
    """Who may read this event's content: "public", "audit", or a seat number."""
    if isinstance(event, TilesDealt | TileDrawn):
        return event.seat
    if isinstance(event, SeedSealed | BoneyardStacked):
        return "audit"
    return "public"


_SECRET_FIELD: dict[type[Event], str] = {
    TilesDealt: "tiles",
    BoneyardStacked: "tiles",
    TileDrawn: "tile",
    SeedSealed: "seed",
}


def redact(event: Event) -> Event:
    """The bare fact of ``event`` for a reader outside its audience."""
    field = _SECRET_FIELD.get(type(event))
    return event if field is None else msgspec.structs.replace(event, **{field: None})


def visible_to(event: Event, reader: Audience) -> Event:
    """``event`` as ``reader`` may see it: whole if in its audience, else redacted.

    ``reader`` is a seat number, "public" (spectators) or "audit" (sees all).
    """
    who = audience(event)
    if who == "public" or reader == "audit" or who == reader:
        return event
    return redact(event)


event_encoder = msgspec.json.Encoder()
event_decoder = msgspec.json.Decoder(AnyEvent)
