"""The table-views projector: every game's public view, for the lobby,
spectators and GET /tables/{id}/view.

``apply`` is pure: the game so far plus one stored event gives the game after
it.  Only the public view (no hand, no boneyard order, no seed before the
hand ends) is ever served.  Names and bot marks come from the players the
game's first event recorded (a bot taking over a seat later is not shown).
"""

from __future__ import annotations

import msgspec

from muggins.domain.codec import game_event
from muggins.domain.streams import parse_game_stream
from muggins.domain.table_events import bot_name
from muggins.domain.views import GameView, game_view
from muggins.eventstore.records import RecordedEvent
from muggins.rules.events import GameStarted, SeatedPlayer
from muggins.rules.game import evolve
from muggins.rules.state import GameState

NAME = "table-views"


class TableViewDocument(msgspec.Struct, frozen=True, gc=False):
    """One game's read-model row."""

    stream_id: str
    table_id: str
    game: int
    version: int
    position: int
    state: GameState
    #: Who sat where when the game began (GameStarted.players).
    players: tuple[SeatedPlayer, ...] = ()

    @property
    def public_view(self) -> GameView:
        seats = self.state.ruleset.seats
        names: list[str | None] = [None] * seats
        bots = [False] * seats
        for player in self.players:
            if player.seat < seats:
                # A bot is called what the table calls it (the record names its level).
                names[player.seat] = bot_name(player.seat) if player.bot else player.name
                bots[player.seat] = player.bot
        return game_view(self.state, None, names, bots)


def table_and_game(stream_id: str) -> tuple[str, int]:
    """"abc1-g3" -> ("abc1", 3); a game stored outside a table (muggins simulate
    --record) is its own table, game 0."""
    return parse_game_stream(stream_id) or (stream_id, 0)


def apply(document: TableViewDocument | None, recorded: RecordedEvent) -> TableViewDocument:
    """The document after one more event of its stream."""
    event = game_event(recorded)
    state = evolve(document.state if document else None, event)
    table, game = table_and_game(recorded.stream_id)
    players = document.players if document else ()
    if isinstance(event, GameStarted):
        players = event.players
    return TableViewDocument(
        stream_id=recorded.stream_id,
        table_id=table,
        game=game,
        version=recorded.stream_version,
        position=recorded.position,
        state=state,
        players=players,
    )
