"""The rules package imports the standard library and msgspec only (STYLE.md 1), and
mypy_extensions, whose class decorator only tells mypyc how to compile the state."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import muggins.rules
from tests.support.source_code import imported, parsed

#: mypy_extensions' ``mypyc_attr`` does nothing when the module runs as Python.
ALLOWED_THIRD_PARTY = {"msgspec", "mypy_extensions"}
FORBIDDEN_STDLIB = {
    "asyncio", "socket", "os", "time", "datetime", "random", "secrets", "subprocess",
    "threading", "logging", "urllib", "http", "io", "pathlib", "uuid",
}


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
