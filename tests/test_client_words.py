"""Every word of the web client exists in both languages (i18n.js), with
the same placeholders, so that no Spanish page shows an English line."""

from __future__ import annotations

import re
from pathlib import Path

WORDS = (Path(__file__).resolve().parents[1] / "services" / "muggins" / "client" / "static"
         / "i18n.js")
ENTRY = re.compile(r'"([a-zA-Z0-9_.]+)":\s*"((?:[^"\\]|\\.)*)"')


def blocks() -> dict[str, dict[str, str]]:
    text = WORDS.read_text()
    english = text[text.index("  en: {"):text.index("  es: {")]
    spanish = text[text.index("  es: {"):text.index("export const LANGUAGES")]
    found = {}
    for name, block in (("en", english), ("es", spanish)):
        keys = ENTRY.findall(block)
        counted: dict[str, int] = {}
        for key, _ in keys:
            counted[key] = counted.get(key, 0) + 1
        assert not [k for k, n in counted.items() if n > 1], f"keys twice in {name}"
        found[name] = dict(keys)
    return found


def test_both_languages_have_every_word_with_the_same_placeholders() -> None:
    words = blocks()
    assert words["en"].keys() == words["es"].keys(), (
        sorted(words["en"].keys() ^ words["es"].keys()))
    for key, english in words["en"].items():
        spanish = words["es"][key]
        assert set(re.findall(r"\{(\w+)\}", english)) == set(re.findall(r"\{(\w+)\}", spanish)), key
