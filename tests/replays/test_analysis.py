"""The expert's analysis of a finished hand: judged from what each seat
knew, the same every time, shown by `muggins replay show --analyse`."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from muggins.cli import main
from muggins.replay.analysis import COSTLY_POINTS, analyse_hand, analysis_lines
from muggins.replay.source import read_record
from muggins.replay.verify import verify_record
from muggins.rules.events import TilePlayed

EXAMPLES = Path(__file__).resolve().parents[2] / "replays" / "examples"


@pytest.mark.parametrize("name", ["playelephant-2-hand3.json", "all-fives-4-hand2.json",
                                  "classic-muggins-2-hand1.json"])
def test_the_analysis_of_a_hand_is_the_same_twice_and_judges_every_choice(name: str) -> None:
    record = read_record(EXAMPLES / name)
    before = record.before.game_state(record.ruleset)
    events = verify_record(record).rebuilt
    first = analyse_hand(before, events, seed="example", iterations=150)
    assert first == analyse_hand(before, events, seed="example", iterations=150)
    plays = [e for e in events if isinstance(e, TilePlayed)]
    assert first.decisions and len(first.decisions) <= len(plays)
    for decision in first.decisions:
        played = next(e for e in plays if e.tile == decision.tile)
        assert played.seat == decision.seat and decision.given_up >= 0
        assert decision.costly == (decision.given_up >= COSTLY_POINTS)
        assert len(decision.plays) >= 2  # only real choices are judged
        if decision.given_up == 0:
            assert (decision.tile, decision.end) in {(p.tile, p.end) for p in decision.plays}
    assert analysis_lines(first)[1].startswith(f"Hand {first.hand} as the expert sees it")


def test_replay_show_analyse_from_a_file() -> None:
    example = EXAMPLES / "playelephant-2-hand3.json"
    result = CliRunner().invoke(main, ["replay", "show", "--file", str(example), "--analyse",
                                       "--iterations", "100"])
    assert result.exit_code == 0, result.output
    assert "as the expert sees it (100 simulations per decision" in result.output
    assert "expected points given up in all" in result.output
