"""Checking a table whole: every stream of it, and what vouches for each.

Its table stream, its chat and every game, each stream's hash chain, the whole
store's chain around the table's events, and the seals by which the table
stream vouches for its games (docs/fairness.md, "The streams vouch for each
other"). Pure: it reads what was loaded
(muggins.replay.source.load_table_record) and says what it found, naming the
first bad event of each stream."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from muggins.domain.streams import chat_stream, game_stream, table_stream
from muggins.domain.table_events import GameBegun, HandSealed, TableClosed, table_event_decoder
from muggins.eventstore.records import GENESIS_CHAIN, RecordedEvent, global_link, recomputed_chain
from muggins.evidence.documents import Forgery, check_signature
from muggins.evidence.receipts import receipt_of
from muggins.evidence.signing import PublicKeys
from muggins.replay.source import TableGame, TableRecord
from muggins.replay.verify import GameVerdict, Problem, verify_game
from muggins.rules.events import GameEnded, HandEnded


class StreamVerdict(msgspec.Struct, frozen=True):
    label: str
    stream: str
    events: int
    problems: tuple[Problem, ...]


class TableVerdict(msgspec.Struct, frozen=True):
    table: str
    #: The table stream and the chat.
    streams: tuple[StreamVerdict, ...]
    games: tuple[tuple[TableGame, GameVerdict], ...]
    #: The whole store's chain around the table's events.
    store_problems: tuple[Problem, ...]
    #: The seals against the games they vouch for.
    seal_problems: tuple[Problem, ...]
    #: How many hands the table stream seals.
    seals: int = 0

    @property
    def ok(self) -> bool:
        return (all(not s.problems for s in self.streams) and all(v.ok for _, v in self.games)
                and not self.store_problems and not self.seal_problems)


def check_raw_stream(recorded: Sequence[RecordedEvent], name_of: str) -> list[Problem]:
    """A stream read from the store: versions 1, 2, 3 ... and every event's
    chain value recomputed from its stored fields; the first bad event named."""
    previous = GENESIS_CHAIN
    expected = 1
    for entry in recorded:
        if entry.stream_version != expected:
            gap = ("is missing" if entry.stream_version > expected
                   else "is repeated or out of order")
            return [Problem(f"{name_of} version {expected} {gap}: the stream goes on with "
                            f"version {entry.stream_version} ({entry.event_type})")]
        if recomputed_chain(entry, previous) != entry.chain:
            return [Problem(
                f"{entry.event_type} at {name_of} version {entry.stream_version} is the first "
                "changed event: its stored fields do not give the hash chain value it was "
                "appended with (a field was edited, or an event before it removed)")]
        previous = entry.chain or GENESIS_CHAIN
        expected += 1
    return []


def check_global_links(record: TableRecord) -> list[Problem]:
    """Each of the table's events must follow, in the whole store's chain,
    the event stored at the position before it (which must exist)."""
    problems: list[Problem] = []
    for entry in sorted(record.every_event, key=lambda e: e.position):
        before = GENESIS_CHAIN if entry.position == 1 else \
            record.globals_before.get(entry.position - 1)
        where = f"{entry.stream_id} version {entry.stream_version} (position {entry.position})"
        if before is None:
            problems.append(Problem(
                f"position {entry.position - 1}, just before {where}, holds no event: an "
                "event was deleted from the store"))
        elif entry.chain is None or entry.global_chain != global_link(before, entry.chain):
            problems.append(Problem(
                f"{entry.event_type} at {where} does not follow the store's chain: it or the "
                "event before it in the store was changed, or an event between them removed"))
        if len(problems) >= 3:  # the first few say where; the rest follow from them
            break
    return problems


def check_seals(record: TableRecord, keys: PublicKeys | None) -> list[Problem]:
    """Every seal in the table stream against the game it names; and a game
    the table moved on from must end (GameEnded) where its last seal says."""
    problems: list[Problem] = []
    games = {game.stream: game for game in record.games}
    by_position = {(e.stream_id, e.stream_version): e for e in record.every_event}
    last_seal: dict[int, HandSealed] = {}
    moved_on: set[int] = set()
    for entry in record.table_events:
        try:
            event = table_event_decoder.decode(entry.payload)
        except msgspec.DecodeError:  # the stream's own check names it
            continue
        if isinstance(event, GameBegun) and event.game > 1:
            moved_on.add(event.game - 1)
        if isinstance(event, TableClosed):
            moved_on.update(game.number for game in record.games)
        if not isinstance(event, HandSealed):
            continue
        last_seal[event.game] = event
        stream = game_stream(record.table, event.game)
        label = f"the seal of game {event.game} hand {event.hand} (table stream version " \
                f"{entry.stream_version})"
        if keys is not None:
            try:
                check_signature(receipt_of(record.table, event), keys)
            except Forgery as forgery:
                problems.append(Problem(f"{label}: {forgery}"))
        if stream not in games:
            problems.append(Problem(f"{label} names {stream}, which is not in the store"))
            continue
        sealed = by_position.get((stream, event.version))
        if sealed is None:
            problems.append(Problem(
                f"{label}: {stream} has no version {event.version} any more (the game was "
                f"cut short: it ends at version {len(games[stream].events)})"))
            continue
        if sealed.chain is None or sealed.chain.hex() != event.chain:
            problems.append(Problem(
                f"{label}: {stream} version {event.version} has another chain value than "
                "the one sealed (the stream was rewritten or swapped)"))
        elif sealed.position != event.position or \
                (sealed.global_chain or b"").hex() != event.global_chain:
            problems.append(Problem(
                f"{label}: {stream} version {event.version} is not where the seal put it in "
                "the store (its position or the store's chain value there changed)"))
        elif sealed.event_type not in (HandEnded.__name__, GameEnded.__name__):
            problems.append(Problem(f"{label}: {stream} version {event.version} is a "
                                    f"{sealed.event_type}, not the end of a hand"))
    for game in record.games:
        if game.number not in moved_on or game.number not in last_seal:
            continue
        seal = last_seal[game.number]
        ended = [e for e in game.events if isinstance(e.event, GameEnded)]
        if not ended and not seal.game_over:
            continue  # ended without a winner (abandoned): its last seal is its end
        if not ended or not seal.game_over or game.events[-1].version != seal.version:
            problems.append(Problem(
                f"game {game.number}: the table moved on from it, sealed to version "
                f"{seal.version}{' (its end)' if seal.game_over else ''}, but its stream "
                f"ends at version {game.events[-1].version}"
                f"{'' if ended else ' without GameEnded'}: its record was cut or extended"))
    return problems


def verify_table(record: TableRecord, keys: PublicKeys | None) -> TableVerdict:
    """Check everything stored of a table; ``keys`` (the site's public keys)
    check the seals' signatures (None: not checked)."""
    streams = (
        StreamVerdict("table stream", table_stream(record.table), len(record.table_events),
                      tuple(check_raw_stream(record.table_events, "the table stream"))),
        StreamVerdict("chat", chat_stream(record.table), len(record.chat_events),
                      tuple(check_raw_stream(record.chat_events, "the chat"))),
    )
    games = tuple((game, verify_game(game.events)) for game in record.games)
    seals = sum(entry.event_type == HandSealed.__name__ for entry in record.table_events)
    return TableVerdict(record.table, streams, games, tuple(check_global_links(record)),
                        tuple(check_seals(record, keys)), seals)
