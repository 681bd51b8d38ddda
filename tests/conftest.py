"""Refuse to test a compiled rules engine older than its sources."""

from __future__ import annotations

import pytest

from muggins import compiled


def pytest_configure(config: pytest.Config) -> None:
    changed = compiled.stale()
    if changed:
        # Python would import the old extension ahead of the edited source.
        pytest.exit(
            "the compiled rules engine predates its sources ("
            + ", ".join(changed)
            + "): `python3 deploy/dev.py test` rebuilds it",
            returncode=2,
        )
