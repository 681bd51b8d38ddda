"""Commands: what a player (or the server, for forced moves) asks the game to
do, imperative, frozen, one tagged union.  ``game.decide`` turns a command
into events or refuses it."""

from __future__ import annotations

import msgspec

from muggins.rules.tiles import Tile


class Command(msgspec.Struct, frozen=True, gc=False, kw_only=True, tag=True, tag_field="type"):
    """Base of every command; the tag is the class name."""


class StartHand(Command, frozen=True, kw_only=True):
    """Deal the next hand from ``seed`` (64 hex digits, secret until the hand ends)."""

    seed: str


class Play(Command, frozen=True, kw_only=False):
    seat: int
    tile: Tile
    #: The arm whose open end the tile goes on; None to lead.
    end: int | None = None
    #: Points claimed with the play (only read when the muggins rule is on).
    claim: int | None = None


class Draw(Command, frozen=True, kw_only=True):
    seat: int


class Pass(Command, frozen=True, kw_only=True):
    seat: int


class CallMuggins(Command, frozen=True, kw_only=True):
    """Take an opponent's unclaimed or wrongly claimed count (muggins rule)."""

    seat: int


AnyCommand = StartHand | Play | Draw | Pass | CallMuggins
