"""The command-to-broadcast clock times every command of a burst, and
forgets what nobody here broadcasts, with its memory bounded."""

from __future__ import annotations

from muggins.tables.metrics import COMMAND_TO_BROADCAST, MAX_PENDING, BroadcastClock


def _observed() -> float:
    for metric in COMMAND_TO_BROADCAST.collect():
        for sample in metric.samples:
            if sample.name.endswith("_count"):
                return sample.value
    return 0.0


def test_a_burst_settled_once_times_every_command_in_it() -> None:
    clock = BroadcastClock()
    before = _observed()
    for version in (3, 5, 8):
        clock.started("t1-g1", version, 0.0)
    clock.broadcast("t1-g1", 5)
    assert _observed() - before == 2
    clock.broadcast("t1-g1", 9)
    assert _observed() - before == 3
    clock.broadcast("t1-g1", 10)
    assert _observed() - before == 3


def test_unbroadcast_appends_are_forgotten_within_the_bound() -> None:
    clock = BroadcastClock()
    for number in range(MAX_PENDING + 500):
        clock.started(f"t{number}-g1", 1, 0.0)
    assert clock._pending == MAX_PENDING and len(clock._started) == MAX_PENDING
    before = _observed()
    clock.broadcast("t0-g1", 1)  # among the oldest: forgotten
    clock.broadcast(f"t{MAX_PENDING + 499}-g1", 1)
    assert _observed() - before == 1
