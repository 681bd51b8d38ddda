"""What runs inside a worker process of muggins.tables.bot_workers: a bot's
decision, a hint, a hand's analysis, JSON in and JSON out, and the watch
that ends the worker with its service.

Apart from the pool's side on purpose: a worker imports only this module
(the rules, the bots, the expert, msgspec), not the service's bus, database
and web stacks, so a new worker is ready in a fraction of the time.
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Sequence

import msgspec

from muggins.bots.ladder import EXPERT_BUDGET_MS, BotLevel
from muggins.bots.levels import make_bot, tell
from muggins.expert.bot import PlayAssessment, analyse_state
from muggins.expert.search_structs import SearchSettings
from muggins.infra.embedded import pid_alive
from muggins.rules.commands import AnyCommand
from muggins.rules.events import AnyEvent, Event
from muggins.rules.state import GameState
from muggins.rules.stored_state import decode_state

_events_decoder = msgspec.json.Decoder(list[AnyEvent])
encode = msgspec.json.Encoder().encode


def decide(level: BotLevel, state: GameState, events: Sequence[Event], seed: str,
           budget_ms: float = EXPERT_BUDGET_MS) -> AnyCommand:
    """One bot's move for the seat on turn (in whichever process calls it)."""
    bot = make_bot(level, random.Random(seed), budget_ms=budget_ms, clock=time.perf_counter)
    tell(bot, events)
    return bot.choose(state)


def decide_in_worker(level: BotLevel, state_json: bytes, events_json: bytes, seed: str,
                     budget_ms: float) -> bytes:
    """``decide`` across a process boundary: JSON in, JSON out."""
    state = decode_state(state_json)
    events = _events_decoder.decode(events_json)
    return encode(decide(level, state, events, seed, budget_ms))


def analyse_in_worker(before_json: bytes, events_json: bytes, seed: str) -> bytes:
    """A finished hand's analysis (muggins.replay.analysis) across a process boundary."""
    from muggins.replay.analysis import analyse_hand

    before = decode_state(before_json)
    events = _events_decoder.decode(events_json)
    return encode(analyse_hand(before, events, seed=seed))


def suggest(state: GameState, events: Sequence[Event], seed: str,
            budget_ms: float = EXPERT_BUDGET_MS) -> PlayAssessment:
    """The expert's suggestion for the seat on turn, from what that seat knows."""
    settings = SearchSettings(budget_ms=budget_ms)
    return analyse_state(state, events, settings, random.Random(seed), time.perf_counter).preferred


def suggest_in_worker(state_json: bytes, events_json: bytes, seed: str,
                      budget_ms: float) -> bytes:
    """``suggest`` across a process boundary: JSON in, JSON out."""
    return encode(suggest(decode_state(state_json), _events_decoder.decode(events_json),
                           seed, budget_ms))


def lowest_priority(service: int) -> None:
    """A spare-time worker's first act: the lowest CPU priority, and the watch."""
    os.nice(19)
    leave_with(service)


def warm() -> None:
    """Nothing: importing this module in a worker is the warming."""


def leave_with(service: int) -> None:
    """A worker's first act: a watch that ends it as soon as the service
    that started it is gone (killed, or stopped without waiting for it), so
    that no orphan goes on thinking.  Its parent is the service, or the
    service's fork server (muggins.tables.bot_workers.worker_processes),
    which lives on while any worker does: so the service's own end is what
    the watch looks for, and a parent that changed."""
    parent = os.getppid()

    def service_is_alive() -> bool:
        # Without POSIX signals (Windows) signal 0 is no question: the
        # pool's own pipes end the worker there.
        return pid_alive(service) if os.name == "posix" else True

    def watch() -> None:
        while os.getppid() == parent and service_is_alive():
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()
