"""Issue #27's yardstick: the frozen expert (``frozen_expert/``) as "today's expert at 200 ms".

Its strength is fixed as a number of simulations, not as a time: the
expert of 2026-12-02 ran 29,243 simulated hands a second at 200 ms a
decision (docs/bots.md, the bars' table), so at 200 ms it searched about
5,850 simulations; the yardstick searches ``FROZEN_ITERATIONS`` every
decision, whatever the machine's load, and for a seed it decides the same
compiled or not.  Only the time the benchmark takes depends on speed, so
the frozen search's hot modules are compiled with mypyc, as the project's
own are (hatch_build.py), into the checkout's build/ folder (ignored by
git), once per source and compiler; where that build fails the yardstick
runs interpreted, slower and just as strong.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import os
import random
import shutil
import sys
import tempfile
from pathlib import Path

import tests.benchmarks.frozen_expert as frozen_package
from muggins.bots.levels import Bot

#: Simulations a decision: today's 29,243 a second for 200 ms, rounded up.
FROZEN_ITERATIONS = 5_900
#: The frozen modules compiled, by name (knowledge, bot and the Structs are not hot).
COMPILED = ("position", "sampler", "search")
ROOT = Path(__file__).resolve().parents[2]
FOLDER = Path(frozen_package.__file__).parent
#: How the frozen expert runs in this process, once ``load`` has run.
_loaded: str | None = None


def _build_folder() -> Path:
    """Where this source and this compiler build it: every frozen file and
    mypy's version are in its name, so an edit or an upgrade builds anew."""
    import mypy.version

    digest = hashlib.sha256(mypy.version.__version__.encode() + sys.version.encode())
    for path in sorted(FOLDER.glob("*.py")):
        digest.update(path.name.encode() + path.read_bytes())
    return ROOT / "build" / "frozen-expert" / digest.hexdigest()[:16]


def _compile(target: Path) -> None:
    """mypyc, as hatch_build.py runs it, into a folder of its own that takes
    ``target``'s name only once whole (two runs at once each build their own;
    the first to finish is kept, and nothing loaded is ever overwritten)."""
    from mypyc.build import mypycify
    from setuptools import Distribution  # type: ignore[import-untyped]
    from setuptools.command.build_ext import build_ext  # type: ignore[import-untyped]

    target.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix="building-", dir=target.parent))
    previous = Path.cwd()
    # mypyc names modules by their paths from the working directory.
    os.chdir(ROOT)
    try:
        paths = [str((FOLDER / f"{name}.py").relative_to(ROOT)) for name in COMPILED]
        extensions = mypycify(paths, opt_level="3", group_name="frozen_expert",
                              target_dir=str(building / "c"))
        command = build_ext(Distribution({"name": "frozen-expert", "ext_modules": extensions}))
        command.build_lib = str(building / "lib")
        command.build_temp = str(building / "temp")
        command.ensure_finalized()
        command.run()
        with contextlib.suppress(OSError):  # another run finished first: use its build
            building.rename(target)
    finally:
        os.chdir(previous)
        shutil.rmtree(building, ignore_errors=True)


def load(compiled: bool = True) -> str:
    """Make the frozen expert importable, compiled where it can be; how it
    runs ("compiled" or "interpreted: why").  Idempotent: a benchmark's
    worker processes call it too (as their pool's initializer), whether
    they are forked or started afresh.
    """
    global _loaded
    if _loaded is not None:
        return _loaded
    how = "interpreted: not asked to compile"
    if compiled:
        target = _build_folder()
        try:
            if not target.exists():
                print("  compiling the frozen expert with mypyc (once)", file=sys.stderr,
                      flush=True)
                _compile(target)
            library = target / "lib"
            sys.path.insert(0, str(library))  # the group's shared library
            frozen_package.__path__.insert(0, str(library / FOLDER.relative_to(ROOT)))
            search = importlib.import_module("tests.benchmarks.frozen_expert.search")
            if not str(search.__file__).endswith((".so", ".pyd")):
                raise ImportError(f"the search was imported from {search.__file__}")
            how = "compiled"
        except (Exception, SystemExit) as error:  # no compiler: as strong, interpreted
            how = f"interpreted: {error!r}"
    importlib.import_module("tests.benchmarks.frozen_expert.bot")
    _loaded = how
    return how


def frozen_bot(rng: random.Random, iterations: int = FROZEN_ITERATIONS) -> Bot:
    """A frozen expert seat, at its fixed strength."""
    bot = importlib.import_module("tests.benchmarks.frozen_expert.bot")
    expert: Bot = bot.ExpertBot(rng, iterations=iterations)
    return expert
