"""The immutable rules configuration of a table: one knob per question the
seed rule books answer differently."""

from __future__ import annotations

from typing import Literal

import msgspec

from muggins.rules.errors import InvalidRuleset

SpinnerMode = Literal["none", "first-double", "every-double"]
Scoring = Literal["fives", "threes", "fives-and-threes", "none"]
Rounding = Literal["total", "per-opponent", "none"]
HandAward = Literal["pips", "one-point"]
BlockedAward = Literal["opponents", "opponents-minus-own", "pips-of-others"]
TargetCheck = Literal["immediate", "end-of-hand"]
FirstLeader = Literal["lottery", "highest-double"]
NextLeader = Literal["domino-player", "hand-winner"]
LeaderWithoutWinner = Literal["lottery", "highest-double", "left-of-previous-leader"]
Drawing = Literal["draw", "none"]

SET_SIZES = (6, 9, 12, 15)


class Ruleset(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, gc=False
):
    """Everything that decides how a game plays.  Validated on construction.

    Each field is one orthogonal knob; ``muggins.rules.presets`` names the
    combinations the seed rule books describe.
    """

    preset: str = "custom"
    #: The set: double-``max_pip`` (6, 9, 12 or 15).
    max_pip: int = 6
    seats: int = 2
    #: Seats 0+2 against 1+3 (four seats only).
    partnerships: bool = False
    tiles_per_seat: int = 7
    spinner: SpinnerMode = "first-double"
    scoring: Scoring = "fives"
    #: How the winner's award of opponents' pips is rounded to a multiple of 5.
    rounding: Rounding = "total"
    #: What the winner of a hand gets: the opponents' pips, or a single point.
    hand_award: HandAward = "pips"
    blocked_award: BlockedAward = "opponents"
    #: Points that win the game; None: the game is a single hand.
    target: int | None = 250
    target_check: TargetCheck = "immediate"
    first_leader: FirstLeader = "lottery"
    next_leader: NextLeader = "domino-player"
    #: Who leads when the next-leader rule names nobody (a blocked hand).
    leader_without_winner: LeaderWithoutWinner = "lottery"
    drawing: Drawing = "draw"
    #: Scoring plays must be claimed; an opponent may call "muggins" on a miss.
    muggins_rule: bool = False
    #: A casual table: a player may ask the expert bot for a hint on their
    #: own turn.  No preset has it, so such games are never rated.
    hints: bool = False

    def __post_init__(self) -> None:
        if self.max_pip not in SET_SIZES:
            raise InvalidRuleset(f"max_pip must be one of {SET_SIZES}, not {self.max_pip}")
        if not 2 <= self.seats <= 4:
            raise InvalidRuleset(f"seats must be 2, 3 or 4, not {self.seats}")
        if self.partnerships and self.seats != 4:
            raise InvalidRuleset("partnerships need exactly 4 seats")
        set_size = (self.max_pip + 1) * (self.max_pip + 2) // 2
        if self.tiles_per_seat < 1 or self.tiles_per_seat * self.seats > set_size:
            raise InvalidRuleset(
                f"{self.seats} seats of {self.tiles_per_seat} tiles do not fit in the "
                f"{set_size} tiles of double-{self.max_pip}"
            )
        if self.target is not None and self.target < 1:
            raise InvalidRuleset("target must be a positive number of points, or none")

    @property
    def side_count(self) -> int:
        """How many sides score: partnerships make two of four seats."""
        return 2 if self.partnerships else self.seats

    def side_of(self, seat: int) -> int:
        """The side (scoring unit) a seat plays for."""
        return seat % 2 if self.partnerships else seat

    @property
    def set_size(self) -> int:
        return (self.max_pip + 1) * (self.max_pip + 2) // 2

    @property
    def boneyard_size(self) -> int:
        return self.set_size - self.seats * self.tiles_per_seat
