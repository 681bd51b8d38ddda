"""A game told as a person reads it: deals, draws, plays with the layout
drawn as text, counts, scores, end-of-hand awards with their rounding.

Reads the full (audit) event stream; used by ``muggins simulate`` and the
replay tool."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from muggins.rules.events import (
    BoneyardStacked,
    Event,
    GameEnded,
    GameStarted,
    HandEnded,
    HandStarted,
    Passed,
    PointsScored,
    SeedSealed,
    TileDrawn,
    TilePlayed,
    TilesDealt,
)
from muggins.rules.game import evolve
from muggins.rules.layout import LEAD, Layout, end_name
from muggins.rules.ruleset import Ruleset
from muggins.rules.scoring import round_to_five
from muggins.rules.state import GameState
from muggins.rules.tiles import Tile


def side_name(rules: Ruleset, side: int) -> str:
    if rules.partnerships:
        return f"seats {side}+{side + 2}"
    return f"seat {side}"


def tiles_text(tiles: Iterable[Tile]) -> str:
    return " ".join(str(t) for t in tiles) or "(none)"


def _face(a: int, b: int) -> str:
    return f"[{a}|{b}]"


def draw_layout(layout: Layout) -> list[str]:
    """The layout as text: the main line left to right, the lead spinner's
    short arms above and below it, any further arms listed under it."""
    lead = layout.lead
    if lead is None:
        return ["(empty table)"]
    left = [_face(outer, inner) for inner, outer in reversed(layout.oriented(0))]
    right = [_face(inner, outer) for inner, outer in layout.oriented(1)]
    lead_face = _face(lead.high, lead.low)
    line = "".join([*left, lead_face, *right])
    lines: list[str] = []
    drawn_arms = {0, 1}
    main_spinner = next(
        (s for s in layout.spinners if s.arm in (LEAD, 0, 1)),
        None,
    )
    below: list[str] = []
    if main_spinner is not None:
        # Column of the spinner's face on the main line.
        if main_spinner.arm == LEAD:
            column = len("".join(left))
        elif main_spinner.arm == 0:
            column = len("".join(left[: len(left) - 1 - main_spinner.position]))
        else:
            column = len("".join([*left, lead_face, *right[: main_spinner.position]]))
        up_arm, down_arm = main_spinner.short_arms
        drawn_arms |= {up_arm, down_arm}
        lines += [" " * column + _face(o, i) for i, o in reversed(layout.oriented(up_arm))]
        below = [" " * column + _face(i, o) for i, o in layout.oriented(down_arm)]
    lines.append(line)
    lines += below
    for arm in range(len(layout.arms)):
        if arm not in drawn_arms and layout.arms[arm]:
            faces = "".join(_face(i, o) for i, o in layout.oriented(arm))
            lines.append(f"{end_name(arm)} (from {layout.root_number(arm)}): {faces}")
    return lines


def ends_text(layout: Layout) -> str:
    parts = [f"{end_name(arm)} {number}" for arm, number in layout.open_ends()]
    return ", ".join(parts)


def award_text(rules: Ruleset, ended: HandEnded, points: int) -> str:
    """How an end-of-hand award was reached, rounding shown."""
    if ended.winner_side is None:
        return "nobody scores for the hand"
    if rules.hand_award == "one-point":
        return "1 point for the hand"
    opponents = [p for s, p in enumerate(ended.pips) if rules.side_of(s) != ended.winner_side]
    own = [p for s, p in enumerate(ended.pips) if rules.side_of(s) == ended.winner_side]

    def rounded(values: list[int]) -> str:
        if rules.rounding == "none" or (
            ended.outcome == "blocked" and rules.blocked_award == "pips-of-others"
        ):
            return f"{' + '.join(map(str, values))} = {sum(values)} pips"
        if rules.rounding == "total":
            return (
                f"{' + '.join(map(str, values))} = {sum(values)} pips, "
                f"rounded to {round_to_five(sum(values))}"
            )
        each = " + ".join(f"{v}→{round_to_five(v)}" for v in values)
        return f"{each} = {sum(round_to_five(v) for v in values)} (each hand rounded)"

    text = f"opponents hold {rounded(opponents)}"
    if ended.outcome == "blocked" and rules.blocked_award == "opponents-minus-own":
        text += f", minus own {rounded(own)}"
    return f"{text}: {points} points"


def narrate(events: Iterable[Event], state: GameState | None = None) -> Iterator[str]:
    """Lines of text telling the game the events record (from ``state``, if the
    events do not start with GameStarted)."""
    award_points = 0
    for event in events:
        state = evolve(state, event)
        rules = state.ruleset
        match event:
            case GameStarted():
                award_points = 0
                yield (
                    f"Game of {rules.preset}: {rules.seats} seats"
                    + (" in partnerships" if rules.partnerships else "")
                    + (f", to {rules.target}" if rules.target else ", one hand")
                )
            case HandStarted():
                must = f", must lead {event.must_lead}" if event.must_lead else ""
                yield ""
                yield (
                    f"Hand {event.hand}: seat {event.leader} leads ({event.leader_reason}{must}); "
                    f"seed commitment {event.commitment[:16]}…"
                )
            case SeedSealed():
                pass
            case TilesDealt():
                yield f"  seat {event.seat} holds {tiles_text(event.tiles or ())}"
            case BoneyardStacked():
                yield f"  boneyard: {event.tile_count} tiles"
            case TileDrawn():
                yield f"seat {event.seat} draws {event.tile}"
            case Passed():
                yield f"seat {event.seat} passes"
            case TilePlayed():
                assert state.hand is not None
                where = "leads" if event.end is None else f"plays on the {end_name(event.end)} arm"
                claim = "" if event.claim is None else f" (claims {event.claim})"
                yield f"seat {event.seat} {where}: {event.tile}{claim} — count {event.count}"
                for row in draw_layout(state.hand.layout):
                    yield "    " + row
                yield f"    open ends: {ends_text(state.hand.layout)}"
            case PointsScored():
                scores = " · ".join(
                    f"{side_name(rules, side)} {score}" for side, score in enumerate(state.scores)
                )
                if event.reason in ("domino", "blocked"):
                    award_points = event.points
                    continue
                why = {"count": "for the count", "muggins": "calling muggins"}[event.reason]
                yield (
                    f"  {side_name(rules, event.side)} scores {event.points} {why}  [{scores}]"
                )
            case HandEnded():
                if event.outcome == "target-reached":
                    yield f"Hand {event.hand} stops: the target is reached"
                else:
                    how = (
                        f"seat {event.winner_seat} dominoes"
                        if event.outcome == "domino"
                        else "blocked"
                    )
                    yield f"Hand {event.hand} ends, {how}: " + ", ".join(
                        f"seat {s} holds {tiles_text(h)} ({p})"
                        for s, (h, p) in enumerate(zip(event.hands, event.pips, strict=True))
                    )
                    winner = (
                        "tie for the lowest hand"
                        if event.winner_side is None
                        else f"{side_name(rules, event.winner_side)} wins the hand"
                    )
                    yield f"  {winner}; {award_text(rules, event, award_points)}"
                award_points = 0
                yield f"  seed revealed: {event.seed}"
                yield "  scores: " + " · ".join(
                    f"{side_name(rules, side)} {score}" for side, score in enumerate(state.scores)
                )
            case GameEnded():
                if event.winner_side is None:
                    yield "Game over: a draw."
                else:
                    yield (
                        f"Game over: {side_name(rules, event.winner_side)} wins "
                        + " to ".join(str(s) for s in sorted(event.scores, reverse=True))
                        + "."
                    )


def summary(event: Event) -> str:
    """One event in a few words (for the replay tool's findings)."""
    match event:
        case GameStarted():
            return f"game of {event.ruleset.preset} starts"
        case HandStarted():
            return f"hand {event.hand} starts, seat {event.leader} leads"
        case SeedSealed():
            return f"hand {event.hand}'s seed is sealed"
        case TilesDealt():
            return f"seat {event.seat} is dealt {tiles_text(event.tiles or ())}"
        case BoneyardStacked():
            return f"the boneyard is stacked: {tiles_text(event.tiles or ())}"
        case TileDrawn():
            return f"seat {event.seat} draws {event.tile}"
        case Passed():
            return f"seat {event.seat} passes"
        case TilePlayed():
            where = "leads" if event.end is None else f"plays on the {end_name(event.end)} arm:"
            return f"seat {event.seat} {where} {event.tile} (count {event.count})"
        case PointsScored():
            return f"side {event.side} scores {event.points} ({event.reason})"
        case HandEnded():
            return f"hand {event.hand} ends ({event.outcome})"
        case GameEnded():
            return f"the game ends, scores {' / '.join(map(str, event.scores))}"
    return type(event).__name__
