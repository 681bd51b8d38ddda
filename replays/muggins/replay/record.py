"""A game's stored events, split into hands, and the self-contained hand
record file (``muggins replay export``)."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from muggins.rules.commands import AnyCommand, CallMuggins, Play
from muggins.rules.events import (
    AnyEvent,
    GameEnded,
    GameStarted,
    HandEnded,
    HandStarted,
    PointsScored,
    TilePlayed,
)
from muggins.rules.ruleset import Ruleset
from muggins.rules.state import GameState

RECORD_FORMAT = "muggins-hand-record"
RECORD_FORMAT_VERSION = 1


class StoredFields(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """The rest of an event's row in the store: everything the stream's hash
    chain covers besides the version and the payload (docs/fairness.md,
    "Tamper evidence: the hash chain")."""

    position: int
    stream_id: str
    event_id: str
    event_type: str
    audience: str
    actor: str
    correlation_id: str | None
    causation_id: str | None
    #: The commit time as the chain hashes it: UTC, e.g. 2026-12-01T09:30:00.123456Z.
    recorded_at: str
    #: The chain value of the stream's event before this one (hex).
    previous: str
    #: The chain value after this event (hex).
    chain: str
    #: The payload exactly as stored (the chain hashes it).  Read from the
    #: store, always; in a record file only where it is not the same JSON as
    #: ``event`` (an event stored before a field was added to its type).
    payload: msgspec.Raw | None = None


class StoredEvent(msgspec.Struct, frozen=True, omit_defaults=True):
    """An event with its version in the game's stream, and the rest of its
    row when it was read from the store (None: a record from before the chain)."""

    version: int
    event: AnyEvent
    stored: StoredFields | None = None


class StateBefore(msgspec.Struct, frozen=True):
    """What a hand starts from: the scores and who led and won before it."""

    scores: tuple[int, ...]
    hands_played: int
    last_leader: int | None = None
    last_domino_seat: int | None = None
    last_winner_seat: int | None = None

    def game_state(self, ruleset: Ruleset) -> GameState:
        return GameState(
            ruleset=ruleset,
            scores=self.scores,
            hands_played=self.hands_played,
            last_leader=self.last_leader,
            last_domino_seat=self.last_domino_seat,
            last_winner_seat=self.last_winner_seat,
        )

    @staticmethod
    def of(state: GameState) -> StateBefore:
        return StateBefore(
            scores=state.scores,
            hands_played=state.hands_played,
            last_leader=state.last_leader,
            last_domino_seat=state.last_domino_seat,
            last_winner_seat=state.last_winner_seat,
        )


class HandRecord(msgspec.Struct, frozen=True, kw_only=True):
    """Everything needed to check one hand without the server (docs/replays.md)."""

    format: str = RECORD_FORMAT
    format_version: int = RECORD_FORMAT_VERSION
    #: The shuffle algorithm the hand was dealt with (docs/fairness.md).
    shuffle_version: int
    table: str
    hand: int
    ruleset: Ruleset
    before: StateBefore
    #: Revealed at the end of the hand; its SHA-256 must equal ``commitment``.
    seed: str
    commitment: str
    #: The players' choices, in order: the only input besides the seed.
    decisions: list[AnyCommand]
    #: The hand's events as stored, HandStarted to HandEnded (and GameEnded).
    events: list[StoredEvent]


class RecordError(ValueError):
    """A record file that cannot be read or checked; the message says why."""


class HandInPlay(RecordError):
    """The hand asked for is still being played: its tiles and seed are
    secret until it ends."""


record_decoder = msgspec.json.Decoder(HandRecord)


def decisions_of(events: Sequence[AnyEvent]) -> list[AnyCommand]:
    """The players' decisions recorded in ``events``: plays and muggins calls.

    Draws, passes and deals are not decisions: the rules and the seed decide them.
    """
    decisions: list[AnyCommand] = []
    for event in events:
        if isinstance(event, TilePlayed):
            decisions.append(Play(event.seat, event.tile, event.end, event.claim))
        elif isinstance(event, PointsScored) and event.reason == "muggins":
            decisions.append(CallMuggins(seat=event.seat))
    return decisions


class HandSlice(msgspec.Struct, frozen=True):
    """Where one hand's events lie in a game's stream (indexes into the list)."""

    hand: int
    start: int
    #: One past its last event (HandEnded, and a GameEnded right after it).
    stop: int
    finished: bool


def hands_of(stored: Sequence[StoredEvent]) -> list[HandSlice]:
    """The hands in a game's stored events, in order."""
    slices: list[HandSlice] = []
    start: int | None = None
    number = 0
    for index, entry in enumerate(stored):
        event = entry.event
        if isinstance(event, HandStarted):
            if start is not None:  # a hand that never ended, then another: report both
                slices.append(HandSlice(number, start, index, False))
            start, number = index, event.hand
        elif isinstance(event, HandEnded) and start is not None:
            stop = index + 1
            if stop < len(stored) and isinstance(stored[stop].event, GameEnded):
                stop += 1
            slices.append(HandSlice(number, start, stop, True))
            start = None
    if start is not None:
        slices.append(HandSlice(number, start, len(stored), False))
    return slices


def ruleset_of(stored: Sequence[StoredEvent]) -> Ruleset:
    if not stored or not isinstance(stored[0].event, GameStarted):
        raise RecordError("the stream does not start with GameStarted: it is not a game")
    return stored[0].event.ruleset
