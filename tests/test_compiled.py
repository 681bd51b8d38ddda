"""The guard against a compiled rules engine older than its sources."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from muggins.infra import compiled


def _built_tree(tmp_path: Path) -> Path:
    """A source tree with one module and the stamp an in-place build leaves."""
    rules = tmp_path / "muggins" / "rules"
    rules.mkdir(parents=True)
    source = rules / "game.py"
    source.write_text("x = 1\n")
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    (rules / compiled.STAMP_NAME).write_text(json.dumps({"muggins/rules/game.py": digest}))
    return rules


def test_a_build_matching_its_sources_is_not_stale(tmp_path: Path) -> None:
    assert compiled.stale(_built_tree(tmp_path)) == []


def test_an_edited_source_makes_the_build_stale(tmp_path: Path) -> None:
    rules = _built_tree(tmp_path)
    (rules / "game.py").write_text("x = 2\n")
    assert compiled.stale(rules) == ["muggins/rules/game.py"]


def test_a_removed_source_makes_the_build_stale(tmp_path: Path) -> None:
    rules = _built_tree(tmp_path)
    (rules / "game.py").unlink()
    assert compiled.stale(rules) == ["muggins/rules/game.py"]


def test_no_stamp_means_nothing_built_in_place(tmp_path: Path) -> None:
    assert compiled.stale(tmp_path) == []


def test_extensions_with_no_record_of_their_sources_are_stale(tmp_path: Path) -> None:
    # What a build that failed half-way, or one from an older hook, leaves.
    (tmp_path / "game.cpython-311-x86_64-linux-gnu.so").write_bytes(b"")
    assert compiled.stale(tmp_path) == ["game.cpython-311-x86_64-linux-gnu.so"]


def test_the_installed_engine_is_current() -> None:
    # The test session itself must not be running on a stale build.
    assert compiled.stale() == []
    assert isinstance(compiled.engine_is_compiled(), bool)
