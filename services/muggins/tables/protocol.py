"""Every message of the table service's HTTP API and WebSocket, decoded
strictly: unknown fields, wrong types and oversized values are refused."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from muggins.bots.ladder import BotLevel
from muggins.domain.views import GameView, RuleLine
from muggins.evidence.checkpoints import SiteKeyInfo
from muggins.evidence.documents import Receipt
from muggins.rules.tiles import Tile

NAME_MAX = 24
TOKEN_MAX = 128


class Strict(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Base of every message clients send: nothing unknown is accepted."""


class BotSeat(Strict, frozen=True, kw_only=True):
    seat: Annotated[int, msgspec.Meta(ge=0, le=3)]
    #: A level of the ladder people choose from (muggins.bots.levels),
    #: weakest first: easy, medium, hard, expert; or a reference bot,
    #: "random" or "greedy" (medium's bot under its old name), kept for
    #: scripts, tests and tables made before the ladder.
    level: BotLevel = "medium"


class CreateTable(Strict, frozen=True, kw_only=True):
    preset: Annotated[str, msgspec.Meta(max_length=40)] = "playelephant"
    seats: Annotated[int, msgspec.Meta(ge=2, le=4)] = 2
    partnerships: bool = False
    #: Any Ruleset knob, e.g. {"max_pip": 9} or {"muggins_rule": true}.
    overrides: dict[str, Any] = {}
    bots: Annotated[list[BotSeat], msgspec.Meta(max_length=4)] = []
    #: None: the service's default (setting turn_clock_seconds, 30 s unless set).
    turn_clock_seconds: Annotated[int, msgspec.Meta(ge=1, le=600)] | None = None
    #: A table chat for everyone seated and watching (off: nobody may say anything).
    chat: bool = True
    #: The expert bot's thinking time per decision at this table (None: the service's).
    #: (At most 2 s: the scheduler's claim on a table lasts 3.)
    bot_budget_ms: Annotated[int, msgspec.Meta(ge=10, le=2000)] | None = None


class PlayerIdentity(Strict, frozen=True, kw_only=True):
    player_id: Annotated[str, msgspec.Meta(max_length=64)]
    secret: Annotated[str, msgspec.Meta(max_length=TOKEN_MAX)]


class TakeSeat(Strict, frozen=True, kw_only=True):
    name: Annotated[str, msgspec.Meta(max_length=200)]
    player: PlayerIdentity | None = None


class RotateSecret(Strict, frozen=True, kw_only=True):
    #: The player's current secret: the proof that asks for a new one.
    secret: Annotated[str, msgspec.Meta(min_length=1, max_length=TOKEN_MAX)]


class NewSecret(msgspec.Struct, frozen=True):
    player_id: str
    #: From now on the only secret of the identity: the old one no longer works.
    secret: str


class SeatSummary(msgspec.Struct, frozen=True):
    seat: int
    name: str | None
    bot: bool
    bot_level: str | None
    free: bool


class TableInfo(msgspec.Struct, frozen=True):
    table_id: str
    preset: str
    #: What the table is doing (muggins.domain.table_life): "finished" is between
    #: games (the game is over; a rematch may follow).
    status: Literal["waiting", "playing", "paused", "finished", "closed"]
    game: int
    turn_clock_seconds: int
    rules: list[RuleLine]
    ruleset: dict[str, Any]
    seats: list[SeatSummary]
    share_link: str
    spectator_link: str
    #: The game it plays, as players know it, in the language asked ("All
    #: Fives · casual": muggins.tables.names).
    title: str = ""
    #: What people call the table ("Ana's table"; its id is for links).
    name: str = ""
    #: Whether the table has a chat.
    chat: bool = True
    #: Why it closed (finished, abandoned, everyone-left, idle), when closed.
    closed_reason: str | None = None
    #: Who is missing since when, the choice (muggins.domain.table_life).
    life: LifeView | None = None


class SeatGranted(msgspec.Struct, frozen=True):
    table_id: str
    seat: int
    #: Secret: send it in the first WebSocket message; it is never shown again.
    token: str
    player_id: str
    #: Only when this request created the identity: keep it to be recognised.
    player_secret: str | None
    play_link: str


# ---------------------------------------------------------------- WebSocket


class Hello(Strict, frozen=True, kw_only=True, tag="hello"):
    token: Annotated[str, msgspec.Meta(min_length=1, max_length=TOKEN_MAX)]
    #: The last version this client saw: it gets everything after it.
    since: Annotated[int, msgspec.Meta(ge=0)] | None = None
    #: The game ``since`` is a version of: another game than the table's
    #: current one, and the client gets the current game from its start.
    game: Annotated[int, msgspec.Meta(ge=0)] | None = None


class PlayTile(Strict, frozen=True, kw_only=True, tag="play"):
    tile: Tile
    end: Annotated[int, msgspec.Meta(ge=0, le=64)] | None = None
    claim: Annotated[int, msgspec.Meta(ge=0, le=1000)] | None = None
    known_version: Annotated[int, msgspec.Meta(ge=0)]


class CallMugginsMessage(Strict, frozen=True, kw_only=True, tag="muggins"):
    known_version: Annotated[int, msgspec.Meta(ge=0)]


class Since(Strict, frozen=True, kw_only=True, tag="since"):
    version: Annotated[int, msgspec.Meta(ge=0)]


class Rematch(Strict, frozen=True, kw_only=True, tag="rematch"):
    pass


class Back(Strict, frozen=True, kw_only=True, tag="back"):
    """"I'm back": take the seat back from the bot playing it (the clock re-arms)."""


class Decide(Strict, frozen=True, kw_only=True, tag="decide"):
    """A person still seated chooses for a game paused by a missing person:
    "bot" plays on with the bot in that seat, "seat" gives the seat to a new
    person from the lobby (either way unrated for everyone), "end" ends the
    game (abandoned by the person who left).  The first choice wins."""

    choice: Literal["bot", "seat", "end"]


class Ping(Strict, frozen=True, kw_only=True, tag="ping"):
    """"Are you there?": answered with a pong, so that a page notices a
    connection that died without closing."""


class Chat(Strict, frozen=True, kw_only=True, tag="chat"):
    """Say something to the table: words, or one of the quick phrases.
    (Longer than CHAT_MAX is refused with its own code, not as a bad message.)"""

    text: Annotated[str, msgspec.Meta(max_length=2000)] | None = None
    phrase: Annotated[str, msgspec.Meta(max_length=20)] | None = None
    #: A spectator's name (a seat speaks under its player's name).
    name: Annotated[str, msgspec.Meta(max_length=200)] | None = None


class HintRequest(Strict, frozen=True, kw_only=True, tag="hint"):
    """On a casual table (rules ``hints``), the expert's suggestion for my turn."""


ClientMessage = (Hello | PlayTile | CallMugginsMessage | Since | Rematch | Back | Ping | Chat
                 | HintRequest | Decide)
client_message_decoder = msgspec.json.Decoder(ClientMessage)


class MissingSeat(msgspec.Struct, frozen=True):
    seat: int
    name: str | None
    #: When the bot took the seat for them (ISO 8601, the store's clock).
    since: str | None


class LifeView(msgspec.Struct, frozen=True):
    """What the table is doing (muggins.domain.table_life), as players and
    spectators see it: who is missing since when, and the choice."""

    #: waiting, playing, paused, between-games, closed.
    kind: str
    #: Why it closed (finished, abandoned, everyone-left, idle).
    reason: str | None = None
    missing: list[MissingSeat] = []
    #: Paused: when those who stayed may choose (ISO 8601).
    choices_from: str | None = None
    #: What was chosen for this game ("bot", "end"), if anything, and by whom.
    choice: str | None = None
    chosen_by: str | None = None
    #: Between games: who asked for a rematch (it begins when everyone
    #: still seated has).
    rematch: list[str] = []


class Welcome(msgspec.Struct, frozen=True, tag="welcome"):
    table_id: str
    #: None for a spectator.
    seat: int | None
    game: int
    version: int
    view: GameView | None
    turn_clock_seconds: int
    #: Seconds left for the seat on turn (None when nobody is on the clock).
    seconds_left: float | None = None
    life: LifeView | None = None


#: Who made a move: a person from their seat, a bot (a bot's seat, or a
#: person's seat a bot plays for them), or the table itself (deals, forced
#: draws and passes, hand ends).
MoveMaker = Literal["player", "bot", "system"]


def event_message(follower_game: int, version: int, event: bytes, actor: str,
                  parts: list[int] | None) -> EventMessage:
    """An event as a reader gets it, with who made it and the count's parts."""
    return EventMessage(follower_game, version, msgspec.Raw(event), move_maker(actor), parts)


def move_maker(actor: str) -> MoveMaker:
    """An event's recorded actor ("seat:N", "bot:N", "system") as a page needs it."""
    kind = actor.partition(":")[0]
    return "player" if kind == "seat" else "bot" if kind == "bot" else "system"


class EventMessage(msgspec.Struct, frozen=True, tag="event"):
    game: int
    version: int
    event: msgspec.Raw
    #: Who made the move (None where it is not known).
    by: MoveMaker | None = None
    #: After a play: what the count adds up, end by end ("6 + 4 + 5 = 15").
    parts: list[int] | None = None


class ViewMessage(msgspec.Struct, frozen=True, tag="view"):
    game: int
    version: int
    view: GameView
    #: Seconds left for the seat on turn (None when nobody is on the clock).
    seconds_left: float | None = None
    #: How many spectators watch the table (through this server).
    spectators: int = 0
    life: LifeView | None = None


class ChatLine(msgspec.Struct, frozen=True, tag="chat"):
    """One thing said at the table (``id`` orders them: the chat stream's version)."""

    id: int
    name: str
    #: The speaker's seat; None for a spectator.
    seat: int | None
    text: str | None
    phrase: str | None
    at: str


class Hint(msgspec.Struct, frozen=True, tag="hint"):
    """The expert's suggestion for the reader's turn (casual tables only)."""

    game: int
    version: int
    tile: Tile
    #: None: lead it.
    end: int | None
    #: What the play scores at once, and what the expert expects it to be
    #: worth to the hand's end (the side's points minus the others').
    scores_now: int
    expected_points: float


class Pong(msgspec.Struct, frozen=True, tag="pong"):
    """The answer to a ping."""


class ErrorMessage(msgspec.Struct, frozen=True, tag="error"):
    """What was refused: a stable ``code`` and the server's words (English)."""

    code: str
    message: str
    version: int | None = None
    #: For a spent budget (too many hints, messages, connections...): the
    #: seconds until asking again may succeed, for the page to say in its
    #: own language.
    retry_after: int | None = None


class GameStartedMessage(msgspec.Struct, frozen=True, tag="game"):
    game: int


class SpectatorsMessage(msgspec.Struct, frozen=True, tag="spectators"):
    """How many watch the table now."""

    count: int


class SpectatorCount(msgspec.Struct, frozen=True):
    """On the bus: how many watch a table through one process."""

    process: str
    count: int


spectator_count_decoder = msgspec.json.Decoder(SpectatorCount)


# ---------------------------------------------------------------- HTTP answers


class SeatingEntry(msgspec.Struct, frozen=True):
    """One of a table's own events, with who caused it and when."""

    version: int
    actor: str
    at: str
    event: dict[str, object]


class Health(msgspec.Struct, frozen=True, omit_defaults=True):
    """/healthz and /readyz: ``status`` is ok, ready, not ready or failed."""

    status: str
    postgres: str = "unknown"
    nats: str = "unknown"
    #: While the service starts: what it waits for ("NATS at ...: ...").
    waiting_for: str | None = None
    #: What stopped the service for good (a failure no waiting mends).
    failed: str | None = None


class LobbyTable(msgspec.Struct, frozen=True):
    table_id: str
    preset: str
    seats: int
    free_seats: int
    link: str
    #: People already sitting there, waiting for the others.
    waiting: int = 0
    #: A seat given up mid-game: the game goes on once it is taken (unrated);
    #: the scores so far.
    in_progress: bool = False
    scores: list[int] = []
    #: What people call it, and the game it plays (muggins.tables.names), in
    #: the language asked.
    name: str = ""
    title: str = ""


class PlayingTable(msgspec.Struct, frozen=True):
    table_id: str
    game: int
    version: int
    view: msgspec.Raw
    watch_link: str
    #: Who sits where now (the view itself comes from the events, which carry no names).
    names: list[str | None] = []
    #: The preset the game is played under.
    preset: str = ""
    #: What people call it, and the game it plays (muggins.tables.names).
    name: str = ""
    title: str = ""


class Lobby(msgspec.Struct, frozen=True):
    #: One page of the tables with free seats, those with people waiting first.
    open: list[LobbyTable]
    playing: list[PlayingTable]
    page: int = 1
    #: How many tables have free seats (all pages).
    open_total: int = 0


class PublicTableView(msgspec.Struct, frozen=True):
    table_id: str
    game: int
    version: int
    phase: str
    preset: str
    #: The preset in one sentence (English), for a lobby or a spectator.
    summary: str
    #: Every knob of the rules (docs/presets.md).
    ruleset: msgspec.Raw
    view: msgspec.Raw


class LeaderboardLine(msgspec.Struct, frozen=True):
    rank: int
    player_id: str
    name: str
    #: A bot (all bots of one level are one player).
    bot: bool
    #: mu - 3 sigma (openskill Plackett-Luce): what the board is sorted by.
    rating: float
    mu: float
    sigma: float
    games: int
    won: int
    drawn: int
    hands: int
    points_per_hand: float
    best_play: int
    #: Games left and not come back to (counted in ``games``).
    abandoned: int = 0


class RatingChange(msgspec.Struct, frozen=True):
    """One rated player's rating (mu - 3 sigma, openskill) before a game and after it."""

    seat: int
    player_id: str
    name: str
    bot: bool
    before: float
    after: float


class RatingChanges(msgspec.Struct, frozen=True):
    """What a game did to its players' ratings (GET /tables/{id}/games/{game}/ratings).

    ``status``: "rated" (the changes are in), "updating" (the game is over
    and rated, but the leaderboard has not folded it yet: ask again),
    "unrated" (a casual table, a bot's seat taken by a person, a game given up)."""

    table_id: str
    game: int
    status: Literal["rated", "updating", "unrated"]
    changes: list[RatingChange] = []


class PresetBoard(msgspec.Struct, frozen=True):
    preset: str
    players: int


class LeaderboardPage(msgspec.Struct, frozen=True):
    preset: str
    page: int
    per_page: int
    total: int
    players: list[LeaderboardLine]
    #: Every preset with a leaderboard, and how many players are on it.
    presets: list[PresetBoard]


encode = msgspec.json.Encoder().encode


def clean_name(raw: str) -> str:
    """A display name: 1-24 printable characters, no markup; ValueError otherwise."""
    name = " ".join(raw.split())
    if not 1 <= len(name) <= NAME_MAX:
        raise ValueError(f"a name is 1 to {NAME_MAX} characters")
    if not name.isprintable() or any(c in name for c in "<>&\"'`"):
        raise ValueError("a name is plain text: no markup or control characters")
    return name


# ---------------------------------------------------------------- evidence


class ReceiptsMessage(msgspec.Struct, frozen=True, tag="receipts"):
    """A seat's receipts (docs/fairness.md, "Receipts"): every one of the
    table's when it joins, then each new one as its hand is sealed."""

    receipts: list[Receipt]


class DisputesMessage(msgspec.Struct, frozen=True, tag="disputes"):
    """The table's disputes changed (one opened or resolved): how many there
    are and how many are resolved; the page reads them (GET …/disputes)."""

    count: int
    resolved: int


class KeysDocument(msgspec.Struct, frozen=True):
    """The site's public keys (/.well-known/muggins-keys.json)."""

    keys: list[SiteKeyInfo]
    format: str = "muggins-keys"


class OpenDispute(Strict, frozen=True, kw_only=True):
    #: The seat's token (as for the table's socket): who disputes.
    token: Annotated[str, msgspec.Meta(min_length=1, max_length=TOKEN_MAX)]
    game: Annotated[int, msgspec.Meta(ge=1, le=1_000_000)]
    hand: Annotated[int, msgspec.Meta(ge=1, le=10_000)]
    #: A short reason (at most 500 characters once spaces are tidied).
    reason: Annotated[str, msgspec.Meta(max_length=2000)]
    #: The receipt the page kept for this hand, if it has one.
    receipt: Receipt | None = None


class ResolveDispute(Strict, frozen=True, kw_only=True):
    verdict: Literal["upheld", "rejected"]
    note: Annotated[str, msgspec.Meta(max_length=8000)]
    #: The operator's name, as the player will read it.
    by: Annotated[str, msgspec.Meta(max_length=200)]


class DisputeView(msgspec.Struct, frozen=True):
    table_id: str
    dispute: int
    seat: int
    name: str | None
    game: int
    hand: int
    reason: str
    opened_at: str
    #: None while open.
    verdict: Literal["upheld", "rejected"] | None = None
    note: str | None = None
    by: str | None = None
    resolved_at: str | None = None
    #: The receipt the person kept and sent with the dispute.
    receipt: Receipt | None = None


ServerMessage = (
    Welcome | EventMessage | ViewMessage | ErrorMessage | GameStartedMessage | SpectatorsMessage
    | ReceiptsMessage | DisputesMessage
)
