"""The order the tests go to the workers in (tests.support.ordering): each
folder's tests spread evenly over the run, the slow ones over its first
half, taking turns by folder; nothing lost, nothing doubled, a module kept
on one worker never reordered or split by the folder spread.  And the
installed pytest-xdist keeps such a module on one worker."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pytest

from tests.support.ordering import TESTS, spread_by_folder, spread_slow_tests


@dataclass
class Collected:
    """What spread_slow_tests reads of a collected test: its file and markers."""
    path: Path
    markers: set[str] = field(default_factory=set)

    def get_closest_marker(self, name: str) -> Any:
        return name if name in self.markers else None


def collected(folder: str, count: int, *markers: str) -> list[Collected]:
    return [Collected(TESTS / folder / f"test_{n}.py", set(markers)) for n in range(count)]


def test_the_slow_tests_spread_over_the_first_half_taking_turns_by_folder() -> None:
    quick = collected("rules", 100)
    browser = collected("browser", 3, "slow")
    faults = collected("faults", 4, "slow")
    grouped = collected("cluster", 3, "slow", "xdist_group")
    items = [*browser, *faults, *quick, *grouped]
    ordered = cast(list[Collected], spread_slow_tests(cast(list[pytest.Item], items)))
    assert sorted(map(id, ordered)) == sorted(map(id, items))  # nothing lost or doubled
    slow_places = [n for n, item in enumerate(ordered) if item in browser + faults]
    assert max(slow_places) < len(ordered) // 2
    # Turns in the order the folders come once spread (faults[0] at 1/8 of
    # its folder, before browser[0] at 1/6).
    assert [ordered[n] for n in slow_places] == [
        faults[0], browser[0], faults[1], browser[1], faults[2], browser[2], faults[3]]
    # Quick tests between them: 103 others, half of them in seven gaps.
    assert all(slow_places[k + 1] - slow_places[k] == 8 for k in range(len(slow_places) - 1))
    # A module xdist keeps on one worker is not moved as slow, and keeps its order.
    assert [item for item in ordered if item in grouped] == grouped
    assert [item for item in ordered if item in quick] == quick


def test_each_folders_tests_are_spread_over_the_run_in_their_order() -> None:
    rules, expert = collected("rules", 5), collected("expert", 3)
    ordered = cast(list[Collected], spread_slow_tests(cast(list[pytest.Item], rules + expert)))
    # Each at its share of the way: rules at 0.1, 0.3 ... 0.9; expert at 1/6, 3/6, 5/6.
    assert ordered == [rules[0], expert[0], rules[1], rules[2], expert[1], rules[3],
                       expert[2], rules[4]]


def test_a_module_kept_on_one_worker_moves_as_one_piece() -> None:
    quick = collected("cluster", 4)
    module = TESTS / "cluster" / "test_faults.py"
    kept = [Collected(module, {"xdist_group"}) for _ in range(3)]
    items = [*kept, *quick, *collected("rules", 6)]
    ordered = cast(list[Collected], spread_by_folder(cast(list[pytest.Item], items)))
    assert sorted(map(id, ordered)) == sorted(map(id, items))
    start = ordered.index(kept[0])
    assert ordered[start:start + 3] == kept  # together, in their order
    assert [item for item in ordered if item in quick] == quick


def test_xdist_keeps_a_groups_tests_on_one_worker(tmp_path: Path) -> None:
    """The installed pytest and pytest-xdist honour ``xdist_group``: a
    module marked so (the cluster's tests, the evidence's) runs on one
    worker, which builds its costly fixtures once.  pytest 9.2 with
    pytest-xdist 3.8 spread them over every worker, silently (the pin in
    pyproject.toml)."""
    pytest.importorskip("xdist")
    # Collected first: without grouping, xdist's first hand-out gives each
    # worker one of them, whatever the machine's load.
    (tmp_path / "test_a_grouped.py").write_text(
        "import pytest\n"
        "pytestmark = pytest.mark.xdist_group('one')\n"
        "@pytest.mark.parametrize('n', range(6))\n"
        "def test_grouped(n):\n    pass\n")
    (tmp_path / "test_b_free.py").write_text(
        "import pytest\n"
        "@pytest.mark.parametrize('n', range(6))\n"
        "def test_free(n):\n    pass\n")
    # Neither this project's settings (-c: none) nor options from the
    # environment (PYTEST_ADDOPTS' -q would hide the lines read below).
    environment = {name: value for name, value in os.environ.items()
                   if not name.startswith("PYTEST_")}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-v",
         "-p", "no:cacheprovider", "--rootdir", str(tmp_path), "-c", os.devnull, str(tmp_path)],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, env=environment, check=False)
    output = run.stdout[-3000:] + run.stderr[-3000:]
    assert run.returncode == 0, output
    passed = (re.match(r"\[(gw\d+)\] .*PASSED .*::(test_\w+)", line)
              for line in run.stdout.splitlines())
    workers = {(found[2], found[1]) for found in passed if found}
    assert {name for name, _ in workers} == {"test_grouped", "test_free"}, output
    assert len({worker for _, worker in workers}) == 2, output  # two workers took tests
    assert len({worker for name, worker in workers if name == "test_grouped"}) == 1, output
