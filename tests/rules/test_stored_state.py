"""A state written out and read back (muggins.rules.stored_state): the JSON
is the one the state wrote when its classes were msgspec Structs, so the
table views' rows written before read back the same, and a round trip gives
the same state."""

from __future__ import annotations

import copy
import pickle
import random
from pathlib import Path
from typing import Any

import msgspec
import pytest

from muggins.infra.compiled import engine_is_compiled
from muggins.rules.commands import Play, StartHand
from muggins.rules.game import legal_moves, play, points_if_played, start_game
from muggins.rules.layout import Layout, Spinner
from muggins.rules.presets import preset
from muggins.rules.shuffle import hand_seed
from muggins.rules.state import (
    GAME_FIELDS,
    HAND_FIELDS,
    GameState,
    HandState,
    MoveRules,
    PendingCount,
    replaced,
)
from muggins.rules.stored_state import (
    StoredGame,
    StoredHand,
    StoredLayout,
    StoredSpinner,
    decode_state,
    encode_state,
)
from muggins.rules.tiles import Tile

#: States written by the Struct classes (before the state was compiled):
#: a pending muggins count, six spinners, between hands, and a game's end.
GOLDEN = Path(__file__).parent / "golden" / "stored-states.jsonl"


def test_states_written_before_read_back_and_write_the_same_bytes() -> None:
    lines = GOLDEN.read_bytes().splitlines()
    assert len(lines) == 4
    for line in lines:
        state = decode_state(line)
        assert encode_state(state) == line
    pending = decode_state(lines[0]).hand
    assert pending is not None and pending.pending is not None
    spun = decode_state(lines[1]).hand
    assert spun is not None and len(spun.layout.spinners) == 6
    assert all(isinstance(s, Spinner) for s in spun.layout.spinners)


def test_each_twin_has_its_class_fields_in_order() -> None:
    assert StoredGame.__struct_fields__ == GAME_FIELDS
    assert StoredHand.__struct_fields__ == HAND_FIELDS
    assert StoredLayout.__struct_fields__ == ("lead", "arms", "ends", "spinners", "count",
                                              "open_numbers")
    assert StoredSpinner.__struct_fields__ == ("tile", "arm", "position", "short_arms")


@pytest.mark.parametrize(("name", "seats", "partners"), [
    ("classic-muggins", 2, False), ("five-up", 2, False), ("playelephant", 4, True),
    ("muggins", 3, False), ("block", 2, False),
])
def test_every_state_of_a_game_round_trips(name: str, seats: int, partners: bool) -> None:
    rng = random.Random(name)
    state, _ = start_game(preset(name, seats, partners))
    hand = 0
    while state.phase != "game-over":
        if state.phase == "between-hands":
            hand += 1
            state, _ = play(state, StartHand(seed=hand_seed(name.encode(), hand).hex()))
        else:
            moves = legal_moves(state)
            move = moves[int(rng.random() * len(moves))]
            if isinstance(move, Play) and rng.random() < 0.5:  # leave some counts unclaimed
                move = msgspec.structs.replace(move, claim=points_if_played(state, move) or None)
            state, _ = play(state, move)
        written = encode_state(state)
        again = decode_state(written)
        assert again == state and encode_state(again) == written
        assert again.move_rules.seats == seats


def test_what_is_not_a_state_is_refused() -> None:
    for bad in (b"{}", b'{"ruleset":{},"scores":"none"}', b"[1,2]", b"not json"):
        with pytest.raises((msgspec.ValidationError, msgspec.DecodeError)):
            decode_state(bad)


def test_a_state_cannot_be_changed_in_place_only_replaced() -> None:
    state, _ = start_game(preset("all-fives", 2))
    state, _ = play(state, StartHand(seed="ab" * 32))
    hand = state.hand
    assert isinstance(hand, HandState)
    later = replaced(state, scores=(5, 0))
    assert later.scores == (5, 0) and later.hand is hand and state.scores == (0, 0)
    assert replaced(hand, passes=1).passes == 1 and hand.passes == 0
    with pytest.raises(TypeError, match="no field 'score'"):
        replaced(state, score=(5, 0))
    assert isinstance(later, GameState) and later != state
    assert later == replaced(state, scores=(5, 0))
    assert hash(later) == hash(replaced(state, scores=(5, 0)))
    if engine_is_compiled():  # compiled, a Final field has no setter
        with pytest.raises(AttributeError):
            state.scores = (9, 9)  # type: ignore[misc]
        with pytest.raises(AttributeError):
            hand.layout.count = 9  # type: ignore[misc]


def _mid_hand() -> GameState:
    """A five-up game some plays in: six spinners on the board."""
    for line in GOLDEN.read_bytes().splitlines():
        state = decode_state(line)
        if state.hand is not None and state.hand.layout.spinners:
            return state
    raise AssertionError("the golden rows hold a spinner")


def test_a_state_copies_and_pickles_as_itself() -> None:
    for line in GOLDEN.read_bytes().splitlines():  # a pending count, spinners, between hands
        state = decode_state(line)
        values: list[object] = [state, state.move_rules, PendingCount(1, 10)]
        hand = state.hand
        if hand is not None:
            values += [hand, hand.layout, *hand.layout.spinners]
            if hand.pending is not None:
                values.append(hand.pending)
        for value in values:
            for again in (copy.copy(value), copy.deepcopy(value),
                          pickle.loads(pickle.dumps(value))):
                assert type(again) is type(value)
                if isinstance(value, MoveRules):
                    assert isinstance(again, MoveRules) and again.ruleset == value.ruleset
                else:
                    assert again == value and hash(again) == hash(value)
                if isinstance(again, GameState):
                    assert again.move_rules.ruleset is again.ruleset
                    assert encode_state(again) == line


def test_a_state_refuses_another_rulesets_move_rules() -> None:
    state = _mid_hand()
    other = preset("all-fives", 2)
    with pytest.raises(ValueError, match="another ruleset"):
        GameState(ruleset=state.ruleset, scores=state.scores, move_rules=MoveRules(other))
    assert GameState(ruleset=other, scores=(0, 0), move_rules=MoveRules(other)).scores == (0, 0)


def test_every_field_counts_for_equality() -> None:
    state = _mid_hand()
    hand = state.hand
    assert hand is not None
    other_game: dict[str, Any] = {
        "ruleset": preset("all-fives", 2), "scores": (95, 0), "phase": "game-over",
        "hand": None, "hands_played": 7, "last_leader": 1, "last_domino_seat": 1,
        "last_winner_seat": 1, "winner_side": 0,
    }
    other_hand: dict[str, Any] = {
        "number": 9, "leader": 1 - hand.leader, "must_lead": Tile(6, 6), "commitment": "00",
        "seed": "11", "hands": ((), ()), "boneyard": (Tile(0, 0),), "layout": Layout(),
        "turn": 1 - hand.turn, "passes": 1, "pending": PendingCount(0, 15),
    }
    assert set(other_game) == set(GAME_FIELDS) and set(other_hand) == set(HAND_FIELDS)
    for name, value in other_game.items():
        assert getattr(state, name) != value, name
        assert replaced(state, **{name: value}) != state, name
    for name, value in other_hand.items():
        assert getattr(hand, name) != value, name
        assert replaced(hand, **{name: value}) != hand, name
