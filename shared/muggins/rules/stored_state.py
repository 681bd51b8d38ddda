"""A game's state written out and read back: the table views' stored rows
and the bot workers' jobs carry it as JSON.

The state's own classes (``muggins.rules.state``, ``muggins.rules.layout``)
are compiled for the engine's speed, and msgspec writes only its Structs, so
each has a Struct twin here with the same fields in the same order: the JSON
is the one the state's classes wrote when they were Structs themselves, and
rows written then read back the same.  tests/rules/test_stored_state.py
holds both to that.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

from muggins.rules.layout import Layout, Spinner
from muggins.rules.ruleset import Ruleset
from muggins.rules.state import (
    GAME_FIELDS,
    HAND_FIELDS,
    GameState,
    HandState,
    PendingCount,
    Phase,
)
from muggins.rules.tiles import Tile


class StoredSpinner(msgspec.Struct, frozen=True, array_like=True, gc=False):
    tile: Tile
    arm: int
    position: int
    short_arms: tuple[int, int]


class StoredLayout(msgspec.Struct, frozen=True, gc=False):
    lead: Tile | None = None
    arms: tuple[tuple[Tile, ...], ...] = ()
    ends: tuple[int, ...] = ()
    spinners: tuple[StoredSpinner, ...] = ()
    count: int = 0
    open_numbers: int = 0


class StoredPendingCount(msgspec.Struct, frozen=True, gc=False):
    seat: int
    points: int


class StoredHand(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    number: int
    leader: int
    must_lead: Tile | None
    commitment: str
    seed: str | None = None
    hands: tuple[tuple[Tile, ...], ...]
    boneyard: tuple[Tile, ...] = ()
    layout: StoredLayout = StoredLayout()
    turn: int
    passes: int = 0
    pending: StoredPendingCount | None = None


class StoredGame(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    ruleset: Ruleset
    scores: tuple[int, ...]
    phase: Phase = "between-hands"
    hand: StoredHand | None = None
    hands_played: int = 0
    last_leader: int | None = None
    last_domino_seat: int | None = None
    last_winner_seat: int | None = None
    winner_side: int | None = None


_encode: Final = msgspec.json.Encoder().encode
_decode: Final = msgspec.json.Decoder(StoredGame).decode


def encode_state(state: GameState) -> bytes:
    """``state`` as JSON."""
    return _encode(stored(state))


def decode_state(data: bytes | str) -> GameState:
    """The state ``encode_state`` wrote (a ``msgspec.ValidationError`` if it is not one)."""
    return restored(_decode(data))


def stored(state: GameState) -> StoredGame:
    values = _fields_of(state, GAME_FIELDS)
    hand = state.hand
    values["hand"] = None if hand is None else _stored_hand(hand)
    return StoredGame(**values)


def restored(game: StoredGame) -> GameState:
    values = msgspec.structs.asdict(game)
    hand = game.hand
    values["hand"] = None if hand is None else _restored_hand(hand)
    return GameState(**values)


def _stored_hand(hand: HandState) -> StoredHand:
    values = _fields_of(hand, HAND_FIELDS)
    layout = hand.layout
    values["layout"] = StoredLayout(
        layout.lead,
        layout.arms,
        layout.ends,
        tuple([StoredSpinner(s.tile, s.arm, s.position, s.short_arms) for s in layout.spinners]),
        layout.count,
        layout.open_numbers,
    )
    pending = hand.pending
    values["pending"] = None if pending is None else StoredPendingCount(pending.seat,
                                                                        pending.points)
    return StoredHand(**values)


def _restored_hand(hand: StoredHand) -> HandState:
    values = msgspec.structs.asdict(hand)
    layout = hand.layout
    values["layout"] = Layout(
        layout.lead,
        layout.arms,
        layout.ends,
        tuple([Spinner(s.tile, s.arm, s.position, s.short_arms) for s in layout.spinners]),
        layout.count,
        layout.open_numbers,
    )
    pending = hand.pending
    values["pending"] = None if pending is None else PendingCount(pending.seat, pending.points)
    return HandState(**values)


def _fields_of(state: GameState | HandState, fields: tuple[str, ...]) -> dict[str, Any]:
    """``state``'s fields by name (its twin has the same, in the same order)."""
    return {name: getattr(state, name) for name in fields}
