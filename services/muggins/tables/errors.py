"""Why the table service refuses a request: each refusal a type with a
stable ``code`` for clients, and the HTTP status it answers with."""

from __future__ import annotations

from muggins.domain.chat import ChatRefused
from muggins.eventstore.store import TRANSIENT
from muggins.rules.errors import IllegalMove

__all__ = ["TRANSIENT"]  # the store's, where every refusal is also found


class Refusal(Exception):
    """A request refused: nothing changed.  ``code`` is stable for clients."""

    code = "refused"
    status = 409
    #: Whether it counts against the socket that asked (its strikes): not
    #: for a limit of the table's that others' doing may have reached.
    strikes = True


class TableNotFound(Refusal, LookupError):
    code = "no-such-table"
    status = 404


class PlayerNotFound(Refusal, LookupError):
    code = "no-such-player"
    status = 404


class HandNotFound(Refusal, LookupError):
    code = "no-such-hand"
    status = 404


class GameNotFound(Refusal, LookupError):
    code = "no-such-game"
    status = 404


class GameNotOver(Refusal):
    """A game's result (its rating changes) is asked for while it is played."""

    code = "game-not-over"
    status = 409


class HandNotOver(Refusal):
    """A hand's replay or analysis is asked for while it is played (its
    tiles and seed are secret until it ends)."""

    code = "hand-not-over"
    status = 409


class BadRequest(Refusal, ValueError):
    code = "bad-request"
    status = 400


class SeatUnavailable(Refusal):
    code = "seat-taken"
    status = 409


class TableClosedRefusal(Refusal):
    """The table is closed for good (muggins.domain.table_life): it takes no
    command, no seat and no rematch."""

    code = "table-closed"
    status = 409
    #: A page that had the table open meanwhile asks in good faith.
    strikes = False


class NothingToDecide(Refusal):
    """A choice for a missing person when nobody is missing (or the game is not paused)."""

    code = "nothing-to-decide"
    strikes = False


class AlreadyDecided(Refusal):
    """A second choice: the first one stands."""

    code = "already-decided"
    strikes = False


class YouLeft(Refusal):
    """The person who left cannot choose for their own absence: they come back."""

    code = "you-left"
    strikes = False


class WaitFirst(Refusal):
    """The choice opens a while after the person went missing."""

    code = "wait-first"
    strikes = False


class BadToken(Refusal, PermissionError):
    code = "bad-token"
    status = 403


class HintsOff(Refusal):
    """A hint asked for at a table that gives none (not a casual table)."""

    code = "hints-off"
    status = 403


class ChatOff(Refusal):
    code = "chat-off"
    status = 403


class ChatRateLimited(Refusal):
    """The table is talking too fast (everyone at it together)."""

    code = "chat-rate-limited"
    status = 429
    strikes = False


class ChatFull(Refusal):
    """The table's chat holds all the lines it keeps (muggins.tables.chat)."""

    code = "chat-full"
    status = 409
    strikes = False


class ChatNameTaken(Refusal):
    """A spectator speaking under the name of someone seated at the table."""

    code = "chat-name-taken"
    status = 409
    strikes = False


class ChatRejected(Refusal):
    """A message the chat does not take (empty, too long, unknown phrase)."""

    status = 400

    def __init__(self, refused: ChatRefused) -> None:
        super().__init__(str(refused))
        self.code = refused.code


class RateLimited(Refusal):
    """A socket asking for something faster than it may (resends, pings)."""

    code = "rate-limited"
    status = 429


class SpectatorsWatch(Refusal):
    """A spectator's socket sent what only a seat may."""

    code = "spectator"
    status = 403


class TooManySockets(Refusal):
    code = "too-many-sockets"
    status = 429


class AlreadyDisputed(Refusal):
    """The same person has disputed this hand already (one dispute a hand each)."""

    code = "already-disputed"
    status = 409


class TableBusy(Refusal):
    """Others kept changing the table while a change was tried: nothing was
    written; the same request again will do."""

    code = "busy"
    status = 409


class NoSuchDispute(Refusal, LookupError):
    code = "no-such-dispute"
    status = 404


class AlreadyResolved(Refusal):
    """A dispute has one resolution: the first stands."""

    code = "already-resolved"
    status = 409


class NotAnOperator(Refusal, PermissionError):
    """No operator token, or not the settings' one (or operators are off)."""

    code = "not-an-operator"
    status = 401


class StaleView(IllegalMove):
    code = "stale-view"


class SeatHeldByBot(IllegalMove):
    """The bot keeps the seat to the end of the hand (two clocks ran out on one turn)."""

    code = "bot-holds-seat"
