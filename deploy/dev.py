#!/usr/bin/env python3
"""The project's two front doors: ``run`` and ``test`` (plus ``bench``).

Works on a fresh clone with nothing but python3 and pip: it creates the
virtual environment ``.venv`` beside the repository's pyproject.toml, installs
the project into it (again only when pyproject.toml changed), and runs the
command there.  Standard library only, on purpose: it runs before anything is
installed.

    python3 deploy/dev.py run      # the service, on embedded PostgreSQL and NATS
    python3 deploy/dev.py test     # lint, type-check and the whole test suite
    python3 deploy/dev.py bench    # the benchmarks (installs their extras)
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = Path(os.environ.get("MUGGINS_VENV", ROOT / ".venv"))
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")


def _stamp_for(extras: str) -> str:
    digest = hashlib.sha256()
    for name in ("pyproject.toml", "hatch_build.py"):  # what the installed build depends on
        digest.update((ROOT / name).read_bytes())
    return f"{digest.hexdigest()} {extras}\n"


def ensure_environment(extras: str = "dev") -> None:
    """Create the venv and install the project with ``extras`` if not done yet."""
    if not PYTHON.exists():
        print(f"creating virtual environment in {VENV}", flush=True)
        venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
    stamp_file = VENV / ".muggins-installed"
    wanted = _stamp_for(extras)
    if stamp_file.exists() and stamp_file.read_text() == wanted:
        if not _compiled_engine_is_stale():
            return
        print("rebuilding the compiled rules engine: its sources changed", flush=True)
    print(f"installing muggins[{extras}] into {VENV}", flush=True)
    subprocess.run(
        [str(PYTHON), "-m", "pip", "install", "--quiet", "--upgrade", "pip"], check=True
    )
    subprocess.run(
        [str(PYTHON), "-m", "pip", "install", "--quiet", "-e", f"{ROOT}[{extras}]"],
        check=True,
    )
    stamp_file.write_text(wanted)


def _compiled_engine_is_stale() -> bool:
    """Whether the in-place mypyc build (hatch_build.py) predates its sources."""
    check = subprocess.run([str(PYTHON), "-m", "muggins.compiled"], cwd=ROOT)
    return check.returncode != 0


def _run(*argv: str) -> int:
    print("+ " + " ".join(argv), flush=True)
    return subprocess.run(argv, cwd=ROOT).returncode


def run(args: list[str]) -> int:
    ensure_environment()
    return _run(str(BIN / "muggins"), *(args or ["serve"]))


def test(args: list[str]) -> int:
    ensure_environment()
    for step in (
        [str(PYTHON), "-m", "ruff", "check", "."],
        [str(PYTHON), "-m", "mypy"],
    ):
        code = _run(*step)
        if code:
            return code
    return _run(str(PYTHON), "-m", "pytest", *args)


def bench(args: list[str]) -> int:
    """Run tests/benchmarks/bench_NAME.py for each NAME given (all without names)."""
    ensure_environment("dev,bench")
    folder = ROOT / "tests" / "benchmarks"
    if args:
        scripts = [folder / f"bench_{name}.py" for name in args]
    else:
        scripts = sorted(folder.glob("bench_*.py"))
    worst = 0
    for script in scripts:
        if not script.exists():
            print(f"no benchmark {script.name}")
            return 2
        module = f"tests.benchmarks.{script.stem}"  # a module: the repository is on the path
        worst = max(worst, _run(str(PYTHON), "-m", module))
    return worst


COMMANDS = {"run": run, "test": test, "bench": bench}


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print(__doc__)
        return 2
    return COMMANDS[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
