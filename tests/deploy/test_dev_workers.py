"""``python3 deploy/dev.py test``'s choices of machine: how many test
workers it starts on the cores this process may use, and which Chromium will
do for the browser tests."""

from __future__ import annotations

import pytest

from tests.support.dev_script import dev


def test_two_workers_a_core_and_one_more_for_the_whole_suite_between_two_and_eight() -> None:
    workers = dev().default_test_workers
    assert [workers(False, cores) for cores in (1, 2, 3, 4, 64)] == [3, 5, 7, 8, 8]
    assert [workers(True, cores) for cores in (1, 2, 3, 4, 64)] == [2, 2, 3, 4, 8]


def test_the_cores_counted_are_those_this_process_may_use(
        monkeypatch: pytest.MonkeyPatch) -> None:
    script = dev()
    monkeypatch.setattr(script.os, "sched_getaffinity", lambda _: {0, 1}, raising=False)
    monkeypatch.setattr(script.os, "cpu_count", lambda: 64)
    assert script.usable_cores() == 2


def test_the_whole_chromium_serves_where_its_headless_shell_is_missing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    script = dev()
    monkeypatch.delenv("MUGGINS_CHROMIUM", raising=False)
    monkeypatch.setattr(script.Path, "exists", lambda self: False)
    for installed, found in ((set(), False), ({"chromium"}, True),
                             ({"chromium-headless-shell"}, True)):
        monkeypatch.setattr(script.shutil, "which",
                            lambda name, installed=installed: name if name in installed else None)
        assert script._found("chromium-headless-shell") is found
