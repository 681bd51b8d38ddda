"""``GameState.move_rules``: the ruleset's knobs the engine reads during play,
copied from the Ruleset (their one owner) and never different from it."""

from __future__ import annotations

import msgspec

from muggins.rules.errors import InvalidRuleset
from muggins.rules.game import start_game
from muggins.rules.presets import PRESETS, preset
from muggins.rules.ruleset import Ruleset
from muggins.rules.state import MoveRules, replaced


def test_every_knob_is_the_rulesets_own() -> None:
    knobs = [name for name in dir(MoveRules) if not name.startswith("_") and name != "ruleset"]
    assert set(knobs) <= set(Ruleset.__struct_fields__)
    for name in PRESETS:
        for seats, partners in ((2, False), (4, True), (3, False), (4, False)):
            try:
                rules = preset(name, seats, partners)
            except InvalidRuleset:  # a seating the preset does not play
                continue
            state, _ = start_game(rules)
            assert state.move_rules.ruleset is rules
            for knob in knobs:
                assert getattr(state.move_rules, knob) == getattr(rules, knob), (name, knob)


def test_a_game_of_the_same_ruleset_shares_them_and_another_ruleset_has_its_own() -> None:
    rules = preset("all-fives", 2)
    first, _ = start_game(rules)
    second, _ = start_game(rules)
    assert second.move_rules is first.move_rules
    other = msgspec.structs.replace(rules, target=100)
    third, _ = start_game(other)
    assert third.move_rules.target == 100 and first.move_rules.target == rules.target
    moved = replaced(first, ruleset=other)
    assert moved.move_rules.ruleset is other and moved.move_rules.target == 100
