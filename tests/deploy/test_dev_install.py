"""``deploy/dev.py``'s install: what it asks pip for (pyproject.toml's
dependencies and the extras named), the build and the dependencies side by
side (one failing stops the other and the script, and nothing is recorded
as installed), and a stale compiled engine rebuilt alone."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.support.dev_script import dev

#: Writes its pid (whole, or not at all), then sleeps; marks the file if it
#: ever wakes.
SLEEPER = ("import os, sys, time\n"
           "open(sys.argv[1] + '.new', 'w').write(str(os.getpid()))\n"
           "os.replace(sys.argv[1] + '.new', sys.argv[1])\n"
           "time.sleep(30)\n"
           "open(sys.argv[1] + '.woke', 'w').close()")


def test_the_install_asks_for_the_dependencies_and_the_extras_named() -> None:
    script = dev()
    runtime = script.requirements("dev")
    assert any(wanted.startswith("litestar") for wanted in runtime)  # the project's own
    assert any(wanted.startswith("pytest") for wanted in runtime)  # dev's
    assert not any(wanted.startswith("open-spiel") for wanted in runtime)
    assert any(wanted.startswith("open-spiel") for wanted in script.requirements("dev, bench"))


def test_an_extra_the_project_does_not_define_stops_it_with_a_message() -> None:
    with pytest.raises(SystemExit, match=r"defines no extra 'tests'.*it has: .*dev"):
        dev().requirements("dev,tests")


def test_one_install_failing_stops_the_other_and_the_script(tmp_path: Path) -> None:
    pid_file = tmp_path / "sleeper.pid"
    sleeper = [sys.executable, "-c", SLEEPER, str(pid_file)]
    failing = [sys.executable, "-c",
               f"import os, sys, time\nwhile not os.path.exists({str(pid_file)!r}): "
               "time.sleep(0.01)\nsys.exit(2)"]
    with pytest.raises(SystemExit, match="installing it failed"):
        dev()._install_at_once([sleeper, failing], "installing it")
    with pytest.raises(ProcessLookupError):  # stopped and reaped, not left to sleep on
        os.kill(int(pid_file.read_text()), 0)
    assert not pid_file.with_name(pid_file.name + ".woke").exists()  # stopped, not waited out


def test_installs_that_all_succeed_all_run_and_return(tmp_path: Path) -> None:
    marks = [tmp_path / "first", tmp_path / "second"]
    dev()._install_at_once([[sys.executable, "-c", f"open({str(mark)!r}, 'w').close()"]
                            for mark in marks], "installing")
    assert all(mark.exists() for mark in marks)


def fake_venv(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
              script: Any) -> list[list[list[str]]]:
    """The script's venv in ``tmp_path`` (its python a placeholder file), pip
    never run: the installs it would make, as lists of commands."""
    python = tmp_path / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("")
    monkeypatch.setattr(script, "VENV", tmp_path)
    monkeypatch.setattr(script, "PYTHON", python)
    # The script's own name for the module, not the module itself.
    monkeypatch.setattr(script, "subprocess", SimpleNamespace(run=lambda *_, **__: None))
    made: list[list[list[str]]] = []
    monkeypatch.setattr(script, "_install_at_once",
                        lambda commands, _doing: made.append(commands))
    return made


def test_a_fresh_venv_gets_the_build_and_the_dependencies_then_its_record(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    script = dev()
    made = fake_venv(monkeypatch, tmp_path, script)
    script.ensure_environment()
    [(dependencies, build)] = made
    assert "litestar>=2.12" in dependencies and "--no-deps" not in dependencies
    assert build[-3:] == ["--no-deps", "-e", str(script.ROOT)]
    assert (tmp_path / ".muggins-installed").read_text() == script._stamp_for("dev")


def test_a_failed_install_is_not_recorded_as_done(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    script = dev()
    fake_venv(monkeypatch, tmp_path, script)

    def failing(_commands: list[list[str]], doing: str) -> None:
        raise SystemExit(f"{doing} failed")

    monkeypatch.setattr(script, "_install_at_once", failing)
    with pytest.raises(SystemExit):
        script.ensure_environment()
    assert not (tmp_path / ".muggins-installed").exists()


def test_a_stale_compiled_engine_is_rebuilt_alone(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    script = dev()
    made = fake_venv(monkeypatch, tmp_path, script)
    (tmp_path / ".muggins-installed").write_text(script._stamp_for("dev"))
    monkeypatch.setattr(script, "_compiled_engine_is_stale", lambda: True)
    script.ensure_environment()
    [[build]] = made
    assert build[-3:] == ["--no-deps", "-e", str(script.ROOT)]
