"""No package imports one that imports it back (docs/architecture: the layers).

Packages here are the second level of the ``muggins`` namespace
(``muggins.tables``, ``muggins.rules``, ``muggins.bootstrap``, ...), spread
over shared/, services/, replays/ and deploy/tooling/.  An import inside a function or under
``TYPE_CHECKING`` still counts: a cycle there is still two rooms leaning on
each other.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from tests.support.source_code import imported, parsed

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("shared", "services", "replays", "deploy/tooling")


def package_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "muggins" or len(parts) < 2:
        return None
    return ".".join(parts[:2])


def package_imports() -> dict[str, dict[str, list[str]]]:
    """package -> imported package -> the files that import it."""
    graph: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for folder in FOLDERS:
        for path in sorted((ROOT / folder / "muggins").rglob("*.py")):
            relative = path.relative_to(ROOT / folder).with_suffix("")
            module = ".".join(relative.parts).removesuffix(".__init__")
            source = package_of(module)
            assert source is not None
            graph[source]  # every package is a node, importing or not
            for node in ast.walk(parsed(path.read_text())):
                for name in imported(node):
                    target = package_of(name)
                    if target is not None and target != source:
                        graph[source][target].append(str(path.relative_to(ROOT)))
    return graph


def cycles(graph: dict[str, dict[str, list[str]]]) -> list[list[str]]:
    """The strongly connected groups of more than one package (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, {}):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in list(graph):
        if node not in index:
            visit(node)
    return found


def test_no_cycle_between_packages() -> None:
    graph = package_imports()
    found = cycles(graph)
    described = []
    for group in found:
        for source in group:
            for target in group:
                if target in graph[source]:
                    files = ", ".join(graph[source][target][:3])
                    described.append(f"{source} -> {target} ({files})")
    assert not found, "packages that import each other:\n" + "\n".join(described)


def test_the_walk_sees_the_layers() -> None:
    """The walk itself: it finds the packages and a known import between them."""
    graph = package_imports()
    assert "muggins.rules" in graph and "muggins.tables" in graph
    assert "muggins.rules" in graph["muggins.tables"]
    assert not graph["muggins.rules"], "the rules import nothing of muggins"
    assert cycles({"a": {"b": []}, "b": {"a": []}, "c": {"a": []}}) == [["a", "b"]]


def test_the_store_and_the_bus_know_no_rules() -> None:
    """The event store and the bus carry bytes: importing them (PostgreSQL's
    and the in-memory ones) loads nothing of the rules, nor the codec that
    knows the events (muggins.domain.codec)."""
    carriers = ["muggins.eventstore.store", "muggins.eventstore.memory",
                "muggins.eventstore.migrations", "muggins.bus.connection",
                "muggins.bus.jetstream", "muggins.bus.relay", "muggins.bus.memory"]
    script = (f"import sys; import {', '.join(carriers)}; "
              "print(' '.join(m for m in sys.modules if m.startswith("
              "('muggins.rules', 'muggins.domain.codec', 'muggins.expert'))))")
    loaded = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            check=True, timeout=60).stdout.split()
    assert loaded == [], f"the store and the bus load {loaded}"
