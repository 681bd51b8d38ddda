"""No test imports another test module (docs/tests.md, "What tests share").

What tests share lives in ``tests/support/`` or in a module of helpers beside
them (``tests/rules/scenario.py``, ``tests/integration/events.py``...).  A
test module (``test_*.py``) or a ``conftest.py`` imported by another file
runs twice under two names, and its fixtures and hooks come with it: the
browser tests once imported their helpers from ``tests/browser/conftest.py``,
a service test its wait and a bus test its events from other test modules.
Imports are absolute (ruff's TID252), so each names the module it loads.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.source_code import imported, parsed

TESTS = Path(__file__).resolve().parent


def is_test_module(module: str) -> bool:
    last = module.split(".")[-1]
    return module.split(".")[0] == "tests" and (last.startswith("test_") or last == "conftest")


def test_no_file_under_tests_imports_a_test_module_or_a_conftest() -> None:
    offenders = []
    for path in sorted(TESTS.rglob("*.py")):
        for node in ast.walk(parsed(path.read_text())):
            assert not (isinstance(node, ast.ImportFrom) and node.level), (
                f"{path}: a relative import (the project's are absolute)")
            names = imported(node)
            if isinstance(node, ast.ImportFrom) and names:
                names += [f"{names[0]}.{alias.name}" for alias in node.names]
            offenders += [f"{path.relative_to(TESTS.parent)} imports {name}"
                          for name in names if is_test_module(name)]
    assert offenders == [], "\n".join(offenders)


def test_the_check_sees_a_test_module_and_a_conftest() -> None:
    assert is_test_module("tests.service.test_expert_seats")
    assert is_test_module("tests.browser.conftest")
    assert not is_test_module("tests.support.browser")
    assert not is_test_module("tests.rules.scenario")
