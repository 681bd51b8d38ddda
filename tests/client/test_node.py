"""The web client's pure modules under node's own test runner: ``node --test
tests/client/`` (the board's geometry, layout.js, over many random hands:
tests/client/layout*.test.mjs; the table page's reducer, table-state.js:
tests/client/table-state.test.mjs; the page's words, i18n.js:
tests/client/i18n.test.mjs), with boards the rules engine itself played
for every preset passed along (MUGGINS_ENGINE_BOARDS), so the layout is
checked on the boards the page really receives.  The files run in three
groups, one pytest test each, so that workers run the long sweeps side by
side (one node run of them all was the longest test of the suite).

Node is needed: without it this test fails, saying how to install it
(deploy/dev.py test installs it as root or with sudo).  No server: the fast
tier runs it."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import msgspec
import pytest

from muggins.bots.levels import tell
from muggins.bots.selfplay import make_bots
from muggins.domain.views import layout_view
from muggins.rules.commands import StartHand
from muggins.rules.errors import InvalidRuleset
from muggins.rules.game import play, start_game
from muggins.rules.presets import PRESETS, preset
from muggins.rules.shuffle import game_seed_from_text, hand_seed

ROOT = Path(__file__).resolve().parents[2]
CLIENT = Path(__file__).resolve().parent
#: What each preset is played with here: two players, and four in partnerships
#: where the preset allows it (more tiles reach the board).
SEATINGS = ((2, False), (4, True))


def node() -> str:
    found = shutil.which("node") or ("/usr/bin/node" if Path("/usr/bin/node").exists() else None)
    if found is None:
        pytest.fail("node not found: the web client's tests need Node.js 18 or newer "
                    "(apt-get install nodejs; deploy/dev.py test installs it as root or with sudo)")
    return found


def engine_boards(hands: int = 1) -> list[dict[str, Any]]:
    """Every board (after each play) of the first ``hands`` hands random bots
    play, for every preset on double-six and double-nine."""
    boards: list[dict[str, Any]] = []
    for name in PRESETS:
        for max_pip in (6, 9):
            for seats, partners in SEATINGS:
                try:
                    rules = preset(name, seats, partners, max_pip=max_pip)
                except InvalidRuleset:  # a seating this preset is not played with
                    continue
                game_seed = game_seed_from_text(f"client/{name}/{max_pip}/{seats}")
                bots = make_bots(["random"] * seats, game_seed)
                state, events = start_game(rules)
                played = 0
                while state.phase != "game-over":
                    for bot in bots:
                        tell(bot, events)
                    if state.phase == "between-hands":
                        if played == hands:
                            break
                        played += 1
                        seed = hand_seed(game_seed, played).hex()
                        state, events = play(state, StartHand(seed=seed))
                        continue
                    assert state.hand is not None
                    state, events = play(state, bots[state.hand.turn].choose(state))
                    view = layout_view(state)
                    if view.lead is not None:
                        boards.append({"preset": f"{name} double-{max_pip}, {seats} seats",
                                       "board": msgspec.to_builtins(view)})
    return boards


#: The node test files in groups of about equal time (one group a pytest test).
GROUPS = (
    ("layout-double-nine.test.mjs",),
    ("layout-double-six.test.mjs",),
    ("layout.test.mjs", "table-state.test.mjs", "i18n.test.mjs"),
)


def test_every_node_test_file_is_in_a_group() -> None:
    grouped = sorted(name for group in GROUPS for name in group)
    assert grouped == sorted(path.name for path in CLIENT.glob("*.test.mjs"))


@pytest.mark.parametrize("files", GROUPS, ids=lambda files: files[0].removesuffix(".test.mjs"))
def test_the_client_modules_pass_their_node_tests(tmp_path: Path, files: tuple[str, ...]) -> None:
    boards = tmp_path / "engine-boards.json"
    boards.write_bytes(msgspec.json.encode(engine_boards() if "layout.test.mjs" in files else []))
    result = subprocess.run(
        [node(), "--test", *(str((CLIENT / name).relative_to(ROOT)) for name in files)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
        env={**os.environ, "MUGGINS_ENGINE_BOARDS": str(boards)},
    )
    assert result.returncode == 0, f"node --test failed:\n{result.stdout}\n{result.stderr}"
    # Every test ran: none was skipped for want of the engine's boards.
    assert "# skipped 0" in result.stdout, result.stdout
