"""The table page's modules checked against the server's protocol.

``static/protocol-types.js`` holds JSDoc types generated from the JSON
schema of the server's messages (``muggins.tables.page_types``); the
page's modules say ``// @ts-check`` and TypeScript's checker (Debian's
node-typescript, installed by deploy/dev.py like nodejs: a check, not a
build step) reads them.  A protocol change makes the committed file stale
(the first test), and once it is regenerated the checker fails wherever
the page still reads the old shape (the second; the third shows it does)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from muggins.tables.page_types import TARGET, generate

ROOT = Path(__file__).resolve().parents[2]
CLIENT = Path(__file__).resolve().parent
STATIC = TARGET.parent


def tsc() -> str:
    found = shutil.which("tsc") or ("/usr/bin/tsc" if Path("/usr/bin/tsc").exists() else None)
    if found is None:
        pytest.fail("tsc not found: the table page's type check needs TypeScript's checker "
                    "(apt-get install node-typescript; deploy/dev.py test installs it as root "
                    "or with sudo)")
    return found


def check(config: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([tsc(), "-p", str(config)], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def test_the_committed_types_are_the_protocol_as_it_is_now() -> None:
    assert TARGET.read_text(encoding="utf-8") == generate(), (
        "static/protocol-types.js is out of date: run python -m muggins.tables.page_types "
        "and fix what the type check then finds in the page")


@pytest.mark.parametrize("config", ["tsconfig.json", "tsconfig.strict.json"])
def test_the_table_page_type_checks_against_the_protocol(config: str) -> None:
    result = check(CLIENT / config)
    assert result.returncode == 0, f"tsc -p {config}:\n{result.stdout}\n{result.stderr}"


def test_a_protocol_change_the_page_misses_fails_the_check(tmp_path: Path) -> None:
    """A field renamed on the server (the view's seconds left): the reducer
    still reads the old name, and the checker says where."""
    copy = tmp_path / "static"
    shutil.copytree(STATIC, copy)
    types = copy / "protocol-types.js"
    changed = generate().replace("@property {number | null} [seconds_left]",
                                 "@property {number | null} [seconds_remaining]")
    assert changed != generate()
    types.write_text(changed, encoding="utf-8")
    config = tmp_path / "tsconfig.json"
    config.write_text((CLIENT / "tsconfig.json").read_text().replace(
        "../../services/muggins/client/static/", f"{copy}/"))
    result = check(config)
    assert result.returncode != 0
    assert "table-state.js" in result.stdout and "seconds_left" in result.stdout, result.stdout
