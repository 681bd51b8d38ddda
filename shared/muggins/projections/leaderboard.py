"""The leaderboard projector: ratings and records per player, per preset.

Pure: a game is tallied event by event (``tally``); when it ends, its
players' standings are rated with openskill's Plackett-Luce model, sides as
teams ranked by their final scores (``rate``).  Who counts as a player is
what the game's first event recorded (``GameStarted.players``): a seat later
taken over by a bot still counts for the person who sat down, and all bots
of one level are one rated player, marked as a bot.  A person in two seats of
one game is rated once, for the first of them.  Games without players (self-
play, recorded from the CLI) are not counted.
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
    #: Points each seat earned (its plays, dominoes, calls).
    points: tuple[int, ...] = ()
    #: Each seat's highest score from one play.
    best_play: tuple[int, ...] = ()


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


def tally(current: GameTally | None, stream_id: str, event: Event) -> GameTally | None:
    """The game's tally after one more of its events (None: not a rated game)."""
    match event:
        case GameStarted(players=players) if players and is_rated(event.ruleset):
            rules = event.ruleset
            seats = rules.seats
            return GameTally(stream_id, rules.preset, players,
                             tuple(rules.side_of(s) for s in range(seats)),
                             points=(0,) * seats, best_play=(0,) * seats)
        case _ if current is None:
            return None
        case PointsScored(seat=seat, points=points, reason=reason):
            earned = list(current.points)
            earned[seat] += points
            best = current.best_play
            if reason == "count" and points > best[seat]:
                best = best[:seat] + (points,) + best[seat + 1 :]
            return msgspec.structs.replace(current, points=tuple(earned), best_play=best)
        case HandEnded():
            return msgspec.structs.replace(current, hands=current.hands + 1)
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
    player not in it starts fresh)."""
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
                hands=before.hands + game.hands,
                points=before.points + game.points[seat],
                best_play=max(before.best_play, game.best_play[seat]),
            ))
    return result
