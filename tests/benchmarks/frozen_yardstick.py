"""Issue #27's yardstick: the frozen expert (``frozen_expert/``) as "today's expert at 200 ms".

Its strength is fixed as a number of simulations, not as a time: the
expert of 2026-12-02 ran 29,243 simulated hands a second at 200 ms a
decision (docs/bots.md, the bars' table), so at 200 ms it searched about
5,850 simulations; the yardstick searches ``FROZEN_ITERATIONS`` every
decision, whatever the machine's load, and for a seed it decides the same
compiled or not.  Only the time the benchmark takes depends on speed, so
the frozen search's hot modules are compiled with mypyc, as the project's
own are (hatch_build.py), into a folder outside the tree kept between
runs; where that build fails the yardstick runs interpreted, slower and
just as strong.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import random
import sys
import tempfile
from pathlib import Path
from types import ModuleType

import tests.benchmarks.frozen_expert as frozen_package

#: Simulations a decision: today's 29,243 a second for 200 ms, rounded up.
FROZEN_ITERATIONS = 5_900
#: The frozen modules compiled, by name (knowledge, bot and the Structs are not hot).
COMPILED = ("position", "sampler", "search")
ROOT = Path(__file__).resolve().parents[2]
FOLDER = Path(frozen_package.__file__).parent


def _build_folder() -> Path:
    digest = hashlib.sha256()
    for name in COMPILED:
        digest.update((FOLDER / f"{name}.py").read_bytes())
    digest.update(sys.version.encode())
    return Path(tempfile.gettempdir()) / f"muggins-frozen-expert-{digest.hexdigest()[:16]}"


def _compile(target: Path) -> None:
    """mypyc, as hatch_build.py runs it, with every output under ``target``."""
    from mypyc.build import mypycify
    from setuptools import Distribution  # type: ignore[import-untyped]
    from setuptools.command.build_ext import build_ext  # type: ignore[import-untyped]

    previous = Path.cwd()
    # mypyc names modules by their paths from the working directory.
    os.chdir(ROOT)
    try:
        paths = [str((FOLDER / f"{name}.py").relative_to(ROOT)) for name in COMPILED]
        extensions = mypycify(paths, opt_level="3", group_name="frozen_expert",
                              target_dir=str(target / "c"))
        command = build_ext(Distribution({"name": "frozen-expert", "ext_modules": extensions}))
        command.build_lib = str(target / "lib")
        command.build_temp = str(target / "temp")
        command.ensure_finalized()
        command.run()
    finally:
        os.chdir(previous)
    (target / "built").write_text("ok\n")


def load(compiled: bool = True) -> tuple[ModuleType, str]:
    """The frozen ``bot`` module, and how it runs ("compiled" or "interpreted").

    Call it before any frozen module is imported (the compiled ones are
    found first only then); processes forked afterwards inherit it.
    """
    how = "interpreted"
    if compiled:
        target = _build_folder()
        try:
            if not (target / "built").exists():
                print("  compiling the frozen expert with mypyc (once)", file=sys.stderr,
                      flush=True)
                _compile(target)
            library = target / "lib"
            sys.path.insert(0, str(library))  # the group's shared library
            frozen_package.__path__.insert(0, str(library / FOLDER.relative_to(ROOT)))
            how = "compiled"
        except (Exception, SystemExit) as error:  # no compiler: as strong, interpreted
            print(f"  the frozen expert runs interpreted: {error!r}", file=sys.stderr)
    bot = importlib.import_module("tests.benchmarks.frozen_expert.bot")
    search = importlib.import_module("tests.benchmarks.frozen_expert.search")
    if compiled and how == "compiled" and not str(search.__file__).endswith((".so", ".pyd")):
        how = "interpreted (imported before its build was loaded)"
    return bot, how


def frozen_bot(rng: random.Random, iterations: int = FROZEN_ITERATIONS) -> object:
    """A frozen expert seat (a ``muggins.bots.levels.Bot``), at its fixed strength."""
    bot = importlib.import_module("tests.benchmarks.frozen_expert.bot")
    expert: object = bot.ExpertBot(rng, iterations=iterations)
    return expert
