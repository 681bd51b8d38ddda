"""Named rulesets from the seed rule books, shown to players before they sit.

A preset is a function of the seat count (and partnerships) because the seed
books change tiles per seat and targets with the number of players.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from muggins.rules.errors import InvalidRuleset
from muggins.rules.ruleset import Ruleset

DEFAULT_PRESET = "playelephant"


def _playelephant(seats: int, partnerships: bool) -> Ruleset:
    # seed 000: 2 players, or 4 in two partnerships.
    if not (seats == 2 or (seats == 4 and partnerships)):
        raise InvalidRuleset("playelephant is played by 2 players or 4 in partnerships")
    return Ruleset(
        preset="playelephant",
        seats=seats,
        partnerships=partnerships,
        tiles_per_seat=7 if seats == 2 else 5,
        spinner="first-double",
        scoring="fives",
        rounding="total",
        blocked_award="opponents",
        target=250 if seats == 2 else 200,
        target_check="immediate",
        first_leader="lottery",
        next_leader="domino-player",
        leader_without_winner="lottery",
    )


def _muggins(seats: int, partnerships: bool) -> Ruleset:
    # seed 002: no spinner; 250 for two players or two pairs, 200 for 3-4 players.
    return Ruleset(
        preset="muggins",
        seats=seats,
        partnerships=partnerships,
        tiles_per_seat=7 if seats == 2 else 5,
        spinner="none",
        scoring="fives",
        rounding="per-opponent",
        blocked_award="opponents-minus-own",
        target=250 if seats == 2 or partnerships else 200,
        target_check="immediate",
        first_leader="highest-double",
        next_leader="domino-player",
        leader_without_winner="highest-double",
    )


def _all_fives(seats: int, partnerships: bool) -> Ruleset:
    # seed 003: each for themselves, to 150 checked at the end of the hand.
    if partnerships:
        raise InvalidRuleset("all-fives is played each for themselves")
    return Ruleset(
        preset="all-fives",
        seats=seats,
        tiles_per_seat=7 if seats == 2 else 5,
        spinner="first-double",
        scoring="fives",
        rounding="total",
        blocked_award="opponents",
        target=150,
        target_check="end-of-hand",
        first_leader="lottery",
        next_leader="hand-winner",
        leader_without_winner="left-of-previous-leader",
    )


def _single_hand(name: str, tiles: int, drawing: bool, seats: int, partnerships: bool) -> Ruleset:
    if partnerships:
        raise InvalidRuleset(f"{name} is played each for themselves")
    return Ruleset(
        preset=name,
        seats=seats,
        tiles_per_seat=tiles,
        spinner="none",
        scoring="none",
        rounding="none",
        blocked_award="pips-of-others",
        target=None,
        target_check="end-of-hand",
        first_leader="lottery",
        next_leader="hand-winner",
        leader_without_winner="lottery",
        drawing="draw" if drawing else "none",
    )


def _draw(seats: int, partnerships: bool) -> Ruleset:
    return _single_hand("draw", 6 if seats == 4 else 7, True, seats, partnerships)


def _block(seats: int, partnerships: bool) -> Ruleset:
    return _single_hand("block", 7 if seats == 2 else 5, False, seats, partnerships)


def _seed_004_tiles(seats: int) -> int:
    # seed 004: "Cada jugador toma cinco fichas, cuando juega con cuatro jugadores
    # o más, o siete cuando juega con dos o tres" (seed 002's muggins deals 5 to 3).
    return 7 if seats <= 3 else 5


def _muggins_family(name: str, **changes: Any) -> Callable[[int, bool], Ruleset]:
    """A seed-004 relative of Muggins: the muggins preset with a few knobs turned."""

    def build(seats: int, partnerships: bool) -> Ruleset:
        return msgspec.structs.replace(
            _muggins(seats, partnerships),
            preset=name,
            tiles_per_seat=_seed_004_tiles(seats),
            **changes,
        )

    return build


def _classic_muggins(seats: int, partnerships: bool) -> Ruleset:
    # The 1864 American Hoyle game with the 1868 muggins rule: 200 for two, 150 for 3-4.
    return msgspec.structs.replace(
        _muggins(seats, partnerships),
        preset="classic-muggins",
        tiles_per_seat=_seed_004_tiles(seats),
        target=200 if seats == 2 else 150,
        muggins_rule=True,
    )


def _fives_and_threes(seats: int, partnerships: bool) -> Ruleset:
    # The British pub game: cribbage-style points, one point for the hand, game to 61.
    return msgspec.structs.replace(
        _muggins(seats, partnerships),
        preset="fives-and-threes",
        tiles_per_seat=_seed_004_tiles(seats),
        scoring="fives-and-threes",
        hand_award="one-point",
        blocked_award="opponents",
        rounding="none",
        target=61,
    )


PRESETS: dict[str, Callable[[int, bool], Ruleset]] = {
    "playelephant": _playelephant,
    "muggins": _muggins,
    "all-fives": _all_fives,
    "draw": _draw,
    "block": _block,
    "sniff": _muggins_family("sniff", spinner="first-double"),
    "five-up": _muggins_family("five-up", spinner="every-double"),
    "all-threes": _muggins_family("all-threes", scoring="threes"),
    "fives-and-threes": _fives_and_threes,
    "classic-muggins": _classic_muggins,
}


def preset(
    name: str = DEFAULT_PRESET,
    seats: int = 2,
    partnerships: bool = False,
    **overrides: Any,
) -> Ruleset:
    """The named preset for this many seats, with any knob overridden.

    Raises InvalidRuleset for an unknown name, a seating the preset is not
    played with, or overrides that contradict each other.
    """
    try:
        build = PRESETS[name]
    except KeyError:
        known = ", ".join(PRESETS)
        raise InvalidRuleset(f"unknown preset {name!r}; known presets: {known}") from None
    if not 2 <= seats <= 4:
        raise InvalidRuleset(f"seats must be 2, 3 or 4, not {seats}")
    if partnerships and seats != 4:
        raise InvalidRuleset("partnerships need exactly 4 seats")
    ruleset = build(seats, partnerships)
    if overrides:
        unknown = set(overrides) - set(Ruleset.__struct_fields__)
        if unknown:
            raise InvalidRuleset(f"unknown rule knob(s): {', '.join(sorted(unknown))}")
        try:
            ruleset = msgspec.convert(
                {**msgspec.structs.asdict(ruleset), **overrides}, Ruleset, strict=True
            )
        except msgspec.ValidationError as error:
            raise InvalidRuleset(str(error)) from None
    return ruleset


def _allowed(name: str, seats: int, partnerships: bool) -> bool:
    try:
        PRESETS[name](seats, partnerships)
    except InvalidRuleset:
        return False
    return True


def seatings(name: str) -> list[tuple[int, bool]]:
    """The (seats, partnerships) combinations a preset is played with."""
    return [
        (seats, partners)
        for seats in (2, 3, 4)
        for partners in ((False, True) if seats == 4 else (False,))
        if _allowed(name, seats, partners)
    ]
