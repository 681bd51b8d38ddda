"""The leaderboard: openskill ratings and records per player and preset, built
exactly once from the events, equal to a rebuild."""

from __future__ import annotations

import asyncpg
import msgspec
import pytest
from openskill.models import PlackettLuce

from muggins.domain.codec import encoded_all
from muggins.domain.table_events import (
    AbsenceDecided,
    BotTookOver,
    GameBegun,
    SeatTaken,
    TableClosed,
    TableOpened,
)
from muggins.eventstore.store import EventStore
from muggins.projections.leaderboard import (
    GameTally,
    Standing,
    abandon,
    rate,
    rating_changes,
    tally,
)
from muggins.projections.read_models import Leaderboard
from muggins.projections.runner import ProjectorRunner
from muggins.rules.events import (
    Event,
    GameEnded,
    GameStarted,
    HandEnded,
    PointsScored,
    SeatedPlayer,
)
from muggins.rules.presets import preset
from tests.projections.streams import Batches
from tests.support.leagues import BOARD, GREEDY, PEOPLE, game_with, seated, store_league

PLAYING = "SELECT count(*) FROM leaderboard_games WHERE tally IS NOT NULL"
GAME_RATINGS = "SELECT * FROM leaderboard_game_ratings ORDER BY stream_id, player_id"


def played(batches: Batches) -> list[Event]:
    return [event for _, events in batches for event in events]


def tallied(events: list[Event]) -> tuple[GameTally, GameEnded]:
    current = None
    for event in events[:-1]:
        current = tally(current, "s-g1", event)
    assert current is not None and isinstance(events[-1], GameEnded)
    return current, events[-1]


def test_a_two_player_game_is_rated_by_openskill_and_recorded() -> None:
    ana, bob = PEOPLE[0], PEOPLE[1]
    events = played(game_with(seated([ana, bob]), "playelephant", "lb/1"))
    game, ended = tallied(events)
    standings = {s.player_id: s for s in rate(game, ended, {})}
    winner = ended.winner_side
    assert winner is not None
    model = PlackettLuce()
    expected = model.rate([[model.rating()], [model.rating()]],
                          ranks=[0.0 if side == winner else 1.0 for side in (0, 1)])
    for seat, player in enumerate((ana, bob)):
        standing = standings[player.player_id]
        assert standing.mu == pytest.approx(expected[seat][0].mu)
        assert standing.sigma == pytest.approx(expected[seat][0].sigma)
        assert standing.games == 1 and standing.won == (seat == winner) and standing.drawn == 0
        assert standing.hands == sum(isinstance(e, HandEnded) for e in events)
        assert standing.points == sum(e.points for e in events
                                      if isinstance(e, PointsScored) and e.seat == seat)
        assert standing.best_play == max(
            [e.points for e in events
             if isinstance(e, PointsScored) and e.seat == seat and e.reason == "count"],
            default=0)
        assert not standing.bot
    assert standings[[ana, bob][winner].player_id].mu > 25 > standings[
        [ana, bob][1 - winner].player_id].mu


def test_a_games_rating_changes_are_each_rated_players_before_and_after() -> None:
    ana, bob = PEOPLE[0], PEOPLE[1]
    game, ended = tallied(played(game_with(seated([ana, bob]), "playelephant", "lb/1")))
    first = rate(game, ended, {})
    changes = rating_changes(game, {}, first)
    fresh = PlackettLuce().rating()
    assert [(c.seat, c.player_id, c.stream_id) for c in changes] == [
        (0, ana.player_id, "s-g1"), (1, bob.player_id, "s-g1")]
    for change, standing in zip(changes, first, strict=True):
        assert change.before == pytest.approx(fresh.mu - 3 * fresh.sigma)
        assert change.after == pytest.approx(standing.rating)
    # A second game rates from the first's standings.
    before = {s.player_id: s for s in first}
    second = rating_changes(game, before, rate(game, ended, before))
    assert [c.before for c in second] == pytest.approx([c.after for c in changes])


def test_partners_are_one_team_and_bots_are_rated_but_marked() -> None:
    players = seated([PEOPLE[0], GREEDY, PEOPLE[1], PEOPLE[2]])
    events = played(game_with(players, "playelephant", "lb/2", partners=True))
    game, ended = tallied(events)
    assert game.sides == (0, 1, 0, 1)
    standings = {s.player_id: s for s in rate(game, ended, {})}
    assert standings["bot:greedy"].bot and standings["bot:greedy"].name == "bot (greedy)"
    # Partners moved together, from the same start.
    assert standings["p0"].mu == pytest.approx(standings["p1"].mu)
    assert (standings["p0"].mu > 25) == (ended.winner_side == 0)


def test_one_identity_in_two_seats_is_rated_once_and_a_draw_counts_as_drawn() -> None:
    players = seated([PEOPLE[0], GREEDY, GREEDY, PEOPLE[1]])
    events = played(game_with(players, "playelephant", "lb/3", partners=True))
    game, _ = tallied(events)
    drawn = GameEnded(winner_side=None, scores=(100, 100))
    standings = rate(game, drawn, {})
    assert sorted(s.player_id for s in standings) == ["bot:greedy", "p0", "p1"]
    assert all(s.drawn == 1 and s.won == 0 and s.games == 1 for s in standings)


def test_games_without_players_are_not_tallied() -> None:
    rules = preset("block", 2, False)
    assert tally(None, "x-g1", GameStarted(ruleset=rules)) is None
    assert tally(None, "x-g1", HandEnded(hand=1, outcome="blocked", winner_side=None,
                                         winner_seat=None, pips=(1, 1), hands=((), ()),
                                         seed="00")) is None


async def board(pool: asyncpg.Pool) -> list[tuple[object, ...]]:
    return [tuple(row) for row in await pool.fetch(BOARD)]


async def test_the_board_built_live_twice_delivered_and_rebuilt_is_the_same(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    await store_league(store, 30)
    runner = ProjectorRunner(pool, store, Leaderboard(), page_size=89)
    await runner.catch_up()
    once = await board(pool)
    changes = [tuple(row) for row in await pool.fetch(GAME_RATINGS)]
    assert len(changes) == 60  # two rated players a game
    assert {row[1] for row in once} == {"p0", "p1", "p2", "p3", "p4", "bot:greedy"}
    assert {row[0] for row in once} == {"playelephant", "block"}
    assert sum(int(str(row[6])) for row in once) == 60  # two players a game
    assert await pool.fetchval(PLAYING) == 0
    # Everything delivered again changes nothing ...
    await pool.execute("UPDATE checkpoints SET position = 0 WHERE reader = $1", runner.reader)
    await runner.catch_up()
    assert await board(pool) == once
    assert [tuple(row) for row in await pool.fetch(GAME_RATINGS)] == changes
    # ... and a rebuild in one sweep gives the same board as page by page.
    await runner.rebuild()
    assert await board(pool) == []
    await ProjectorRunner(pool, store, Leaderboard(), page_size=5000).catch_up()
    assert await board(pool) == once
    assert [tuple(row) for row in await pool.fetch(GAME_RATINGS)] == changes
    top = await pool.fetchrow(BOARD)
    assert top is not None
    standing = Standing(*top.values())
    assert standing.rating == pytest.approx(standing.mu - 3 * standing.sigma)


async def test_a_game_half_projected_keeps_its_tally_until_it_ends(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    batches = game_with(seated([PEOPLE[0], PEOPLE[1]]), "playelephant", "lb/half")
    version = 0
    for actor, events in batches[: len(batches) // 2]:
        await store.append("half-g1", version, encoded_all(events), actor=actor)
        version += len(events)
    runner = ProjectorRunner(pool, store, Leaderboard())
    await runner.catch_up()
    assert await pool.fetchval(PLAYING) == 1
    assert await board(pool) == []
    for actor, events in batches[len(batches) // 2 :]:
        await store.append("half-g1", version, encoded_all(events), actor=actor)
        version += len(events)
    await runner.catch_up()
    assert await pool.fetchval(PLAYING) == 0
    assert len(await board(pool)) == 2


def first_hand(players: tuple[SeatedPlayer, ...], partners: bool = False
               ) -> tuple[GameTally, list[Event]]:
    """A game tallied to the end of its first hand (each seat its own mover)."""
    events = played(game_with(players, "playelephant", "lb/left", partners=partners))
    end = next(i for i, e in enumerate(events) if isinstance(e, HandEnded))
    current = None
    for event in events[: end + 1]:
        current = tally(current, "left-g1", event)
    assert current is not None and current.hands == 1
    return current, events


def test_a_leaver_loses_to_the_opponents_who_stayed_and_the_partner_is_untouched() -> None:
    players = seated([PEOPLE[0], PEOPLE[1], PEOPLE[2], PEOPLE[3]])
    game, _ = first_hand(players, partners=True)
    after = {s.player_id: s for s in abandon(game, (0,), {})}
    assert sorted(after) == ["p0", "p1", "p3"], "the partner (p2) is neither rated nor blamed"
    assert after["p0"].abandoned == 1 and after["p0"].won == 0 and after["p0"].games == 1
    assert after["p0"].mu < 25 < after["p1"].mu
    assert after["p1"].won == after["p3"].won == 1 and after["p1"].abandoned == 0


def test_an_abandonment_before_a_whole_hand_or_played_on_with_a_bot_rates_nobody() -> None:
    players = seated([PEOPLE[0], GREEDY])
    events = played(game_with(players, "playelephant", "lb/early"))
    current = None
    for event in events[:8]:
        current = tally(current, "early-g1", event)
    assert current is not None and current.hands == 0
    [left] = abandon(current, (0,), {})
    assert (left.player_id, left.abandoned, left.won, left.mu) == ("p0", 1, 0, 25.0)
    game, _ = first_hand(players)
    unrated = msgspec.structs.replace(game, unrated=True)
    [left] = abandon(unrated, (0,), {})
    assert left.mu == 25.0 and left.abandoned == 1
    assert rate(unrated, GameEnded(winner_side=1, scores=(0, 150)), {}) == []


def test_a_stand_ins_moves_earn_the_person_nothing() -> None:
    players = seated([PEOPLE[0], PEOPLE[1]])
    batches = game_with(players, "playelephant", "lb/stand-in")
    current = None
    first_hand_over = False
    for _, events in batches:
        for event in events:
            # Seat 0's moves in the first hand are a bot's (its person went away).
            seat = getattr(event, "seat", None)
            actor = "bot:0" if seat == 0 and not first_hand_over else f"seat:{seat}"
            current = tally(current, "stand-g1", event, actor if seat is not None else "system")
            first_hand_over = first_hand_over or isinstance(event, HandEnded)
            if isinstance(event, HandEnded):
                break
        if first_hand_over:
            break
    assert current is not None
    assert current.own_hands == (0, 1) and current.points[0] == 0
    assert current.best_play[0] == 0


async def test_an_abandoned_game_is_counted_once_live_delivered_again_and_rebuilt(
    store: EventStore, pool: asyncpg.Pool
) -> None:
    """A game whose leaver did not come back: its table's events (the bot
    taking the seat, the choice, the close) rate it, the same live, again,
    and rebuilt from event 0."""
    players = seated([PEOPLE[0], PEOPLE[1]])
    batches = game_with(players, "playelephant", "lb/abandoned")
    rules = preset("playelephant", 2, False)
    await store.append("aband-table", 0, encoded_all([
        TableOpened(ruleset=rules, turn_clock_seconds=30),
        SeatTaken(seat=0, player_id="p0", name="Player 0"),
        SeatTaken(seat=1, player_id="p1", name="Player 1"), GameBegun(game=1)]), actor="system")
    version = 0
    hands = 0
    for actor, events in batches:
        if hands == 2:
            break
        # People played these moves (the batches are a bot's).
        await store.append("aband-g1", version, encoded_all(events),
                           actor=actor.replace("bot:", "seat:"))
        version += len(events)
        hands += sum(isinstance(e, HandEnded) for e in events)
    await store.append("aband-table", 4, encoded_all([
        BotTookOver(seat=0, reason="absent", game=1, version=version, hand=2),
        AbsenceDecided(game=1, seats=(0,), choice="end", by_seat=1),
        TableClosed(reason="abandoned")]), actor="system")
    runner = ProjectorRunner(pool, store, Leaderboard(), page_size=7)
    await runner.catch_up()
    once = await board(pool)
    rows = {row[1]: row for row in once}
    assert rows["p0"][-1] == 1 and rows["p0"][7] == 0, "p0 left: one abandonment, no win"
    assert rows["p1"][7] == 1 and rows["p1"][-1] == 0, "p1 stayed: the win"
    assert await pool.fetchval(PLAYING) == 0
    await pool.execute("UPDATE checkpoints SET position = 0 WHERE reader = $1", runner.reader)
    await runner.catch_up()
    assert await board(pool) == once
    await runner.rebuild()
    await ProjectorRunner(pool, store, Leaderboard(), page_size=5000).catch_up()
    assert await board(pool) == once


def test_a_leaver_is_charged_once_whatever_follows_the_choice() -> None:
    """Played on with the bot, then everyone else left: the leaver was
    charged at the choice, and the close charges only those who left since."""
    from muggins.projections.read_models import _table_event

    players = seated([PEOPLE[0], PEOPLE[1]])
    game, _ = first_hand(players)
    tallies: dict[str, GameTally | None] = {"left-g1": game}
    outcomes: list[tuple[GameTally, object]] = []
    for event in (BotTookOver(seat=0, reason="absent", game=1, version=30, hand=2),
                  AbsenceDecided(game=1, seats=(0,), choice="bot", by_seat=1),
                  BotTookOver(seat=1, reason="absent", game=1, version=40, hand=2),
                  TableClosed(reason="everyone-left")):
        _table_event("left", event, tallies, outcomes)  # type: ignore[arg-type]
    assert [leavers for _, leavers in outcomes] == [(0,), (1,)]
    assert all(tally.unrated for tally, _ in outcomes)
