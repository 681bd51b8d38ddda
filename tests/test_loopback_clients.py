"""Every HTTP client the tests and the benchmarks make is
tests.support.clients' loopback one: plain HTTP, no TLS context.  httpx's
own default loads the system's CA bundle for each client (21 ms of CPU),
and the clients made in polling loops (a service's readiness, once every
0.2 s) came to about 15 core-seconds of a whole run (2026-12-05)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.source_code import parsed

TESTS = Path(__file__).resolve().parent
#: What makes a client (or requests through a client of its own).
MAKES_A_CLIENT = {"AsyncClient", "Client", "AsyncHTTPTransport", "HTTPTransport",
                  "get", "post", "put", "patch", "delete", "head", "options", "request",
                  "stream"}


def test_no_test_or_benchmark_makes_an_http_client_of_its_own() -> None:
    offenders = []
    for path in sorted(TESTS.rglob("*.py")):
        if path == TESTS / "support" / "clients.py":
            continue
        for node in ast.walk(parsed(path.read_text())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "httpx"
                    and node.func.attr in MAKES_A_CLIENT):
                offenders.append(f"{path.relative_to(TESTS.parent)}:{node.lineno} "
                                 f"httpx.{node.func.attr}")
    assert offenders == [], "use tests.support.clients.loopback_http:\n" + "\n".join(offenders)
