"""Golden text playthroughs and legal-move listings: any change of behaviour
or ordering shows as a diff.  Regenerate with UPDATE_GOLDEN=1 after a
deliberate change, and read the diff before committing it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from muggins.bots.playbyplay import narrate
from muggins.bots.selfplay import make_bots, play_game
from muggins.rules.commands import StartHand
from muggins.rules.game import legal_moves, play, start_game
from muggins.rules.presets import preset
from muggins.rules.shuffle import game_seed_from_text, hand_seed
from muggins.rules.state import GameState

GOLDEN = Path(__file__).parent / "golden"

GAMES = [
    ("playelephant", 2, False, "greedy"),
    ("playelephant", 4, True, "greedy"),
    ("muggins", 3, False, "greedy"),
    ("all-fives", 4, False, "random"),
    ("five-up", 2, False, "greedy"),
    ("classic-muggins", 2, False, "random"),
    ("block", 2, False, "random"),
    ("fives-and-threes", 4, True, "greedy"),
]


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text)
    assert path.exists(), f"missing golden file {path}; run with UPDATE_GOLDEN=1"
    assert text == path.read_text(), f"{name} differs from its golden file"


@pytest.mark.parametrize(("name", "seats", "partners", "bot"), GAMES)
def test_playthrough_matches_golden(name: str, seats: int, partners: bool, bot: str) -> None:
    rules = preset(name, seats, partners)
    game_seed = game_seed_from_text(f"golden/{name}/{seats}")
    bots = make_bots([bot] * seats, game_seed)  # type: ignore[list-item]
    text = "\n".join(narrate(play_game(rules, game_seed, bots))) + "\n"
    suffix = "p" if partners else ""
    check_golden(f"{name}-{seats}{suffix}.txt", text)


def _moves_text(state: GameState) -> str:
    assert state.hand is not None
    moves = legal_moves(state)
    return f"turn {state.hand.turn}: " + "; ".join(
        f"{type(m).__name__} {getattr(m, 'tile', '')} {getattr(m, 'end', '')}".strip()
        for m in moves
    )


def test_legal_move_order_matches_golden() -> None:
    rules = preset("playelephant", 2)
    game_seed = game_seed_from_text("golden/legal-moves")
    bots = make_bots(["random", "random"], game_seed)
    state, _ = start_game(rules)
    lines = []
    while state.phase != "game-over" and state.hands_played < 3:
        if state.phase == "between-hands":
            seed = hand_seed(game_seed, state.hands_played + 1).hex()
            state, _ = play(state, StartHand(seed=seed))
            continue
        lines.append(_moves_text(state))
        assert state.hand is not None
        state, _ = play(state, bots[state.hand.turn].choose(state))
    check_golden("legal-moves-playelephant-2.txt", "\n".join(lines) + "\n")
