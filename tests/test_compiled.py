"""The guard against a compiled rules engine (and expert search) older than its sources."""

from __future__ import annotations

import ast
import hashlib
import json
from pathlib import Path
from typing import Any

from muggins.infra import compiled
from tests.support.source_code import parsed

ROOT = Path(__file__).resolve().parent.parent
#: The one module the trees below were built from.
GAME = ("muggins/rules/game.py",)


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
    assert compiled.stale(_built_tree(tmp_path), GAME) == []


def test_an_edited_source_makes_the_build_stale(tmp_path: Path) -> None:
    rules = _built_tree(tmp_path)
    (rules / "game.py").write_text("x = 2\n")
    assert compiled.stale(rules, GAME) == ["muggins/rules/game.py"]


def test_a_removed_source_makes_the_build_stale(tmp_path: Path) -> None:
    rules = _built_tree(tmp_path)
    (rules / "game.py").unlink()
    assert compiled.stale(rules, GAME) == ["muggins/rules/game.py"]


def test_a_module_listed_since_the_build_makes_it_stale(tmp_path: Path) -> None:
    # A module added to COMPILED_MODULES (the expert's search, say) would run
    # as pure Python beside the older build: the build must be redone.
    rules = _built_tree(tmp_path)
    listed = (*GAME, "muggins/expert/search.py")
    assert compiled.stale(rules, listed) == ["muggins/expert/search.py"]


def test_the_build_reads_the_one_list_of_compiled_modules() -> None:
    # hatch_build.py needs hatchling, which only the build has: its reader
    # of the list is run alone, as written there.
    tree = parsed((ROOT / "hatch_build.py").read_text())
    reader: list[ast.stmt] = [node for node in tree.body
              if (isinstance(node, ast.FunctionDef) and node.name == "compiled_modules")
              or (isinstance(node, ast.Assign) and ast.unparse(node).startswith("MODULES_LIST"))]
    namespace: dict[str, Any] = {"ast": ast, "Path": Path}
    exec(compile(ast.Module(reader, []), "hatch_build.py", "exec"), namespace)
    assert namespace["compiled_modules"](ROOT / "shared") == compiled.COMPILED_MODULES
    assert "muggins/expert/search.py" in compiled.COMPILED_MODULES


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
    assert compiled.search_is_compiled() == compiled.engine_is_compiled()
