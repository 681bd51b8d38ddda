"""SQL lives in .sql files: named queries ("-- name: x" blocks) and numbered
migrations.  This module only reads them."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

_NAME = re.compile(r"^--\s*name:\s*(\w+)\s*$", re.MULTILINE)


@cache
def load_queries(path: Path) -> dict[str, str]:
    """The named queries of a .sql file: {name: sql}."""
    text = path.read_text()
    matches = list(_NAME.finditer(text))
    queries: dict[str, str] = {}
    for match, following in zip(matches, [*matches[1:], None], strict=True):
        end = following.start() if following else len(text)
        body = text[match.end() : end].strip()
        queries[match.group(1)] = body.rstrip(";").strip()
    return queries


def migration_files(folder: Path) -> list[tuple[int, str, Path]]:
    """(version, name, path) of every NNNN_name.sql in ``folder``, by version."""
    found = []
    for path in folder.glob("*.sql"):
        number, _, name = path.stem.partition("_")
        if not number.isdigit():
            raise ValueError(f"migration {path.name} must be named NNNN_what.sql")
        found.append((int(number), name, path))
    found.sort()
    versions = [version for version, _, _ in found]
    if versions != list(range(1, len(versions) + 1)):
        raise ValueError(f"migrations must be numbered 1, 2, 3 ... without gaps: {versions}")
    return found
