"""The game's state: what a fold of ``game.evolve`` over the events builds.

Immutable classes compiled with the rules (mypyc): the engine reads their
fields as machine structs, where a msgspec Struct's are looked up by name at
every read (about a fifth of a random hand's time went to that).  Their
fields are ``Final``, so nothing assigns them once made, and a compiled build
refuses it at run time as well.  They are not events: no state is ever
stored as it is.  Where a state is written out (the table views, the bot
workers' jobs), ``muggins.rules.stored_state`` turns it into Structs and
back.  ``replaced`` gives a copy with some fields changed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, Literal, TypeVar

from mypy_extensions import mypyc_attr

from muggins.rules.layout import Layout
from muggins.rules.ruleset import (
    BlockedAward,
    Drawing,
    FirstLeader,
    HandAward,
    LeaderWithoutWinner,
    NextLeader,
    Rounding,
    Ruleset,
    Scoring,
    SpinnerMode,
    TargetCheck,
)
from muggins.rules.tiles import Tile

Phase = Literal["between-hands", "playing", "game-over"]

#: The layout before the lead.
EMPTY_LAYOUT: Final = Layout()


@mypyc_attr(acyclic=True)
class MoveRules:
    """The knobs of a Ruleset that the engine reads as a game is played (every
    move, deal and hand's end), copied into a compiled object once per game
    (``GameState.move_rules``): the Ruleset stays their one owner, and a
    Struct's fields cost a lookup by name at every read."""

    __slots__ = (
        "blocked_award",
        "drawing",
        "first_leader",
        "hand_award",
        "leader_without_winner",
        "max_pip",
        "muggins_rule",
        "next_leader",
        "partnerships",
        "rounding",
        "ruleset",
        "scoring",
        "seats",
        "spinner",
        "target",
        "target_check",
        "tiles_per_seat",
    )

    def __reduce__(self) -> tuple[type[MoveRules], tuple[Ruleset]]:
        """Copied and pickled as made: from the ruleset again."""
        return (MoveRules, (self.ruleset,))

    def __init__(self, ruleset: Ruleset) -> None:
        #: The ruleset they were copied from.
        self.ruleset: Final = ruleset
        self.seats: Final[int] = ruleset.seats
        self.partnerships: Final[bool] = ruleset.partnerships
        self.spinner: Final[SpinnerMode] = ruleset.spinner
        self.scoring: Final[Scoring] = ruleset.scoring
        self.muggins_rule: Final[bool] = ruleset.muggins_rule
        self.drawing: Final[Drawing] = ruleset.drawing
        self.target: Final[int | None] = ruleset.target
        self.target_check: Final[TargetCheck] = ruleset.target_check
        self.max_pip: Final[int] = ruleset.max_pip
        self.tiles_per_seat: Final[int] = ruleset.tiles_per_seat
        self.first_leader: Final[FirstLeader] = ruleset.first_leader
        self.next_leader: Final[NextLeader] = ruleset.next_leader
        self.leader_without_winner: Final[LeaderWithoutWinner] = ruleset.leader_without_winner
        self.hand_award: Final[HandAward] = ruleset.hand_award
        self.blocked_award: Final[BlockedAward] = ruleset.blocked_award
        self.rounding: Final[Rounding] = ruleset.rounding


#: The last MoveRules made: a new game of the same Ruleset object (self-play,
#: a table's next game) takes it instead of copying the knobs again.
_LAST_MOVE_RULES: Final[list[MoveRules]] = []


def _move_rules(ruleset: Ruleset) -> MoveRules:
    """``ruleset``'s MoveRules: the last ones made if made of this very object."""
    last = _LAST_MOVE_RULES[0] if _LAST_MOVE_RULES else None
    if last is not None and last.ruleset is ruleset:
        return last
    made = MoveRules(ruleset)
    if _LAST_MOVE_RULES:
        _LAST_MOVE_RULES[0] = made
    else:
        _LAST_MOVE_RULES.append(made)
    return made


@mypyc_attr(acyclic=True)
class PendingCount:
    """A count its player did not claim (muggins rule): open to a call until the next play."""

    __slots__ = ("points", "seat")

    def __init__(self, seat: int, points: int) -> None:
        self.seat: Final = seat
        self.points: Final = points

    def __reduce__(self) -> tuple[type[PendingCount], tuple[int, int]]:
        """Copied and pickled as made: its fields, given to its constructor again."""
        return (PendingCount, (self.seat, self.points))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PendingCount):
            return NotImplemented
        return self.seat == other.seat and self.points == other.points

    def __hash__(self) -> int:
        return hash((self.seat, self.points))

    def __repr__(self) -> str:
        return f"PendingCount(seat={self.seat!r}, points={self.points!r})"


@mypyc_attr(acyclic=True, free_list_len=1)
class HandState:
    """The hand being played."""

    __slots__ = (
        "boneyard",
        "commitment",
        "hands",
        "layout",
        "leader",
        "must_lead",
        "number",
        "passes",
        "pending",
        "seed",
        "turn",
    )

    def __init__(
        self,
        *,
        number: int,
        leader: int,
        must_lead: Tile | None,
        commitment: str,
        seed: str | None = None,
        hands: tuple[tuple[Tile, ...], ...],
        boneyard: tuple[Tile, ...] = (),
        layout: Layout = EMPTY_LAYOUT,
        turn: int,
        passes: int = 0,
        pending: PendingCount | None = None,
    ) -> None:
        self.number: Final = number
        self.leader: Final = leader
        self.must_lead: Final = must_lead
        self.commitment: Final = commitment
        #: Secret until the hand ends; only the audit trail and HandEnded carry it.
        self.seed: Final = seed
        self.hands: Final = hands
        self.boneyard: Final = boneyard
        self.layout: Final = layout
        self.turn: Final = turn
        #: Passes in a row; as many as there are seats blocks the hand.
        self.passes: Final = passes
        self.pending: Final = pending

    def _fields(self) -> tuple[object, ...]:
        return (self.number, self.leader, self.must_lead, self.commitment, self.seed,
                self.hands, self.boneyard, self.layout, self.turn, self.passes, self.pending)

    def __reduce__(self) -> tuple[Callable[..., HandState], tuple[object, ...]]:
        """Copied and pickled as made: its fields, given to its constructor again."""
        return (_hand_state, self._fields())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HandState):
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return _repr(self, HAND_FIELDS)


@mypyc_attr(acyclic=True, free_list_len=1)
class GameState:
    """A game between events.

    Invariant: ``hand`` is set exactly while ``phase`` is "playing" (HandStarted
    sets both, HandEnded clears both), so the rules' hot queries test ``hand``
    alone.  tests/rules/test_properties.py checks it after every event.
    """

    __slots__ = (
        "hand",
        "hands_played",
        "last_domino_seat",
        "last_leader",
        "last_winner_seat",
        "move_rules",
        "phase",
        "ruleset",
        "scores",
        "winner_side",
    )

    def __init__(
        self,
        *,
        ruleset: Ruleset,
        scores: tuple[int, ...],
        phase: Phase = "between-hands",
        hand: HandState | None = None,
        hands_played: int = 0,
        last_leader: int | None = None,
        last_domino_seat: int | None = None,
        last_winner_seat: int | None = None,
        winner_side: int | None = None,
        move_rules: MoveRules | None = None,
    ) -> None:
        self.ruleset: Final = ruleset
        #: Points per side (a seat, or a partnership).
        self.scores: Final = scores
        self.phase: Final[Phase] = phase
        self.hand: Final = hand
        self.hands_played: Final = hands_played
        self.last_leader: Final = last_leader
        self.last_domino_seat: Final = last_domino_seat
        self.last_winner_seat: Final = last_winner_seat
        self.winner_side: Final = winner_side
        #: ``ruleset``'s knobs for the moves: passed on from state to state
        #: by the engine, made from ``ruleset`` where not given.
        if move_rules is not None and move_rules.ruleset is not ruleset:
            raise ValueError("move_rules are another ruleset's")
        self.move_rules: Final = move_rules if move_rules is not None else _move_rules(ruleset)

    def _fields(self) -> tuple[object, ...]:
        return (self.ruleset, self.scores, self.phase, self.hand, self.hands_played,
                self.last_leader, self.last_domino_seat, self.last_winner_seat,
                self.winner_side)

    def __reduce__(self) -> tuple[Callable[..., GameState], tuple[object, ...]]:
        """Copied and pickled as made: its fields, given to its constructor
        again (``move_rules`` made anew from the ruleset)."""
        return (_game_state, self._fields())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return _repr(self, GAME_FIELDS)


#: Each class's fields in order: its constructor's keywords, and what
#: ``_fields`` gives (GameState's ``move_rules`` are made from its ruleset).
HAND_FIELDS: Final = ("number", "leader", "must_lead", "commitment", "seed", "hands", "boneyard",
                      "layout", "turn", "passes", "pending")
GAME_FIELDS: Final = ("ruleset", "scores", "phase", "hand", "hands_played", "last_leader",
                      "last_domino_seat", "last_winner_seat", "winner_side")


def _hand_state(*values: Any) -> HandState:
    """The HandState of these field values, in HAND_FIELDS' order (unpickling)."""
    return HandState(**dict(zip(HAND_FIELDS, values, strict=True)))


def _game_state(*values: Any) -> GameState:
    """The GameState of these field values, in GAME_FIELDS' order (unpickling)."""
    return GameState(**dict(zip(GAME_FIELDS, values, strict=True)))


def _repr(state: HandState | GameState, fields: tuple[str, ...]) -> str:
    shown = ", ".join(f"{name}={getattr(state, name)!r}" for name in fields)
    return f"{type(state).__name__}({shown})"


State = TypeVar("State", GameState, HandState)


def replaced(state: State, **changes: Any) -> State:
    """A copy of ``state`` (a GameState or a HandState) with ``changes`` made:
    for tests and tools, which build odd states by hand (the engine itself
    never needs it)."""
    fields = GAME_FIELDS if isinstance(state, GameState) else HAND_FIELDS
    unknown = changes.keys() - set(fields)
    if unknown:
        raise TypeError(f"{type(state).__name__} has no field {sorted(unknown)[0]!r}")
    values = {name: changes[name] if name in changes else getattr(state, name) for name in fields}
    made: State = type(state)(**values)
    return made
