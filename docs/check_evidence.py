"""Check a muggins evidence file offline: its hash chains, links, receipts and checkpoint.

    python3 docs/check_evidence.py FILE

The file (``muggins replay export TABLE --evidence``) and the seven checks it
must pass are defined in docs/fairness.md, "The evidence file".  This script
needs nothing but Python 3.11+'s standard library and shares no code with
the service, so that whoever checks a file need not trust the project's own
code: even its Ed25519 verification is written out below, from RFC 8032.

Exit status: 0 when every check holds; 1 when a problem was found (each is
printed on a line of its own, ``PROBLEM: ...``); 2 when the file is not an
evidence file at all (one line says what is wrong).

As a module: ``load(path)`` reads and validates a file (EvidenceFileError
says what is wrong), ``check(document)`` returns the problems found (none:
all good), ``examine(document)`` also what was checked.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

#: The largest file read: a table's full history is a few MiB; more is refused
#: before it is parsed, so a hostile file cannot exhaust the checker's memory.
MAX_FILE_BYTES = 64 * 1024 * 1024

FORMAT = "muggins-evidence"
FORMAT_VERSION = 1
RECEIPT_FORMAT = "muggins-receipt"
CHECKPOINT_FORMAT = "muggins-checkpoint"

#: chain(0) of every stream, and global(0) of the store.
ZERO = "00" * 32

#: The event members whose canonical JSON is digested ("Definition", step 1).
CONTENT_MEMBERS = ("stream_id", "stream_version", "event_type", "payload", "audience", "actor",
                   "correlation_id", "causation_id", "event_id")

_INSTANT = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z")
_HEX = {digits: re.compile(f"[0-9a-f]{{{digits}}}") for digits in (16, 64, 128)}
#: Counts and positions: the store's are 64-bit; the cap keeps arithmetic and indexing sane.
_MAX_COUNT = 2**62


# --- Ed25519 verification (RFC 8032, section 5.1.7; modelled on its section 6) ---------------

_P = 2**255 - 19
#: The order of the base point (L in RFC 8032).
_L = 2**252 + 27742317777372353535851937790883648493
_D = -121665 * pow(121666, -1, _P) % _P
_SQRT_M1 = pow(2, (_P - 1) // 4, _P)

#: A point in extended coordinates (X, Y, Z, T): x = X/Z, y = Y/Z, x*y = T/Z.
Point = tuple[int, int, int, int]

#: The base point B: y = 4/5, x the even root (RFC 8032, section 5.1).
_B_Y = 4 * pow(5, -1, _P) % _P
_B_X = 15112221349535400772501151409588531511454012693041857206046113283949847762202
_B: Point = (_B_X, _B_Y, 1, _B_X * _B_Y % _P)
_NEUTRAL: Point = (0, 1, 1, 0)


def _add(p: Point, q: Point) -> Point:
    """p + q on the curve (the unified formula: it also doubles)."""
    a = (p[1] - p[0]) * (q[1] - q[0]) % _P
    b = (p[1] + p[0]) * (q[1] + q[0]) % _P
    c = 2 * p[3] * q[3] * _D % _P
    d = 2 * p[2] * q[2] % _P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % _P, g * h % _P, f * g % _P, e * h % _P)


def _multiply(scalar: int, point: Point) -> Point:
    """scalar * point, by double-and-add (timing does not matter: nothing here is secret)."""
    result = _NEUTRAL
    while scalar:
        if scalar & 1:
            result = _add(result, point)
        point = _add(point, point)
        scalar >>= 1
    return result


def _same_point(p: Point, q: Point) -> bool:
    # x1/z1 == x2/z2 and y1/z1 == y2/z2, without dividing.
    return (p[0] * q[2] - q[0] * p[2]) % _P == 0 and (p[1] * q[2] - q[1] * p[2]) % _P == 0


def _decode_point(data: bytes) -> Point | None:
    """The point a 32-byte encoding names (RFC 8032, 5.1.3), or None for one
    that names none, or names one non-canonically (y >= p, or -0)."""
    y = int.from_bytes(data, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    if y >= _P:
        return None
    # x^2 = (y^2 - 1) / (d y^2 + 1); a square root mod p by exponent (p+3)/8.
    x2 = (y * y - 1) * pow(_D * y * y + 1, -1, _P) % _P
    if x2 == 0:
        return None if sign else (0, y, 1, 0)
    x = pow(x2, (_P + 3) // 8, _P)
    if (x * x - x2) % _P:
        x = x * _SQRT_M1 % _P
    if (x * x - x2) % _P:
        return None
    if x & 1 != sign:
        x = _P - x
    return (x, y, 1, x * y % _P)


def ed25519_verify(public_key: bytes, signature: bytes, message: bytes) -> bool:
    """Whether ``signature`` (64 bytes) is the Ed25519 signature of ``message``
    by ``public_key`` (32 raw bytes): RFC 8032, section 5.1.7.  Checks
    [S]B = R + [k]A, as OpenSSL does (what the service signs with)."""
    if len(public_key) != 32 or len(signature) != 64:
        return False
    a = _decode_point(public_key)
    r = _decode_point(signature[:32])
    s = int.from_bytes(signature[32:], "little")
    # S >= L would make the signature malleable: refused, as the RFC requires.
    if a is None or r is None or s >= _L:
        return False
    k = int.from_bytes(hashlib.sha512(signature[:32] + public_key + message).digest(),
                       "little") % _L
    return _same_point(_multiply(s, _B), _add(r, _multiply(k, a)))


# --- Reading the file ----------------------------------------------------------------------


class EvidenceFileError(ValueError):
    """Not an evidence file that can be checked; the message says what is wrong."""


def load(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The evidence file at ``path``, read and validated (``validate``)."""
    name = os.fspath(path)
    try:
        with open(path, "rb") as file:
            size = os.fstat(file.fileno()).st_size
            if size > MAX_FILE_BYTES:
                raise EvidenceFileError(f"{name} is {size} bytes: an evidence file is at most "
                                        f"{MAX_FILE_BYTES} bytes")
            # One byte more than allowed: a pipe has no size to ask beforehand.
            data = file.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise EvidenceFileError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise EvidenceFileError(f"{name} is a directory, not an evidence file") from None
    except OSError as error:
        raise EvidenceFileError(f"cannot read {name}: {error.strerror or error}") from None
    if len(data) > MAX_FILE_BYTES:
        raise EvidenceFileError(f"{name} is over {MAX_FILE_BYTES} bytes: an evidence file is "
                                "at most that")
    document = parse(data, name)
    try:
        validate(document)
    except EvidenceFileError as error:
        raise EvidenceFileError(f"{name}: {error}") from None
    return document


def parse(data: bytes, name: str = "the file") -> dict[str, Any]:
    """The JSON object in ``data``, or EvidenceFileError saying why there is none."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise EvidenceFileError(f"{name} is not JSON: byte {error.start} is not UTF-8") from None
    if not text.strip():
        raise EvidenceFileError(f"{name} is empty: it holds no evidence")
    try:
        document = json.loads(text, object_pairs_hook=_object, parse_float=_no_fraction,
                              parse_constant=_no_constant)
    except EvidenceFileError as error:
        raise EvidenceFileError(f"{name} is not an evidence file: {error}") from None
    except json.JSONDecodeError as error:
        where = f"{error.msg}: line {error.lineno} column {error.colno}"
        if _cut_short(error, text):
            raise EvidenceFileError(f"{name} is cut short ({where}): it is not a whole "
                                    "evidence file") from None
        raise EvidenceFileError(f"{name} is not JSON ({where})") from None
    except RecursionError:
        raise EvidenceFileError(f"{name} is not an evidence file: it is nested too deeply "
                                "to read") from None
    except ValueError as error:  # e.g. an integer of more digits than Python converts
        raise EvidenceFileError(f"{name} is not an evidence file: {error}") from None
    if not isinstance(document, dict):
        raise EvidenceFileError(f"{name} is not an evidence file: it holds a JSON "
                                f"{_json_type(document)}, not an object")
    return document


#: What is left after the point of the error when the text stopped inside a
#: token: a literal (nul), a number (1. 1e -) or a string's \u escape (\u00).
_PARTIAL_TOKEN = re.compile(r"n(u(l)?)?|t(r(u)?)?|f(a(l(s)?)?)?|-|\.|[eE][+-]?|u[0-9a-fA-F]{0,3}")


def _cut_short(error: json.JSONDecodeError, text: str) -> bool:
    """Whether ``text`` stopped early (rather than going wrong): the error is
    at its very end, or inside a token that reaches the end."""
    # An unterminated string runs to the end by definition.
    rest = text[error.pos:].rstrip()
    return (error.msg.startswith("Unterminated string") or not rest
            or _PARTIAL_TOKEN.fullmatch(rest) is not None)


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # A member given twice is read differently by different parsers (first or
    # last wins): what the file says would then depend on who reads it.
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise EvidenceFileError(f"an object has the member {_show(key)} twice")
        result[key] = value
    return result


def _no_fraction(text: str) -> Any:
    # Events hold integers only, and a fraction's canonical form is not
    # Python's: such a number cannot be checked, so it is refused.
    raise EvidenceFileError(f"it holds the number {_show(text)}: nothing in an evidence file "
                            "is a fraction or has an exponent")


def _no_constant(text: str) -> Any:
    raise EvidenceFileError(f"it holds {text}, which is not JSON")


# --- Validating its shape ---------------------------------------------------------------------


def validate(document: Any) -> None:
    """EvidenceFileError, naming the member, unless ``document`` has every member
    docs/fairness.md defines, each of its type (hex of its length, lowercase)."""
    if not isinstance(document, dict):
        raise EvidenceFileError(f"it is a JSON {_json_type(document)}, not an object")
    _constant(document, "format", FORMAT, "the file")
    _constant(document, "format_version", FORMAT_VERSION, "the file")
    _text(document, "table", "the file")
    _optional_count(document, "game", "the file")
    _optional_count(document, "hand", "the file")
    _instant(document, "exported_at", "the file")
    events = _list(document, "events", "the file")
    for index, event in enumerate(events):
        where = f"events[{index}]"
        _require_object(event, where)
        _count(event, "position", where)
        _text(event, "stream_id", where)
        _count(event, "stream_version", where)
        _text(event, "event_type", where)
        _object_member(event, "payload", where)
        _text(event, "audience", where)
        _text(event, "actor", where)
        _optional_text(event, "correlation_id", where)
        _optional_text(event, "causation_id", where)
        _text(event, "event_id", where)
        _instant(event, "recorded_at", where)
        for member in ("previous", "chain", "global_chain"):
            _hex(event, member, 64, where)
    links = _object_member(document, "links", "the file")
    _count(links, "first", "links")
    _hex(links, "previous_global", 64, "links")
    for index, value in enumerate(_list(links, "chains", "links")):
        if not (isinstance(value, str) and _HEX[64].fullmatch(value)):
            raise EvidenceFileError(f"links.chains[{index}] must be 64 lowercase hex digits, "
                                    f"not {_show(value)}")
    for index, receipt in enumerate(_list(document, "receipts", "the file")):
        where = f"receipts[{index}]"
        _require_object(receipt, where)
        _constant(receipt, "format", RECEIPT_FORMAT, where)
        _text(receipt, "table", where)
        _count(receipt, "game", where)
        _count(receipt, "hand", where)
        _text(receipt, "stream", where)
        _count(receipt, "version", where)
        _hex(receipt, "chain", 64, where)
        _count(receipt, "position", where)
        _hex(receipt, "global_chain", 64, where)
        _signing_members(receipt, where)
    if _member(document, "checkpoint", "the file") is not None:
        checkpoint = _object_member(document, "checkpoint", "the file")
        _constant(checkpoint, "format", CHECKPOINT_FORMAT, "checkpoint")
        _count(checkpoint, "position", "checkpoint")
        _hex(checkpoint, "global_chain", 64, "checkpoint")
        _signing_members(checkpoint, "checkpoint")
    for index, key in enumerate(_list(document, "keys", "the file")):
        where = f"keys[{index}]"
        _require_object(key, where)
        _hex(key, "key_id", 16, where)
        _hex(key, "public_key", 64, where)
    # JSON's \ud800 escapes make lone surrogates, which no UTF-8 text (so no
    # stored event, no signed document) holds: refused here, not met as a crash.
    try:
        _canonical(document)
    except UnicodeEncodeError as error:
        raise EvidenceFileError(f"a string holds {_show(error.object[error.start:error.end])}, "
                                "a lone surrogate, which no stored text holds") from None
    except RecursionError:
        raise EvidenceFileError("it is nested too deeply to check") from None


def _signing_members(document: dict[str, Any], where: str) -> None:
    _instant(document, "signed_at", where)
    _hex(document, "key_id", 16, where)
    _hex(document, "signature", 128, where)


def _member(document: dict[str, Any], key: str, where: str) -> Any:
    if key not in document:
        raise EvidenceFileError(f"{where} has no member {key!r}")
    return document[key]


def _wrong(where: str, key: str, wanted: str, value: Any) -> EvidenceFileError:
    at = f"{where}.{key}" if where != "the file" else key
    return EvidenceFileError(f"{at} must be {wanted}, not {_show(value)} "
                             f"(a JSON {_json_type(value)})")


def _require_object(value: Any, where: str) -> None:
    if not isinstance(value, dict):
        raise EvidenceFileError(f"{where} must be an object, not a JSON {_json_type(value)}")


def _constant(document: dict[str, Any], key: str, wanted: object, where: str) -> None:
    value = _member(document, key, where)
    if type(value) is not type(wanted) or value != wanted:
        raise _wrong(where, key, f"{wanted!r}" if key != "format_version" else
                     f"{wanted} (this checker reads that version only)", value)


def _text(document: dict[str, Any], key: str, where: str) -> str:
    value = _member(document, key, where)
    if not isinstance(value, str):
        raise _wrong(where, key, "a string", value)
    return value


def _optional_text(document: dict[str, Any], key: str, where: str) -> None:
    value = _member(document, key, where)
    if value is not None and not isinstance(value, str):
        raise _wrong(where, key, "a string or null", value)


def _count(document: dict[str, Any], key: str, where: str) -> int:
    value = _member(document, key, where)
    # type() and not isinstance(): JSON's true is no count, though Python's True is an int.
    if type(value) is not int or not 1 <= value <= _MAX_COUNT:
        raise _wrong(where, key, "an integer from 1 to 2**62", value)
    return value


def _optional_count(document: dict[str, Any], key: str, where: str) -> None:
    if _member(document, key, where) is not None:
        _count(document, key, where)


def _instant(document: dict[str, Any], key: str, where: str) -> None:
    value = _text(document, key, where)
    if not _INSTANT.fullmatch(value):
        raise _wrong(where, key, "a UTC time as YYYY-MM-DDTHH:MM:SS.ffffffZ", value)


def _hex(document: dict[str, Any], key: str, digits: int, where: str) -> None:
    value = _member(document, key, where)
    if not (isinstance(value, str) and _HEX[digits].fullmatch(value)):
        raise _wrong(where, key, f"{digits} lowercase hex digits", value)


def _list(document: dict[str, Any], key: str, where: str) -> list[Any]:
    value = _member(document, key, where)
    if not isinstance(value, list):
        raise _wrong(where, key, "a list", value)
    return value


def _object_member(document: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    value = _member(document, key, where)
    if not isinstance(value, dict):
        raise _wrong(where, key, "an object", value)
    return value


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    return "object" if isinstance(value, dict) else type(value).__name__


_PLAIN = re.compile(r"[A-Za-z0-9_.:-]{1,64}", re.ASCII)


def _show(value: Any) -> str:
    """A value from the file, safe to print: plain names as they are, anything
    else quoted and escaped (a crafted name must not print a line of its own,
    such as a false ``OK:``), and long values cut."""
    if isinstance(value, str) and _PLAIN.fullmatch(value):
        return value
    text = ascii(value)
    return text if len(text) <= 80 else text[:76] + "..."


# --- The checks (docs/fairness.md, "The evidence file": 1 to 7, in order) ----------------------


class Findings(NamedTuple):
    #: One line per group of checks: what was checked.
    checked: list[str]
    #: Each problem found (none: every check holds).
    problems: list[str]
    #: The verdict's line when there is no problem.
    summary: str


def check(document: dict[str, Any]) -> list[str]:
    """The problems found in an evidence file (``load``); none when all is well."""
    return examine(document).problems


def examine(document: dict[str, Any]) -> Findings:
    """Every check of the file, in docs/fairness.md's order; EvidenceFileError
    if it is not an evidence file (``validate``)."""
    validate(document)
    checked: list[str] = []
    problems: list[str] = []
    events: list[dict[str, Any]] = document["events"]
    links: dict[str, Any] = document["links"]
    checkpoint: dict[str, Any] | None = document["checkpoint"]
    first: int = links["first"]
    chains: list[str] = links["chains"]
    last = first + len(chains) - 1

    keys = _check_keys(document["keys"], checked, problems)
    _check_streams(events, document["table"], checked, problems)
    _check_links(events, links, checkpoint, checked, problems)
    globals_ = _check_global(events, links, checked, problems)

    def global_at(position: int) -> str | None:
        # global(first - 1) is the links' previous_global: the chain before them.
        return globals_[position - first + 1] if first - 1 <= position <= last else None

    def chain_at(position: int) -> str | None:
        return chains[position - first] if first <= position <= last else None

    at_version = {(event["stream_id"], event["stream_version"]): event for event in events}
    for receipt in document["receipts"]:
        _check_receipt(receipt, document["table"], keys, global_at, chain_at, at_version,
                       (first, last), checked, problems)
    if not document["receipts"]:
        checked.append("receipts: none in the file")
    _check_complete(document, at_version, checked, problems)
    if checkpoint is None:
        checked.append("checkpoint: none in the file (no signed checkpoint vouches for the "
                       "links: only the receipts do)")
    else:
        _check_checkpoint(checkpoint, keys, global_at, last, checked, problems)

    signers = sorted({receipt["key_id"] for receipt in document["receipts"]}
                     | ({checkpoint["key_id"]} if checkpoint else set()))
    vouched = (f"the checkpoint at position {checkpoint['position']}" if checkpoint
               else "no checkpoint")
    summary = (f"{len(events)} events, {len(document['receipts'])} receipts and {vouched} "
               "hold together")
    if not signers:
        summary += (", but nothing in it is signed: it shows only that it agrees with itself, "
                    "not with the site's record")
    else:
        summary += (f", signed by key {', '.join(signers)}: compare "
                    f"{'it' if len(signers) == 1 else 'them'} with the site's published keys "
                    "(/.well-known/muggins-keys.json, docs/fairness.md), as the file "
                    "brings its own")
    return Findings(checked, problems, summary)


def _check_keys(entries: list[dict[str, Any]], checked: list[str],
                problems: list[str]) -> dict[str, bytes]:
    """Check 1.  The keys whose id is their hash, by id (the only ones a
    signature may name)."""
    keys: dict[str, bytes] = {}
    for entry in entries:
        raw = bytes.fromhex(entry["public_key"])
        actual = hashlib.sha256(raw).hexdigest()[:16]
        if actual == entry["key_id"]:
            keys[actual] = raw
        else:
            problems.append(f"key {entry['key_id']} is not the id of the public key listed with "
                            f"it ({entry['public_key']}), whose id is {actual}: nothing it "
                            "signed can be checked")
    ids = ", ".join(entry["key_id"] for entry in entries) or "none"
    checked.append(f"keys: {len(entries)} listed ({ids}), each id the first 16 hex digits "
                   "of SHA-256 of its key")
    return keys


def _canonical(value: Any) -> bytes:
    """RFC 8785 canonical JSON for what events and signed documents hold."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode("utf-8")


def event_chain(event: dict[str, Any]) -> str:
    """SHA-256(previous || digest || stamp), in hex ("Definition", steps 1 to 5)."""
    digest = hashlib.sha256(_canonical({key: event[key] for key in CONTENT_MEMBERS})).digest()
    stamp = f"{event['position']} {event['recorded_at']}".encode("ascii")
    return hashlib.sha256(bytes.fromhex(event["previous"]) + digest + stamp).hexdigest()


def _name(event: dict[str, Any]) -> str:
    return (f"event {_show(event['stream_id'])} v{event['stream_version']} (position "
            f"{event['position']}, {_show(event['event_type'])})")


def _first_of(found: list[str], what: str) -> Iterable[str]:
    """The first of a run of problems of one kind, and how many more there are."""
    if found:
        more = len(found) - 1
        yield found[0] + (f" (and {more} more {what})" if more else "")


def _check_streams(events: list[dict[str, Any]], table: str, checked: list[str],
                   problems: list[str]) -> None:
    """Check 2: every event gives its chain value, and each stream's events
    follow each other (versions consecutive, each ``previous`` the chain of
    the event before it there).  Also: the table's own streams, which the file
    holds whole, begin at version 1 (a file cut at the front shows)."""
    order: list[str] = []
    before: int | None = None
    for event in events:
        if before is not None and event["position"] <= before:
            order.append(f"{_name(event)} comes after position {before} in the file: the "
                         "events are not in position order")
        before = event["position"]
    problems.extend(_first_of(order, "out of order"))

    streams: dict[str, list[dict[str, Any]]] = {}
    for event in events:
        streams.setdefault(event["stream_id"], []).append(event)
    whole = (f"{table}-table", f"{table}-chat")
    if whole[0] not in streams:
        problems.append(f"the file holds no event of the table stream {_show(whole[0])}, "
                        "which it must hold whole")
    for stream_id in whole:
        low = min((event["stream_version"] for event in streams.get(stream_id, ())), default=1)
        if low != 1:
            missing = "version 1 is" if low == 2 else f"versions 1 to {low - 1} are"
            problems.append(f"the file holds {_show(stream_id)} from v{low}, not whole: "
                            f"{missing} left out")
    spans = []
    for stream_id, stream in streams.items():
        # By version: events out of position order are named once, above.
        stream.sort(key=lambda event: event["stream_version"])
        # (version, problem): the stream's breaks, and its events that were changed.
        links: list[tuple[int, str]] = []
        changed: list[tuple[int, str]] = []
        previous: dict[str, Any] | None = None
        for event in stream:
            version = event["stream_version"]
            if previous is None:
                if version == 1 and event["previous"] != ZERO:
                    links.append((version, f"{_name(event)} is the stream's first, but its "
                                  "previous chain value is not 32 zero bytes"))
            elif version != previous["stream_version"] + 1:
                expected = previous["stream_version"] + 1
                gap = (f"version {expected} is missing" if version == expected + 1 else
                       f"versions {expected} to {version - 1} are missing"
                       if version > expected else "the versions go backwards or repeat")
                links.append((version, f"{_name(event)} follows "
                              f"v{previous['stream_version']} in its stream: {gap}"))
            elif event["previous"] != previous["chain"]:
                links.append((version, f"{_name(event)} does not follow the event before "
                              f"it: its previous chain value is not "
                              f"v{previous['stream_version']}'s chain value (an event was "
                              "removed and the later ones renumbered, or a chain value was "
                              "changed)"))
            if event_chain(event) != event["chain"]:
                changed.append((version, f"{_name(event)} does not give its chain value: a "
                                "stored field of it (its content, position, time or chain "
                                "value) was changed"))
            previous = event
        # The stream's first break and its first changed event, the earlier first.
        found = [(run[0][0], line)
                 for run, what in ((links, "breaks"), (changed, "changed events"))
                 for line in _first_of([text for _, text in run],
                                       f"{what} in {_show(stream_id)}")]
        problems.extend(line for _, line in sorted(found, key=lambda item: item[0]))
        low, high = stream[0]["stream_version"], stream[-1]["stream_version"]
        spans.append(f"{_show(stream_id)} v{low}" + (f"-v{high}" if high != low else ""))
    shown = ", ".join(spans[:8]) + (f", and {len(spans) - 8} more" if len(spans) > 8 else "")
    checked.append(f"stream chains: {len(events)} events in {len(streams)} streams"
                   + (f" ({shown})" if spans else "") + ", each recomputed from its fields")


def _check_links(events: list[dict[str, Any]], links: dict[str, Any],
                 checkpoint: dict[str, Any] | None, checked: list[str],
                 problems: list[str]) -> None:
    """Check 3: every event's chain value is in the links, at its position."""
    first: int = links["first"]
    chains: list[str] = links["chains"]
    last = first + len(chains) - 1
    if first == 1 and links["previous_global"] != ZERO:
        problems.append("links start at position 1, but their previous_global is not 32 zero "
                        "bytes (global(0))")
    if events and first != min(event["position"] for event in events):
        problems.append(f"links start at position {first}, but the first exported event is at "
                        f"position {min(event['position'] for event in events)}: the events "
                        "from the links' first position on are not all in the file")
    if checkpoint is None and events and last != max(event["position"] for event in events):
        problems.append(f"links run to position {last}, but with no checkpoint they must end "
                        f"at the last exported event, at position "
                        f"{max(event['position'] for event in events)}")
    outside: list[str] = []
    different: list[str] = []
    for event in events:
        position = event["position"]
        if not first <= position <= last:
            outside.append(f"{_name(event)} lies outside the links (positions {first} to "
                           f"{last}): the links were cut short, or the event moved")
        elif chains[position - first] != event["chain"]:
            different.append(f"{_name(event)}: its chain value is not the links' value for "
                             f"position {position}")
    problems.extend(_first_of(outside, "outside the links"))
    problems.extend(_first_of(different, "different from the links"))
    exported = len({event["position"] for event in events if first <= event["position"] <= last})
    checked.append(f"links: positions {first} to {last} ({len(chains)} chain values, "
                   f"{len(chains) - exported} of them of events not exported), each exported "
                   "event's chain value at its position")


def _check_global(events: list[dict[str, Any]], links: dict[str, Any], checked: list[str],
                  problems: list[str]) -> list[str]:
    """Check 4.  global(first - 1) to global(last), recomputed from the links."""
    first: int = links["first"]
    value = bytes.fromhex(links["previous_global"])
    globals_ = [value.hex()]
    for chain in links["chains"]:
        value = hashlib.sha256(value + bytes.fromhex(chain)).digest()
        globals_.append(value.hex())
    different = [
        f"{_name(event)}: its global chain value is not global({event['position']}) as "
        "recomputed from the links (its global value, or a link before it, was changed)"
        for event in events
        if first <= event["position"] < first + len(globals_) - 1
        and globals_[event["position"] - first + 1] != event["global_chain"]]
    problems.extend(_first_of(different, "with another global value"))
    checked.append(f"global chain: recomputed from global({first - 1}) (previous_global) to "
                   f"global({first + len(globals_) - 2}), each exported event's global value")
    return globals_


def _signature_problem(document: dict[str, Any], kind: str, keys: dict[str, bytes]) -> str | None:
    """Why ``document`` is a forgery (in those words), or None if its signature holds."""
    key_id = document["key_id"]
    if key_id not in keys:
        return (f"{kind} is a forgery: it names key {key_id}, which is not one of the file's "
                f"keys ({', '.join(sorted(keys)) or 'none'})")
    signed = _canonical({key: value for key, value in document.items() if key != "signature"})
    if not ed25519_verify(keys[key_id], bytes.fromhex(document["signature"]), signed):
        return (f"{kind} is a forgery: its signature is not the site's (key {key_id} did not "
                "sign these fields: one was changed, or somebody else signed it)")
    return None


def _check_receipt(receipt: dict[str, Any], table: str, keys: dict[str, bytes],
                   global_at: Callable[[int], str | None],
                   chain_at: Callable[[int], str | None],
                   at_version: dict[tuple[str, int], dict[str, Any]], span: tuple[int, int],
                   checked: list[str], problems: list[str]) -> None:
    """Check 5, for one receipt."""
    kind = f"the receipt for game {receipt['game']} hand {receipt['hand']}"
    position = receipt["position"]
    forgery = _signature_problem(receipt, kind, keys)
    if forgery:
        problems.append(forgery)
    if receipt["table"] != table:
        problems.append(f"{kind} is of table {_show(receipt['table'])}, not of this file's "
                        f"table {_show(table)}")
    if chain_at(position) is None:
        problems.append(f"{kind} is at position {position}, outside the links (positions "
                        f"{span[0]} to {span[1]}): it cannot be checked against them")
    else:
        if global_at(position) != receipt["global_chain"]:
            problems.append(f"{kind}: the global chain recomputed from the links at position "
                            f"{position} is not the one the receipt holds: the history up to "
                            "it was changed after the site signed it")
        if chain_at(position) != receipt["chain"]:
            problems.append(f"{kind}: the links' chain value at position {position} is not "
                            f"the receipt's (the one of {_show(receipt['stream'])} "
                            f"v{receipt['version']} when the hand ended)")
    event = at_version.get((receipt["stream"], receipt["version"]))
    if event is not None and event["position"] != position:
        problems.append(f"{kind} puts {_show(receipt['stream'])} v{receipt['version']} at "
                        f"position {position}, but the file's is at {event['position']}")
    checked.append(f"receipt for game {receipt['game']} hand {receipt['hand']}: "
                   f"{_show(receipt['stream'])} v{receipt['version']} at position {position}, "
                   f"signed by key {receipt['key_id']} at {receipt['signed_at']}")


def _check_complete(document: dict[str, Any],
                    at_version: dict[tuple[str, int], dict[str, Any]],
                    checked: list[str], problems: list[str]) -> None:
    """Check 7: the file holds what it says it holds.  The table stream is
    exported whole, and each of its HandSealed events is a receipt: every
    seal must be among the receipts (and every receipt a seal), and the hand
    end each seal names must be in the file wherever the file covers that
    game (all games; the game chosen; its hand chosen)."""
    table, game, hand = document["table"], document["game"], document["hand"]
    seals: dict[tuple[int, int], dict[str, Any]] = {}
    for event in document["events"]:
        if event["stream_id"] == f"{table}-table" and event["event_type"] == "HandSealed":
            payload = event["payload"]
            numbers = [payload.get(key) for key in ("game", "hand", "version")]
            # type() and not isinstance(): JSON's true is no count.
            if not all(type(n) is int and n >= 1 for n in numbers):
                problems.append(f"the HandSealed at {_name(event)} does not name a game, a "
                                "hand and a version as counts: it is not a seal")
                continue
            seals[(payload["game"], payload["hand"])] = payload
    receipts = {(r["game"], r["hand"]): r for r in document["receipts"]}
    for key in sorted(set(seals) - set(receipts), key=str):
        problems.append(f"the table stream seals game {key[0]} hand {key[1]}, but the file "
                        "holds no receipt for it (a receipt was left out)")
    for key in sorted(set(receipts) - set(seals), key=str):
        problems.append(f"the receipt for game {key[0]} hand {key[1]} has no seal in the "
                        "table stream (the table stream was cut, or the receipt is not "
                        "of this record)")
    missing = 0
    for (sealed_game, sealed_hand), seal in seals.items():
        if (game is not None and sealed_game != game) or (hand is not None
                                                          and sealed_hand != hand):
            continue
        stream = f"{table}-g{sealed_game}"
        if (stream, seal.get("version")) not in at_version:
            missing += 1
            if missing <= 3:
                problems.append(f"game {sealed_game} hand {sealed_hand} ended at "
                                f"{_show(stream)} v{seal.get('version')}, which the file "
                                "leaves out: its record in the file was cut short")
    checked.append(f"completeness: {len(seals)} seals in the table stream, each with its "
                   "receipt, and the hand ends the file covers all in it")


def _check_checkpoint(checkpoint: dict[str, Any], keys: dict[str, bytes],
                      global_at: Callable[[int], str | None], last: int, checked: list[str],
                      problems: list[str]) -> None:
    """Check 6."""
    position = checkpoint["position"]
    forgery = _signature_problem(checkpoint, "the checkpoint", keys)
    if forgery:
        problems.append(forgery)
    if position != last:
        problems.append(f"the checkpoint is at position {position}, but the links end at "
                        f"position {last}: they were cut short or run on")
    # Where the links reach the checkpoint's position, its value is checked all the same.
    if global_at(position) not in (None, checkpoint["global_chain"]):
        problems.append(f"the checkpoint at position {position}: the global chain recomputed "
                        "from the links is not the one the site signed: the history up to it "
                        "was changed (or the links)")
    checked.append(f"checkpoint: position {position}, signed by key {checkpoint['key_id']} at "
                   f"{checkpoint['signed_at']}, against the global chain's last value")


# --- The command ------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Check a muggins evidence file (docs/fairness.md, \"The evidence file\").",
        epilog="Exit status: 0 all checks hold, 1 problems found, 2 not an evidence file.")
    parser.add_argument("file", help="the evidence file (muggins replay export --evidence)")
    arguments = parser.parse_args(argv)
    try:
        findings = examine(load(arguments.file))
    except EvidenceFileError as error:
        print(f"cannot check: {error}", file=sys.stderr)
        return 2
    for line in findings.checked:
        print(line)
    for problem in findings.problems:
        print(f"PROBLEM: {problem}")
    if findings.problems:
        return 1
    print(f"OK: {findings.summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
