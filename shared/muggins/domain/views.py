"""What one reader may see of a game: a seat's view, or a spectator's.

Pure: built from the game state; secrets leave only through here (STYLE.md 4).
A seat sees its own tiles only; a spectator no hand at all; nobody the
boneyard's order or the seed while the hand is played.
"""

from __future__ import annotations

import msgspec

from muggins.rules.commands import Play
from muggins.rules.game import can_call_muggins, legal_plays
from muggins.rules.layout import CLOSED, Layout, end_name
from muggins.rules.placing import count_after
from muggins.rules.state import GameState
from muggins.rules.tiles import Tile


class RuleLine(msgspec.Struct, frozen=True):
    """One line of a ruleset in words (muggins.rules.describe), as pages and the API carry it."""

    topic: str
    text: str


class ArmView(msgspec.Struct, frozen=True):
    end: int
    name: str
    #: Tiles from the root outward, each as [inner half, outer half].
    tiles: list[tuple[int, int]]
    #: The number showing at the open end; None while a spinner's side is closed.
    open: int | None


class SpinnerView(msgspec.Struct, frozen=True):
    """Where a spinner lies, so a board can draw its short sides' arms."""

    tile: Tile
    #: The arm it lies on, or -1 for the lead.
    arm: int
    #: Its index in that arm (0 for the lead).
    position: int
    #: The two arms its short sides start.
    short_arms: tuple[int, int]


class LayoutView(msgspec.Struct, frozen=True):
    lead: Tile | None
    arms: list[ArmView]
    count: int
    #: The tiles that are spinners, in the order they were played.
    spinners: list[Tile]
    #: The same spinners with where they lie.
    spinner_places: list[SpinnerView] = []
    #: What the count adds up, open end by open end (a double at an end is
    #: two numbers), so a page can show "6 + 4 + 5 = 15".
    count_parts: list[int] = []


class Unclaimed(msgspec.Struct, frozen=True):
    """A count its player did not claim (muggins rule), open to a call."""

    seat: int
    points: int


class SeatInfo(msgspec.Struct, frozen=True):
    seat: int
    name: str | None
    #: A bot plays this seat now (a bot seat, or one a bot took over).
    bot: bool
    tiles: int


class LegalPlay(msgspec.Struct, frozen=True):
    tile: Tile
    #: None: the lead.
    end: int | None
    #: The count the play would leave (None under the muggins rule, where
    #: counting is the player's to do).
    count: int | None = None


class GameView(msgspec.Struct, frozen=True, kw_only=True):
    phase: str
    hand: int
    scores: list[int]
    #: Whose turn it is (None between hands and after the game).
    turn: int | None
    boneyard: int
    layout: LayoutView
    seats: list[SeatInfo]
    #: The reader's seat and tiles (None for a spectator).
    seat: int | None = None
    tiles: list[Tile] | None = None
    #: The reader's legal plays when it is its turn.
    legal: list[LegalPlay] = []
    can_call_muggins: bool = False
    winner_side: int | None = None
    #: The count left unclaimed by the last play (muggins rule), for everyone to see.
    unclaimed: Unclaimed | None = None


def count_parts(layout: Layout) -> list[int]:
    """The numbers the count adds up (the rules in ``muggins.rules.layout``'s
    docstring): each arm's tip, both halves of a double tip, the bare lead's
    halves.  Their sum is always ``layout.count``."""
    lead = layout.lead
    if lead is None:
        return []
    parts: list[int] = []
    lead_is_double = lead.low == lead.high
    for arm, tiles in enumerate(layout.arms):
        if tiles:
            inner, outer = layout.oriented(arm)[-1]
            parts += [outer, outer] if inner == outer else [outer]
        elif arm < 2 and not lead_is_double:
            parts.append(lead.high if arm == 0 else lead.low)
    if lead_is_double and not (layout.arms[0] and layout.arms[1]):
        parts[:0] = [lead.high, lead.low]
    return parts


def layout_view(state: GameState) -> LayoutView:
    hand = state.hand
    if hand is None or hand.layout.lead is None:
        return LayoutView(lead=None, arms=[], count=0, spinners=[])
    return layout_view_of(hand.layout)


def layout_view_of(layout: Layout) -> LayoutView:
    """A layout as a board draws it."""
    if layout.lead is None:
        return LayoutView(lead=None, arms=[], count=0, spinners=[])
    arms = [
        ArmView(
            end=arm,
            name=end_name(arm),
            tiles=layout.oriented(arm),
            open=None if layout.ends[arm] == CLOSED else layout.ends[arm],
        )
        for arm in range(len(layout.arms))
    ]
    return LayoutView(
        lead=layout.lead,
        arms=arms,
        count=layout.count,
        spinners=[s.tile for s in layout.spinners],
        spinner_places=[SpinnerView(s.tile, s.arm, s.position, s.short_arms)
                        for s in layout.spinners],
        count_parts=count_parts(layout),
    )


def game_view(
    state: GameState,
    seat: int | None,
    names: list[str | None],
    bots: list[bool],
) -> GameView:
    """The game as ``seat`` (None: a spectator) may see it now."""
    hand = state.hand
    counts = [len(tiles) for tiles in hand.hands] if hand else [0] * state.ruleset.seats
    seats = [
        SeatInfo(seat=s, name=names[s], bot=bots[s], tiles=counts[s])
        for s in range(state.ruleset.seats)
    ]
    mine = list(hand.hands[seat]) if hand is not None and seat is not None else None
    legal: list[LegalPlay] = []
    if hand is not None and seat is not None and hand.turn == seat:
        layout = hand.layout
        counting = not state.ruleset.muggins_rule
        legal = [LegalPlay(p.tile, p.end,
                           (p.tile.value if p.end is None else count_after(layout, p.tile, p.end))
                           if counting else None)
                 for p in legal_plays(state) if isinstance(p, Play)]
    return GameView(
        phase=state.phase,
        hand=hand.number if hand else state.hands_played,
        scores=list(state.scores),
        turn=hand.turn if hand is not None and state.phase == "playing" else None,
        boneyard=len(hand.boneyard) if hand else 0,
        layout=layout_view(state),
        seats=seats,
        seat=seat,
        tiles=mine,
        legal=legal,
        can_call_muggins=seat is not None and can_call_muggins(state, seat),
        winner_side=state.winner_side,
        unclaimed=(Unclaimed(hand.pending.seat, hand.pending.points)
                   if hand is not None and hand.pending is not None else None),
    )
