"""Build hook: compile the rules engine's and the expert's hot modules with mypyc.

The rules core is written in plain typed Python; mypyc (part of mypy, which
type-checks the project anyway) turns the modules below into C extensions that
run the same code about twice as fast (docs/rules.md, "Speed").  Python
imports an extension module ahead of the ``.py`` beside it, so nothing else
changes.

* ``pip install .`` (a wheel): the extensions go into the wheel, with the
  record of the sources they were built from.
* ``pip install -e .`` (what ``deploy/dev.py`` does): they are built in place,
  beside their sources in ``shared/``, and ``COMPILED_STAMP`` records the
  sources they were built from, so a stale build is noticed (``deploy/dev.py``
  rebuilds it; the test suite refuses to run on it).
* No C compiler, or ``MUGGINS_PURE_PYTHON=1``: the engine stays pure Python,
  with a warning.  ``MUGGINS_REQUIRE_COMPILED=1`` turns a failed build into an
  error instead.

Only modules without msgspec Structs are compiled: mypyc would turn a Struct
defined in a compiled module into a class that is no longer frozen.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

#: Where the compiled modules' package tree starts.
SOURCE_ROOT = "shared"
#: Where the list of compiled modules is kept (its one owner, read here
#: without importing it: the build runs before the package is installed).
MODULES_LIST = "muggins/infra/compiled.py"


def compiled_modules(source_root: Path) -> tuple[str, ...]:
    """``COMPILED_MODULES`` of MODULES_LIST: the modules to compile, relative to SOURCE_ROOT."""
    tree = ast.parse((source_root / MODULES_LIST).read_text())
    for node in tree.body:
        if (isinstance(node, ast.AnnAssign | ast.Assign)
                and "COMPILED_MODULES" in ast.unparse(node).split("=")[0]):
            assert node.value is not None
            return tuple(ast.literal_eval(node.value))
    raise RuntimeError(f"no COMPILED_MODULES in {MODULES_LIST}")


#: Written beside the in-place build: the SHA-256 of each source it was built from.
COMPILED_STAMP = "muggins/rules/compiled-from.json"


def source_digests(source_root: Path) -> dict[str, str]:
    """The SHA-256 of each compiled module's source, by its path."""
    return {
        name: hashlib.sha256((source_root / name).read_bytes()).hexdigest()
        for name in compiled_modules(source_root)
    }


def compile_in_place(source_root: Path) -> list[Path]:
    """Compile COMPILED beside their sources; the extension files built."""
    from mypyc.build import mypycify
    from setuptools import Distribution
    from setuptools.command.build_ext import build_ext

    previous = Path.cwd()
    # mypyc names modules by their paths from the working directory.
    os.chdir(source_root)
    try:
        extensions = mypycify(list(compiled_modules(source_root)), opt_level="3",
                              group_name="muggins_rules")
        command = build_ext(Distribution({"name": "muggins-rules", "ext_modules": extensions}))
        command.inplace = True
        command.ensure_finalized()
        command.run()
        return [source_root / command.get_ext_filename(ext.name) for ext in extensions]
    finally:
        os.chdir(previous)


class CompileRulesHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        source_root = Path(self.root) / SOURCE_ROOT
        # An earlier build would shadow the sources if this one fails: drop it first.
        (source_root / COMPILED_STAMP).unlink(missing_ok=True)
        self._remove_extensions(source_root)
        if os.environ.get("MUGGINS_PURE_PYTHON") == "1":
            return
        try:
            built = compile_in_place(source_root)
        # No compiler, no headers, or mypyc refusing the code (it exits): the
        # project still installs, with the pure-Python engine.
        except (Exception, SystemExit) as error:
            if os.environ.get("MUGGINS_REQUIRE_COMPILED") == "1":
                raise
            self._remove_extensions(source_root)
            self.app.display_warning(f"muggins: the rules engine stays pure Python ({error!r})")
            return
        stamp = source_root / COMPILED_STAMP
        stamp.write_text(json.dumps(source_digests(source_root), indent=2) + "\n")
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        if version == "standard":
            for path in [*built, stamp]:
                build_data["force_include"][str(path)] = path.relative_to(source_root).as_posix()

    @staticmethod
    def _remove_extensions(source_root: Path) -> None:
        """Drop extensions of an earlier build, which would shadow the sources."""
        for pattern in ("*__mypyc.*", "muggins/rules/*.so", "muggins/rules/*.pyd",
                        "muggins/expert/*.so", "muggins/expert/*.pyd"):
            for path in source_root.glob(pattern):
                path.unlink()
