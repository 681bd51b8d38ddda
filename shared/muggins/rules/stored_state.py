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

from typing import Final

import msgspec

from muggins.rules.layout import Layout, Spinner
from muggins.rules.ruleset import Ruleset
from muggins.rules.state import GameState, HandState, PendingCount, Phase
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
    hand = state.hand
    return StoredGame(
        ruleset=state.ruleset,
        scores=state.scores,
        phase=state.phase,
        hand=None if hand is None else _stored_hand(hand),
        hands_played=state.hands_played,
        last_leader=state.last_leader,
        last_domino_seat=state.last_domino_seat,
        last_winner_seat=state.last_winner_seat,
        winner_side=state.winner_side,
    )


def restored(game: StoredGame) -> GameState:
    hand = game.hand
    return GameState(
        ruleset=game.ruleset,
        scores=game.scores,
        phase=game.phase,
        hand=None if hand is None else _restored_hand(hand),
        hands_played=game.hands_played,
        last_leader=game.last_leader,
        last_domino_seat=game.last_domino_seat,
        last_winner_seat=game.last_winner_seat,
        winner_side=game.winner_side,
    )


def _stored_hand(hand: HandState) -> StoredHand:
    layout = hand.layout
    pending = hand.pending
    return StoredHand(
        number=hand.number,
        leader=hand.leader,
        must_lead=hand.must_lead,
        commitment=hand.commitment,
        seed=hand.seed,
        hands=hand.hands,
        boneyard=hand.boneyard,
        layout=StoredLayout(
            layout.lead,
            layout.arms,
            layout.ends,
            tuple([StoredSpinner(s.tile, s.arm, s.position, s.short_arms)
                   for s in layout.spinners]),
            layout.count,
            layout.open_numbers,
        ),
        turn=hand.turn,
        passes=hand.passes,
        pending=None if pending is None else StoredPendingCount(pending.seat, pending.points),
    )


def _restored_hand(hand: StoredHand) -> HandState:
    layout = hand.layout
    pending = hand.pending
    return HandState(
        number=hand.number,
        leader=hand.leader,
        must_lead=hand.must_lead,
        commitment=hand.commitment,
        seed=hand.seed,
        hands=hand.hands,
        boneyard=hand.boneyard,
        layout=Layout(
            layout.lead,
            layout.arms,
            layout.ends,
            tuple([Spinner(s.tile, s.arm, s.position, s.short_arms) for s in layout.spinners]),
            layout.count,
            layout.open_numbers,
        ),
        turn=hand.turn,
        passes=hand.passes,
        pending=None if pending is None else PendingCount(pending.seat, pending.points),
    )
