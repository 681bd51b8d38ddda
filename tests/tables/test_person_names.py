"""A person's name as each reader reads it (muggins.tables.names.person_name):
a guest's in the reader's language, any other as typed."""

from __future__ import annotations

import pytest

from muggins.tables.names import person_name, table_name


@pytest.mark.parametrize(("given", "en", "es"), [
    ("Guest 417", "Guest 417", "Invitado 417"),
    ("Invitado 417", "Guest 417", "Invitado 417"),
    ("Ana", "Ana", "Ana"),
    ("Guest 417 and friends", "Guest 417 and friends", "Guest 417 and friends"),
    # Other scripts' digits are not a guest's number: the page's JavaScript
    # (common.js, personName) reads ASCII digits only, and so does this.
    ("Guest ٤١٧", "Guest ٤١٧", "Guest ٤١٧"),
])
def test_a_guests_name_reads_in_the_readers_language(given: str, en: str, es: str) -> None:
    assert person_name(given, "en") == en
    assert person_name(given, "es") == es


def test_a_guests_table_is_named_in_the_readers_language() -> None:
    assert table_name("Abcd1234", "Guest 9", "es") == "Mesa de Invitado 9"
    assert table_name("Abcd1234", "Invitado 9", "en") == "Guest 9's table"
