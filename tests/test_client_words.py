"""Every word of the web client exists in both languages (i18n.js), with
the same placeholders, so that no Spanish page shows an English line."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
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


def test_the_page_reads_a_guests_name_as_the_server_does() -> None:
    """A guest's name has one owner, the server (muggins.tables.names); the
    page's copy of its pattern (common.js, which cannot import Python) and
    its words for it (i18n.js) must agree with it, name by name."""
    from muggins.tables.names import GUEST_NAME, GUEST_WORDS

    words = blocks()
    for language, pattern in GUEST_WORDS.items():
        assert words[language]["lobby.guestName"] == pattern, language
    common = (WORDS.parent / "common.js").read_text()
    literal = re.search(r"const GUEST_NAME = (/.+/);", common)
    assert literal is not None, "common.js has no GUEST_NAME"
    names = ["Guest 417", "Invitado 417", "Guest 1", "Invitado 123456", "Guest 1234567",
             "guest 417", "Guest  417", "Guest 417 ", " Guest 417", "Guest 417\n", "Guest ٤١٧",
             "Guest", "Guest x", "Invitada 4", "Ana", "Guest 0", "Invitado 007"]
    script = (f"const pattern = {literal[1]};\n"
              f"const names = {json.dumps(names)};\n"
              "console.log(JSON.stringify(names.map((n) => pattern.test(n))));")
    node = shutil.which("node")
    assert node is not None, "node (Debian's nodejs) is needed for the web client's checks"
    page = json.loads(subprocess.run([node, "-e", script], capture_output=True, text=True,
                                     check=True).stdout)
    server = [GUEST_NAME.fullmatch(name) is not None for name in names]
    assert page == server, list(zip(names, page, server, strict=True))
