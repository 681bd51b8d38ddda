"""``deploy/dev.py`` loaded as a module, for the tests of its choices
(tests/deploy): it is a script beside the packages, not an importable one."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

DEV = Path(__file__).resolve().parents[2] / "deploy" / "dev.py"


def dev() -> ModuleType:
    """A fresh copy of deploy/dev.py's module (a test may patch what it reads)."""
    spec = importlib.util.spec_from_file_location("dev_under_test", DEV)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
