"""The store and the command line as the replay tests use them
(tests/replays/): run ``muggins`` in a process of its own against a
database, find the first version of an event type in a stream, and tamper
with stored events behind the application's back as an attacker with
superuser rights could."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import asyncpg

from muggins.tables.bot_workers import worker_processes

#: Seconds a command may take, on a machine busy with the rest of the suite.
COMMAND_TIMEOUT = 120


def muggins(*args: str, database_url: str, fresh: bool = False
            ) -> subprocess.CompletedProcess[str]:
    """``muggins ARGS`` against ``database_url`` in a process of its own: its
    own environment, event loop and logging set-up, its exit code, stdout
    and stderr (a traceback included, as Python prints one).

    The process is forked from the fork server the service's bot workers
    come from (muggins.tables.bot_workers), which has imported the command
    line once: a fresh ``python -m muggins.cli`` spends 0.2-0.3 s of CPU
    importing it (179 ms a call against 17 ms forked, idle), about 70 times
    a run.  What a fresh interpreter would have and a forked one has not:
    a hash seed of its own (every forked call shares the fork server's, so
    an output that followed a set's order would vary less from call to
    call), pytest's ``sys.path`` and ``sys.argv``, atexit handlers run at
    exit, import-time warnings, and the locale and encoding variables read
    at start-up.  Its stdin is empty.  ``fresh``: a fresh interpreter
    (``python -m muggins.cli``) all the same, for the tests that show the
    command runs from nothing; its usage lines then name it so."""
    env = {**os.environ, "MUGGINS_DATABASE_URL": database_url, "MUGGINS_LOG_LEVEL": "warning"}
    if fresh:
        return subprocess.run([sys.executable, "-m", "muggins.cli", *args], capture_output=True,
                              text=True, env=env, timeout=COMMAND_TIMEOUT, check=False)
    argv = ["muggins", *args]
    with tempfile.TemporaryDirectory(prefix="muggins-cli-") as folder:
        out, err = Path(folder) / "stdout", Path(folder) / "stderr"

        def written() -> tuple[str, str]:
            return (out.read_text() if out.exists() else "",
                    err.read_text() if err.exists() else "")

        # A fork server's or a spawning context: both make a Process
        # (typeshed gives BaseContext none).
        context: Any = worker_processes()
        process = context.Process(target=_run_command, args=(args, env, out, err),
                                  name="muggins-cli")
        process.start()
        process.join(COMMAND_TIMEOUT)
        if process.exitcode is None:
            process.kill()
            process.join()
            stdout, stderr = written()
            raise subprocess.TimeoutExpired(argv, COMMAND_TIMEOUT, output=stdout, stderr=stderr)
        stdout, stderr = written()
        if not err.exists():
            stderr = (f"(the forked process ended with {process.exitcode} before the command "
                      "began: its reason went to the fork server's stderr, pytest's capture)")
        return subprocess.CompletedProcess(argv, process.exitcode, stdout, stderr)


def _run_command(args: Sequence[str], env: dict[str, str], out: Path, err: Path) -> None:
    """In the forked process: the command with ``env`` as its environment and
    its output in ``out`` and ``err`` (the descriptors too, for anything
    written below Python).  The files stay open to the end: multiprocessing
    turns the SystemExit click raises into the exit code, prints an uncaught
    exception's traceback to ``sys.stderr`` (exit 1), and flushes both."""
    os.environ.clear()
    os.environ.update(env)
    stdout, stderr = out.open("w"), err.open("w")
    os.dup2(stdout.fileno(), 1)
    os.dup2(stderr.fileno(), 2)
    sys.stdout, sys.stderr = stdout, stderr
    from muggins.cli import main  # imported already, in the fork server

    main(args=list(args), prog_name="muggins")


async def tamper(pool: asyncpg.Pool, sql: str, *args: object) -> None:
    """Change the store behind the application's back, as an attacker with the
    database's superuser rights could (the triggers stop everyone else)."""
    async with pool.acquire() as connection, connection.transaction():
        await connection.execute("ALTER TABLE events DISABLE TRIGGER events_append_only_rows")
        await connection.execute(sql, *args)
        await connection.execute("ALTER TABLE events ENABLE TRIGGER events_append_only_rows")


async def first_version(pool: asyncpg.Pool, table: str, event_type: str, extra: str = "") -> int:
    version = await pool.fetchval(
        f"SELECT min(stream_version) FROM events WHERE stream_id = $1 AND event_type = $2 {extra}",
        table, event_type,
    )
    assert version is not None
    return int(version)
