"""``python3 deploy/dev.py test`` keeps the tests' servers' files in memory
(/dev/shm) where there is room: a folder of its own for each run, removed
after a passing one; a failed run's is kept for its logs, for half a day;
the room it asks grows with the test processes."""

from __future__ import annotations

import os
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.support.dev_script import dev


def test_each_run_gets_a_folder_of_its_own_and_old_ones_of_failed_runs_go(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = dev()
    # Room whatever this machine has free now (a run's own servers use some).
    monkeypatch.setattr(script.shutil, "disk_usage",
                        lambda _: shutil_usage(free=2 * script.SCRATCH_NEEDS))
    stale = tmp_path / "muggins-tests-stale"
    recent = tmp_path / "muggins-tests-recent"
    other = tmp_path / "someone-elses"
    for folder in (stale, recent, other):
        folder.mkdir()
    long_ago = time.time() - script.SCRATCH_KEPT_FOR - 60
    os.utime(stale, (long_ago, long_ago))
    os.utime(other, (long_ago, long_ago))
    first, second = script.scratch_in_memory(tmp_path), script.scratch_in_memory(tmp_path)
    assert first is not None and second is not None and first != second
    assert first.parent == tmp_path and first.name.startswith("muggins-tests-")
    assert not stale.exists()  # a failed run's, long done
    assert recent.exists() and other.exists()  # perhaps still looked at; not ours


def test_no_room_in_memory_means_pytests_own_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = dev()
    assert script.scratch_in_memory(tmp_path / "not-there") is None

    stale = tmp_path / "muggins-tests-stale"
    stale.mkdir()
    long_ago = time.time() - script.SCRATCH_KEPT_FOR - 60
    os.utime(stale, (long_ago, long_ago))
    monkeypatch.setattr(script.shutil, "disk_usage",
                        lambda _: shutil_usage(free=script.SCRATCH_NEEDS - 1))
    assert script.scratch_in_memory(tmp_path) is None
    # Old folders go even when there is no room (they may be what fills it).
    assert not list(tmp_path.iterdir())


def shutil_usage(free: int) -> SimpleNamespace:
    """What shutil.disk_usage answers, as far as dev.py reads it."""
    return SimpleNamespace(free=free)


def test_more_test_processes_need_more_room(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = dev()
    free = script.SCRATCH_NEEDS + script.SCRATCH_NEEDS_PER_PROCESS
    monkeypatch.setattr(script.shutil, "disk_usage", lambda _: shutil_usage(free=free))
    assert script.scratch_in_memory(tmp_path, processes=4) is not None
    assert script.scratch_in_memory(tmp_path, processes=8) is None  # 8 GiB asked, 5 free

