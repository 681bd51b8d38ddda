"""``python3 deploy/dev.py test``: the type check runs beside the tests (its
report comes after theirs, and its failure fails the command even when every
test passed), and the commands it runs keep bytecode caches whatever the
environment says."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.dev_script import dev

#: A stand-in for mypy that reports and fails (the real one takes 15-20 s).
FAILING_CHECK = [sys.executable, "-c", "print('shared/x.py:1: error: nope'); raise SystemExit(3)"]


def test_a_failed_type_check_fails_the_command_though_the_tests_passed(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    script = dev()
    ran: list[tuple[str, ...]] = []

    def run(*argv: str) -> int:
        ran.append(argv)
        print(f"{argv[2]} reports here")
        return 0

    monkeypatch.setattr(script, "ensure_environment", lambda: None)
    monkeypatch.setattr(script, "ensure_system_packages", lambda *_: 0)
    monkeypatch.setattr(script, "_run", run)
    real_check = script.TypeCheck
    monkeypatch.setattr(script, "TypeCheck", lambda: real_check(FAILING_CHECK))
    assert script.test([f"--basetemp={tmp_path}", "tests/nothing"]) == 3
    assert [argv[2] for argv in ran] == ["ruff", "pytest"]
    printed = capsys.readouterr().out
    assert "shared/x.py:1: error: nope" in printed
    # after the tests' own report:
    assert printed.index("\nshared/x.py") > printed.index("pytest reports here")
    assert "the type check failed (exit code 3)" in printed


def test_a_passing_check_leaves_the_tests_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    script = dev()
    with script.TypeCheck([sys.executable, "-c", "print('Success: no issues found')"]) as check:
        pass
    assert check.code == 0
    assert "Success: no issues found" in capsys.readouterr().out


def test_interrupted_tests_stop_the_check(capsys: pytest.CaptureFixture[str]) -> None:
    script = dev()
    check: Any = script.TypeCheck([sys.executable, "-c", "import time; time.sleep(60)"])
    with pytest.raises(KeyboardInterrupt), check:
        raise KeyboardInterrupt
    assert check.code != 0  # killed, not waited out
    printed = capsys.readouterr().out
    assert "the type check failed" not in printed
    assert "stopped with the tests" in printed


def test_the_commands_it_runs_keep_bytecode_caches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.setenv("MUGGINS_SEEN_BY_THE_COMMAND", "yes")
    told = ("import os, sys; sys.exit(3 if 'PYTHONDONTWRITEBYTECODE' in os.environ"
            " or os.environ.get('MUGGINS_SEEN_BY_THE_COMMAND') != 'yes' else 0)")
    assert dev()._run(sys.executable, "-c", told) == 0  # the rest of the environment kept
