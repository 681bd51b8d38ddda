"""The leaderboard projector: ratings and records per player, per preset.

Pure: a game is tallied event by event (``tally``); when it ends, its
players' standings are rated with openskill's Plackett-Luce model, sides as
teams ranked by their final scores (``rate``).  Who counts as a player is
what the game's first event recorded (``GameStarted.players``); all bots of
one level are one rated player, marked as a bot.  A person in two seats of
one game is rated once, for the first of them.  Games without players (self-
play, recorded from the CLI) are not counted.

A stand-in's play never earns a person anything.  A person's hands, points
and best play count only the hands they played themselves: a hand in which
a bot moved for them (the clock, or an absence) is left out of their
statistics.  A person who left and did not come back (muggins.domain.table_life)
has abandoned the game (``abandon``): every abandonment is counted ("left
2 of 31 games"); on a rated game where people played a whole hand the
leaver takes the loss and the opponents who stayed the win, and nobody
else's rating moves (a partnership's partner is neither rated nor blamed).
A game its people chose to play on with the bot is unrated for everyone.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec
from openskill.models import PlackettLuce

from muggins.rules.errors import InvalidRuleset
from muggins.rules.events import (
    Event,
    GameEnded,
    GameStarted,
    HandEnded,
    PointsScored,
    SeatedPlayer,
)
from muggins.rules.presets import PRESETS, preset
from muggins.rules.ruleset import Ruleset

NAME = "leaderboard"

_MODEL = PlackettLuce()


class GameTally(msgspec.Struct, frozen=True, gc=False):
    """A game being played, as far as the leaderboard cares."""

    stream_id: str
    preset: str
    players: tuple[SeatedPlayer, ...]
    #: The side each seat plays for.
    sides: tuple[int, ...]
    hands: int = 0
    #: Points each seat earned (its plays, dominoes, calls) in the hands
    #: its person played themselves.
    points: tuple[int, ...] = ()
    #: Each seat's highest score from one play of its own.
    best_play: tuple[int, ...] = ()
    #: Hands each seat's person played themselves (no bot moved for them).
    own_hands: tuple[int, ...] = ()
    #: This hand so far: each seat's points, and whether a bot moved for it.
    hand_points: tuple[int, ...] = ()
    bot_moved: tuple[bool, ...] = ()
    #: Seats whose person has gone during this game (a bot took the seat
    #: for absence), not yet charged with it.
    away: tuple[int, ...] = ()
    #: Seats whose person has been charged with abandoning this game already.
    charged: tuple[int, ...] = ()
    #: Its people chose to play on with a bot for one who left: nobody is rated.
    unrated: bool = False


class Standing(msgspec.Struct, frozen=True, gc=False):
    """One player's line on one preset's leaderboard."""

    preset: str
    player_id: str
    name: str
    bot: bool
    mu: float
    sigma: float
    games: int = 0
    won: int = 0
    drawn: int = 0
    hands: int = 0
    points: int = 0
    best_play: int = 0
    #: Games this player left and did not come back to.
    abandoned: int = 0

    @property
    def rating(self) -> float:
        """What the board is sorted by: a cautious estimate (mu - 3 sigma)."""
        return self.mu - 3 * self.sigma


def new_standing(preset: str, player: SeatedPlayer) -> Standing:
    fresh = _MODEL.rating()
    return Standing(preset, player.player_id, player.name, player.bot, fresh.mu, fresh.sigma)


def is_rated(rules: Ruleset) -> bool:
    """Whether a game under ``rules`` is rated: only under a preset's exact
    rules for its seating.  A table with any knob changed (a lower target,
    fewer tiles) is custom, and a custom game's results say nothing about
    the preset's board."""
    if rules.preset not in PRESETS:
        return False
    try:
        return rules == preset(rules.preset, rules.seats, rules.partnerships)
    except InvalidRuleset:
        return False


def _sized(values: tuple[int, ...], seats: int) -> list[int]:
    """A per-seat tuple as a list (empty in a tally kept before it existed)."""
    return list(values) if len(values) == seats else [0] * seats


def tally(current: GameTally | None, stream_id: str, event: Event,
          actor: str | None = None) -> GameTally | None:
    """The game's tally after one more of its events (None: not a rated
    game); ``actor`` is who made it (``seat:N`` a person, ``bot:N`` a bot,
    ``system`` the table; None: not known, taken as the seat's own)."""
    match event:
        case GameStarted(players=players) if players and is_rated(event.ruleset):
            rules = event.ruleset
            seats = rules.seats
            return GameTally(stream_id, rules.preset, players,
                             tuple(rules.side_of(s) for s in range(seats)),
                             points=(0,) * seats, best_play=(0,) * seats,
                             own_hands=(0,) * seats, hand_points=(0,) * seats,
                             bot_moved=(False,) * seats)
        case _ if current is None:
            return None
    seats = len(current.sides)
    moved = list(current.bot_moved) if len(current.bot_moved) == seats else [False] * seats
    bots = {p.seat for p in current.players if p.bot}
    if actor is not None and actor.startswith("bot:"):
        stand_in = int(actor.removeprefix("bot:"))
        if stand_in not in bots:
            moved[stand_in] = True  # a bot moved for a person
    match event:
        case PointsScored(seat=seat, points=points, reason=reason):
            pending = _sized(current.hand_points, seats)
            pending[seat] += points
            best = current.best_play
            own_move = actor is None or actor == (f"bot:{seat}" if seat in bots
                                                  else f"seat:{seat}")
            if reason == "count" and own_move and points > best[seat]:
                best = best[:seat] + (points,) + best[seat + 1 :]
            return msgspec.structs.replace(current, hand_points=tuple(pending),
                                           best_play=best, bot_moved=tuple(moved))
        case HandEnded():
            own, earned = _sized(current.own_hands, seats), list(current.points)
            pending = _sized(current.hand_points, seats)
            for seat in range(seats):
                if not moved[seat]:
                    own[seat] += 1
                    earned[seat] += pending[seat]
            return msgspec.structs.replace(
                current, hands=current.hands + 1, own_hands=tuple(own),
                points=tuple(earned), hand_points=(0,) * seats, bot_moved=(False,) * seats)
    if tuple(moved) != current.bot_moved:
        return msgspec.structs.replace(current, bot_moved=tuple(moved))
    return current


def rated_seats(game: GameTally) -> list[SeatedPlayer]:
    """The seats whose player the game rates: each identity's first seat."""
    seen: set[str] = set()
    rated = []
    for player in game.players:
        if player.player_id not in seen:
            seen.add(player.player_id)
            rated.append(player)
    return rated


def rate(game: GameTally, ended: GameEnded, standings: Mapping[str, Standing]) -> list[Standing]:
    """The players' standings after the game (``standings`` by player id; a
    player not in it starts fresh); none for a game played on with a bot
    for a person who left (unrated for everyone)."""
    if game.unrated:
        return []
    rated = rated_seats(game)
    current = {
        p.player_id: standings.get(p.player_id) or new_standing(game.preset, p) for p in rated
    }
    side_count = max(game.sides) + 1
    teams: list[list[object]] = [[] for _ in range(side_count)]
    placed: list[list[str | None]] = [[] for _ in range(side_count)]
    for player in game.players:
        side = game.sides[player.seat]
        mine = any(p is player for p in rated)
        if mine:
            before = current[player.player_id]
            teams[side].append(_MODEL.rating(mu=before.mu, sigma=before.sigma))
        else:
            teams[side].append(_MODEL.rating())  # a second seat of the same player
        placed[side].append(player.player_id if mine else None)
    # A side's rank is its place by final score (0 the best; equal scores tie).
    ordered = sorted(set(ended.scores), reverse=True)
    ranks = [float(ordered.index(score)) for score in ended.scores]
    new_teams = _MODEL.rate(teams, ranks=ranks)  # type: ignore[arg-type]
    result = []
    for side, team in enumerate(new_teams):
        for rating, player_id in zip(team, placed[side], strict=True):
            if player_id is None:
                continue
            before = current[player_id]
            seat = next(p.seat for p in rated if p.player_id == player_id)
            name = next(p.name for p in rated if p.player_id == player_id)
            result.append(msgspec.structs.replace(
                before,
                name=name,
                mu=rating.mu,
                sigma=rating.sigma,
                games=before.games + 1,
                won=before.won + (ended.winner_side == side),
                drawn=before.drawn + (ended.winner_side is None),
                hands=before.hands + _sized(game.own_hands, len(game.sides))[seat],
                points=before.points + game.points[seat],
                best_play=max(before.best_play, game.best_play[seat]),
            ))
    return result


class RatingChange(msgspec.Struct, frozen=True, gc=False):
    """One rated player's rating (mu - 3 sigma) before an ended game and after it."""

    stream_id: str
    player_id: str
    seat: int
    name: str
    bot: bool
    before: float
    after: float


def rating_changes(game: GameTally, before: Mapping[str, Standing],
                   after: list[Standing]) -> list[RatingChange]:
    """What ``rate`` did to each rated player of ``game`` (``before`` the
    standings it rated from, by player id; a player not in it started fresh)."""
    seats = {p.player_id: p for p in rated_seats(game)}
    changes = []
    for standing in after:
        player = seats[standing.player_id]
        was = before.get(standing.player_id) or new_standing(game.preset, player)
        changes.append(RatingChange(game.stream_id, standing.player_id, player.seat,
                                    standing.name, standing.bot, was.rating, standing.rating))
    return changes


def abandon(game: GameTally, leavers: tuple[int, ...],
            standings: Mapping[str, Standing]) -> list[Standing]:
    """The standings after the persons at ``leavers`` left the game for good.

    Each leaver has one more game and one more abandonment.  If the game is
    rated, not played on with a bot, and people played at least one whole
    hand of it, the leavers' sides lose to the opponents who stayed (people
    or bots): only those are rated.  The leavers' partners are left out.
    """
    seats = len(game.sides)
    own = _sized(game.own_hands, seats)
    rated = rated_seats(game)
    people = [p for p in rated if not p.bot]
    leaving = [p for p in people if p.seat in leavers]
    if not leaving:
        return []
    current = {p.player_id: standings.get(p.player_id) or new_standing(game.preset, p)
               for p in rated}
    losing_sides = {game.sides[p.seat] for p in leaving}
    whole_hand = any(own[p.seat] >= 1 for p in people)
    staying = [p for p in rated if game.sides[p.seat] not in losing_sides
               and p.seat not in game.away and p.seat not in leavers]
    result: dict[str, Standing] = {}
    if whole_hand and not game.unrated and staying:
        teams = [[_MODEL.rating(mu=current[p.player_id].mu, sigma=current[p.player_id].sigma)
                  for p in staying],
                 [_MODEL.rating(mu=current[p.player_id].mu, sigma=current[p.player_id].sigma)
                  for p in leaving]]
        winners, losers = _MODEL.rate(teams, ranks=[0.0, 1.0])
        for player, rating in zip(staying, winners, strict=True):
            before = current[player.player_id]
            result[player.player_id] = msgspec.structs.replace(
                before, mu=rating.mu, sigma=rating.sigma, games=before.games + 1,
                won=before.won + 1, hands=before.hands + own[player.seat],
                points=before.points + game.points[player.seat],
                best_play=max(before.best_play, game.best_play[player.seat]))
        for player, rating in zip(leaving, losers, strict=True):
            current[player.player_id] = msgspec.structs.replace(
                current[player.player_id], mu=rating.mu, sigma=rating.sigma)
    for player in leaving:
        before = current[player.player_id]
        result[player.player_id] = msgspec.structs.replace(
            before, games=before.games + 1, abandoned=before.abandoned + 1,
            hands=before.hands + own[player.seat],
            points=before.points + game.points[player.seat],
            best_play=max(before.best_play, game.best_play[player.seat]))
    return list(result.values())
