"""What one seat may know of the hand in play, and nothing more.

Two inputs, neither able to carry a hidden tile:

* ``SeatView``: the seat's own tiles and the public facts of the position
  (layout, hand sizes, boneyard size, scores, whose turn).  ``seat_view`` is
  the one function here that reads a GameState, and it copies nothing else.
* the hand's events, each passed through ``events.visible_to(event, seat)``
  here, whoever calls: another seat's draw arrives without its tile, the
  deal and the boneyard's order without theirs.

From the events come what draws and passes prove.  A seat that draws or
passes holds nothing that fits the open ends showing then; a tile it draws
afterwards is a new unknown, free of that proof.  So each other seat's hidden
hand is kept as groups of tiles ("the five tiles dealt and still held", "the
tile drawn at move 9"), each with the tiles it cannot be.  Groups are nested:
an older group has lived through every proof a newer one has.  When the seat
plays a tile, one tile leaves its oldest group that could hold it: if it
came from a newer group, that keeps a proof too few, never one too many, so
the real deal always stays among the consistent ones.

Also from the events: the tile a "highest double leads" hand was led with
proves nobody else was dealt a higher double (or, led as the heaviest tile,
any double or a heavier tile); and each other seat's plays with the points
it passed up, for the choices' soft weights (``sampler``): opponents'
choices only, since a partner gives up points for the side as this seat does.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from muggins.rules import placing
from muggins.rules.events import Event, HandStarted, Passed, TileDrawn, TilePlayed, visible_to
from muggins.rules.layout import Layout
from muggins.rules.ruleset import Ruleset
from muggins.rules.scoring import points_for_count
from muggins.rules.state import GameState, PendingCount
from muggins.rules.tiles import Tile
from tests.benchmarks.frozen_expert.position import TileTables, tables_for


class SeatView(msgspec.Struct, frozen=True, kw_only=True):
    """What a seat sees of a hand in play: its own tiles and the public facts."""

    ruleset: Ruleset
    seat: int
    hand_number: int
    #: The seat's own tiles.
    tiles: tuple[Tile, ...]
    layout: Layout
    #: How many tiles each seat holds.
    hand_sizes: tuple[int, ...]
    boneyard_size: int
    scores: tuple[int, ...]
    turn: int
    passes: int
    must_lead: Tile | None = None
    pending: PendingCount | None = None


def seat_view(state: GameState, seat: int) -> SeatView:
    """``state`` reduced to what ``seat`` may see (a hand must be in play)."""
    hand = state.hand
    if hand is None:
        raise ValueError("no hand is being played")
    return SeatView(
        ruleset=state.ruleset,
        seat=seat,
        hand_number=hand.number,
        tiles=hand.hands[seat],
        layout=hand.layout,
        hand_sizes=tuple(len(tiles) for tiles in hand.hands),
        boneyard_size=len(hand.boneyard),
        scores=state.scores,
        turn=hand.turn,
        passes=hand.passes,
        must_lead=hand.must_lead,
        pending=hand.pending,
    )


class TileGroup(msgspec.Struct, frozen=True):
    """Some tiles of one seat's hidden hand that share the same proofs."""

    count: int
    #: The tiles these cannot be, as a mask over the canonical set.
    excluded: int


class Choice(msgspec.Struct, frozen=True):
    """A play another seat made, for weighing deals by how likely it was."""

    seat: int
    #: How many of the seat's groups existed then (the tiles it held were
    #: in them, or were played since).
    groups_then: int
    #: The tiles the seat played from then on (it held them then).
    played_since: int
    #: Points each tile (by index) would have scored then at its best end; -1: it fit nowhere.
    points_by_tile: tuple[int, ...]
    #: Points the chosen play scored.
    points: int


class Knowledge(msgspec.Struct, frozen=True, kw_only=True):
    """Everything the seat knows: its view and the proofs about the others' tiles."""

    view: SeatView
    #: Tiles neither in the seat's hand nor on the table, as a mask.
    unseen: int
    #: For each seat, the groups of its hidden tiles, oldest first (none for the seat itself).
    groups: tuple[tuple[TileGroup, ...], ...]
    #: Whether the events agreed with the view (else only the view was used).
    from_events: bool
    choices: tuple[Choice, ...] = ()


def knowledge_of(view: SeatView, events: Iterable[Event] = ()) -> Knowledge:
    """What ``view``'s seat knows, given the events of the hand so far (any order
    of a stream's events is fine: only this hand's are read, each as the seat may see it)."""
    tables = tables_for(view.ruleset)
    on_table = tables.mask(view.layout.tiles())
    unseen = tables.all_tiles & ~on_table & ~tables.mask(view.tiles)
    hand = view.hand_number
    seen = [visible_to(e, view.seat) for e in events if getattr(e, "hand", None) == hand]
    if seen:
        folded = _fold(view, tables, seen)
        if folded is not None:
            groups, choices = folded
            return Knowledge(
                view=view, unseen=unseen, groups=groups, from_events=True, choices=choices
            )
    groups = tuple(
        () if seat == view.seat else ((TileGroup(size, 0),) if size else ())
        for seat, size in enumerate(view.hand_sizes)
    )
    return Knowledge(view=view, unseen=unseen, groups=groups, from_events=False)


def _fold(
    view: SeatView, tables: TileTables, events: list[Event]
) -> tuple[tuple[tuple[TileGroup, ...], ...], tuple[Choice, ...]] | None:
    """The groups and choices the events prove; None when they disagree with the view."""
    rules = view.ruleset
    me = view.seat
    # Each group as [count, excluded]; lists while folding.
    groups: list[list[list[int]]] = [[] for _ in range(rules.seats)]
    played: list[list[int]] = [[] for _ in range(rules.seats)]  # tile indices, in order
    pending_choices: list[tuple[int, int, int, tuple[int, ...], int]] = []
    layout = Layout()
    plays = 0
    started = False
    for event in events:
        if isinstance(event, HandStarted):
            started = True
            excluded = _lead_proof(tables, event)
            for seat in range(rules.seats):
                if seat != me:
                    groups[seat] = [[rules.tiles_per_seat, excluded]]
        elif not started:
            continue
        elif isinstance(event, TilePlayed):
            seat = event.seat
            index = tables.index(event.tile)
            # Opponents' choices only: a partner may give up points on purpose
            # for the side, as this seat does.
            if rules.side_of(seat) != rules.side_of(me) and layout.lead is not None:
                pending_choices.append(
                    (seat, len(groups[seat]), len(played[seat]),
                     _points_by_tile(tables, layout, rules), _points(rules, event.count))
                )
            if seat != me and not _take(groups[seat], index):
                return None
            played[seat].append(index)
            if event.end is None:
                layout = placing.with_lead(event.tile, rules.spinner)
            else:
                if not layout.fits(event.tile, event.end):
                    return None
                layout = placing.place(layout, event.tile, event.end, rules.spinner)
            plays += 1
        elif isinstance(event, TileDrawn):
            if event.seat != me:
                _prove_void(groups[event.seat], tables, layout)
                groups[event.seat].append([1, 0])
        elif isinstance(event, Passed) and event.seat != me:
            _prove_void(groups[event.seat], tables, layout)
    if not started or layout.tiles() != view.layout.tiles() or layout.ends != view.layout.ends:
        return None
    for seat in range(rules.seats):
        if seat != me and sum(g[0] for g in groups[seat]) != view.hand_sizes[seat]:
            return None
    choices = tuple(
        Choice(
            seat=seat,
            groups_then=groups_then,
            played_since=tables.mask([tables.tiles[i] for i in played[seat][played_then:]]),
            points_by_tile=points_by_tile,
            points=points,
        )
        for seat, groups_then, played_then, points_by_tile, points in pending_choices
    )
    return (
        tuple(tuple(TileGroup(c, x) for c, x in seat_groups) for seat_groups in groups),
        choices,
    )


def _lead_proof(tables: TileTables, event: HandStarted) -> int:
    """The tiles nobody was dealt, by the rule that named the leader."""
    tile = event.must_lead
    if tile is None:
        return 0
    excluded = 0
    for index, other in enumerate(tables.tiles):
        if event.leader_reason == "highest-double":
            if other.low == other.high and other.low > tile.low:
                excluded |= 1 << index
        elif event.leader_reason == "heaviest-tile" and (
            other.low == other.high or (other.value, other.high) > (tile.value, tile.high)
        ):
            excluded |= 1 << index
    return excluded


def _prove_void(groups: list[list[int]], tables: TileTables, layout: Layout) -> None:
    """The seat holds nothing that fits ``layout``'s open ends now."""
    if layout.lead is None:
        return
    fits = 0
    for number in layout.ends:
        if number >= 0:
            fits |= tables.has[number]
    for group in groups:
        group[1] |= fits


def _take(groups: list[list[int]], index: int) -> bool:
    """Remove the played tile from the oldest group that could hold it.

    An emptied group stays (with no tiles): a Choice names groups by place.
    """
    bit = 1 << index
    for group in groups:
        if group[0] and not group[1] & bit:
            group[0] -= 1
            return True
    return False


def _points(rules: Ruleset, count: int) -> int:
    return points_for_count(count, rules.scoring)


def _points_by_tile(tables: TileTables, layout: Layout, rules: Ruleset) -> tuple[int, ...]:
    """Each tile's best points on ``layout`` (-1: it fits no open end)."""
    best = []
    for tile in tables.tiles:
        points = -1
        for end, number in enumerate(layout.ends):
            if number >= 0 and (tile.low == number or tile.high == number):
                points = max(points, _points(rules, placing.count_after(layout, tile, end)))
        best.append(points)
    return tuple(best)

