"""Stream ids and NATS subjects: built and parsed here, and nowhere else.

A table is two kinds of stream in the event store:

* ``<table>-table``: the table's own events (opened, seats taken, bots taking
  over, players returning, games begun): muggins.domain.table_events;
* ``<table>-g<n>``: game n played at the table: muggins.rules.events;
* ``<table>-chat``: what the people at the table and watching it said
  (muggins.domain.chat): beside the table's own stream, so that a burst of chat
  never races the seating for the table stream's next version.

A table id is 4 to 32 ASCII letters and digits (the service issues 12).  It
has no '-', so a stream id parses back without ambiguity, and it is always a
single, short NATS subject token.  Every id that comes from outside is
checked with ``is_table_id`` before it reaches SQL, a subject or the rules.

Subjects (docs/eventstore.md):

* ``muggins.table.<stream>.public|audit|seat.<n>``: every stored event, by
  audience (JetStream, published by the relay);
* ``muggins.spectators.<table>``: how many watch a table through one process
  (core NATS, a courtesy count).
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple, NewType

TABLE_ID_PATTERN: Final = r"[A-Za-z0-9]{4,32}"
_TABLE_ID = re.compile(TABLE_ID_PATTERN)
_GAME_STREAM = re.compile(rf"({TABLE_ID_PATTERN})-g([1-9][0-9]{{0,8}})")
_TABLE_STREAM = re.compile(rf"({TABLE_ID_PATTERN})-table")

_CHAT_STREAM = re.compile(rf"({TABLE_ID_PATTERN})-chat")

TABLE_STREAM_SUFFIX: Final = "-table"
CHAT_STREAM_SUFFIX: Final = "-chat"
SUBJECT_ROOT: Final = "muggins.table"
SPECTATORS_ROOT: Final = "muggins.spectators"
#: Every stream's public subject.
ALL_PUBLIC_SUBJECTS: Final = f"{SUBJECT_ROOT}.*.public"
#: Everything the relay publishes (the JetStream stream's subjects).
ALL_EVENT_SUBJECTS: Final = f"{SUBJECT_ROOT}.>"
#: Rung by the relay (core NATS, not kept in the stream) after each page it
#: publishes: the projectors read the store when it rings.
BELL_SUBJECT: Final = "muggins.bell"


#: A table id that was checked (``table_id``): built only here.
TableId = NewType("TableId", str)


class NoSuchTable(LookupError):
    """An id no table has: not of the table id format (or of a table never made)."""


def is_table_id(value: str) -> bool:
    return _TABLE_ID.fullmatch(value) is not None


def table_id(value: str) -> TableId:
    """``value`` as a table id, checked once at the edge (NoSuchTable if it
    is not of the format: the service answers it as it answers an unknown table)."""
    if not is_table_id(value):
        raise NoSuchTable("there is no such table: a table id is 4 to 32 letters and digits")
    return TableId(value)


#: The largest game and hand numbers anyone may name (beyond: there is no such hand).
MAX_GAME: Final = 1_000_000
MAX_HAND: Final = 10_000


class NoSuchHand(LookupError):
    """A game or hand number out of range: no table has it."""


class HandRef(NamedTuple):
    """One hand of one game at a table, its numbers checked (``hand_ref``)."""

    table: TableId
    game: int
    hand: int

    @property
    def game_stream(self) -> str:
        return game_stream(self.table, self.game)


def hand_ref(table: str, game: int, hand: int) -> HandRef:
    """A hand named from outside, checked once at the edge (NoSuchTable, NoSuchHand)."""
    checked = table_id(table)
    if not 1 <= game <= MAX_GAME or not 1 <= hand <= MAX_HAND:
        raise NoSuchHand(f"there is no game {game} with a hand {hand}: games are 1 to "
                         f"{MAX_GAME}, hands 1 to {MAX_HAND}")
    return HandRef(checked, game, hand)


#: Who may read an event: "public", "audit" (nobody live: the record only)
#: or "seat:N" (that seat only), checked by ``audience``.
Audience = NewType("Audience", str)
PUBLIC: Final = Audience("public")
AUDIT: Final = Audience("audit")
_AUDIENCE = re.compile(r"public|audit|seat:[0-9]{1,2}")


def seat_audience(seat: int) -> Audience:
    return Audience(f"seat:{seat}")


def audience(value: str) -> Audience:
    """``value`` as an audience (ValueError if it is not one)."""
    if _AUDIENCE.fullmatch(value) is None:
        raise ValueError(f"{value[:40]!r} is not an audience: public, audit or seat:N")
    return Audience(value)


def game_stream(table_id: str, game: int) -> str:
    """The stream of game ``game`` (from 1) at a table."""
    return f"{table_id}-g{game}"


def table_stream(table_id: str) -> str:
    """The stream of the table's own events (seating, takeovers, games begun)."""
    return f"{table_id}{TABLE_STREAM_SUFFIX}"


def chat_stream(table_id: str) -> str:
    """The stream of what is said at a table (its chat)."""
    return f"{table_id}{CHAT_STREAM_SUFFIX}"


def parse_chat_stream(stream_id: str) -> str | None:
    """"abc1-chat" -> "abc1"; None for any other stream."""
    match = _CHAT_STREAM.fullmatch(stream_id)
    return match.group(1) if match else None


def parse_game_stream(stream_id: str) -> tuple[str, int] | None:
    """"abc1-g3" -> ("abc1", 3); None for any stream that is not a table's game."""
    match = _GAME_STREAM.fullmatch(stream_id)
    return (match.group(1), int(match.group(2))) if match else None


def parse_table_stream(stream_id: str) -> str | None:
    """"abc1-table" -> "abc1"; None for any other stream."""
    match = _TABLE_STREAM.fullmatch(stream_id)
    return match.group(1) if match else None


def event_subject(stream_id: str, reader: Audience) -> str:
    """The subject for one audience of a stream: "public", "audit" or "seat:N"."""
    if reader.startswith("seat:"):
        return f"{SUBJECT_ROOT}.{stream_id}.seat.{reader[5:]}"
    return f"{SUBJECT_ROOT}.{stream_id}.{reader}"


def stream_subjects(stream_id: str) -> str:
    """Every audience's subject of one stream (a wildcard)."""
    return f"{SUBJECT_ROOT}.{stream_id}.>"


def spectators_subject(table_id: str) -> str:
    """Where each process says how many watch a table through it (core NATS)."""
    return f"{SPECTATORS_ROOT}.{table_id}"
