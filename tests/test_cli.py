"""The ``muggins`` command as a person uses it."""

from __future__ import annotations

import re
import shlex

import msgspec
import pytest
from click.testing import CliRunner

from muggins.cli import main
from muggins.rules.events import AnyEvent, GameEnded, GameStarted
from muggins.rules.presets import PRESETS


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_rules_lists_every_preset() -> None:
    code, out = run("rules")
    assert code == 0
    for name in PRESETS:
        assert name in out


@pytest.mark.parametrize("name", list(PRESETS))
def test_rules_prints_each_preset_in_words(name: str) -> None:
    code, out = run("rules", name)
    assert code == 0
    for topic in ("Players:", "Deal:", "Layout:", "Turn:", "Scoring:", "End of hand:", "Target:"):
        assert topic in out


@pytest.mark.parametrize("name", list(PRESETS))
def test_rules_in_spanish(name: str) -> None:
    code, out = run("rules", name, "--lang", "es")
    assert code == 0
    for topic in ("Jugadores:", "Reparto:", "Cadena:", "Turno:", "Puntos durante la mano:",
                  "Fin de la mano:", "Partida:"):
        assert topic in out


def test_rules_json_is_a_ruleset() -> None:
    code, out = run("rules", "muggins", "--seats", "4", "--partners", "--json")
    assert code == 0
    decoded = msgspec.json.decode(out)
    assert decoded["partnerships"] is True and decoded["target"] == 250


@pytest.mark.parametrize(
    "args",
    [
        ("rules", "dominoes-of-doom"),
        ("rules", "playelephant", "--seats", "3"),
        ("rules", "all-fives", "--seats", "4", "--partners"),
        ("simulate", "--seed", "x", "--seats", "5"),
        ("simulate", "--seed", "x", "--ruleset", "nope"),
        ("simulate", "--seed", "x", "--bots", "genius"),
        ("simulate", "--seed", "x", "--bots", "greedy,random,random"),
        ("simulate",),
    ],
)
def test_bad_input_is_a_clear_usage_error(args: tuple[str, ...]) -> None:
    code, out = run(*args)
    assert code == 2
    assert "Error" in out


def test_simulate_is_byte_for_byte_repeatable() -> None:
    args = ("simulate", "--seed", "repeat", "--ruleset", "all-fives", "--seats", "3",
            "--games", "3", "--bots", "random")
    first = run(*args)
    assert first[0] == 0
    assert first == run(*args)
    assert first != run(*args[:2], "repeat!", *args[3:])


def test_simulate_json_lines_are_events() -> None:
    code, out = run("simulate", "--seed", "j", "--json", "--games", "2", "--seats", "4",
                    "--partners")
    assert code == 0
    decoder = msgspec.json.Decoder(AnyEvent)
    events = [decoder.decode(line) for line in out.splitlines()]
    assert sum(isinstance(e, GameStarted) for e in events) == 2
    assert sum(isinstance(e, GameEnded) for e in events) == 2


def test_simulate_text_draws_the_layout() -> None:
    code, out = run("simulate", "--seed", "t")
    assert code == 0
    assert "[" in out and "open ends:" in out and "Game over" in out


def test_demo_plays_a_game() -> None:
    code, out = run("demo")
    assert code == 0 and "Game over" in out


@pytest.mark.parametrize(
    "seating", [("--seats", "4", "--partners"), ("--seats", "3")], ids=["4p", "3"]
)
def test_demo_prints_a_command_that_replays_its_game_byte_for_byte(
    seating: tuple[str, ...],
) -> None:
    code, out = run("demo", "--ruleset", "five-up", *seating)
    assert code == 0 and "Game over" in out
    first, _, play_by_play = out.partition("\n")
    match = re.search(r"`muggins (simulate [^`]*)`", first)
    assert match, first
    repeat = shlex.split(match.group(1))
    assert ("--partners" in repeat) == ("--partners" in seating)
    code, replayed = run(*repeat)
    assert code == 0
    assert replayed == play_by_play
