"""Starting a muggins process of its own: the command, its environment, its
log, its session; and asking whether it answers.

The local cluster (muggins.cluster.local) starts its processes this way,
and so do the fault tests (tests/support/processes.py): a process the tests
kill is started as the site starts it.
"""

from __future__ import annotations

import http.client
import os
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path


def muggins_command() -> list[str]:
    """The ``muggins`` command installed beside the Python running this
    (``python -m muggins.cli`` where there is no script)."""
    script = Path(sys.executable).parent / "muggins"
    return [str(script)] if script.exists() else [sys.executable, "-m", "muggins.cli"]


def muggins_environment(settings: Mapping[str, str]) -> dict[str, str]:
    """This process's environment without any MUGGINS_ setting of its own,
    with ``settings`` on top: a child runs on what it is given, nothing else."""
    environment = {key: value for key, value in os.environ.items()
                   if not key.startswith("MUGGINS_")}
    environment.update(settings)
    return environment


def spawn(argv: Sequence[str], environment: Mapping[str, str], log_path: Path,
          cwd: Path | None = None) -> subprocess.Popen[bytes]:
    """Start ``argv`` in a session of its own (a signal to the caller's group
    does not reach it), its output appended to ``log_path``."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "ab") as log:
        return subprocess.Popen(list(argv), stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, env=dict(environment), cwd=cwd,
                                start_new_session=True)


def answers_ok(url: str, timeout: float = 2.0) -> bool:
    """Whether ``url`` answers 200 now (nothing there, or anything else: False)."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException):
        return False
