"""Reading Python source as syntax trees, for the tests that check what our
own code imports or calls (tests/rules/test_purity.py,
tests/test_import_layers.py, tests/expert/test_knowledge.py,
tests/replays/test_chain.py, tests/test_loopback_clients.py): ``parsed``,
a safe ``ast.parse``, and ``imported``, the modules an import statement
names."""

from __future__ import annotations

import ast
import gc


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
