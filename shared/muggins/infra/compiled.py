"""Whether the rules engine runs compiled, and whether that build is stale.

hatch_build.py compiles the engine's and the expert's hot modules with mypyc when the project
is installed.  An editable install builds them in place, beside their
sources, and records the SHA-256 of each source in ``compiled-from.json``.
Python imports an extension module ahead of the ``.py`` beside it, so after
a source is edited the old build would silently keep running: ``stale``
finds that.  ``python -m muggins.infra.compiled`` says which engine runs and exits
1 on a stale build, which ``deploy/dev.py`` turns into a rebuild.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import json
import sys
from pathlib import Path

import muggins.rules

RULES_FOLDER = Path(muggins.rules.__file__).parent
#: Written by hatch_build.py beside an in-place build.
STAMP_NAME = "compiled-from.json"
#: The modules hatch_build.py compiles, relative to the source root (it reads
#: this list from here).  Only modules without msgspec Structs: mypyc would
#: turn a Struct defined in a compiled module into one no longer frozen.
COMPILED_MODULES: tuple[str, ...] = (
    "muggins/rules/game.py",
    "muggins/rules/state.py",
    "muggins/rules/layout.py",
    "muggins/rules/placing.py",
    "muggins/rules/shuffle.py",
    "muggins/rules/scoring.py",
    "muggins/rules/tuples.py",
    # The expert's search: its position, deal sampler, tree and random numbers (issue #27).
    "muggins/expert/position.py",
    "muggins/expert/sampler.py",
    "muggins/expert/search.py",
    "muggins/expert/search_random.py",
)


def engine_is_compiled() -> bool:
    """Whether ``muggins.rules.game`` was loaded from a compiled extension."""
    from muggins.rules import game

    return isinstance(getattr(game, "__loader__", None), importlib.machinery.ExtensionFileLoader)


def search_is_compiled() -> bool:
    """Whether the expert's search (``muggins.expert.search``) was loaded compiled."""
    from muggins.expert import search

    return isinstance(getattr(search, "__loader__", None), importlib.machinery.ExtensionFileLoader)


def describe() -> str:
    """Which engine runs, in words."""
    if not engine_is_compiled():
        return "pure Python (not compiled)"
    return "compiled with mypyc" + (", the expert's search too" if search_is_compiled()
                                    else " (the expert's search not)")


def stale(rules_folder: Path = RULES_FOLDER,
          modules: tuple[str, ...] = COMPILED_MODULES) -> list[str]:
    """The compiled modules whose source changed since they were built, or
    that ``modules`` lists and the build did not compile."""
    stamp = rules_folder / STAMP_NAME
    if not stamp.exists():
        # Pure Python, unless extensions lie there (or beside the expert's
        # search, compiled in the same build) with no record of their sources.
        folders = [rules_folder, rules_folder.parent / "expert"]
        return sorted(p.name for folder in folders if folder.is_dir()
                      for p in folder.iterdir() if p.suffix in (".so", ".pyd"))
    built_from: dict[str, str] = json.loads(stamp.read_text())
    source_root = rules_folder.parent.parent
    # A module added to the list since the build runs uncompiled: stale too.
    changed = [name for name in modules if name not in built_from]
    for name, digest in sorted(built_from.items()):
        source = source_root / name
        if not source.exists() or hashlib.sha256(source.read_bytes()).hexdigest() != digest:
            changed.append(name)
    return changed


def main() -> int:
    """Say which engine runs; exit 1 when the compiled one is stale."""
    changed = stale()
    if changed:
        print("compiled rules engine is older than its sources: " + ", ".join(changed))
        return 1
    print(f"rules engine: {describe()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
