"""Checking a game's record: the seed against its commitment, the deal and
every draw against the seed, every move against the rules, every score and
bonus against the rules, and the stream itself (nothing missing, repeated or
out of order, and every stored field as it was appended: the hash chain).
Pure: it reads events and says what it found."""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence

import msgspec

from muggins.bots.playbyplay import summary
from muggins.eventstore.records import chain_link, event_digest
from muggins.replay.record import (
    RECORD_FORMAT,
    RECORD_FORMAT_VERSION,
    HandRecord,
    HandSlice,
    RecordError,
    StoredEvent,
    decisions_of,
    hands_of,
    ruleset_of,
)
from muggins.rules.commands import StartHand
from muggins.rules.errors import IllegalMove
from muggins.rules.events import Event, GameStarted, HandEnded, HandStarted, TilePlayed
from muggins.rules.game import fold, play, start_game
from muggins.rules.shuffle import SHUFFLE_VERSION
from muggins.rules.state import GameState


class Problem(msgspec.Struct, frozen=True):
    """One thing wrong, at the first event it shows in."""

    message: str
    hand: int | None = None
    version: int | None = None

    def __str__(self) -> str:
        where = []
        if self.hand is not None:
            where.append(f"hand {self.hand}")
        if self.version is not None:
            where.append(f"event {self.version}")
        return (", ".join(where) + ": " if where else "") + self.message


class HandVerdict(msgspec.Struct, frozen=True):
    hand: int
    #: "fair": checked and right; "unfinished": its seed is not revealed yet.
    status: str
    problems: tuple[Problem, ...] = ()
    #: The hand rebuilt from the seed and the decisions (as far as it could be).
    rebuilt: tuple[Event, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems


class GameVerdict(msgspec.Struct, frozen=True):
    stream_problems: tuple[Problem, ...]
    hands: tuple[HandVerdict, ...]

    @property
    def ok(self) -> bool:
        return not self.stream_problems and all(h.ok for h in self.hands)

    @property
    def problems(self) -> list[Problem]:
        return [*self.stream_problems, *(p for h in self.hands for p in h.problems)]


def check_stream_order(stored: Sequence[StoredEvent]) -> list[Problem]:
    """Versions must run 1, 2, 3 ... with nothing missing, repeated or out of order."""
    problems = []
    expected = 1
    for entry in stored:
        if entry.version == expected:
            expected += 1
            continue
        if entry.version < expected:
            kind = "repeated" if entry.version == expected - 1 else "out of order"
            problems.append(Problem(f"version {entry.version} is {kind}", version=entry.version))
        else:
            missing = (
                f"version {expected} is missing"
                if entry.version == expected + 1
                else f"versions {expected} to {entry.version - 1} are missing"
            )
            problems.append(Problem(missing, version=entry.version))
            expected = entry.version + 1
    return problems


def check_chain(entries: Sequence[StoredEvent], hand: int | None = None) -> list[Problem]:
    """Recompute the stream's hash chain from the stored fields (docs/fairness.md,
    "Tamper evidence: the hash chain") and name the first event that does not
    give the chain value it was appended with.  Entries with no stored fields
    (a record from before the chain) are not checked."""
    if all(entry.stored is None for entry in entries):
        return []

    def changed(entry: StoredEvent, why: str) -> list[Problem]:
        name = type(entry.event).__name__
        return [Problem(f"{name} (“{summary(entry.event)}”) is the first changed event: {why}",
                        hand=hand, version=entry.version)]

    previous: str | None = None
    for entry in entries:
        stored = entry.stored
        if stored is None:
            return changed(entry, "it carries no hash chain value, though the events around "
                                  "it do")
        if previous is not None and stored.previous != previous:
            return changed(entry, "the chain value it follows is not the one of the event "
                                  "before it (an event between them was removed, or one of "
                                  "them changed)")
        try:
            digest = event_digest(
                stream_id=stored.stream_id,
                stream_version=entry.version,
                event_type=stored.event_type,
                payload=stored.payload if stored.payload is not None
                else msgspec.json.encode(entry.event),
                audience=stored.audience,
                actor=stored.actor,
                correlation_id=stored.correlation_id,
                causation_id=stored.causation_id,
                event_id=stored.event_id,
            )
            link = chain_link(
                bytes.fromhex(stored.previous), digest, stored.position, stored.recorded_at
            ).hex()
        except (ValueError, msgspec.DecodeError):  # not hex, not JSON: changed all the same
            link = None
        if link != stored.chain:
            return changed(entry, "its stored fields do not give the hash chain value it was "
                                  "appended with (its payload, type, audience, actor, ids, "
                                  "version, position or commit time was edited, or its chain "
                                  "value, or an event before it was removed)")
        previous = stored.chain
    return []


def _difference(stored: Event, rebuilt: Event) -> str:
    """Why a stored event is not the one the seed and rules give, in words."""
    if type(stored) is not type(rebuilt):
        return f"the record has “{summary(stored)}”, but the rules give “{summary(rebuilt)}” here"
    name = type(stored).__name__
    source = {
        "TilesDealt": "the deal the seed gives",
        "BoneyardStacked": "the boneyard the seed gives",
        "TileDrawn": "the draw the seed gives",
        "PointsScored": "the score the rules give",
        "HandStarted": "what the rules and the seed give",
    }.get(name, "what the rules give")
    fields = [
        field
        for field in stored.__struct_fields__
        if getattr(stored, field) != getattr(rebuilt, field)
    ]
    details = "; ".join(
        f"{field} is {_text(getattr(stored, field))}, not {_text(getattr(rebuilt, field))}"
        for field in fields
    )
    return f"“{summary(stored)}” differs from {source}: {details}"


def _text(value: object) -> str:
    if isinstance(value, tuple) and value and all(isinstance(v, tuple) for v in value):
        return " ".join(f"{t[1]}-{t[0]}" for t in value)
    if isinstance(value, tuple) and len(value) == 2 and all(isinstance(v, int) for v in value):
        return f"{value[1]}-{value[0]}"
    return str(value)


def _as_recorded(events: Sequence[Event], before: GameState) -> GameState | None:
    """The state after the events as recorded, or None if they do not even fold."""
    try:
        return fold(events, before)
    except (ValueError, IndexError, KeyError, TypeError, AssertionError):
        return None


def verify_hand(
    before: GameState, entries: Sequence[StoredEvent], number: int
) -> tuple[HandVerdict, GameState | None]:
    """Rebuild one hand from its seed and decisions and compare it with the record.

    Returns the verdict and the state after the hand as rebuilt (or, when it
    could not be rebuilt, as the record folds, so later hands can still be
    checked on their own; None when not even that works).
    """
    events = [entry.event for entry in entries]
    versions = [entry.version for entry in entries]
    started = events[0]
    ended = next((e for e in events if isinstance(e, HandEnded)), None)
    if not isinstance(started, HandStarted):
        raise RecordError(f"hand {number} does not start with HandStarted")
    if ended is None:
        return HandVerdict(number, "unfinished"), _as_recorded(events, before)

    def failed(message: str, index: int | None) -> tuple[HandVerdict, GameState | None]:
        version = versions[index] if index is not None else None
        problem = Problem(message, hand=number, version=version)
        return HandVerdict(number, "unfair", (problem,), tuple(rebuilt)), _as_recorded(
            events, before
        )

    rebuilt: list[Event] = []
    if started.shuffle_version != SHUFFLE_VERSION:
        return failed(
            f"the hand was dealt with shuffle algorithm version {started.shuffle_version}; "
            f"this muggins checks version {SHUFFLE_VERSION} only",
            0,
        )
    try:
        seed = bytes.fromhex(ended.seed)
    except ValueError:
        return failed("the revealed seed is not hexadecimal", events.index(ended))
    if hashlib.sha256(seed).hexdigest() != started.commitment:
        digest = hashlib.sha256(seed).hexdigest()
        return failed(
            f"the revealed seed does not match the commitment published when the hand "
            f"started (event {versions[0]}): sha256(seed) is {digest[:16]}…, "
            f"the commitment {started.commitment[:16]}…",
            events.index(ended),
        )
    decisions = decisions_of(events)
    decision_versions = [
        versions[i] for i, e in enumerate(events)
        if isinstance(e, TilePlayed) or (getattr(e, "reason", None) == "muggins")
    ]
    state = before
    commands = [StartHand(seed=ended.seed), *decisions]
    for step, command in enumerate(commands):
        try:
            state, produced = play(state, command)
        except IllegalMove as error:
            version = decision_versions[step - 1] if step else versions[0]
            index = versions.index(version)
            # An earlier event that already differs is the first bad one.
            mismatch = _first_mismatch(events, rebuilt)
            if mismatch is not None and mismatch < index:
                return failed(_mismatch_message(events, rebuilt, mismatch), mismatch)
            return failed(f"“{summary(events[index])}” is not a legal move: {error}", index)
        start = len(rebuilt)
        rebuilt += produced
        for offset in range(start, len(rebuilt)):
            if offset >= len(events) or events[offset] != rebuilt[offset]:
                where = min(offset, len(events) - 1)
                return failed(_mismatch_message(events, rebuilt, offset), where)
    if len(events) != len(rebuilt):
        return failed(_mismatch_message(events, rebuilt, len(rebuilt)), len(rebuilt))
    return HandVerdict(number, "fair", (), tuple(rebuilt)), state


def _first_mismatch(events: Sequence[Event], rebuilt: Sequence[Event]) -> int | None:
    for index, (stored, made) in enumerate(zip(events, rebuilt, strict=False)):
        if stored != made:
            return index
    return None


def _mismatch_message(events: Sequence[Event], rebuilt: Sequence[Event], index: int) -> str:
    if index >= len(events):
        return f"the record ends here, but the rules go on with “{summary(rebuilt[index])}”"
    if index >= len(rebuilt):
        return f"the record goes on with “{summary(events[index])}”, which the rules do not give"
    return _difference(events[index], rebuilt[index])


def game_start_of(stored: Sequence[StoredEvent]) -> tuple[GameState, list[Event]]:
    """The game's start as the rules give it, with the ruleset and players recorded."""
    first = stored[0].event
    players = first.players if isinstance(first, GameStarted) else ()
    return start_game(ruleset_of(stored), players)


def verify_game(stored: Sequence[StoredEvent], only_hand: int | None = None) -> GameVerdict:
    """Check a whole game's stream, or one hand of it (every hand is rebuilt in
    order, since each hand starts from the one before)."""
    stream_problems = (*check_stream_order(stored), *check_chain(stored))
    state, opening = game_start_of(stored)
    if stored[0].event != opening[0]:
        stream_problems += (Problem("GameStarted is malformed", version=stored[0].version),)
    verdicts = []
    current: GameState | None = state
    for part in hands_of(stored):
        if current is None:
            verdict = HandVerdict(
                part.hand,
                "unchecked",
                (Problem("not checked: an earlier hand's record does not hold together",
                         hand=part.hand),),
            )
        else:
            verdict, current = verify_hand(current, stored[part.start : part.stop], part.hand)
        if only_hand is None or part.hand == only_hand:
            verdicts.append(verdict)
    if only_hand is not None and not verdicts:
        raise RecordError(f"the game has no hand {only_hand}")
    return GameVerdict(stream_problems, tuple(verdicts))


def slice_of(stored: Sequence[StoredEvent], hand: int) -> HandSlice:
    for part in hands_of(stored):
        if part.hand == hand:
            return part
    raise RecordError(f"the game has no hand {hand}")


def verify_record(record: HandRecord) -> HandVerdict:
    """Check a hand record file on its own."""
    if record.format != RECORD_FORMAT:
        raise RecordError(f"not a muggins hand record (format {record.format!r})")
    if record.format_version != RECORD_FORMAT_VERSION:
        raise RecordError(
            f"the record is format version {record.format_version}; this muggins reads "
            f"version {RECORD_FORMAT_VERSION}"
        )
    if record.shuffle_version != SHUFFLE_VERSION:
        raise RecordError(
            f"the hand was dealt with shuffle algorithm version {record.shuffle_version}; "
            f"this muggins checks version {SHUFFLE_VERSION} only"
        )
    if not record.events:
        raise RecordError("the record holds no events")
    problems = list(check_stream_order_within(record.events))
    problems += check_chain(record.events, record.hand)
    streams = {entry.stored.stream_id for entry in record.events if entry.stored}
    if streams - {record.table}:
        problems.append(Problem(
            f"the record names {record.table!r}, but its events were stored in "
            + ", ".join(repr(stream) for stream in sorted(streams)),
            hand=record.hand,
        ))
    verdict, _ = verify_hand(
        record.before.game_state(record.ruleset), record.events, record.hand
    )
    events = [entry.event for entry in record.events]
    if decisions_of(events) != record.decisions:
        problems.append(Problem("the decisions listed differ from the plays in the events",
                                hand=record.hand))
    started = events[0]
    if isinstance(started, HandStarted) and started.commitment != record.commitment:
        problems.append(Problem("the commitment differs from the one in HandStarted",
                                hand=record.hand))
    ended = next((e for e in events if isinstance(e, HandEnded)), None)
    if ended is not None and ended.seed != record.seed:
        problems.append(Problem("the seed differs from the one HandEnded revealed",
                                hand=record.hand))
    if problems:
        # The first bad event first; then what is wrong with the file around it.
        ordered = sorted(
            (*verdict.problems, *problems),
            key=lambda p: p.version if p.version is not None else 1 << 62,
        )
        return HandVerdict(verdict.hand, "unfair", tuple(ordered), verdict.rebuilt)
    return verdict


def check_stream_order_within(entries: Sequence[StoredEvent]) -> list[Problem]:
    """Versions of a slice must be consecutive from its first."""
    problems = []
    for previous, entry in itertools.pairwise(entries):
        if entry.version != previous.version + 1:
            problems.append(
                Problem(
                    f"event {entry.version} follows event {previous.version}: "
                    + ("something is missing" if entry.version > previous.version + 1
                       else "repeated or out of order"),
                    version=entry.version,
                )
            )
    return problems


def rebuilt_hands(
    stored: Sequence[StoredEvent], only_hand: int | None = None
) -> list[tuple[GameState, HandVerdict]]:
    """Each hand rebuilt, with the state it started from (for telling it)."""
    state, _ = game_start_of(stored)
    result = []
    current: GameState | None = state
    for part in hands_of(stored):
        if current is None:
            break
        before = current
        verdict, current = verify_hand(current, stored[part.start : part.stop], part.hand)
        if only_hand is None or part.hand == only_hand:
            result.append((before, verdict))
    if only_hand is not None and not result:
        raise RecordError(f"the game has no hand {only_hand}")
    return result
