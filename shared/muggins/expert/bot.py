"""The expert bot, and the analysis a replay tool shows beside a hand.

``ExpertBot`` satisfies ``muggins.bots.levels.Bot``: callers pass the whole
GameState, and the bot reduces it to its seat's view (``seat_view``) before
anything else reads it.  What draws and passes prove comes from the hand's
events: a caller that has them hands them to ``observe`` as they happen
(the bot keeps only their public form); without them the bot still plays,
knowing only the view.

``analyse`` is the same search for a replay: each legal play's expected
points and the play the expert prefers.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence

import msgspec

from muggins.expert.knowledge import Knowledge, SeatView, knowledge_of, seat_view
from muggins.expert.position import move_end, move_tile, tables_for
from muggins.expert.search import root_position, search
from muggins.expert.search_structs import SearchResult, SearchSettings
from muggins.rules.commands import AnyCommand, CallMuggins, Play
from muggins.rules.events import Event, HandStarted, visible_to
from muggins.rules.game import can_call_muggins, forced_move
from muggins.rules.scoring import points_for_count
from muggins.rules.state import GameState
from muggins.rules.tiles import Tile


class PlayAssessment(msgspec.Struct, frozen=True):
    """One legal play as the expert sees it."""

    tile: Tile
    #: The arm; None for the lead.
    end: int | None
    #: Points the play scores at once.
    scores_now: int
    #: Expected points for the seat's side minus the others' from here to the hand's end.
    expected_points: float
    #: The search's value (expected points, plus the game's weight near the target).
    value: float
    #: Simulations that began with this play.
    visits: int


class Analysis(msgspec.Struct, frozen=True):
    """A position as the expert judged it: every legal play, and the one it prefers."""

    seat: int
    plays: tuple[PlayAssessment, ...]
    preferred: PlayAssessment
    iterations: int

    def given_up(self, tile: Tile, end: int | None) -> float:
        """Expected points the play (tile, end) gives up against the preferred one."""
        for play in self.plays:
            if play.tile == tile and play.end == end:
                return self.preferred.expected_points - play.expected_points
        raise ValueError(f"{tile} on end {end} is not a legal play here")


def expert_search(
    knowledge: Knowledge,
    settings: SearchSettings,
    rng: random.Random,
    clock: Callable[[], float] | None = None,
) -> SearchResult:
    """The search for the seat on turn (its knowledge must be for that seat)."""
    if knowledge.view.turn != knowledge.view.seat:
        raise ValueError("the seat is not on turn")
    return search(knowledge, settings, rng, clock)


def _claimed(view: SeatView, tile: Tile, end: int | None, count: int) -> Play:
    """The play, with its points claimed exactly when the muggins rule asks for a claim."""
    claim = None
    if view.ruleset.muggins_rule:
        claim = points_for_count(count, view.ruleset.scoring) or None
    return Play(seat=view.seat, tile=tile, end=end, claim=claim)


def choose_play(
    knowledge: Knowledge,
    settings: SearchSettings,
    rng: random.Random,
    clock: Callable[[], float] | None = None,
) -> tuple[Play, SearchResult]:
    """The play the expert makes from ``knowledge``, and the search behind it."""
    result = expert_search(knowledge, settings, rng, clock)
    view = knowledge.view
    tables = tables_for(view.ruleset)
    root = root_position(knowledge)
    move = result.best
    play = _claimed(view, tables.tiles[move_tile(move)], move_end(move), root.count_after(move))
    return play, result


def analyse(
    knowledge: Knowledge,
    settings: SearchSettings,
    rng: random.Random,
    clock: Callable[[], float] | None = None,
) -> Analysis:
    """Each legal play's expected points, and the preferred play, for the seat on turn."""
    result = expert_search(knowledge, settings, rng, clock)
    view = knowledge.view
    tables = tables_for(view.ruleset)
    root = root_position(knowledge)
    plays = []
    preferred = None
    for stats in result.moves:
        assessment = PlayAssessment(
            tile=tables.tiles[move_tile(stats.move)],
            end=move_end(stats.move),
            scores_now=root.points_after(stats.move),
            expected_points=stats.points,
            value=stats.value,
            visits=stats.visits,
        )
        plays.append(assessment)
        if stats.move == result.best:
            preferred = assessment
    assert preferred is not None
    return Analysis(
        seat=view.seat, plays=tuple(plays), preferred=preferred, iterations=result.iterations
    )


def analyse_state(
    state: GameState,
    events: Iterable[Event],
    settings: SearchSettings,
    rng: random.Random,
    clock: Callable[[], float] | None = None,
) -> Analysis:
    """``analyse`` for the seat on turn of ``state``, knowing what that seat knew.

    ``events`` are the hand's events (any, unredacted: each is reduced to
    what the seat may see).
    """
    assert state.hand is not None, "no hand is being played"
    view = seat_view(state, state.hand.turn)
    return analyse(knowledge_of(view, events), settings, rng, clock)


class ExpertBot:
    """Searches the hidden tiles from its seat's knowledge (``muggins.bots.levels.Bot``).

    ``iterations`` fixes the simulations per decision (deterministic for the
    Random given); otherwise ``budget_ms`` (the settings', unless given) of
    the ``clock`` (seconds, e.g. ``time.perf_counter``) per decision.  Under
    the muggins rule it claims its points exactly and calls muggins on every
    count an opponent left.
    """

    def __init__(
        self,
        rng: random.Random,
        *,
        budget_ms: float | None = None,
        iterations: int | None = None,
        clock: Callable[[], float] | None = None,
        settings: SearchSettings | None = None,
    ) -> None:
        base = settings or SearchSettings()
        self.settings = msgspec.structs.replace(
            base, budget_ms=base.budget_ms if budget_ms is None else budget_ms,
            iterations=iterations)
        if iterations is None and clock is None:
            raise ValueError("an ExpertBot with a time budget needs a clock")
        self.rng = rng
        self.clock = clock
        #: The current hand's events, public parts only.
        self.hand_events: list[Event] = []
        #: The last decision's search, for benchmarks and logs.
        self.last_search: SearchResult | None = None

    def observe(self, events: Sequence[Event]) -> None:
        """Take note of events as they happen (only what everybody may see is kept)."""
        for event in events:
            if isinstance(event, HandStarted):
                self.hand_events = []
            if getattr(event, "hand", None) is not None:
                self.hand_events.append(visible_to(event, "public"))

    def knowledge(self, state: GameState, seat: int) -> Knowledge:
        """What ``seat`` knows of ``state``, with the events observed so far."""
        return knowledge_of(seat_view(state, seat), self.hand_events)

    def choose(self, state: GameState) -> AnyCommand:
        hand = state.hand
        assert hand is not None, "no hand is being played"
        seat = hand.turn
        if can_call_muggins(state, seat):
            return CallMuggins(seat=seat)
        forced = forced_move(state)
        if forced is not None:
            return forced
        began = self.clock() if self.clock is not None else 0.0
        knowledge = self.knowledge(state, seat)
        settings = self.settings
        if settings.iterations is None and self.clock is not None:
            # The budget is the decision's, what the seat's knowledge took
            # included (the search alone once made p99 1.5 times the budget).
            spent_ms = (self.clock() - began) * 1000.0
            settings = msgspec.structs.replace(
                settings, budget_ms=max(settings.budget_ms * 0.1, settings.budget_ms - spent_ms))
        play, self.last_search = choose_play(knowledge, settings, self.rng, self.clock)
        return play

    def calls_muggins(self, state: GameState, seat: int) -> bool:
        # A call costs nothing and the points are ours: always call.
        return can_call_muggins(state, seat)
