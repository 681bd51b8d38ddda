"""What people read for a table: its name and its title, decided here only.

A table's id stays what links, event streams and the edge's checks use (12
letters and digits).  People read a name instead:

- "Ana's table" ("Mesa de Ana") once someone has sat down: the first person
  who sat there, for good (a table is known by who opened it, even after
  they leave); a guest who gave no name ("Guest 417", "Invitado 417", in
  the words of the page they sat from) is named in the reader's language,
  as the table page and the lobby name them (common.js, ``personName``;
  the replay, operator and dispute pages still show names as given);
- until then, two words drawn from the id: "Blue Heron table" ("Mesa de la
  Garza azul"), the same for everyone and every page, in the reader's
  language.

Its title is the game it plays: the preset's name as players know it (the
preset it was made from, for a table with changed knobs), "casual" when the
expert gives hints, "custom rules" when other knobs differ.

Every page (the lobby's lists, the table's heading and the browser tab's
title, the replay) shows what these functions say.
"""

from __future__ import annotations

import hashlib
import re

import msgspec

from muggins.rules.describe import Language, preset_title
from muggins.rules.errors import InvalidRuleset
from muggins.rules.presets import PRESETS, preset
from muggins.rules.ruleset import Ruleset

#: Colours that keep one form in Spanish whatever the noun's gender.
COLOURS: tuple[tuple[str, str], ...] = (
    ("Blue", "azul"), ("Green", "verde"), ("Grey", "gris"), ("Pink", "rosa"),
    ("Orange", "naranja"), ("Violet", "violeta"), ("Turquoise", "turquesa"),
    ("Crimson", "carmesí"),
)

#: Things found near a domino table, in English and as Spanish says "of the X".
NOUNS: tuple[tuple[str, str], ...] = (
    ("Oak", "del Roble"), ("Heron", "de la Garza"), ("Fox", "del Zorro"),
    ("Owl", "del Búho"), ("Pine", "del Pino"), ("River", "del Río"), ("Moon", "de la Luna"),
    ("Harbour", "del Puerto"), ("Lighthouse", "del Faro"), ("Mango", "del Mango"),
    ("Palm", "de la Palmera"), ("Parrot", "del Loro"), ("Dolphin", "del Delfín"),
    ("Tortoise", "de la Tortuga"), ("Ceiba", "de la Ceiba"), ("Coral", "del Coral"),
    ("Anchor", "del Ancla"), ("Comet", "del Cometa"), ("Island", "de la Isla"),
    ("Valley", "del Valle"), ("Mountain", "de la Montaña"), ("Breeze", "de la Brisa"),
    ("Lemon", "del Limón"), ("Olive", "del Olivo"), ("Falcon", "del Halcón"),
    ("Wolf", "del Lobo"), ("Bear", "del Oso"), ("Hummingbird", "del Colibrí"),
    ("Flamingo", "del Flamenco"), ("Jaguar", "del Jaguar"), ("Cactus", "del Cactus"),
    ("Bridge", "del Puente"),
)

#: A guest's name in either language: the guest's number is what it says.
#: ASCII digits only, as the page's JavaScript reads them (common.js, personName).
GUEST_NAME = re.compile(r"(?:Guest|Invitado) ([0-9]{1,6})")
GUEST_WORDS = {"en": "Guest {n}", "es": "Invitado {n}"}

CASUAL = {"en": "casual", "es": "amistosa"}
CUSTOM = {"en": "custom rules", "es": "reglas propias"}


def person_name(name: str, language: Language = "en") -> str:
    """A person's name as the reader reads it: a guest's in the reader's
    language ("Invitado 417"), any other as typed."""
    guest = GUEST_NAME.fullmatch(name)
    return GUEST_WORDS[language].format(n=int(guest[1])) if guest else name


def table_name(table_id: str, host: str | None, language: Language = "en") -> str:
    """The table's name: its first player's ("Ana's table"), else words from its id."""
    if host:
        host = person_name(host, language)
        return f"Mesa de {host}" if language == "es" else f"{host}'s table"
    digest = hashlib.sha256(table_id.encode()).digest()
    colour = COLOURS[digest[0] % len(COLOURS)]
    noun = NOUNS[digest[1] % len(NOUNS)]
    if language == "es":
        return f"Mesa {noun[1]} {colour[1]}"
    return f"{colour[0]} {noun[0]} table"


def table_title(ruleset: Ruleset, made_from: str | None, language: Language = "en") -> str:
    """The game a table plays, in words: "All Fives", "All Fives · casual".

    ``made_from`` is the preset the table was created from (None for tables
    older than the record of it: their ruleset's own preset is all there is).
    """
    if ruleset.preset != "custom" or made_from not in PRESETS:
        return preset_title(ruleset.preset, language)
    parts = [preset_title(made_from, language)]
    if ruleset.hints:
        parts.append(CASUAL[language])
    if _other_knobs_changed(ruleset, made_from):
        parts.append(CUSTOM[language])
    return " · ".join(parts)


def _other_knobs_changed(ruleset: Ruleset, made_from: str) -> bool:
    """Whether ``ruleset`` differs from its preset in more than the hints."""
    try:
        plain = preset(made_from, ruleset.seats, ruleset.partnerships)
    except InvalidRuleset:
        return True
    return msgspec.structs.replace(ruleset, preset=made_from, hints=plain.hints) != plain
