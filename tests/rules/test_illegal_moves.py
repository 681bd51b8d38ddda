"""Every kind of illegal command is refused with its own error and changes nothing."""

from __future__ import annotations

import msgspec
import pytest

from muggins.rules import errors
from muggins.rules.commands import AnyCommand, CallMuggins, Draw, Pass, Play, StartHand
from muggins.rules.game import apply, play, start_game
from muggins.rules.presets import preset
from muggins.rules.state import GameState
from muggins.rules.stored_state import encode_state
from muggins.rules.tiles import Tile
from tests.rules.scenario import dealt, t

RULES = preset("playelephant", 2)


def refused(state: GameState, command: AnyCommand, error: type[errors.IllegalMove]) -> str:
    before = encode_state(state)
    with pytest.raises(error) as caught:
        apply(state, command)
    assert encode_state(state) == before, "a refused command changed the state"
    assert str(caught.value), "every refusal explains itself"
    return str(caught.value)


@pytest.fixture
def after_lead() -> GameState:
    state = dealt(RULES, ["6-4 6-6 1-1", "4-2 3-3 0-0"], boneyard="2-1 5-5")
    state, _ = play(state, Play(seat=0, tile=t("6-4")))
    return state


def test_tile_not_in_hand(after_lead: GameState) -> None:
    message = refused(after_lead, Play(seat=1, tile=t("6-5"), end=0), errors.TileNotInHand)
    assert "6-5" in message


def test_tile_that_does_not_match(after_lead: GameState) -> None:
    # 4-2 fits the 4 on the right, not the 6 on the left.
    message = refused(after_lead, Play(seat=1, tile=t("4-2"), end=0), errors.TileDoesNotMatch)
    assert "4-2" in message and "6" in message


@pytest.mark.parametrize("end", [None, 2, 7, -1])
def test_wrong_or_missing_end(after_lead: GameState, end: int | None) -> None:
    refused(after_lead, Play(seat=1, tile=t("4-2"), end=end), errors.NoSuchEnd)


def test_closed_spinner_side_is_not_an_end() -> None:
    state = dealt(RULES, ["6-6 6-1", "6-3 3-3"])
    state, _ = play(state, Play(seat=0, tile=t("6-6")))
    refused(state, Play(seat=1, tile=t("6-3"), end=2), errors.NoSuchEnd)


def test_not_your_turn(after_lead: GameState) -> None:
    refused(after_lead, Play(seat=0, tile=t("6-6"), end=0), errors.NotYourTurn)
    refused(after_lead, Play(seat=5, tile=t("6-6"), end=0), errors.NotYourTurn)


def test_tile_that_does_not_exist_in_the_set(after_lead: GameState) -> None:
    refused(after_lead, Play(seat=1, tile=Tile(7, 4), end=1), errors.UnknownTile)
    refused(after_lead, Play(seat=1, tile=Tile(-1, 4), end=1), errors.UnknownTile)


def test_play_while_a_draw_is_required() -> None:
    state = dealt(RULES, ["6-4 1-1", "2-0 3-3"], boneyard="1-0 4-2")
    from muggins.rules.game import apply as apply_only

    state, _ = apply_only(state, Play(seat=0, tile=t("6-4")))
    refused(state, Play(seat=1, tile=t("2-0"), end=1), errors.DrawRequired)
    refused(state, Pass(seat=1), errors.DrawRequired)


def test_draw_or_pass_while_holding_a_playable_tile(after_lead: GameState) -> None:
    refused(after_lead, Draw(seat=1), errors.MustPlay)
    refused(after_lead, Pass(seat=1), errors.MustPlay)


def test_muggins_call_with_nothing_to_call(after_lead: GameState) -> None:
    refused(after_lead, CallMuggins(seat=1), errors.NothingToCall)


def test_start_hand_while_a_hand_is_played(after_lead: GameState) -> None:
    refused(after_lead, StartHand(seed="00" * 32), errors.HandInProgress)


@pytest.mark.parametrize("seed", ["", "xyz", "00" * 16])
def test_start_hand_with_a_bad_seed(seed: str) -> None:
    state, _ = start_game(RULES)
    refused(state, StartHand(seed=seed), errors.InvalidSeed)


def test_play_before_any_hand() -> None:
    state, _ = start_game(RULES)
    refused(state, Play(seat=0, tile=t("6-6")), errors.HandNotInProgress)


def test_anything_after_the_game_ended() -> None:
    state = dealt(RULES, ["6-4", "1-1"], scores=(245, 0))
    state, _ = play(state, Play(seat=0, tile=t("6-4")))
    assert state.phase == "game-over"
    for command in (
        Play(seat=1, tile=t("1-1"), end=0),
        Draw(seat=1),
        Pass(seat=1),
        CallMuggins(seat=1),
        StartHand(seed="00" * 32),
    ):
        refused(state, command, errors.GameOver)


def test_lead_with_an_end_is_refused() -> None:
    state = dealt(RULES, ["6-4 1-1", "2-0 3-3"])
    refused(state, Play(seat=0, tile=t("6-4"), end=0), errors.NoSuchEnd)


def test_commands_decode_strictly_from_json() -> None:
    decoder = msgspec.json.Decoder(AnyCommand)
    good = decoder.decode(b'{"type":"Play","seat":1,"tile":[2,4],"end":1}')
    assert good == Play(seat=1, tile=Tile(2, 4), end=1)
    for bad in (
        b'{"type":"Play","seat":"one","tile":[2,4]}',
        b'{"type":"Fly","seat":1}',
        b'{"type":"Play","seat":1,"tile":[2]}',
    ):
        with pytest.raises(msgspec.ValidationError):
            decoder.decode(bad)
