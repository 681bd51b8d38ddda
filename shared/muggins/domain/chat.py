"""What people say at a table: the chat's event and its rules.

Everyone seated and everyone watching reads the same chat: the seeds forbid
secret signals between partners, so there is no private channel.  What is
said is stored as events in the table's chat stream (muggins.domain.streams) and
reaches readers over the bus like every other event.  Pure: the service
(services/muggins/tables/chat.py) appends, limits and delivers.
"""

from __future__ import annotations

import re
import unicodedata

import msgspec

#: The longest message, in characters.
CHAT_MAX = 200
#: The longest name a spectator may give.
NAME_MAX = 24
#: Quick phrases: a key each reader's page words in its own language.
PHRASES = ("hi", "gg", "wp", "nice", "thanks", "oops")


class ChatEvent(msgspec.Struct, frozen=True, gc=False, kw_only=True, tag=True,
                tag_field="type"):
    """Base of a chat's events; the tag is the class name (muggins.domain.codec)."""


class ChatSaid(ChatEvent, frozen=True, kw_only=True):
    """Someone said something at the table."""

    name: str
    #: The speaker's seat; None for a spectator.
    seat: int | None = None
    text: str | None = None
    #: One of PHRASES instead of text.
    phrase: str | None = None


chat_decoder = msgspec.json.Decoder(ChatSaid)


class ChatRefused(ValueError):
    """A message the chat does not take; ``code`` names why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def clean_text(text: str) -> str:
    """The text as it is kept: control and format characters out (no hidden
    marks, no direction overrides), runs of spaces as one, ends trimmed."""
    kept = "".join(ch if unicodedata.category(ch)[0] != "C" else " " for ch in text)
    return " ".join(kept.split())


def chat_said(name: str, seat: int | None, text: str | None, phrase: str | None) -> ChatSaid:
    """The event for one message, or ChatRefused saying what is wrong with it."""
    if (text is None) == (phrase is None):
        raise ChatRefused("chat-empty", "say something: words or one quick phrase")
    if phrase is not None:
        if phrase not in PHRASES:
            raise ChatRefused("chat-phrase", f"unknown phrase; choose from {', '.join(PHRASES)}")
        return ChatSaid(name=name, seat=seat, phrase=phrase)
    assert text is not None
    if len(text) > CHAT_MAX:
        raise ChatRefused("chat-too-long", f"messages are at most {CHAT_MAX} characters")
    cleaned = clean_text(text)
    if not cleaned:
        raise ChatRefused("chat-empty", "say something: words or one quick phrase")
    return ChatSaid(name=name, seat=seat, text=cleaned)


#: Letters that draw nothing (Hangul fillers): dropped from a name's skeleton.
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0")
#: How the page labels a seat ("Ana (Seat 1)", "Ana (Asiento 1)"): a
#: spectator's name may not look like one.
_SEAT_LABEL = re.compile(r"\(\s*(seat|asiento)\b", re.IGNORECASE)


def name_skeleton(name: str) -> str:
    """What a name reads as: compatibility forms folded (fullwidth letters,
    ligatures), case folded, and only its letters and digits kept (no
    spaces, marks, invisible or joining characters)."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    return "".join(ch for ch in folded if unicodedata.category(ch)[0] in "LN"
                   and ch not in _BLANK_LETTERS)


def reads_as(name: str, others: list[str]) -> bool:
    """Whether ``name`` would read as one of ``others``, or as a seat's label."""
    skeleton = name_skeleton(name)
    return (not skeleton or bool(_SEAT_LABEL.search(unicodedata.normalize("NFKC", name)))
            or any(skeleton == name_skeleton(other) for other in others))


def speaker_name(given: str | None, fallback: str) -> str:
    """A spectator's name as shown: what they gave, cleaned and cut to
    NAME_MAX, or ``fallback``."""
    cleaned = clean_text(given or "")[:NAME_MAX]
    return cleaned or fallback
