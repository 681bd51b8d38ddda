"""What a seat knows: voids proven by draws and passes, the lead's proof,
sampled deals that respect all of it, and a package that cannot cheat."""

from __future__ import annotations

import ast
import random
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from muggins.bots.levels import Bot, GreedyBot, RandomBot
from muggins.expert import position as position_module
from muggins.expert.knowledge import Knowledge, knowledge_of, seat_view
from muggins.expert.position import from_state, indices, tables_for
from muggins.expert.sampler import DealSampler
from muggins.expert.search import _playout, reference_playout
from muggins.expert.search_random import SearchRandom
from muggins.rules.commands import AnyCommand
from muggins.rules.events import Event, Passed, TileDrawn, TilePlayed
from muggins.rules.presets import PRESETS, preset, seatings
from muggins.rules.state import GameState
from tests.expert.helpers import decisions
from tests.support.source_code import imported, parsed

SEATINGS = [(name, seats, partners) for name in PRESETS for seats, partners in seatings(name)]


def _positions_with_events(
    name: str, seats: int, partners: bool, seed: int
) -> list[tuple[GameState, list[Event]]]:
    rules = preset(name, seats, partners)
    found: list[tuple[GameState, list[Event]]] = []

    def keep(state: GameState, events: list[Event], command: AnyCommand) -> None:
        found.append((state, events))

    rng = random.Random(seed)
    bots: list[Bot] = [
        GreedyBot() if seat % 2 else RandomBot(random.Random(rng.random()))
        for seat in range(seats)
    ]
    for _ in decisions(rules, seed.to_bytes(8, "big"), bots, max_hands=3, on_decision=keep):
        pass
    return found


def _check_truth_is_consistent(state: GameState, knowledge: Knowledge) -> None:
    """The real deal satisfies every proof the knowledge holds."""
    hand = state.hand
    assert hand is not None
    tables = tables_for(state.ruleset)
    for seat, groups in enumerate(knowledge.groups):
        if seat == knowledge.view.seat:
            assert groups == ()
            continue
        real = tables.mask(hand.hands[seat])
        assert sum(g.count for g in groups) == len(hand.hands[seat])
        # The oldest groups are the most constrained: fill them first, as
        # a matching would, and every real tile must find a place.
        free = real
        for group in groups:
            fits = [i for i in indices(free) if not group.excluded >> i & 1]
            assert len(fits) >= group.count, f"seat {seat}: a proof excludes a real tile"
            for i in fits[: group.count]:
                free &= ~(1 << i)
        assert free == 0


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SEATINGS), st.integers(min_value=0, max_value=2**32))
def test_proofs_hold_for_the_real_deal_and_every_sampled_one(
    seating: tuple[str, int, bool], seed: int
) -> None:
    name, seats, partners = seating
    rng = random.Random(seed)
    for state, events in _positions_with_events(name, seats, partners, seed):
        hand = state.hand
        assert hand is not None
        seat = hand.turn
        knowledge = knowledge_of(seat_view(state, seat), events)
        assert knowledge.from_events
        _check_truth_is_consistent(state, knowledge)
        sampler = DealSampler(knowledge, missed_points_weight=0.2)
        tables = tables_for(state.ruleset)
        for _ in range(3):
            hands, boneyard = sampler.deal(SearchRandom.from_seed(rng.getrandbits(128)))
            assert hands[seat] == 0
            dealt = [tables.mask(hand.hands[seat])]
            for other, mask in enumerate(hands):
                if other != seat:
                    assert mask.bit_count() == len(hand.hands[other])
                    # Every tile a group cannot be is absent, group by group in the
                    # sampler's slots (checked through the seat's whole hand here:
                    # no tile excluded from all its groups).
                    never = knowledge.unseen
                    for group in knowledge.groups[other]:
                        if group.count:
                            never &= group.excluded
                    assert not mask & never
                dealt.append(mask)
            assert len(boneyard) == len(hand.boneyard)
            everything = 0
            for mask in dealt:
                assert not everything & mask
                everything |= mask
            for tile in boneyard:
                assert not everything >> tile & 1
                everything |= 1 << tile
            assert everything | tables.mask(hand.layout.tiles()) == tables.all_tiles


def test_a_draw_proves_a_void_in_the_open_ends() -> None:
    rules = preset("playelephant", 2)
    for seed in range(40):
        for state, events in _positions_with_events("playelephant", 2, False, seed):
            hand = state.hand
            assert hand is not None
            drew = [e for e in events if isinstance(e, TileDrawn) and e.seat != hand.turn]
            if not drew:
                continue
            knowledge = knowledge_of(seat_view(state, hand.turn), events)
            other = 1 - hand.turn
            # The seat that drew: its oldest tiles exclude something.
            assert any(g.excluded for g in knowledge.groups[other])
            assert len(knowledge.groups[other]) >= 2
            return
    raise AssertionError(f"no draw by the other seat in 40 games of {rules.preset}")


def test_a_pass_proves_a_void_in_block_games() -> None:
    for seed in range(40):
        for state, events in _positions_with_events("block", 2, False, seed):
            hand = state.hand
            assert hand is not None
            passes = [e for e in events if isinstance(e, Passed) and e.seat != hand.turn]
            if passes and hand.layout.lead is not None:
                knowledge = knowledge_of(seat_view(state, hand.turn), events)
                assert knowledge.groups[passes[-1].seat][0].excluded
                return
    raise AssertionError("no pass in 40 block games")


def test_the_highest_double_lead_proves_no_higher_double_elsewhere() -> None:
    rules = preset("muggins", 3)
    for state, events in _positions_with_events("muggins", 3, False, 4):
        hand = state.hand
        assert hand is not None
        knowledge = knowledge_of(seat_view(state, hand.turn), events)
        tables = tables_for(rules)
        led = hand.layout.lead
        if led is None or led.low != led.high:
            continue
        higher = tables.mask([t for t in tables.tiles if t.low == t.high and t.low > led.low])
        for seat, groups in enumerate(knowledge.groups):
            if seat != hand.turn and groups:
                assert groups[0].excluded & higher == higher
        return


def test_events_that_disagree_with_the_view_are_set_aside() -> None:
    state, events = next(
        (s, e) for s, e in _positions_with_events("playelephant", 2, False, 1)
        if s.hand is not None and len(s.hand.layout.tiles()) >= 3
    )
    assert state.hand is not None
    view = seat_view(state, state.hand.turn)
    assert knowledge_of(view, events).from_events
    last_play = max(i for i, e in enumerate(events) if isinstance(e, TilePlayed))
    missing_a_play = events[:last_play] + events[last_play + 1 :]
    assert not knowledge_of(view, missing_a_play).from_events
    assert not knowledge_of(view, []).from_events


def test_the_inlined_playout_plays_as_the_plain_one() -> None:
    for name, seats, partners in SEATINGS:
        for state, _ in _positions_with_events(name, seats, partners, 3)[:8]:
            for greedy_rate in (0.0, 0.85, 1.0):
                fast = from_state(state)
                plain = from_state(state)
                assert _playout(fast, SearchRandom.from_seed(5), greedy_rate) == reference_playout(
                    plain, SearchRandom.from_seed(5), greedy_rate
                )
                assert fast.scores == plain.scores and fast.hands == plain.hands
                assert fast.game_winner == plain.game_winner


# ---------------------------------------------------------------- purity

# mypy_extensions: only the i64 type the compiled search declares (search_random.py).
ALLOWED_THIRD_PARTY = {"msgspec", "mypy_extensions"}
FORBIDDEN = {
    "asyncio", "socket", "os", "time", "datetime", "secrets", "subprocess", "threading",
    "logging", "urllib", "http", "io", "pathlib", "uuid",
}


def test_the_expert_package_is_pure() -> None:
    """Standard library (no I/O, no clock), msgspec, mypy_extensions' i64 and
    muggins.rules only, and randomness only from a Random it is given (no
    module-level random calls)."""
    folder = Path(position_module.__file__).parent
    for path in folder.glob("*.py"):
        tree = parsed(path.read_text())
        for node in ast.walk(tree):
            for name in imported(node):
                top = name.split(".")[0]
                if name.startswith(("muggins.rules", "muggins.expert")) or top == "__future__":
                    continue
                assert top in ALLOWED_THIRD_PARTY or top in sys.stdlib_module_names, name
                assert top not in FORBIDDEN, f"{path.name} imports {name}"
                assert not name.startswith("muggins.") or name.startswith("muggins.rules")
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "random"
            ):
                assert node.attr == "Random", f"{path.name} uses random.{node.attr}"
