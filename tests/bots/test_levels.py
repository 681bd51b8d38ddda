"""The level ladder (its names in muggins.bots.ladder, its bots in
muggins.bots.levels): every level plays whole legal games in every preset
and seating; the fixed-effort levels are the same games for the same seed;
the ladder is named in one place and the API, the settings, the service's
workers and the lobby follow it.

That no level reads hidden tiles is proven with the expert's proof, over
every level (tests/expert/test_bot.py)."""

from __future__ import annotations

import json
import math
import random
import re
from collections.abc import Sequence
from pathlib import Path
from typing import get_args, get_type_hints

import msgspec
import pytest

from muggins.bots.ladder import (
    BOT_LEVELS,
    EXPERT_BUDGET_MS,
    LADDER,
    SAME_AS,
    SEARCHING,
    STRONGEST,
    BotLevel,
)
from muggins.bots.levels import HARD_ITERATIONS, Bot, EasyBot, GreedyBot, make_bot
from muggins.bots.selfplay import bot_rng, play_game, play_game_commands
from muggins.expert.bot import ExpertBot
from muggins.expert.search_structs import SearchSettings
from muggins.infra.settings import Settings
from muggins.rules.events import GameEnded, TilePlayed
from muggins.rules.presets import PRESETS, preset, seatings
from muggins.rules.shuffle import game_seed_from_text
from muggins.tables.protocol import BotSeat

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "services" / "muggins" / "client" / "static"
SEATINGS = [(name, seats, partners) for name in PRESETS for seats, partners in seatings(name)]
#: The expert level's fixed simulations in these tests: they check play, not strength.
EXPERT_ITERATIONS = 20


def bots_for(levels: Sequence[BotLevel], game_seed: bytes) -> list[Bot]:
    """A bot per seat, the expert thinking a fixed number of simulations."""
    return [make_bot(level, bot_rng(game_seed, seat), iterations=EXPERT_ITERATIONS)
            for seat, level in enumerate(levels)]


@pytest.mark.parametrize(("name", "seats", "partners"), SEATINGS)
def test_every_level_plays_whole_legal_games_in_every_preset_and_seating(
    name: str, seats: int, partners: bool
) -> None:
    rules = preset(name, seats, partners, target=50)
    # Every level sits at the table at least once, each time at another seat.
    games = math.ceil(len(LADDER) / seats)
    played: dict[BotLevel, int] = {}
    for game in range(games):
        levels = [LADDER[(game * seats + seat) % len(LADDER)] for seat in range(seats)]
        game_seed = game_seed_from_text(f"levels/{name}/{seats}/{partners}/{game}")
        # The engine refuses an illegal command (play raises), so a game that
        # ends was played legally throughout.
        events = list(play_game(rules, game_seed, bots_for(levels, game_seed)))
        assert isinstance(events[-1], GameEnded)
        for event in events:
            if isinstance(event, TilePlayed):
                played[levels[event.seat]] = played.get(levels[event.seat], 0) + 1
    assert set(played) == set(LADDER)


@pytest.mark.parametrize("level", [level for level in BOT_LEVELS if level != "expert"])
def test_a_fixed_effort_level_plays_the_same_game_for_the_same_seed(level: BotLevel) -> None:
    rules = preset("muggins", 2)  # the muggins rule: claims and calls too
    game_seed = game_seed_from_text(f"levels/deterministic/{level}")
    # Its opponent thinks a fixed number of simulations: deterministic as well.
    games = [[msgspec.json.encode(r) for r in play_game_commands(
        rules, game_seed, [make_bot(level, bot_rng(game_seed, 0), budget_ms=1.0),
                           make_bot("expert", bot_rng(game_seed, 1), iterations=30)])]
        for _ in range(2)]
    assert games[0] == games[1]


def test_hard_thinks_its_fixed_simulations_whatever_the_budget() -> None:
    rng = bot_rng(b"hard", 0)
    for bot in (make_bot("hard", rng), make_bot("hard", rng, budget_ms=1.0, iterations=5)):
        assert isinstance(bot, ExpertBot)
        assert bot.settings.iterations == HARD_ITERATIONS and bot.clock is None


def test_the_levels_are_the_bots_the_ladder_says() -> None:
    rng = bot_rng(b"which", 0)
    assert isinstance(make_bot("easy", rng), EasyBot)
    assert isinstance(make_bot("medium", rng), GreedyBot)
    assert SAME_AS == {"medium": "greedy"}
    expert = make_bot("expert", rng)
    assert isinstance(expert, ExpertBot) and expert.settings.iterations is None
    assert {"hard", "expert"} == SEARCHING
    with pytest.raises(ValueError, match="unknown bot level"):
        make_bot("grandmaster", rng)  # type: ignore[arg-type]


def test_the_strongest_level_takes_over_a_persons_seat() -> None:
    assert STRONGEST == LADDER[-1] == "expert"
    assert Settings().takeover_bot == STRONGEST


def test_the_api_takes_the_ladder_and_the_reference_bots_and_nothing_else() -> None:
    accepted = get_args(get_type_hints(BotSeat)["level"])
    assert accepted == BOT_LEVELS == (*LADDER, "random", "greedy")
    assert BotSeat(seat=1).level == "medium"
    with pytest.raises(msgspec.ValidationError, match="level"):
        msgspec.json.decode(b'{"seat": 1, "level": "grandmaster"}', type=BotSeat)


def test_the_lobby_offers_the_ladder_in_both_languages() -> None:
    lobby = (STATIC / "lobby.js").read_text()
    offered = re.search(r"const LEVELS = (\[[^\]]*\]);", lobby)
    assert offered is not None
    assert tuple(json.loads(offered.group(1))) == LADDER
    words = (STATIC / "i18n.js").read_text()
    english, spanish = words[words.index("  en: {"):words.index("  es: {")], \
        words[words.index("  es: {"):]
    for block in (english, spanish):
        for level in LADDER:
            # Its name (the lobby, the table's "bot · level") and its line in words.
            assert f'"level.{level}":' in block and f'"level.{level}.about":' in block


def test_the_experts_budget_has_one_value_wherever_it_defaults() -> None:
    """The ladder owns the expert's default budget; the pure search package
    may not import it, so its own default is held to it here, as are the
    service's setting and a bot made without one."""
    assert SearchSettings().budget_ms == EXPERT_BUDGET_MS
    assert Settings().expert_budget_ms == EXPERT_BUDGET_MS
    bot = make_bot("expert", random.Random(0))
    assert isinstance(bot, ExpertBot) and bot.settings.budget_ms == EXPERT_BUDGET_MS
    assert ExpertBot(random.Random(0), clock=lambda: 0.0).settings.budget_ms == EXPERT_BUDGET_MS
    # Settings given keep their budget unless one is given too (it was a literal 200 over them).
    own = SearchSettings(budget_ms=35)
    assert ExpertBot(random.Random(0), clock=lambda: 0.0, settings=own).settings.budget_ms == 35
    assert ExpertBot(random.Random(0), clock=lambda: 0.0, settings=own,
                     budget_ms=50).settings.budget_ms == 50
