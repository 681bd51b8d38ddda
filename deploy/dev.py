#!/usr/bin/env python3
"""The project's two front doors: ``run`` and ``test`` (plus ``bench``).

Works on a fresh clone with nothing but python3 and pip: it creates the
virtual environment ``.venv`` beside the repository's pyproject.toml, installs
the project into it (again only when pyproject.toml changed), and runs the
command there.  Standard library only, on purpose: it runs before anything is
installed.

    python3 deploy/dev.py run      # the service, on embedded PostgreSQL and NATS
    python3 deploy/dev.py test     # lint, type-check and the whole test suite
    python3 deploy/dev.py test --fast  # ... and only the tests that need no server
    MUGGINS_TEST_WORKERS=0 python3 deploy/dev.py test tests/rules  # one process, some tests
    python3 deploy/dev.py bench    # the benchmarks (installs their extras)
    python3 deploy/dev.py bench layout --against HEAD~5   # one, with its options
    python3 deploy/dev.py cluster up|down|status   # the whole site on this machine

``test`` also installs the Debian packages the tests need (Chromium for the
browser tests, HAProxy for the cluster tests, Node.js for the web client's
own tests, which ``--fast`` runs too) where it may: as root or with sudo;
otherwise it says what to install.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
import venv
from pathlib import Path
from typing import Any

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
        if VENV.exists() and any(VENV.iterdir()) and not (VENV / "pyvenv.cfg").exists():
            # Never clear a folder that is not a virtual environment (a
            # MUGGINS_VENV of /usr would be emptied).
            sys.exit(f"{VENV} is not a virtual environment: set MUGGINS_VENV to a new "
                     "folder, or one made by this script")
        print(f"creating virtual environment in {VENV}", flush=True)
        venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
    stamp_file = VENV / ".muggins-installed"
    wanted = _stamp_for(extras)
    pip = [str(PYTHON), "-m", "pip", "install", "--quiet"]
    # The project's own editable build: the compiled engine (hatch_build.py),
    # in pip's isolated build environment; it writes only the project's
    # entry in the venv.
    build = [*pip, "--no-compile", "--no-deps", "-e", str(ROOT)]
    if stamp_file.exists() and stamp_file.read_text() == wanted:
        if not _compiled_engine_is_stale():
            return
        print("rebuilding the compiled rules engine: its sources changed", flush=True)
        _install_at_once([build], "rebuilding the compiled rules engine")
        return
    dependencies = requirements(extras)
    print(f"installing muggins[{extras}] into {VENV}", flush=True)
    subprocess.run([*pip, "--upgrade", "pip"], check=True)
    # The build (mostly a C compiler's time) and the dependencies (mostly
    # unpacking and compiling their bytecode) go in at once, one a core:
    # 18-19 s from no venv on a fresh clone here, against 32 s one after
    # the other (2026-12-04).  They never touch the same files.
    _install_at_once([[*pip, *dependencies], build], f"installing muggins[{extras}]")
    stamp_file.write_text(wanted)


def _install_at_once(commands: list[list[str]], doing: str) -> None:
    """Run the pip ``commands`` side by side; exit with a message if one
    fails (the others are stopped then, as on an interrupt)."""
    running: list[subprocess.Popen[bytes]] = []
    try:
        for command in commands:
            # Each in a process group of its own, so that stopping it reaches
            # what it started too (the build's mypyc and C compiler).
            running.append(subprocess.Popen(command, **_OWN_GROUP))
        while not _failed(running) and any(install.poll() is None for install in running):
            time.sleep(0.2)
    finally:
        _stop([install for install in running if install.poll() is None])
    if _failed(running):
        sys.exit(f"{doing} failed (pip's messages above)")


def _failed(installs: list[subprocess.Popen[bytes]]) -> bool:
    """Whether one of ``installs`` has ended with an error."""
    return any(install.poll() not in (None, 0) for install in installs)


#: Popen's arguments for a child in a process group of its own (POSIX).
_OWN_GROUP: dict[str, Any] = {"process_group": 0} if os.name == "posix" else {}


def _stop(installs: list[subprocess.Popen[bytes]], grace: float = 5.0) -> None:
    """Interrupt ``installs`` and what they started, as Ctrl-C would (pip
    then removes its temporary folders); kill what is left after ``grace``
    seconds."""
    for install in installs:
        _signal(install, kill=False)
    deadline = time.monotonic() + grace
    for install in installs:
        try:
            install.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            _signal(install, kill=True)
            install.wait()


def _signal(install: subprocess.Popen[bytes], *, kill: bool) -> None:
    """Interrupt (SIGINT) or kill ``install``'s process group; where there
    are no process groups, terminate or kill the process."""
    with contextlib.suppress(ProcessLookupError):
        if _OWN_GROUP:
            os.killpg(install.pid, signal.SIGKILL if kill else signal.SIGINT)
        elif kill:
            install.kill()
        else:
            install.terminate()


def requirements(extras: str) -> list[str]:
    """What the project needs (pyproject.toml's dependencies) and what its
    ``extras`` (comma-separated names) add; an extra it does not define
    stops the script with a message."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = list(project.get("dependencies", []))
    optional = project.get("optional-dependencies", {})
    for extra in filter(None, (name.strip() for name in extras.split(","))):
        if extra not in optional:
            sys.exit(f"pyproject.toml defines no extra {extra!r} "
                     f"(it has: {', '.join(sorted(optional)) or 'none'})")
        wanted.extend(optional[extra])
    return wanted


def _compiled_engine_is_stale() -> bool:
    """Whether the in-place mypyc build (hatch_build.py) predates its sources."""
    check = subprocess.run([str(PYTHON), "-m", "muggins.infra.compiled"], cwd=ROOT,
                           env=command_environment())
    return check.returncode != 0


def _announce(argv: list[str] | tuple[str, ...]) -> None:
    print("+ " + " ".join(argv), flush=True)


def _run(*argv: str) -> int:
    _announce(argv)
    return subprocess.run(argv, cwd=ROOT, env=command_environment()).returncode


def command_environment() -> dict[str, str]:
    """The environment of every command this script runs from the venv."""
    return with_bytecode_caches(dict(os.environ))


def with_bytecode_caches(environment: dict[str, str]) -> dict[str, str]:
    """``environment`` without PYTHONDONTWRITEBYTECODE, for the commands
    this script runs from the venv (and the service it becomes): a run of the tests
    starts hundreds of Python processes (services, the command line, bot
    workers, benchmarks' smoke runs), and each would compile the project's
    modules from source again, as each test worker would rewrite and compile
    every test module (pytest keeps its rewritten modules only where Python
    may write bytecode).  The caches go in ``__pycache__`` folders, which git
    ignores.  (On this machine's image the variable is set for every
    process: a worker's collection took 3.7 s of CPU without the caches,
    1.3 s with them.)"""
    return {name: value for name, value in environment.items()
            if name != "PYTHONDONTWRITEBYTECODE"}


def run(args: list[str]) -> int:
    ensure_environment()
    argv = [str(BIN / "muggins"), *(args or ["serve"])]
    if os.name == "nt":
        return _run(*argv)
    # This process becomes the service: a SIGTERM or Ctrl-C to it reaches the
    # service itself, which stops cleanly (a child would be left running).
    _announce(argv)
    os.chdir(ROOT)
    os.execve(argv[0], argv, command_environment())


#: What the tests need from Debian beside Python: the browser tests' Chromium
#: (its headless shell, lighter than the whole browser), the cluster tests'
#: load balancer, Node.js for the web client's own tests (tests/client:
#: `node --test`) and TypeScript's checker for the table page's types
#: (tests/client/test_types.py: a check, never a build step) (program -> package).
SYSTEM_PACKAGES = {"chromium-headless-shell": "chromium-headless-shell", "haproxy": "haproxy",
                   "node": "nodejs", "tsc": "node-typescript"}
#: What the tests that need no server (``test --fast``) need of them.
FAST_PACKAGES = ("node", "tsc")


#: Programs that serve as well as the one SYSTEM_PACKAGES names: the browser
#: tests drive the whole Chromium where its headless shell is not installed
#: (tests.support.browser.chromium_path).
ALTERNATIVES = {"chromium-headless-shell": ("chromium",)}


def _found(program: str) -> bool:
    if program == "chromium-headless-shell" and os.environ.get("MUGGINS_CHROMIUM"):
        return Path(os.environ["MUGGINS_CHROMIUM"]).exists()  # the browser tests' own choice
    return any(
        shutil.which(name) is not None
        or any(Path(folder, name).exists() for folder in ("/usr/sbin", "/usr/bin"))
        for name in (program, *ALTERNATIVES.get(program, ())))


def ensure_system_packages(programs: tuple[str, ...] = tuple(SYSTEM_PACKAGES)) -> int:
    """Install the Debian packages the tests need (for ``programs``) where this
    user can (root, or sudo without a password); otherwise say what to install
    (the tests that need them then fail, saying so too; the others run)."""
    missing = [SYSTEM_PACKAGES[program] for program in programs if not _found(program)]
    if not missing:
        return 0
    apt = shutil.which("apt-get")
    if os.name != "nt" and apt is not None:
        prefix: list[str] = []
        if os.geteuid() != 0:
            sudo = shutil.which("sudo")
            allowed = sudo is not None and subprocess.run(
                [sudo, "-n", "true"], capture_output=True).returncode == 0
            prefix = [sudo, "-n"] if allowed and sudo else []
        if os.geteuid() == 0 or prefix:
            print(f"installing {' '.join(missing)} (Debian packages the tests need)", flush=True)
            environment = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
            updated = subprocess.run([*prefix, apt, "update", "-q"], env=environment)
            installed = updated.returncode == 0 and subprocess.run(
                [*prefix, apt, "install", "-y", "-q", *missing], env=environment
            ).returncode == 0
            if installed:
                return 0
    print(f"warning: the browser, cluster and web client tests need these Debian packages: "
          f"{' '.join(missing)}; install them (as root: apt-get install {' '.join(missing)}), "
          "or those tests fail", file=sys.stderr)
    return 0


def usable_cores() -> int:
    """The cores this process may run on (a container's or ``taskset``'s
    share, not the whole host's)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 2


def default_test_workers(fast: bool, cores: int | None = None) -> int:
    """How many workers ``test`` runs the tests in by default: two a core and
    one more (one a core for ``--fast``), at least two, at most eight (the
    browser tests' ports leave room for twelve, tests/browser/conftest.py)."""
    cores = usable_cores() if cores is None else cores
    return max(2, min(8, cores if fast else 2 * cores + 1))


def test(args: list[str]) -> int:
    """Lint, type-check and run the tests: all of them, or with ``--fast``
    only those that need no server (the ``servers`` marker, tests/conftest.py).
    The type check runs beside the tests (TypeCheck)."""
    fast = "--fast" in args
    args = [arg for arg in args if arg != "--fast"]
    ensure_environment()
    processes = default_test_workers(fast)  # the test processes, for the scratch room
    if not any(arg == "-n" or arg.startswith(("-n", "--numprocesses")) for arg in args):
        # Tests shared among workers (pytest-xdist; a module whose fixtures
        # are built once for it marks itself an xdist_group and stays on one
        # worker).  Much of the suite waits on servers, processes and clocks
        # (a fault held for its length, a turn clock running out), so two
        # workers a core and one more keep the cores busy: on two cores, 288 s
        # in four workers against 334 s in three (fresh clones, 2026-12-03);
        # 318 s in four, 289 s in five and 300 s in six (the same hour,
        # 2026-12-04).  The fast tier only computes: one a core.
        # MUGGINS_TEST_WORKERS=0 runs it in this process.
        workers = os.environ.get("MUGGINS_TEST_WORKERS", str(default_test_workers(fast)))
        if workers != "0":
            args = ["-n", workers, "--dist", "loadgroup", *args]
        if workers.isdigit():
            processes = max(1, int(workers))
    if fast:
        args = ["-m", "not servers", *args]
    code = ensure_system_packages(FAST_PACKAGES if fast else tuple(SYSTEM_PACKAGES))
    if code:
        return code
    # About a second, run first and alone: a lint error stops the run before
    # any server starts.
    code = _run(str(PYTHON), "-m", "ruff", "check", ".")
    if code:
        return code
    scratch = None
    if not any(arg == "--basetemp" or arg.startswith("--basetemp=") for arg in args):
        scratch = scratch_in_memory(processes=processes)
        if scratch is not None:
            args = [f"--basetemp={scratch}", *args]
    code = 1
    with TypeCheck() as types:
        try:
            code = _run(str(PYTHON), "-m", "pytest", *args)
        finally:
            if scratch is not None:
                if code == 0:
                    shutil.rmtree(scratch, ignore_errors=True)
                else:
                    print(f"the tests' servers' folders and logs are kept in {scratch} "
                          "(in memory: delete it when done)", flush=True)
    return code or types.code


class TypeCheck:
    """mypy, run beside the tests rather than before them: on a fresh clone
    it takes 15-20 s of one core, while the tests leave a good share of the
    cores idle (they wait on servers, faults and clocks).  It runs at a lower
    priority, so that it takes what the tests leave and does not slow the
    timed stretches of the fault tests that start first.  Its report is
    printed when the tests are done, and a failure fails the command."""

    def __init__(self, argv: list[str] | None = None) -> None:
        self.argv = argv or [str(PYTHON), "-m", "mypy"]
        self.code = 1
        self._files = contextlib.ExitStack()

    def __enter__(self) -> TypeCheck:
        _announce([*self.argv, "(beside the tests; its report follows theirs)"])
        self._report = self._files.enter_context(tempfile.TemporaryFile())
        try:
            self._process = subprocess.Popen(
                self.argv, cwd=ROOT, stdout=self._report, stderr=subprocess.STDOUT,
                env=command_environment(),
                preexec_fn=_lower_priority if os.name == "posix" else None)
        except BaseException:
            self._files.close()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        interrupted = exc_info[0] is not None
        with self._files:
            if interrupted:
                self._process.kill()
            elif self._process.poll() is None:
                print("waiting for the type check to finish", flush=True)
            self.code = self._process.wait()
            self._report.seek(0)
            report = self._report.read().decode(errors="replace")
        if interrupted:
            print("(the type check was stopped with the tests)", flush=True)
            return
        print(f"+ {' '.join(self.argv)}\n{report}", end="" if report.endswith("\n") else "\n",
              flush=True)
        if self.code:
            print(f"the type check failed (exit code {self.code}): see its report above",
                  flush=True)


def _lower_priority() -> None:
    """In the type check's process before it starts: below the tests' processes."""
    os.nice(10)


#: Free memory a run of the tests may take in /dev/shm, at the least ...
SCRATCH_NEEDS = 4 * 2**30
#: ... and for each test process (each has its own PostgreSQL and NATS):
#: three workers' servers' files came to about 1.5 GB at the most.
SCRATCH_NEEDS_PER_PROCESS = 2**30
#: A scratch folder older than this was left by a failed run long done.
SCRATCH_KEPT_FOR = 12 * 3600


def scratch_in_memory(memory: Path = Path("/dev/shm"), processes: int = 1) -> Path | None:
    """A new folder in /dev/shm (memory) for the tests' files, where there
    is one with room: PostgreSQL's databases and the other servers' files
    there, not on disk.  Made for that: every test's database is created
    and dropped (a few hundred files each), and on this machine's ext4 a
    create and drop cost 0.3-0.5 s of CPU each in the kernel (its search
    for an inode not recently freed), against 0.035 s in memory.  None
    where there is no such place, or no room for ``processes`` test
    processes' servers (the tests then use pytest's own folder).
    This user's folders of failed runs older than SCRATCH_KEPT_FOR are
    removed first (a run still going is younger)."""
    if not memory.is_dir():
        return None
    for old in memory.glob("muggins-tests-*"):
        with contextlib.suppress(OSError):
            mine = not old.is_symlink() and old.lstat().st_uid == os.getuid()
            if mine and time.time() - old.lstat().st_mtime > SCRATCH_KEPT_FOR:
                shutil.rmtree(old, ignore_errors=True)
    try:
        free = shutil.disk_usage(memory).free
    except OSError:
        return None
    needs = max(SCRATCH_NEEDS, processes * SCRATCH_NEEDS_PER_PROCESS)
    if free < needs or not os.access(memory, os.W_OK):
        return None
    return Path(tempfile.mkdtemp(prefix="muggins-tests-", dir=memory))


def bench(args: list[str]) -> int:
    """Run tests/benchmarks/bench_NAME.py for each NAME given (all without
    names); what follows the first option is passed to each
    (``bench layout --against REV``)."""
    ensure_environment("dev,bench")
    folder = ROOT / "tests" / "benchmarks"
    first_option = next((i for i, arg in enumerate(args) if arg.startswith("-")), len(args))
    args, options = args[:first_option], args[first_option:]
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
        worst = max(worst, _run(str(PYTHON), "-m", module, *options))
    return worst


def cluster(args: list[str]) -> int:
    """``muggins cluster ARGS``: the local cluster (deploy/README.md)."""
    ensure_environment()
    if args[:1] == ["up"] and not _found("haproxy"):
        code = ensure_system_packages(("haproxy",))
        if code:
            return code
    return _run(str(BIN / "muggins"), "cluster", *(args or ["status"]))


COMMANDS = {"run": run, "test": test, "bench": bench, "cluster": cluster}


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print(__doc__)
        return 2
    return COMMANDS[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
