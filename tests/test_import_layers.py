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


def our_modules() -> dict[str, Path]:
    """Every module of the ``muggins`` namespace, whichever folder holds it."""
    found = {}
    for folder in FOLDERS:
        for path in sorted((ROOT / folder / "muggins").rglob("*.py")):
            relative = path.relative_to(ROOT / folder).with_suffix("")
            found[".".join(relative.parts).removesuffix(".__init__")] = path
    return found


def module_imports() -> dict[str, dict[str, list[str]]]:
    """module -> our module it imports -> the file that imports it (``from
    package import module`` counts as importing the module)."""
    modules = our_modules()
    graph: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for module, path in modules.items():
        graph[module]  # every module is a node, importing or not
        where = str(path.relative_to(ROOT))
        for node in ast.walk(parsed(path.read_text())):
            names = imported(node)
            if isinstance(node, ast.ImportFrom) and names:
                names += [f"{names[0]}.{alias.name}" for alias in node.names]
            for name in names:
                if name in modules and name != module:
                    graph[module][name].append(where)
    return graph


def package_imports() -> dict[str, dict[str, list[str]]]:
    """package -> imported package -> the files that import it."""
    graph: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for module, targets in module_imports().items():
        source = package_of(module)
        assert source is not None
        graph[source]
        for target_module, files in targets.items():
            target = package_of(target_module)
            if target is not None and target != source:
                graph[source][target].extend(files)
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


def described_cycles(graph: dict[str, dict[str, list[str]]]) -> tuple[list[list[str]], str]:
    found = cycles(graph)
    described = []
    for group in found:
        for source in group:
            for target in group:
                if target in graph[source]:
                    files = ", ".join(graph[source][target][:3])
                    described.append(f"{source} -> {target} ({files})")
    return found, "\n".join(described)


def test_no_cycle_between_packages() -> None:
    found, described = described_cycles(package_imports())
    assert not found, "packages that import each other:\n" + described


def test_no_cycle_between_modules() -> None:
    """Inside a package too: a module that needs another's objects gets them
    when it is built (the wiring passes them), not by importing back the
    module that builds it (once a circle of 13 of muggins.tables' files)."""
    found, described = described_cycles(module_imports())
    assert not found, "modules that import each other:\n" + described


def test_the_walk_sees_the_layers() -> None:
    """The walk itself: it finds the packages and a known import between them."""
    graph = package_imports()
    assert "muggins.rules" in graph and "muggins.tables" in graph
    assert "muggins.rules" in graph["muggins.tables"]
    assert not graph["muggins.rules"], "the rules import nothing of muggins"
    assert cycles({"a": {"b": []}, "b": {"a": []}, "c": {"a": []}}) == [["a", "b"]]
    modules = module_imports()
    assert "muggins.tables.runtime" in modules["muggins.tables.http"]
    assert "muggins.domain.streams" in modules["muggins.tables.http"], "from package import module"


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


def test_the_operators_commands_do_not_load_nats() -> None:
    """``muggins replay``, ``dispute`` and ``db`` need only the database:
    loading the command line loads no NATS client (nor aiohttp, which it
    brings), which once took half of such a command's start (0.27 s of 0.54)."""
    script = ("import sys, muggins.cli; "
              "print(' '.join(m for m in sys.modules if m.split('.')[0] in ('nats', 'aiohttp')))")
    loaded = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            check=True, timeout=60).stdout.split()
    assert loaded == [], f"muggins.cli loads {loaded}"
