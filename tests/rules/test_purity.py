"""The rules package imports the standard library and msgspec only (STYLE.md 1)."""

from __future__ import annotations

import ast
import gc
import sys
from pathlib import Path

import muggins.rules

ALLOWED_THIRD_PARTY = {"msgspec"}
FORBIDDEN_STDLIB = {
    "asyncio", "socket", "os", "time", "datetime", "random", "secrets", "subprocess",
    "threading", "logging", "urllib", "http", "io", "pathlib", "uuid",
}


def parsed(source: str) -> ast.Module:
    """``ast.parse`` with the garbage collector held off.  In CPython 3.11.7
    the parser's recursion count is shared (gh-106905): a collection in the
    middle of a parse can finalize a task whose unretrieved exception is
    logged, and formatting that traceback parses too.  The parse then fails
    with "SystemError: AST constructor recursion depth mismatch" (seen once,
    late in the whole suite, beside a NATS client's lost connection)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return ast.parse(source)
    finally:
        if was_enabled:
            gc.enable()


def imported(node: ast.AST) -> list[str]:
    """The absolute module names an import statement imports (none for other nodes)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        return [node.module]
    return []


def test_rules_package_imports_only_stdlib_and_msgspec() -> None:
    package_dir = Path(next(iter(muggins.rules.__path__)))
    for path in package_dir.glob("*.py"):
        tree = parsed(path.read_text())
        for node in ast.walk(tree):
            for name in imported(node):
                top = name.split(".")[0]
                if name.startswith("muggins.rules") or top == "__future__":
                    continue
                assert top in ALLOWED_THIRD_PARTY or top in sys.stdlib_module_names, (
                    f"{path.name} imports {name}"
                )
                assert top not in FORBIDDEN_STDLIB, (
                    f"{path.name} imports {name}: no I/O, clock or randomness"
                )
